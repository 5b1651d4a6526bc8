/* host:cr's certified double-precision fast path (hostblas/cr.c's proof, 2-4): the norms, the
 * bound's factor, the certificate, and the tiles that sum a layer's outputs in double (the
 * portable loop, AVX2 + FMA and AVX-512 F), each output that fails the certificate summed by
 * cr.c's exact accumulator (cr_dot). */
#include "hostblas/cr.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif
#include <math.h>
#include <string.h>

double cr_norm(const float *x, int n)
{
    double p = 0.0;
    for (int k = 0; k < n; ++k)
        p = p + (double)x[k] * (double)x[k];
    return sqrt(p);
}

/* Eight partial sums of squares (any order is covered by 3), so that the compiler vectorises
 * the loop without reassociating anything. */
double cr_norm_f64(const double *x, int n)
{
    double p[8] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    int k = 0;
    for (; k + 8 <= n; k += 8)
        for (int j = 0; j < 8; ++j)
            p[j] = p[j] + x[k + j] * x[k + j];
    for (; k < n; ++k)
        p[0] = p[0] + x[k] * x[k];
    return sqrt(((p[0] + p[1]) + (p[2] + p[3])) + ((p[4] + p[5]) + (p[6] + p[7])));
}

double cr_err_scale(int in)
{
    double mu = ((double)in + 2.0) * 0x1p-53; /* exact: in + 2 < 2^53 */
    return mu / (1.0 - mu) * 1.01 * (1.0 + 0x1p-40);
}

bool cr_certify(double s, double err, float *v)
{
    double a = fabs(s);
    if (!(a < 0x1p127)) /* also NaN */
        return false;
    float r = (float)a;
    uint32_t u = cr_bits(r);
    if (u == 0)
        return false;
    double mid_lo = ((double)r + (double)cr_float(u - 1u)) * 0.5;
    double mid_hi = ((double)r + (double)cr_float(u + 1u)) * 0.5;
    if (!(a - mid_lo > err && mid_hi - a > err))
        return false;
    *v = s < 0.0 ? -r : r;
    return true;
}

/* A tile is CR_ROWS rows (at most) × CR_COLS outputs: 2·CR_ROWS ymm accumulators of 4 doubles,
 * with the two converted weight vectors and the broadcast input, 15 of AVX2's 16 registers. */
#define CR_ROWS 6
#define CR_COLS 8

/* One output o of row x from its double sum s (the products only): the bias added in double
 * (one more rounding, 2), the certificate, else the accumulator (counted in *fallbacks); then the
 * activation and the residual. A bound of exactly 0 (x's or W_o's norm 0 and the bias ±0 or
 * none: every term a zero, each factor finite, else the norm is inf or NaN and so is the bound)
 * is an exact zero, whose sign cr_dot_zero reads without the accumulator: in training's dW, a
 * unit's gradient that the ReLU masks for the whole batch, most of host:cr's fallbacks before. */
static float cr_output(const cr_layer_args *a, double s, double nx, const float *x, int o,
                       long *fallbacks)
{
    double b = a->bias ? (double)a->bias[o] : 0.0;
    double err = a->scale * (nx * a->wnorm[o] + fabs(b));
    const float *wo = a->w + (size_t)o * (size_t)a->in, *bo = a->bias ? a->bias + o : NULL;
    float v;
    if (err == 0.0) { /* then s + b is a zero too */
        v = cr_dot_zero(x, wo, a->in, bo);
    } else if (!cr_certify(s + b, err, &v)) {
        v = cr_dot(x, wo, a->in, bo);
        ++*fallbacks;
    }
    return cr_epilogue(v, a->act, a->residual, a->residual ? x[o] : 0.0f);
}

/* The rest of a tile of R rows from row r0 × outputs o0 .. o0 + CR_COLS - 1 (fewer at the
 * layer's end), its sums in acc (row-major): each output, as float and as double. Returns the
 * fallbacks. */
static long cr_tile_finish(const cr_layer_args *a, const double *acc, const double *nx, int r0,
                           int R, int o0)
{
    long fallbacks = 0;
    int n = a->out - o0 < CR_COLS ? a->out - o0 : CR_COLS;
    for (int r = 0; r < R; ++r) {
        const float *x = a->x + (size_t)(r0 + r) * (size_t)a->in;
        float *y = a->y + (size_t)(r0 + r) * (size_t)a->out;
        double *yd = a->yd + (size_t)(r0 + r) * (size_t)a->out;
        for (int c = 0; c < n; ++c) {
            y[o0 + c] = cr_output(a, acc[r * CR_COLS + c], nx[r], x, o0 + c, &fallbacks);
            yd[o0 + c] = (double)y[o0 + c];
        }
    }
    return fallbacks;
}

/* The portable tile: R rows × CR_COLS outputs of the half panel wp (stride CR_PANEL), each
 * output's sum over k ascending in double, lanes across outputs. */
static inline __attribute__((always_inline)) void cr_tile(const double *restrict xd, int K,
                                                          const float *restrict wp,
                                                          double *restrict acc, const int R)
{
    for (int i = 0; i < R * CR_COLS; ++i)
        acc[i] = 0.0;
    for (int k = 0; k < K; ++k) {
        const float *w = wp + (size_t)k * CR_PANEL;
        for (int r = 0; r < R; ++r) {
            const double xk = xd[(size_t)r * (size_t)K + (size_t)k];
            for (int c = 0; c < CR_COLS; ++c)
                acc[r * CR_COLS + c] = acc[r * CR_COLS + c] + xk * (double)w[c];
        }
    }
}

/* Defines NAME(a, r0, r1, p0, p1) with attributes ATTR: rows [r0, r1) in tiles of at most
 * CR_ROWS rows (split evenly near the end), each over the half panels of [p0, p1) through TILE
 * then FINISH, the rows' norms first. */
#define CR_UNIT(ATTR, NAME, TILE, FINISH)                                                          \
    ATTR static long NAME(const cr_layer_args *a, int r0, int r1, int p0, int p1)                  \
    {                                                                                              \
        const int K = a->in;                                                                       \
        long fallbacks = 0;                                                                        \
        for (int r = r0; r < r1;) {                                                                \
            int left = r1 - r;                                                                     \
            int R = left >= 2 * CR_ROWS ? CR_ROWS : left > CR_ROWS ? (left + 1) / 2 : left;        \
            const double *xd = a->xd + (size_t)r * (size_t)K;                                      \
            double nx[CR_ROWS], acc[CR_ROWS * CR_COLS];                                            \
            for (int i = 0; i < R; ++i)                                                            \
                nx[i] = cr_norm_f64(xd + (size_t)i * (size_t)K, K);                                \
            for (int o0 = p0 * CR_PANEL; o0 < p1 * CR_PANEL && o0 < a->out; o0 += CR_COLS) {       \
                const float *w = a->wp + (size_t)(o0 / CR_PANEL) * (size_t)K * CR_PANEL +          \
                                 (size_t)(o0 % CR_PANEL);                                          \
                switch (R) {                                                                       \
                case 6:                                                                            \
                    TILE(xd, K, w, acc, 6);                                                        \
                    break;                                                                         \
                case 5:                                                                            \
                    TILE(xd, K, w, acc, 5);                                                        \
                    break;                                                                         \
                case 4:                                                                            \
                    TILE(xd, K, w, acc, 4);                                                        \
                    break;                                                                         \
                case 3:                                                                            \
                    TILE(xd, K, w, acc, 3);                                                        \
                    break;                                                                         \
                case 2:                                                                            \
                    TILE(xd, K, w, acc, 2);                                                        \
                    break;                                                                         \
                default:                                                                           \
                    TILE(xd, K, w, acc, 1);                                                        \
                }                                                                                  \
                fallbacks += FINISH(a, acc, nx, r, R, o0);                                         \
            }                                                                                      \
            r += R;                                                                                \
        }                                                                                          \
        return fallbacks;                                                                          \
    }

CR_UNIT(, cr_unit, cr_tile, cr_tile_finish)

#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_CR_ISA 1
CR_UNIT(__attribute__((target("avx2,fma"))), cr_unit_avx2, cr_tile, cr_tile_finish)
CR_UNIT(__attribute__((target("avx512f"))), cr_unit_avx512, cr_tile, cr_tile_finish)

/* cr_tile with AVX2 + FMA intrinsics: the accumulators stay in registers. An fma of an exact
 * product is one rounded add (2). */
static inline __attribute__((always_inline, target("avx2,fma"))) void
cr_tile256(const double *restrict xd, int K, const float *restrict wp, double *restrict acc,
           const int R)
{
    __m256d s[2 * CR_ROWS];
#pragma GCC unroll 12
    for (int i = 0; i < 2 * R; ++i)
        s[i] = _mm256_setzero_pd();
    int k = 0;
    if (R == 1) {
        /* One row: four partial sums over k mod 4 for each vector (8 chains, not 2 that wait on
         * the fma's latency), added at the end; any order is covered by 2. */
        __m256d t[6];
#pragma GCC unroll 6
        for (int i = 0; i < 6; ++i)
            t[i] = _mm256_setzero_pd();
        for (; k + 4 <= K; k += 4) {
#pragma GCC unroll 4
            for (int j = 0; j < 4; ++j) {
                const float *wk = wp + (size_t)(k + j) * CR_PANEL;
                __m256d xk = _mm256_broadcast_sd(xd + k + j);
                __m256d w0 = _mm256_cvtps_pd(_mm_loadu_ps(wk));
                __m256d w1 = _mm256_cvtps_pd(_mm_loadu_ps(wk + 4));
                if (j == 0) {
                    s[0] = _mm256_fmadd_pd(xk, w0, s[0]);
                    s[1] = _mm256_fmadd_pd(xk, w1, s[1]);
                } else {
                    t[2 * j - 2] = _mm256_fmadd_pd(xk, w0, t[2 * j - 2]);
                    t[2 * j - 1] = _mm256_fmadd_pd(xk, w1, t[2 * j - 1]);
                }
            }
        }
        s[0] = _mm256_add_pd(_mm256_add_pd(s[0], t[0]), _mm256_add_pd(t[2], t[4]));
        s[1] = _mm256_add_pd(_mm256_add_pd(s[1], t[1]), _mm256_add_pd(t[3], t[5]));
    }
    for (; k < K; ++k) {
        const float *wk = wp + (size_t)k * CR_PANEL;
        _mm_prefetch((const char *)(wk + 16 * CR_PANEL), _MM_HINT_T0);
        __m256d w0 = _mm256_cvtps_pd(_mm_loadu_ps(wk)), w1 = _mm256_cvtps_pd(_mm_loadu_ps(wk + 4));
#pragma GCC unroll 6
        for (int r = 0; r < R; ++r) {
            __m256d xk = _mm256_broadcast_sd(xd + (size_t)r * (size_t)K + (size_t)k);
            s[2 * r] = _mm256_fmadd_pd(xk, w0, s[2 * r]);
            s[2 * r + 1] = _mm256_fmadd_pd(xk, w1, s[2 * r + 1]);
        }
    }
#pragma GCC unroll 12
    for (int i = 0; i < 2 * R; ++i)
        _mm256_storeu_pd(acc + 4 * i, s[i]);
}

/* cr_tile_finish with AVX2, four outputs at a time: cr_certify's test on each lane (the same
 * conditions; an fma-free bound, rounded as the scalar one or not, is still a bound: 3), the
 * signed conversion as RN(s), the activation and the residual as in cr_epilogue. A lane whose
 * certificate fails goes through cr_output. Outputs past the last whole vector: cr_output. */
static inline __attribute__((always_inline, target("avx2,fma"))) long
cr_tile_finish256(const cr_layer_args *a, const double *acc, const double *nx, int r0, int R,
                  int o0)
{
    long fallbacks = 0;
    int n = a->out - o0 < CR_COLS ? a->out - o0 : CR_COLS;
    const __m256d sign = _mm256_set1_pd(-0.0), half = _mm256_set1_pd(0.5);
    const __m256d big = _mm256_set1_pd(0x1p127), zero = _mm256_setzero_pd();
    const __m256d scale = _mm256_set1_pd(a->scale);
    const __m128i one = _mm_set1_epi32(1);
    for (int r = 0; r < R; ++r) {
        const float *x = a->x + (size_t)(r0 + r) * (size_t)a->in;
        float *y = a->y + (size_t)(r0 + r) * (size_t)a->out;
        double *yd = a->yd + (size_t)(r0 + r) * (size_t)a->out;
        const __m256d nxr = _mm256_set1_pd(nx[r]);
        int c = 0;
        for (; c + 4 <= n; c += 4) {
            int o = o0 + c;
            __m256d b = a->bias ? _mm256_cvtps_pd(_mm_loadu_ps(a->bias + o)) : zero;
            __m256d s = _mm256_add_pd(_mm256_loadu_pd(acc + r * CR_COLS + c), b);
            __m256d err = _mm256_mul_pd(
                scale, _mm256_add_pd(_mm256_mul_pd(nxr, _mm256_loadu_pd(a->wnorm + o)),
                                     _mm256_andnot_pd(sign, b)));
            __m256d abs = _mm256_andnot_pd(sign, s);
            __m128 r32 = _mm256_cvtpd_ps(abs);
            __m128i u = _mm_castps_si128(r32);
            __m256d rd = _mm256_cvtps_pd(r32);
            __m256d lo = _mm256_cvtps_pd(_mm_castsi128_ps(_mm_sub_epi32(u, one)));
            __m256d hi = _mm256_cvtps_pd(_mm_castsi128_ps(_mm_add_epi32(u, one)));
            __m256d mid_lo = _mm256_mul_pd(_mm256_add_pd(rd, lo), half);
            __m256d mid_hi = _mm256_mul_pd(_mm256_add_pd(rd, hi), half);
            __m256d ok = _mm256_and_pd(
                _mm256_and_pd(_mm256_cmp_pd(abs, big, _CMP_LT_OQ),
                              _mm256_cmp_pd(rd, zero, _CMP_NEQ_OQ)),
                _mm256_and_pd(_mm256_cmp_pd(_mm256_sub_pd(abs, mid_lo), err, _CMP_GT_OQ),
                              _mm256_cmp_pd(_mm256_sub_pd(mid_hi, abs), err, _CMP_GT_OQ)));
            __m128 v = _mm256_cvtpd_ps(s);
            if (a->act == CP_ACT_RELU) /* (v <= 0) ? +0 : v */
                v = _mm_andnot_ps(_mm_cmp_ps(v, _mm_setzero_ps(), _CMP_LE_OQ), v);
            if (a->residual)
                v = _mm_add_ps(_mm_loadu_ps(x + o), v);
            _mm_storeu_ps(y + o, v);
            _mm256_storeu_pd(yd + o, _mm256_cvtps_pd(v));
            int certified = _mm256_movemask_pd(ok);
            for (int j = 0; certified != 15 && j < 4; ++j)
                if (!(certified >> j & 1)) {
                    y[o + j] = cr_output(a, acc[r * CR_COLS + c + j], nx[r], x, o + j, &fallbacks);
                    yd[o + j] = (double)y[o + j];
                }
        }
        for (; c < n; ++c) {
            y[o0 + c] = cr_output(a, acc[r * CR_COLS + c], nx[r], x, o0 + c, &fallbacks);
            yd[o0 + c] = (double)y[o0 + c];
        }
    }
    return fallbacks;
}

CR_UNIT(__attribute__((target("avx2,fma"))), cr_unit256, cr_tile256, cr_tile_finish256)

/* ---- the AVX-512 kernel ------------------------------------------------------------------
 * A tile is R rows × NP whole panels (NP·CR_PANEL outputs): 2·R·NP zmm accumulators of 8
 * doubles, at most CR512_ACC of the 32 registers. Each k converts a panel's 16 weights to
 * double once (two vcvtps2pd) for the R rows, and each row's input is an embedded broadcast:
 * at B = 64, 12 rows share a conversion; at B = 1 the row keeps 8 panels (16 chains) in flight,
 * where one chain per fma latency would stall. Any order of the double sum is covered by 2. */
#define CR512_ACC 24
#define CR512_ROWS 12

static inline __attribute__((always_inline, target("avx512f"))) void
cr_tile512(const double *restrict xd, int K, const float *restrict wp, double *restrict acc,
           const int R, const int NP)
{
    __m512d s[CR512_ACC];
#pragma GCC unroll 24
    for (int i = 0; i < 2 * R * NP; ++i)
        s[i] = _mm512_setzero_pd();
    for (int k = 0; k < K; ++k) {
#pragma GCC unroll 8
        for (int j = 0; j < NP; ++j) {
            const float *wk = wp + ((size_t)j * (size_t)K + (size_t)k) * CR_PANEL;
            _mm_prefetch((const char *)(wk + 16 * CR_PANEL), _MM_HINT_T0);
            __m512d w0 = _mm512_cvtps_pd(_mm256_loadu_ps(wk));
            __m512d w1 = _mm512_cvtps_pd(_mm256_loadu_ps(wk + 8));
#pragma GCC unroll 12
            for (int r = 0; r < R; ++r) {
                __m512d xk = _mm512_set1_pd(xd[(size_t)r * (size_t)K + (size_t)k]);
                s[2 * (r * NP + j)] = _mm512_fmadd_pd(xk, w0, s[2 * (r * NP + j)]);
                s[2 * (r * NP + j) + 1] = _mm512_fmadd_pd(xk, w1, s[2 * (r * NP + j) + 1]);
            }
        }
    }
#pragma GCC unroll 24
    for (int i = 0; i < 2 * R * NP; ++i)
        _mm512_storeu_pd(acc + 8 * i, s[i]);
}

/* The floats p[i] where mask m has bit i, else 0 (AVX-512 F has no 8-float masked load). */
static inline __attribute__((always_inline, target("avx512f"))) __m256 cr_load8(__mmask8 m,
                                                                                const float *p)
{
    return _mm512_castps512_ps256(_mm512_maskz_loadu_ps((__mmask16)m, p));
}

/* The rest of a tile of R rows from row r0 × the NP panels' outputs from o0 (acc: row r's sums
 * at acc[r · NP · CR_PANEL ..]), eight outputs at a time, the last ones masked: the bias in
 * double, cr_certify's test on each lane (as cr_tile_finish256), RN(s) by the signed conversion,
 * the activation and the residual as in cr_epilogue. A lane whose certificate fails goes
 * through cr_output. Returns the fallbacks. */
static inline __attribute__((always_inline, target("avx512f"))) long
cr_tile_finish512(const cr_layer_args *a, const double *acc, const double *nx, int r0, int R,
                  int o0, int NP)
{
    long fallbacks = 0;
    int n = a->out - o0 < NP * CR_PANEL ? a->out - o0 : NP * CR_PANEL;
    const __m512d half = _mm512_set1_pd(0.5), big = _mm512_set1_pd(0x1p127);
    const __m512d zero = _mm512_setzero_pd(), scale = _mm512_set1_pd(a->scale);
    const __m256i one = _mm256_set1_epi32(1);
    for (int r = 0; r < R; ++r) {
        const float *x = a->x + (size_t)(r0 + r) * (size_t)a->in;
        float *y = a->y + (size_t)(r0 + r) * (size_t)a->out;
        double *yd = a->yd + (size_t)(r0 + r) * (size_t)a->out;
        const double *accr = acc + (size_t)r * (size_t)(NP * CR_PANEL);
        const __m512d nxr = _mm512_set1_pd(nx[r]);
        for (int c = 0; c < n; c += 8) {
            int o = o0 + c;
            __mmask8 m = n - c >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (n - c)) - 1u);
            __m512d b = a->bias ? _mm512_cvtps_pd(cr_load8(m, a->bias + o)) : zero;
            __m512d s = _mm512_add_pd(_mm512_maskz_loadu_pd(m, accr + c), b);
            __m512d err = _mm512_mul_pd(
                scale, _mm512_add_pd(_mm512_mul_pd(nxr, _mm512_maskz_loadu_pd(m, a->wnorm + o)),
                                     _mm512_abs_pd(b)));
            __m512d abs = _mm512_abs_pd(s);
            __m256 r32 = _mm512_cvtpd_ps(abs);
            __m256i u = _mm256_castps_si256(r32);
            __m512d rd = _mm512_cvtps_pd(r32);
            __m512d lo = _mm512_cvtps_pd(_mm256_castsi256_ps(_mm256_sub_epi32(u, one)));
            __m512d hi = _mm512_cvtps_pd(_mm256_castsi256_ps(_mm256_add_epi32(u, one)));
            __m512d mid_lo = _mm512_mul_pd(_mm512_add_pd(rd, lo), half);
            __m512d mid_hi = _mm512_mul_pd(_mm512_add_pd(rd, hi), half);
            __mmask8 ok = _mm512_cmp_pd_mask(abs, big, _CMP_LT_OQ) &
                          _mm512_cmp_pd_mask(rd, zero, _CMP_NEQ_OQ) &
                          _mm512_cmp_pd_mask(_mm512_sub_pd(abs, mid_lo), err, _CMP_GT_OQ) &
                          _mm512_cmp_pd_mask(_mm512_sub_pd(mid_hi, abs), err, _CMP_GT_OQ);
            __m256 v = _mm512_cvtpd_ps(s);
            if (a->act == CP_ACT_RELU) /* (v <= 0) ? +0 : v */
                v = _mm256_andnot_ps(_mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_LE_OQ), v);
            if (a->residual)
                v = _mm256_add_ps(cr_load8(m, x + o), v);
            _mm512_mask_storeu_ps(y + o, (__mmask16)m, _mm512_castps256_ps512(v));
            _mm512_mask_storeu_pd(yd + o, m, _mm512_cvtps_pd(v));
            unsigned bad = (unsigned)(m & (__mmask8)~ok);
            for (int j = 0; bad && j < 8; ++j, bad >>= 1)
                if (bad & 1u) {
                    y[o + j] = cr_output(a, accr[c + j], nx[r], x, o + j, &fallbacks);
                    yd[o + j] = (double)y[o + j];
                }
        }
    }
    return fallbacks;
}

/* cr_norm_f64 with 16 partial sums of squares in two zmm registers (any order is covered by 3;
 * a square of a float's value is exact, so its fma is one rounded add), a masked tail. */
static inline __attribute__((always_inline, target("avx512f"))) double cr_norm512(const double *x,
                                                                                  int n)
{
    __m512d p0 = _mm512_setzero_pd(), p1 = _mm512_setzero_pd();
    int k = 0;
    for (; k + 16 <= n; k += 16) {
        __m512d a = _mm512_loadu_pd(x + k), b = _mm512_loadu_pd(x + k + 8);
        p0 = _mm512_fmadd_pd(a, a, p0);
        p1 = _mm512_fmadd_pd(b, b, p1);
    }
    for (; k < n; k += 8) {
        __m512d a = _mm512_maskz_loadu_pd(
            n - k >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (n - k)) - 1u), x + k);
        p0 = _mm512_fmadd_pd(a, a, p0);
    }
    return sqrt(_mm512_reduce_add_pd(_mm512_add_pd(p0, p1)));
}

/* R rows × NP panels from panel pn: the tile, then its outputs. */
#define CR512_TILE(R, NP)                                                                          \
    do {                                                                                           \
        cr_tile512(xd, K, w, acc, R, NP);                                                          \
        fallbacks += cr_tile_finish512(a, acc, nx, r, R, pn * CR_PANEL, NP);                       \
    } while (0)

/* Rows [r0, r1) × panels [p0, p1): tiles of at most CR512_ROWS rows (split evenly near the
 * end), each with as many panels as CR512_ACC accumulators allow (at most 8), one panel at a
 * time where fewer are left; the rows' norms first. The shape of a tile changes no bit. */
__attribute__((target("avx512f"))) static long cr_unit512(const cr_layer_args *a, int r0, int r1,
                                                          int p0, int p1)
{
    const int K = a->in;
    long fallbacks = 0;
    double acc[CR512_ACC * 8];
    for (int r = r0; r < r1;) {
        int left = r1 - r;
        int R = left >= 2 * CR512_ROWS ? CR512_ROWS : left > CR512_ROWS ? (left + 1) / 2 : left;
        const double *xd = a->xd + (size_t)r * (size_t)K;
        double nx[CR512_ROWS];
        for (int i = 0; i < R; ++i)
            nx[i] = cr_norm512(xd + (size_t)i * (size_t)K, K);
        int most = CR512_ACC / (2 * R) < 8 ? CR512_ACC / (2 * R) : 8;
        for (int pn = p0; pn < p1;) {
            const float *w = a->wp + (size_t)pn * (size_t)K * CR_PANEL;
            int left_p = p1 - pn;
            /* the widest tile that fits the panels left: one or two rows keep 2, 4 or 8 chains
             * a row in flight at a layer's odd end too */
            int np = left_p >= most          ? most
                     : R <= 2 && left_p >= 4 ? 4
                     : R <= 2 && left_p >= 2 ? 2
                                             : 1;
            switch (R * 16 + np) {
            case 1 * 16 + 8:
                CR512_TILE(1, 8);
                break;
            case 1 * 16 + 4:
                CR512_TILE(1, 4);
                break;
            case 1 * 16 + 2:
                CR512_TILE(1, 2);
                break;
            case 2 * 16 + 6:
                CR512_TILE(2, 6);
                break;
            case 2 * 16 + 4:
                CR512_TILE(2, 4);
                break;
            case 2 * 16 + 2:
                CR512_TILE(2, 2);
                break;
            case 3 * 16 + 4:
                CR512_TILE(3, 4);
                break;
            case 4 * 16 + 3:
                CR512_TILE(4, 3);
                break;
            case 5 * 16 + 2:
                CR512_TILE(5, 2);
                break;
            case 6 * 16 + 2:
                CR512_TILE(6, 2);
                break;
            case 12 * 16 + 1:
                CR512_TILE(12, 1);
                break;
            case 11 * 16 + 1:
                CR512_TILE(11, 1);
                break;
            case 10 * 16 + 1:
                CR512_TILE(10, 1);
                break;
            case 9 * 16 + 1:
                CR512_TILE(9, 1);
                break;
            case 8 * 16 + 1:
                CR512_TILE(8, 1);
                break;
            case 7 * 16 + 1:
                CR512_TILE(7, 1);
                break;
            case 6 * 16 + 1:
                CR512_TILE(6, 1);
                break;
            case 5 * 16 + 1:
                CR512_TILE(5, 1);
                break;
            case 4 * 16 + 1:
                CR512_TILE(4, 1);
                break;
            case 3 * 16 + 1:
                CR512_TILE(3, 1);
                break;
            case 2 * 16 + 1:
                CR512_TILE(2, 1);
                break;
            default:
                CR512_TILE(1, 1);
            }
            pn += np;
        }
        r += R;
    }
    return fallbacks;
}
#endif

cr_unit_fn cr_unit_get(enum cr_kernel k)
{
#ifdef HAVE_CR_ISA
    switch (k) {
    case CR_KERNEL_C:
        return cr_unit;
    case CR_KERNEL_C_AVX2:
        return cr_unit_avx2;
    case CR_KERNEL_C_AVX512:
        return cr_unit_avx512;
    case CR_KERNEL_AVX2:
        return cr_unit256;
    case CR_KERNEL_AVX512:
        return cr_unit512;
    }
#else
    (void)k;
#endif
    return cr_unit;
}
