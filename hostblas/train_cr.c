/* host:cr's trainer: host:exact's steps (train_host_tmpl.h, clparity/train.h) with the contract
 * of host:cr for every sum (issue 23): the forward's, the input gradient's (its residual term
 * inside the sum) and the weight and bias gradients', each the exact sum of its exact terms
 * rounded once (cr_acc). The operations of one or two terms (the output gradient s·(y − t), the
 * update fma(−lr, g, w), the residual add) are float arithmetic, each correctly rounded by
 * IEEE 754. The optimizers other than plain SGD keep the rounded gradient sums in h->grad and
 * take host:exact's update (train_host_optim_f32: single float operations, IEEE's / and
 * sqrtf), which cl:cr's tr_opt_* (train_optim.cl on the bits) compute in the same order. cl:cr's
 * trainer (clkernels/cr.cl, CR_TRAIN) computes the same values, so the two give the same bits at
 * every step. Built, like every file, with -ffp-contract=off. */
#include "hostblas/cr.h"
#include "train-impl.h"

#include <math.h>

void train_cr_forward(struct train_host *h, const void *pv)
{
    const cp_model *m = h->m;
    const float *p = pv;
    float *acts = h->acts, *zs = h->z;
    size_t B = (size_t)h->batch;
    for (int l = 0; l < m->n_layers; ++l) {
        const cp_layer *ly = &m->layers[l];
        size_t in = (size_t)ly->in, out = (size_t)ly->out;
        const float *x = acts + (size_t)l * h->stride;
        float *y = acts + (size_t)(l + 1) * h->stride;
        float *z = zs + (size_t)l * h->stride;
        const float *w = p + ly->w_off;
        for (size_t b = 0; b < B; ++b)
            for (size_t o = 0; o < out; ++o) {
                float v = cr_dot(x + b * in, w + o * in, (int)in,
                                 ly->has_bias ? p + ly->b_off + o : NULL);
                z[b * out + o] = v;
                y[b * out + o] =
                    cr_epilogue(v, ly->act, ly->residual, ly->residual ? x[b * in + o] : 0.0f);
            }
    }
}

void train_cr_step(struct train_host *h, double *loss)
{
    const cp_model *m = h->m;
    float *p = h->p, *acts = h->acts, *zs = h->z, *tt = h->t;
    size_t B = (size_t)h->batch;
    size_t L = (size_t)m->n_layers;
    train_cr_forward(h, p);
    size_t n = B * (size_t)m->out_width;
    const float *y = acts + L * h->stride;
    *loss = train_loss_f32(y, tt, n);
    float *g = h->g, *gn = h->gn, *dz = h->dz;
    float s = 2.0f / (float)n;
    for (size_t i = 0; i < n; ++i)
        g[i] = s * (y[i] - tt[i]);
    float neg_lr = (float)(-h->lr), *G = h->grad;
    for (size_t li = L; li-- > 0;) {
        const cp_layer *ly = &m->layers[li];
        size_t in = (size_t)ly->in, out = (size_t)ly->out;
        const float *x = acts + li * h->stride;
        const float *z = zs + li * h->stride;
        float *w = p + ly->w_off;
        for (size_t i = 0; i < B * out; ++i)
            dz[i] = ly->act == CP_ACT_RELU ? (z[i] > 0.0f ? g[i] : 0.0f) : g[i];
        if (li > 0) /* dx with the pre-update W; the residual's g inside the exact sum */
            for (size_t b = 0; b < B; ++b)
                for (size_t k = 0; k < in; ++k) {
                    cr_acc a;
                    cr_acc_init(&a);
                    for (size_t o = 0; o < out; ++o)
                        cr_acc_add_product(&a, dz[b * out + o], w[o * in + k]);
                    if (ly->residual)
                        cr_acc_add(&a, g[b * out + k]);
                    gn[b * in + k] = cr_acc_round(&a);
                }
        /* plain SGD updates in place (W is not read again in this step); the other
         * optimizers keep the gradient for their update after the backward */
        float *gw = G ? G + ly->w_off : NULL, *gb = G ? G + ly->b_off : NULL;
        for (size_t o = 0; o < out; ++o)
            for (size_t k = 0; k < in; ++k) {
                cr_acc a;
                cr_acc_init(&a);
                for (size_t b = 0; b < B; ++b)
                    cr_acc_add_product(&a, dz[b * out + o], x[b * in + k]);
                if (gw)
                    gw[o * in + k] = cr_acc_round(&a);
                else
                    w[o * in + k] = fmaf(neg_lr, cr_acc_round(&a), w[o * in + k]);
            }
        if (ly->has_bias)
            for (size_t o = 0; o < out; ++o) {
                cr_acc a;
                cr_acc_init(&a);
                for (size_t b = 0; b < B; ++b)
                    cr_acc_add(&a, dz[b * out + o]);
                if (gb)
                    gb[o] = cr_acc_round(&a);
                else
                    p[ly->b_off + o] = fmaf(neg_lr, cr_acc_round(&a), p[ly->b_off + o]);
            }
        float *tmp = g;
        g = gn;
        gn = tmp;
    }
    ++h->step;
    if (G) /* host:exact's update: each operation one IEEE float operation, / and sqrtf
            * correctly rounded (the C library's, IEEE 754's), -ffp-contract=off */
        train_host_optim_f32(h);
}

static int cr_create(cp_trainer *tr, const cp_device *dev, const float *x, const float *t)
{
    (void)dev;
    int st = train_host_create_f32(&tr->h, tr->m, tr->batch, x, t, &tr->opt);
    if (st == CP_OK)
        st = cr_check_inputs(tr->m, tr->engine);
    return st == CP_OK ? train_par_create_cr(&tr->h) : st;
}

/* The step on the pool with the fast path's units (train_par.c), unless CLPARITY_HOST_CR=scalar
 * (the loops above). */
static int cr_step(cp_trainer *tr, double *loss)
{
    if (tr->h.par)
        train_par_cr_step(&tr->h, loss);
    else
        train_cr_step(&tr->h, loss);
    return CP_OK;
}

static void cr_forward_any(struct train_host *h, const void *p)
{
    if (h->par)
        train_par_cr_forward(h, p);
    else
        train_cr_forward(h, p);
}

static int cr_roundtrip(cp_trainer *tr, void *y, int *ok)
{
    return train_host_roundtrip(tr, y, ok, cr_forward_any);
}

const struct cp_train_ops train_ops_host_cr = {
    .traits = {.role = CP_TRAIN_CR_BASE, .cr = true},
    .dtype = CP_F32,
    .create = cr_create,
    .step = cr_step,
    .view = train_host_view,
    .state = train_host_state,
    .poke_ulp = train_host_poke_ulp,
    .roundtrip = cr_roundtrip,
    .destroy = train_par_destroy,
};
