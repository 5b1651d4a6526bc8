/* cl:own for small batches on CPUs (PoCL): matrix-vector products that use the vector lanes.
 * Each work-item holds CP_RB rows × CP_NV vectors of CP_VW adjacent outputs in registers: every
 * lane is one output's own fma chain from 0.0f, k ascending, then bias, activation and
 * residual in cl:own's order, so the bits are host:exact's. The weights come packed in panels
 * of CP_NR = CP_VW·CP_NV outputs, Wp[n / CP_NR][k][n % CP_NR] (n padded to a multiple of CP_NR
 * with zeros, the bias after the panels), so that at each k a work-item loads CP_NV adjacent
 * vectors.
 *
 * cp_cpu_layer: one layer per launch, a work-item per panel × CP_RB rows.
 * cp_cpu_model: the whole model in one launch, a work-item per CP_RB rows, with no barrier:
 * a row's layers depend only on that row, so each work-item runs every layer of its own rows
 * (PoCL pays its launch cost once instead of once per layer). */
#pragma OPENCL FP_CONTRACT OFF

#include "mac.cl"
#ifndef CP_PLANT_MASK /* the bit a test hook flips: kernel-bit the last, relaxed-wrong a high one */
#define CP_PLANT_MASK 1u
#endif

#ifndef CP_VW
#define CP_VW 16
#endif
#ifndef CP_NV
#define CP_NV 4
#endif
#ifndef CP_RB
#define CP_RB 1
#endif
#include "reg_tile.cl"

/* Rows m0 .. m0 + CP_RB - 1 (those < M) × the panel at wp (outputs n0 .. n0 + CP_NR - 1, those
 * < N) of y = epilogue(x · Wᵀ), rows of x ldx floats apart, of y ldy. Rows past M repeat row
 * M - 1 and are never stored. */
void cp_cpu_block(__global const float *x, __global float *y, __global const float *restrict wp,
                  __global const float *restrict bias, int m0, int n0, int M, int N, int K,
                  int ldx, int ldy, int flags)
{
    __global const float *xr[CP_RB];
#pragma unroll
    for (int r = 0; r < CP_RB; ++r)
        xr[r] = x + (size_t)min(m0 + r, M - 1) * (size_t)ldx;
    float out[CP_RB * CP_NR];
    cp_reg_tile(xr, wp, K, out);
    const int nn = min(CP_NR, N - n0);
#pragma unroll 1
    for (int r = 0; r < CP_RB && m0 + r < M; ++r) {
        __global float *yr = y + (size_t)(m0 + r) * (size_t)ldy + n0;
#pragma unroll 1
        for (int c = 0; c < nn; ++c) {
            float v = out[r * CP_NR + c];
            if (flags & 1)
                v = v + bias[n0 + c];
            float rl = (flags & 2) ? ((v <= 0.0f) ? 0.0f : v) : v;
            yr[c] = (flags & 4) ? xr[r][n0 + c] + rl : rl;
        }
    }
#ifdef CP_TEST_FLIP
    /* Test hook corrupt-cpu-kernel: one flipped bit in the first output of row 0, to show that
     * the exactness tests see a one-bit error of this kernel. */
    if (m0 == 0 && n0 == 0 && M > 0 && N > 0)
        y[0] = as_float(as_uint(y[0]) ^ CP_PLANT_MASK);
#endif
}

/* One layer: work-item (panel, row block). The bias sits after the packed panels (b_off). */
#if !defined(CP_KERNELS) || defined(CP_K_cp_cpu_layer)
__kernel void cp_cpu_layer(__global const float *restrict x, __global float *restrict y,
                           __global const float *restrict wt, ulong b_off, int M, int N, int K,
                           int flags)
{
    const int pn = (int)get_global_id(0), m0 = (int)get_global_id(1) * CP_RB;
    if (pn * CP_NR >= N || m0 >= M)
        return;
    cp_cpu_block(x, y, wt + (size_t)pn * (size_t)K * CP_NR, wt + b_off, m0, pn * CP_NR, M, N, K,
                 K, N, flags);
}
#endif

/* The whole model: work-item g runs every layer for rows g·CP_RB .. . Layer 0 reads x (rows
 * ldx floats apart), layer l writes buf[l % 2] = a, b, a, ... (rows ld floats apart) and
 * reads the previous one. Every row stays at one place in each buffer through all layers, so
 * a work-item that runs ahead never writes where a slower one still reads. The layer table
 * holds 5 ints a layer: in, out, flags, the offset of the packed panels and that of the bias
 * in wt. */
#if !defined(CP_KERNELS) || defined(CP_K_cp_cpu_model)
__kernel void cp_cpu_model(__global const float *x, __global float *a,
                           __global float *b, __global const float *restrict wt,
                           __global const int *restrict desc, int n_layers, int M, int ldx, int ld)
{
    const int m0 = (int)get_global_id(0) * CP_RB;
    if (m0 >= M)
        return;
    for (int l = 0; l < n_layers; ++l) {
        const int K = desc[5 * l], N = desc[5 * l + 1], flags = desc[5 * l + 2];
        __global const float *w = wt + desc[5 * l + 3];
        __global const float *in = l == 0 ? x : (l % 2) ? a : b;
        __global float *out = (l % 2) ? b : a;
        for (int n0 = 0; n0 < N; n0 += CP_NR)
            cp_cpu_block(in, out, w + (size_t)(n0 / CP_NR) * (size_t)K * CP_NR,
                         wt + desc[5 * l + 4], m0, n0, M, N, K, l == 0 ? ldx : ld, ld, flags);
    }
}
#endif

#ifdef CP_GRID
#include "grid_sync.cl"

/* cp_cpu_grid: the whole model in one launch for batches with fewer row blocks than cores,
 * where cp_cpu_model would leave cores idle (at B = 1 it runs on one). Work-groups of one
 * work-item; those that joined (grid_sync.cl: PoCL runs a group per core) share each layer's
 * units, a panel of CP_NR outputs × CP_RB rows each, and meet at the device-wide barrier
 * between layers, instead of paying PoCL's launch cost per layer (cp_cpu_layer). Buffers and
 * layer table as cp_cpu_model's; layer l + 1 overwrites what layer l - 1 read only after the
 * barrier that ends layer l. Each output is still one chain from 0.0f, k ascending. */
#if !defined(CP_KERNELS) || defined(CP_K_cp_cpu_grid)
__kernel void cp_cpu_grid(__global const float *x, __global float *a, __global float *b,
                          __global const float *restrict wt, __global const int *restrict desc,
                          int n_layers, int M, int ldx, int ld, volatile __global int *ctl)
{
    __local int shared[4];
    const int me = cp_join(ctl, (int)get_num_groups(0), shared);
    if (me < 0)
        return;
    const int G = shared[1], blocks = (M + CP_RB - 1) / CP_RB;
    for (int l = 0; l < n_layers; ++l) {
        const int K = desc[5 * l], N = desc[5 * l + 1], flags = desc[5 * l + 2];
        __global const float *w = wt + desc[5 * l + 3];
        __global const float *in = l == 0 ? x : (l % 2) ? a : b;
        __global float *out = (l % 2) ? b : a;
        const int np = (N + CP_NR - 1) / CP_NR;
        for (int u = me; u < np * blocks; u += G) {
            const int pn = u % np, m0 = (u / np) * CP_RB;
            cp_cpu_block(in, out, w + (size_t)pn * (size_t)K * CP_NR, wt + desc[5 * l + 4], m0,
                         pn * CP_NR, M, N, K, l == 0 ? ldx : ld, ld, flags);
        }
        if (l + 1 < n_layers && !cp_grid_barrier(ctl, l, G, shared))
            return;
    }
}
#endif
#endif
