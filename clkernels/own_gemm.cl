/* cl:own for large layers: y = epilogue(x · Wᵀ) as a tiled GEMM, one launch per layer.
 * M = batch rows, N = out, K = in. Every output is still one sum, k ascending from 0.0f with
 * one fma per term, then bias, activation and residual in cl:own's order: tiling changes which
 * work-item holds an accumulator and where its operands come from, never the order in which
 * the terms are added. That is why this kernel gives host:exact's bits.
 *
 * cp_gemm_tiled (GPUs): a CP_BM × CP_BN block of outputs per work-group, CP_TM × CP_TN per
 * work-item in registers, CP_BK-deep tiles of x and W staged through local memory.
 * cp_gemm_vec (CPUs, PoCL): no local memory; each work-item keeps CP_RB rows × CP_NV vectors of
 * CP_VW outputs in registers and streams its panel of the packed weights (below). */
#pragma OPENCL FP_CONTRACT OFF

#include "mac.cl"
#ifndef CP_PLANT_MASK /* the bit a test hook flips: kernel-bit the last, relaxed-wrong a high one */
#define CP_PLANT_MASK 1u
#endif

#ifndef CP_BM
#define CP_BM 128
#endif
#ifndef CP_BN
#define CP_BN 128
#endif
#ifndef CP_BK
#define CP_BK 16
#endif
#ifndef CP_TM
#define CP_TM 8
#endif
#ifndef CP_TN
#define CP_TN 8
#endif
#define CP_WX (CP_BN / CP_TN) /* work-items along n */
#define CP_WY (CP_BM / CP_TM) /* work-items along m */
#define CP_NT (CP_WX * CP_WY)

#ifdef CP_PLANT_BIT /* test hook kernel-bit:tiled or :vec: one flipped bit of one output */
#define CP_PLANT(v, at) ((at) ? as_float(as_uint(v) ^ CP_PLANT_MASK) : (v))
#else
#define CP_PLANT(v, at) (v)
#endif

float cp_epi(float acc, int flags, float bias, float xo)
{
    if (flags & 1)
        acc = acc + bias;
    float r = (flags & 2) ? ((acc <= 0.0f) ? 0.0f : acc) : acc;
    return (flags & 4) ? xo + r : r;
}

#if !defined(CP_KERNELS) || defined(CP_K_cp_gemm_tiled)
__kernel __attribute__((reqd_work_group_size(CP_WX, CP_WY, 1))) void
cp_gemm_tiled(__global const float *restrict x, __global float *restrict y,
              __global const float *restrict p, ulong w_off, ulong b_off, int M, int N, int K,
              int flags, __local float (*as)[CP_BM + 4], __local float (*bs)[CP_BN + 4])
{
    /* The tiles are arguments (CP_BK rows each), so that local memory is taken per launch,
     * not for every kernel of the program at once (Oclgrind counts it that way). */
    const int tx = (int)get_local_id(0), ty = (int)get_local_id(1);
    const int tid = ty * CP_WX + tx;
    const int m0 = (int)get_group_id(1) * CP_BM, n0 = (int)get_group_id(0) * CP_BN;
    __global const float *w = p + w_off;
    float acc[CP_TM][CP_TN];
    for (int i = 0; i < CP_TM; ++i)
        for (int j = 0; j < CP_TN; ++j)
            acc[i][j] = 0.0f;
    for (int k0 = 0; k0 < K; k0 += CP_BK) {
        const int kt = min(CP_BK, K - k0);
        /* Stage x[m0.., k0..] and W[n0.., k0..] transposed into as[k][m] and bs[k][n];
         * out-of-range elements become 0 and are never used (the k loop stops at kt). */
        for (int e = tid; e < CP_BM * CP_BK; e += CP_NT) {
            const int mm = e / CP_BK, kk = e % CP_BK;
            const int gm = m0 + mm, gk = k0 + kk;
            as[kk][mm] = (gm < M && gk < K) ? x[(size_t)gm * (size_t)K + (size_t)gk] : 0.0f;
        }
        for (int e = tid; e < CP_BN * CP_BK; e += CP_NT) {
            const int nn = e / CP_BK, kk = e % CP_BK;
            const int gn = n0 + nn, gk = k0 + kk;
            bs[kk][nn] = (gn < N && gk < K) ? w[(size_t)gn * (size_t)K + (size_t)gk] : 0.0f;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < kt; ++k) {
            float a[CP_TM], b[CP_TN];
            for (int i = 0; i < CP_TM; ++i)
                a[i] = as[k][ty * CP_TM + i];
            for (int j = 0; j < CP_TN; ++j)
                b[j] = bs[k][tx * CP_TN + j];
            for (int i = 0; i < CP_TM; ++i)
                for (int j = 0; j < CP_TN; ++j)
                    acc[i][j] = CP_MAC(a[i], b[j], acc[i][j]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int i = 0; i < CP_TM; ++i) {
        const int gm = m0 + ty * CP_TM + i;
        if (gm >= M)
            continue;
        for (int j = 0; j < CP_TN; ++j) {
            const int gn = n0 + tx * CP_TN + j;
            if (gn >= N)
                continue;
            const float bias = (flags & 1) ? p[b_off + (size_t)gn] : 0.0f;
            const float xo = (flags & 4) ? x[(size_t)gm * (size_t)K + (size_t)gn] : 0.0f;
            y[(size_t)gm * (size_t)N + (size_t)gn] =
                CP_PLANT(cp_epi(acc[i][j], flags, bias, xo), gm == 0 && gn == 0);
        }
    }
}
#endif

#ifndef CP_VW
#define CP_VW 8 /* vector width along n: 8 for AVX2, 16 for AVX-512 */
#endif
#ifndef CP_NV
#define CP_NV 1 /* vectors along n per work-item */
#endif
#ifndef CP_RB
#define CP_RB 8 /* rows per register tile */
#endif
#include "reg_tile.cl"

/* cp_gemm_vec: work-item (g0, g1) computes columns g0·CP_NR.. (one panel) of rows g1·mc..
 * (mc a multiple of CP_RB), CP_RB rows × CP_NR columns at a time in vector registers. The
 * weights come packed in panels, Wp[n / CP_NR][k][n % CP_NR] (n padded to ldw, a multiple of
 * CP_NR, the bias after them at b_off), so that a work-item streams one contiguous panel, which
 * stays in cache while all its rows pass over it. Each output is one fma chain from 0.0f, k
 * ascending, then cp_epi. */
#if !defined(CP_KERNELS) || defined(CP_K_cp_gemm_vec)
__kernel void cp_gemm_vec(__global const float *restrict x, __global float *restrict y,
                          __global const float *restrict p, __global const float *restrict wt,
                          ulong wt_off, int ldw, ulong b_off, int M, int N, int K, int flags,
                          int mc)
{
    const int pn = (int)get_global_id(0);
    const int n0 = pn * CP_NR;
    const int mb = (int)get_global_id(1) * mc;
    if (n0 >= N || mb >= M)
        return;
    (void)ldw;
    const int me = min(mb + mc, M);
    __global const float *wp = wt + wt_off + (size_t)pn * (size_t)K * CP_NR;
    for (int m0 = mb; m0 < me; m0 += CP_RB) {
        __global const float *xr[CP_RB];
#pragma unroll
        for (int r = 0; r < CP_RB; ++r) /* rows past M repeat the last one; never stored */
            xr[r] = x + (size_t)min(m0 + r, M - 1) * (size_t)K;
        float out[CP_RB * CP_NR];
        cp_reg_tile(xr, wp, K, out);
        const int nn = min(CP_NR, N - n0);
#pragma unroll 1
        for (int r = 0; r < CP_RB && m0 + r < M; ++r) {
            __global float *yr = y + (size_t)(m0 + r) * (size_t)N + n0;
#pragma unroll 1
            for (int c = 0; c < nn; ++c) {
                const float bias = (flags & 1) ? p[b_off + (size_t)(n0 + c)] : 0.0f;
                const float xo = (flags & 4) ? xr[r][n0 + c] : 0.0f;
                yr[c] = CP_PLANT(cp_epi(out[r * CP_NR + c], flags, bias, xo),
                                 m0 + r == 0 && n0 + c == 0);
            }
        }
    }
}
#endif

/* cp_gemm_tiled4: the tiled GEMM for K a multiple of 4 (all but odd widths), tuned for
 * GPUs. The weights come transposed, Wt[k][n] with n padded to ldw (a multiple of 4) and the
 * bias after them, so that a tile of W is copied as float4 rows, coalesced and without bank
 * conflicts; x is read as float4 along k (CP_XL chooses how lanes map to rows). The next tile is fetched into registers while
 * this one is multiplied, and each work-item's 8 × 8 outputs are split in two halves 64
 * apart (rows and columns), so that its float4 reads from local memory are contiguous across
 * work-items. Fixed shape: 128 × 128 outputs per work-group of 16 × 16, tiles CP_BK4 deep (16
 * or 32), with CP_DB two tile buffers in local memory instead of one. Each output is still
 * one fma chain, k ascending. */
#ifndef CP_BK4
#define CP_BK4 16
#endif
#ifndef CP_DB
#define CP_DB 0
#endif
#define CP_LQ (CP_BK4 / 4)     /* float4 quads per row of the x tile */
#define CP_LROWS (256 / CP_LQ) /* rows of x one pass of the 256 work-items loads */
#define CP_LPASS (128 / CP_LROWS)
#define CP_WPASS (CP_BK4 / 8) /* passes over the W tile: 8 k-rows of 32 float4 each */
#ifndef CP_XL
#define CP_XL 0
#endif
/* Which row and k-quad of the x tile work-item t loads: CP_XL 0 puts the CP_LQ quads of a
 * row on neighbouring lanes (coalesced reads, CP_LQ-way bank conflicts on the transposed
 * stores); CP_XL 1 gives each lane its own row (conflict-free stores, scattered reads). */
/* The row stride of the x tile in local memory: CP_XP floats of padding after each 128 (4
 * keeps float4 alignment and turns the 4-way bank conflicts of CP_XL 0's transposed stores
 * into 2-way). */
#ifndef CP_XP
#define CP_XP 0
#endif
#define CP_AS (128 + CP_XP)
#define CP_AS4 (CP_AS / 4)
#if CP_XL
#define CP_XROW(t) ((t) % CP_LROWS)
#define CP_XQUAD(t) ((t) / CP_LROWS)
#else
#define CP_XROW(t) ((t) / CP_LQ)
#define CP_XQUAD(t) ((t) % CP_LQ)
#endif

/* Tile k0's share of work-item t: CP_LPASS float4 of x and CP_WPASS of Wt, zero outside. */
void cp_fetch4(__global const float *x, __global const float *wt, int ldw, int M, int K, int m0,
               int n0, int k0, int t, float4 *xa, float4 *wb)
{
    const int lr = CP_XROW(t), lq = CP_XQUAD(t);
    for (int h = 0; h < CP_LPASS; ++h) {
        const int gm = m0 + lr + CP_LROWS * h, gk = k0 + lq * 4;
        xa[h] = (gm < M && gk < K) ? vload4(0, x + (size_t)gm * (size_t)K + (size_t)gk)
                                   : (float4)(0.0f);
    }
    const int q = t % 32, r = t / 32;
    for (int h = 0; h < CP_WPASS; ++h) {
        const int gk = k0 + r + 8 * h, gn = n0 + 4 * q;
        wb[h] = (gk < K && gn < ldw) ? vload4(0, wt + (size_t)gk * (size_t)ldw + (size_t)gn)
                                     : (float4)(0.0f);
    }
}

/* Stores the fetched share: x transposed into as[k][m], Wt's rows as they are into bs. */
void cp_stage(__local float4 (*as4)[CP_AS4], __local float4 (*bs4)[32], int t, const float4 *xa,
              const float4 *wb)
{
    __local float *as = (__local float *)as4;
    const int lr = CP_XROW(t), lq = CP_XQUAD(t);
    for (int h = 0; h < CP_LPASS; ++h) {
        const int r = lr + CP_LROWS * h;
        as[(lq * 4 + 0) * CP_AS + r] = xa[h].s0;
        as[(lq * 4 + 1) * CP_AS + r] = xa[h].s1;
        as[(lq * 4 + 2) * CP_AS + r] = xa[h].s2;
        as[(lq * 4 + 3) * CP_AS + r] = xa[h].s3;
    }
    const int q = t % 32, r = t / 32;
    for (int h = 0; h < CP_WPASS; ++h)
        bs4[r + 8 * h][q] = wb[h];
}

/* acc += the kt k-rows of one tile, k ascending: one fma per term. */
void cp_tile_fma(__local const float4 (*as4)[CP_AS4], __local const float4 (*bs4)[32], int tx, int ty,
                 int kt, float acc[8][8])
{
    if (kt == CP_BK4) {
#pragma unroll
        for (int k = 0; k < CP_BK4; ++k) {
            const float4 a0 = as4[k][ty], a1 = as4[k][16 + ty];
            const float4 b0 = bs4[k][tx], b1 = bs4[k][16 + tx];
            const float a[8] = {a0.s0, a0.s1, a0.s2, a0.s3, a1.s0, a1.s1, a1.s2, a1.s3};
            const float b[8] = {b0.s0, b0.s1, b0.s2, b0.s3, b1.s0, b1.s1, b1.s2, b1.s3};
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j)
                    acc[i][j] = CP_MAC(a[i], b[j], acc[i][j]);
        }
        return;
    }
    for (int k = 0; k < kt; ++k) {
        const float4 a0 = as4[k][ty], a1 = as4[k][16 + ty];
        const float4 b0 = bs4[k][tx], b1 = bs4[k][16 + tx];
        const float a[8] = {a0.s0, a0.s1, a0.s2, a0.s3, a1.s0, a1.s1, a1.s2, a1.s3};
        const float b[8] = {b0.s0, b0.s1, b0.s2, b0.s3, b1.s0, b1.s1, b1.s2, b1.s3};
#pragma unroll
        for (int i = 0; i < 8; ++i)
#pragma unroll
            for (int j = 0; j < 8; ++j)
                acc[i][j] = CP_MAC(a[i], b[j], acc[i][j]);
    }
}

#if !defined(CP_KERNELS) || defined(CP_K_cp_gemm_tiled4)
__kernel __attribute__((reqd_work_group_size(16, 16, 1))) void
cp_gemm_tiled4(__global const float *restrict x, __global float *restrict y,
               __global const float *restrict wtb, int ldw, ulong bt_off, int M, int N, int K,
               int flags, __local float4 (*as4)[CP_AS4], __local float4 (*bs4)[32])
{
    /* as4[k][m / 4] and bs4[k][n / 4]: CP_BK4 rows of 128 floats each (twice that with
     * CP_DB), passed as arguments. */
    const int tx = (int)get_local_id(0), ty = (int)get_local_id(1);
    const int tid = ty * 16 + tx;
    const int m0 = (int)get_group_id(1) * 128, n0 = (int)get_group_id(0) * 128;
    float4 xa[CP_LPASS], wb[CP_WPASS];
    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j)
            acc[i][j] = 0.0f;
#ifndef CP_PF
#define CP_PF 1
#endif
#if CP_PF || CP_DB
    cp_fetch4(x, wtb, ldw, M, K, m0, n0, 0, tid, xa, wb);
#endif
#if CP_DB
    /* Double-buffered: tile t is multiplied from one half of as4/bs4 while tile t+1, already
     * in registers, is stored into the other; one barrier per tile. */
    cp_stage(as4, bs4, tid, xa, wb);
    barrier(CLK_LOCAL_MEM_FENCE);
    int buf = 0;
    for (int k0 = 0; k0 < K; k0 += CP_BK4) {
        const int kt = min(CP_BK4, K - k0);
        const bool next = k0 + CP_BK4 < K;
        if (next)
            cp_fetch4(x, wtb, ldw, M, K, m0, n0, k0 + CP_BK4, tid, xa, wb);
        cp_tile_fma(as4 + buf * CP_BK4, bs4 + buf * CP_BK4, tx, ty, kt, acc);
        if (next)
            cp_stage(as4 + (1 - buf) * CP_BK4, bs4 + (1 - buf) * CP_BK4, tid, xa, wb);
        barrier(CLK_LOCAL_MEM_FENCE);
        buf = 1 - buf;
    }
#else
    for (int k0 = 0; k0 < K; k0 += CP_BK4) {
        const int kt = min(CP_BK4, K - k0);
        barrier(CLK_LOCAL_MEM_FENCE);
#if !CP_PF
        /* CP_PF 0: no tile held in registers across the products (fewer registers, so
         * that more work-groups may share a compute unit and hide the loads instead) */
        cp_fetch4(x, wtb, ldw, M, K, m0, n0, k0, tid, xa, wb);
#endif
        cp_stage(as4, bs4, tid, xa, wb);
        barrier(CLK_LOCAL_MEM_FENCE);
#if CP_PF
        if (k0 + CP_BK4 < K) /* the next tile, in flight during the products below */
            cp_fetch4(x, wtb, ldw, M, K, m0, n0, k0 + CP_BK4, tid, xa, wb);
#endif
        cp_tile_fma(as4, bs4, tx, ty, kt, acc);
    }
#endif
    /* unrolled, so that acc stays in registers (a loop indexing it would put it on the stack) */
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const int gm = m0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + i - 4);
        if (gm >= M)
            continue;
#pragma unroll
        for (int j = 0; j < 8; ++j) {
            const int gn = n0 + (j < 4 ? tx * 4 + j : 64 + tx * 4 + j - 4);
            if (gn >= N)
                continue;
            const float bias = (flags & 1) ? wtb[bt_off + (size_t)gn] : 0.0f;
            const float xo = (flags & 4) ? x[(size_t)gm * (size_t)K + (size_t)gn] : 0.0f;
            y[(size_t)gm * (size_t)N + (size_t)gn] =
                CP_PLANT(cp_epi(acc[i][j], flags, bias, xo), gm == 0 && gn == 0);
        }
    }
}
#endif
