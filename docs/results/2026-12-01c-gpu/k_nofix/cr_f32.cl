/* cl:cr's float32-only certified method (issue 34; cr_cl.c's variants f32, f32-stream and
 * f32-item):
 * host:cr's bits with no double anywhere, for devices without cl_khr_fp64 (Mesa rusticl on
 * llvmpipe, most Intel GPUs) or slow in double (consumer NVIDIA GPUs: 1/64 rate).
 * docs/ENGINES.md, "The float32-only method", holds the proof; its steps are named here (F1-F5).
 *
 * For each output o of a row: S = sum_k x[k]·W[o][k] + b[o], exactly, is held as an unevaluated
 * float sum h + L, where h is a float and L the exact sum of error terms, all by error-free
 * transformations (F2):
 *   TwoProduct by fma:  p = RN(x·w), e = fma(x, w, −p) = x·w − p exactly;
 *   TwoSum (Knuth, 6 operations, no branch): s = RN(h + p), q = h + p − s exactly.
 * h runs over the p's (and the bias) through TwoSum; the error terms e and q are summed in float
 * into l, each addition rounded (not exact), and every rounded addition of l's sums adds the
 * magnitude of its computed result into mu (a running error bound, Wilkinson's): the total
 * rounding error of l is at most 2^-24 · (exact sum of those magnitudes) (F3), and mu's own
 * rounding is covered by a factor 2 (F4). In cr_f32_gemv work-items sum slices of k and their
 * (h, l, mu) meet in a binary tree in local memory: h's by TwoSum (its error into l), l's by an
 * addition, each counted in mu: any split and any tree is covered (cr_f32_item: one work-item,
 * k ascending). The certificate (F5) rounds h + l by TwoSum to r + t and asks that t ± the bound
 * lie strictly inside the half-gaps to r's float neighbours; then r = RN(S). Else (and for every
 * output the conditions below exclude) the output is summed with cr.cl's exact accumulator.
 *
 * UNDERFLOW (F1). The error-free transformations are exact only where nothing underflows, and a
 * device that flushes denormals (CR_NO_DENORM) would flush a subnormal e or q. So the fast path
 * is taken only where every term and every error term is an integer multiple of Q = 2^-126: then
 * every value computed from them by RN additions and subtractions is one too, and a nonzero
 * multiple of 2^-126 that is a float is normal. Nothing subnormal ever arises, flushing changes
 * nothing, and every rounded operation has relative error at most 2^-24 with no absolute term.
 * A product's exact value and its error are multiples of ulp(x)·ulp(w) = 2^(fx + fw − 300) (fx,
 * fw the biased exponent fields of normal x, w), so the condition is fx + fw >= 174 for every
 * pair of nonzero factors; the kernel asks it of the row's smallest field of x (kx, computed
 * here) and the output's smallest field of W_o (kw, the host's, cr_cl_run.c, in the wnorm
 * buffer), with no subnormal factor (a field of 0) on either side; the bias needs field >= 24 or
 * 0 exactly. Zeros are exact (field 255 in the minimum: they add nothing).
 *
 * OVERFLOW. An infinite or NaN factor, or an overflow anywhere, leaves h, l or mu infinite or
 * NaN (every computed value flows by additions, subtractions and fabs into one of them), and the
 * certificate takes only finite ones; the accumulator then owns the specials.
 *
 * Built with cr.cl's options (its FP_CONTRACT OFF: every operation above is one IEEE operation;
 * no fast-math, so no reassociation of TwoSum), without CR_F64. */
/* cr.cl's one-launch kernel (built where CR_STREAM is, variant f32-stream) as cr_f32_stream,
 * with cr_f32_block (below) doing each unit's work: cr_stream's units, groups and device-wide
 * barrier for the float32-only method. */
#define CR_STREAM_NAME cr_f32_stream
#define CR_STREAM_BLOCK cr_f32_block
#if !defined(CP_KERNELS) || defined(CP_K_cr_f32_stream)
#define CR_STREAM_KEEP /* kept unless the host names others (cp_program_keep) */
#endif
/* ... and its one-launch tiled kernel (variant f32-tiles, built where CR_STREAM is) as
 * cr_f32_tiles, with cr_f32_tile (below) doing each tile's work: cr_tiles' tiles and groups.
 * The kernel of a launch per layer (f32-gemm) is this file's own (cr_f32_gemm, below). */
#define CR_TILES_NAME cr_f32_tiles
#define CR_GEMM_TILE cr_f32_tile
#if !defined(CP_KERNELS) || defined(CP_K_cr_f32_tiles)
#define CR_TILES_KEEP
#endif
#include "cr.cl"

#ifndef CR_TRAIN

/* Q's exponent condition on the biased fields (F1). */
#define CR_F32_FIELDS 174u
#define CR_F32_BIAS_FIELD 24u
/* The most inputs for which mu's factor 2 holds (F4): 2·in + 2·CR_WG + 3 additions <= 2^23. */
#define CR_F32_IN_MAX (1 << 21)

/* A factor's key for the minimum: its biased exponent field, 0 for a subnormal, 255 for zero
 * (inf and NaN have 255 too: they fail the certificate through h, l or mu). */
uint cr_f32_key(uint u)
{
    uint a = u & 0x7fffffffu;
    return a == 0u ? 255u : a >> 23;
}

/* TwoSum: *s + *q = a + b exactly (no branch; exact under RN without overflow, F2). */
void cr_two_sum(float a, float b, float *s, float *q)
{
    float sum = a + b;
    float bb = sum - a;
    *s = sum;
    *q = (a - (sum - bb)) + (b - bb);
}

/* One term x·w into (h, l, mu): TwoProduct, TwoSum of p into h, then e + q into l; mu gets the
 * magnitudes of l's two rounded additions (F3). */
void cr_f32_term(float *h, float *l, float *mu, float x, float w)
{
    float p = x * w;
    float e = fma(x, w, -p);
    float q;
    cr_two_sum(*h, p, h, &q);
    float c = q + e;
    *l = *l + c;
    *mu = *mu + (fabs(c) + fabs(*l));
}

/* (h2, l2, mu2) merged into (h, l, mu): h's by TwoSum, l's and the error by two rounded
 * additions, both counted in mu (F3). */
void cr_f32_merge(float *h, float *l, float *mu, float h2, float l2, float mu2)
{
    float q;
    cr_two_sum(*h, h2, h, &q);
    float t = *l + l2;
    *l = t + q;
    *mu = (*mu + mu2) + (fabs(t) + fabs(*l));
}

/* The certificate (F5): S = h + l − d with |d| <= 2^-24 · mu_exact <= 2^-23 · mu (F3, F4). On
 * success *v holds RN(S)'s bits. */
bool cr_f32_certify(float h, float l, float mu, uint *v)
{
#ifdef CR_F32_FALLBACK /* test hook corrupt-cl-cr:fallback: every output to its exact sum */
    return false;
#endif
    if (!(fabs(h) <= FLT_MAX && fabs(l) <= FLT_MAX && mu <= FLT_MAX)) /* also NaN */
        return false;
    float r, t;
    cr_two_sum(h, l, &r, &t);
    float a = fabs(r);
    if (!(a >= 0x1p-100f && a < 0x1p127f)) /* the half-gaps normal, the neighbours finite */
        return false;
    uint u = as_uint(a);
    float gap_hi = (as_float(u + 1u) - a) * 0.5f; /* exact: a power of two, >= 2^-124 */
    float gap_lo = (a - as_float(u - 1u)) * 0.5f;
    float tau = r < 0.0f ? -t : t;
    float err = mu < 0x1p-103f ? 0x1p-126f : mu * 0x1p-23f;
    if (!(tau + err < gap_hi && tau - err > -gap_lo))
        return false;
    *v = as_uint(r);
    return true;
}

/* Output o's certificate from its (h, l, mu), the row's smallest key of x (kx) and W_o's (kw),
 * with the bias (NULL: none) as one more term of h: F1's conditions, then F5. */
bool cr_f32_output(float h, float l, float mu, uint kx, uint kw, int in,
                   __global const uint *bias, uint *v)
{
    bool ok = in <= CR_F32_IN_MAX && kx >= 1u && kw >= 1u && kx + kw >= CR_F32_FIELDS;
    if (bias) { /* F1: the bias's field >= 24, or zero */
        uint bb = *bias;
        ok = ok && cr_f32_key(bb) >= CR_F32_BIAS_FIELD;
        float q;
        cr_two_sum(h, as_float(bb), &h, &q);
        l = l + q;
        mu = mu + fabs(l);
    }
    return ok && cr_f32_certify(h, l, mu, v);
}

/* A block's work, as cr_f32_gemv and cr_f32_stream do it, for the outputs o0 .. o0 + CR_OB - 1
 * of the row xr (yr its output row), with keys the layer's smallest keys of W_o: k split over the
 * group's work-items, each summing its slice of every output of the block in float-float with
 * the running bound, CR_KU of its k loaded at a time (the certified result is RN(S) in any order
 * and split, F3-F5: the order changes no bit); the triples and the row's smallest key of x meet
 * in a tree in local memory; work-item j certifies output o0 + j; then the whole group sums
 * exactly each output whose certificate failed (cr.cl's cr_group_dot). row0: the block is in
 * row 0 (the test hook's). Every work-item calls it. Its arguments are cr.cl's cr_block's (scale
 * unused), so that cr.cl's cr_stream kernel runs it as cr_f32_stream. */
void cr_f32_block(cr_x_rd xr, __global const uint *w, __global const uint *bias, int in, int out,
                  int o0, int flags, __global const ulong *keys, ulong scale, __global uint *yr,
                  bool row0, __local int *fail, __local long *ld, __local uint *lf,
                  __local uint *res, __local CR_REAL *lsr)
{
    (void)scale;
    __local uint *ls = (__local uint *)lsr; /* (3 · CR_OB + 1) × CR_WG uints */
    const int lid = (int)get_local_id(0);
    float h[CR_OB], l[CR_OB], mu[CR_OB];
    __global const uint *wr[CR_OB];
    for (int j = 0; j < CR_OB; ++j) {
        h[j] = l[j] = mu[j] = 0.0f;
        wr[j] = w + (size_t)min(o0 + j, out - 1) * (size_t)in;
    }
    uint kx = 255u;
    for (int k = lid; k < in; k += CR_KU * CR_WG) {
        uint xu[CR_KU], wu[CR_OB][CR_KU];
        for (int u = 0; u < CR_KU; ++u) {
            const bool in_range = k + u * CR_WG < in;
            xu[u] = in_range ? xr[k + u * CR_WG] : 0u;
            for (int j = 0; j < CR_OB; ++j)
                wu[j][u] = in_range ? wr[j][k + u * CR_WG] : 0u;
        }
        for (int u = 0; u < CR_KU && k + u * CR_WG < in; ++u) {
            kx = min(kx, cr_f32_key(xu[u]));
            for (int j = 0; j < CR_OB; ++j)
                cr_f32_term(&h[j], &l[j], &mu[j], as_float(xu[u]), as_float(wu[j][u]));
        }
    }
    for (int j = 0; j < CR_OB; ++j) {
        ls[(3 * j) * CR_WG + lid] = as_uint(h[j]);
        ls[(3 * j + 1) * CR_WG + lid] = as_uint(l[j]);
        ls[(3 * j + 2) * CR_WG + lid] = as_uint(mu[j]);
    }
    ls[3 * CR_OB * CR_WG + lid] = kx;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int hs = CR_WG / 2; hs > 0; hs >>= 1) {
        if (lid < hs) {
            for (int j = 0; j < CR_OB; ++j) {
                __local uint *t = ls + 3 * j * CR_WG;
                float hh = as_float(t[lid]), ll = as_float(t[CR_WG + lid]),
                      mm = as_float(t[2 * CR_WG + lid]);
                cr_f32_merge(&hh, &ll, &mm, as_float(t[lid + hs]),
                             as_float(t[CR_WG + lid + hs]), as_float(t[2 * CR_WG + lid + hs]));
                t[lid] = as_uint(hh);
                t[CR_WG + lid] = as_uint(ll);
                t[2 * CR_WG + lid] = as_uint(mm);
            }
            ls[3 * CR_OB * CR_WG + lid] =
                min(ls[3 * CR_OB * CR_WG + lid], ls[3 * CR_OB * CR_WG + lid + hs]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid < CR_OB && o0 + lid < out) {
        const int o = o0 + lid;
        __local uint *t = ls + 3 * lid * CR_WG;
        uint v;
        fail[lid] = !cr_f32_output(as_float(t[0]), as_float(t[CR_WG]), as_float(t[2 * CR_WG]),
                                   ls[3 * CR_OB * CR_WG], (uint)keys[o], in, bias ? bias + o : 0,
                                   &v);
        if (!fail[lid])
            yr[o] = CP_PLANT(cr_epilogue(v, flags, CR_XO(xr, o, flags)), row0 && o == 0);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int j = 0; j < CR_OB && o0 + j < out; ++j) {
        if (!fail[j]) /* the same for every work-item: the group stays together */
            continue;
        const int o = o0 + j;
        uint v = cr_group_dot(xr, w + (size_t)o * (size_t)in, in, bias ? bias + o : 0, ld, lf,
                              res);
        if (lid == 0)
            yr[o] = CP_PLANT(cr_epilogue(v, flags, CR_XO(xr, o, flags)), row0 && o == 0);
    }
    /* No barrier is needed before the group's next block (cr_f32_stream): its first writes
     * (ls) come after every read of ls above (before the barrier that precedes the failed
     * outputs), and fail[] is written again only after its tree's barriers. */
}

/* (f) A work-group per (row, block of CR_OB outputs), as cr_gemv: cr_f32_block. wnorm holds
 * each output's smallest key of W_o (ulongs, from wn_off); scale is unused. ld and lf as
 * cr_gemv's; ls: (3 · CR_OB + 1) × CR_WG uints (typed as cr_block's; cr_f32_block reads
 * them as uints). */
#if !defined(CP_KERNELS) || defined(CP_K_cr_f32_gemv)
__kernel __attribute__((reqd_work_group_size(CR_WG, 1, 1))) void
cr_f32_gemv(CR_LAYER_ARGS, __local long *ld, __local uint *lf, __local CR_REAL *ls)
{
    __local uint res;
    __local int fail[CR_OB];
    const size_t row = get_global_id(1);
    cr_f32_block(x + row * (size_t)in, p + w_off, (flags & 1) ? p + b_off : 0, in, out,
                 (int)get_group_id(0) * CR_OB, flags, wnorm + wn_off, scale,
                 y + row * (size_t)out, row == 0, fail, ld, lf, &res, ls);
}
#endif


/* (g) A work-item per (output, row), no local memory and no barrier (CPUs: llvmpipe runs
 * barrier-free work-items as SIMD lanes, PoCL vectorizes across them): the output's terms in
 * float-float, k ascending, with the running bound; its certificate; else cr.cl's cr_dot by the
 * work-item alone. Arguments and wnorm as cr_f32_gemv's. */
#if !defined(CP_KERNELS) || defined(CP_K_cr_f32_item)
__kernel void cr_f32_item(CR_LAYER_ARGS)
{
    (void)scale;
    const int o = (int)get_global_id(0);
    const size_t row = get_global_id(1);
    if (o >= out)
        return;
    __global const uint *xr = x + row * (size_t)in;
    __global const uint *wr = p + w_off + (size_t)o * (size_t)in;
    __global const uint *bias = (flags & 1) ? p + b_off + o : 0;
    float h = 0.0f, l = 0.0f, mu = 0.0f;
    uint kx = 255u;
    for (int k = 0; k < in; ++k) {
        uint xb = xr[k];
        kx = min(kx, cr_f32_key(xb));
        cr_f32_term(&h, &l, &mu, as_float(xb), as_float(wr[k]));
    }
    uint v;
    if (!cr_f32_output(h, l, mu, kx, (uint)wnorm[wn_off + (size_t)o], in, bias, &v))
        v = cr_dot(xr, wr, in, bias);
    y[row * (size_t)out + (size_t)o] =
        CP_PLANT(cr_epilogue(v, flags, CR_XO(xr, o, flags)), row == 0 && o == 0);
}
#endif

/* (h) One tile of cr.cl's tiles (f32-gemm's cr_f32_gemm, below, and f32-tiles' cr_f32_tiles):
 * rows m0 .. m0 + CR_TM - 1 and outputs n0 .. n0 + CR_TN - 1, by the work-item (tx, ty) of
 * CR_LX × CR_LY, each work-item CR_RM rows × CR_RN outputs (strided by CR_LY and CR_LX, as
 * cr_gemm_tile's). The CR_TK-deep tiles of x and W go through local memory as their bits (xs and
 * ws: CR_TK × CR_TP uints each, k-major), the next tile's loaded into registers while the current
 * one's terms run (cr.cl's cr_gemm_fetch). Each output's (h, l, mu) is one work-item's chain over
 * k ascending, as cr_f32_item's (F2-F4); the padding past in is 0 · 0 terms, which add exactly
 * nothing to h and l (TwoProduct and TwoSum of zeros are zeros) and only |l| to mu again: a
 * larger bound, still a bound, within F4's count (in + CR_TK terms, CR_TK <= 128). Each
 * work-item keeps its rows' smallest key of x from the same loads (the padding's zeros have key
 * 255; their minima meet in xq, CR_TM uints), certifies its outputs (cr_f32_output, with W_o's
 * smallest key from keys), and leaves each output whose certificate fails to the exact sum: in
 * the list (count, pairs) where listed (a constant at each call, so that the other way's code is not in the
 * kernel; cr_f32_fix sums them in a launch of its own: the code of the
 * exact sum inside the tile kernel cost f32-gemm 40 % of its time where it never ran, H200,
 * docs/PERFORMANCE.md), else summed alone here with cr.cl's cr_dot (f32-tiles: every layer in
 * one launch). Every work-item of the group calls it. */
void cr_f32_tile_fix(cr_x_rd x, __global uint *y, __global const uint *w,
                     __global const uint *bias, int in, int out, int flags,
                     __global const ulong *keys, int batch, int m0, int n0, int tx, int ty,
                     __local CR_REAL *xsr, __local CR_REAL *wsr, __local CR_REAL *xq,
                     bool listed, volatile __global uint *count, __global uint *pairs)
{
    __local uint *xs = (__local uint *)xsr, *ws = (__local uint *)wsr, *lk = (__local uint *)xq;
    const int tid = ty * CR_LX + tx;
    float h[CR_RM][CR_RN], l[CR_RM][CR_RN], mu[CR_RM][CR_RN];
    uint kr[CR_XL], kw[CR_RN];
    for (int i = 0; i < CR_RM; ++i)
        for (int j = 0; j < CR_RN; ++j)
            h[i][j] = l[i][j] = mu[i][j] = 0.0f;
    for (int i = 0; i < CR_XL; ++i)
        kr[i] = 255u;
    if (tid < CR_TM) /* the previous tile's readers are past the barrier after their reads */
        lk[tid] = 255u;
    for (int j = 0; j < CR_RN; ++j) { /* loaded before the terms: their latency is then theirs */
        const int o = n0 + tx + j * CR_LX;
        kw[j] = o < out ? (uint)keys[o] : 0u;
    }
    uint xn[CR_XL], wn[CR_XL];
    cr_gemm_fetch(x, w, in, out, batch, m0, n0, 0, tid, xn, wn);
    for (int k0 = 0; k0 < in; k0 += CR_TK) {
        for (int i = 0; i < CR_XL; ++i) {
            const int e = tid + i * CR_NT;
            if (CR_TM * CR_TK % CR_NT == 0 || e < CR_TM * CR_TK) {
                xs[(e % CR_TK) * CR_TP + e / CR_TK] = xn[i];
                ws[(e % CR_TK) * CR_TP + e / CR_TK] = wn[i];
                kr[i] = min(kr[i], cr_f32_key(xn[i])); /* row e / CR_TK in every tile */
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (k0 + CR_TK < in)
            cr_gemm_fetch(x, w, in, out, batch, m0, n0, k0 + CR_TK, tid, xn, wn);
        for (int kk = 0; kk < CR_TK; ++kk) {
            float xv[CR_RM], wv[CR_RN];
            for (int i = 0; i < CR_RM; ++i)
                xv[i] = as_float(xs[kk * CR_TP + ty + i * CR_LY]);
            for (int j = 0; j < CR_RN; ++j)
                wv[j] = as_float(ws[kk * CR_TP + tx + j * CR_LX]);
            for (int i = 0; i < CR_RM; ++i)
                for (int j = 0; j < CR_RN; ++j)
                    cr_f32_term(&h[i][j], &l[i][j], &mu[i][j], xv[i], wv[j]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    /* the rows' smallest keys: each work-item's elements of a tile are of the same CR_XL rows in
     * every tile (row e / CR_TK), so their minima meet in lk */
    for (int i = 0; i < CR_XL; ++i) {
        const int e = tid + i * CR_NT;
        if (CR_TM * CR_TK % CR_NT == 0 || e < CR_TM * CR_TK)
            atomic_min(&lk[e / CR_TK], kr[i]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    uint kx[CR_RM];
    for (int i = 0; i < CR_RM; ++i)
        kx[i] = lk[ty + i * CR_LY];
    barrier(CLK_LOCAL_MEM_FENCE); /* before the group's next tile (cr_f32_tiles) sets lk again */
    /* The certified outputs are stored here; the others are marked in fails, bit i · CR_RN + j,
     * and summed below one at a time (one call of cr_dot in a loop, not CR_RM · CR_RN inlined
     * copies beside the sums). */
    ulong fails = 0;
    for (int i = 0; i < CR_RM; ++i) {
        const int m = m0 + ty + i * CR_LY;
        if (m >= batch)
            break;
        cr_x_rd xr = x + (size_t)m * (size_t)in;
        for (int j = 0; j < CR_RN; ++j) {
            const int o = n0 + tx + j * CR_LX;
            if (o >= out)
                break;
            uint v;
            if (cr_f32_output(h[i][j], l[i][j], mu[i][j], kx[i], kw[j], in, bias ? bias + o : 0,
                              &v))
                y[(size_t)m * (size_t)out + (size_t)o] =
                    CP_PLANT(cr_epilogue(v, flags, CR_XO(xr, o, flags)), m == 0 && o == 0);
            else
                fails |= (ulong)1 << (i * CR_RN + j);
        }
    }
    if (listed) { /* (row, output) pairs; at most one a layer's output: room for them */
        for (; fails; fails &= fails - 1) {
            const int b = 63 - (int)clz(fails & (~fails + 1));
            const uint at = atomic_inc(count);
            pairs[2 * (size_t)at] = (uint)(m0 + ty + (b / CR_RN) * CR_LY);
            pairs[2 * (size_t)at + 1] = (uint)(n0 + tx + (b % CR_RN) * CR_LX);
        }
        return;
    }
    cr_tile_exact(x, y, w, bias, in, out, flags, m0, n0, tx, ty, fails);
}

/* cr_gemm_tile's arguments, for cr.cl's cr_f32_tiles: the exact sums in the tile kernel. */
void cr_f32_tile(cr_x_rd x, __global uint *y, __global const uint *w, __global const uint *bias,
                 int in, int out, int flags, __global const ulong *keys, ulong scale, int batch,
                 int m0, int n0, int tx, int ty, __local CR_REAL *xs, __local CR_REAL *ws,
                 __local CR_REAL *xq, __local CR_REAL *ls2, __local int *slot)
{
    (void)scale;
    (void)ls2;
    (void)slot;
    cr_f32_tile_fix(x, y, w, bias, in, out, flags, keys, batch, m0, n0, tx, ty, xs, ws, xq, false,
                    0, 0);
}

/* (i) f32-gemm: a work-group of CR_LX × CR_LY work-items per tile, as cr.cl's cr_gemm, a launch
 * per layer. fix: a count per layer (layers of them, 0 before the forward: the host clears
 * them), then the (row, output) pairs of the layer's outputs whose certificate failed, which
 * cr_f32_fix sums exactly in the launch after it. */
#if !defined(CP_KERNELS) || defined(CP_K_cr_f32_gemm)
__kernel __attribute__((reqd_work_group_size(CR_LX, CR_LY, 1))) void
cr_f32_gemm(CR_LAYER_ARGS, int batch, __local CR_REAL *xs, __local CR_REAL *ws,
            __local CR_REAL *xq, volatile __global uint *fix, int layer, int layers)
{
    (void)scale;
    cr_f32_tile_fix(x, y, p + w_off, (flags & 1) ? p + b_off : 0, in, out, flags,
                    wnorm + wn_off, batch, (int)get_group_id(1) * CR_TM,
                    (int)get_group_id(0) * CR_TN, (int)get_local_id(0), (int)get_local_id(1), xs,
                    ws, xq, true, fix + layer, (__global uint *)fix + layers);
}
#endif

/* After each cr_f32_gemm: the layer's listed outputs summed exactly, a work-group each in turn
 * (cr.cl's cr_group_dot: k over the group's work-items, their accumulators in a tree in ld and
 * lf), with their activation and residual. Where no output failed (on typical layers a few in
 * 10^4 do) each group reads the count and leaves. */
#if !defined(CP_KERNELS) || defined(CP_K_cr_f32_fix)
__kernel __attribute__((reqd_work_group_size(CR_WG, 1, 1))) void
cr_f32_fix(CR_LAYER_ARGS, int batch, __global const uint *fix, int layer, int layers,
           __local long *ld, __local uint *lf)
{
    (void)wnorm;
    (void)wn_off;
    (void)scale;
    __local uint res;
    if (layers > 0) /* TIMING VARIANT: the listed outputs left unsummed (wrong where any fails) */
        return;
    const uint n = fix[layer];
    __global const uint *pairs = fix + layers, *w = p + w_off, *bias = (flags & 1) ? p + b_off : 0;
    for (uint i = (uint)get_group_id(0); i < n; i += (uint)get_num_groups(0)) {
        const uint m = pairs[2 * (size_t)i], o = pairs[2 * (size_t)i + 1];
        if (m >= (uint)batch || o >= (uint)out) /* none is: the same for the whole group */
            continue;
        cr_x_rd xr = x + (size_t)m * (size_t)in;
        uint v = cr_group_dot(xr, w + (size_t)o * (size_t)in, in, bias ? bias + o : 0, ld, lf,
                              &res);
        if (get_local_id(0) == 0)
            y[(size_t)m * (size_t)out + (size_t)o] =
                CP_PLANT(cr_epilogue(v, flags, CR_XO(xr, o, flags)), m == 0 && o == 0);
        barrier(CLK_LOCAL_MEM_FENCE); /* res and the tree's room, before the next */
    }
}
#endif

#endif /* CR_TRAIN */
