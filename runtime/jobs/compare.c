/* The comparison report shared by `compare` (results computed now) and `diff` (results read
 * from --save folders): rows, the pairwise matrix, the worst elements, the verdicts (its JSON:
 * compare_json.c). */
#include "clparity/compare.h"
#include "clparity/engine.h"

#include "clparity/error.h"
#include "clparity/report.h"
#include "compare-impl.h"
#include "metrics-impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int cp_expect_parse(const char *s, int *out)
{
    if (strcmp(s, "none") == 0) {
        *out = CP_EXPECT_NONE;
        return CP_OK;
    }
    for (int p = 0; p < CP_PRESET_COUNT; ++p)
        if (strcmp(s, cp_preset_name((enum cp_preset)p)) == 0) {
            *out = p;
            return CP_OK;
        }
    return CP_FAIL_USAGE;
}

bool cp_engine_correctly_rounded(const char *engine)
{
    const cp_engine_info *info = cp_engine_find(engine);
    return info && info->correctly_rounded;
}

/* A result that --expect cr judges: a correctly rounded engine's (cl:cr, host:cr). */
static bool cr_judged(const cp_compare_item *it)
{
    return cp_engine_correctly_rounded(it->engine);
}

static int compute(cp_comparison *s)
{
    size_t n = s->rows * s->cols;
    s->pair_bitwise = calloc(s->n * s->n + 1, sizeof *s->pair_bitwise);
    s->pair_ulp = calloc(s->n * s->n + 1, sizeof *s->pair_ulp);
    s->cr_bitwise = calloc(s->n + 1, sizeof *s->cr_bitwise);
    s->cr_ulp = calloc(s->n + 1, sizeof *s->cr_ulp);
    if (!s->pair_bitwise || !s->pair_ulp || !s->cr_bitwise || !s->cr_ulp)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory for the pairwise matrix");
    for (size_t i = 0; i < s->n; ++i)
        s->cr_bitwise[i] = NAN; /* until cp_comparison_set_cr */
    for (size_t i = 0; i < s->n; ++i) {
        cp_compare_item *it = &s->v[i];
        if (!is_f32(it))
            continue;
        int st = cp_metrics_compute(it->y, s->ref, s->rows, s->cols, s->equal_nan, &it->m);
        if (st != CP_OK)
            return st;
        size_t bad = cp_preset_mismatches(CP_PRESET_BITWISE, it->y, NULL, s->base, n, s->equal_nan);
        it->base_bitwise = n ? (double)(n - bad) / (double)n : 1.0;
        it->mismatches[CP_PRESET_BITWISE] = bad;
        it->mismatches[CP_PRESET_TORCH] =
            cp_preset_mismatches(CP_PRESET_TORCH, it->y, s->ref, NULL, n, s->equal_nan);
        it->mismatches[CP_PRESET_CLBLAST] =
            cp_preset_mismatches(CP_PRESET_CLBLAST, it->y, s->ref, NULL, n, s->equal_nan);
    }
    for (size_t i = 0; i < s->n; ++i)
        for (size_t k = 0; k < s->n; ++k) {
            if (!is_f32(&s->v[i]) || !is_f32(&s->v[k])) {
                s->pair_bitwise[i * s->n + k] = NAN;
                continue;
            }
            cp_metrics_pair(s->v[i].y, s->v[k].y, n, &s->pair_bitwise[i * s->n + k],
                            &s->pair_ulp[i * s->n + k]);
        }
    return CP_OK;
}

void cp_comparison_destroy(cp_comparison *c)
{
    if (!c)
        return;
    free(c->v);
    free(c->pair_bitwise);
    free(c->pair_ulp);
    free(c->cr_bitwise);
    free(c->cr_ulp);
    free(c);
}

int cp_comparison_create(const cp_compare_item *items, size_t n, size_t rows, size_t cols,
                         const double *ref, const float *base, bool equal_nan, cp_comparison **out)
{
    *out = NULL;
    if (!ref || !base)
        return cp_err_set(CP_FAIL_USAGE, "a comparison needs the host:f64 reference and the "
                                         "host:exact baseline");
    cp_comparison *c = calloc(1, sizeof *c);
    if (!c || !(c->v = calloc(n + 1, sizeof *c->v))) {
        free(c);
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory for the comparison");
    }
    memcpy(c->v, items, n * sizeof *items);
    c->n = n;
    c->rows = rows;
    c->cols = cols;
    c->ref = ref;
    c->base = base;
    c->equal_nan = equal_nan;
    int st = compute(c);
    if (st != CP_OK) {
        cp_comparison_destroy(c);
        return st;
    }
    *out = c;
    return CP_OK;
}

int cp_comparison_from_job(const cp_job *j, cp_comparison **out)
{
    size_t n = cp_job_result_count(j);
    cp_compare_item *v = calloc(n + 1, sizeof *v);
    if (!v)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory for the comparison");
    for (size_t i = 0; i < n; ++i) {
        const cp_job_result *r = cp_job_result_at(j, i);
        cp_compare_item *it = &v[i];
        cp_device_label(r->dev, it->label, sizeof it->label);
        snprintf(it->engine, sizeof it->engine, "%s", r->eng->name);
        it->dtype = r->eng->dtype;
        it->y = r->y;
        it->hash = r->hash;
        it->deterministic = r->deterministic;
        it->roundtrip = r->roundtrip;
        it->inexact_device = !cp_device_exact_capable(r->dev);
        it->path_inexact = r->paths.exact == 0;
        it->wall = r->wall;
        it->batch_inv_equal = r->batch_inv_equal;
        it->batch_inv_checked = r->batch_inv_checked;
        it->thread_inv = r->thread_inv;
        if (r->error[0]) { /* it failed: nothing of it was measured */
            it->error = r->error;
            it->y = NULL;
            it->deterministic = it->roundtrip = it->thread_inv = -1;
            it->batch_inv_equal = it->batch_inv_checked = -1;
            memset(&it->wall, 0, sizeof it->wall);
        }
    }
    const cp_job_opts *o = cp_job_get_opts(j);
    int st = cp_comparison_create(v, n, (size_t)o->batch, (size_t)cp_job_model(j)->out_width,
                                  cp_job_reference(j), cp_job_baseline(j), o->equal_nan, out);
    if (st == CP_OK)
        cp_comparison_set_cr(*out, cp_job_cr(j));
    free(v);
    return st;
}

size_t cp_comparison_count(const cp_comparison *c)
{
    return c->n;
}

const cp_compare_item *cp_comparison_item(const cp_comparison *c, size_t i)
{
    return i < c->n ? &c->v[i] : NULL;
}

const cp_metrics *cp_comparison_metrics(const cp_comparison *c, size_t i)
{
    return i < c->n && is_f32(&c->v[i]) ? &c->v[i].m : NULL;
}

double cp_comparison_baseline_bitwise(const cp_comparison *c, size_t i)
{
    return i < c->n && is_f32(&c->v[i]) ? c->v[i].base_bitwise : NAN;
}

void cp_comparison_set_cr(cp_comparison *c, const float *cr)
{
    c->cr_answer = cr;
    for (size_t i = 0; i < c->n; ++i) {
        c->cr_bitwise[i] = NAN;
        c->cr_ulp[i] = 0;
        c->v[i].mismatches[CP_PRESET_CR] = 0;
        if (!cr || !is_f32(&c->v[i]))
            continue;
        /* the pairwise matrix's measure, against one more result */
        cp_metrics_pair(c->v[i].y, cr, c->rows * c->cols, &c->cr_bitwise[i], &c->cr_ulp[i]);
        c->v[i].mismatches[CP_PRESET_CR] = cp_preset_mismatches(CP_PRESET_CR, c->v[i].y, NULL, cr,
                                                                c->rows * c->cols, c->equal_nan);
    }
}

double cp_comparison_cr_bitwise(const cp_comparison *c, size_t i)
{
    return i < c->n ? c->cr_bitwise[i] : NAN;
}

uint64_t cp_comparison_cr_ulp(const cp_comparison *c, size_t i)
{
    return i < c->n ? c->cr_ulp[i] : 0;
}

size_t cp_comparison_mismatches(const cp_comparison *c, size_t i, enum cp_preset p)
{
    return i < c->n && is_f32(&c->v[i]) && (int)p >= 0 && p < CP_PRESET_COUNT
               ? c->v[i].mismatches[p]
               : 0;
}

int cp_comparison_pair(const cp_comparison *c, size_t i, size_t k, double *bitwise,
                       uint64_t *max_ulp)
{
    if (i >= c->n || k >= c->n || !is_f32(&c->v[i]) || !is_f32(&c->v[k]))
        return cp_err_set(CP_FAIL_USAGE, "pair (%zu, %zu): not two float32 results", i, k);
    *bitwise = c->pair_bitwise[i * c->n + k];
    *max_ulp = c->pair_ulp[i * c->n + k];
    return CP_OK;
}

bool cp_engine_promises_exact(const char *engine)
{
    const cp_engine_info *info = cp_engine_find(engine);
    const cp_engine_info *twin = info && info->twin ? cp_engine_find(info->twin) : NULL;
    return (info && info->role == CP_ROLE_BASELINE) || (twin && twin->role == CP_ROLE_BASELINE);
}

/* A fraction as a percentage that never rounds up to a false 100%. */
static void fmt_frac(double f, char *buf, size_t len)
{
    if (f >= 1.0)
        snprintf(buf, len, "100%%");
    else
        snprintf(buf, len, "%.1f%%", fmin(100.0 * f, 99.9));
}

static const char *yes_no(int v)
{
    return v > 0 ? "yes" : v == 0 ? "NO" : "n/a";
}

/* A result that failed fails every check and preset: no verdict passes over a missing one. */
static bool checks_fail(const cp_compare_item *it)
{
    return failed(it) || it->deterministic == 0 || it->roundtrip == 0;
}

/* Whether preset p judges item it: cr judges only the correctly rounded results, the others
 * every result. */
static bool judged(const cp_compare_item *it, enum cp_preset p)
{
    return p != CP_PRESET_CR || cr_judged(it);
}

/* Whether item it fails preset p: a mismatch, or for bitwise (cl:own) and cr (cl:cr) a result on
 * a device where no kernel path passed its probe, or for cr no host:cr output to judge it by, or it
 * did not run. A result that p does not judge never fails it. */
static bool preset_fails(const cp_comparison *s, const cp_compare_item *it, enum cp_preset p)
{
    if (!judged(it, p))
        return false;
    return failed(it) ||
           (is_f32(it) && (it->mismatches[p] ||
                           ((p == CP_PRESET_BITWISE || p == CP_PRESET_CR) && it->path_inexact) ||
                           (p == CP_PRESET_CR && !s->cr_answer)));
}

bool cp_comparison_preset_applies(const cp_comparison *s, int p)
{
    if (p != CP_PRESET_CR)
        return true;
    for (size_t i = 0; s->cr_answer && i < s->n; ++i)
        if (cr_judged(&s->v[i]))
            return true;
    return false;
}

size_t cp_comparison_failures(const cp_comparison *s, enum cp_preset p, char *buf, size_t len)
{
    size_t fails = 0;
    if (len)
        buf[0] = '\0';
    for (size_t i = 0; i < s->n; ++i) {
        const cp_compare_item *it = &s->v[i];
        if (!judged(it, p) || (!checks_fail(it) && !preset_fails(s, it, p)))
            continue;
        fails++;
        size_t used = strlen(buf);
        if (used < len)
            snprintf(buf + used, len - used, "%s%s %s", fails > 1 ? ", " : "", it->label,
                     it->engine);
    }
    return fails;
}

bool cp_comparison_verdict(const cp_comparison *s, int p)
{
    for (size_t i = 0; i < s->n; ++i)
        if (p >= 0 && p < CP_PRESET_COUNT ? preset_fails(s, &s->v[i], (enum cp_preset)p)
                                          : checks_fail(&s->v[i]))
            return false;
    return true;
}

static void print_rows(FILE *f, const cp_comparison *s, bool show_time)
{
    fprintf(f,
            "\nresults: errors against host:f64 (ULP against its float32 rounding); =ref32, "
            "=base and =cr are the fractions of outputs bit-equal to ref32, to host:exact and to "
            "host:cr (correctly rounded), crULP the max ULP against host:cr\n");
    fprintf(f,
            "%-3s %-32s %-13s %9s %8s %7s %9s %9s %10s %9s %6s %6s %6s %6s %6s %5s %5s %4s %5s\n",
            "id", "device", "engine", show_time ? "median ms" : "", "max ULP", "med ULP", "max_abs",
            "max_rel", "rel_to_max", "norm_rel", "=ref32", "=base", "=cr", "crULP", "argmax", "NaN",
            "Inf", "det", "rtrip");
    bool any_flag = false;
    for (size_t i = 0; i < s->n; ++i) {
        const cp_compare_item *it = &s->v[i];
        char eng[40], tm[32] = "";
        snprintf(eng, sizeof eng, "%s%s", it->engine, it->inexact_device ? " !" : "");
        any_flag |= it->inexact_device;
        if (show_time && it->wall.n) {
            char ms[24];
            cp_fmt_ms(it->wall.median, ms, sizeof ms);
            snprintf(tm, sizeof tm, "%s%s", ms, cp_stats_mark(&it->wall));
        }
        if (failed(it)) {
            fprintf(f, "R%-2zu %-32.32s %-13s error: %s\n", i + 1, it->label, eng, it->error);
            continue;
        }
        fprintf(f, "R%-2zu %-32.32s %-13s %9s", i + 1, it->label, eng, tm);
        if (!is_f32(it)) {
            fprintf(f, " %8s   (the reference)%*s %4s %5s\n", "ref", 78, "",
                    yes_no(it->deterministic), yes_no(it->roundtrip));
            continue;
        }
        const cp_metrics *m = &it->m;
        char ulp[32], med[32], r32[16], base[16], cr[16], crulp[24], am[16];
        if (m->compared) {
            snprintf(ulp, sizeof ulp, "%llu%s", (unsigned long long)m->max_ulp,
                     m->nan_mismatch ? "*" : "");
            snprintf(med, sizeof med, "%.1f", m->median_ulp);
        } else {
            snprintf(ulp, sizeof ulp, "n/a");
            snprintf(med, sizeof med, "n/a");
        }
        fmt_frac(m->bitwise, r32, sizeof r32);
        fmt_frac(it->base_bitwise, base, sizeof base);
        if (isnan(s->cr_bitwise[i])) {
            snprintf(cr, sizeof cr, "n/a");
            snprintf(crulp, sizeof crulp, "n/a");
        } else {
            fmt_frac(s->cr_bitwise[i], cr, sizeof cr);
            snprintf(crulp, sizeof crulp, "%llu", (unsigned long long)s->cr_ulp[i]);
        }
        fmt_frac(m->argmax, am, sizeof am);
        fprintf(f, " %8s %7s %9.3g %9.3g %10.3g %9.3g %6s %6s %6s %6s %6s %5zu %5zu %4s %5s\n", ulp,
                med, m->max_abs, m->max_rel, m->rel_to_max, m->norm_rel, r32, base, cr, crulp, am,
                m->nan, m->inf, yes_no(it->deterministic), yes_no(it->roundtrip));
    }
    if (any_flag)
        fprintf(f, "! exactness not guaranteed: the device lacks CL_FP_DENORM or has the "
                   "EMBEDDED profile\n");
    bool any_nan = false;
    for (size_t i = 0; i < s->n; ++i)
        any_nan |= is_f32(&s->v[i]) && s->v[i].m.nan_mismatch;
    if (any_nan)
        fprintf(f, "* NaN against a number counts as a mismatch and is left out of max ULP%s\n",
                s->equal_nan ? "" : " (NaN against NaN too, without --equal-nan)");
}

static void print_invariance(FILE *f, const cp_comparison *s)
{
    bool any = false;
    for (size_t i = 0; i < s->n; ++i)
        any |= s->v[i].batch_inv_checked > 0 || s->v[i].thread_inv >= 0;
    if (!any)
        return;
    fprintf(f, "\ninvariance:\n");
    for (size_t i = 0; i < s->n; ++i) {
        const cp_compare_item *it = &s->v[i];
        if (it->batch_inv_checked <= 0 && it->thread_inv < 0)
            continue;
        fprintf(f, "  R%-2zu %-32.32s %-13s", i + 1, it->label, it->engine);
        if (it->batch_inv_checked > 0)
            fprintf(f, " batch: %ld/%ld rows bit-identical alone and in the batch (%s)",
                    it->batch_inv_equal, it->batch_inv_checked,
                    it->batch_inv_equal == it->batch_inv_checked ? "invariant" : "VARIES");
        if (it->thread_inv >= 0)
            fprintf(f, "; threads: 1 thread vs all %s",
                    it->thread_inv ? "bit-identical (invariant)" : "DIFFER");
        fputc('\n', f);
    }
}

static void print_matrix(FILE *f, const cp_comparison *s)
{
    fprintf(f, "\npairwise: bit-equal fraction / max ULP between float32 results\n%-5s", "");
    for (size_t k = 0; k < s->n; ++k)
        if (is_f32(&s->v[k])) {
            char id[32];
            snprintf(id, sizeof id, "R%zu", k + 1);
            fprintf(f, " %14s", id);
        }
    fputc('\n', f);
    for (size_t i = 0; i < s->n; ++i) {
        if (!is_f32(&s->v[i]))
            continue;
        fprintf(f, "R%-4zu", i + 1);
        for (size_t k = 0; k < s->n; ++k) {
            if (!is_f32(&s->v[k]))
                continue;
            char frac[16], cell[40];
            fmt_frac(s->pair_bitwise[i * s->n + k], frac, sizeof frac);
            snprintf(cell, sizeof cell, "%s/%llu", frac,
                     (unsigned long long)s->pair_ulp[i * s->n + k]);
            fprintf(f, " %14s", cell);
        }
        fputc('\n', f);
    }
}

static void print_worst(FILE *f, const cp_comparison *s)
{
    fprintf(f, "\nworst element of each result, against host:f64:\n");
    for (size_t i = 0; i < s->n; ++i) {
        const cp_compare_item *it = &s->v[i];
        if (!is_f32(it))
            continue;
        const cp_metrics *m = &it->m;
        fprintf(f, "  R%-2zu %-32.32s %-13s ", i + 1, it->label, it->engine);
        if (!m->compared) {
            fprintf(f, "no comparable element (every pair holds a NaN)\n");
            continue;
        }
        fprintf(f, "[row %zu, col %zu] %a (%.9g) vs %a (%.17g): %llu ULP\n", m->worst / s->cols,
                m->worst % s->cols, (double)m->worst_a, (double)m->worst_a, m->worst_r, m->worst_r,
                (unsigned long long)m->max_ulp);
    }
}

/* Without --expect, the bitwise line says what holds instead of FAIL when only engines that
 * never promise host:exact's bits differ from the baseline: they reorder sums by design, or
 * (host:cr) round each sum once. */
static bool bitwise_reported(const cp_comparison *s, int expect, size_t *same, size_t *f32)
{
    bool exact_missed = false;
    *same = *f32 = 0;
    for (size_t i = 0; i < s->n; ++i) {
        const cp_compare_item *it = &s->v[i];
        exact_missed |= failed(it); /* a missing result is a failure, not a report */
        if (!is_f32(it))
            continue;
        ++*f32;
        if (!it->mismatches[CP_PRESET_BITWISE])
            ++*same;
        else if (cp_engine_promises_exact(it->engine))
            exact_missed = true;
    }
    return expect == CP_EXPECT_NONE && !exact_missed && *same < *f32;
}

static void print_bitwise_report(FILE *f, const cp_comparison *s, size_t same, size_t f32)
{
    fprintf(f, "  %-8s %zu of %zu results identical to host:exact; not expected of ", "bitwise",
            same, f32);
    const char *names[16];
    size_t nn = 0;
    for (size_t i = 0; i < s->n; ++i) {
        const cp_compare_item *it = &s->v[i];
        if (!is_f32(it) || !it->mismatches[CP_PRESET_BITWISE])
            continue;
        bool seen = false;
        for (size_t k = 0; k < nn; ++k)
            seen |= strcmp(names[k], it->engine) == 0;
        if (!seen && nn < sizeof names / sizeof *names)
            names[nn++] = it->engine;
    }
    /* the engines that reorder sums, then the correctly rounded ones (*:cr), each with why */
    size_t printed = 0;
    for (int cr = 0; cr < 2; ++cr) {
        size_t here = 0;
        for (size_t k = 0; k < nn; ++k) {
            if (cp_engine_correctly_rounded(names[k]) != (cr == 1))
                continue;
            fprintf(f, "%s%s", printed ? ", " : "", names[k]);
            ++printed;
            ++here;
        }
        if (here)
            fprintf(f, cr ? " (correctly rounded: each sum rounded once)" : " (they reorder sums)");
    }
    fputc('\n', f);
}

static void print_verdicts(FILE *f, const cp_comparison *s, int expect)
{
    static const char *const what[] = {
        [CP_PRESET_TORCH] = "|a-r| <= 1e-5 + 1.3e-6*|r| against host:f64",
        [CP_PRESET_CLBLAST] = "|a-r| < 1e-3 or |a-r|/(|a|+|r|) < 0.005 against host:f64",
        [CP_PRESET_BITWISE] = "every float32 result bit-identical to host:exact",
        [CP_PRESET_CR] = ("every cl:cr and host:cr result bit-identical to host:cr; other "
                          "engines not judged"),
    };
    size_t n = s->rows * s->cols;
    fprintf(f, "\nverdicts:\n");
    for (int p = 0; p < CP_PRESET_COUNT; ++p) {
        size_t fails = 0, same, f32;
        for (size_t i = 0; i < s->n; ++i)
            fails += preset_fails(s, &s->v[i], (enum cp_preset)p);
        if (!cp_comparison_preset_applies(s, p)) { /* cr without a correctly rounded result */
            fprintf(f, "  %-8s n/a (%s)\n", cp_preset_name((enum cp_preset)p),
                    s->cr_answer ? "no cl:cr or host:cr result to judge"
                                 : "no host:cr output to judge by");
            continue;
        }
        if (p == CP_PRESET_BITWISE && bitwise_reported(s, expect, &same, &f32))
            print_bitwise_report(f, s, same, f32);
        else
            fprintf(f, "  %-8s %s (%s)\n", cp_preset_name((enum cp_preset)p),
                    fails ? "FAIL" : "PASS", what[p]);
        for (size_t i = 0; i < s->n; ++i) {
            const cp_compare_item *it = &s->v[i];
            if (!judged(it, (enum cp_preset)p))
                continue;
            if (failed(it))
                fprintf(f, "    R%-2zu %s %s: did not run (error: see its row)\n", i + 1, it->label,
                        it->engine);
            if ((p == CP_PRESET_BITWISE || p == CP_PRESET_CR) && is_f32(it) && it->path_inexact)
                fprintf(f,
                        "    R%-2zu %s %s: no kernel path passed its probe on this device "
                        "(see builds:), so exactness is not promised\n",
                        i + 1, it->label, it->engine);
            if (!is_f32(it) || !it->mismatches[p])
                continue;
            fprintf(f, "    R%-2zu %s %s: Mismatched elements: %zu / %zu (%.1f%%)\n", i + 1,
                    it->label, it->engine, it->mismatches[p], n,
                    100.0 * (double)it->mismatches[p] / (double)n);
        }
    }
    size_t bad = 0, known = 0, unknown = 0;
    for (size_t i = 0; i < s->n; ++i) {
        bad += checks_fail(&s->v[i]);
        known += s->v[i].deterministic >= 0 || s->v[i].roundtrip >= 0;
        unknown += !failed(&s->v[i]) && s->v[i].deterministic < 0 && s->v[i].roundtrip < 0;
    }
    fprintf(f,
            "  %-8s %s%s (every run gives the same hash; the weights survive write, read, map "
            "and copy)\n",
            "checks",
            bad     ? "FAIL"
            : known ? "PASS"
                    : "n/a, not recorded in saved folders",
            known && unknown ? " where recorded (n/a: not recorded in its saved folder)" : "");
    for (size_t i = 0; i < s->n; ++i)
        if (checks_fail(&s->v[i]))
            fprintf(f, "    R%-2zu %s %s:%s%s%s\n", i + 1, s->v[i].label, s->v[i].engine,
                    failed(&s->v[i]) ? " did not run (error: see its row)" : "",
                    s->v[i].deterministic == 0 ? " runs differ (not deterministic)" : "",
                    s->v[i].roundtrip == 0 ? " weights changed in the round trip" : "");
}

/* "R1 cl:own on 1:0 pthread-..." per item, for the timing table and the speed verdict. */
static char (*speed_names(const cp_comparison *s))[400]
{
    char(*names)[400] = calloc(s->n + 1, sizeof *names);
    for (size_t i = 0; names && i < s->n; ++i)
        snprintf(names[i], sizeof names[i], "R%zu %s on %s", i + 1, s->v[i].engine, s->v[i].label);
    return names;
}

bool cp_comparison_speed_arrays(const cp_comparison *s, const cp_stats ***st, const char ***nm,
                                char (**names)[400])
{
    *names = speed_names(s);
    *st = calloc(s->n + 1, sizeof **st);
    *nm = calloc(s->n + 1, sizeof **nm);
    if (!*names || !*st || !*nm) {
        free(*names);
        free(*st);
        free(*nm);
        return false;
    }
    for (size_t i = 0; i < s->n; ++i) {
        (*st)[i] = failed(&s->v[i]) ? NULL : &s->v[i].wall;
        (*nm)[i] = (*names)[i];
    }
    return true;
}

int cp_comparison_print_speed(const cp_comparison *s, FILE *f)
{
    const cp_stats **st;
    const char **nm;
    char(*names)[400];
    if (!cp_comparison_speed_arrays(s, &st, &nm,
                                    &names)) /* a report without its timing table is no report */
        return cp_err_set(CP_FAIL_RUNTIME,
                          "the report is incomplete: out of memory printing the timing table");
    cp_timing_print(f, st, nm, s->n);
    free(names);
    free(st);
    free(nm);
    return CP_OK;
}

void cp_comparison_print(const cp_comparison *s, FILE *f, bool show_time, int expect)
{
    print_rows(f, s, show_time);
    print_invariance(f, s);
    print_matrix(f, s);
    print_worst(f, s);
    print_verdicts(f, s, expect);
}

int cp_comparison_report(const cp_comparison *c, bool show_time, int expect, char **out)
{
    size_t len = 0;
    *out = NULL;
    FILE *f = open_memstream(out, &len);
    if (!f)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory for the report");
    cp_comparison_print(c, f, show_time, expect);
    if (fclose(f) != 0) {
        free(*out);
        *out = NULL;
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory for the report");
    }
    return CP_OK;
}

void cp_free(void *p)
{
    free(p);
}
