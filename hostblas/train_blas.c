/* host:openblas training: the same step as host:exact (clparity/train.h) with the three
 * products as cblas_sgemm calls: z = x·Wᵀ, dx = dz·W and gW = dzᵀ·x. OpenBLAS sums in its own
 * order (and may use fma), so the results are close to host:exact's, not equal. */
#include "host-impl.h"
#include "train-impl.h"

#include "clparity/error.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>

static float relu(float v)
{
    return (v <= 0.0f) ? 0.0f : v;
}

void train_blas_forward(struct train_host *h, const void *pv)
{
    const cp_model *m = h->m;
    const float *p = pv;
    float *acts = h->acts, *zs = h->z;
    int B = h->batch;
    for (int l = 0; l < m->n_layers; ++l) {
        const cp_layer *ly = &m->layers[l];
        int in = ly->in, out = ly->out;
        const float *x = acts + (size_t)l * h->stride;
        float *y = acts + (size_t)(l + 1) * h->stride;
        float *z = zs + (size_t)l * h->stride;
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, B, out, in, 1.0f, x, in, p + ly->w_off,
                    in, 0.0f, z, out);
        for (size_t b = 0; b < (size_t)B; ++b)
            for (size_t o = 0; o < (size_t)out; ++o) {
                float acc = z[b * (size_t)out + o];
                if (ly->has_bias)
                    acc = acc + p[ly->b_off + o];
                z[b * (size_t)out + o] = acc;
                float r = ly->act == CP_ACT_RELU ? relu(acc) : acc;
                y[b * (size_t)out + o] = ly->residual ? x[b * (size_t)in + o] + r : r;
            }
    }
}

int train_blas_step(struct train_host *h, double *loss)
{
    const cp_model *m = h->m;
    float *p = h->p, *acts = h->acts, *zs = h->z, *tt = h->t;
    int B = h->batch;
    size_t L = (size_t)m->n_layers;
    float *gw = h->gw; /* plain SGD's; the other optimizers write G */
    train_blas_forward(h, p);
    size_t n = (size_t)B * (size_t)m->out_width;
    const float *y = acts + L * h->stride;
    *loss = train_loss_f32(y, tt, n);
    float *g = h->g, *gn = h->gn, *dz = h->dz;
    float s = 2.0f / (float)n;
    for (size_t i = 0; i < n; ++i)
        g[i] = s * (y[i] - tt[i]);
    float neg_lr = -(float)h->lr;
    float *G = h->grad;
    for (size_t li = L; li-- > 0;) {
        const cp_layer *ly = &m->layers[li];
        int in = ly->in, out = ly->out;
        const float *x = acts + li * h->stride;
        const float *z = zs + li * h->stride;
        float *w = p + ly->w_off;
        for (size_t i = 0; i < (size_t)B * (size_t)out; ++i)
            dz[i] = ly->act == CP_ACT_RELU ? (z[i] > 0.0f ? g[i] : 0.0f) : g[i];
        if (li > 0) {
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, B, in, out, 1.0f, dz, out, w, in,
                        0.0f, gn, in);
            if (ly->residual)
                for (size_t i = 0; i < (size_t)B * (size_t)in; ++i)
                    gn[i] = gn[i] + g[i];
        }
        /* plain SGD updates in place; the other optimizers keep the whole gradient (G) */
        float *gwl = G ? G + ly->w_off : gw;
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, out, in, B, 1.0f, dz, out, x, in, 0.0f,
                    gwl, in);
        for (size_t i = 0; !G && i < (size_t)out * (size_t)in; ++i)
            w[i] = fmaf(neg_lr, gw[i], w[i]);
        if (ly->has_bias)
            for (size_t o = 0; o < (size_t)out; ++o) {
                float acc = 0.0f;
                for (size_t b = 0; b < (size_t)B; ++b)
                    acc = acc + dz[b * (size_t)out + o];
                if (G)
                    G[ly->b_off + o] = acc;
                else
                    p[ly->b_off + o] = fmaf(neg_lr, acc, p[ly->b_off + o]);
            }
        float *tmp = g;
        g = gn;
        gn = tmp;
    }
    ++h->step;
    if (G)
        train_host_optim_f32(h);
    return CP_OK;
}

/* The update at CLPARITY_HOST_ISA's level (the widest this CPU has by default), as host:exact's:
 * every level gives the same bits. */
static int blas_create(cp_trainer *tr, const cp_device *dev, const float *x, const float *t)
{
    (void)dev;
    int st = train_host_create_f32(&tr->h, tr->m, tr->batch, x, t, &tr->opt);
    if (st == CP_OK)
        st = train_host_alloc_gw(&tr->h, sizeof(float));
    return st == CP_OK ? exact_isa(&tr->h.isa) : st;
}

static int blas_step(cp_trainer *tr, double *loss)
{
    return train_blas_step(&tr->h, loss);
}

static int blas_roundtrip(cp_trainer *tr, void *y, int *ok)
{
    return train_host_roundtrip(tr, y, ok, train_blas_forward);
}

const struct cp_train_ops train_ops_host_openblas = {
    .dtype = CP_F32,
    .create = blas_create,
    .step = blas_step,
    .view = train_host_view,
    .state = train_host_state,
    .poke_ulp = train_host_poke_ulp,
    .roundtrip = blas_roundtrip,
    .destroy = train_host_destroy,
};
