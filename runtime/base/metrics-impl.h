/* Private to the library: the metrics' JSON, shared by run's results and compare's. */
#ifndef CLPARITY_METRICS_IMPL_H
#define CLPARITY_METRICS_IMPL_H

#include "clparity/metrics.h"

#include <stdint.h>
#include <string.h>

/* cp_ulp_dist's body, for loops that call it per element (train's per-step measurements):
 * NumPy's integer_repr of each float (negative floats below zero, in order), then the
 * distance. */
static inline int64_t cp_ulp_key(float f)
{
    int32_t i;
    memcpy(&i, &f, sizeof i);
    return i < 0 ? (int64_t)INT32_MIN - (int64_t)i : (int64_t)i;
}

static inline uint64_t cp_ulp_dist_inl(float a, float b)
{
    int64_t d = cp_ulp_key(a) - cp_ulp_key(b);
    return (uint64_t)(d < 0 ? -d : d);
}

/* Adds compared, max_ulp, median_ulp, max_abs, max_rel, rel_to_max, norm_rel, bitwise,
 * baseline_bitwise (unless base_bitwise is NaN), argmax, nan, inf and nan_mismatch to a cJSON
 * object, in that order; unknown values are null. */
void cp_metrics_json_fill(void *obj, const cp_metrics *m, double base_bitwise);

#endif
