/* Formatting numbers for people: shared by the device list, the memory checks and the reports,
 * so it sits below them all (base layer: no other module of the library is called from it). */
#ifndef CLPARITY_FORMAT_H
#define CLPARITY_FORMAT_H

#include "clparity/export.h"

#include <stdbool.h>
#include <stddef.h>

CP_API_BEGIN

/* "1.50 GiB" at or above 1 GiB, else "12.5 MiB". With small, below 1 MiB: "3.0 KiB", and
 * below 1 KiB: "512 B". */
void cp_fmt_bytes(unsigned long long b, bool small, char *buf, size_t len);

/* A time of sec seconds in milliseconds, as every table prints one: "12.345" (three decimals)
 * from 0.1 ms up, below it at least three significant digits ("0.000420", never "0.000");
 * "0.000" for zero. The unit stays ms, so the tables' "ms" headers stay true. */
void cp_fmt_ms(double sec, char *buf, size_t len);

/* A duration for a line of text: "1.234 s" from 0.1 s up, below it cp_fmt_ms's digits in ms
 * ("0.312 ms", "0.00420 ms"), never "0.000 s". */
void cp_fmt_secs(double sec, char *buf, size_t len);

/* "Did you mean": the name nearest to what was given, when it is near enough to be a slip
 * ("adamm" for "adam", "compre" for "compare", "cl:onw" for "cl:own"): at most 2 edits
 * (insertions, deletions, substitutions and swaps of two neighbours each cost 1), and fewer
 * than half the longer name's letters. None when none is, or when two are equally near (a
 * guess between them would mislead). Start, offer every valid name, then ask. Every list of
 * valid words (options, commands, subcommands, engines, selectors' keywords) uses this one. */
typedef struct cp_nearest {
    const char *given;
    size_t given_len;
    const char *best; /* best_len characters; NULL: none offered is near */
    size_t best_len, best_d;
    bool tie;
} cp_nearest;

void cp_nearest_start(cp_nearest *nr, const char *given, size_t given_len);
void cp_nearest_offer(cp_nearest *nr, const char *name, size_t len);
/* Offers each word of a comma list ("list,clear"). */
void cp_nearest_offer_list(cp_nearest *nr, const char *words);
/* The nearest name (*len its length), or NULL when none is near or two tie. */
const char *cp_nearest_best(const cp_nearest *nr, size_t *len);
/* " (did you mean 'adam'?)" in buf, with prefix before the name ("--" for an option), or ""
 * when none is near. */
void cp_nearest_hint(const cp_nearest *nr, const char *prefix, char *buf, size_t len);

CP_API_END

#endif
