#include "xover.h"

#include <math.h>

static int has(double t)
{
    return t >= 0.0 && isfinite(t);
}

size_t xover_find(const double *ta, const double *tb, const bool *noise, const long *x, size_t npts,
                  struct xover *out, size_t *n, int *first)
{
    *n = 0;
    *first = -1;
    size_t common = 0;
    int cur = -1;
    long prev_x = 0;
    for (size_t p = 0; p < npts; ++p) {
        if (!has(ta[p]) || !has(tb[p]))
            continue;
        common++;
        int f = noise && noise[p] ? cur : ta[p] < tb[p] ? 0 : tb[p] < ta[p] ? 1 : cur;
        if (f >= 0 && cur >= 0 && f != cur)
            out[(*n)++] = (struct xover){x[p], prev_x, f};
        if (cur < 0 && f >= 0)
            *first = f;
        if (f >= 0)
            cur = f;
        prev_x = x[p];
    }
    return common;
}
