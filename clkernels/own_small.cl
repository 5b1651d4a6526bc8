/* cl:own for small models: the whole model in one launch, one work-group per batch row.
 * Rows are independent, so no synchronisation crosses work-groups; inside a work-group the
 * activations stay in local memory and a barrier separates the layers.
 *
 * The order of every sum is cl:own's: k ascending from 0.0f, one fma per term, then the bias,
 * the activation and the residual (see block.cl). Only the memory traffic differs: the weights
 * arrive transposed (Wt[k][o], so that a k-row is one contiguous, coalesced copy) and pass
 * through local memory in tiles of CP_KT k-rows, loaded by every work-item together.
 *
 * Per layer, desc holds 5 ints: in, out, flags (1 bias, 2 relu, 4 residual), the offset of
 * Wt in p, the offset of the bias in p (offsets in floats; the host only takes this path
 * when they fit an int). */
#pragma OPENCL FP_CONTRACT OFF

#include "mac.cl"
#ifndef CP_PLANT_MASK /* the bit a test hook flips: kernel-bit the last, relaxed-wrong a high one */
#define CP_PLANT_MASK 1u
#endif

#ifdef CP_PLANT_BIT /* test hook kernel-bit:<path>: one flipped bit of one output */
#define CP_PLANT(v, at) ((at) ? as_float(as_uint(v) ^ CP_PLANT_MASK) : (v))
#else
#define CP_PLANT(v, at) (v)
#endif

#ifndef CP_LS
#define CP_LS 128 /* work-group size; >= the widest layer */
#endif
#ifndef CP_MAXW
#define CP_MAXW 128 /* the widest layer */
#endif
#ifndef CP_KT
#define CP_KT 64 /* k-rows of Wt per local tile */
#endif

/* The kernels with local weight tiles (CP_KT × CP_MAXW floats); left out of the reg path's
 * build, where CP_KT is not sized and a wide layer would overflow local memory. */
#ifndef CP_NO_TILES
/* acc = CP_MAC(a[k], w[k * stride], acc) for k = 0..n-1, in that order. The operands of 8 terms
 * are read before their 8 fmas, so that the local-memory latency overlaps the fma chain
 * instead of adding to every link of it. */
float cp_chain(float acc, __local const float *a, __local const float *w, int stride, int n)
{
    int k = 0;
    for (; k + 8 <= n; k += 8) {
        float av[8], wv[8];
        for (int i = 0; i < 8; ++i) {
            av[i] = a[k + i];
            wv[i] = w[(k + i) * stride];
        }
        for (int i = 0; i < 8; ++i)
            acc = CP_MAC(av[i], wv[i], acc);
    }
    for (; k < n; ++k)
        acc = CP_MAC(a[k], w[k * stride], acc);
    return acc;
}

#if !defined(CP_KERNELS) || defined(CP_K_cp_model_small)
__kernel __attribute__((reqd_work_group_size(CP_LS, 1, 1))) void
cp_model_small(__global const float *restrict x, __global float *restrict y,
               __global const float *restrict p, __global const int *restrict desc,
               int n_layers, int in0, int out_last)
{
    __local float act[2][CP_MAXW];
    __local float wt[CP_KT * CP_MAXW];
    const int lid = (int)get_local_id(0);
    const size_t row = get_group_id(0);
    for (int i = lid; i < in0; i += CP_LS)
        act[0][i] = x[row * (size_t)in0 + (size_t)i];
    int cur = 0;
    for (int l = 0; l < n_layers; ++l) {
        const int in = desc[5 * l], out = desc[5 * l + 1], flags = desc[5 * l + 2];
        const int w_off = desc[5 * l + 3], b_off = desc[5 * l + 4];
        float acc = 0.0f;
        for (int k0 = 0; k0 < in; k0 += CP_KT) {
            const int kt = min(CP_KT, in - k0);
            barrier(CLK_LOCAL_MEM_FENCE); /* the previous tile (or layer) is consumed */
            for (int i = lid; i < kt * out; i += CP_LS)
                wt[i] = p[(size_t)w_off + (size_t)k0 * (size_t)out + (size_t)i];
            barrier(CLK_LOCAL_MEM_FENCE);
            if (lid < out)
                acc = cp_chain(acc, &act[cur][k0], wt + lid, out, kt);
        }
        if (lid < out) {
            if (flags & 1)
                acc = acc + p[b_off + lid];
            float r = (flags & 2) ? ((acc <= 0.0f) ? 0.0f : acc) : acc;
            act[1 - cur][lid] = (flags & 4) ? act[cur][lid] + r : r;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        cur = 1 - cur;
    }
    for (int i = lid; i < out_last; i += CP_LS)
        y[row * (size_t)out_last + (size_t)i] = CP_PLANT(act[cur][i], row == 0 && i == 0);
}
#endif

/* The same model for GPUs, with the weight stream pipelined: while the work-items that own
 * an output run the fma chain over tile t from local memory, every work-item already has its
 * share of tile t+1 in flight from global memory into registers (CP_PRE floats each). The
 * tiles run through layers without a break, since the weights do not depend on the
 * activations. The order of each sum is unchanged. */
#ifndef CP_PRE
#define CP_PRE ((CP_KT * CP_MAXW + CP_LS - 1) / CP_LS)
#endif

/* Advances (l, k0) to the next tile of the flattened sequence; false past the last layer. */
bool cp_next_tile(__global const int *desc, int n_layers, int *l, int *k0)
{
    *k0 += CP_KT;
    if (*k0 >= desc[5 * *l]) {
        *k0 = 0;
        *l += 1;
    }
    return *l < n_layers;
}

#ifdef CP_V4
/* With CP_V4 every layer's out is a multiple of 4 and its Wt starts on a multiple of 4
 * floats (the host pads), so each tile is whole float4s, aligned: a quarter of the load and
 * store instructions. */
#define CP_PRE4 ((CP_KT * CP_MAXW / 4 + CP_LS - 1) / CP_LS)
typedef float4 cp_pre_t;
#define CP_NPRE CP_PRE4
#define CP_TILE_UNITS (CP_KT * CP_MAXW / 4)
#else
typedef float cp_pre_t;
#define CP_NPRE CP_PRE
#define CP_TILE_UNITS (CP_KT * CP_MAXW)
#endif

void cp_fetch(__global const float *p, __global const int *desc, int l, int k0, int lid,
              cp_pre_t *pre)
{
    const int in = desc[5 * l], out = desc[5 * l + 1];
    const int n = min(CP_KT, in - k0) * out;
    __global const float *src = p + (size_t)desc[5 * l + 3] + (size_t)k0 * (size_t)out;
#ifdef CP_V4
    __global const float4 *src4 = (__global const float4 *)src;
#pragma unroll
    for (int j = 0; j < CP_NPRE; ++j) {
        const int i = lid + j * CP_LS;
        pre[j] = 4 * i < n ? src4[i] : (float4)(0.0f);
    }
#else
#pragma unroll
    for (int j = 0; j < CP_NPRE; ++j) {
        const int i = lid + j * CP_LS;
        pre[j] = i < n ? src[i] : 0.0f;
    }
#endif
}

#if !defined(CP_KERNELS) || defined(CP_K_cp_model_small_pipe)
__kernel __attribute__((reqd_work_group_size(CP_LS, 1, 1))) void
cp_model_small_pipe(__global const float *restrict x, __global float *restrict y,
                    __global const float *restrict p, __global const int *restrict desc,
                    int n_layers, int in0, int out_last)
{
    __local float act[2][CP_MAXW];
    __local cp_pre_t wtv[CP_TILE_UNITS];
    __local float *wt = (__local float *)wtv;
    const int lid = (int)get_local_id(0);
    const size_t row = get_group_id(0);
    for (int i = lid; i < in0; i += CP_LS)
        act[0][i] = x[row * (size_t)in0 + (size_t)i];
    cp_pre_t pre[CP_NPRE];
    int l = 0, k0 = 0, cur = 0;
    cp_fetch(p, desc, 0, 0, lid, pre);
    float acc = 0.0f;
    bool more = n_layers > 0;
    while (more) {
        const int in = desc[5 * l], out = desc[5 * l + 1];
        const int kt = min(CP_KT, in - k0);
        barrier(CLK_LOCAL_MEM_FENCE); /* the last tile is consumed; act is written */
#pragma unroll
        for (int j = 0; j < CP_NPRE; ++j) {
            const int i = lid + j * CP_LS;
            if (i < CP_TILE_UNITS)
                wtv[i] = pre[j];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        int nl = l, nk0 = k0;
        more = cp_next_tile(desc, n_layers, &nl, &nk0);
        if (more)
            cp_fetch(p, desc, nl, nk0, lid, pre); /* in flight during the chain below */
        if (lid < out)
            acc = cp_chain(acc, &act[cur][k0], wt + lid, out, kt);
        if (k0 + kt >= in) { /* the layer's last tile: bias, activation, residual */
            if (lid < out) {
                const int flags = desc[5 * l + 2];
                if (flags & 1)
                    acc = acc + p[desc[5 * l + 4] + lid];
                float r = (flags & 2) ? ((acc <= 0.0f) ? 0.0f : acc) : acc;
                act[1 - cur][lid] = (flags & 4) ? act[cur][lid] + r : r;
            }
            acc = 0.0f;
            cur = 1 - cur;
        }
        l = nl;
        k0 = nk0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = lid; i < out_last; i += CP_LS)
        y[row * (size_t)out_last + (size_t)i] = CP_PLANT(act[cur][i], row == 0 && i == 0);
}
#endif

#endif /* CP_NO_TILES */

/* cp_model_small_reg (GPUs): the same model with no local memory for the weights. Work-item
 * o owns output o and streams its own weights straight into registers, CP_RC of them per
 * chunk, the next chunk in flight while the fma chain runs over this one. The weights come
 * blocked as Wb[k/4][o][k%4] (the host pads k to a multiple of 4 with zeros), so that a
 * float4 load of the 32 work-items of a warp is 512 contiguous bytes. Only the activations
 * pass through local memory, one barrier per layer. A work-group takes CP_RR batch rows: each
 * chunk of weights in registers then feeds CP_RR chains (one accumulator per row), which
 * divides the weight traffic by CP_RR and gives the fma unit independent work. The order of
 * each sum is unchanged: each chain runs k ascending and stops at in exactly (a padded term
 * is never added: 0 × inf would be NaN). */
#ifndef CP_RC
#define CP_RC 64 /* weights per work-item per chunk: a multiple of 4 */
#endif
#ifndef CP_RR
#define CP_RR 1 /* batch rows per work-group */
#endif
#define CP_RC4 (CP_RC / 4)
#define CP_MAXW4 ((CP_MAXW + 3) / 4)
#define CP_AP (CP_MAXW4 * 4) /* floats per activation row in local memory */

/* The layer table: read from desc, or, for a uniform model (every layer d x d with the same
 * flags: the reference model), compile-time constants (CP_UD, CP_UFLAGS, and CP_US floats
 * from one layer's blocked weights to the next), so that no link of the chain waits for a
 * load of the table. */
#ifdef CP_UD
#define CP_LIN(l) CP_UD
#define CP_LOUT(l) CP_UD
#define CP_LFLAGS(l) CP_UFLAGS
#define CP_LWOFF(l) ((size_t)(l) * (size_t)CP_US)
#define CP_LBOFF(l) ((size_t)(l) * (size_t)CP_US + ((CP_UD + 3) / 4) * 4 * CP_UD)
#else
#define CP_LIN(l) desc[5 * (l)]
#define CP_LOUT(l) desc[5 * (l) + 1]
#define CP_LFLAGS(l) desc[5 * (l) + 2]
#define CP_LWOFF(l) desc[5 * (l) + 3]
#define CP_LBOFF(l) desc[5 * (l) + 4]
#endif

#ifndef CP_NG /* the chunked kernel; cp_model_small_rot below otherwise */
void cp_rfetch(__global const float4 *wb, __global const int *desc, int l, int k0, int lid,
               float4 *w)
{
    const int in = CP_LIN(l), out = CP_LOUT(l);
    __global const float4 *src = wb + CP_LWOFF(l) / 4 + (size_t)(k0 / 4) * (size_t)out + lid;
#pragma unroll
    for (int j = 0; j < CP_RC4; ++j)
        w[j] = (lid < out && k0 + 4 * j < in) ? src[(size_t)j * (size_t)out] : (float4)(0.0f);
}

#endif
/* The chains of the CP_RR rows over one chunk (a: row 0 of the activations at the chunk's
 * first k, rows CP_AP floats apart), interleaved row by row at every k. A full chunk reads
 * the activations as float4, so that their loads run ahead of the chains instead of adding
 * to each link. */
void cp_rchain(float *acc, __local const float *a, const float4 *w, int n)
{
    if (n == CP_RC) {
        __local const float4 *a4 = (__local const float4 *)a;
#pragma unroll
        for (int j = 0; j < CP_RC4; ++j) {
            float4 av[CP_RR];
#pragma unroll
            for (int r = 0; r < CP_RR; ++r)
                av[r] = a4[r * CP_MAXW4 + j];
#pragma unroll
            for (int r = 0; r < CP_RR; ++r)
                acc[r] = CP_MAC(av[r].x, w[j].x, acc[r]);
#pragma unroll
            for (int r = 0; r < CP_RR; ++r)
                acc[r] = CP_MAC(av[r].y, w[j].y, acc[r]);
#pragma unroll
            for (int r = 0; r < CP_RR; ++r)
                acc[r] = CP_MAC(av[r].z, w[j].z, acc[r]);
#pragma unroll
            for (int r = 0; r < CP_RR; ++r)
                acc[r] = CP_MAC(av[r].w, w[j].w, acc[r]);
        }
        return;
    }
#pragma unroll
    for (int j = 0; j < CP_RC4; ++j) {
#pragma unroll
        for (int r = 0; r < CP_RR; ++r) {
            __local const float *ar = a + r * CP_AP + 4 * j;
            if (4 * j < n)
                acc[r] = CP_MAC(ar[0], w[j].x, acc[r]);
            if (4 * j + 1 < n)
                acc[r] = CP_MAC(ar[1], w[j].y, acc[r]);
            if (4 * j + 2 < n)
                acc[r] = CP_MAC(ar[2], w[j].z, acc[r]);
            if (4 * j + 3 < n)
                acc[r] = CP_MAC(ar[3], w[j].w, acc[r]);
        }
    }
}

/* The end of a layer for work-item lid's output: bias, activation and residual on each of the
 * CP_RR chains, in cl:own's order, from the input rows cur·CP_RR ... into the other rows. */
void cp_repilogue(const float *acc, float bias, int flags, __local float (*act)[CP_AP], int cur,
                  int lid)
{
#pragma unroll
    for (int r = 0; r < CP_RR; ++r) {
        float a = acc[r];
        if (flags & 1)
            a = a + bias;
        float v = (flags & 2) ? ((a <= 0.0f) ? 0.0f : a) : a;
        v = (flags & 4) ? act[cur * CP_RR + r][lid] + v : v;
#ifdef CP_PLANT_BIT
        if (lid == 0 && r == 0 && get_group_id(0) == 0) /* test hook kernel-bit */
            v = as_float(as_uint(v) ^ CP_PLANT_MASK);
#endif
        act[(1 - cur) * CP_RR + r][lid] = v;
    }
}

#ifndef CP_NG
/* Moves a chunk cursor (layer l, first k k0) to the next chunk. */
void cp_radvance(__global const int *desc, int *l, int *k0)
{
    *k0 += CP_RC;
    if (*k0 >= CP_LIN(*l)) {
        *l += 1;
        *k0 = 0;
    }
}

/* One chunk: fetch the chunk at the fetch cursor (fl, fk0; CP_RD - 1 chunks ahead) into wn,
 * run the chains over wc, and at the layer's end the bias, activation, residual and the
 * barrier. act holds 2 × CP_RR rows: rows cur·CP_RR ... are the layer's input. Returns
 * whether a chunk follows. */
bool cp_rstep(__global const float *p, __global const int *desc, int n_layers, int lid,
              __local float (*act)[CP_AP], const float4 *wc, float4 *wn, int *l, int *k0,
              int *fl, int *fk0, int *cur, float *acc)
{
    const int in = CP_LIN(*l), out = CP_LOUT(*l);
    const int n = min(CP_RC, in - *k0);
    if (*fl < n_layers) {
        cp_rfetch((__global const float4 *)p, desc, *fl, *fk0, lid, wn);
        cp_radvance(desc, fl, fk0);
    }
    if (lid < out)
        cp_rchain(acc, &act[*cur * CP_RR][*k0], wc, n);
    if (*k0 + n >= in) {
        if (lid < out) {
            const int flags = CP_LFLAGS(*l);
            const float bias = (flags & 1) ? p[CP_LBOFF(*l) + lid] : 0.0f;
            cp_repilogue(acc, bias, flags, act, *cur, lid);
        }
#pragma unroll
        for (int r = 0; r < CP_RR; ++r)
            acc[r] = 0.0f;
        *cur = 1 - *cur;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    cp_radvance(desc, l, k0);
    return *l < n_layers;
}

/* CP_RD chunk buffers: the chains run over one while the loads of the next CP_RD - 1 are in
 * flight (2, 3 or 4). */
#ifndef CP_RD
#define CP_RD 2
#endif
#define CP_RSTEP(wc, wn) cp_rstep(p, desc, n_layers, lid, act, wc, wn, &l, &k0, &fl, &fk0, &cur, acc)

#if !defined(CP_KERNELS) || defined(CP_K_cp_model_small_reg)
__kernel __attribute__((reqd_work_group_size(CP_LS, 1, 1))) void
cp_model_small_reg(__global const float *restrict x, __global float *restrict y,
                   __global const float *restrict p, __global const int *restrict desc,
                   int n_layers, int in0, int out_last, int batch)
{
    /* float4-aligned, for cp_rchain's float4 reads (CP_MAXW4 rounds the width up to 4) */
    __local float4 act4[2 * CP_RR][CP_MAXW4];
    __local float(*act)[CP_AP] = (__local float(*)[CP_AP])act4;
    const int lid = (int)get_local_id(0);
    const size_t row0 = get_group_id(0) * (size_t)CP_RR;
    for (int r = 0; r < CP_RR; ++r)
        for (int i = lid; i < in0; i += CP_LS)
            act[r][i] = row0 + r < (size_t)batch ? x[(row0 + r) * (size_t)in0 + (size_t)i] : 0.0f;
    float4 wa[CP_RC4], wb[CP_RC4];
#if CP_RD >= 3
    float4 wc[CP_RC4];
#endif
#if CP_RD >= 4
    float4 wd[CP_RC4];
#endif
    int l = 0, k0 = 0, fl = 0, fk0 = 0, cur = 0;
    float acc[CP_RR];
    for (int r = 0; r < CP_RR; ++r)
        acc[r] = 0.0f;
    bool more = n_layers > 0;
    /* the first CP_RD - 1 chunks */
    if (fl < n_layers) {
        cp_rfetch((__global const float4 *)p, desc, fl, fk0, lid, wa);
        cp_radvance(desc, &fl, &fk0);
    }
#if CP_RD >= 3
    if (fl < n_layers) {
        cp_rfetch((__global const float4 *)p, desc, fl, fk0, lid, wb);
        cp_radvance(desc, &fl, &fk0);
    }
#endif
#if CP_RD >= 4
    if (fl < n_layers) {
        cp_rfetch((__global const float4 *)p, desc, fl, fk0, lid, wc);
        cp_radvance(desc, &fl, &fk0);
    }
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
    while (more) {
#if CP_RD == 2
        more = CP_RSTEP(wa, wb);
        if (more)
            more = CP_RSTEP(wb, wa);
#elif CP_RD == 3
        more = CP_RSTEP(wa, wc);
        if (more)
            more = CP_RSTEP(wb, wa);
        if (more)
            more = CP_RSTEP(wc, wb);
#else
        more = CP_RSTEP(wa, wd);
        if (more)
            more = CP_RSTEP(wb, wa);
        if (more)
            more = CP_RSTEP(wc, wb);
        if (more)
            more = CP_RSTEP(wd, wc);
#endif
    }
    for (int r = 0; r < CP_RR && row0 + r < (size_t)batch; ++r)
        for (int i = lid; i < out_last; i += CP_LS)
            y[(row0 + r) * (size_t)out_last + (size_t)i] = act[cur * CP_RR + r][i];
}
#endif

#endif /* !CP_NG */

/* cp_model_small_rot (GPUs, every layer at most CP_MAXW <= 128 wide, so that a whole row of a
 * layer's weights fits a work-item's registers): CP_NG groups of CP_LS work-items take the
 * layers in turn, group l % CP_NG runs layer l. Work-item o of a group owns output o of its
 * layers: it holds the whole row o of its next layer's weights (blocked as for
 * cp_model_small_reg) and its bias in registers, runs that layer's CP_RR chains from the
 * activations in local memory, and then starts loading the row of the layer CP_NG further on.
 * So a group's loads have CP_NG - 1 layers of the other groups' chains to arrive, and no chain
 * waits on a load issued just before it (in cp_model_small_reg a chunk's chain started about
 * one memory latency after its loads, whatever the depth of the register ring: on the H100,
 * d=128 L=3840 B=1 took 0.84 µs per chunk of 64 weights, 1.68 per layer). The order of each
 * sum is unchanged: k ascending from 0.0f, one fma per term, stopping at in exactly. */
#ifdef CP_NG
void cp_rotfetch(__global const float *p, __global const int *desc, int l, int lid, float4 *w,
                 float *bias)
{
    const int in = CP_LIN(l), out = CP_LOUT(l);
    __global const float4 *src = (__global const float4 *)p + CP_LWOFF(l) / 4 + lid;
#pragma unroll
    for (int j = 0; j < CP_MAXW4; ++j)
        w[j] = (lid < out && 4 * j < in) ? src[(size_t)j * (size_t)out] : (float4)(0.0f);
    *bias = (lid < out && (CP_LFLAGS(l) & 1)) ? p[CP_LBOFF(l) + lid] : 0.0f;
}

#if !defined(CP_KERNELS) || defined(CP_K_cp_model_small_rot)
__kernel __attribute__((reqd_work_group_size(CP_LS * CP_NG, 1, 1))) void
cp_model_small_rot(__global const float *restrict x, __global float *restrict y,
                   __global const float *restrict p, __global const int *restrict desc,
                   int n_layers, int in0, int out_last, int batch)
{
    __local float4 act4[2 * CP_RR][CP_MAXW4];
    __local float(*act)[CP_AP] = (__local float(*)[CP_AP])act4;
    const int t = (int)get_local_id(0), grp = t / CP_LS, lid = t % CP_LS;
    const size_t row0 = get_group_id(0) * (size_t)CP_RR;
    for (int r = 0; r < CP_RR; ++r)
        for (int i = t; i < in0; i += CP_LS * CP_NG)
            act[r][i] = row0 + r < (size_t)batch ? x[(row0 + r) * (size_t)in0 + (size_t)i] : 0.0f;
    float4 w[CP_MAXW4];
    float bias = 0.0f;
    if (grp < n_layers)
        cp_rotfetch(p, desc, grp, lid, w, &bias);
    barrier(CLK_LOCAL_MEM_FENCE);
    int cur = 0;
    for (int l = 0; l < n_layers; ++l) {
        if (l % CP_NG == grp) {
            const int in = CP_LIN(l), out = CP_LOUT(l), flags = CP_LFLAGS(l);
            if (lid < out) {
                float acc[CP_RR];
#pragma unroll
                for (int r = 0; r < CP_RR; ++r)
                    acc[r] = 0.0f;
                cp_rchain(acc, &act[cur * CP_RR][0], w, in); /* CP_RC: the whole row */
                cp_repilogue(acc, bias, flags, act, cur, lid);
            }
            if (l + CP_NG < n_layers) /* in flight through the other groups' layers */
                cp_rotfetch(p, desc, l + CP_NG, lid, w, &bias);
        }
        cur = 1 - cur;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int r = 0; r < CP_RR && row0 + r < (size_t)batch; ++r)
        for (int i = t; i < out_last; i += CP_LS * CP_NG)
            y[(row0 + r) * (size_t)out_last + (size_t)i] = act[cur * CP_RR + r][i];
}
#endif
#endif /* CP_NG */
