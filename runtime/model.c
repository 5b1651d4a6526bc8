#include "clparity/model.h"

#include "clparity/error.h"
#include "clparity/gen.h"

#include <stdlib.h>
#include <string.h>

int cp_model_builtin_shape(cp_model *m, int d, int n_layers, uint64_t seed, float init_scale)
{
    memset(m, 0, sizeof *m);
    if (d <= 0 || n_layers <= 0)
        return cp_err_set(CP_FAIL_USAGE, "model sizes must be positive (d=%d, layers=%d)", d,
                          n_layers);
    size_t per = (size_t)d * (size_t)d;
    if (per / (size_t)d != (size_t)d || per > SIZE_MAX / sizeof(float) / (size_t)n_layers)
        return cp_err_set(CP_FAIL_USAGE, "model too large: %d layers of %d x %d overflow memory",
                          n_layers, d, d);
    m->layers = calloc((size_t)n_layers, sizeof *m->layers);
    if (!m->layers)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory for %d layers", n_layers);
    m->n_layers = n_layers;
    m->n_params = per * (size_t)n_layers;
    m->in_width = m->out_width = m->max_width = d;
    m->d = d;
    m->seed = seed;
    m->init_scale = init_scale;
    for (int l = 0; l < n_layers; ++l) {
        cp_layer *L = &m->layers[l];
        L->in = L->out = d;
        L->w_off = per * (size_t)l;
        L->act = CP_ACT_RELU;
        L->residual = true;
    }
    return CP_OK;
}

int cp_model_builtin_generate(cp_model *m)
{
    free(m->params);
    m->params = malloc((m->n_params ? m->n_params : 1) * sizeof(float));
    if (!m->params)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory for %zu weights (%.2f GiB)", m->n_params,
                          (double)m->n_params * 4.0 / (1024.0 * 1024 * 1024));
    float bound = cp_gen_linear_bound(m->d);
    size_t per = (size_t)m->d * (size_t)m->d;
    for (int l = 0; l < m->n_layers; ++l)
        cp_gen_fill_uniform_weights(m->params + m->layers[l].w_off, per, m->seed,
                                    CP_TENSOR_WEIGHT(l), bound, m->init_scale);
    return CP_OK;
}

int cp_model_builtin(cp_model *m, int d, int n_layers, uint64_t seed, float init_scale)
{
    int st = cp_model_builtin_shape(m, d, n_layers, seed, init_scale);
    if (st == CP_OK)
        st = cp_model_builtin_generate(m);
    if (st != CP_OK)
        cp_model_free(m);
    return st;
}

void cp_model_free(cp_model *m)
{
    free(m->layers);
    free(m->params);
    memset(m, 0, sizeof *m);
}

double cp_model_macs(const cp_model *m, int batch)
{
    double macs = 0.0;
    for (int l = 0; l < m->n_layers; ++l)
        macs += (double)m->layers[l].in * (double)m->layers[l].out;
    return macs * (double)batch;
}

int cp_model_input(int batch, int width, uint64_t seed, float **out)
{
    size_t n = (size_t)batch * (size_t)width;
    *out = malloc((n ? n : 1) * sizeof(float));
    if (!*out)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory for the input (%d x %d)", batch, width);
    cp_gen_fill_normal(*out, n, seed, CP_TENSOR_INPUT);
    return CP_OK;
}
