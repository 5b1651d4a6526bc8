#include "clparity/report.h"

#include "clparity/device.h"
#include "clparity/error.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stddef.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static char *argv_line;

extern const char clparity_git_hash_text[]; /* git_hash.c, written at build time */

const char *cp_git_hash(void)
{
    return clparity_git_hash_text;
}

void cp_provenance_set_argv(int argc, char *const *argv)
{
    size_t len = 1;
    for (int i = 0; i < argc; ++i)
        len += strlen(argv[i]) + 1;
    free(argv_line);
    argv_line = calloc(len, 1);
    if (!argv_line)
        return;
    for (int i = 0; i < argc; ++i) {
        if (i)
            strcat(argv_line, " ");
        strcat(argv_line, argv[i]);
    }
}

static void add_icds(cJSON *prov)
{
    const char *dir = getenv("OCL_ICD_VENDORS");
    if (!dir || !dir[0])
        dir = "/etc/OpenCL/vendors";
    cJSON *icd = cJSON_AddObjectToObject(prov, "icd");
    if (!icd)
        return;
    cJSON_AddStringToObject(icd, "dir", dir);
    cJSON *files = cJSON_AddArrayToObject(icd, "files");
    DIR *d = opendir(dir);
    if (!d || !files) {
        if (d)
            closedir(d);
        return;
    }
    struct dirent *ent;
    while ((ent = readdir(d))) {
        size_t n = strlen(ent->d_name);
        if (n < 5 || strcmp(ent->d_name + n - 4, ".icd") != 0)
            continue;
        char path[4096], lib[1024] = "";
        snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
        FILE *f = fopen(path, "r");
        if (f) {
            if (!fgets(lib, sizeof lib, f))
                lib[0] = '\0';
            fclose(f);
        }
        lib[strcspn(lib, "\n")] = '\0';
        cJSON *o = cJSON_CreateObject();
        if (!o)
            break;
        cJSON_AddStringToObject(o, "file", ent->d_name);
        cJSON_AddStringToObject(o, "library", lib);
        cp_json_push(files, o);
    }
    closedir(d);
}

void *cp_provenance_json(const char *build_options)
{
    cJSON *p = cJSON_CreateObject();
    if (!p)
        return NULL;
    cJSON_AddStringToObject(p, "clparity_version", cp_version());
    cJSON_AddStringToObject(p, "git_hash", cp_git_hash());
    cJSON_AddStringToObject(p, "command", argv_line ? argv_line : "");
    char date[64];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    cJSON_AddStringToObject(p, "date", date);
    char cpu[256];
    cp_host_cpu_name(cpu, sizeof cpu);
    cJSON_AddStringToObject(p, "host_cpu", cpu);
    add_icds(p);
    cJSON *env = cJSON_AddObjectToObject(p, "environment");
    static const char *const prefixes[] = {"OCL_ICD_VENDORS=", "POCL_", "OPENBLAS_", "CLPARITY_"};
    for (char **e = environ; env && e && *e; ++e)
        for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; ++i) {
            if (strncmp(*e, prefixes[i], strlen(prefixes[i])) != 0)
                continue;
            const char *eq = strchr(*e, '=');
            if (!eq)
                continue;
            char key[256];
            snprintf(key, sizeof key, "%.*s", (int)(eq - *e), *e);
            cJSON_AddStringToObject(env, key, eq + 1);
        }
    cJSON_AddStringToObject(p, "kernel_build_options", build_options ? build_options : "");
    return p;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The value at fraction q of the sorted v (linear interpolation between order statistics, as
 * NumPy's default). */
static double quantile(const double *v, size_t n, double q)
{
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)pos;
    if (lo + 1 >= n)
        return v[n - 1];
    double f = pos - (double)lo;
    return v[lo] + f * (v[lo + 1] - v[lo]);
}

/* The distribution-free interval for the median: the largest l (1-based, l <= n/2) with
 * P(Bin(n, 1/2) <= l - 1) <= 0.025, so that [x(l), x(n+1-l)] covers the median with
 * probability 1 - 2·P(Bin <= l - 1) >= 0.95. l = 1 (min, max) when no l reaches it. */
static void median_interval(const double *v, size_t n, cp_stats *s)
{
    double cdf = 0.0, cov = 1.0 - 2.0 * exp(-(double)n * log(2.0)); /* l = 1 */
    size_t l = 1;
    double ln2n = (double)n * log(2.0);
    for (size_t k = 0; 2 * (k + 1) <= n; ++k) {
        /* P(Bin = k), in logs: n can reach a million */
        double pk = exp(lgamma((double)n + 1.0) - lgamma((double)k + 1.0) -
                        lgamma((double)(n - k) + 1.0) - ln2n);
        cdf += pk; /* P(Bin <= k): with l = k + 1 the coverage is 1 - 2·cdf */
        if (cdf > 0.025)
            break;
        l = k + 1;
        cov = 1.0 - 2.0 * cdf;
    }
    s->ci_lo = v[l - 1];
    s->ci_hi = v[n - l];
    s->ci_level = cov;
}

cp_stats cp_stats_of(double *v, size_t n)
{
    cp_stats s;
    memset(&s, 0, sizeof s);
    if (!n)
        return s;
    s.n = n;
    size_t nh = n / 5 ? n / 5 : 1;
    double sum = 0.0;
    for (size_t i = 0; i < n; ++i) {
        sum += v[i];
        if (i == nh - 1)
            s.head = sum / (double)nh;
    }
    s.total = sum;
    s.mean = sum / (double)n;
    double ss = 0.0;
    for (size_t i = 0; i < n; ++i)
        ss += (v[i] - s.mean) * (v[i] - s.mean);
    s.sd = n > 1 ? sqrt(ss / (double)(n - 1)) : 0.0;
    qsort(v, n, sizeof *v, cmp_double);
    s.min = v[0];
    s.max = v[n - 1];
    s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    s.p10 = quantile(v, n, 0.1);
    s.p90 = quantile(v, n, 0.9);
    median_interval(v, n, &s);
    return s;
}

bool cp_runs_more(long fixed, double min_time, size_t k, double measured)
{
    return cp_runs_more_round(fixed, min_time, 1, 0, k, measured);
}

size_t cp_runs_cap(long fixed)
{
    return cp_runs_cap_round(fixed, 1, 0);
}

size_t cp_runs_cap_round(long fixed, size_t rounds, size_t round)
{
    if (!rounds)
        rounds = 1;
    if (fixed > 0)
        return (size_t)fixed / rounds + (round < (size_t)fixed % rounds);
    return CP_RUNS_MAX / rounds;
}

bool cp_runs_more_round(long fixed, double min_time, size_t rounds, size_t round, size_t k,
                        double measured)
{
    if (!rounds)
        rounds = 1;
    size_t cap = cp_runs_cap_round(fixed, rounds, round);
    if (fixed > 0)
        return k < cap;
    double r = (double)rounds;
    double limit = (min_time > CP_RUNS_TIME_LIMIT ? min_time : CP_RUNS_TIME_LIMIT) / r;
    if (k >= cap || measured >= limit)
        return false;
    return k < (CP_RUNS_MIN + rounds - 1) / rounds || measured < min_time / r;
}

bool cp_rounds_overlap(const double *ma, size_t na, const double *mb, size_t nb)
{
    if (na < 2 || nb < 2)
        return false;
    double alo = ma[0], ahi = ma[0], blo = mb[0], bhi = mb[0];
    for (size_t i = 1; i < na; ++i) {
        alo = fmin(alo, ma[i]);
        ahi = fmax(ahi, ma[i]);
    }
    for (size_t i = 1; i < nb; ++i) {
        blo = fmin(blo, mb[i]);
        bhi = fmax(bhi, mb[i]);
    }
    return alo <= bhi && blo <= ahi;
}

double cp_stats_spread(const cp_stats *s)
{
    return s->median > 0.0 ? (s->p90 - s->p10) / s->median : 0.0;
}

double cp_stats_robust_sd(const cp_stats *s)
{
    return (s->p90 - s->p10) / 2.5631;
}

enum cp_noise cp_stats_noise(const cp_stats *s)
{
    if (s->n == 0 || !(cp_stats_spread(s) > CP_NOISY_SPREAD))
        return CP_NOISE_NONE;
    if (s->n < CP_NOISE_FEW)
        return CP_NOISE_FEW_RUNS;
    if (s->head >= s->p90 && s->head > s->median * (1.0 + CP_NOISY_SPREAD))
        return CP_NOISE_COLD;
    return CP_NOISE_LOAD;
}

const char *cp_noise_cause(enum cp_noise c)
{
    switch (c) {
    case CP_NOISE_NONE:
        return NULL;
    case CP_NOISE_FEW_RUNS:
        return "too few runs";
    case CP_NOISE_COLD:
        return "a cold cache (the first runs were the slowest)";
    case CP_NOISE_LOAD:
        return "other load on the machine";
    }
    return NULL;
}

static const struct {
    const char *suffix;
    size_t off;
} stats_keys[] = {
    {"median_s", offsetof(cp_stats, median)}, {"mean_s", offsetof(cp_stats, mean)},
    {"sd_s", offsetof(cp_stats, sd)},         {"min_s", offsetof(cp_stats, min)},
    {"max_s", offsetof(cp_stats, max)},       {"p10_s", offsetof(cp_stats, p10)},
    {"p90_s", offsetof(cp_stats, p90)},       {"ci_low_s", offsetof(cp_stats, ci_lo)},
    {"ci_high_s", offsetof(cp_stats, ci_hi)}, {"ci_level", offsetof(cp_stats, ci_level)},
};

void cp_stats_json_add(void *obj, const char *prefix, const cp_stats *s, bool all)
{
    char key[96];
    for (size_t i = 0; i < sizeof stats_keys / sizeof *stats_keys; ++i) {
        snprintf(key, sizeof key, "%s_%s", prefix, stats_keys[i].suffix);
        cJSON_AddNumberToObject(obj, key, *(const double *)((const char *)s + stats_keys[i].off));
    }
    if (!all)
        return;
    cJSON_AddNumberToObject(obj, "runs", (double)s->n);
    cJSON_AddNumberToObject(obj, "measured_s", s->total);
    cJSON_AddNumberToObject(obj, "spread", cp_stats_spread(s));
    enum cp_noise c = cp_stats_noise(s);
    cJSON_AddBoolToObject(obj, "noisy", c != CP_NOISE_NONE);
    if (c != CP_NOISE_NONE)
        cJSON_AddStringToObject(obj, "noise_cause", cp_noise_cause(c));
    else
        cJSON_AddNullToObject(obj, "noise_cause");
}

bool cp_stats_from_json(const void *obj, const char *prefix, cp_stats *s)
{
    char key[96];
    memset(s, 0, sizeof *s);
    for (size_t i = 0; i < sizeof stats_keys / sizeof *stats_keys; ++i) {
        snprintf(key, sizeof key, "%s_%s", prefix, stats_keys[i].suffix);
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
        if (cJSON_IsNumber(v))
            *(double *)((char *)s + stats_keys[i].off) = v->valuedouble;
        else if (i == 0)
            return false;
    }
    const cJSON *runs = cJSON_GetObjectItemCaseSensitive(obj, "runs");
    const cJSON *tot = cJSON_GetObjectItemCaseSensitive(obj, "measured_s");
    s->n = cJSON_IsNumber(runs) && runs->valuedouble >= 1.0 ? (size_t)runs->valuedouble : 1;
    s->total = cJSON_IsNumber(tot) ? tot->valuedouble : s->median * (double)s->n;
    s->head = s->median; /* the order of the runs is not kept */
    return true;
}

/* Decimals for a time in ms: three significant digits below 0.1 ms ("0.0431", "0.000412"),
 * else "12.345", "123.4". */
static int ms_digits(double ms)
{
    if (ms >= 100.0)
        return 1;
    if (ms >= 0.1 || !(ms > 0.0))
        return 3;
    int d = 2 - (int)floor(log10(ms));
    return d > 9 ? 9 : d;
}

static size_t timed_count(const cp_stats *const *s, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; ++i)
        k += s[i] && s[i]->n;
    return k;
}

const char *cp_stats_mark(const cp_stats *s)
{
    return cp_stats_noise(s) != CP_NOISE_NONE ? "~" : "";
}

/* A time in ms with the decimals that the size of ref (seconds) needs. */
static void fmt_ms(double sec, double ref, char *buf, size_t len)
{
    snprintf(buf, len, "%.*f", ms_digits(1e3 * ref), 1e3 * sec);
}

void cp_timing_print(FILE *f, const cp_stats *const *s, const char *const *names, size_t n)
{
    if (!timed_count(s, n))
        return;
    fprintf(f, "\ntiming: wall ms per forward; ± = half the p10-p90 spread; sd = standard "
               "deviation; CI = the median's interval (distribution-free)\n");
    fprintf(f, "%-44s %5s %16s %16s %9s %9s  %s\n", "result", "runs", "median ±spread", "mean ±sd",
            "min", "max", "median CI");
    for (size_t i = 0; i < n; ++i) {
        if (!s[i] || !s[i]->n)
            continue;
        const cp_stats *t = s[i];
        char med[64], mean[64], mn[24], mx[24], lo[24], hi[24], a[24], b[24];
        double m = t->median;
        fmt_ms(m, m, a, sizeof a);
        fmt_ms(0.5 * (t->p90 - t->p10), m, b, sizeof b);
        snprintf(med, sizeof med, "%s ±%s%s", a, b, cp_stats_mark(t));
        fmt_ms(t->mean, m, a, sizeof a);
        fmt_ms(t->sd, m, b, sizeof b);
        snprintf(mean, sizeof mean, "%s ±%s", a, b);
        fmt_ms(t->min, t->min, mn, sizeof mn);
        fmt_ms(t->max, t->max, mx, sizeof mx);
        fmt_ms(t->ci_lo, m, lo, sizeof lo);
        fmt_ms(t->ci_hi, m, hi, sizeof hi);
        fprintf(f, "%-44.44s %5zu %16s %16s %9s %9s  [%s, %s] %.0f%%\n", names[i], t->n, med, mean,
                mn, mx, lo, hi, 100.0 * t->ci_level);
    }
    for (size_t i = 0; i < n; ++i) {
        enum cp_noise c = s[i] && s[i]->n ? cp_stats_noise(s[i]) : CP_NOISE_NONE;
        if (c == CP_NOISE_NONE)
            continue;
        fprintf(f,
                "~ %s: p10-p90 spread %.0f %% of the median (> %.0f %%) in %zu runs: "
                "suspect %s%s\n",
                names[i], 100.0 * cp_stats_spread(s[i]), 100.0 * CP_NOISY_SPREAD, s[i]->n,
                cp_noise_cause(c),
                c == CP_NOISE_FEW_RUNS ? " (raise --min-time, or --runs)"
                : c == CP_NOISE_COLD   ? " (raise --warmup)"
                                       : " (rerun on an idle machine)");
    }
    cp_speed_print(f, s, names, n);
}

bool cp_speed_within_noise(const cp_stats *a, const cp_stats *b)
{
    const cp_stats *f = a->median <= b->median ? a : b, *o = f == a ? b : a;
    return cp_speed_of(f, o).within_noise;
}

cp_speed cp_speed_of(const cp_stats *fastest, const cp_stats *other)
{
    cp_speed sp = {0.0, 0.0, true};
    if (!(fastest->median > 0.0))
        return sp;
    sp.ratio = other->median / fastest->median;
    double ra = cp_stats_robust_sd(fastest) / fastest->median;
    double rb = other->median > 0.0 ? cp_stats_robust_sd(other) / other->median : 0.0;
    sp.ratio_sd = sp.ratio * sqrt(ra * ra + rb * rb);
    /* Fewer than CP_NOISE_FEW runs on either side cannot tell: their interval is [min, max] or
     * nearly, and a loaded machine's slow phases last longer than a handful of runs. */
    sp.within_noise = fastest->n < CP_NOISE_FEW || other->n < CP_NOISE_FEW ||
                      fastest->ci_hi >= other->ci_lo || sp.ratio - 1.0 <= sp.ratio_sd;
    return sp;
}

size_t cp_speed_fastest(const cp_stats *const *s, size_t n)
{
    size_t best = n;
    for (size_t i = 0; i < n; ++i)
        if (s[i] && s[i]->n && (best == n || s[i]->median < s[best]->median))
            best = i;
    return best;
}

/* Why a ratio is no verdict (cp_speed_of's rule, in the order a reader can act on), or NULL
 * when it is one. */
static const char *speed_no_verdict(const cp_stats *fastest, const cp_stats *other,
                                    const cp_speed *sp)
{
    if (!sp->within_noise)
        return NULL;
    if (fastest->n < 2 || other->n < 2)
        return "one run has no spread: run --runs 10 or more";
    if (fastest->n < CP_NOISE_FEW || other->n < CP_NOISE_FEW)
        return "fewer than 10 runs on a side";
    if (sp->ratio - 1.0 <= sp->ratio_sd)
        return "the spread is larger than the difference";
    return "the medians' intervals overlap";
}

/* "1.63 ± 0.05 times faster than host:openblas on host", or for a ratio that the spreads
 * cannot tell from 1 (as hyperfine does, no number): "within noise of host:openblas on host:
 * no verdict (fewer than 10 runs on a side)". */
static void speed_line(const cp_stats *fastest, const cp_stats *other, const cp_speed *sp,
                       const char *name, char *buf, size_t len)
{
    const char *why = speed_no_verdict(fastest, other, sp);
    if (why)
        snprintf(buf, len, "within noise of %s: no verdict (%s)", name, why);
    else
        snprintf(buf, len, "%.2f ± %.2f times faster than %s", sp->ratio, sp->ratio_sd, name);
}

void cp_speed_print(FILE *f, const cp_stats *const *s, const char *const *names, size_t n)
{
    if (timed_count(s, n) < 2)
        return;
    size_t b = cp_speed_fastest(s, n);
    fprintf(f, "\nspeed (median wall time; ± from the p10-p90 spreads; docs/PERFORMANCE.md):\n");
    fprintf(f, "  %s ran\n", names[b]);
    for (size_t i = 0; i < n; ++i) {
        if (i == b || !s[i] || !s[i]->n)
            continue;
        cp_speed sp = cp_speed_of(s[b], s[i]);
        char line[1024];
        speed_line(s[b], s[i], &sp, names[i], line, sizeof line);
        fprintf(f, "    %s\n", line);
    }
}

void *cp_speed_json(const cp_stats *const *s, const char *const *names, size_t n)
{
    if (timed_count(s, n) < 2)
        return NULL;
    size_t b = cp_speed_fastest(s, n);
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "basis", "median wall time");
    cJSON_AddNumberToObject(o, "fastest", (double)b);
    cJSON_AddStringToObject(o, "fastest_name", names[b]);
    cJSON *arr = cJSON_AddArrayToObject(o, "others");
    for (size_t i = 0; arr && i < n; ++i) {
        if (i == b || !s[i] || !s[i]->n)
            continue;
        cp_speed sp = cp_speed_of(s[b], s[i]);
        cJSON *x = cJSON_CreateObject();
        if (!x)
            break;
        char line[1024], text[1400];
        speed_line(s[b], s[i], &sp, names[i], line, sizeof line);
        snprintf(text, sizeof text, "%s ran %s", names[b], line);
        cJSON_AddNumberToObject(x, "index", (double)i);
        cJSON_AddStringToObject(x, "name", names[i]);
        cJSON_AddNumberToObject(x, "ratio", sp.ratio);
        cJSON_AddNumberToObject(x, "ratio_sd", sp.ratio_sd);
        cJSON_AddBoolToObject(x, "within_noise", sp.within_noise);
        cJSON_AddStringToObject(x, "text", text);
        cp_json_push(arr, x);
    }
    return o;
}
