/* Numerical comparison: ULP distance, error norms, bitwise and argmax agreement, hashes. */
#ifndef CLPARITY_METRICS_H
#define CLPARITY_METRICS_H

#include "clparity/export.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

CP_API_BEGIN

/* NumPy's nulp_diff for one pair: the float bits read as int32, negatives mapped to
 * INT32_MIN − bits so that the integers are monotonic and +0 equals −0; the distance is the
 * absolute difference. Meaningless for NaN (the caller counts NaN apart). */
uint64_t cp_ulp_dist(float a, float b);

/* FNV-1a 64 over bytes (the little-endian bytes of a result on the machines we run on). */
uint64_t cp_hash_fnv1a(const void *data, size_t len);
/* The same in pieces: h = CP_FNV1A_INIT, then h = cp_hash_fnv1a_more(h, piece, n) for each. */
#define CP_FNV1A_INIT UINT64_C(0xcbf29ce484222325)
uint64_t cp_hash_fnv1a_more(uint64_t h, const void *data, size_t len);

/* One result against the float64 reference r (ref32 = (float)r). */
typedef struct cp_metrics {
    size_t n;            /* elements */
    size_t rows;         /* batch rows, for argmax */
    size_t nan, inf;     /* non-finite values in the result */
    size_t nan_mismatch; /* NaN against a number (either side): counted, not in the ULP max */
    size_t compared;     /* pairs in the ULP statistics (neither side NaN); 0: none are valid */
    uint64_t max_ulp;    /* over pairs where neither is NaN */
    double median_ulp;
    double max_abs;    /* max |a − r| over finite pairs */
    double max_rel;    /* max |a − r| / |r| over finite pairs with r ≠ 0 */
    double rel_to_max; /* max |a − r| / max |r| */
    double norm_rel;   /* ||a − r||₂ / ||r||₂ over finite pairs */
    double bitwise;    /* fraction of elements bit-equal to ref32 (+0 ≠ −0 here) */
    double argmax;     /* fraction of rows whose argmax agrees with the reference's */
    size_t worst;      /* index of the element with the largest ULP distance */
    float worst_a;
    double worst_r;
} cp_metrics;

/* a: rows × cols floats; r: the same shape in double. equal_nan: NaN vs NaN counts as
 * equal (bitwise and ULP 0); otherwise it is a mismatch. Returns CP_OK or CP_FAIL_RUNTIME
 * when memory for the median runs out. */
int cp_metrics_compute(const float *a, const double *r, size_t rows, size_t cols, bool equal_nan,
                       cp_metrics *m);

/* Bitwise-equal fraction and max ULP between two float32 results of the same shape. */
void cp_metrics_pair(const float *a, const float *b, size_t n, double *bitwise, uint64_t *max_ulp);

/* The presets of DESIGN.md. torch and clblast judge a result against the float64 reference;
 * bitwise judges it against another float32 result (the host:exact baseline); cr judges the
 * correctly rounded results (engines *:cr) against host:cr's output (docs/ENGINES.md, "host:cr
 * and cl:cr"). */
enum cp_preset { CP_PRESET_TORCH, CP_PRESET_CLBLAST, CP_PRESET_BITWISE, CP_PRESET_CR };
#define CP_PRESET_COUNT 4

const char *cp_preset_name(enum cp_preset p); /* "torch", "clblast", "bitwise", "cr" */

/* One element: torch |a−r| ≤ 1e-5 + 1.3e-6·|r|; clblast |a−r| < 1e-3 or
 * |a−r| / (|a|+|r|) < 0.005. Equal infinities pass; NaN passes only against NaN, and only
 * with equal_nan. */
bool cp_preset_close(enum cp_preset p, float a, double r, bool equal_nan);

/* Elements of a that fail the preset: against r for torch and clblast (b unused), against b
 * bit for bit for bitwise (r unused; NaN vs NaN counts as equal only with equal_nan) and for
 * cr (r unused; the same bits are equal, NaN among them, and with equal_nan any NaN equals
 * any NaN: the contract leaves a NaN's payload free). cp_preset_close has no cr: it compares
 * with r rounded to float32, as bitwise. */
size_t cp_preset_mismatches(enum cp_preset p, const float *a, const double *r, const float *b,
                            size_t n, bool equal_nan);

CP_API_END

#endif
