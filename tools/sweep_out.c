/* clparity sweep: the table, the crossovers, and the JSON and CSV files (the plot is in
 * sweep_plot.c). */
#include "cli.h"
#include "csv.h"
#include "perf.h"
#include "sweep.h"
#include "xover.h"

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

/* The names that the table, the crossovers and the files print (the command, cmd_sweep.c, uses
 * them too). */
const char *const vary_names[N_VARY] = {"batch", "width", "depth", "params"};
const char *const vary_symbol[N_VARY] = {"batch", "d", "L", "d"};
const char *const row_status_names[3] = {"ok", "refused", "error"};

/* ---- the table ---------------------------------------------------------------------------- */

static void ms_or_na(char *buf, size_t len, double s)
{
    if (s < 0.0 || !isfinite(s))
        snprintf(buf, len, "n/a");
    else
        cp_fmt_ms(s, buf, len);
}

void sweep_print_header(FILE *out)
{
    fprintf(out, "%5s %7s %5s  %-32s %-14s %10s %9s %4s %10s %10s %10s %10s %9s %7s\n", "d", "L",
            "B", "device", "engine", "median ms", "±", "runs", "min ms", "max ms", "kernel ms",
            "e2e ms", "GFLOP/s", "% peak");
}

void sweep_print_row(const struct sweep *s, const struct row *r)
{
    const struct point *p = &s->pts[r->point];
    const struct series *se = &s->ser[r->series];
    char label[300];
    cp_device_label(se->dev, label, sizeof label);
    fprintf(s->out, "%5ld %7ld %5ld  %-32.32s %-14s ", p->d, p->layers, p->batch, label,
            se->eng->name);
    if (r->status != ROW_OK) {
        fprintf(s->out, "%s: %s\n", row_status_names[r->status], r->reason);
        return;
    }
    char med[32], pm[32], mn[32], mx[32], k[32], e2e[32], pct[32];
    ms_or_na(med, sizeof med, r->wall.median);
    if (cp_stats_mark(&r->wall)[0])
        strncat(med, "~", sizeof med - strlen(med) - 1);
    ms_or_na(pm, sizeof pm, 0.5 * (r->wall.p90 - r->wall.p10));
    ms_or_na(mn, sizeof mn, r->wall.min);
    ms_or_na(mx, sizeof mx, r->wall.max);
    ms_or_na(k, sizeof k, r->kernel_median);
    ms_or_na(e2e, sizeof e2e, r->e2e.median);
    if (r->pct_peak >= 0.0) /* '!': above 100 %, explained by sweep_print_pct_note */
        snprintf(pct, sizeof pct, "%.1f%%%s", r->pct_peak, r->pct_peak_suspect ? "!" : "");
    else
        snprintf(pct, sizeof pct, "n/a");
    fprintf(s->out, "%10s %9s %4zu %10s %10s %10s %10s %9.4g %7s\n", med, pm, r->wall.n, mn, mx, k,
            e2e, r->gflops, pct);
}

void sweep_print_pct_note(const struct sweep *s)
{
    size_t n = 0;
    for (size_t i = 0; i < s->nrows; ++i)
        n += s->rows[i].status == ROW_OK && s->rows[i].pct_peak_suspect;
    if (n)
        fprintf(s->out,
                "! %zu result%s above 100 %% of peak: the device's peak (clparity peak, the\n"
                "  median of its repetitions) was measured under load or with too few\n"
                "  repetitions, so these percentages are not to be trusted. 'clparity peak\n"
                "  --remeasure' on an idle machine fixes it.\n",
                n, n > 1 ? "s" : "");
    /* A cached peak that a result exceeded is wrong: its entry goes, so that the next sweep
     * or peak measures it again instead of reusing it (docs/COMMANDS.md, peak). */
    for (size_t d = 0; d < s->devs.n; ++d) {
        bool over = false;
        for (size_t i = 0; i < s->nrows && !over; ++i)
            over = s->rows[i].status == ROW_OK && s->rows[i].pct_peak_suspect &&
                   s->ser[s->rows[i].series].dev_index == d;
        const cp_peak *pk = &s->peaks[d];
        if (!over || !pk->cached || !pk->cache_file[0])
            continue;
        char label[300];
        cp_device_label(&s->devs.v[d], label, sizeof label);
        if (unlink(pk->cache_file) == 0 || errno == ENOENT)
            fprintf(s->out,
                    "  The cached peak of %s is dropped: the next sweep or peak measures it\n"
                    "  again.\n",
                    label);
        else
            fprintf(s->out, "  The cached peak of %s could not be dropped (%s): %s\n", label,
                    pk->cache_file, strerror(errno));
    }
}

/* ---- crossovers --------------------------------------------------------------------------- */

/* The points where the faster of series a and b (median wall time) changes, in grid order
 * (xover_find); returns the number of common points. */
static size_t crossings_of(const struct sweep *s, size_t a, size_t b, struct xover *out, size_t *n,
                           int *first, bool *noise)
{
    double *t = malloc((2 * s->npts + 1) * sizeof *t);
    long *x = malloc((s->npts + 1) * sizeof *x);
    const struct row **st = calloc(2 * s->npts + 1, sizeof *st);
    if (!t || !x || !st) {
        free(t);
        free(x);
        free(st);
        *n = 0;
        *first = -1;
        return 0;
    }
    double *ta = t, *tb = t + s->npts;
    const struct row **sa = st, **sb = st + s->npts;
    for (size_t p = 0; p < s->npts; ++p) {
        ta[p] = tb[p] = -1.0;
        x[p] = s->pts[p].x;
    }
    for (size_t i = 0; i < s->nrows; ++i) {
        const struct row *r = &s->rows[i];
        if (r->status != ROW_OK)
            continue;
        if (r->series == a) {
            ta[r->point] = r->wall.median;
            sa[r->point] = r;
        } else if (r->series == b) {
            tb[r->point] = r->wall.median;
            sb[r->point] = r;
        }
    }
    /* Within noise: the pooled runs cannot tell the two apart, or their order changes from
     * one round to another (runs far apart in time disagree). */
    for (size_t p = 0; p < s->npts; ++p)
        noise[p] = sa[p] && sb[p] &&
                   (cp_speed_within_noise(&sa[p]->wall, &sb[p]->wall) ||
                    cp_rounds_overlap(sa[p]->round_median, sa[p]->nround, sb[p]->round_median,
                                      sb[p]->nround));
    size_t common = xover_find(ta, tb, noise, x, s->npts, out, n, first);
    free(t);
    free(x);
    free(st);
    return common;
}

/* "4, 16" : the grid values where the two are within noise; false when there is none. */
static bool noise_list(const struct sweep *s, const bool *noise, char *buf, size_t len)
{
    size_t k = 0;
    buf[0] = '\0';
    for (size_t p = 0; p < s->npts; ++p)
        if (noise[p]) {
            size_t used = strlen(buf);
            snprintf(buf + used, len - used, "%s%ld", k++ ? ", " : "", s->pts[p].x);
        }
    return k > 0;
}

void sweep_series_name(const struct sweep *s, size_t i, char *buf, size_t len)
{
    char label[300];
    cp_device_label(s->ser[i].dev, label, sizeof label);
    snprintf(buf, len, "%s on %s", s->ser[i].eng->name, label);
}

/* "on 0:0 NVIDIA H100, cl:own beats host:openblas on host from batch ≥ 64". */
static void crossing_text(const struct sweep *s, size_t a, size_t b, const struct xover *c,
                          char *buf, size_t len)
{
    size_t w = c->faster == 0 ? a : b, l = c->faster == 0 ? b : a;
    char wl[300], ll[300];
    cp_device_label(s->ser[w].dev, wl, sizeof wl);
    cp_device_label(s->ser[l].dev, ll, sizeof ll);
    snprintf(buf, len, "on %s, %s beats %s on %s from %s ≥ %ld", wl, s->ser[w].eng->name,
             s->ser[l].eng->name, ll, vary_symbol[s->o.vary], c->at);
}

/* Whether series i has a finished result at point p. */
static bool series_ran(const struct sweep *s, size_t i, size_t p)
{
    for (size_t r = 0; r < s->nrows; ++r)
        if (s->rows[r].series == i && s->rows[r].point == p && s->rows[r].status == ROW_OK)
            return true;
    return false;
}

/* The line of a pair without a crossing, which must read the right way round: the faster
 * series and the points where it was faster outside the noise, never the noise's count as if
 * it were a grid value. */
static void summary_text(const struct sweep *s, size_t a, size_t b, size_t common, int first,
                         size_t n, const bool *noise, char *buf, size_t len)
{
    size_t nn = 0; /* common points within noise (noise[p] is only set at common points) */
    for (size_t p = 0; p < s->npts; ++p)
        nn += noise[p];
    if (n > 0) {
        snprintf(buf, len, "%zu crossing%s", n, n == 1 ? "" : "s");
        return;
    }
    char name[400];
    if (common == 0) {
        snprintf(buf, len, "no verdict (no point where both ran)");
        return;
    }
    if (first < 0) {
        snprintf(buf, len,
                 "no verdict (equal or within noise at every one of the %zu common point%s)",
                 common, common == 1 ? "" : "s");
        return;
    }
    sweep_series_name(s, first == 0 ? a : b, name, sizeof name);
    if (!nn) {
        snprintf(buf, len, "never (%s is faster at every one of %zu common point%s)", name, common,
                 common == 1 ? "" : "s");
        return;
    }
    /* The common points outside the noise: where the faster one was seen to be faster. */
    char pts[512] = "";
    size_t k = 0;
    for (size_t p = 0; p < s->npts; ++p)
        if (series_ran(s, a, p) && series_ran(s, b, p) && !noise[p]) {
            size_t used = strlen(pts);
            snprintf(pts + used, sizeof pts - used, "%s%ld", k++ ? ", " : "", s->pts[p].x);
        }
    snprintf(buf, len,
             "no crossover outside the noise (%s is faster at the %zu of %zu common point%s "
             "outside it: %s = %s; within noise at the other %zu)",
             name, common - nn, common, common == 1 ? "" : "s", vary_symbol[s->o.vary], pts, nn);
}

/* The note on the rows marked '~': how many, and the cause to suspect for each. */
static void print_noise_note(const struct sweep *s)
{
    size_t by[CP_NOISE_LOAD + 1] = {0}, total = 0;
    for (size_t i = 0; i < s->nrows; ++i)
        if (s->rows[i].status == ROW_OK) {
            enum cp_noise c = cp_stats_noise(&s->rows[i].wall);
            by[c]++;
            total += c != CP_NOISE_NONE;
        }
    if (!total)
        return;
    fprintf(s->out,
            "~ %zu of %zu rows have a p10-p90 spread over %.0f %% of the median; suspect:", total,
            s->nrows, 100.0 * CP_NOISY_SPREAD);
    const char *sep = " ";
    for (int c = CP_NOISE_FEW_RUNS; c <= CP_NOISE_LOAD; ++c)
        if (by[c]) {
            fprintf(s->out, "%s%s (%zu)", sep, cp_noise_cause((enum cp_noise)c), by[c]);
            sep = "; ";
        }
    fprintf(s->out, "\n");
}

void sweep_print_crossovers(const struct sweep *s)
{
    print_noise_note(s);
    fprintf(s->out, "\ncrossovers (median wall time, %s; only changes outside the noise count):\n",
            vary_symbol[s->o.vary]);
    if (s->nser < 2) {
        fprintf(s->out, "  none to show: only one device x engine\n");
        return;
    }
    struct xover *cx = calloc(s->npts + 1, sizeof *cx);
    bool *noise = calloc(s->npts + 1, sizeof *noise);
    if (!cx || !noise) {
        free(cx);
        free(noise);
        return;
    }
    for (size_t a = 0; a < s->nser; ++a)
        for (size_t b = a + 1; b < s->nser; ++b) {
            size_t n;
            int first;
            size_t common = crossings_of(s, a, b, cx, &n, &first, noise);
            char na[400], nb[400], text[1024], nl[1024];
            sweep_series_name(s, a, na, sizeof na);
            sweep_series_name(s, b, nb, sizeof nb);
            bool any_noise = noise_list(s, noise, nl, sizeof nl);
            if (n == 0) {
                summary_text(s, a, b, common, first, n, noise, text, sizeof text);
                fprintf(s->out, "  %s vs %s: %s\n", na, nb, text);
            } else {
                fprintf(s->out, "  %s vs %s:\n", na, nb);
                for (size_t i = 0; i < n; ++i) {
                    crossing_text(s, a, b, &cx[i], text, sizeof text);
                    fprintf(s->out, "    %s (after %s = %ld)\n", text, vary_symbol[s->o.vary],
                            cx[i].after);
                }
            }
            if (any_noise)
                fprintf(s->out, "    within noise at %s = %s\n", vary_symbol[s->o.vary], nl);
        }
    free(cx);
    free(noise);
}

/* Test hook "sweep-times:FILE" (tests/cli/sweep_xover.py): the rows' wall statistics and round
 * medians replaced by those of FILE, a sweep --json of the same grid and series whose times a
 * test has made up, so that the crossover summary can be checked on chosen cases. A result of
 * FILE that names no row here is an error, so that a stale file cannot pass unseen. */
int sweep_test_times(struct sweep *s)
{
    const char *hook = getenv("CLPARITY_TEST_HOOK");
    if (!hook || strncmp(hook, "sweep-times:", 12) != 0)
        return CP_OK;
    char *text = NULL;
    int st = cli_read_text("sweep", hook + 12, &text);
    if (st != CP_OK)
        return st;
    cJSON *root = cJSON_Parse(text);
    free(text);
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(root, "results"), *it;
    if (!cJSON_IsArray(res)) {
        cJSON_Delete(root);
        return cli_fail("sweep", CP_FAIL_USAGE, "%s: no results array", hook + 12);
    }
    cJSON_ArrayForEach(it, res)
    {
        const cJSON *pt = cJSON_GetObjectItemCaseSensitive(it, "point");
        const cJSON *idx = cJSON_GetObjectItemCaseSensitive(pt, "index");
        const cJSON *eng = cJSON_GetObjectItemCaseSensitive(it, "engine");
        const cJSON *dev = cJSON_GetObjectItemCaseSensitive(it, "device");
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(it, "timing");
        if (!cJSON_IsObject(t))
            continue; /* refused or error: nothing to replace */
        struct row *r = NULL;
        for (size_t i = 0; i < s->nrows && !r && cJSON_IsNumber(idx) && cJSON_IsString(eng) &&
                           cJSON_IsString(dev);
             ++i) {
            char label[300];
            cp_device_label(s->ser[s->rows[i].series].dev, label, sizeof label);
            if (s->rows[i].point == (size_t)idx->valuedouble &&
                strcmp(s->ser[s->rows[i].series].eng->name, eng->valuestring) == 0 &&
                strcmp(label, dev->valuestring) == 0)
                r = &s->rows[i];
        }
        const cJSON *rm = cJSON_GetObjectItemCaseSensitive(t, "round_medians_s");
        if (!r || !cp_stats_from_json(t, "wall", &r->wall) || !cJSON_IsArray(rm) ||
            cJSON_GetArraySize(rm) > CP_ROUNDS_MAX) {
            cJSON_Delete(root);
            return cli_fail("sweep", CP_FAIL_USAGE, "%s: a result that matches no row", hook + 12);
        }
        r->nround = 0;
        const cJSON *m;
        cJSON_ArrayForEach(m, rm) r->round_median[r->nround++] = m->valuedouble;
    }
    cJSON_Delete(root);
    return CP_OK;
}

/* ---- files -------------------------------------------------------------------------------- */

/* As in run: the options of the last OpenCL program built (cl:own picks its kernel and -D
 * sizes per shape, so they can differ between points). */
static const char *build_options_of(const struct sweep *s)
{
    return s->build_options[0] ? s->build_options : "";
}

static cJSON *row_json(const struct sweep *s, const struct row *r)
{
    const struct point *p = &s->pts[r->point];
    const struct series *se = &s->ser[r->series];
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON *pt = cJSON_AddObjectToObject(o, "point");
    if (pt) {
        cJSON_AddNumberToObject(pt, "index", (double)r->point);
        cJSON_AddNumberToObject(pt, "d", (double)p->d);
        cJSON_AddNumberToObject(pt, "layers", (double)p->layers);
        cJSON_AddNumberToObject(pt, "batch", (double)p->batch);
        cJSON_AddNumberToObject(pt, "params", (double)p->d * (double)p->d * (double)p->layers);
        cJSON_AddNumberToObject(pt, "macs", r->macs);
    }
    char buf[300];
    cp_device_label(se->dev, buf, sizeof buf);
    cJSON_AddStringToObject(o, "device", buf);
    cp_device_tag(se->dev, buf, sizeof buf);
    cJSON_AddStringToObject(o, "device_id", buf);
    cJSON_AddStringToObject(o, "engine", se->eng->name);
    cJSON_AddStringToObject(o, "status", row_status_names[r->status]);
    if (r->status == ROW_OK) {
        cJSON_AddNullToObject(o, "reason");
        cJSON_AddNullToObject(o, "detail");
    } else {
        cJSON_AddStringToObject(o, "reason", r->reason);
        if (r->detail[0])
            cJSON_AddStringToObject(o, "detail", r->detail);
        else
            cJSON_AddNullToObject(o, "detail");
    }
    if (r->status != ROW_OK) {
        cJSON_AddNullToObject(o, "timing");
        cJSON_AddNullToObject(o, "pct_peak");
        cJSON_AddFalseToObject(o, "pct_peak_suspect");
        return o;
    }
    cJSON *t = cJSON_AddObjectToObject(o, "timing");
    if (t) {
        cp_stats_json_add(t, "wall", &r->wall, true);
        cp_json_add_num_or_null(t, "kernel_median_s", r->kernel_median);
        cp_stats_json_add(t, "e2e", &r->e2e, false);
        cp_json_add_num_or_null(t, "gflops", r->gflops);
        cJSON_AddNumberToObject(t, "warmup", (double)s->o.warmup);
        cJSON *rm = cJSON_AddArrayToObject(t, "round_medians_s");
        for (size_t i = 0; rm && i < r->nround; ++i)
            cp_json_push(rm, cJSON_CreateNumber(r->round_median[i]));
        cJSON_AddBoolToObject(t, "rounds_consecutive", s->kept[r->point].consecutive);
        cJSON *rr = cJSON_AddArrayToObject(t, "round_runs");
        for (size_t i = 0; rr && i < r->nround; ++i)
            cp_json_push(rr, cJSON_CreateNumber((double)r->round_runs[i]));
    }
    cp_json_add_num_or_null(o, "pct_peak", r->pct_peak);
    cJSON_AddBoolToObject(o, "pct_peak_suspect", r->pct_peak_suspect);
    return o;
}

static cJSON *series_ref(const struct sweep *s, size_t i)
{
    cJSON *o = cJSON_CreateObject();
    char buf[300];
    if (!o)
        return NULL;
    cp_device_label(s->ser[i].dev, buf, sizeof buf);
    cJSON_AddStringToObject(o, "device", buf);
    cJSON_AddStringToObject(o, "engine", s->ser[i].eng->name);
    return o;
}

static cJSON *crossovers_json(const struct sweep *s)
{
    cJSON *arr = cJSON_CreateArray();
    struct xover *cx = calloc(s->npts + 1, sizeof *cx);
    bool *noise = calloc(s->npts + 1, sizeof *noise);
    if (!arr || !cx || !noise) {
        free(cx);
        free(noise);
        return arr;
    }
    for (size_t a = 0; a < s->nser; ++a)
        for (size_t b = a + 1; b < s->nser; ++b) {
            size_t n;
            int first;
            size_t common = crossings_of(s, a, b, cx, &n, &first, noise);
            cJSON *o = cJSON_CreateObject();
            if (!o)
                break;
            cp_json_add(o, "a", series_ref(s, a));
            cp_json_add(o, "b", series_ref(s, b));
            cJSON_AddNumberToObject(o, "common_points", (double)common);
            if (first < 0)
                cJSON_AddNullToObject(o, "faster_first");
            else
                cJSON_AddStringToObject(o, "faster_first", first == 0 ? "a" : "b");
            cJSON *list = cJSON_AddArrayToObject(o, "crossings");
            for (size_t i = 0; list && i < n; ++i) {
                cJSON *c = cJSON_CreateObject();
                if (!c)
                    break;
                char text[1024];
                crossing_text(s, a, b, &cx[i], text, sizeof text);
                cJSON_AddNumberToObject(c, "at", (double)cx[i].at);
                cJSON_AddNumberToObject(c, "after", (double)cx[i].after);
                cJSON_AddStringToObject(c, "faster", cx[i].faster == 0 ? "a" : "b");
                cJSON_AddStringToObject(c, "text", text);
                cp_json_push(list, c);
            }
            cJSON *wn = cJSON_AddArrayToObject(o, "within_noise"); /* grid values */
            for (size_t p = 0; wn && p < s->npts; ++p)
                if (noise[p])
                    cp_json_push(wn, cJSON_CreateNumber((double)s->pts[p].x));
            char text[1024];
            summary_text(s, a, b, common, first, n, noise, text, sizeof text);
            cJSON_AddStringToObject(o, "summary", text);
            cp_json_push(arr, o);
        }
    free(cx);
    free(noise);
    return arr;
}

int sweep_write_json(const struct sweep *s)
{
    const struct sweep_opts *o = &s->o;
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return cli_fail("sweep", CP_FAIL_RUNTIME, "out of memory building JSON");
    cJSON_AddNumberToObject(root, "schema", 1);
    cJSON_AddStringToObject(root, "command", "sweep");
    cp_json_add(root, "provenance", cp_provenance_json(build_options_of(s)));
    cJSON *sw = cJSON_AddObjectToObject(root, "sweep");
    if (sw) {
        cJSON_AddStringToObject(sw, "vary", vary_names[o->vary]);
        cJSON *grid = cJSON_AddArrayToObject(sw, "grid");
        for (size_t i = 0; grid && i < s->npts; ++i)
            cp_json_push(grid, cJSON_CreateNumber((double)s->pts[i].x));
        cJSON *fx = cJSON_AddObjectToObject(sw, "fixed");
        if (fx) {
            bool vd = o->vary == VARY_WIDTH || o->vary == VARY_PARAMS;
            bool vl = o->vary == VARY_DEPTH || o->vary == VARY_PARAMS;
            cp_json_add_num_or_null(fx, "d", vd ? -1.0 : (double)o->d);
            cp_json_add_num_or_null(fx, "layers", vl ? -1.0 : (double)o->layers);
            cp_json_add_num_or_null(fx, "batch", o->vary == VARY_BATCH ? -1.0 : (double)o->batch);
            cp_json_add_num_or_null(fx, "params", o->vary == VARY_PARAMS ? o->params : -1.0);
        }
        char seed[32];
        snprintf(seed, sizeof seed, "%llu", (unsigned long long)o->seed);
        cJSON_AddStringToObject(sw, "seed", seed);
        cJSON_AddNumberToObject(sw, "init_scale", o->init_scale);
        if (o->runs > 0)
            cJSON_AddNumberToObject(sw, "runs", (double)o->runs);
        else
            cJSON_AddNullToObject(sw, "runs"); /* adaptive: each row's timing.runs */
        cJSON_AddNumberToObject(sw, "min_time_s", o->runs > 0 ? 0.0 : o->min_time);
        cJSON_AddNumberToObject(sw, "warmup", (double)o->warmup);
        cJSON_AddNumberToObject(sw, "rounds", (double)s->rounds);
        cJSON_AddBoolToObject(sw, "quick", o->quick);
        cJSON_AddNullToObject(sw, "reference"); /* a speed run: no host:f64 */
    }
    cJSON_AddBoolToObject(root, "interrupted", s->interrupted);
    cJSON *devs = cJSON_AddArrayToObject(root, "devices");
    for (size_t i = 0; devs && i < s->devs.n; ++i) {
        bool used = false;
        for (size_t k = 0; k < s->nser; ++k)
            used = used || s->ser[k].dev_index == i;
        if (!used)
            continue;
        cJSON *d = cJSON_CreateObject();
        if (!d)
            break;
        cp_json_add(d, "device", perf_device_json(&s->devs.v[i]));
        cp_json_add(d, "peak", perf_peak_json(&s->peaks[i]));
        cp_json_push(devs, d);
    }
    cJSON *res = cJSON_AddArrayToObject(root, "results");
    for (size_t i = 0; res && i < s->nrows; ++i)
        cp_json_push(res, row_json(s, &s->rows[i]));
    cp_json_add(root, "crossovers", crossovers_json(s));
    return cli_write_json("sweep", "--json", o->json, root);
}

/* A growing string for the CSV. */
static const char csv_header[] =
    "vary,d,layers,batch,params,macs,device,device_id,engine,status,reason,runs,warmup,"
    "wall_median_s,wall_min_s,wall_max_s,wall_mean_s,wall_sd_s,wall_p10_s,wall_p90_s,"
    "wall_ci_low_s,wall_ci_high_s,measured_s,noisy,kernel_median_s,e2e_median_s,e2e_min_s,"
    "e2e_max_s,gflops,peak_gflops,pct_peak,pct_peak_suspect\n";

int sweep_write_csv(const struct sweep *s)
{
    struct text t = {0};
    cJSON *prov = cp_provenance_json(build_options_of(s));
    cJSON_AddBoolToObject(prov, "interrupted", s->interrupted);
    csv_begin(&t, prov, csv_header);
    for (size_t i = 0; i < s->nrows; ++i) {
        const struct row *r = &s->rows[i];
        const struct point *p = &s->pts[r->point];
        const struct series *se = &s->ser[r->series];
        const cp_peak *pk = &s->peaks[se->dev_index];
        bool ok = r->status == ROW_OK;
        char label[300], tag[32];
        cp_device_label(se->dev, label, sizeof label);
        cp_device_tag(se->dev, tag, sizeof tag);
        csv_field(&t, vary_names[s->o.vary], false);
        csv_num(&t, (double)p->d, false);
        csv_num(&t, (double)p->layers, false);
        csv_num(&t, (double)p->batch, false);
        csv_num(&t, (double)p->d * (double)p->d * (double)p->layers, false);
        csv_num(&t, r->macs, false);
        csv_field(&t, label, false);
        csv_field(&t, tag, false);
        csv_field(&t, se->eng->name, false);
        csv_field(&t, row_status_names[r->status], false);
        csv_field(&t, ok ? "" : r->reason, false);
        csv_num(&t, ok ? (double)r->wall.n : -1.0, false);
        csv_num(&t, (double)s->o.warmup, false);
        csv_num(&t, ok ? r->wall.median : -1.0, false);
        csv_num(&t, ok ? r->wall.min : -1.0, false);
        csv_num(&t, ok ? r->wall.max : -1.0, false);
        csv_num(&t, ok ? r->wall.mean : -1.0, false);
        csv_num(&t, ok ? r->wall.sd : -1.0, false);
        csv_num(&t, ok ? r->wall.p10 : -1.0, false);
        csv_num(&t, ok ? r->wall.p90 : -1.0, false);
        csv_num(&t, ok ? r->wall.ci_lo : -1.0, false);
        csv_num(&t, ok ? r->wall.ci_hi : -1.0, false);
        csv_num(&t, ok ? r->wall.total : -1.0, false);
        csv_field(&t, !ok ? "" : cp_stats_mark(&r->wall)[0] ? "1" : "0", false);
        csv_num(&t, ok ? r->kernel_median : -1.0, false);
        csv_num(&t, ok ? r->e2e.median : -1.0, false);
        csv_num(&t, ok ? r->e2e.min : -1.0, false);
        csv_num(&t, ok ? r->e2e.max : -1.0, false);
        csv_num(&t, ok ? r->gflops : -1.0, false);
        csv_num(&t, pk->available ? pk->fma_gflops : -1.0, false);
        csv_num(&t, ok ? r->pct_peak : -1.0, false);
        csv_field(&t, ok && r->pct_peak >= 0.0 ? (r->pct_peak_suspect ? "1" : "0") : "", true);
    }
    return csv_write("sweep", s->o.csv, &t);
}

void sweep_print_intro(const struct sweep *s)
{
    const struct sweep_opts *o = &s->o;
    fprintf(s->out, "sweep: --vary %s over %zu point%s", vary_names[o->vary], s->npts,
            s->npts == 1 ? "" : "s");
    if (o->vary != VARY_WIDTH && o->vary != VARY_PARAMS)
        fprintf(s->out, ", d = %ld", o->d);
    if (o->vary != VARY_DEPTH && o->vary != VARY_PARAMS)
        fprintf(s->out, ", L = %ld", o->layers);
    if (o->vary != VARY_BATCH)
        fprintf(s->out, ", B = %ld", o->batch);
    if (o->vary == VARY_PARAMS)
        fprintf(s->out, ", %.0f parameters (L = params/d²)", o->params);
    fprintf(s->out, "; seed %llu, init-scale %g\n", (unsigned long long)o->seed, o->init_scale);
    char runs[160];
    if (o->runs > 0)
        snprintf(runs, sizeof runs, "%ld run%s", o->runs, o->runs == 1 ? "" : "s");
    else
        snprintf(runs, sizeof runs, "adaptive runs (at least %d and %g s timed, at most %d)",
                 CP_RUNS_MIN, o->min_time, CP_RUNS_MAX);
    char rounds[96] = "";
    if (s->rounds > 1)
        snprintf(rounds, sizeof rounds, " in %zu rounds (the grid run %zu times over, runs pooled)",
                 s->rounds, s->rounds);
    fprintf(s->out,
            "timing: %s%s after %ld warm-up%s; wall = first enqueue to clFinish, e2e = from "
            "the input's upload to the output's read; ± = half the p10-p90 spread; no reference "
            "(a speed run)\n",
            runs, rounds, o->warmup, s->rounds > 1 ? " each" : "");
}
