/* clparity ulp: how far each OpenCL device's square root, division and reciprocal are from
 * the correctly rounded results, over a fixed seeded sample of inputs (clkernels/ulp.cl; the
 * host's float `/`, sqrtf and 1.0f / x, which SSE rounds correctly, are the reference). */
#ifndef CLPARITY_ULP_H
#define CLPARITY_ULP_H

#include "clparity/export.h"
#include "clparity/device.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

CP_API_BEGIN

/* One measured function as built one way: a row of clparity ulp. */
typedef struct cp_ulp_case {
    const char *function; /* "sqrt", "divide" (the / operator), "native_sqrt", ...,
                             "train_sqrt", "train_divide" */
    const char *build;  /* "default", "correctly-rounded" (-cl-fp32-correctly-rounded-divide-sqrt),
                           "fma-correction" (train's float way, clkernels/divsqrt.cl) */
    const char *domain; /* the inputs it is measured on, in words */
    bool exact;         /* promised correctly rounded: a difference fails the check */
} cp_ulp_case;

/* The rows in table order. */
size_t cp_ulp_case_count(void);
const cp_ulp_case *cp_ulp_case_at(size_t i);
/* The build options of a build ("-cl-fp32-correctly-rounded-divide-sqrt" ...), for legends. */
const char *cp_ulp_build_options(const char *build);

/* How many special values lead every sample: all of them for a unary function, every pair for
 * division. */
size_t cp_ulp_special_count(size_t case_i);

/* Input i of case_i's sample for seed: *x, and *y for division. Returns false when the input is
 * outside the case's domain (half_*: not measured; the sample takes the next one). The sample
 * of a function is the same for every build of it and for its native_ and half_ variants. */
bool cp_ulp_input(size_t case_i, uint64_t seed, uint64_t i, float *x, float *y);

/* One row on one device. */
typedef struct cp_ulp_stats {
    bool available; /* false: not measured on this device, why says so */
    char why[200];
    size_t n;           /* inputs measured */
    size_t compared;    /* results in max_ulp and mean_ulp: both finite, or the same non-finite */
    size_t nonfinite;   /* non-finite mismatches: NaN against a number, an infinity against a
                           finite value or the other infinity */
    size_t bits_differ; /* results whose bits differ from the correctly rounded one (+0 and -0
                           differ; NaN against NaN is equal, payloads are not compared) */
    uint64_t max_ulp;   /* NumPy's nulp_diff over the compared results */
    double mean_ulp;
    bool have_worst; /* the input of max_ulp (first found), or of the first non-finite mismatch
                        when every compared result is exact */
    float worst_x, worst_y, worst_got, worst_want;
    double seconds;
} cp_ulp_stats;

typedef struct cp_ulp_session cp_ulp_session; /* opaque: a device's context and programs */

/* A context and queue on dev (an OpenCL device). Errors: CP_FAIL_RUNTIME with cp_err_msg(). */
int cp_ulp_open(const cp_device *dev, cp_ulp_session **out);
/* Measures case_i over the first n inputs of its sample (in chunks; progress(ctx, done, n)
 * after each, when given). A case the device cannot build (correctly-rounded where it does
 * not report CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) comes back CP_OK with available false. */
int cp_ulp_measure(cp_ulp_session *s, size_t case_i, size_t n, uint64_t seed,
                   void (*progress)(void *ctx, size_t done, size_t total), void *ctx,
                   cp_ulp_stats *out);
void cp_ulp_close(cp_ulp_session *s);

CP_API_END

#endif
