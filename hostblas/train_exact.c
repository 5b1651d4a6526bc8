/* host:exact's and host:f64's ops (beside host:cr's in train_cr.c and host:openblas's in
 * train_blas.c): the threaded step of train_par.c unless CLPARITY_HOST_EXACT=scalar, which
 * keeps the scalar loops of train_host.c. */
#include "train-impl.h"

#include "clparity/error.h"

static int exact_create(cp_trainer *tr, const cp_device *dev, const float *x, const float *t)
{
    (void)dev;
    int st = train_host_create_f32(&tr->h, tr->m, tr->batch, x, t, &tr->opt);
    return st == CP_OK ? train_par_create(&tr->h, CP_F32) : st;
}

static int exact_step(cp_trainer *tr, double *loss)
{
    if (tr->h.par)
        train_par_step_f32(&tr->h, loss);
    else
        train_host_step_f32(&tr->h, loss);
    return CP_OK;
}

static void exact_forward(struct train_host *h, const void *p)
{
    if (h->par)
        train_par_forward_f32(h, p);
    else
        train_host_forward_f32(h, p);
}

static int exact_roundtrip(cp_trainer *tr, void *y, int *ok)
{
    return train_host_roundtrip(tr, y, ok, exact_forward);
}

static int f64_create(cp_trainer *tr, const cp_device *dev, const float *x, const float *t)
{
    (void)dev;
    int st = train_host_create_f64(&tr->h, tr->m, tr->batch, x, t, &tr->opt);
    return st == CP_OK ? train_par_create(&tr->h, CP_F64) : st;
}

static int f64_step(cp_trainer *tr, double *loss)
{
    if (tr->h.par)
        train_par_step_f64(&tr->h, loss);
    else
        train_host_step_f64(&tr->h, loss);
    return CP_OK;
}

static void f64_forward(struct train_host *h, const void *p)
{
    if (h->par)
        train_par_forward_f64(h, p);
    else
        train_host_forward_f64(h, p);
}

static int f64_roundtrip(cp_trainer *tr, void *y, int *ok)
{
    return train_host_roundtrip(tr, y, ok, f64_forward);
}

const struct cp_train_ops train_ops_host_exact = {
    .traits = {.role = CP_TRAIN_BASELINE, .by_default = true},
    .dtype = CP_F32,
    .create = exact_create,
    .step = exact_step,
    .view = train_host_view,
    .state = train_host_state,
    .poke_ulp = train_host_poke_ulp,
    .roundtrip = exact_roundtrip,
    .destroy = train_par_destroy,
};

const struct cp_train_ops train_ops_host_f64 = {
    .traits = {.role = CP_TRAIN_REFERENCE, .by_default = true},
    .dtype = CP_F64,
    .create = f64_create,
    .step = f64_step,
    .view = train_host_view,
    .state = train_host_state,
    .poke_ulp = train_host_poke_ulp,
    .roundtrip = f64_roundtrip,
    .destroy = train_par_destroy,
};
