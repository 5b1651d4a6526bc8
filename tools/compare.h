/* The comparison report shared by `compare` (results computed now) and `diff` (results read
 * from --save folders): rows, the pairwise matrix, the worst elements, the verdicts. */
#ifndef CLPARITY_COMPARE_H
#define CLPARITY_COMPARE_H

#include "clparity/metrics.h"
#include "clparity/npy.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum cmp_expect { CMP_EXPECT_NONE = -1 }; /* otherwise an enum cp_preset */

struct cmp_item {
    char label[320]; /* "1:0 pthread-haswell-AMD EPYC" (diff: "DIR: ...") */
    char engine[32];
    enum cp_dtype dtype;
    const void *y; /* rows × cols */
    uint64_t hash;
    int deterministic;    /* 1, 0, or -1 unknown */
    int roundtrip;        /* 1, 0, or -1 not applicable */
    bool inexact_device;  /* "exactness not guaranteed": no denormals or EMBEDDED profile */
    double wall_median_s; /* < 0: unknown */
    long batch_inv_equal; /* rows equal alone and in the batch; < 0: not checked */
    long batch_inv_checked;
    int thread_inv; /* host:openblas 1 thread vs all: 1, 0, or -1 not checked */
    /* computed by cmp_compute */
    cp_metrics m;
    double base_bitwise; /* fraction bit-equal to the baseline */
    size_t mismatches[CP_PRESET_COUNT];
};

struct cmp_set {
    struct cmp_item *v;
    size_t n;
    size_t rows, cols;
    const double *ref; /* host:f64 */
    const float *base; /* host:exact, the baseline */
    bool equal_nan;
    double *pair_bitwise; /* n × n, float32 results only (NaN elsewhere) */
    uint64_t *pair_ulp;
};

int cmp_compute(struct cmp_set *s);
void cmp_free(struct cmp_set *s);

/* The four parts: rows, pairwise matrix, worst elements, verdicts. */
void cmp_print(FILE *f, const struct cmp_set *s, bool show_time);

/* Results that fail the preset; the names go into buf ("1:0 ... cl:clblast, ..."). */
size_t cmp_failures(const struct cmp_set *s, enum cp_preset p, char *buf, size_t len);

/* The comparison as cJSON: "results" (with metrics, presets and checks) and "pairwise". */
void *cmp_json(const struct cmp_set *s);

/* --expect's value: "bitwise", "torch", "clblast" or "none". */
int cmp_parse_expect(const char *s, int *out);

#endif
