/* Internal, not installed: host:cr's arithmetic (hostblas/cr.c), correctly rounded layers
 * (issue 23), shared by hostblas/ (host:cr and its training) and runtime/ (cl:cr, its probe,
 * training) as `#include "hostblas/cr.h"`: hostblas/include is on the include path of
 * clparity_rt (and of the tests that need it), so that no folder reaches into another's private
 * headers with "../" (issue 33). It needs only the public clparity/model.h.
 * Each output is RN(sum_k x[k]·W[o][k] + b[o]), the exact sum rounded once to the nearest
 * float32 (ties to even), then the activation and the residual add: cr.c's first comment has
 * the contract and the proof. Written with fixed-width integers, no __int128 and no library
 * call but sqrt, so that clkernels/cr.cl can follow it line by line. */
#ifndef CLPARITY_HOSTBLAS_CR_H
#define CLPARITY_HOSTBLAS_CR_H

#include "clparity/model.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A float's bits, and the float of some bits (OpenCL's as_uint and as_float). */
static inline uint32_t cr_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static inline float cr_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* The exact accumulator: a signed fixed-point number in units of 2^-298 (the lsb of the
 * smallest product of two subnormals), as CR_DIGITS base-2^32 digits kept in int64_t, so that
 * up to CR_ADDS_MAX terms go in before the carries must be propagated. Digit i weighs
 * 2^(32·i − 298). */
#define CR_DIGITS 20
#define CR_ADDS_MAX (1 << 30)
/* The widest layer (inputs) the proof admits (cr.c, 3 and 5); the model loaders stop at 2^24. */
#define CR_IN_MAX (1 << 26)

typedef struct cr_acc {
    int64_t digit[CR_DIGITS];
    int32_t adds;      /* terms added since the last carry pass */
    bool nan;          /* a NaN term, or inf · 0 */
    bool pos_inf;      /* a +inf term */
    bool neg_inf;      /* a -inf term */
    bool any;          /* some term was added */
    bool all_neg_zero; /* every term added so far is -0 */
} cr_acc;

void cr_acc_init(cr_acc *a);
/* Adds the exact product x·w (IEEE rules for NaN, inf and inf · 0). */
void cr_acc_add_product(cr_acc *a, float x, float w);
/* Adds the float b (the bias). */
void cr_acc_add(cr_acc *a, float b);
/* The exact sum rounded once to float32, to nearest, ties to even: NaN for a NaN term, inf · 0
 * or +inf with -inf; else the infinity; else RN of the exact sum (±inf from 2^128 − 2^103 on,
 * subnormals rounded correctly, a nonzero sum that rounds to zero with its sign); an exact zero
 * is +0 unless some term was added and every term was -0. The accumulator is left as it was. */
float cr_acc_round(const cr_acc *a);

/* CP_OK, or CP_FAIL_USAGE naming the engine and the first layer of m with more than CR_IN_MAX
 * inputs (the proof's limit). */
int cr_check_inputs(const cp_model *m, const char *engine);

/* The contract's v for one output: RN(sum_k x[k]·w[k] + *bias), bias NULL for none. */
float cr_dot(const float *x, const float *w, int n, const float *bias);

/* cr_dot where every term is a zero (x or w all zeros, each ±0, the other finite; the bias ±0
 * or NULL): the exact sum is a zero, and its sign is cr_acc_round's (-0 only where some term is
 * added and every one is -0), read from the terms' signs alone with no accumulator. */
float cr_dot_zero(const float *x, const float *w, int n, const float *bias);

/* The activation (enum cp_act) and the residual add (one float add) after v. */
float cr_epilogue(float v, int act, bool residual, float x_o);

/* One input row x[in] through a layer, every output by cr_dot (the scalar form, and what the
 * fast path must equal): w is [out, in] row-major, bias [out] or NULL. */
void cr_layer_row(const float *x, const float *w, const float *bias, int in, int out, int act,
                  bool residual, float *y);

/* ---- the certified fast path ------------------------------------------------------------ */

/* sqrt(sum_k x[k]^2) in double, the Euclidean norm of a row for the error bound. */
double cr_norm(const float *x, int n);
double cr_norm_f64(const double *x, int n);

/* The error bound's factor for a layer of `in` inputs: gamma_(in+2) · 1.01 · (1 + 2^-40), with
 * gamma_m = m·u / (1 − m·u), u = 2^-53. The bound of an output is
 * cr_err_scale(in) · (|x|_2 · |W_o|_2 + |b_o|). */
double cr_err_scale(int in);

/* True, with *v = RN(S), when s, a sum of the output's exact terms in double in any order, is
 * certified: |s − S| <= err keeps S strictly between the midpoints around RN(s), with s
 * finite, |s| < 2^127 and RN(s) != 0. False: the exact accumulator must decide. */
bool cr_certify(double s, double err, float *v);

/* host:cr's panels are host:exact's (hostblas/exact.c, XP): W packed as Wp[o / 16][k][o % 16],
 * out padded to a multiple of 16 with zeros. */
#define CR_PANEL 16

/* One layer's operands for the fast path's units. */
typedef struct cr_layer_args {
    int in, out, act;
    bool residual;
    const float *w;      /* W [out, in], row-major (the fallback's) */
    const float *bias;   /* [out] or NULL */
    const float *wp;     /* the panels */
    const double *wnorm; /* |W_o|_2 for each output */
    double scale;        /* cr_err_scale(in) */
    const float *x;      /* the input rows [batch, in] (the fallback's, the residual's) */
    const double *xd;    /* the same in double */
    float *y;            /* the output rows [batch, out] */
    double *yd;          /* the same in double (the next layer's xd) */
} cr_layer_args;

/* Rows [r0, r1) × panels [p0, p1) of a layer; returns how many outputs took the exact
 * fallback. */
typedef long (*cr_unit_fn)(const cr_layer_args *a, int r0, int r1, int p0, int p1);

/* The units, by instruction set (hostblas/exact.c picks one the CPU has): the portable loop
 * compiled for the baseline, for AVX2 + FMA or for AVX-512 F, or the AVX2 + FMA or AVX-512 F
 * intrinsics kernel. Every unit gives the same bits: the certificate holds for any order of the
 * double sum, and the fallback is exact. */
enum cr_kernel {
    CR_KERNEL_C,
    CR_KERNEL_C_AVX2,
    CR_KERNEL_C_AVX512,
    CR_KERNEL_AVX2,
    CR_KERNEL_AVX512
};
cr_unit_fn cr_unit_get(enum cr_kernel k);

#endif
