/* Private to the library: the metrics' JSON, shared by run's results and compare's. */
#ifndef CLPARITY_METRICS_IMPL_H
#define CLPARITY_METRICS_IMPL_H

#include "clparity/metrics.h"

/* Adds compared, max_ulp, median_ulp, max_abs, max_rel, rel_to_max, norm_rel, bitwise,
 * baseline_bitwise (unless base_bitwise is NaN), argmax, nan, inf and nan_mismatch to a cJSON
 * object, in that order; unknown values are null. */
void cp_metrics_json_fill(void *obj, const cp_metrics *m, double base_bitwise);

#endif
