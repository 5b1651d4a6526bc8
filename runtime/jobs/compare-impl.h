/* What compare.c (the comparison and its text report) and compare_json.c (its JSON) share. */
#ifndef CLPARITY_COMPARE_IMPL_H
#define CLPARITY_COMPARE_IMPL_H

#include "clparity/compare.h"
#include "clparity/report.h"

#include <stdbool.h>
#include <stdint.h>

struct cp_comparison {
    cp_compare_item *v;
    size_t n;
    size_t rows, cols;
    const double *ref;      /* host:f64 */
    const float *base;      /* host:exact, the baseline */
    const float *cr_answer; /* host:cr, the correctly rounded answer, or NULL */
    double *cr_bitwise;     /* per item: =cr, the fraction bit-equal to cr (NaN: none) */
    uint64_t *cr_ulp;       /* per item: crULP, the max ULP against cr */
    bool equal_nan;
    double *pair_bitwise; /* n × n, float32 results only (NaN elsewhere) */
    uint64_t *pair_ulp;
};

static inline bool failed(const cp_compare_item *it)
{
    return it->error && it->error[0];
}

/* A float32 result that ran: one to compare. */
static inline bool is_f32(const cp_compare_item *it)
{
    return it->dtype == CP_F32 && !failed(it);
}

/* The timing table's and the speed verdict's arrays, one per result (NULL stats for a failed
 * one): the stats, "R1 cl:own on 1:0 ..." names, and the names' storage; false when out of
 * memory (nothing to free then). */
bool cp_comparison_speed_arrays(const cp_comparison *s, const cp_stats ***st, const char ***nm,
                                char (**names)[400]);

#endif
