/* Text built in memory, and the CSV files of sweep and train. */
#include "csv.h"

#include "cli.h"

#include "clparity/report.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void text_add(struct text *t, const char *fmt, ...)
{
    if (t->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(t->p ? t->p + t->n : NULL, t->p ? t->cap - t->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            t->oom = true;
            return;
        }
        if (t->p && t->n + (size_t)k < t->cap) {
            t->n += (size_t)k;
            return;
        }
        size_t cap = (t->cap ? t->cap * 2 : 4096) + (size_t)k;
        char *np = realloc(t->p, cap);
        if (!np) {
            t->oom = true;
            return;
        }
        t->p = np;
        t->cap = cap;
    }
}

/* RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled. */
void csv_field(struct text *t, const char *v, bool last)
{
    if (strpbrk(v, ",\"\r\n")) {
        text_add(t, "\"");
        for (const char *c = v; *c; ++c)
            text_add(t, *c == '"' ? "\"\"" : "%c", *c);
        text_add(t, "\"");
    } else {
        text_add(t, "%s", v);
    }
    text_add(t, last ? "\n" : ",");
}

void csv_num(struct text *t, double v, bool last)
{
    char buf[64] = "";
    /* Whole numbers (counts, multiply-adds, parameters) exactly: %.9g would round
     * 1073741824 multiply-adds to 1.07374182e+09. */
    if (v >= 0.0 && v < 9007199254740992.0 && v == floor(v))
        snprintf(buf, sizeof buf, "%.0f", v);
    else if (v >= 0.0 && isfinite(v))
        snprintf(buf, sizeof buf, "%.9g", v);
    csv_field(t, buf, last);
}

void csv_begin(struct text *t, void *prov, const char *header)
{
    cJSON *side = cJSON_CreateObject(), *cols = cJSON_AddArrayToObject(side, "columns");
    if (!side || !cols || !prov || cp_json_incomplete()) {
        cJSON_Delete(side);
        cJSON_Delete(prov);
        t->oom = true;
        return;
    }
    /* The header's names (plain words: none is quoted). */
    for (const char *c = header; *c && *c != '\n';) {
        size_t k = strcspn(c, ",\n");
        char *name = strndup(c, k);
        if (!name || !cp_json_push(cols, cJSON_CreateString(name)))
            t->oom = true;
        free(name);
        c += k + (c[k] == ',');
    }
    cp_json_add(side, "provenance", prov);
    t->sidecar = side;
    text_add(t, "%s", header);
}

/* FILE.csv.json beside path, or NULL (and *st CP_OK) where none is written: stdout, a FIFO, a
 * device. */
static char *sidecar_path(const char *cmd, const char *path, int *st)
{
    struct stat sb;
    *st = CP_OK;
    if (strcmp(path, "-") == 0 || (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)))
        return NULL;
    size_t n = strlen(path) + sizeof ".json";
    char *p = malloc(n);
    if (!p)
        *st = cli_fail(cmd, CP_FAIL_RUNTIME, "out of memory building CSV");
    else
        snprintf(p, n, "%s.json", path);
    return p;
}

int csv_write(const char *cmd, const char *path, struct text *t)
{
    int st = CP_OK;
    char *side = NULL;
    if (t->oom || cp_json_incomplete()) {
        st = cli_fail(cmd, CP_FAIL_RUNTIME, "out of memory building CSV");
        goto out;
    }
    if ((side = sidecar_path(cmd, path, &st)) == NULL && st != CP_OK)
        goto out;
    if (side) {
        const char *base = strrchr(path, '/');
        cJSON_AddStringToObject(t->sidecar, "csv", base ? base + 1 : path);
        if (cp_json_incomplete())
            st = cli_fail(cmd, CP_FAIL_RUNTIME, "out of memory building CSV");
        else if ((st = cp_json_write(side, t->sidecar)) != CP_OK)
            st = cli_fail(cmd, st, "--csv: %s", cp_err_msg());
    }
    /* The sidecar first: a failure after it leaves the old CSV (or none) and a sidecar of
     * clparity's, which the next run replaces. */
    if (st == CP_OK && (st = cp_file_write_atomic(path, t->p, t->n)) != CP_OK)
        st = cli_fail(cmd, st, "--csv: %s", cp_err_msg());
out:
    free(side);
    cJSON_Delete(t->sidecar);
    t->sidecar = NULL;
    free(t->p);
    t->p = NULL;
    return st;
}
