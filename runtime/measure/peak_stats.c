/* clparity peak's repetitions: the median rate of each figure and its spread (min, p10, p90,
 * max), whether the timings want one more repetition, and the spread as cached. */
#include "peak-stats-impl.h"

#include "clparity/report.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>

bool peak_positive_number(const cJSON *o, const char *name, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble <= 0.0)
        return false;
    *out = v->valuedouble;
    return true;
}

/* The q-quantile of n sorted values, interpolated linearly between neighbours. */
double peak_quantile(const double *v, size_t n, double q)
{
    if (n == 0)
        return -1.0;
    double at = q * (double)(n - 1);
    size_t lo = (size_t)at;
    if (lo + 1 >= n)
        return v[n - 1];
    return v[lo] + (at - (double)lo) * (v[lo + 1] - v[lo]);
}

/* The rates work / t[i] of n timed repetitions: their median, and their spread in *s. */
double peak_rate_stats(const double *t, size_t n, double work, cp_peak_spread *s)
{
    double r[PEAK_REPS_MAX > LATENCY_REPS ? PEAK_REPS_MAX : LATENCY_REPS];
    for (size_t i = 0; i < n; ++i)
        r[i] = work / (t[i] > 1e-12 ? t[i] : 1e-12);
    cp_stats st = cp_stats_of(r, n); /* sorts r */
    s->min = st.min;
    s->max = st.max;
    s->p10 = peak_quantile(r, n, 0.1);
    s->p90 = peak_quantile(r, n, 0.9);
    s->reps = (int)n;
    return st.median;
}

/* True while n timings (n >= PEAK_REPS) spread more than half of CP_PEAK_NOISY: worth one
 * more repetition, up to PEAK_REPS_MAX. */
bool peak_want_more(const double *t, size_t n)
{
    if (n < PEAK_REPS)
        return true;
    if (n >= PEAK_REPS_MAX)
        return false;
    double v[PEAK_REPS_MAX];
    memcpy(v, t, n * sizeof *v);
    double med = cp_stats_of(v, n).median;
    return med > 0.0 &&
           (peak_quantile(v, n, 0.9) - peak_quantile(v, n, 0.1)) / med > CP_PEAK_NOISY / 2;
}

void peak_spread_none(cp_peak_spread *s)
{
    s->min = s->p10 = s->p90 = s->max = -1.0;
    s->reps = 0;
}

bool peak_spread_noisy(const cp_peak_spread *s, double median)
{
    return s->reps > 0 && median > 0.0 && (s->p90 - s->p10) / median > CP_PEAK_NOISY;
}

cJSON *peak_spread_json(const cp_peak_spread *s)
{
    if (s->reps <= 0)
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddNumberToObject(o, "min", s->min);
    cJSON_AddNumberToObject(o, "p10", s->p10);
    cJSON_AddNumberToObject(o, "p90", s->p90);
    cJSON_AddNumberToObject(o, "max", s->max);
    cJSON_AddNumberToObject(o, "reps", s->reps);
    return o;
}

/* A spread as cached: positive, ordered min <= p10 <= median <= p90 <= max (within rounding),
 * and at least 2 repetitions. */
bool peak_spread_load(const cJSON *o, double median, cp_peak_spread *s)
{
    const cJSON *reps = cJSON_GetObjectItemCaseSensitive(o, "reps");
    if (!cJSON_IsObject(o) || !peak_positive_number(o, "min", &s->min) ||
        !peak_positive_number(o, "p10", &s->p10) || !peak_positive_number(o, "p90", &s->p90) ||
        !peak_positive_number(o, "max", &s->max) || !cJSON_IsNumber(reps) ||
        reps->valuedouble < 2 || reps->valuedouble > 1e6)
        return false;
    s->reps = (int)reps->valuedouble;
    double slack = 1e-5 * median;
    return s->min <= s->p10 + slack && s->p10 <= median + slack && median <= s->p90 + slack &&
           s->p90 <= s->max + slack;
}

void *cp_peak_spread_json(const cp_peak_spread *s)
{
    return peak_spread_json(s);
}
