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

typedef struct cp_peak {
    bool available;        /* false on a simulator (Oclgrind): it has no peak */
    double fma_gflops;     /* FP32, 2 flops per fma */
    double bandwidth_gbs;  /* triad a = b + s·c, 12 bytes per element, 1e9 bytes per GB */
    double latency_us;     /* empty kernel, enqueue + clFinish; < 0 for host (n/a) */
    bool cached;           /* read from the cache, not measured now */
    double seconds;        /* the time cp_peak_get took */
    char measured_at[32];  /* UTC, ISO 8601, of the measurement */
    char cache_file[4200]; /* "" when the cache is off or has no folder */
    char cache_note[256];  /* "" or what was unusual: a bad entry replaced, not stored, ... */
} cp_peak;

/* The device's peak: from the cache when an entry for this device and driver is there and
 * sound, else measured (and stored). remeasure skips the lookup. CLPARITY_CACHE=off neither
 * reads nor writes. A bad or foreign cache file is a reason to measure, never an error. A
 * simulator gives available = false at once. CP_FAIL_RUNTIME when an OpenCL call fails. */
int cp_peak_get(const cp_device *dev, bool remeasure, cp_peak *out);

/* The cache file that holds dev's peak: <cache dir>/peak-<16 hex digits>.json. */
int cp_peak_cache_path(const cp_device *dev, char *buf, size_t len);

CP_API_END

#endif
