/* The measured peak of a device (clparity peak): FP32 fma throughput, streaming (triad)
 * bandwidth and kernel launch latency, kept in a cache per device and driver so that `sweep`
 * can show each result as a percentage of its device's peak. */
#ifndef CLPARITY_PEAK_H
#define CLPARITY_PEAK_H

#include "clparity/export.h"
#include "clparity/device.h"

#include <stdbool.h>
#include <stddef.h>

CP_API_BEGIN

/* The spread of one peak figure over its repetitions, in the figure's unit; all < 0 when it
 * is not available (latency on the host). */
typedef struct cp_peak_spread {
    double min, p10, p90, max;
    int reps; /* the repetitions the median and the spread come from */
} cp_peak_spread;

/* A figure is noisy when (p90 - p10) / median exceeds this: the machine had other work, or
 * the repetitions were too few to settle. */
#define CP_PEAK_NOISY 0.2

typedef struct cp_peak {
    bool available;       /* false on a simulator (Oclgrind): it has no peak */
    double fma_gflops;    /* FP32, 2 flops per fma: the median of the repetitions */
    double bandwidth_gbs; /* triad a = b + s·c, 12 bytes per element, 1e9 bytes per GB: median */
    double latency_us;    /* empty kernel, enqueue + clFinish: median; < 0 for host (n/a) */
    cp_peak_spread fma, bandwidth, latency; /* each figure's spread */
    bool noisy;                             /* fma's or bandwidth's spread is above CP_PEAK_NOISY */
    bool cached;                            /* read from the cache, not measured now */
    double seconds;                         /* the time cp_peak_get took */
    char measured_at[32];                   /* UTC, ISO 8601, of the measurement */
    char cache_file[4200];                  /* "" when the cache is off or has no folder */
    char cache_note[256]; /* "" or what was unusual: a bad entry replaced, not stored, ... */
} cp_peak;

/* The device's peak: from the cache when an entry for this device and driver is there and
 * sound, else measured (and stored). Each figure is the median of at least 7 repetitions
 * (more, up to 21, while its spread stays above CP_PEAK_NOISY / 2), kept with its spread. An
 * entry of an older clparity without a spread counts as stale: it is measured again, and
 * cache_note says so. remeasure skips the lookup. CLPARITY_CACHE=off neither
 * reads nor writes. A bad or foreign cache file is a reason to measure, never an error. A
 * simulator gives available = false at once. CP_FAIL_RUNTIME when an OpenCL call fails. */
int cp_peak_get(const cp_device *dev, bool remeasure, cp_peak *out);

/* A figure's spread as a cJSON object {min, p10, p90, max, reps}, or JSON null when it has
 * none (reps 0); NULL when out of memory. */
void *cp_peak_spread_json(const cp_peak_spread *s);

/* The cache file that holds dev's peak: <cache dir>/peak-<16 hex digits>.json. */
int cp_peak_cache_path(const cp_device *dev, char *buf, size_t len);

CP_API_END

#endif
