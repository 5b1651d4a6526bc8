/* Private: the statistics of clparity peak's repetitions (peak_stats.c): each figure's median
 * rate and its spread, whether to repeat once more, and the spread as cached. */
#ifndef CLPARITY_PEAK_STATS_IMPL_H
#define CLPARITY_PEAK_STATS_IMPL_H

#include "clparity/peak.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

/* Repetitions of each measurement: at least PEAK_REPS, and more while the spread (p90 - p10)
 * / median stays above half of CP_PEAK_NOISY, up to PEAK_REPS_MAX. The median is the figure;
 * min, p10, p90 and max are kept beside it. */
#define PEAK_REPS 7
#define PEAK_REPS_MAX 21
/* The latency's repetitions. */
#define LATENCY_REPS 200

/* A number of the cached JSON object o: finite and positive, else false. */
bool peak_positive_number(const cJSON *o, const char *name, double *out);
double peak_quantile(const double *v, size_t n, double q);
double peak_rate_stats(const double *t, size_t n, double work, cp_peak_spread *s);
bool peak_want_more(const double *t, size_t n);
void peak_spread_none(cp_peak_spread *s);
bool peak_spread_noisy(const cp_peak_spread *s, double median);
/* The spread as cached (a cJSON object, or null without repetitions), and read back. */
cJSON *peak_spread_json(const cp_peak_spread *s);
bool peak_spread_load(const cJSON *o, double median, cp_peak_spread *s);

#endif
