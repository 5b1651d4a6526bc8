/* cl:own's tiled training products (CLPARITY_TRAIN_KERNELS: auto on GPUs), included three
 * times by train.cl: TR_RM 1 (16×16 outputs per work-group, for small grids), TR_RM 4 (64×64,
 * each work-item a 4×4 block) and TR_RM 8 (128×128, 8×8; for large grids), with TR_SFX
 * naming the kernels. Each output's sum is the simple kernels' one: from 0, k ascending, one
 * TR_MAC per term; the tiles only stage the operands in local memory. Terms past the end are
 * never added (fma(0, 0, −0) is +0). Fused where the simple kernels take a pass of their own:
 * the ReLU mask (dz = z > 0 ? g : 0) is applied as the gradient is loaded, and the bias
 * gradient is the weight gradient's column `in`, whose operand is 1: fma(dz, 1, acc) is
 * RN(dz + acc), tr_gb's acc + dz. Work-groups are 16×16. */
#define TR_WG 16
/* The operands' pointer type. The one-launch step (TR_VOLATILE) reads what other work-groups of
 * the same launch wrote (activations, gradients): past any cache that is not coherent across
 * compute units, as own_stream.cl's cp_act_rd (on the H200, plain loads there gave stale
 * values and weights that differ from the tiled kernels'). */
#ifdef TR_VOLATILE
#define TR_RD volatile __global const float *
#else
#define TR_RD __global const float *
#endif
/* k per tile: deeper where the block is small, so that fewer tiles (each a wait for memory
 * and two barriers) cover K: 64 for 16×16 outputs, 32 for 64×64, 16 for 128×128 (local
 * memory: 8.7, 17.4 and 16.9 KB) */
#if TR_RM == 1
#define TR_TK 64
#elif TR_RM == 4
#define TR_TK 32
#else
#define TR_TK 16
#endif
#define TR_TM (TR_WG * TR_RM)
/* The tiles in local memory; the products read them as float4, so a row is 16-byte aligned.
 * With one output per work-item, A's row i (B's column j) holds its TR_TK terms k-contiguous,
 * TR_TK + 4 floats apart (a quarter-warp's float4 reads then meet 8 distinct bank groups), and a
 * work-item reads 4 terms of its row and of its column at once. With 4 × 4 or 8 × 8, a row holds
 * one k, TR_TM + 4 floats apart, and each work-item's outputs are runs of 4 adjacent rows and
 * columns (TR_POS), as cp_gemm_tiled4's (own_gemm.cl). TR_IX(i, k): where row (or column) i's
 * term k is. */
#if TR_RM == 1
#define TR_LS (TR_TK + 4)
#define TR_IX(i, k) ((i) * TR_LS + (k))
#define TR_POS(l, r) (l)
#else
#define TR_LS (TR_TM + 4)
#define TR_IX(i, k) ((k) * TR_LS + (i))
#define TR_POS(l, r) (((r) / 4) * (TR_WG * 4) + 4 * (l) + (r) % 4)
#endif
/* local memory per tile buffer, in floats (TR_TM rows of TR_TK, padded) */
#define TR_LOCAL (TR_RM == 1 ? TR_TM * TR_LS : TR_TK * TR_LS)
/* each work-item's share of a tile of A and of B */
#define TR_E (TR_TM * TR_TK / (TR_WG * TR_WG))
#define TR_CAT2(a, b) a##b
#define TR_CAT(a, b) TR_CAT2(a, b)
#define TR_N(name) TR_CAT(name, TR_SFX)

/* Each work-item's share of a tile of A (and of B) is TR_Q quads: 4 consecutive elements along
 * the operand's unit stride (k where A is k-contiguous, sak 1, else A's rows; B's columns where
 * sbj is 1, else k), quad u = lid + t·256 of the tile, so that consecutive work-items read
 * consecutive addresses. TR_AR(u), TR_AK(u): the row and k of A's quad u's first element;
 * TR_BJ(u), TR_BK(u): B's column and k. Component c lies c elements further along the stride. */
#define TR_Q (TR_E / 4)
#define TR_QK (TR_TK / 4)
#define TR_QM (TR_TM / 4)
#define TR_AR(u) (sak == 1 ? (u) / TR_QK : 4 * ((u) % TR_QM))
#define TR_AK(u) (sak == 1 ? 4 * ((u) % TR_QK) : (u) / TR_QM)
#define TR_BJ(u) (sbj == 1 ? 4 * ((u) % TR_QM) : (u) / TR_QK)
#define TR_BK(u) (sbj == 1 ? (u) / TR_QM : 4 * ((u) % TR_QK))
#ifdef TR_VOLATILE
#define TR_RD4 volatile __global const float4 *
#else
#define TR_RD4 __global const float4 *
#endif
#define TR_PUT4(arr, t, v)                                                                         \
    do {                                                                                           \
        const float4 v_ = (v);                                                                     \
        (arr)[4 * (t)] = v_.s0;                                                                    \
        (arr)[4 * (t) + 1] = v_.s1;                                                                \
        (arr)[4 * (t) + 2] = v_.s2;                                                                \
        (arr)[4 * (t) + 3] = v_.s3;                                                                \
    } while (0)

/* The loads of the tiles at k0 into registers (pa, pz: A and its z where act, pb: B; element
 * 4t + c is quad t's component c), issued together; the values are only used by tr_stage, after
 * the current tile's products, so that the loads are in flight while those run. Past the ends:
 * A 0 (z 1), B 0. */
void TR_N(tr_fetch)(int M, int N, int K, TR_RD a, int sai, int sak, TR_RD z, int act, TR_RD bm,
                    int sbk, int sbj,
                    int nb, int i0, int j0, int k0, int lid, float *pa, float *pz, float *pb)
{
    /* a tile wholly inside both operands (every tile of a product whose sizes are multiples of
     * the block and of TR_TK) is loaded as float4 quads without a test per element, where each
     * operand has a unit stride, its other stride and its start are multiples of 4 floats (so
     * every quad is 16-byte aligned: the tile's first row, column and k are multiples of 4);
     * nb <= N, so the tile's columns are B's own (none is the bias's column of ones) */
    if (i0 + TR_TM <= M && k0 + TR_TK <= K && j0 + TR_TM <= nb && (sak == 1 || sai == 1) &&
        (sbj == 1 || sbk == 1) && (((sak == 1 ? sai : sak) | (sbj == 1 ? sbk : sbj)) & 3) == 0 &&
        (((uintptr_t)a | (act ? (uintptr_t)z : 0) | (uintptr_t)bm) & 15) == 0) {
        #pragma unroll
        for (int t = 0; t < TR_Q; ++t) {
            const int u = lid + t * TR_WG * TR_WG;
            const size_t at = (size_t)(i0 + TR_AR(u)) * (size_t)sai +
                              (size_t)(k0 + TR_AK(u)) * (size_t)sak;
            TR_PUT4(pa, t, *(TR_RD4)(a + at));
            TR_PUT4(pz, t, act ? *(TR_RD4)(z + at) : (float4)(1.0f));
            TR_PUT4(pb, t, *(TR_RD4)(bm + (size_t)(k0 + TR_BK(u)) * (size_t)sbk +
                                     (size_t)(j0 + TR_BJ(u)) * (size_t)sbj));
        }
        return;
    }
    #pragma unroll
    for (int t = 0; t < TR_Q; ++t) {
        const int u = lid + t * TR_WG * TR_WG;
        #pragma unroll
        for (int c = 0; c < 4; ++c) {
            const int e = 4 * t + c;
            int i = i0 + TR_AR(u) + (sak == 1 ? 0 : c), k = k0 + TR_AK(u) + (sak == 1 ? c : 0);
            pa[e] = 0.0f;
            pz[e] = 1.0f;
            if (i < M && k < K) {
                size_t at = (size_t)i * (size_t)sai + (size_t)k * (size_t)sak;
                pa[e] = a[at];
                if (act)
                    pz[e] = z[at];
            }
            const int j = j0 + TR_BJ(u) + (sbj == 1 ? c : 0);
            k = k0 + TR_BK(u) + (sbj == 1 ? 0 : c);
            pb[e] = 0.0f;
            if (j < N && k < K)
                pb[e] = j < nb ? bm[(size_t)k * (size_t)sbk + (size_t)j * (size_t)sbj] : 1.0f;
        }
    }
}

/* The fetched tiles into local memory, A masked by z > 0 (the ReLU's mask): a quad that runs
 * along the local tile's contiguous direction (k with 16×16 blocks, the rows otherwise) as one
 * float4 store, else as four */
#if TR_RM == 1
#define TR_LK 1
#else
#define TR_LK 0
#endif
void TR_N(tr_stage)(int sak, int sbj, int lid, const float *pa, const float *pz,
                    const float *pb, __local float *As, __local float *Bs)
{
    #pragma unroll
    for (int t = 0; t < TR_Q; ++t) {
        const int u = lid + t * TR_WG * TR_WG;
        float av[4];
        #pragma unroll
        for (int c = 0; c < 4; ++c)
            av[c] = pz[4 * t + c] > 0.0f ? pa[4 * t + c] : 0.0f;
        const int ar = TR_AR(u), ak = TR_AK(u), bj = TR_BJ(u), bk = TR_BK(u);
        if ((sak == 1) == TR_LK) {
            *(__local float4 *)(As + TR_IX(ar, ak)) = (float4)(av[0], av[1], av[2], av[3]);
        } else {
            #pragma unroll
            for (int c = 0; c < 4; ++c)
                As[TR_IX(ar + (sak == 1 ? 0 : c), ak + (sak == 1 ? c : 0))] = av[c];
        }
        if ((sbj == 1) != TR_LK) {
            *(__local float4 *)(Bs + TR_IX(bj, bk)) =
                (float4)(pb[4 * t], pb[4 * t + 1], pb[4 * t + 2], pb[4 * t + 3]);
        } else {
            #pragma unroll
            for (int c = 0; c < 4; ++c)
                Bs[TR_IX(bj + (sbj == 1 ? c : 0), bk + (sbj == 1 ? 0 : c))] = pb[4 * t + c];
        }
    }
}
#undef TR_LK

/* term kk of the tile for each of the work-item's outputs */
void TR_N(tr_macs)(__local const float *As, __local const float *Bs, int kk, int lx, int ly,
                   float (*acc)[TR_RM])
{
    float av[TR_RM], bv[TR_RM];
#if TR_RM == 1
    av[0] = As[TR_IX(ly, kk)];
    bv[0] = Bs[TR_IX(lx, kk)];
#else
    /* rows TR_POS(ly, r) and columns TR_POS(lx, c): float4 h holds 4h to 4h + 3 */
    __local const float4 *a4 = (__local const float4 *)(As + kk * TR_LS);
    __local const float4 *b4 = (__local const float4 *)(Bs + kk * TR_LS);
    #pragma unroll
    for (int h = 0; h < TR_RM / 4; ++h) {
        const float4 a = a4[h * TR_WG + ly], b = b4[h * TR_WG + lx];
        av[4 * h] = a.s0;
        av[4 * h + 1] = a.s1;
        av[4 * h + 2] = a.s2;
        av[4 * h + 3] = a.s3;
        bv[4 * h] = b.s0;
        bv[4 * h + 1] = b.s1;
        bv[4 * h + 2] = b.s2;
        bv[4 * h + 3] = b.s3;
    }
#endif
    #pragma unroll
    for (int r = 0; r < TR_RM; ++r)
        #pragma unroll
        for (int c = 0; c < TR_RM; ++c)
            acc[r][c] = TR_MAC(av[r], bv[c], acc[r][c]);
}

#if TR_RM == 1
/* terms kk to kk + 3 (kk a multiple of 4) of the one output, in that order */
void TR_N(tr_macs4)(__local const float *As, __local const float *Bs, int kk, int lx, int ly,
                    float (*acc)[TR_RM])
{
    const float4 a = *(__local const float4 *)(As + TR_IX(ly, kk));
    const float4 b = *(__local const float4 *)(Bs + TR_IX(lx, kk));
    acc[0][0] = TR_MAC(a.s0, b.s0, acc[0][0]);
    acc[0][0] = TR_MAC(a.s1, b.s1, acc[0][0]);
    acc[0][0] = TR_MAC(a.s2, b.s2, acc[0][0]);
    acc[0][0] = TR_MAC(a.s3, b.s3, acc[0][0]);
}
#endif

/* The tile loop of work-item lid (lx = lid % 16, ly = lid / 16) of the block whose first row
 * and column are i0 and j0: acc[r][c] for row i0 + TR_POS(ly, r), column j0 + TR_POS(lx, c)
 * of the M×N product Σ_k A(i, k)·B(k, j). A(i, k) = a[i·sai + k·sak], masked by z > 0 where act; B(k, j) =
 * b[k·sbk + j·sbj] for j < nb, else 1. The next tile's loads are issued before the current
 * tile's products (registers, one buffer of local memory). */
void TR_N(tr_tile)(int M, int N, int K, TR_RD a, int sai, int sak, TR_RD z, int act, TR_RD bm,
                   int sbk, int sbj, int nb, int i0, int j0, int lid, __local float *As, __local float *Bs,
                   float (*acc)[TR_RM])
{
    const int lx = lid % TR_WG, ly = lid / TR_WG;
    #pragma unroll
    for (int r = 0; r < TR_RM; ++r)
        #pragma unroll
        for (int c = 0; c < TR_RM; ++c)
            acc[r][c] = 0.0f;
    float pa[TR_E], pz[TR_E], pb[TR_E];
    TR_N(tr_fetch)(M, N, K, a, sai, sak, z, act, bm, sbk, sbj, nb, i0, j0, 0, lid, pa, pz, pb);
    for (int k0 = 0; k0 < K; k0 += TR_TK) {
        const int kn = min(TR_TK, K - k0);
        TR_N(tr_stage)(sak, sbj, lid, pa, pz, pb, As, Bs);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (k0 + TR_TK < K)
            TR_N(tr_fetch)(M, N, K, a, sai, sak, z, act, bm, sbk, sbj, nb, i0, j0, k0 + TR_TK,
                           lid, pa, pz, pb);
        if (kn == TR_TK) {
#if TR_RM == 1
            #pragma unroll 4
            for (int kk = 0; kk < TR_TK; kk += 4)
                TR_N(tr_macs4)(As, Bs, kk, lx, ly, acc);
#else
            #pragma unroll 8
            for (int kk = 0; kk < TR_TK; ++kk)
                TR_N(tr_macs)(As, Bs, kk, lx, ly, acc);
#endif
        } else {
            for (int kk = 0; kk < kn; ++kk)
                TR_N(tr_macs)(As, Bs, kk, lx, ly, acc);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#ifdef TR_TILE_PLANT
    /* test hooks train-tile-plant-1, -4 and -8: the first output of every kernel of that
     * block one ULP up */
    if (TR_TILE_PLANT == TR_RM && i0 == 0 && j0 == 0 && lid == 0 && K > 0)
        acc[0][0] = nextafter(acc[0][0], INFINITY);
#endif
}

/* The bodies of the three kernels below, for the block at (i0, j0) (rows, columns) and
 * work-item lid of 256: the kernels pass their group's, the one-launch step (train_stream.cl)
 * each block of a phase in turn. Their pointers carry no restrict: in the one-launch step the
 * weights, activations and gradients that one phase reads, another writes. */

/* tr_forward's outputs: z = Σ_k fma(x, W) + bias; y = (residual ? x : 0) + act(z). */
void TR_N(tr_fwd_b)(int i0, int j0, int lid, __local float *As, __local float *Bs,
                    TR_RD acts_in, ulong x_off, __global float *acts_out, ulong y_off,
                    __global float *zs, ulong z_off, TR_RD p, ulong w_off, int in, int out,
                    int batch, int has_bias, ulong b_off, int act,
                    int residual)
{
    float acc[TR_RM][TR_RM];
    TR_RD x = acts_in + x_off;
    TR_N(tr_tile)(batch, out, in, x, in, 1, x, 0, p + w_off, 1, in, out, i0, j0, lid, As, Bs, acc);
    #pragma unroll
    for (int r = 0; r < TR_RM; ++r)
        #pragma unroll
        for (int c = 0; c < TR_RM; ++c) {
            size_t b = (size_t)(i0 + TR_POS(lid / TR_WG, r));
            size_t o = (size_t)(j0 + TR_POS(lid % TR_WG, c));
            if (b >= (size_t)batch || o >= (size_t)out)
                continue;
            float v = acc[r][c];
            if (has_bias)
                v = v + p[b_off + o];
            zs[z_off + b * (size_t)out + o] = v;
            float y = act ? tr_relu(v) : v;
            acts_out[y_off + b * (size_t)out + o] = residual ? x[b * (size_t)in + o] + y : y;
        }
}

/* tr_dz and tr_dx in one: dx[b][k] = Σ_o fma(dz[b][o], W[o][k]) (+ g[b][k] for a residual),
 * dz masked as it is loaded. Runs before the layer's weight update. */
void TR_N(tr_dx_b)(int i0, int j0, int lid, __local float *As, __local float *Bs,
                   TR_RD g, TR_RD zs, ulong z_off, TR_RD p, ulong w_off, __global float *dx,
                   int in, int out,
                   int batch, int act, int residual)
{
    float acc[TR_RM][TR_RM];
    TR_N(tr_tile)(batch, in, out, g, out, 1, zs + z_off, act, p + w_off, in, 1, in, i0, j0, lid,
                  As, Bs, acc);
    #pragma unroll
    for (int r = 0; r < TR_RM; ++r)
        #pragma unroll
        for (int c = 0; c < TR_RM; ++c) {
            size_t b = (size_t)(i0 + TR_POS(lid / TR_WG, r));
            size_t k = (size_t)(j0 + TR_POS(lid % TR_WG, c));
            if (b >= (size_t)batch || k >= (size_t)in)
                continue;
            float v = acc[r][c];
            if (residual)
                v = v + g[b * (size_t)out + k];
            dx[b * (size_t)in + k] = v;
        }
}

/* tr_dz, tr_grad_w and tr_grad_b in one: gW[o][k] = Σ_b fma(dz[b][o], x[b][k]), and column
 * `in` (has_bias) the bias's Σ_b dz[b][o]; then (update) 0: gW into G (dst), 1: plain SGD's
 * W = fma(−lr, gW, W) (tr_update_w, tr_update_b), 2: adam's or adamw's update of W (dst) with
 * state ms, vs (tr_opt_adam's, fused: the gradient never stored), whose scalars sc holds as
 * floats: decay_on, decoupled, wd, decay, w1, beta2, c2, bc2_sqrt, eps, nss, plant. */
void TR_N(tr_gw_b)(int i0, int j0, int lid, __local float *As, __local float *Bs,
                   TR_RD g, TR_RD zs, ulong z_off, TR_RD acts, ulong x_off, __global float *dst,
                   ulong w_off,
                   ulong b_off, int in, int out, int batch, int act, int has_bias, int update,
                   float neg_lr, __global float *ms, __global float *vs,
                   __global const float *sc)
{
    float acc[TR_RM][TR_RM];
    const int n = in + (has_bias ? 1 : 0);
    TR_N(tr_tile)(out, n, batch, g, 1, out, zs + z_off, act, acts + x_off, in, 1, in, i0, j0, lid,
                  As, Bs, acc);
#pragma unroll
    for (int r = 0; r < TR_RM; ++r)
#pragma unroll
        for (int c = 0; c < TR_RM; ++c) {
            size_t o = (size_t)(i0 + TR_POS(lid / TR_WG, r));
            size_t k = (size_t)(j0 + TR_POS(lid % TR_WG, c));
            if (o >= (size_t)out || k >= (size_t)n)
                continue;
            size_t i = k < (size_t)in ? w_off + o * (size_t)in + k : b_off + o;
            if (update == 2)
                tr_adam_one(dst, acc[r][c], ms, vs, i, (int)sc[0], (int)sc[1], sc[2], sc[3], sc[4],
                            sc[5], sc[6], sc[7], sc[8], sc[9], (int)sc[10]);
            else
                dst[i] = update ? tr_fma(neg_lr, acc[r][c], dst[i]) : acc[r][c];
        }
}

/* The kernels: a work-group of 16×16 per block (none where the one-launch step includes the
 * bodies: TR_NO_KERNELS). */
#ifndef TR_NO_KERNELS
#define TR_I0 ((int)get_group_id(1) * TR_TM)
#define TR_J0 ((int)get_group_id(0) * TR_TM)
#define TR_LID ((int)(get_local_id(1) * TR_WG + get_local_id(0)))

__kernel __attribute__((reqd_work_group_size(TR_WG, TR_WG, 1))) void
TR_N(tr_fwd_t)(__global const float *acts_in, ulong x_off, __global float *acts_out, ulong y_off,
               __global float *restrict zs, ulong z_off, __global const float *restrict p,
               ulong w_off, int in, int out, int batch, int has_bias, ulong b_off, int act,
               int residual)
{
    __local float4 As4[TR_LOCAL / 4], Bs4[TR_LOCAL / 4];
    __local float *As = (__local float *)As4, *Bs = (__local float *)Bs4;
    TR_N(tr_fwd_b)(TR_I0, TR_J0, TR_LID, As, Bs, acts_in, x_off, acts_out, y_off, zs, z_off, p,
                   w_off, in, out, batch, has_bias, b_off, act, residual);
}

__kernel __attribute__((reqd_work_group_size(TR_WG, TR_WG, 1))) void
TR_N(tr_dx_t)(__global const float *restrict g, __global const float *restrict zs, ulong z_off,
              __global const float *restrict p, ulong w_off, __global float *restrict dx, int in,
              int out, int batch, int act, int residual)
{
    __local float4 As4[TR_LOCAL / 4], Bs4[TR_LOCAL / 4];
    __local float *As = (__local float *)As4, *Bs = (__local float *)Bs4;
    TR_N(tr_dx_b)(TR_I0, TR_J0, TR_LID, As, Bs, g, zs, z_off, p, w_off, dx, in, out, batch, act,
                  residual);
}

__kernel __attribute__((reqd_work_group_size(TR_WG, TR_WG, 1))) void
TR_N(tr_gw_t)(__global const float *restrict g, __global const float *restrict zs, ulong z_off,
              __global const float *restrict acts, ulong x_off, __global float *restrict dst,
              ulong w_off, ulong b_off, int in, int out, int batch, int act, int has_bias,
              int update, float neg_lr, __global float *restrict ms, __global float *restrict vs,
              __global const float *restrict sc)
{
    __local float4 As4[TR_LOCAL / 4], Bs4[TR_LOCAL / 4];
    __local float *As = (__local float *)As4, *Bs = (__local float *)Bs4;
    TR_N(tr_gw_b)(TR_I0, TR_J0, TR_LID, As, Bs, g, zs, z_off, acts, x_off, dst, w_off, b_off, in,
                  out, batch, act, has_bias, update, neg_lr, ms, vs, sc);
}

#undef TR_I0
#undef TR_J0
#undef TR_LID
#endif
#undef TR_WG
#undef TR_RD
#undef TR_TK
#undef TR_TM
#undef TR_LS
#undef TR_IX
#undef TR_LOCAL
#undef TR_POS
#undef TR_E
#undef TR_Q
#undef TR_QK
#undef TR_QM
#undef TR_RD4
#undef TR_PUT4
#undef TR_AR
#undef TR_AK
#undef TR_BJ
#undef TR_BK
#undef TR_CAT2
#undef TR_CAT
#undef TR_N
