/* The host trainers: host:exact (float, fmaf) is cl:own's training twin bit for bit, and
 * host:f64 (double, fma) is the reference: their scalar loops (the threaded step is
 * train_par.c's, their ops train_exact.c's). Built, like every file, with -ffp-contract=off. */
#include "train-impl.h"

#include "clparity/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double train_loss_f32(const float *y, const float *t, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; ++i) {
        double d = (double)y[i] - (double)t[i];
        s = s + d * d;
    }
    return s / (double)n;
}

double train_loss_f64(const double *y, const double *t, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; ++i) {
        double d = y[i] - t[i];
        s = s + d * d;
    }
    return s / (double)n;
}

/* Double-double product (ah + al)(bh + bl), renormalised; al·bl is below the result's
 * error. */
static void dd_mul(double ah, double al, double bh, double bl, double *rh, double *rl)
{
    double p = ah * bh;
    double e = fma(ah, bh, -p) + (ah * bl + al * bh);
    double s = p + e;
    *rl = e - (s - p);
    *rh = s;
}

double train_pow_n(double b, long n)
{
    double rh = 1.0, rl = 0.0, bh = b, bl = 0.0;
    for (; n > 0; n >>= 1) {
        if (n & 1)
            dd_mul(rh, rl, bh, bl, &rh, &rl);
        if (n > 1)
            dd_mul(bh, bl, bh, bl, &bh, &bl);
    }
    return rh; /* rh = RN(rh + rl): dd_mul leaves the pair normalised */
}

void train_scalars_at(const cp_optim *o, long t, struct train_scalars *s)
{
    double lr = (double)(float)o->lr;
    s->neg_lr = -lr;
    s->wd = o->weight_decay;
    s->mom = o->momentum;
    s->w1 = 1.0 - o->beta1;
    s->beta2 = o->beta2;
    s->c2 = 1.0 - o->beta2;
    double bc1 = 1.0 - train_pow_n(o->beta1, t);
    double bc2 = 1.0 - train_pow_n(o->beta2, t);
    s->nss = -(lr / bc1);
    s->bc2_sqrt = sqrt(bc2);
    s->decay = 1.0 - lr * o->weight_decay;
    s->eps = o->eps;
    s->first = t == 1;
}

void train_host_free(struct train_host *h)
{
    free(h->grad);
    free(h->gw);
    free(h->st[0]);
    free(h->st[1]);
    free(h->p);
    free(h->acts);
    free(h->z);
    free(h->g);
    free(h->gn);
    free(h->dz);
    free(h->t);
    memset(h, 0, sizeof *h);
}

#define T float
#define FMA fmaf
#define SQRT sqrtf
#define SFX f32
#include "train_host_tmpl.h"
#undef T
#undef FMA
#undef SQRT
#undef SFX

#define T double
#define FMA fma
#define SQRT sqrt
#define SFX f64
#include "train_host_tmpl.h"
#undef T
#undef FMA
#undef SQRT
#undef SFX

int train_host_alloc_gw(struct train_host *h, size_t es)
{
    if (h->grad)
        return CP_OK;
    return (h->gw = malloc(cp_model_max_weights(h->m) * es))
               ? CP_OK
               : cp_err_set(CP_FAIL_RUNTIME, "out of memory for a layer's weight gradient");
}

int train_host_view(cp_trainer *tr, const void **out)
{
    *out = tr->h.p;
    return CP_OK;
}

int train_host_state(cp_trainer *tr, size_t k, void *dst)
{
    memcpy(dst, tr->h.st[k], tr->m->n_params * cp_dtype_size(tr->ops->dtype));
    return CP_OK;
}

int train_host_poke_ulp(cp_trainer *tr, size_t i)
{
    if (tr->ops->dtype == CP_F64) {
        double *p = tr->h.p;
        p[i] = nextafter(p[i], INFINITY);
    } else {
        float *p = tr->h.p;
        p[i] = nextafterf(p[i], INFINITY);
    }
    tr->h.panels_fresh = false;
    return CP_OK;
}

int train_host_roundtrip(cp_trainer *tr, void *y, int *ok,
                         void (*forward)(struct train_host *h, const void *p))
{
    const cp_model *m = tr->m;
    size_t es = cp_dtype_size(tr->ops->dtype);
    size_t n = m->n_params, nt = (size_t)tr->batch * (size_t)m->out_width;
    void *w = malloc((n ? n : 1) * es), *y1 = malloc((nt ? nt : 1) * es);
    if (!w || !y1) {
        free(w);
        free(y1);
        return cp_err_set(CP_FAIL_RUNTIME, "round trip: out of memory");
    }
    const char *yo = (const char *)tr->h.acts + (size_t)m->n_layers * tr->h.stride * es;
    memcpy(w, tr->h.p, n * es);
    forward(&tr->h, tr->h.p);
    memcpy(y1, yo, nt * es);
    forward(&tr->h, w);
    memcpy(y, yo, nt * es);
    *ok = memcmp(y1, y, nt * es) == 0;
    free(w);
    free(y1);
    return CP_OK;
}

void train_host_destroy(cp_trainer *tr)
{
    train_host_free(&tr->h);
}
