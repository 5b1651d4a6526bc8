/* The host trainer, written once for both element types: train_host.c includes this file
 * with T (float or double), FMA (fmaf or fma) and SFX (f32 or f64) defined. The order of
 * every operation is the one that clparity/train.h states and clkernels/train.cl follows. */

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define FN(name) CAT(name, SFX)

static T FN(relu_)(T v)
{
    return (v <= (T)0) ? (T)0 : v;
}

int FN(train_host_create_)(struct train_host *h, const cp_model *m, int batch, const float *x,
                           const float *t, const cp_optim *o)
{
    memset(h, 0, sizeof *h);
    h->isa = TRAIN_ISA_BASELINE;
    h->m = m;
    h->batch = batch;
    h->stride = (size_t)batch * (size_t)m->max_width;
    size_t L = (size_t)m->n_layers;
    size_t nt = (size_t)batch * (size_t)m->out_width;
    h->p = malloc((m->n_params ? m->n_params : 1) * sizeof(T));
    h->acts = calloc((L + 1) * h->stride, sizeof(T));
    h->z = calloc(L * h->stride + 1, sizeof(T));
    h->g = calloc(h->stride, sizeof(T));
    h->gn = calloc(h->stride, sizeof(T));
    h->dz = calloc(h->stride, sizeof(T));
    h->t = calloc(nt + 1, sizeof(T));
    h->opt = *o;
    size_t np1 = m->n_params ? m->n_params : 1, ns = train_state_count(o->kind);
    bool oom = false;
    if (train_needs_grad(o))
        oom = !(h->grad = calloc(np1, sizeof(T)));
    /* PyTorch's zeros_like, written now: a page of calloc's that the first step reads before it
     * writes it (the update reads its state first) is mapped to the zero page, then copied at
     * the write, a second fault that flushes the TLB of every core running the process. */
    for (size_t k = 0; k < ns; ++k)
        if (!oom && !(oom = !(h->st[k] = malloc(np1 * sizeof(T)))))
            memset(h->st[k], 0, np1 * sizeof(T));
    if (oom || !h->p || !h->acts || !h->z || !h->g || !h->gn || !h->dz || !h->t) {
        train_host_free(h);
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory for the host trainer");
    }
    T *p = h->p, *a = h->acts, *tt = h->t;
    for (size_t i = 0; i < m->n_params; ++i)
        p[i] = (T)m->params[i];
    for (size_t b = 0; b < (size_t)batch; ++b)
        for (size_t k = 0; k < (size_t)m->in_width; ++k)
            a[b * (size_t)m->in_width + k] = (T)x[b * (size_t)m->in_width + k];
    for (size_t i = 0; i < nt; ++i)
        tt[i] = (T)t[i];
    h->lr = (double)(float)o->lr;
    return CP_OK;
}

#define OPT_ATTR static
#define OPT_NAME FN(optim_span_)
#define ADAM_NAME FN(adam_span_)
#include "train_host_optim_tmpl.h"
#undef OPT_ATTR
#undef OPT_NAME
#undef ADAM_NAME

/* The update compiled for AVX2 + FMA and for AVX-512 F, where the loops vectorise (this file
 * is built with -fno-math-errno, CMakeLists.txt: errno would keep sqrt a call, and a square
 * root of v >= 0 never sets it). */
#if defined(__x86_64__) && defined(__GNUC__)
#define OPT_ATTR __attribute__((target("avx2,fma"))) static
#define OPT_NAME FN(optim_span_avx2_)
#define ADAM_NAME FN(adam_span_avx2_)
#include "train_host_optim_tmpl.h"
#undef OPT_ATTR
#undef OPT_NAME
#undef ADAM_NAME
#define OPT_ATTR __attribute__((target("avx512f"))) static
#define OPT_NAME FN(optim_span_avx512_)
#define ADAM_NAME FN(adam_span_avx512_)
#include "train_host_optim_tmpl.h"
#undef OPT_ATTR
#undef OPT_NAME
#undef ADAM_NAME
#endif

void FN(train_host_optim_span_isa_)(const cp_optim *o, const struct train_scalars *s, T *p,
                                    const T *G, T *st0, T *st1, size_t n, int isa)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (isa == TRAIN_ISA_AVX512) {
        FN(optim_span_avx512_)(o, s, p, G, st0, st1, n);
        return;
    }
    if (isa == TRAIN_ISA_AVX2) {
        FN(optim_span_avx2_)(o, s, p, G, st0, st1, n);
        return;
    }
#endif
    (void)isa;
    FN(optim_span_)(o, s, p, G, st0, st1, n);
}

/* Parameters [i0, i1) of h through the update at level isa (TRAIN_ISA_BASELINE: the portable
 * loop), at step h->step. */
static void FN(optim_at_)(struct train_host *h, size_t i0, size_t i1, int isa)
{
    struct train_scalars s;
    train_scalars_at(&h->opt, h->step, &s);
    T *st0 = h->st[0], *st1 = h->st[1];
    FN(train_host_optim_span_isa_)
    (&h->opt, &s, (T *)h->p + i0, (const T *)h->grad + i0, st0 ? st0 + i0 : NULL,
     st1 ? st1 + i0 : NULL, i1 - i0, isa);
}

void FN(train_host_optim_)(struct train_host *h)
{
    FN(optim_at_)(h, 0, h->m->n_params, h->isa);
}

/* w[i] = fma(a, g[i], w[i]) for i < n: plain SGD's update, at each level (the same bits). */
static inline __attribute__((always_inline)) void FN(axpy_)(T *restrict w, const T *restrict g, T a,
                                                            size_t n)
{
    for (size_t i = 0; i < n; ++i)
        w[i] = FMA(a, g[i], w[i]);
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2,fma"))) static void FN(axpy_avx2_)(T *w, const T *g, T a, size_t n)
{
    FN(axpy_)(w, g, a, n);
}

__attribute__((target("avx512f"))) static void FN(axpy_avx512_)(T *w, const T *g, T a, size_t n)
{
    FN(axpy_)(w, g, a, n);
}
#endif

void FN(train_host_axpy_isa_)(T *w, const T *g, T a, size_t n, int isa)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (isa == TRAIN_ISA_AVX512) {
        FN(axpy_avx512_)(w, g, a, n);
        return;
    }
    if (isa == TRAIN_ISA_AVX2) {
        FN(axpy_avx2_)(w, g, a, n);
        return;
    }
#endif
    (void)isa;
    FN(axpy_)(w, g, a, n);
}

void FN(train_host_optim_isa_)(struct train_host *h, size_t i0, size_t i1, int isa)
{
    FN(optim_at_)(h, i0, i1, isa);
}

void FN(train_host_forward_)(struct train_host *h, const void *pv)
{
    const cp_model *m = h->m;
    const T *p = pv;
    T *acts = h->acts, *zs = h->z;
    size_t B = (size_t)h->batch;
    for (int l = 0; l < m->n_layers; ++l) {
        const cp_layer *ly = &m->layers[l];
        size_t in = (size_t)ly->in, out = (size_t)ly->out;
        const T *x = acts + (size_t)l * h->stride;
        T *y = acts + (size_t)(l + 1) * h->stride;
        T *z = zs + (size_t)l * h->stride;
        const T *w = p + ly->w_off;
        for (size_t b = 0; b < B; ++b)
            for (size_t o = 0; o < out; ++o) {
                T acc = (T)0;
                for (size_t k = 0; k < in; ++k)
                    acc = FMA(x[b * in + k], w[o * in + k], acc);
                if (ly->has_bias)
                    acc = acc + p[ly->b_off + o];
                z[b * out + o] = acc;
                T r = ly->act == CP_ACT_RELU ? FN(relu_)(acc) : acc;
                y[b * out + o] = ly->residual ? x[b * in + o] + r : r;
            }
    }
}

void FN(train_host_step_)(struct train_host *h, double *loss)
{
    const cp_model *m = h->m;
    T *p = h->p, *acts = h->acts, *zs = h->z, *tt = h->t;
    size_t B = (size_t)h->batch;
    size_t L = (size_t)m->n_layers;
    FN(train_host_forward_)(h, p);
    size_t n = B * (size_t)m->out_width;
    const T *y = acts + L * h->stride;
    *loss = FN(train_loss_)(y, tt, n);
    T *g = h->g, *gn = h->gn, *dz = h->dz;
    T s = (T)2 / (T)n;
    for (size_t i = 0; i < n; ++i)
        g[i] = s * (y[i] - tt[i]);
    T neg_lr = (T)(-h->lr);
    T *G = h->grad;
    for (size_t li = L; li-- > 0;) {
        const cp_layer *ly = &m->layers[li];
        size_t in = (size_t)ly->in, out = (size_t)ly->out;
        const T *x = acts + li * h->stride;
        const T *z = zs + li * h->stride;
        T *w = p + ly->w_off;
        for (size_t i = 0; i < B * out; ++i)
            dz[i] = ly->act == CP_ACT_RELU ? (z[i] > (T)0 ? g[i] : (T)0) : g[i];
        if (li > 0) /* dx with the pre-update W */
            for (size_t b = 0; b < B; ++b)
                for (size_t k = 0; k < in; ++k) {
                    T acc = (T)0;
                    for (size_t o = 0; o < out; ++o)
                        acc = FMA(dz[b * out + o], w[o * in + k], acc);
                    if (ly->residual)
                        acc = acc + g[b * out + k];
                    gn[b * in + k] = acc;
                }
        /* plain SGD updates in place (W is not read again in this step); the other
         * optimizers keep the gradient for their update after the backward */
        T *gw = G ? G + ly->w_off : NULL, *gb = G ? G + ly->b_off : NULL;
        for (size_t o = 0; o < out; ++o)
            for (size_t k = 0; k < in; ++k) {
                T acc = (T)0;
                for (size_t b = 0; b < B; ++b)
                    acc = FMA(dz[b * out + o], x[b * in + k], acc);
                if (gw)
                    gw[o * in + k] = acc;
                else
                    w[o * in + k] = FMA(neg_lr, acc, w[o * in + k]);
            }
        if (ly->has_bias)
            for (size_t o = 0; o < out; ++o) {
                T acc = (T)0;
                for (size_t b = 0; b < B; ++b)
                    acc = acc + dz[b * out + o];
                if (gb)
                    gb[o] = acc;
                else
                    p[ly->b_off + o] = FMA(neg_lr, acc, p[ly->b_off + o]);
            }
        T *tmp = g;
        g = gn;
        gn = tmp;
    }
    ++h->step;
    if (G)
        FN(train_host_optim_)(h);
}

#undef FN
#undef CAT
#undef CAT2
