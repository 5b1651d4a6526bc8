/* host:exact's and host:f64's training step on the host pool with host:exact's units
 * (hostblas/exact.c), written once for both element types: train_par.c includes this file with
 * T, FMA, SFX (f32 or f64) and UNIT (the field of its unit, unit_f32 or unit_f64) defined, and
 * on x86-64 PAR_FWD_LANES and PAR_DX_LANES (the forward and dx in the batch's lanes, below). Every
 * sum is the one of train_host_tmpl.h, in its order: each output of the three products is one FMA
 * chain from 0 over its k ascending, computed whole by one thread (the threads share out
 * outputs and rows, never k), and the tiles' lanes are outputs. The products as the units see
 * them (a layer of `in` inputs and `out` outputs, K = in):
 *   - forward  z = x·Wᵀ (+ b): rows the batch, outputs W's rows, panels of W (wf); or, for
 *              host:exact and host:f64 at AVX-512 where the batch is a multiple of 16 and the
 *              layer wide (q->lanes[l]), lanes that are rows of the batch, W read in place and
 *              the input transposed (xTl, each layer's written by the forward of the layer
 *              before), so that the step keeps no forward panels of that layer (train_par.c's
 *              par_lanes_create);
 *   - dx       dx = dz·W: rows the batch, outputs W's columns, K = out, panels of Wᵀ (wt); or,
 *              in a layer whose forward runs in the batch's lanes, on 2 threads or fewer
 *              (par_dx_lane), the same lanes, W read in place (its columns, terms `in`
 *              apart) and dzᵀ, with a barrier before the layer's update (which writes W),
 *              so that the step keeps no panels of Wᵀ for such a layer (nor for layer 0,
 *              which has no dx: par_wt);
 *   - dW       dW = dzᵀ·x: rows W's rows (dzᵀ as the input), outputs W's columns, K = the
 *              batch, panels of x (xp, packed from each forward's output as it is written).
 * The epilogues that follow (activation, residual, ReLU mask, update) are elementwise, done by
 * the thread that wrote the region. The update is fused into the backward: layer l's dW, 8 rows
 * at a time, goes through the optimizer's elementwise code (train_host_optim_tmpl.h, each
 * parameter's update reading only its own p, gradient and state, so that its order among the
 * others changes no bit) while in cache, in the phase of layer l, whose dx reads wt and not p;
 * the new weights go into the next step's panels as they are written (wf, read only by a
 * forward, and wt_next, which becomes wt after the step; only the layers that have them), so a
 * step packs no panel unless p was changed outside a step (h->panels_fresh). */

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define FN(name) CAT(name, SFX)

static T FN(par_relu_)(T v)
{
    return (v <= (T)0) ? (T)0 : v;
}

/* One step's (or one forward's) task, shared by the pool's threads. */
struct FN(par_task_) {
    struct train_host *h;
    const T *p;    /* the weights of the forward */
    bool backward; /* a whole step: the backward and the update after the forward */
    double *loss;
    int l;                   /* the layer of the region being finished */
    T *g, *gn;               /* the gradient of layer l's output, and of its input */
    int cur;                 /* dz[cur], dzt[cur]: layer l's */
    int id;                  /* the thread's: its block of gblk */
    int sh;                  /* the products shared out so far (par_share) */
    struct train_scalars sc; /* the step's optimizer scalars (q->optim) */
};

/* n <= XP elements from s to d: a whole panel's row as one copy of constant size. */
static inline void FN(par_copy_)(T *restrict d, const T *restrict s, size_t n)
{
    if (n == XP)
        memcpy(d, s, XP * sizeof(T));
    else
        memcpy(d, s, n * sizeof(T));
}

#ifdef PAR_SHUFFLE
typedef T FN(par_v4_) __attribute__((vector_size(4 * sizeof(T))));

/* Columns [0, 4) of the 4 rows w, w + in, w + 2 in, w + 3 in into d, d + XP, d + 2 XP, d + 3 XP
 * (4 each): a 4 × 4 transposition in vectors (moves only). Used for float only: in double the
 * baseline level has no 32-byte vectors, and GCC's element-wise lowering was slower. */
static inline void FN(par_t4_)(T *restrict d, const T *restrict w, size_t in)
{
    FN(par_v4_) a, b, c, e;
    memcpy(&a, w, sizeof a);
    memcpy(&b, w + in, sizeof b);
    memcpy(&c, w + 2 * in, sizeof c);
    memcpy(&e, w + 3 * in, sizeof e);
    FN(par_v4_) t0 = __builtin_shufflevector(a, b, 0, 4, 1, 5);
    FN(par_v4_) t1 = __builtin_shufflevector(a, b, 2, 6, 3, 7);
    FN(par_v4_) t2 = __builtin_shufflevector(c, e, 0, 4, 1, 5);
    FN(par_v4_) t3 = __builtin_shufflevector(c, e, 2, 6, 3, 7);
    FN(par_v4_)
    r[4] = {
        __builtin_shufflevector(t0, t2, 0, 1, 4, 5), __builtin_shufflevector(t0, t2, 2, 3, 6, 7),
        __builtin_shufflevector(t1, t3, 0, 1, 4, 5), __builtin_shufflevector(t1, t3, 2, 3, 6, 7)};
    for (int j = 0; j < 4; ++j)
        memcpy(d + j * XP, &r[j], sizeof r[j]);
}
#endif

/* Panel j of W's rows (the forward's panels) and of W's columns (dx's), zero padded. */
static void FN(par_pack_rows_)(T *dst, const T *w, int in, int out, int j)
{
    T *d = dst + (size_t)j * (size_t)in * XP;
    int n = out - j * XP < XP ? out - j * XP : XP; /* the rest is padding */
    const T *wj = w + (size_t)j * XP * (size_t)in;
    for (int k = 0; k < in; ++k) /* written in order; XP rows read, each in order */
        for (int v = 0; v < XP; ++v)
            d[(size_t)k * XP + (size_t)v] = v < n ? wj[(size_t)v * (size_t)in + (size_t)k] : (T)0;
}

static void FN(par_pack_cols_)(T *dst, const T *w, int in, int out, int j)
{
    for (int o = 0; o < out; ++o)
        for (int v = 0; v < XP; ++v) {
            int k = j * XP + v;
            dst[((size_t)j * (size_t)out + (size_t)o) * XP + (size_t)v] =
                k < in ? w[(size_t)o * (size_t)in + (size_t)k] : (T)0;
        }
}

/* Thread id of n's share of the panels of every layer's W (and of Wᵀ for a step): every one,
 * where they do not hold t->p already (a step keeps them for the next, h->panels_fresh). */
static void FN(par_pack_)(struct FN(par_task_) * t, int id, int n)
{
    const cp_model *m = t->h->m;
    struct train_par *q = t->h->par;
    long total = 0;
    for (int l = 0; l < m->n_layers; ++l)
        total += par_panels(m->layers[l].out) + (t->backward ? par_panels(m->layers[l].in) : 0);
    long i0 = total * id / n, i1 = total * (id + 1) / n, i = 0;
    for (int l = 0; l < m->n_layers && i < i1; ++l) {
        const cp_layer *ly = &m->layers[l];
        const T *w = t->p + ly->w_off;
        for (int j = 0; j < par_panels(ly->out); ++j, ++i) /* none in the batch's lanes */
            if (i >= i0 && i < i1 && !par_lane(q, l))
                FN(par_pack_rows_)((T *)q->wf + q->wf_off[l], w, ly->in, ly->out, j);
        for (int j = 0; t->backward && j < par_panels(ly->in); ++j, ++i)
            if (i >= i0 && i < i1 && par_wt(q, l))
                FN(par_pack_cols_)((T *)q->wt + q->wt_off[l], w, ly->in, ly->out, j);
    }
}

/* The forward's units of layer t->l: z (+ bias), then y and the next layer's x panels. */
static void FN(par_fwd_run_)(void *arg, int r0, int r1, int p0, int p1)
{
    struct FN(par_task_) *t = arg;
    struct train_host *h = t->h;
    struct train_par *q = h->par;
    const cp_layer *ly = &h->m->layers[t->l];
    size_t in = (size_t)ly->in, out = (size_t)ly->out, B = (size_t)h->batch;
    const T *x = (const T *)h->acts + (size_t)t->l * h->stride;
    T *y = (T *)h->acts + (size_t)(t->l + 1) * h->stride;
    T *z = (T *)h->z + (size_t)t->l * h->stride;
    cp_layer lz = *ly; /* the sum and the bias only: z */
    lz.act = CP_ACT_NONE;
    lz.residual = false;
    size_t o0 = (size_t)p0 * XP, o1 = (size_t)p1 * XP < out ? (size_t)p1 * XP : out;
    bool next = t->l + 1 < h->m->n_layers;
#ifdef PAR_FWD_LANES
    /* the next layer's input transposed, where the forward runs in the batch's lanes */
    T *xt = next && par_lane(q, t->l + 1) ? (T *)q->xTl[(t->l + 1) % 2] : NULL;
    if (par_lane(q, t->l))
        PAR_FWD_LANES(t->p + ly->w_off, ly->has_bias ? t->p + ly->b_off : NULL,
                      (const T *)q->xTl[t->l == 0 ? 2 : t->l % 2], z, (int)B, (int)in, (int)out, r0,
                      r1, (int)o0, (int)o1);
    else
#endif
        q->UNIT(&lz, t->p, (const T *)q->wf + q->wf_off[t->l], x, z, r0, r1, p0, p1);
    T *xp = t->backward && next ? (T *)q->xp + q->xp_off[t->l + 1] : NULL;
    const bool relu = ly->act == CP_ACT_RELU, res = ly->residual;
    for (size_t b = (size_t)r0; b < (size_t)r1; ++b) {
        const T *zr = z + b * out, *xr = x + b * in;
        T *yr = y + b * out;
        for (size_t o = o0; o < o1; ++o) {
            T r = relu ? FN(par_relu_)(zr[o]) : zr[o];
            yr[o] = res ? xr[o] + r : r;
        }
#ifdef PAR_FWD_LANES
        for (size_t o = o0; xt && o < o1; ++o)
            xt[o * B + b] = yr[o];
#endif
        for (size_t o = o0; xp && o < o1; o += XP) /* row b of each panel: XP in a run */
            FN(par_copy_)(xp + ((o / XP) * B + b) * XP, yr + o, o1 - o < XP ? o1 - o : XP);
    }
}

/* dz of layer l and its transpose at [b][k] from the gradient gk of its output there. */
static void FN(par_dz_)(struct train_host *h, int l, int cur, size_t b, size_t k, T gk)
{
    struct train_par *q = h->par;
    const cp_layer *ly = &h->m->layers[l];
    size_t out = (size_t)ly->out, B = (size_t)h->batch;
    const T *z = (const T *)h->z + (size_t)l * h->stride;
    T d = ly->act == CP_ACT_RELU ? (z[b * out + k] > (T)0 ? gk : (T)0) : gk;
    ((T *)q->dz[cur])[b * out + k] = d;
    ((T *)q->dzt[cur])[k * B + b] = d;
}

/* dx's units of layer t->l into gn, then the residual, and the layer below's dz. */
static void FN(par_dx_run_)(void *arg, int r0, int r1, int p0, int p1)
{
    struct FN(par_task_) *t = arg;
    struct train_host *h = t->h;
    struct train_par *q = h->par;
    const cp_layer *ly = &h->m->layers[t->l];
    size_t in = (size_t)ly->in, out = (size_t)ly->out;
    size_t k0 = (size_t)p0 * XP, k1 = (size_t)p1 * XP < in ? (size_t)p1 * XP : in;
#ifdef PAR_DX_LANES
    if (par_dx_lane(q, t->l)) /* W in place (not yet updated: par_backward_'s barrier) and dzᵀ */
        PAR_DX_LANES(t->p + ly->w_off, (const T *)q->dzt[t->cur], t->gn, h->batch, (int)in,
                     (int)out, r0, r1, (int)k0, (int)k1);
    else
#endif
    {
        cp_layer ld = {.in = ly->out, .out = ly->in, .act = CP_ACT_NONE}; /* K = out */
        q->UNIT(&ld, t->p, (const T *)q->wt + q->wt_off[t->l], (const T *)q->dz[t->cur], t->gn, r0,
                r1, p0, p1);
    }
    /* the residual, then the layer below's dz (its outputs are this layer's inputs) by rows,
     * and dzᵀ from it column by column */
    size_t B = (size_t)h->batch;
    const bool relu = h->m->layers[t->l - 1].act == CP_ACT_RELU, res = ly->residual;
    const T *zb = (const T *)h->z + (size_t)(t->l - 1) * h->stride;
    T *dz = q->dz[1 - t->cur], *dzt = q->dzt[1 - t->cur];
    for (size_t b = (size_t)r0; b < (size_t)r1; ++b) {
        T *gr = t->gn + b * in, *dr = dz + b * in;
        const T *g = t->g + b * out, *zr = zb + b * in;
        for (size_t k = k0; k < k1; ++k) {
            T v = res ? gr[k] + g[k] : gr[k];
            gr[k] = v;
            dr[k] = relu ? (zr[k] > (T)0 ? v : (T)0) : v;
        }
    }
    for (size_t k = k0; k < k1; ++k)
        for (size_t b = (size_t)r0; b < (size_t)r1; ++b)
            dzt[k * B + b] = dz[b * in + k];
}

/* The update of W's rows [o0, o1) (8 at most, in one panel), columns [k0, k1), of layer t->l
 * from their gradient gw (rows from o0, `in` apart): the optimizer's (train_host_optim_tmpl.h's
 * elementwise code) or plain SGD's, then the new weights into the panels of the next step's forward
 * (wf) and dx (wt_next: this step's dx of the layer reads wt). */
static void FN(par_update_)(struct FN(par_task_) * t, const T *gw, size_t o0, size_t o1, size_t k0,
                            size_t k1)
{
    struct train_host *h = t->h;
    struct train_par *q = h->par;
    const cp_layer *ly = &h->m->layers[t->l];
    size_t in = (size_t)ly->in, out = (size_t)ly->out, n = k1 - k0;
    T *w = (T *)h->p + ly->w_off, *st0 = h->st[0], *st1 = h->st[1];
    T *wt = (T *)q->wt_next + q->wt_off[t->l];
    const size_t kt = par_wt(q, t->l) ? k1 : k0; /* the columns whose Wᵀ panels are kept */
    for (size_t o = o0; o < o1; ++o) {
        size_t i = o * in + k0, pi = ly->w_off + i;
        const T *g = gw + (o - o0) * in + k0;
        T *s0 = st0 ? st0 + pi : NULL, *s1 = st1 ? st1 + pi : NULL;
        if (q->optim)
            FN(train_host_optim_span_isa_)(&h->opt, &t->sc, w + i, g, s0, s1, n, q->isa);
        else
            FN(train_host_axpy_isa_)(w + i, g, (T)(-h->lr), n, q->isa);
        for (size_t k = k0; k < kt; k += XP) { /* row o of each panel of columns */
            T *d = wt + ((k / XP) * out + o) * XP;
            if (par_streams(q) && k1 - k >= XP)
                par_stream_row(d, w + o * in + k, XP * sizeof(T));
            else
                FN(par_copy_)(d, w + o * in + k, k1 - k < XP ? k1 - k : XP);
        }
    }
    if (par_lane(q, t->l)) /* the forward reads W in place: no panels to keep */
        return;
    T *wf = (T *)q->wf + q->wf_off[t->l] + (o0 / XP) * in * XP + o0 % XP;
    const T *w0 = w + o0 * in;
    if (o1 - o0 == 8) { /* a whole block: 4 × 4 transpositions, then 8 elements a store */
        size_t k = k0;
#ifdef PAR_SHUFFLE
        for (; sizeof(T) == 4 && k + 4 <= k1; k += 4) { /* float: one SSE register a row */
            FN(par_t4_)(wf + k * XP, w0 + k, in);
            FN(par_t4_)(wf + k * XP + 4, w0 + 4 * in + k, in);
        }
#endif
        for (; k < k1; ++k)
            for (size_t i = 0; i < 8; ++i)
                wf[k * XP + i] = w0[i * in + k];
    } else
        for (size_t k = k0; k < k1; ++k)
            for (size_t i = 0; i < o1 - o0; ++i)
                wf[k * XP + i] = w0[i * in + k];
}

/* dW's units of layer t->l (rows: W's rows), 8 rows at a time (the unit's tile) into the
 * thread's block of gblk (the unit's rows from 0, so that the block is written from its start),
 * each block updated while it is in cache. */
static void FN(par_dw_run_)(void *arg, int r0, int r1, int p0, int p1)
{
    struct FN(par_task_) *t = arg;
    struct train_host *h = t->h;
    struct train_par *q = h->par;
    const cp_layer *ly = &h->m->layers[t->l];
    size_t in = (size_t)ly->in;
    cp_layer lw = {.in = h->batch, .out = ly->in, .act = CP_ACT_NONE};
    size_t k0 = (size_t)p0 * XP, k1 = (size_t)p1 * XP < in ? (size_t)p1 * XP : in;
    size_t B = (size_t)h->batch;
    T *gw = (T *)q->gblk + (size_t)t->id * 8 * (size_t)h->m->max_width;
    for (int r = r0; r < r1; r += 8) {
        int re = r + 8 < r1 ? r + 8 : r1;
        const T *dzt = (const T *)q->dzt[t->cur] + (size_t)r * B; /* rows of dzᵀ: W's rows */
        q->UNIT(&lw, t->p, (const T *)q->xp + q->xp_off[t->l], dzt, gw, 0, re - r, p0, p1);
        FN(par_update_)(t, gw, (size_t)r, (size_t)re, k0, k1);
    }
    if (par_streams(q)) /* the stores to wt_next before the phase's barrier */
        par_stream_fence();
}

/* Thread id of n's part of layer t->l's backward: dx, dW, and the bias's gradient (outputs
 * shared out in ranges). */
static void FN(par_backward_)(struct FN(par_task_) * t, struct host_pool *pool, int id, int n)
{
    struct train_host *h = t->h;
    const cp_layer *ly = &h->m->layers[t->l];
    int B = h->batch;
    struct train_par *q = h->par;
    /* 16 rows: the epilogue writes dzᵀ's lines whole (where B is a multiple of 16); in the
     * batch's lanes dx reads W itself, which the update below writes: a barrier between */
    if (t->l > 0 && par_dx_lane(q, t->l)) {
        int panels = par_panels(ly->in);
        par_share(q, t->sh++, id, n, B, par_fwd_rows(q, t->l, B, panels, n), panels, PAR_CHUNK,
                  FN(par_dx_run_), t);
        host_pool_sync(pool, n);
    } else if (t->l > 0)
        par_share(q, t->sh++, id, n, B, 16, par_panels(ly->in), PAR_CHUNK, FN(par_dx_run_), t);
    /* whole panels of W's rows: the update writes wf's lines whole (par_update_); each unit
     * whole rows of W (every panel of columns), so that a thread updates the rows of W that its
     * forward reads next (the forward's units are ranges of outputs where the batch is one block
     * of rows, as at d=512 and 1024 with B=64), and W, m and v stay in its core's cache: on the
     * H200 machine's 16 cores host:exact's step was 18-35 % faster than with units of 8 panels
     * (docs/PERFORMANCE.md, 2026-12-01) */
    par_share(q, t->sh++, id, n, ly->out, XP, par_panels(ly->in), par_panels(ly->in),
              FN(par_dw_run_), t);
    if (!ly->has_bias)
        return;
    const T *dz = q->dz[t->cur];
    T *p = h->p, neg_lr = (T)(-h->lr), *gb = q->gb, *st0 = h->st[0], *st1 = h->st[1];
    size_t out = (size_t)ly->out, o0 = out * (size_t)id / (size_t)n;
    size_t o1 = out * (size_t)(id + 1) / (size_t)n, pi = ly->b_off + o0;
    for (size_t o = o0; o < o1; ++o) {
        T acc = (T)0;
        for (size_t b = 0; b < (size_t)B; ++b)
            acc = acc + dz[b * out + o];
        gb[o] = acc;
        if (!q->optim)
            p[ly->b_off + o] = FMA(neg_lr, acc, p[ly->b_off + o]);
    }
    T *s0 = st0 ? st0 + pi : NULL, *s1 = st1 ? st1 + pi : NULL;
    if (q->optim) /* the bias is read from p by the forward only: updated here */
        FN(train_host_optim_span_isa_)(&h->opt, &t->sc, p + pi, gb + o0, s0, s1, o1 - o0, q->isa);
}

/* The task: the panels, the forward, and for a step the loss, the backward and the update,
 * with a barrier between the phases (every thread takes each). */
static void FN(par_task_run_)(void *arg, struct host_pool *pool, int id, int n)
{
    struct FN(par_task_) *t0 = arg, task = *t0;
    struct FN(par_task_) *t = &task; /* each thread's own: l, g, gn and cur change */
    t->id = id;
    struct train_host *h = t->h;
    const cp_model *m = h->m;
    int B = h->batch, L = m->n_layers;
    if (!h->panels_fresh || !t->backward) {
        FN(par_pack_)(t, id, n);
        host_pool_sync(pool, n);
    }
    for (t->l = 0; t->l < L; ++t->l) {
        int panels = par_panels(m->layers[t->l].out);
        par_share(h->par, t->sh++, id, n, B, par_fwd_rows(h->par, t->l, B, panels, n), panels,
                  PAR_CHUNK, FN(par_fwd_run_), t);
        host_pool_sync(pool, n);
    }
    if (!t->backward)
        return;
    t->g = h->g;
    t->gn = h->gn;
    t->cur = 0;
    { /* the output's gradient and the last layer's dz, each thread a range of the outputs (dzᵀ's
       * rows); the loss, a sum in order, by thread 0 (it alone took 7 % of the step at d=512
       * L=8 B=64 on 16 threads, docs/PERFORMANCE.md, 2026-12-01) */
        size_t nt = (size_t)B * (size_t)m->out_width, out = (size_t)m->out_width;
        const T *y = (const T *)h->acts + (size_t)L * h->stride, *tt = h->t;
        T s = (T)2 / (T)nt;
        size_t o0 = out * (size_t)id / (size_t)n, o1 = out * (size_t)(id + 1) / (size_t)n;
        for (size_t b = 0; b < (size_t)B; ++b)
            for (size_t o = o0; o < o1; ++o) {
                size_t i = b * out + o;
                t->g[i] = s * (y[i] - tt[i]);
                FN(par_dz_)(h, L - 1, 0, b, o, t->g[i]);
            }
        if (id == 0)
            *t->loss = FN(train_loss_)(y, tt, nt);
    }
    host_pool_sync(pool, n);
    for (t->l = L - 1; t->l >= 0; --t->l) {
        FN(par_backward_)(t, pool, id, n);
        host_pool_sync(pool, n);
        T *tmp = t->g;
        t->g = t->gn;
        t->gn = tmp;
        t->cur = 1 - t->cur;
    }
}

void FN(train_par_forward_)(struct train_host *h, const void *p)
{
    struct FN(par_task_) t = {.h = h, .p = p};
    h->panels_fresh = false; /* wf now holds p's rows */
    par_share_start(h->par);
    host_pool_task(h->par->pool, h->par->threads, FN(par_task_run_), &t);
}

/* A step: the panels where stale, the forward, the backward with each layer's update as its
 * gradient is known (its new weights into wf and wt_next, which becomes wt). */
void FN(train_par_step_)(struct train_host *h, double *loss)
{
    struct FN(par_task_) t = {.h = h, .p = h->p, .backward = true, .loss = loss};
    ++h->step; /* before the update, which reads it (nothing before reads it) */
    train_scalars_at(&h->opt, h->step, &t.sc);
    par_share_start(h->par);
    host_pool_task(h->par->pool, h->par->threads, FN(par_task_run_), &t);
    void *wt = h->par->wt;
    h->par->wt = h->par->wt_next;
    h->par->wt_next = wt;
    h->panels_fresh = true;
}

/* The panels of layer 0's input (the same at every step; the others' are written by each
 * forward). */
void FN(train_par_pack_input_)(struct train_host *h)
{
    struct train_par *q = h->par;
    const cp_layer *ly = &h->m->layers[0];
    size_t B = (size_t)h->batch, in = (size_t)ly->in;
    const T *x = h->acts;
    T *xp = (T *)q->xp + q->xp_off[0];
    for (size_t b = 0; b < B; ++b)
        for (size_t k = 0; k < in; ++k)
            xp[((k / XP) * B + b) * XP + k % XP] = x[b * in + k];
}

#undef FN
#undef CAT
#undef CAT2
