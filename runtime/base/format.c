#include "clparity/format.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void cp_fmt_bytes(unsigned long long b, bool small, char *buf, size_t len)
{
    if (b >= (1ULL << 30))
        snprintf(buf, len, "%.2f GiB", (double)b / (double)(1ULL << 30));
    else if (!small || b >= (1ULL << 20))
        snprintf(buf, len, "%.1f MiB", (double)b / (double)(1ULL << 20));
    else if (b >= 1024)
        snprintf(buf, len, "%.1f KiB", (double)b / 1024.0);
    else
        snprintf(buf, len, "%llu B", b);
}

void cp_fmt_ms(double sec, char *buf, size_t len)
{
    double ms = 1e3 * sec;
    int digits = 3;
    if (ms > 0.0 && ms < 0.1) { /* three significant digits: 0.0420 has 4 decimals */
        digits = 2 - (int)floor(log10(ms));
        digits = digits > 12 ? 12 : digits;
    }
    snprintf(buf, len, "%.*f", digits, ms);
}

void cp_fmt_secs(double sec, char *buf, size_t len)
{
    if (sec >= 0.1) {
        snprintf(buf, len, "%.3f s", sec);
        return;
    }
    char ms[32];
    cp_fmt_ms(sec, ms, sizeof ms);
    snprintf(buf, len, "%s ms", ms);
}

/* The edit distance between a and b (insertions, deletions, substitutions and swaps of two
 * neighbours each cost 1), or max + 1 as soon as it is sure to exceed max. */
static size_t edit_distance(const char *a, size_t na, const char *b, size_t nb, size_t max)
{
    enum { LONGEST = 64 };
    if (na > LONGEST || nb > LONGEST)
        return max + 1;
    size_t row[3][LONGEST + 1]; /* rows i - 2, i - 1 and i */
    for (size_t j = 0; j <= nb; ++j)
        row[0][j] = j;
    for (size_t i = 1; i <= na; ++i) {
        size_t *cur = row[i % 3], *prev = row[(i + 2) % 3], *prev2 = row[(i + 1) % 3];
        cur[0] = i;
        size_t best = cur[0];
        for (size_t j = 1; j <= nb; ++j) {
            size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
            size_t v = sub < del ? sub : del;
            v = v < ins ? v : ins;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                prev2[j - 2] + 1 < v)
                v = prev2[j - 2] + 1;
            cur[j] = v;
            best = v < best ? v : best;
        }
        if (best > max)
            return max + 1;
    }
    return row[na % 3][nb];
}

void cp_nearest_start(cp_nearest *nr, const char *given, size_t given_len)
{
    *nr = (cp_nearest){given, given_len, NULL, 0, 3, false};
}

void cp_nearest_offer(cp_nearest *nr, const char *name, size_t len)
{
    size_t d = edit_distance(nr->given, nr->given_len, name, len, 2);
    if (d == 0 || 2 * d >= (len > nr->given_len ? len : nr->given_len))
        return;
    if (d < nr->best_d) {
        nr->best = name;
        nr->best_len = len;
        nr->best_d = d;
        nr->tie = false;
    } else if (d == nr->best_d && nr->best &&
               (len != nr->best_len || strncmp(nr->best, name, len) != 0)) {
        nr->tie = true;
    }
}

void cp_nearest_offer_list(cp_nearest *nr, const char *words)
{
    for (const char *c = words; *c;) {
        size_t wl = strcspn(c, ",");
        cp_nearest_offer(nr, c, wl);
        c += wl + (c[wl] == ',');
    }
}

const char *cp_nearest_best(const cp_nearest *nr, size_t *len)
{
    *len = nr->best && !nr->tie ? nr->best_len : 0;
    return nr->best && !nr->tie ? nr->best : NULL;
}

void cp_nearest_hint(const cp_nearest *nr, const char *prefix, char *buf, size_t len)
{
    size_t n;
    const char *best = cp_nearest_best(nr, &n);
    if (len)
        buf[0] = '\0';
    if (best)
        snprintf(buf, len, " (did you mean '%s%.*s'?)", prefix, (int)n, best);
}
