/* cl:own for GPUs at small batches and wide layers: the weights streamed at bandwidth.
 *
 * A layer's outputs are cut into tiles of CP_NO outputs × CP_RB batch rows. A work-group of
 * CP_LS work-items takes a tile at a time: all its work-items load the tile's weights,
 * CP_KC k-values per chunk, coalesced (float4 rows), into local memory, the next chunk already
 * in flight into registers; the CP_NO × CP_RB work-items that own an output run its fma chain
 * over the chunk. So far more work-items stream the weights than there are outputs, and the
 * tiles spread a layer over the whole device.
 *
 * The order of every sum is cl:own's (block.cl): k ascending from 0.0f, one fma per term, then
 * the bias as one rounded add, the activation, the residual. One work-item owns each output's
 * whole sum: parallelism comes from outputs and rows only, never from splitting a sum.
 *
 * Two ways to run the layers:
 * - CP_PERSIST undefined: one launch per layer (l1 = l0 + 1), a work-group per tile.
 * - CP_PERSIST: one launch for the whole model. The work-groups that are running at once take
 *   the tiles of each layer in turn and meet at a device-wide barrier between layers. OpenCL
 *   1.2 promises nothing about work-groups that are not running, so the launch first finds
 *   which ones are (occupancy discovery, after Sorensen et al., "Portable inter-workgroup
 *   barrier synchronisation for GPUs", OOPSLA 2016): a group joins only while the poll is
 *   open, the first group closes it once every launched group has joined or the count has
 *   stopped growing, and a group that comes later does nothing. Every group that joined was
 *   running when it joined, so the barrier waits only for groups that are running (what it
 *   assumes, with that paper, is that a running group keeps being scheduled). Of the groups
 *   that joined, those beyond the largest layer's tile count leave at once. The work is shared
 *   among the others, however many they are, and the result does not depend on it. Every wait
 *   is bounded: past CP_SPIN polls a group raises ctl[3] and all leave; the host then reports
 *   an error rather than a result.
 *
 * Layout (host: engine_cl.c, setup_stream): each layer's weights as stored, W[o][k], rows
 * padded to ldk = in rounded up to 4 (zeros), on a float4 boundary, then the bias. desc has 5
 * longs per layer: in, out, flags (1 bias, 2 relu, 4 residual), the offset of W and of the
 * bias, in floats. The activations are act[b][k] with the layer's width as row length; layer
 * l reads a0 when l is even, a1 when odd, and writes the other. */
#pragma OPENCL FP_CONTRACT OFF

#include "mac.cl"
#ifndef CP_PLANT_MASK /* the bit a test hook flips: kernel-bit the last, relaxed-wrong a high one */
#define CP_PLANT_MASK 1u
#endif

#ifndef CP_LS
#define CP_LS 256 /* work-items per group */
#endif
#ifndef CP_NO
#define CP_NO 16 /* outputs per tile */
#endif
#ifndef CP_RB
#define CP_RB 1 /* batch rows per tile; CP_NO * CP_RB <= CP_LS */
#endif
#ifndef CP_KC
#define CP_KC 128 /* k-values per chunk, a multiple of 4 */
#endif
#define CP_KC4 (CP_KC / 4)
#define CP_WP4 (CP_KC4 + 1) /* local row pitch in float4s: 8 outputs' float4 reads hit distinct banks */
#define CP_NW4 ((CP_NO * CP_KC4 + CP_LS - 1) / CP_LS) /* weight float4s per work-item per chunk */
#define CP_NX ((CP_RB * CP_KC + CP_LS - 1) / CP_LS)   /* x floats per work-item per chunk */

#ifdef CP_PERSIST
/* The activations of a layer were written by other work-groups of this launch: read them
 * past any cache that is not coherent across compute units. */
typedef volatile __global const float *cp_act_rd;
#else
typedef __global const float *cp_act_rd;
#endif

/* Where a work-group is in its sequence of chunks: layer, tile, first k. */
typedef struct {
    int l, tile, k0;
} cp_cur;

int cp_tiles(__global const long *desc, int l, int batch)
{
    return (int)((desc[5 * l + 1] + CP_NO - 1) / CP_NO) * ((batch + CP_RB - 1) / CP_RB);
}

/* Moves c past the layers where the group has no tile left: a group's tiles in a layer are
 * me, me + G, me + 2G, ...; c->l == l1 when none is left. */
void cp_settle(__global const long *desc, int l1, int batch, int me, cp_cur *c)
{
    while (c->l < l1 && c->tile >= cp_tiles(desc, c->l, batch)) {
        c->l += 1;
        c->tile = me;
    }
}

void cp_advance(__global const long *desc, int l1, int batch, int me, int G, cp_cur *c)
{
    c->k0 += CP_KC;
    if (c->k0 >= (int)desc[5 * c->l]) {
        c->k0 = 0;
        c->tile += G;
        cp_settle(desc, l1, batch, me, c);
    }
}

/* This work-item's share of a chunk's weights, into registers (zeros past the layer). */
void cp_wload(__global const float *p, __global const long *desc, const cp_cur *c, int lid,
              float4 *w)
{
    const int in = (int)desc[5 * c->l], out = (int)desc[5 * c->l + 1];
    const int ldk4 = (in + 3) / 4, n_ot = (out + CP_NO - 1) / CP_NO;
    const int o0 = (c->tile % n_ot) * CP_NO;
    __global const float4 *w4 = (__global const float4 *)(p + desc[5 * c->l + 3]);
#pragma unroll
    for (int j = 0; j < CP_NW4; ++j) {
        const int i = lid + j * CP_LS, o = i / CP_KC4, k4 = c->k0 / 4 + i % CP_KC4;
        w[j] = (o < CP_NO && o0 + o < out && k4 < ldk4)
                   ? w4[(size_t)(o0 + o) * (size_t)ldk4 + (size_t)k4]
                   : (float4)(0.0f);
    }
}

/* This work-item's share of a chunk's activations (zeros past the batch or the layer). */
void cp_xload(__global const float *a0, __global const float *a1, __global const long *desc,
              const cp_cur *c, int batch, int lid, float *x)
{
    const int in = (int)desc[5 * c->l], out = (int)desc[5 * c->l + 1];
    const int n_ot = (out + CP_NO - 1) / CP_NO, b0 = (c->tile / n_ot) * CP_RB;
    cp_act_rd src = (c->l & 1) ? a1 : a0;
#pragma unroll
    for (int j = 0; j < CP_NX; ++j) {
        const int i = lid + j * CP_LS, r = i / CP_KC, k = c->k0 + i % CP_KC;
        x[j] = (r < CP_RB && b0 + r < batch && k < in) ? src[(size_t)(b0 + r) * (size_t)in + k]
                                                       : 0.0f;
    }
}

#ifdef CP_PERSIST
#include "grid_sync.cl"
#endif

/* The chain of one output for one row over a chunk of n k-values, from local memory. */
float cp_schain(float acc, __local const float4 *x4, __local const float4 *w4, int n)
{
    if (n == CP_KC) {
#pragma unroll
        for (int j = 0; j < CP_KC4; j += 4) {
            float4 xv[4], wv[4];
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                xv[i] = j + i < CP_KC4 ? x4[j + i] : (float4)(0.0f);
                wv[i] = j + i < CP_KC4 ? w4[j + i] : (float4)(0.0f);
            }
#pragma unroll
            for (int i = 0; i < 4 && j + i < CP_KC4; ++i) {
                acc = CP_MAC(xv[i].x, wv[i].x, acc);
                acc = CP_MAC(xv[i].y, wv[i].y, acc);
                acc = CP_MAC(xv[i].z, wv[i].z, acc);
                acc = CP_MAC(xv[i].w, wv[i].w, acc);
            }
        }
        return acc;
    }
    __local const float *x = (__local const float *)x4, *w = (__local const float *)w4;
    for (int k = 0; k < n; ++k)
        acc = CP_MAC(x[k], w[k], acc);
    return acc;
}

/* max_tiles: the most tiles of any layer; in the one-launch form, groups beyond it would never
 * have a tile, and leave at once instead of joining every barrier. */
#if !defined(CP_KERNELS) || defined(CP_K_cp_stream)
__kernel __attribute__((reqd_work_group_size(CP_LS, 1, 1))) void
cp_stream(__global float *a0, __global float *a1, __global const float *restrict p,
          __global const long *restrict desc, volatile __global int *ctl, int l0, int l1,
          int batch, int max_tiles)
{
    __local float4 wl[CP_NO * CP_WP4];
    __local float4 xl[CP_RB * CP_WP4];
    __local int shared[4];
    const int lid = (int)get_local_id(0);
#ifdef CP_PERSIST
    const int me = cp_join(ctl, (int)get_num_groups(0), shared);
    const int G = min(shared[1], max_tiles);
    if (me < 0 || me >= G)
        return;
#else
    const int me = (int)get_group_id(0), G = (int)get_num_groups(0);
    (void)ctl;
    (void)shared;
    (void)max_tiles;
#endif
    /* The chain of output (o_loc, r_loc) of the tile, when this work-item owns one. */
    const int o_loc = lid % CP_NO, r_loc = lid / CP_NO;
    const bool owner = lid < CP_NO * CP_RB;

    cp_cur cur = {l0, me, 0};
    cp_settle(desc, l1, batch, me, &cur);
    float4 pw[CP_NW4];
    float px[CP_NX];
    int passed = 0; /* device-wide barriers passed: layer l0 + passed is readable */
    bool ok = true;
    if (cur.l < l1) {
        cp_wload(p, desc, &cur, lid, pw);
#ifdef CP_PERSIST
        for (; passed < cur.l - l0 && ok; ++passed)
            ok = cp_grid_barrier(ctl, passed, G, shared);
#endif
        cp_xload(a0, a1, desc, &cur, batch, lid, px);
    }
    float acc = 0.0f, resid = 0.0f, bias = 0.0f;
    while (cur.l < l1 && ok) {
        const int in = (int)desc[5 * cur.l], out = (int)desc[5 * cur.l + 1];
        const int n = min(CP_KC, in - cur.k0);
        /* The registers to local memory: the previous chunk's chains are done. */
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (int j = 0; j < CP_NW4; ++j) {
            const int i = lid + j * CP_LS;
            if (i < CP_NO * CP_KC4)
                wl[(i / CP_KC4) * CP_WP4 + i % CP_KC4] = pw[j];
        }
        __local float *xf = (__local float *)xl;
#pragma unroll
        for (int j = 0; j < CP_NX; ++j) {
            const int i = lid + j * CP_LS;
            if (i < CP_RB * CP_KC)
                xf[(i / CP_KC) * (4 * CP_WP4) + i % CP_KC] = px[j];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* The residual term and the bias are taken before the chain, so that the epilogue
         * after it waits for no load: the residual from the chunk in local memory that holds
         * it (residual layers have in == out), the bias from global memory at the tile's
         * first chunk. */
        const int flags = (int)desc[5 * cur.l + 2];
        const int n_ot = (out + CP_NO - 1) / CP_NO;
        const int o = (cur.tile % n_ot) * CP_NO + o_loc;
        if (owner && (flags & 4) && o >= cur.k0 && o < cur.k0 + n)
            resid = xf[r_loc * (4 * CP_WP4) + (o - cur.k0)];
        if (owner && (flags & 1) && cur.k0 == 0 && o < out)
            bias = p[desc[5 * cur.l + 4] + o];
        /* The next chunk in flight while the chains run: its weights always (they do not
         * depend on the activations), its activations once its layer is readable. */
        cp_cur next = cur;
        cp_advance(desc, l1, batch, me, G, &next);
        if (next.l < l1) {
            cp_wload(p, desc, &next, lid, pw);
            if (next.l == cur.l)
                cp_xload(a0, a1, desc, &next, batch, lid, px);
        }
        if (owner)
            acc = cp_schain(acc, xl + r_loc * CP_WP4, wl + o_loc * CP_WP4, n);
        if (cur.k0 + n >= in) { /* the tile's last chunk: bias, activation, residual */
            const int b = (cur.tile / n_ot) * CP_RB + r_loc;
            if (owner && o < out && b < batch) {
                if (flags & 1)
                    acc = acc + bias;
                float r = (flags & 2) ? ((acc <= 0.0f) ? 0.0f : acc) : acc;
                if (flags & 4)
                    r = resid + r;
#ifdef CP_PLANT_BIT
                if (o == 0 && b == 0) /* test hook kernel-bit: one flipped bit */
                    r = as_float(as_uint(r) ^ CP_PLANT_MASK);
#endif
                __global float *dst = (cur.l & 1) ? a0 : a1;
                dst[(size_t)b * (size_t)out + o] = r;
            }
            acc = 0.0f;
        }
#ifdef CP_PERSIST
        if (next.l > cur.l && next.l < l1) {
            for (; passed < next.l - l0 && ok; ++passed)
                ok = cp_grid_barrier(ctl, passed, G, shared);
            if (ok)
                cp_xload(a0, a1, desc, &next, batch, lid, px);
        }
#endif
        cur = next;
    }
#ifdef CP_PERSIST
    /* The barriers of the layers where this group had no tile left. */
    for (; passed < l1 - l0 - 1 && ok; ++passed)
        ok = cp_grid_barrier(ctl, passed, G, shared);
#endif
}
#endif
