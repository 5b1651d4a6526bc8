/* cl:own's backward in pairs (train_cl_tile.c), included by train.cl after the tiled kernels:
 * one launch runs layer l − 1's dx (blocks of R1: train_tile.cl's tr_dx_b<R1>) beside layer
 * l's weight gradient and update (tr_gw_b<R2>). The two touch no common memory that either
 * writes: the dx reads W_{l−1}, which layer l − 1's weight gradient updates only in the next
 * launch, reads g_{l−1} and z_{l−1} and writes g_{l−2}; the weight gradient reads g_l, z_l and
 * x_l and writes W_l (or G, and adam's state, of layer l). The three gradients live in three
 * buffers (g_l in buffer (L − 1 − l) mod 3). Every block is the tiled kernels' own body, so
 * every output's sum is theirs; the launch only halves the backward's launches, and gives the
 * device both products' blocks at once. Work-groups of 16×16, one dimension of them: the dx's
 * blocks first (dx_cols to a row of blocks, dx_groups in all), then the weight gradient's
 * (gw_cols to a row). TR_PAIRS: the pairs built, bit 3·i(R1) + i(R2), i(1, 4, 8) = 0, 1, 2. */
#define TR_PMAX(a, b) ((a) > (b) ? (a) : (b))
#define TR_PAIR(R1, R2)                                                                            \
    __kernel __attribute__((reqd_work_group_size(16, 16, 1))) void tr_bwd_p##R1##R2(               \
        __global const float *restrict g, __global const float *restrict zs, ulong dz_off,        \
        __global const float *restrict p, ulong dw_off, __global float *restrict dx, int din,     \
        int dout, int batch, int dact, int dres, __global const float *restrict gg,               \
        ulong gz_off, __global const float *restrict acts, ulong gx_off,                          \
        __global float *restrict dst, ulong gw_off, ulong gb_off, int gin, int gout, int gact,    \
        int ghb, int update, float neg_lr, __global float *restrict ms,                           \
        __global float *restrict vs, __global const float *restrict sc, int dx_cols,              \
        int dx_groups, int gw_cols)                                                                \
    {                                                                                              \
        __local float4 As4[TR_PMAX(tr_local##R1, tr_local##R2) / 4],                               \
            Bs4[TR_PMAX(tr_local##R1, tr_local##R2) / 4];                                          \
        __local float *As = (__local float *)As4, *Bs = (__local float *)Bs4;                      \
        const int v = (int)get_group_id(0);                                                        \
        const int lid = (int)(get_local_id(1) * 16 + get_local_id(0));                            \
        if (v < dx_groups) {                                                                       \
            tr_dx_b##R1(v / dx_cols * 16 * R1, v % dx_cols * 16 * R1, lid, As, Bs, g, zs, dz_off, \
                        p, dw_off, dx, din, dout, batch, dact, dres);                              \
        } else {                                                                                   \
            const int u = v - dx_groups;                                                           \
            tr_gw_b##R2(u / gw_cols * 16 * R2, u % gw_cols * 16 * R2, lid, As, Bs, gg, zs, gz_off, \
                        acts, gx_off, dst, gw_off, gb_off, gin, gout, batch, gact, ghb, update,    \
                        neg_lr, ms, vs, sc);                                                       \
        }                                                                                          \
    }
#if TR_PAIRS & (1 << 0)
TR_PAIR(1, 1)
#endif
#if TR_PAIRS & (1 << 1)
TR_PAIR(1, 4)
#endif
#if TR_PAIRS & (1 << 2)
TR_PAIR(1, 8)
#endif
#if TR_PAIRS & (1 << 3)
TR_PAIR(4, 1)
#endif
#if TR_PAIRS & (1 << 4)
TR_PAIR(4, 4)
#endif
#if TR_PAIRS & (1 << 5)
TR_PAIR(4, 8)
#endif
#if TR_PAIRS & (1 << 6)
TR_PAIR(8, 1)
#endif
#if TR_PAIRS & (1 << 7)
TR_PAIR(8, 4)
#endif
#if TR_PAIRS & (1 << 8)
TR_PAIR(8, 8)
#endif
#undef TR_PAIR
#undef TR_PMAX
