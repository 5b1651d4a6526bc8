/* Private: what clparity peak's entry and OpenCL measurements (peak.c) share with its host
 * measurements (peak_host.c). */
#ifndef CLPARITY_PEAK_IMPL_H
#define CLPARITY_PEAK_IMPL_H

#include "clparity/peak.h"

#include <stdbool.h>
#include <stddef.h>

/* Repetitions of each measurement: at least PEAK_REPS, and more while the spread (p90 - p10)
 * / median stays above half of CP_PEAK_NOISY, up to PEAK_REPS_MAX. The median is the figure;
 * min, p10, p90 and max are kept beside it. */
#define PEAK_REPS 7
#define PEAK_REPS_MAX 21
/* Each timed repetition of the fma and triad measurements aims at about this long. */
#define PEAK_TARGET_S 0.04
/* The triad's three arrays together: far above any cache, within any max allocation. */
#define TRIAD_BYTES (192ull << 20)

/* peak.c: the median of the rates of n timed repetitions, with their spread, and whether the
 * timings want one more repetition. */
double peak_rate_stats(const double *t, size_t n, double work, cp_peak_spread *s);
bool peak_want_more(const double *t, size_t n);

/* peak_host.c: the host's figures, measured with threaded C loops. */
int peak_measure_host(cp_peak *p);

#endif
