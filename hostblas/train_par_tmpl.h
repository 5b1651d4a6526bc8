/* host:exact's and host:f64's training step on the host pool with host:exact's units
 * (hostblas/exact.c), written once for both element types: train_par.c includes this file with
 * T, FMA, SFX (f32 or f64) and UNIT (the field of its unit, unit_f32 or unit_f64) defined. Every
 * sum is the one of train_host_tmpl.h, in its order: each output of the three products is one FMA
 * chain from 0 over its k ascending, computed whole by one thread (the threads share out
 * outputs and rows, never k), and the tiles' lanes are outputs. The products as the units see
 * them (a layer of `in` inputs and `out` outputs, K = in):
 *   - forward  z = x·Wᵀ (+ b): rows the batch, outputs W's rows, panels of W (wf);
 *   - dx       dx = dz·W: rows the batch, outputs W's columns, K = out, panels of Wᵀ (wt);
 *   - dW       dW = dzᵀ·x: rows W's rows (dzᵀ as the input), outputs W's columns, K = the
 *              batch, panels of x (xp, packed from each forward's output as it is written).
 * The epilogues that follow (activation, residual, ReLU mask, update) are elementwise, done by
 * the thread that wrote the region. */

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
    int l;     /* the layer of the region being finished */
    T *g, *gn; /* the gradient of layer l's output, and of its input */
    int cur;   /* dz[cur], dzt[cur]: layer l's */
};

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

/* Thread id of n's share of the panels of every layer's W (and of Wᵀ for a step). */
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
        for (int j = 0; j < par_panels(ly->out); ++j, ++i)
            if (i >= i0 && i < i1)
                FN(par_pack_rows_)((T *)q->wf + q->wf_off[l], w, ly->in, ly->out, j);
        for (int j = 0; t->backward && j < par_panels(ly->in); ++j, ++i)
            if (i >= i0 && i < i1)
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
    q->UNIT(&lz, t->p, (const T *)q->wf + q->wf_off[t->l], x, z, r0, r1, p0, p1);
    size_t o1 = (size_t)p1 * XP < out ? (size_t)p1 * XP : out;
    T *xp = t->backward && t->l + 1 < h->m->n_layers ? (T *)q->xp + q->xp_off[t->l + 1] : NULL;
    for (size_t b = (size_t)r0; b < (size_t)r1; ++b)
        for (size_t o = (size_t)p0 * XP; o < o1; ++o) {
            T acc = z[b * out + o];
            T r = ly->act == CP_ACT_RELU ? FN(par_relu_)(acc) : acc;
            y[b * out + o] = ly->residual ? x[b * in + o] + r : r;
            if (xp)
                xp[((o / XP) * B + b) * XP + o % XP] = y[b * out + o];
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
    cp_layer ld = {.in = ly->out, .out = ly->in, .act = CP_ACT_NONE}; /* K = out */
    q->UNIT(&ld, t->p, (const T *)q->wt + q->wt_off[t->l], (const T *)q->dz[t->cur], t->gn, r0, r1,
            p0, p1);
    size_t k1 = (size_t)p1 * XP < in ? (size_t)p1 * XP : in;
    for (size_t b = (size_t)r0; b < (size_t)r1; ++b)
        for (size_t k = (size_t)p0 * XP; k < k1; ++k) {
            if (ly->residual)
                t->gn[b * in + k] = t->gn[b * in + k] + t->g[b * out + k];
            FN(par_dz_)(h, t->l - 1, 1 - t->cur, b, k, t->gn[b * in + k]);
        }
}

/* dW's units of layer t->l (rows: W's rows), into the gradient or, for plain SGD, into gtmp
 * and then the update in place. */
static void FN(par_dw_run_)(void *arg, int r0, int r1, int p0, int p1)
{
    struct FN(par_task_) *t = arg;
    struct train_host *h = t->h;
    struct train_par *q = h->par;
    const cp_layer *ly = &h->m->layers[t->l];
    size_t in = (size_t)ly->in;
    cp_layer lw = {.in = h->batch, .out = ly->in, .act = CP_ACT_NONE};
    T *G = h->grad, *w = (T *)h->p + ly->w_off;
    T *gw = G ? G + ly->w_off : q->gtmp;
    q->UNIT(&lw, t->p, (const T *)q->xp + q->xp_off[t->l], (const T *)q->dzt[t->cur], gw, r0, r1,
            p0, p1);
    if (G)
        return;
    size_t k0 = (size_t)p0 * XP, k1 = (size_t)p1 * XP < in ? (size_t)p1 * XP : in;
    for (size_t o = (size_t)r0; o < (size_t)r1; ++o)
        FN(train_host_axpy_isa_)(w + o * in + k0, gw + o * in + k0, (T)(-h->lr), k1 - k0, q->isa);
}

/* Thread id of n's part of layer t->l's backward: dx, dW, and the bias's gradient (outputs
 * shared out in ranges). */
static void FN(par_backward_)(struct FN(par_task_) * t, int id, int n)
{
    struct train_host *h = t->h;
    const cp_layer *ly = &h->m->layers[t->l];
    int B = h->batch;
    if (t->l > 0)
        exact_share(B, par_panels(ly->in), id, n, FN(par_dx_run_), t);
    exact_share(ly->out, par_panels(ly->in), id, n, FN(par_dw_run_), t);
    if (!ly->has_bias)
        return;
    const T *dz = h->par->dz[t->cur];
    T *G = h->grad, *p = h->p, neg_lr = (T)(-h->lr);
    size_t out = (size_t)ly->out;
    for (size_t o = out * (size_t)id / (size_t)n; o < out * (size_t)(id + 1) / (size_t)n; ++o) {
        T acc = (T)0;
        for (size_t b = 0; b < (size_t)B; ++b)
            acc = acc + dz[b * out + o];
        if (G)
            G[ly->b_off + o] = acc;
        else
            p[ly->b_off + o] = FMA(neg_lr, acc, p[ly->b_off + o]);
    }
}

/* The task: the panels, the forward, and for a step the loss, the backward and the update,
 * with a barrier between the phases (every thread takes each). */
static void FN(par_task_run_)(void *arg, struct host_pool *pool, int id, int n)
{
    struct FN(par_task_) *t0 = arg, task = *t0;
    struct FN(par_task_) *t = &task; /* each thread's own: l, g, gn and cur change */
    struct train_host *h = t->h;
    const cp_model *m = h->m;
    int B = h->batch, L = m->n_layers;
    FN(par_pack_)(t, id, n);
    host_pool_sync(pool, n);
    for (t->l = 0; t->l < L; ++t->l) {
        exact_share(B, par_panels(m->layers[t->l].out), id, n, FN(par_fwd_run_), t);
        host_pool_sync(pool, n);
    }
    if (!t->backward)
        return;
    t->g = h->g;
    t->gn = h->gn;
    t->cur = 0;
    if (id == 0) { /* the loss, the output's gradient and the last layer's dz */
        size_t nt = (size_t)B * (size_t)m->out_width, out = (size_t)m->out_width;
        const T *y = (const T *)h->acts + (size_t)L * h->stride, *tt = h->t;
        *t->loss = FN(train_loss_)(y, tt, nt);
        T s = (T)2 / (T)nt;
        for (size_t i = 0; i < nt; ++i)
            t->g[i] = s * (y[i] - tt[i]);
        for (size_t b = 0; b < (size_t)B; ++b)
            for (size_t o = 0; o < out; ++o)
                FN(par_dz_)(h, L - 1, 0, b, o, t->g[b * out + o]);
    }
    host_pool_sync(pool, n);
    for (t->l = L - 1; t->l >= 0; --t->l) {
        FN(par_backward_)(t, id, n);
        host_pool_sync(pool, n);
        T *tmp = t->g;
        t->g = t->gn;
        t->gn = tmp;
        t->cur = 1 - t->cur;
    }
    if (h->grad) {
        size_t np = h->m->n_params;
        size_t i0 = np * (size_t)id / (size_t)n, i1 = np * (size_t)(id + 1) / (size_t)n;
        FN(train_host_optim_isa_)(h, i0, i1, h->par->isa);
    }
}

void FN(train_par_forward_)(struct train_host *h, const void *p)
{
    struct FN(par_task_) t = {.h = h, .p = p};
    host_pool_task(h->par->pool, h->par->threads, FN(par_task_run_), &t);
}

void FN(train_par_step_)(struct train_host *h, double *loss)
{
    struct FN(par_task_) t = {.h = h, .p = h->p, .backward = true, .loss = loss};
    ++h->step; /* before the update, which reads it (nothing before reads it) */
    host_pool_task(h->par->pool, h->par->threads, FN(par_task_run_), &t);
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
