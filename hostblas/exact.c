/* host:exact, the exact twin of clkernels/block.cl: each layer's weights in panels, each
 * output one fmaf chain from 0.0f, shared out over the pool (pool.c) in units of panels ×
 * rows, at the widest instruction-set level this CPU has (CLPARITY_HOST_ISA). This file is
 * built with -ffp-contract=off: host:exact's bitwise equality with cl:own depends on every
 * multiply-add being the explicit fmaf below. */
#include "host-impl.h"
#include "clparity/env.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* Panels per chunk: the unit of host:exact's cache blocking and of its thread split. */
#define EXACT_CHUNK 8
/* Multiply-adds per thread, at least, before a layer of host:exact is shared out. */
#define EXACT_MACS_PER_THREAD (1 << 14)

static size_t exact_panels(const cp_layer *L)
{
    return ((size_t)L->out + XP - 1) / XP;
}

/* The reference loop (CLPARITY_HOST_EXACT=scalar): one output at a time. */
static void exact_layer_scalar(const cp_layer *L, const float *p, const float *x, float *y,
                               int batch)
{
    const float *w = p + L->w_off;
    for (int b = 0; b < batch; ++b) {
        const float *xr = x + (size_t)b * (size_t)L->in;
        float *yr = y + (size_t)b * (size_t)L->out;
        for (int o = 0; o < L->out; ++o) {
            const float *wr = w + (size_t)o * (size_t)L->in;
            float acc = 0.0f;
            for (int k = 0; k < L->in; ++k)
                acc = fmaf(xr[k], wr[k], acc);
            if (L->has_bias)
                acc = acc + p[L->b_off + (size_t)o];
            float r = L->act == CP_ACT_RELU ? cp_relu(acc) : acc;
            yr[o] = L->residual ? xr[o] + r : r;
        }
    }
}

/* exact_store and exact_tile for float (host:exact's forward and host:exact's training) and
 * double (host:f64's training): exact_store_f32, exact_tile_f32, exact_store_f64, ... */
#define T float
#define FMA fmaf
#define SFX _f32
#include "exact_tile_tmpl.h"
#undef T
#undef FMA
#undef SFX
#define T double
#define FMA fma
#define SFX _f64
#include "exact_tile_tmpl.h"
#undef T
#undef FMA
#undef SFX

/* Defines NAME(L, p, wp, x, y, r0, r1, p0, p1) with attributes ATTR: rows [r0, r1) × panels
 * [p0, p1) of one layer through TILE, in chunks of EXACT_CHUNK panels (512 KiB of weights at
 * K = 1024) that stay in cache while every row passes over them: MAXR (8 or 4), MAXR / 2,
 * MAXR / 4 or 1 rows at a time with MAXR / rows panels each (MAXR panel-rows of chains in
 * flight), then one panel at a time for the rest of the chunk. The shape of a tile changes no
 * bit: each output is its own chain. */
#define EXACT_UNIT(ATTR, NAME, TILE, MAXR, T)                                                      \
    ATTR static void NAME(const cp_layer *L, const T *p, const T *wp, const T *x, T *y, int r0,    \
                          int r1, int p0, int p1)                                                  \
    {                                                                                              \
        const int K = L->in;                                                                       \
        for (int c0 = p0; c0 < p1; c0 += EXACT_CHUNK) {                                            \
            int c1 = c0 + EXACT_CHUNK < p1 ? c0 + EXACT_CHUNK : p1;                                \
            for (int r = r0; r < r1;) {                                                            \
                int R = r1 - r >= (MAXR)       ? (MAXR)                                            \
                        : r1 - r >= (MAXR) / 2 ? (MAXR) / 2                                        \
                        : r1 - r >= (MAXR) / 4 ? (MAXR) / 4                                        \
                                               : 1;                                                \
                const T *xr = x + (size_t)r * (size_t)K;                                           \
                T *yr = y + (size_t)r * (size_t)L->out;                                            \
                for (int pn = c0; pn < c1;) {                                                      \
                    const T *w = wp + (size_t)pn * (size_t)K * XP;                                 \
                    int full = pn + (MAXR) / R <= c1; /* MAXR / R panels left, else one */         \
                    if (R == (MAXR))                                                               \
                        TILE(L, p, w, K, xr, yr, pn *XP, (MAXR), 1);                               \
                    else if (R == (MAXR) / 2 && full)                                              \
                        TILE(L, p, w, K, xr, yr, pn *XP, (MAXR) / 2, 2);                           \
                    else if (R == (MAXR) / 4 && full)                                              \
                        TILE(L, p, w, K, xr, yr, pn *XP, (MAXR) / 4, 4);                           \
                    else if (R == 1 && full)                                                       \
                        TILE(L, p, w, K, xr, yr, pn *XP, 1, (MAXR));                               \
                    else if (R == (MAXR) / 2)                                                      \
                        TILE(L, p, w, K, xr, yr, pn *XP, (MAXR) / 2, 1);                           \
                    else if (R == (MAXR) / 4)                                                      \
                        TILE(L, p, w, K, xr, yr, pn *XP, (MAXR) / 4, 1);                           \
                    else                                                                           \
                        TILE(L, p, w, K, xr, yr, pn *XP, 1, 1);                                    \
                    pn += full ? (MAXR) / R : 1;                                                   \
                }                                                                                  \
                r += R;                                                                            \
            }                                                                                      \
        }                                                                                          \
    }

/* The portable loop (exact_tile) at each instruction-set level: plain C for the baseline
 * x86-64 (or any other CPU; fmaf is a library call there), and compiled for AVX2 + FMA and
 * for AVX-512 F (CLPARITY_HOST_EXACT=generic). Every variant gives the same bits, since fmaf
 * is correctly rounded either way and the build has -ffp-contract=off. */
EXACT_UNIT(, exact_unit, exact_tile_f32, 8, float)
EXACT_UNIT(, exact_unit_f64, exact_tile_f64, 8, double)

#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_EXACT_ISA 1
EXACT_UNIT(__attribute__((target("avx2,fma"))), exact_unit_avx2, exact_tile_f32, 8, float)
EXACT_UNIT(__attribute__((target("avx512f"))), exact_unit_avx512, exact_tile_f32, 8, float)
EXACT_UNIT(__attribute__((target("avx2,fma"))), exact_unit_f64_avx2, exact_tile_f64, 8, double)
EXACT_UNIT(__attribute__((target("avx512f"))), exact_unit_f64_avx512, exact_tile_f64, 8, double)

/* Whether a tile's NV panels of outputs from o0 are the sums themselves, every one inside the
 * layer: no bias, activation or residual (the training's dx and dW products), so that the
 * intrinsic tiles store their accumulators' vectors straight into y, in the order of the
 * outputs (exact_store's result, without its pass). */
static inline bool exact_plain(const cp_layer *L, int o0, int NV)
{
    return !L->has_bias && L->act == CP_ACT_NONE && !L->residual && o0 + NV * XP <= L->out;
}

/* Where a plain tile's accumulator i (of n a row, vectors of lanes outputs each) goes in y. */
static inline size_t exact_plain_at(const cp_layer *L, int o0, int i, int n, int lanes)
{
    return (size_t)(i / n) * (size_t)L->out + (size_t)(o0 + i % n * lanes);
}

/* exact_tile with AVX-512 intrinsics: GCC's vectorised exact_tile keeps its accumulators on
 * the stack, a load and a store per fma; here they stay in 8 zmm registers. Each lane is still
 * one output's fma chain (vfmadd is the correctly rounded fma of every lane). */
static inline __attribute__((always_inline, target("avx512f"))) void
exact_tile512(const cp_layer *L, const float *restrict p, const float *restrict wp, int K,
              const float *restrict x, float *restrict y, int o0, const int R, const int NV)
{
    __m512 acc[8];
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i)
        acc[i] = _mm512_setzero_ps();
    for (int k = 0; k < K; ++k) {
#pragma GCC unroll 8
        for (int j = 0; j < NV; ++j) {
            __m512 w = _mm512_loadu_ps(wp + ((size_t)j * (size_t)K + (size_t)k) * XP);
#pragma GCC unroll 8
            for (int r = 0; r < R; ++r)
                acc[r * NV + j] = _mm512_fmadd_ps(
                    _mm512_set1_ps(x[(size_t)r * (size_t)K + (size_t)k]), w, acc[r * NV + j]);
        }
    }
    if (exact_plain(L, o0, NV)) { /* the sums are the outputs: stored as they are */
#pragma GCC unroll 8
        for (int i = 0; i < R * NV; ++i)
            _mm512_storeu_ps(y + exact_plain_at(L, o0, i, NV, XP), acc[i]);
        return;
    }
    float out[8 * XP];
#pragma GCC unroll 8
    for (int i = 0; i < R * NV; ++i)
        _mm512_storeu_ps(out + i * XP, acc[i]);
    exact_store_f32(L, p, out, x, y, o0, R, NV);
}

/* The same with AVX2 + FMA: a panel of XP = 16 outputs is two ymm vectors, so a tile holds
 * R · NV ≤ 4 panel-rows, 8 ymm accumulators (of 16 registers: the weights and the broadcast
 * row value need the rest). Each lane is one output's fma chain, as above. */
static inline __attribute__((always_inline, target("avx2,fma"))) void
exact_tile256(const cp_layer *L, const float *restrict p, const float *restrict wp, int K,
              const float *restrict x, float *restrict y, int o0, const int R, const int NV)
{
    __m256 acc[8];
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i)
        acc[i] = _mm256_setzero_ps();
    for (int k = 0; k < K; ++k) {
#pragma GCC unroll 4
        for (int j = 0; j < NV; ++j) {
            const float *wk = wp + ((size_t)j * (size_t)K + (size_t)k) * XP;
            __m256 w0 = _mm256_loadu_ps(wk), w1 = _mm256_loadu_ps(wk + 8);
#pragma GCC unroll 4
            for (int r = 0; r < R; ++r) {
                __m256 a = _mm256_broadcast_ss(x + (size_t)r * (size_t)K + (size_t)k);
                acc[2 * (r * NV + j)] = _mm256_fmadd_ps(a, w0, acc[2 * (r * NV + j)]);
                acc[2 * (r * NV + j) + 1] = _mm256_fmadd_ps(a, w1, acc[2 * (r * NV + j) + 1]);
            }
        }
    }
    if (exact_plain(L, o0, NV)) { /* the sums are the outputs: stored as they are */
#pragma GCC unroll 8
        for (int i = 0; i < 2 * R * NV; ++i)
            _mm256_storeu_ps(y + exact_plain_at(L, o0, i, 2 * NV, 8), acc[i]);
        return;
    }
    float out[4 * XP];
#pragma GCC unroll 8
    for (int i = 0; i < 2 * R * NV; ++i)
        _mm256_storeu_ps(out + i * 8, acc[i]);
    exact_store_f32(L, p, out, x, y, o0, R, NV);
}

/* exact_tile512 in double (host:f64's training): a panel of XP = 16 outputs is two zmm
 * vectors of 8 doubles, so a tile holds R · NV <= 8 panel-rows, 16 zmm accumulators (of 32).
 * Each lane is one output's fma chain, as above. */
static inline __attribute__((always_inline, target("avx512f"))) void
exact_tile512_f64(const cp_layer *L, const double *restrict p, const double *restrict wp, int K,
                  const double *restrict x, double *restrict y, int o0, const int R, const int NV)
{
    __m512d acc[16];
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i)
        acc[i] = _mm512_setzero_pd();
    for (int k = 0; k < K; ++k) {
#pragma GCC unroll 8
        for (int j = 0; j < NV; ++j) {
            const double *wk = wp + ((size_t)j * (size_t)K + (size_t)k) * XP;
            __m512d w0 = _mm512_loadu_pd(wk), w1 = _mm512_loadu_pd(wk + 8);
#pragma GCC unroll 8
            for (int r = 0; r < R; ++r) {
                __m512d a = _mm512_set1_pd(x[(size_t)r * (size_t)K + (size_t)k]);
                acc[2 * (r * NV + j)] = _mm512_fmadd_pd(a, w0, acc[2 * (r * NV + j)]);
                acc[2 * (r * NV + j) + 1] = _mm512_fmadd_pd(a, w1, acc[2 * (r * NV + j) + 1]);
            }
        }
    }
    if (exact_plain(L, o0, NV)) { /* the sums are the outputs: stored as they are */
#pragma GCC unroll 16
        for (int i = 0; i < 2 * R * NV; ++i)
            _mm512_storeu_pd(y + exact_plain_at(L, o0, i, 2 * NV, 8), acc[i]);
        return;
    }
    double out[8 * XP];
#pragma GCC unroll 16
    for (int i = 0; i < 2 * R * NV; ++i)
        _mm512_storeu_pd(out + i * 8, acc[i]);
    exact_store_f64(L, p, out, x, y, o0, R, NV);
}

EXACT_UNIT(__attribute__((target("avx512f"))), exact_unit512, exact_tile512, 8, float)
EXACT_UNIT(__attribute__((target("avx512f"))), exact_unit512_f64, exact_tile512_f64, 8, double)
EXACT_UNIT(__attribute__((target("avx2,fma"))), exact_unit256, exact_tile256, 4, float)

/* host:exact's products in the batch's lanes (host:exact's training step, hostblas/train_par.c's
 * q->lanes): out[b][o] (+ bias[o]) = one fma chain from 0 over the terms k ascending of
 * xt[k][b]·w[o·wo + k·wk], for rows [r0, r1) (16 a vector, 8 in double) and outputs [o0, o1), each
 * lane a row of the batch, W read in place and xt the operand transposed [K, batch]. A tile is 6
 * outputs × up to 4 vectors of rows (24 accumulators): at each k 4 loads of xt and one broadcast of
 * W an output. The terms go in blocks of kb, the partial sums kept in a scratch between blocks (a
 * float stored and loaded is the same float: the chain is unchanged), so that the W lines of a
 * block stay in cache from one tile to the next where W's rows (dx's terms) are 4 KiB apart
 * (docs/PERFORMANCE.md, 2026-12-01: dx at d=1024 42 GFLOP/s unblocked, 53 in blocks of 256, one
 * core). Each output's bits are host:exact's, whatever the lanes: the forward's panels' tile
 * and dx's both sum from 0 over k ascending. Written once and specialised by the two callers
 * below (constant strides), in float and in double. */
#define EXACT_LANE_OUTS 6
#define EXACT_LANE_AHEAD                                                                           \
    8 /* dx: W's rows prefetched this far ahead (4 KiB apart: no hardware prefetch) */
#define EXACT_LANE_CHUNK (8 * EXACT_LANE_OUTS) /* outputs through one scratch */
#define EXACT_LANES(NAME, T, V, VL, LOADU, SET1, FMADD, SETZERO, STOREU)                           \
    __attribute__((target("avx512f"), always_inline)) static inline void NAME(                     \
        const T *w, size_t wo, size_t wk, const T *bias, const T *xt, T *z, int batch, int K,      \
        size_t zs, int r0, int r1, int o0, int o1, int kb)                                         \
    {                                                                                              \
        V sc[EXACT_LANE_CHUNK][4];                                                                 \
        for (int b0 = r0; b0 < r1; b0 += 4 * VL) {                                                 \
            const int nv = (r1 - b0) / VL < 4 ? (r1 - b0) / VL : 4;                                \
            const T *xc = xt + b0;                                                                 \
            for (int oc = o0; oc < o1; oc += EXACT_LANE_CHUNK) {                                   \
                const int oe = o1 - oc < EXACT_LANE_CHUNK ? o1 : oc + EXACT_LANE_CHUNK;            \
                for (int k0 = 0; k0 < K; k0 += kb) {                                               \
                    const int k1 = K - k0 < kb ? K : k0 + kb;                                      \
                    for (int oo = oc; oo < oe; oo += EXACT_LANE_OUTS) {                            \
                        const int R = oe - oo < EXACT_LANE_OUTS ? oe - oo : EXACT_LANE_OUTS;       \
                        V acc[EXACT_LANE_OUTS][4];                                                 \
                        const T *wr[EXACT_LANE_OUTS];                                              \
                        for (int r = 0; r < EXACT_LANE_OUTS; ++r) {                                \
                            for (int v = 0; v < 4; ++v)                                            \
                                acc[r][v] = k0 ? sc[oo - oc + (r < R ? r : 0)][v] : SETZERO();     \
                            wr[r] = w + (size_t)(oo + (r < R ? r : 0)) * wo; /* past R: unused */  \
                        }                                                                          \
                        if (nv == 4)                                                               \
                            for (int k = k0; k < k1; ++k) {                                        \
                                if (wk != 1 && oo == oc) { /* the chunk's lines, rows ahead */     \
                                    const T *pf =                                                  \
                                        w + (size_t)oc * wo + (size_t)(k + EXACT_LANE_AHEAD) * wk; \
                                    for (size_t c = 0; c <= EXACT_LANE_CHUNK * sizeof(T); c += 64) \
                                        __builtin_prefetch((const char *)pf + c, 0, 3);            \
                                }                                                                  \
                                const T *xk = xc + (size_t)k * (size_t)batch;                      \
                                V x0 = LOADU(xk), x1 = LOADU(xk + VL);                             \
                                V x2 = LOADU(xk + 2 * VL), x3 = LOADU(xk + 3 * VL);                \
                                for (int r = 0; r < EXACT_LANE_OUTS; ++r) {                        \
                                    V wv = SET1(wr[r][(size_t)k * wk]);                            \
                                    acc[r][0] = FMADD(x0, wv, acc[r][0]);                          \
                                    acc[r][1] = FMADD(x1, wv, acc[r][1]);                          \
                                    acc[r][2] = FMADD(x2, wv, acc[r][2]);                          \
                                    acc[r][3] = FMADD(x3, wv, acc[r][3]);                          \
                                }                                                                  \
                            }                                                                      \
                        else                                                                       \
                            for (int k = k0; k < k1; ++k)                                          \
                                for (int v = 0; v < nv; ++v) {                                     \
                                    V xv = LOADU(xc + (size_t)k * (size_t)batch + VL * v);         \
                                    for (int r = 0; r < EXACT_LANE_OUTS; ++r)                      \
                                        acc[r][v] =                                                \
                                            FMADD(xv, SET1(wr[r][(size_t)k * wk]), acc[r][v]);     \
                                }                                                                  \
                        if (k1 < K) {                                                              \
                            for (int r = 0; r < R; ++r)                                            \
                                for (int v = 0; v < 4; ++v)                                        \
                                    sc[oo - oc + r][v] = acc[r][v];                                \
                            continue;                                                              \
                        }                                                                          \
                        T lane[VL];                                                                \
                        for (int r = 0; r < R; ++r)                                                \
                            for (int v = 0; v < nv; ++v) {                                         \
                                STOREU(lane, acc[r][v]);                                           \
                                for (int i = 0; i < VL; ++i)                                       \
                                    z[(size_t)(b0 + VL * v + i) * zs + (size_t)(oo + r)] =         \
                                        bias ? lane[i] + bias[oo + r] : lane[i];                   \
                            }                                                                      \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }
EXACT_LANES(exact_lanes512_f32, float, __m512, 16, _mm512_loadu_ps, _mm512_set1_ps, _mm512_fmadd_ps,
            _mm512_setzero_ps, _mm512_storeu_ps)
EXACT_LANES(exact_lanes512_f64, double, __m512d, 8, _mm512_loadu_pd, _mm512_set1_pd,
            _mm512_fmadd_pd, _mm512_setzero_pd, _mm512_storeu_pd)

/* The forward: z = x·Wᵀ (+ bias), W's rows in place (k ascending along a row). */
__attribute__((target("avx512f"))) void exact_fwd_lanes512(const float *w, const float *bias,
                                                           const float *xt, float *z, int batch,
                                                           int in, int out, int r0, int r1, int o0,
                                                           int o1)
{
    exact_lanes512_f32(w, (size_t)in, 1, bias, xt, z, batch, in, (size_t)out, r0, r1, o0, o1, in);
}

/* The input gradient: dx = dz·W, W's columns in place (its terms `in` apart), dzt = dzᵀ
 * [out, batch], outputs [k0, k1) of W's columns; terms in blocks of 256 rows of W. */
__attribute__((target("avx512f"))) void exact_dx_lanes512(const float *w, const float *dzt,
                                                          float *dx, int batch, int in, int out,
                                                          int r0, int r1, int k0, int k1)
{
    exact_lanes512_f32(w, 1, (size_t)in, NULL, dzt, dx, batch, out, (size_t)in, r0, r1, k0, k1,
                       256);
}

/* The same two in double (host:f64's step): 8 rows a vector. */
__attribute__((target("avx512f"))) void exact_fwd_lanes512_f64(const double *w, const double *bias,
                                                               const double *xt, double *z,
                                                               int batch, int in, int out, int r0,
                                                               int r1, int o0, int o1)
{
    exact_lanes512_f64(w, (size_t)in, 1, bias, xt, z, batch, in, (size_t)out, r0, r1, o0, o1, in);
}

__attribute__((target("avx512f"))) void exact_dx_lanes512_f64(const double *w, const double *dzt,
                                                              double *dx, int batch, int in,
                                                              int out, int r0, int r1, int k0,
                                                              int k1)
{
    exact_lanes512_f64(w, 1, (size_t)in, NULL, dzt, dx, batch, out, (size_t)in, r0, r1, k0, k1,
                       256);
}
#endif

static const char *const isa_words[ISA_N] = {"avx512", "avx2", "baseline"};

/* Whether this CPU (and its OS, which must save the vector registers) runs level isa: by the
 * instruction set that the level's code is compiled for, never by the CPU's model. */
bool isa_has(int isa)
{
#ifdef HAVE_EXACT_ISA
    __builtin_cpu_init();
    if (isa == ISA_AVX512)
        return __builtin_cpu_supports("avx512f");
    if (isa == ISA_AVX2)
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
    return isa == ISA_BASELINE;
}

/* The levels this CPU has, widest first, into has ("avx2, baseline"). */
static void isa_list(char *has, size_t len)
{
    has[0] = '\0';
    for (int i = 0; i < ISA_N; ++i)
        if (isa_has(i))
            snprintf(has + strlen(has), len - strlen(has), "%s%s", has[0] ? ", " : "",
                     isa_words[i]);
}

/* host:exact's level: CLPARITY_HOST_ISA where this CPU has it, else the widest this CPU has.
 * A level the CPU lacks, or a word that is no level, is a usage error; the former names the
 * levels this CPU has. */
int exact_isa(int *isa)
{
    int forced;
    *isa = ISA_BASELINE;
    int st = host_env_word("CLPARITY_HOST_ISA", isa_words, ISA_N, &forced);
    if (st != CP_OK)
        return st;
    if (forced >= 0 && !isa_has(forced)) {
        char has[64];
        isa_list(has, sizeof has);
        return cp_err_set(
            CP_FAIL_USAGE, "CLPARITY_HOST_ISA: this CPU lacks '%s' (%s); its levels are %s",
            isa_words[forced], forced == ISA_AVX512 ? "AVX-512 F" : "AVX2 and FMA", has);
    }
    for (int i = ISA_N - 1; i >= 0; --i)
        if (forced < 0 ? isa_has(i) : i == forced)
            *isa = i; /* the widest the CPU has is the last one found */
    return CP_OK;
}

/* The unit host:exact runs at level isa: the intrinsics kernel, or with generic the portable
 * loop compiled for that level. */
exact_unit_fn exact_unit_for(int isa, bool generic)
{
#ifdef HAVE_EXACT_ISA
    if (isa == ISA_AVX512)
        return generic ? exact_unit_avx512 : exact_unit512;
    if (isa == ISA_AVX2)
        return generic ? exact_unit_avx2 : exact_unit256;
#else
    (void)isa;
    (void)generic;
#endif
    return exact_unit;
}

/* The double unit at level isa (host:f64's training): the AVX-512 intrinsics kernel, else (and
 * with generic) the portable loop compiled for the level. */
exact_unit_f64_fn exact_unit_f64_for(int isa, bool generic)
{
#ifdef HAVE_EXACT_ISA
    if (isa == ISA_AVX512)
        return generic ? exact_unit_f64_avx512 : exact_unit512_f64;
    if (isa == ISA_AVX2)
        return exact_unit_f64_avx2;
#else
    (void)isa;
    (void)generic;
#endif
    return exact_unit_f64;
}

/* How a layer splits into units for threads: blocks of 8 rows × groups of 8 / rows panels. */
static void exact_units(const cp_layer *L, int batch, long *row_blocks, long *chunks)
{
    *row_blocks = (batch + 7) / 8;
    *chunks = ((long)exact_panels(L) + EXACT_CHUNK - 1) / EXACT_CHUNK;
}

/* Thread id of n: units [U·id/n, U·(id+1)/n) of layer l, a unit being a chunk of panels × a
 * block of 8 rows, chunk major: a thread streams its chunks of the weights once. Each run of
 * units in one chunk is one call of run (host:exact's and host:cr's). */
void host_units(cp_engine *e, int l, int batch, int id, int n, unit_run_fn run)
{
    struct host_state *s = e->state;
    const cp_layer *L = &e->model->layers[l];
    float *y = s->act[(l + 1) % 2];
    long rb, pc;
    exact_units(L, batch, &rb, &pc);
    long u0 = rb * pc * id / n, u1 = rb * pc * (id + 1) / n;
    int panels = (int)exact_panels(L);
    for (long u = u0; u < u1;) {
        /* the run of units in one chunk, as one call */
        long c = u / rb, end = (c + 1) * rb < u1 ? (c + 1) * rb : u1;
        int p0 = (int)(c * EXACT_CHUNK), p1 = p0 + EXACT_CHUNK < panels ? p0 + EXACT_CHUNK : panels;
        int r0 = (int)((u - c * rb) * 8), r1 = (int)((end - c * rb) * 8);
        r1 = r1 < batch ? r1 : batch;
        run(e, l, r0, r1, p0, p1);
        if (u == u0)
            host_corrupt(e, l, id, n, y + (size_t)r0 * (size_t)L->out + (size_t)p0 * XP);
        u = end;
    }
}

void exact_run_units(long u0, long u1, long rb, int rblk, int chunk, int rows, int panels,
                     void (*run)(void *arg, int r0, int r1, int p0, int p1), void *arg)
{
    for (long u = u0; u < u1;) {
        long c = u / rb, end = (c + 1) * rb < u1 ? (c + 1) * rb : u1;
        int p0 = (int)c * chunk, r0 = (int)(u - c * rb) * rblk, r1 = (int)(end - c * rb) * rblk;
        run(arg, r0, r1 < rows ? r1 : rows, p0, p0 + chunk < panels ? p0 + chunk : panels);
        u = end;
    }
}

void exact_share(int rows, int panels, int id, int n,
                 void (*run)(void *arg, int r0, int r1, int p0, int p1), void *arg)
{
    long rb = (rows + 7) / 8, pc = (panels + EXACT_CHUNK - 1) / EXACT_CHUNK;
    exact_run_units(rb * pc * id / n, rb * pc * (id + 1) / n, rb, 8, EXACT_CHUNK, rows, panels, run,
                    arg);
}

static void exact_run(cp_engine *e, int l, int r0, int r1, int p0, int p1)
{
    struct host_state *s = e->state;
    const cp_model *m = e->model;
    s->unit(&m->layers[l], m->params, s->packed + s->pack_off[l], s->act[l % 2],
            s->act[(l + 1) % 2], r0, r1, p0, p1);
}

static void exact_layer(cp_engine *e, int l, int batch, int id, int n)
{
    struct host_state *s = e->state;
    if (s->scalar)
        exact_layer_scalar(&e->model->layers[l], e->model->params, s->act[l % 2],
                           s->act[(l + 1) % 2], batch);
    else
        host_units(e, l, batch, id, n, exact_run);
}

/* The panels of every layer (host:exact's and host:cr's), padded with zero outputs. */
int exact_pack(cp_engine *e, struct host_state *s)
{
    const cp_model *m = e->model;
    s->pack_off = calloc((size_t)m->n_layers + 1, sizeof *s->pack_off);
    if (!s->pack_off)
        return cp_err_set(CP_FAIL_RUNTIME, "%s: out of memory", e->info->name);
    for (int l = 0; l < m->n_layers; ++l)
        s->pack_off[l + 1] =
            s->pack_off[l] + exact_panels(&m->layers[l]) * XP * (size_t)m->layers[l].in;
    size_t total = s->pack_off[m->n_layers];
    s->packed = malloc((total ? total : 1) * sizeof *s->packed);
    if (!s->packed)
        return cp_err_set(CP_FAIL_RUNTIME,
                          "%s: out of memory for the packed weights "
                          "(%zu bytes)",
                          e->info->name, total * sizeof *s->packed);
    for (int l = 0; l < m->n_layers; ++l) {
        const cp_layer *L = &m->layers[l];
        const float *w = m->params + L->w_off;
        float *dst = s->packed + s->pack_off[l];
        for (size_t o = 0; o < exact_panels(L) * XP; ++o)
            for (int k = 0; k < L->in; ++k)
                dst[((o / XP) * (size_t)L->in + (size_t)k) * XP + o % XP] =
                    o < (size_t)L->out ? w[o * (size_t)L->in + (size_t)k] : 0.0f;
    }
    return CP_OK;
}

/* Threads per layer for a forward of batch rows: one per EXACT_MACS_PER_THREAD multiply-adds,
 * at most one per unit and max; one everywhere for the scalar loops. */
void exact_plan(cp_engine *e, int batch, int max)
{
    struct host_state *s = e->state;
    for (int l = 0; l < e->model->n_layers; ++l) {
        long rb, pc;
        exact_units(&e->model->layers[l], batch, &rb, &pc);
        s->threads[l] = s->scalar ? 1
                                  : layer_threads(&e->model->layers[l], batch,
                                                  EXACT_MACS_PER_THREAD, rb * pc, max);
    }
}

/* The threads of each layer at max_batch and the pool they share (host:exact's, host:cr's). */
int exact_pool(cp_engine *e, struct host_state *s, int max_batch)
{
    int n;
    int st = host_max_threads(&n);
    if (st != CP_OK)
        return st;
    exact_plan(e, max_batch, n);
    return host_pool_create(e, s, n);
}

static int exact_create(cp_engine *e, const cp_device *dev, const cp_model *m, int max_batch)
{
    (void)dev;
    (void)m;
    int st = host_alloc(e, sizeof(float), false);
    if (st != CP_OK)
        return st;
    struct host_state *s = e->state;
    /* CLPARITY_HOST_EXACT: "scalar" (the reference loop) or "generic" (the portable loop at
     * the level, not its intrinsics kernel), for the tests that compare the loops. */
    static const char *const modes[] = {"scalar", "generic"};
    int mode;
    st = host_env_word("CLPARITY_HOST_EXACT", modes, 2, &mode);
    if (st != CP_OK)
        return st;
    s->scalar = mode == 0;
    int isa;
    st = exact_isa(&isa);
    if (st != CP_OK)
        return st;
    s->unit = exact_unit_for(isa, mode == 1);
    snprintf(e->routine, sizeof e->routine, "C fmaf chains (%s)",
             mode == 0   ? "scalar"
             : mode == 1 ? "generic"
                         : isa_words[isa]);
    s->corrupt = cp_test_hook("corrupt-exact");
    if (s->scalar)
        return CP_OK;
    double t0 = cp_now();
    st = exact_pack(e, s);
    if (st != CP_OK)
        return st;
    e->upload_s = cp_now() - t0;
    return exact_pool(e, s, max_batch);
}

static int exact_forward(cp_engine *e, const float *x, int batch, void *y, cp_timing *t)
{
    exact_plan(e, batch, ((struct host_state *)e->state)->max_threads);
    host_forward_f32(e, exact_layer, x, batch, y, t);
    return CP_OK;
}

static void host_about(cp_host_about *a);

const struct cp_engine_ops cp_engine_ops_host_exact = {
    .create = exact_create, .forward = exact_forward, .destroy = host_destroy, .about = host_about};

/* host:exact's cp_host_about_get: the pool, its pinning, host:exact's level (each setting's
 * error, if any, said in the field, never left in the error message). */
static void host_about(cp_host_about *a)
{
    int n, isa;
    bool pin;
    a->pool_threads = host_max_threads(&n) == CP_OK ? n : 0;
    a->pool_pin = pool_pin_wanted(&pin) == CP_OK ? pin : -1;
    const char *env = getenv("CLPARITY_HOST_ISA");
    a->isa_forced = env && env[0];
    isa_list(a->isa_levels, sizeof a->isa_levels);
    a->isa = exact_isa(&isa) == CP_OK ? isa_words[isa] : NULL;
    if (!a->isa)
        snprintf(a->isa_error, sizeof a->isa_error, "%s", cp_err_msg());
}
