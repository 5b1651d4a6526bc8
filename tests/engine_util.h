/* Shared by the engine tests: find an OpenCL device, run one engine on a model. */
#ifndef CLPARITY_TEST_ENGINE_UTIL_H
#define CLPARITY_TEST_ENGINE_UTIL_H

#include "clparity/device.h"
#include "clparity/engine.h"
#include "clparity/gen.h"
#include "clparity/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ctest's "skipped": a test that needs an OpenCL device and finds none. */
#define TEST_SKIP 77

static inline const cp_device *find_kind(const cp_devlist *l, enum cp_dev_kind kind)
{
    for (size_t i = 0; i < l->n; ++i)
        if (l->v[i].kind == kind)
            return &l->v[i];
    return NULL;
}

/* Runs `engine` once on dev; returns a malloc'd output (float or double), NULL on failure
 * after printing why. */
static inline void *run_engine(const char *engine, const cp_device *dev, const cp_model *m,
                               const float *x, int batch)
{
    const cp_engine_info *info = cp_engine_find(engine);
    cp_engine *e = NULL;
    cp_timing t;
    size_t n = (size_t)batch * (size_t)m->out_width;
    void *y = malloc(n * cp_dtype_size(info->dtype));
    if (!y)
        return NULL;
    if (cp_engine_create(info, dev, m, batch, &e) != CP_OK ||
        cp_engine_forward(e, x, batch, y, &t) != CP_OK) {
        fprintf(stderr, "%s on %s: %s\n", engine, dev->name, cp_err_msg());
        free(y);
        y = NULL;
    }
    cp_engine_destroy(e);
    return y;
}

/* A general model: widths w[0] -> w[1] -> ... -> w[n] with a bias where bias_mask has the
 * layer's bit, ReLU where relu_mask has it, and a residual where res_mask has it (only where
 * in == out). Weights and biases come from the generator with the given seed. Exits the test
 * program on an allocation failure. */
static inline void general_model(cp_model *m, const int *w, int n, unsigned bias_mask,
                                 unsigned relu_mask, unsigned res_mask, uint64_t seed)
{
    memset(m, 0, sizeof *m);
    m->n_layers = n;
    m->layers = calloc((size_t)n, sizeof *m->layers);
    size_t total = 0;
    for (int l = 0; l < n; ++l)
        total += (size_t)w[l] * (size_t)w[l + 1] + (size_t)w[l + 1];
    m->params = malloc(total * sizeof(float));
    if (!m->layers || !m->params) {
        fprintf(stderr, "general_model: out of memory\n");
        exit(1);
    }
    size_t off = 0;
    for (int l = 0; l < n; ++l) {
        cp_layer *L = &m->layers[l];
        L->in = w[l];
        L->out = w[l + 1];
        L->w_off = off;
        float bound = cp_gen_linear_bound(L->in);
        cp_gen_fill_uniform_weights(m->params + off, (size_t)L->in * (size_t)L->out, seed,
                                    CP_TENSOR_WEIGHT(l), bound, 1.0f);
        off += (size_t)L->in * (size_t)L->out;
        L->has_bias = (bias_mask >> l) & 1;
        if (L->has_bias) {
            L->b_off = off;
            cp_gen_fill_uniform_weights(m->params + off, (size_t)L->out, seed, CP_TENSOR_BIAS(l),
                                        bound, 1.0f);
            off += (size_t)L->out;
        }
        L->act = (relu_mask >> l) & 1 ? CP_ACT_RELU : CP_ACT_NONE;
        L->residual = ((res_mask >> l) & 1) && L->in == L->out;
        m->max_width = L->in > m->max_width ? L->in : m->max_width;
        m->max_width = L->out > m->max_width ? L->out : m->max_width;
    }
    m->n_params = off;
    m->in_width = w[0];
    m->out_width = w[n];
    m->d = w[0];
}

#endif
