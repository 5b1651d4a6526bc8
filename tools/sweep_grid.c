/* clparity sweep: the grid of one parameter, its points, and the series (device x engine). */
#include "cli.h"
#include "clparity/select.h"
#include "sweep.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- the grid ----------------------------------------------------------------------------- */

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return x < y ? -1 : x > y;
}

static int grid_values(struct sweep *s, long **vals, size_t *n)
{
    const struct sweep_opts *o = &s->o;
    *vals = NULL;
    *n = 0;
    static const long max_of[N_VARY] = {16777216, 65536, 16777216, 65536};
    if (o->grid) {
        size_t cap = 1;
        for (const char *p = o->grid; *p; ++p)
            cap += *p == ',';
        long *v = calloc(cap, sizeof *v);
        char *copy = strdup(o->grid);
        if (!v || !copy) {
            free(v);
            free(copy);
            return cli_fail("sweep", CP_FAIL_RUNTIME, "out of memory");
        }
        size_t k = 0;
        int st = CP_OK;
        char *p = copy;
        for (size_t i = 0; i < cap && st == CP_OK; ++i) {
            char *comma = strchr(p, ',');
            if (comma)
                *comma = '\0';
            if (!p[0])
                st = cli_fail("sweep", CP_FAIL_USAGE, "--grid: '%s' has an empty value", o->grid);
            else
                st = cli_parse_long("sweep", "--grid", p, 1, max_of[o->vary], &v[k++]);
            p = comma ? comma + 1 : p + strlen(p);
        }
        free(copy);
        if (st != CP_OK) {
            free(v);
            return st;
        }
        qsort(v, k, sizeof *v, cmp_long);
        size_t u = 0;
        for (size_t i = 0; i < k; ++i)
            if (u == 0 || v[u - 1] != v[i])
                v[u++] = v[i];
        *vals = v;
        *n = u;
        return CP_OK;
    }
    long *v = calloc(32, sizeof *v);
    if (!v)
        return cli_fail("sweep", CP_FAIL_RUNTIME, "out of memory");
    size_t k = 0;
    switch (o->vary) {
    case VARY_BATCH:
        for (long b = 1; b <= (o->quick ? 256 : 2048); b *= o->quick ? 4 : 2)
            v[k++] = b;
        break;
    case VARY_WIDTH:
        for (long d = o->quick ? 16 : 64; d <= (o->quick ? 256 : 4096); d *= 2)
            v[k++] = d;
        break;
    case VARY_DEPTH:
        if (o->quick)
            for (long l = 8; l <= 128; l *= 2)
                v[k++] = l;
        else
            for (long l = 128; l <= 3840; l += 128)
                v[k++] = l;
        break;
    case VARY_PARAMS:
        for (long d = o->quick ? 16 : 128; d <= (o->quick ? 256 : 4096); d *= 2)
            v[k++] = d;
        break;
    }
    *vals = v;
    *n = k;
    return CP_OK;
}

int sweep_make_points(struct sweep *s)
{
    long *vals;
    size_t n;
    int st = grid_values(s, &vals, &n);
    if (st != CP_OK)
        return st;
    s->pts = calloc(n ? n : 1, sizeof *s->pts);
    if (!s->pts) {
        free(vals);
        return cli_fail("sweep", CP_FAIL_RUNTIME, "out of memory");
    }
    const struct sweep_opts *o = &s->o;
    for (size_t i = 0; i < n && st == CP_OK; ++i) {
        struct point *p = &s->pts[i];
        p->d = o->d;
        p->layers = o->layers;
        p->batch = o->batch;
        p->x = vals[i];
        switch (o->vary) {
        case VARY_BATCH:
            p->batch = vals[i];
            break;
        case VARY_WIDTH:
            p->d = vals[i];
            break;
        case VARY_DEPTH:
            p->layers = vals[i];
            break;
        case VARY_PARAMS: {
            p->d = vals[i];
            double l = floor(o->params / ((double)p->d * (double)p->d));
            if (l < 1.0)
                st = cli_fail("sweep", CP_FAIL_USAGE,
                              "--grid: d = %ld leaves no whole layer of the %.0f-parameter "
                              "budget (d² = %.0f)",
                              p->d, o->params, (double)p->d * (double)p->d);
            else if (l > 16777216.0)
                st = cli_fail("sweep", CP_FAIL_USAGE,
                              "--grid: d = %ld needs %.0f layers of the %.0f-parameter budget, "
                              "over 16777216",
                              p->d, l, o->params);
            p->layers = (long)l;
            break;
        }
        }
    }
    free(vals);
    s->npts = n;
    return st;
}

/* The engines: --engines, or those in_sweep (cl:own, cl:cr, host:openblas) where they apply. */
int sweep_choose_engines(struct sweep *s)
{
    s->use = calloc(cp_engine_count(), sizeof *s->use);
    if (!s->use)
        return cli_fail("sweep", CP_FAIL_RUNTIME, "out of memory");
    if (s->o.engines)
        return cli_select_engines("sweep", s->o.engines, &s->devs, s->chosen, s->use);
    bool any = false;
    for (size_t e = 0; e < cp_engine_count(); ++e) {
        const cp_engine_info *info = cp_engine_at(e);
        if (!info->in_sweep)
            continue;
        for (size_t i = 0; i < s->devs.n; ++i)
            if (s->chosen[i] && s->devs.v[i].kind == info->kind)
                s->use[e] = any = true;
    }
    if (!any)
        return cli_fail("sweep", CP_FAIL_USAGE, "no engine applies to the selected devices");
    cp_select_warn(&s->devs); /* --engines warns through cp_select_engines */
    return CP_OK;
}

int sweep_make_series(struct sweep *s)
{
    s->ser = calloc(s->devs.n * cp_engine_count() + 1, sizeof *s->ser);
    if (!s->ser)
        return cli_fail("sweep", CP_FAIL_RUNTIME, "out of memory");
    for (size_t i = 0; i < s->devs.n; ++i) {
        if (!s->chosen[i])
            continue;
        for (size_t e = 0; e < cp_engine_count(); ++e) {
            const cp_engine_info *info = cp_engine_at(e);
            if (s->use[e] && info->kind == s->devs.v[i].kind)
                s->ser[s->nser++] = (struct series){&s->devs.v[i], i, info};
        }
    }
    s->rows = calloc(s->npts * s->nser + 1, sizeof *s->rows);
    if (!s->rows)
        return cli_fail("sweep", CP_FAIL_RUNTIME, "out of memory");
    return CP_OK;
}
