/* Pieces shared by `peak` and `sweep`: a device and its peak as JSON, and the peak's row. */
#ifndef CLPARITY_PERF_H
#define CLPARITY_PERF_H

#include "clparity/device.h"
#include "clparity/peak.h"

#include <stdio.h>

/* {id, label, name, platform, driver, kind, simulator} as a cJSON object (void *). */
void *perf_device_json(const cp_device *d);
/* {available, fma_gflops, bandwidth_gbs, latency_us (null: n/a), source, measured_at, seconds}
 * as a cJSON object; a simulator's numbers are null. */
void *perf_peak_json(const cp_peak *p);
/* "0:0 pthread-..." then the three numbers, or "n/a (simulator)". */
void perf_peak_row(FILE *out, const cp_device *d, const cp_peak *p);
void perf_peak_header(FILE *out);
/* After the rows: what '~' (a noisy peak) means, when one of the n peaks is noisy. */
void perf_peak_note(FILE *out, const cp_peak *peaks, size_t n);

#endif
