/* The register tile of cl:own's CPU kernels, shared by own_cpu.cl (cp_cpu_block),
 * own_gemm.cl (cp_gemm_vec) and train_cpu.cl (training's three products), which include it (runtime/engine/program.c expands the line
 * `#include "reg_tile.cl"`) after mac.cl and after setting CP_VW, CP_NV and CP_RB. CP_RB rows
 * × CP_NV vectors of CP_VW adjacent outputs stay in registers; the weights come packed in
 * panels of CP_NR = CP_VW·CP_NV outputs, Wp[n / CP_NR][k][n % CP_NR], so that at each k a
 * work-item loads CP_NV adjacent vectors. Each output is one fma chain (CP_MAC) from 0.0f, k
 * ascending; the includer adds bias, activation and residual. */
#define CP_NR (CP_VW * CP_NV) /* columns per work-item: the width of a packed panel */
#define CP_VEC_(n) float##n
#define CP_VEC(n) CP_VEC_(n)
#define CP_VLOAD_(n) vload##n
#define CP_VLOAD(n) CP_VLOAD_(n)
#define CP_VSTORE_(n) vstore##n
#define CP_VSTORE(n) CP_VSTORE_(n)
typedef CP_VEC(CP_VW) cp_vec;

/* out[r * CP_NR + c] = the sum over k < K of xr[r][k · xs] · wp[k · ldw + c], for the CP_RB
 * rows xr and the CP_NR columns at wp, rows of B ldw floats apart. The sums are copied out so
 * that the includer's epilogue runs in loops that are not unrolled: it is a small part of the
 * time, and unrolled it multiplied PoCL's compile time. With CP_TILE_PARTIAL (train_cpu.cl,
 * whose operands are not packed), columns from nn on (nn < CP_NR) are read as zeros, never
 * from memory; without it every column is read. */
#ifdef CP_TILE_PARTIAL
cp_vec cp_vload_part(__global const float *p, int cnt)
{
    if (cnt >= CP_VW)
        return CP_VLOAD(CP_VW)(0, p);
    float t[CP_VW];
    for (int c = 0; c < CP_VW; ++c)
        t[c] = c < cnt ? p[c] : 0.0f;
    return CP_VLOAD(CP_VW)(0, t);
}
#endif

void cp_reg_tile_ld(__global const float *xr[CP_RB], int xs, __global const float *restrict wp,
                    int ldw, int nn, int K, float out[CP_RB * CP_NR])
{
    cp_vec acc[CP_RB][CP_NV];
#pragma unroll
    for (int r = 0; r < CP_RB; ++r)
#pragma unroll
        for (int j = 0; j < CP_NV; ++j)
            acc[r][j] = (cp_vec)(0.0f);
    if (nn >= CP_NR) {
        for (int k = 0; k < K; ++k) {
            cp_vec w[CP_NV];
#pragma unroll
            for (int j = 0; j < CP_NV; ++j)
                w[j] = CP_VLOAD(CP_VW)(0, wp + (size_t)k * (size_t)ldw + j * CP_VW);
#pragma unroll
            for (int r = 0; r < CP_RB; ++r) {
                const cp_vec a = (cp_vec)(xr[r][(size_t)k * (size_t)xs]);
#pragma unroll
                for (int j = 0; j < CP_NV; ++j)
                    acc[r][j] = CP_MAC(a, w[j], acc[r][j]);
            }
        }
    }
#ifdef CP_TILE_PARTIAL
    else {
        for (int k = 0; k < K; ++k) {
            cp_vec w[CP_NV];
#pragma unroll
            for (int j = 0; j < CP_NV; ++j)
                w[j] = cp_vload_part(wp + (size_t)k * (size_t)ldw + j * CP_VW, nn - j * CP_VW);
#pragma unroll
            for (int r = 0; r < CP_RB; ++r) {
                const cp_vec a = (cp_vec)(xr[r][(size_t)k * (size_t)xs]);
#pragma unroll
                for (int j = 0; j < CP_NV; ++j)
                    acc[r][j] = CP_MAC(a, w[j], acc[r][j]);
            }
        }
    }
#endif
#pragma unroll
    for (int r = 0; r < CP_RB; ++r)
#pragma unroll
        for (int j = 0; j < CP_NV; ++j)
            CP_VSTORE(CP_VW)(acc[r][j], r * CP_NV + j, out);
}

/* The packed panels of the forward: terms adjacent, the panel's rows CP_NR floats apart. */
void cp_reg_tile(__global const float *xr[CP_RB], __global const float *restrict wp, int K,
                 float out[CP_RB * CP_NR])
{
    cp_reg_tile_ld(xr, 1, wp, CP_NR, CP_NR, K, out);
}
