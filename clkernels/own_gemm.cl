/* cl:own for large layers: y = epilogue(x · Wᵀ) as a tiled GEMM, one launch per layer.
 * M = batch rows, N = out, K = in. Every output is still one sum, k ascending from 0.0f with
 * one fma per term, then bias, activation and residual in cl:own's order: tiling changes which
 * work-item holds an accumulator and where its operands come from, never the order in which
 * the terms are added. That is why this kernel gives host:exact's bits.
 *
 * cp_gemm_tiled (GPUs): a CP_BM × CP_BN block of outputs per work-group, CP_TM × CP_TN per
 * work-item in registers, CP_BK-deep tiles of x and W staged through local memory.
 * cp_gemm_vec (CPUs, PoCL): no local memory; each work-item keeps CP_RB rows × CP_VW outputs
 * in vector registers and streams the transposed weights Wt[k][n] (padded to ldw columns). */
#pragma OPENCL FP_CONTRACT OFF

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

float cp_epi(float acc, int flags, float bias, float xo)
{
    if (flags & 1)
        acc = acc + bias;
    float r = (flags & 2) ? ((acc <= 0.0f) ? 0.0f : acc) : acc;
    return (flags & 4) ? xo + r : r;
}

__kernel __attribute__((reqd_work_group_size(CP_WX, CP_WY, 1))) void
cp_gemm_tiled(__global const float *restrict x, __global float *restrict y,
              __global const float *restrict p, ulong w_off, ulong b_off, int M, int N, int K,
              int flags)
{
    __local float as[CP_BK][CP_BM + 4];
    __local float bs[CP_BK][CP_BN + 4];
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
                    acc[i][j] = fma(a[i], b[j], acc[i][j]);
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
            y[(size_t)gm * (size_t)N + (size_t)gn] = cp_epi(acc[i][j], flags, bias, xo);
        }
    }
}

#ifndef CP_VW
#define CP_VW 8 /* vector width along n: 8 for AVX2, 16 for AVX-512 */
#endif
#ifndef CP_RB
#define CP_RB 8 /* rows per work-item */
#endif
#define CP_VEC_(n) float##n
#define CP_VEC(n) CP_VEC_(n)
#define CP_VLOAD_(n) vload##n
#define CP_VLOAD(n) CP_VLOAD_(n)
#define CP_VSTORE_(n) vstore##n
#define CP_VSTORE(n) CP_VSTORE_(n)
typedef CP_VEC(CP_VW) cp_vec;

__kernel void cp_gemm_vec(__global const float *restrict x, __global float *restrict y,
                          __global const float *restrict p, __global const float *restrict wt,
                          ulong wt_off, int ldw, ulong b_off, int M, int N, int K, int flags)
{
    const int n0 = (int)get_global_id(0) * CP_VW;
    const int m0 = (int)get_global_id(1) * CP_RB;
    if (n0 >= N || m0 >= M)
        return;
    __global const float *xr[CP_RB];
    for (int r = 0; r < CP_RB; ++r) /* rows past M repeat the last one; never stored */
        xr[r] = x + (size_t)min(m0 + r, M - 1) * (size_t)K;
    cp_vec acc[CP_RB];
    for (int r = 0; r < CP_RB; ++r)
        acc[r] = (cp_vec)(0.0f);
    __global const float *wk = wt + wt_off + (size_t)n0;
    for (int k = 0; k < K; ++k) {
        const cp_vec w = CP_VLOAD(CP_VW)(0, wk + (size_t)k * (size_t)ldw);
        for (int r = 0; r < CP_RB; ++r)
            acc[r] = fma((cp_vec)(xr[r][k]), w, acc[r]);
    }
    for (int r = 0; r < CP_RB && m0 + r < M; ++r) {
        float v[CP_VW];
        CP_VSTORE(CP_VW)(acc[r], 0, v);
        for (int j = 0; j < CP_VW && n0 + j < N; ++j) {
            const int gn = n0 + j;
            const float bias = (flags & 1) ? p[b_off + (size_t)gn] : 0.0f;
            const float xo = (flags & 4) ? xr[r][gn] : 0.0f;
            y[(size_t)(m0 + r) * (size_t)N + (size_t)gn] = cp_epi(v[j], flags, bias, xo);
        }
    }
}
