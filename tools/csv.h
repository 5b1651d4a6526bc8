/* Text built in memory and written atomically: the CSV files of sweep and train. */
#ifndef CLPARITY_CSV_H
#define CLPARITY_CSV_H

#include <stdbool.h>
#include <stddef.h>

struct text {
    char *p;
    size_t n, cap;
    bool oom; /* an allocation failed: nothing more is added */
    void *sidecar; /* csv_begin's FILE.csv.json (a cJSON object), written by csv_write */
};

void text_add(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled; then a
 * comma, or the line's end when last. */
void csv_field(struct text *t, const char *v, bool last);
/* A number (%.17g), or an empty field for a negative or non-finite one (unknown). */
void csv_num(struct text *t, double v, bool last);

/* The header line first, as hyperfine's and clpeak's CSVs (issue 36); the provenance (a cJSON
 * object, taken over here) goes into the sidecar FILE.csv.json that csv_write writes beside
 * the CSV: {"csv": the CSV's name, "columns": the header's names, "provenance": {...}}. */
void csv_begin(struct text *t, void *prov, const char *header);

/* Writes the sidecar path + ".json", then the text, each atomically, and frees both. '-'
 * (stdout), a FIFO or a device: the CSV alone (no sidecar; --json carries the provenance).
 * Prints "clparity CMD: ..." and returns the status on failure. */
int csv_write(const char *cmd, const char *path, struct text *t);

#endif
