/* The trainer (clparity/train.h): what every training engine shares, each engine's steps
 * through its training ops (runtime/train/train-impl.h): the host trainers of hostblas/train_*.c
 * and the OpenCL ones of runtime/opencl/train_cl.c. */
#include "clparity/train.h"

#include "train-impl.h"

#include "clparity/error.h"

#include <stdlib.h>
#include <string.h>

const cp_train_traits *cp_train_traits_of(const struct cp_train_ops *ops)
{
    return ops ? &ops->traits : NULL;
}

double cp_train_step_macs(const cp_model *m, int batch)
{
    double s = 0.0;
    for (int l = 0; l < m->n_layers; ++l)
        s += 3.0 * (double)batch * (double)m->layers[l].in * (double)m->layers[l].out;
    return s;
}

const char *cp_trainer_probe(const cp_trainer *tr, int *ok)
{
    *ok = tr->probe;
    return tr->probe_why;
}

int train_create(const struct cp_train_ops *ops, const char *engine, const cp_device *dev,
                 const cp_model *m, int batch, const float *x, const float *t, const cp_optim *o,
                 cp_trainer **out)
{
    *out = NULL;
    int st = cp_optim_check(o);
    if (st != CP_OK)
        return st;
    cp_trainer *tr = calloc(1, sizeof *tr);
    if (!tr)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory for the trainer");
    tr->ops = ops;
    tr->engine = engine;
    tr->m = m;
    tr->batch = batch;
    tr->lr = (float)o->lr;
    tr->opt = *o;
    tr->needs_grad = train_needs_grad(o);
    tr->div_sqrt = "";
    tr->div_way = -1;
    tr->probe = -1;
    st = ops->create(tr, dev, x, t);
    if (st != CP_OK) {
        cp_trainer_destroy(tr);
        return st;
    }
    *out = tr;
    return CP_OK;
}

int cp_trainer_step(cp_trainer *tr, double *loss)
{
    return tr->ops->step(tr, loss);
}

enum cp_dtype cp_trainer_dtype(const cp_trainer *tr)
{
    return tr->ops->dtype;
}

size_t cp_trainer_state_count(const cp_trainer *tr)
{
    return train_state_count(tr->opt.kind);
}

const char *cp_trainer_state_name(const cp_trainer *tr, size_t k)
{
    return train_state_name(tr->opt.kind, k);
}

int cp_trainer_state(cp_trainer *tr, size_t k, void *dst)
{
    if (k >= cp_trainer_state_count(tr))
        return cp_err_set(CP_FAIL_RUNTIME, "the %s optimizer has no state tensor %zu",
                          cp_optim_name(tr->opt.kind), k);
    return tr->ops->state(tr, k, dst);
}

const char *cp_trainer_div_sqrt(const cp_trainer *tr)
{
    return tr->div_sqrt;
}

const char *cp_trainer_build_options(const cp_trainer *tr)
{
    return tr->build_options; /* "" for the host engines, which build nothing */
}

int cp_trainer_weights_view(cp_trainer *tr, const void **out)
{
    *out = NULL;
    return tr->ops->view(tr, out);
}

int cp_trainer_weights(cp_trainer *tr, void *dst)
{
    const void *w;
    int st = cp_trainer_weights_view(tr, &w);
    if (st == CP_OK)
        memcpy(dst, w, tr->m->n_params * cp_dtype_size(tr->ops->dtype));
    return st;
}

int cp_trainer_poke_ulp(cp_trainer *tr, size_t i)
{
    if (i >= tr->m->n_params)
        return cp_err_set(CP_FAIL_RUNTIME, "test hook: weight %zu out of range", i);
    return tr->ops->poke_ulp(tr, i);
}

int cp_trainer_roundtrip(cp_trainer *tr, void *y, int *ok)
{
    return tr->ops->roundtrip(tr, y, ok);
}

void cp_trainer_destroy(cp_trainer *tr)
{
    if (!tr)
        return;
    tr->ops->destroy(tr);
    free(tr);
}
