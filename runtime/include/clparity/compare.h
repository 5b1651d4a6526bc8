/* Comparing results: each against the float64 reference and the host:exact baseline, the
 * pairwise matrix between them, the worst elements, and the verdicts of the presets
 * (DESIGN.md, Metrics). Built from a cp_job (`clparity compare`) or from arrays read back
 * from --save folders (`clparity diff`).
 *
 * Ownership: the arrays an item points to (y, and ref and base) are borrowed and must
 * outlive the comparison; the items themselves are copied. */
#ifndef CLPARITY_COMPARE_H
#define CLPARITY_COMPARE_H

#include "clparity/export.h"
#include "clparity/job.h"
#include "clparity/metrics.h"
#include "clparity/npy.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

CP_API_BEGIN

typedef struct cp_comparison cp_comparison; /* opaque */

/* --expect: a preset, or none. */
#define CP_EXPECT_NONE (-1)

/* One result to compare. */
typedef struct cp_compare_item {
    char label[320]; /* "1:0 pthread-haswell-AMD EPYC" (diff: "A: ...") */
    char engine[32]; /* "cl:own" */
    enum cp_dtype dtype;
    const void *y; /* rows × cols; a CP_F64 result is shown as the reference, not compared */
    uint64_t hash;
    int deterministic;    /* 1, 0, or -1 unknown */
    int roundtrip;        /* 1, 0, or -1 not applicable */
    bool inexact_device;  /* "exactness not guaranteed": no denormals or EMBEDDED profile */
    bool path_inexact;    /* cl:own: no kernel path passed its probe on this device, so its bits
                           * are not promised; fails --expect bitwise whatever they are */
    cp_stats wall;        /* seconds; wall.n == 0: unknown (not timed, or not saved) */
    long batch_inv_equal; /* rows equal alone and in the batch; < 0: not checked */
    long batch_inv_checked;
    int thread_inv;    /* host:openblas 1 thread vs all: 1, 0, or -1 not checked */
    const char *error; /* NULL or "": it ran. Else why it failed (borrowed): y is not read, the
                        * item is left out of every metric and fails every verdict */
    /* Filled in by the comparison (ignored on input). */
    cp_metrics m;        /* against the reference */
    double base_bitwise; /* fraction bit-equal to the baseline */
    size_t mismatches[CP_PRESET_COUNT];
} cp_compare_item;

/* Computes every metric of n items of rows × cols against ref (host:f64, required) and
 * base (host:exact, required). */
int cp_comparison_create(const cp_compare_item *items, size_t n, size_t rows, size_t cols,
                         const double *ref, const float *base, bool equal_nan, cp_comparison **out);
/* The same for a job that has run (with opts.compare, so that it has a baseline). */
int cp_comparison_from_job(const cp_job *j, cp_comparison **out);
void cp_comparison_destroy(cp_comparison *c);

size_t cp_comparison_count(const cp_comparison *c);
const cp_compare_item *cp_comparison_item(const cp_comparison *c, size_t i);
/* Item i against the reference; NULL for a float64 item. */
const cp_metrics *cp_comparison_metrics(const cp_comparison *c, size_t i);
/* The fraction of item i's outputs bit-equal to the baseline (NaN for a float64 item). */
double cp_comparison_baseline_bitwise(const cp_comparison *c, size_t i);
/* host:cr's output (rows × cols, borrowed like base; NULL: none, the default), the correctly
 * rounded answer: each float32 item's =cr and max ULP against it (the report's =cr and
 * crULP columns, the JSON's metrics.cr_bitwise and cr_max_ulp) and its mismatches of preset
 * cr (the JSON's mismatches.cr). */
void cp_comparison_set_cr(cp_comparison *c, const float *cr);
/* The fraction of item i's outputs bit-equal to host:cr's (NaN for a float64 item, or without
 * cp_comparison_set_cr), and its max ULP against them (0 then). */
double cp_comparison_cr_bitwise(const cp_comparison *c, size_t i);
uint64_t cp_comparison_cr_ulp(const cp_comparison *c, size_t i);
/* Elements of item i that fail preset p (0 for a float64 item). */
size_t cp_comparison_mismatches(const cp_comparison *c, size_t i, enum cp_preset p);
/* Bit-equal fraction and max ULP between items i and k: CP_FAIL_USAGE unless both are
 * float32 results. */
int cp_comparison_pair(const cp_comparison *c, size_t i, size_t k, double *bitwise,
                       uint64_t *max_ulp);

/* Items that fail preset p or the determinism and round-trip checks; their labels and
 * engines go into buf ("1:0 ... cl:clblast, ..."). 0: the preset holds. Preset cr judges only
 * the correctly rounded results (cp_engine_correctly_rounded), checks included: the others
 * are not expected to be correctly rounded. */
size_t cp_comparison_failures(const cp_comparison *c, enum cp_preset p, char *buf, size_t len);

/* The verdict of the JSON's "verdicts": true when every item meets preset p (0 ..
 * CP_PRESET_COUNT - 1), or, for p == CP_PRESET_COUNT, passes the determinism and round-trip
 * checks ("checks"). Unlike cp_comparison_failures, a preset's verdict leaves the checks out. */
bool cp_comparison_verdict(const cp_comparison *c, int p);

/* Whether preset p has anything to judge: false for cr when no result is a correctly rounded
 * engine's or no host:cr output was set (its verdict then is vacuous: the JSON's null and the
 * report's n/a), true for every other p. */
bool cp_comparison_preset_applies(const cp_comparison *c, int p);

/* Whether an engine is correctly rounded (cp_engine_info.correctly_rounded: cl:cr, host:cr): the
 * results that --expect cr judges against host:cr. False for a name that no engine has. */
bool cp_engine_correctly_rounded(const char *engine);

/* Whether an engine promises results bit-identical to host:exact (cl:own, host:exact: the
 * baseline, CP_ROLE_BASELINE, or its twin): the others reorder sums or contract, and a bitwise
 * difference of theirs is no failure unless it was asked for (--expect bitwise). */
bool cp_engine_promises_exact(const char *engine);

/* compare's report: the rows (with the median time when show_time), invariance, the
 * pairwise matrix, the worst elements and the verdicts. expect (CP_EXPECT_NONE or a preset)
 * words the bitwise verdict: without one, results of engines that never promise exactness
 * are reported, not failed. */
void cp_comparison_print(const cp_comparison *c, FILE *f, bool show_time, int expect);

/* The same report as a string (malloc'd: free it with cp_free), for bindings. */
int cp_comparison_report(const cp_comparison *c, bool show_time, int expect, char **out);
void cp_free(void *p);

/* "results" (metrics, mismatches, checks), "pairwise" and "verdicts" as a cJSON object
 * (void *; cJSON_Delete it), NULL when out of memory. */
void *cp_comparison_json(const cp_comparison *c);
/* The timing table and the speed verdict over the items that have timings (cp_timing_print);
 * nothing when none has. CP_FAIL_RUNTIME (out of memory) when it cannot print them. */
int cp_comparison_print_speed(const cp_comparison *c, FILE *f);
/* The speed verdict, compare --json's "speed", as JSON text in *out (malloc'd: free it with
 * cp_free): {"basis", "fastest", "fastest_name", "others": [{"index", "name", "ratio",
 * "ratio_sd", "within_noise", "text"}]}, or "null" with fewer than two timed results. For
 * bindings. */
int cp_comparison_speed_json(const cp_comparison *c, char **out);

/* "bitwise", "torch", "clblast", "cr" or "none" (CP_EXPECT_NONE); CP_FAIL_USAGE otherwise. */
int cp_expect_parse(const char *s, int *out);

CP_API_END

#endif
