/* The host engines: OpenBLAS, the exact twin of clkernels/block.cl, and the float64
 * reference. This file is built with -ffp-contract=off: host:exact's bitwise equality with
 * cl:own depends on every multiply-add being the explicit fmaf below. */
#include "../runtime/engine-impl.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct host_state {
    void *act[2];   /* ping-pong activations, max_batch × max_width */
    void *tmp;      /* GEMM output before the epilogue (host:openblas) */
    double *params; /* host:f64: the weights in double */
};

static int host_alloc(cp_engine *e, size_t esz, bool need_tmp)
{
    struct host_state *s = calloc(1, sizeof *s);
    if (!s)
        return cp_err_set(CP_FAIL_RUNTIME, "%s: out of memory", e->info->name);
    e->state = s;
    size_t n = (size_t)e->max_batch * (size_t)e->model->max_width;
    s->act[0] = malloc(n * esz);
    s->act[1] = malloc(n * esz);
    s->tmp = need_tmp ? malloc(n * esz) : NULL;
    if (!s->act[0] || !s->act[1] || (need_tmp && !s->tmp))
        return cp_err_set(CP_FAIL_RUNTIME, "%s: out of memory for activations (%zu bytes)",
                          e->info->name, 3 * n * esz);
    return CP_OK;
}

static void host_destroy(cp_engine *e)
{
    struct host_state *s = e->state;
    free(s->act[0]);
    free(s->act[1]);
    free(s->tmp);
    free(s->params);
    free(s);
    e->state = NULL;
}

/* ---- host:exact ---------------------------------------------------------------------- */

/* Cloned for CPUs with FMA, where fmaf becomes one instruction instead of a libm call; both
 * clones give the same bits, since fmaf is correctly rounded either way. */
__attribute__((target_clones("fma", "default"))) static void
exact_layer(const cp_layer *L, const float *p, const float *x, float *y, int batch)
{
    const float *w = p + L->w_off;
    for (int b = 0; b < batch; ++b) {
        const float *xr = x + (size_t)b * (size_t)L->in;
        float *yr = y + (size_t)b * (size_t)L->out;
        for (int o = 0; o < L->out; ++o) {
            const float *wr = w + (size_t)o * (size_t)L->in;
            float acc = 0.0f;
            for (int k = 0; k < L->in; ++k)
                acc = fmaf(xr[k], wr[k], acc);
            if (L->has_bias)
                acc = acc + p[L->b_off + (size_t)o];
            float r = L->act == CP_ACT_RELU ? cp_relu(acc) : acc;
            yr[o] = L->residual ? xr[o] + r : r;
        }
    }
}

static int exact_create(cp_engine *e, const cp_device *dev, const cp_model *m, int max_batch)
{
    (void)dev;
    (void)m;
    (void)max_batch;
    return host_alloc(e, sizeof(float), false);
}

static int exact_forward(cp_engine *e, const float *x, int batch, void *y, cp_timing *t)
{
    struct host_state *s = e->state;
    const cp_model *m = e->model;
    double t0 = cp_now();
    memcpy(s->act[0], x, (size_t)batch * (size_t)m->in_width * sizeof(float));
    double t1 = cp_now();
    for (int l = 0; l < m->n_layers; ++l)
        exact_layer(&m->layers[l], m->params, s->act[l % 2], s->act[(l + 1) % 2], batch);
    double t2 = cp_now();
    memcpy(y, s->act[m->n_layers % 2], (size_t)batch * (size_t)m->out_width * sizeof(float));
    t->h2d_s = t1 - t0;
    t->wall_s = t2 - t1;
    t->d2h_s = cp_now() - t2;
    return CP_OK;
}

const struct cp_engine_ops cp_engine_ops_host_exact = {exact_create, exact_forward, host_destroy,
                                                       NULL};

/* ---- host:openblas -------------------------------------------------------------------- */

static int openblas_create(cp_engine *e, const cp_device *dev, const cp_model *m, int max_batch)
{
    (void)dev;
    (void)m;
    (void)max_batch;
    return host_alloc(e, sizeof(float), true);
}

/* Below this many multiply-adds per layer, OpenBLAS's threads cost more than they bring
 * (a 128 x 128 matrix-vector product takes a few microseconds on one core). */
#define TINY_LAYER_MACS (1 << 18)

static int openblas_forward(cp_engine *e, const float *x, int batch, void *y, cp_timing *t)
{
    struct host_state *s = e->state;
    const cp_model *m = e->model;
    double biggest = 0.0;
    for (int l = 0; l < m->n_layers; ++l) {
        double macs = (double)batch * m->layers[l].in * m->layers[l].out;
        biggest = macs > biggest ? macs : biggest;
    }
    int threads = openblas_get_num_threads();
    bool tiny = biggest < TINY_LAYER_MACS && threads > 1;
    if (tiny)
        openblas_set_num_threads(1);
    double t0 = cp_now();
    memcpy(s->act[0], x, (size_t)batch * (size_t)m->in_width * sizeof(float));
    double t1 = cp_now();
    for (int l = 0; l < m->n_layers; ++l) {
        const cp_layer *L = &m->layers[l];
        const float *xin = s->act[l % 2];
        float *yout = s->act[(l + 1) % 2];
        float *tmp = s->tmp;
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, batch, L->out, L->in, 1.0f, xin, L->in,
                    m->params + L->w_off, L->in, 0.0f, tmp, L->out);
        for (int b = 0; b < batch; ++b)
            for (int o = 0; o < L->out; ++o) {
                float acc = tmp[(size_t)b * (size_t)L->out + (size_t)o];
                if (L->has_bias)
                    acc = acc + m->params[L->b_off + (size_t)o];
                float r = L->act == CP_ACT_RELU ? cp_relu(acc) : acc;
                yout[(size_t)b * (size_t)L->out + (size_t)o] =
                    L->residual ? xin[(size_t)b * (size_t)L->in + (size_t)o] + r : r;
            }
    }
    double t2 = cp_now();
    if (tiny)
        openblas_set_num_threads(threads);
    memcpy(y, s->act[m->n_layers % 2], (size_t)batch * (size_t)m->out_width * sizeof(float));
    t->h2d_s = t1 - t0;
    t->wall_s = t2 - t1;
    t->d2h_s = cp_now() - t2;
    return CP_OK;
}

const struct cp_engine_ops cp_engine_ops_host_openblas = {openblas_create, openblas_forward,
                                                          host_destroy, NULL};

/* ---- host:f64 ------------------------------------------------------------------------- */

static int f64_create(cp_engine *e, const cp_device *dev, const cp_model *m, int max_batch)
{
    (void)dev;
    (void)max_batch;
    int st = host_alloc(e, sizeof(double), false);
    if (st != CP_OK)
        return st;
    struct host_state *s = e->state;
    double t0 = cp_now();
    s->params = malloc((m->n_params ? m->n_params : 1) * sizeof(double));
    if (!s->params)
        return cp_err_set(CP_FAIL_RUNTIME, "host:f64: out of memory for %zu weights", m->n_params);
    for (size_t i = 0; i < m->n_params; ++i)
        s->params[i] = (double)m->params[i];
    e->upload_s = cp_now() - t0;
    return CP_OK;
}

static void f64_layer(const cp_layer *L, const double *p, const double *x, double *y, int batch)
{
    const double *w = p + L->w_off;
    for (int b = 0; b < batch; ++b) {
        const double *xr = x + (size_t)b * (size_t)L->in;
        double *yr = y + (size_t)b * (size_t)L->out;
        for (int o = 0; o < L->out; ++o) {
            const double *wr = w + (size_t)o * (size_t)L->in;
            double acc = 0.0;
            for (int k = 0; k < L->in; ++k)
                acc += xr[k] * wr[k];
            if (L->has_bias)
                acc += p[L->b_off + (size_t)o];
            double r = L->act == CP_ACT_RELU ? cp_relu_f64(acc) : acc;
            yr[o] = L->residual ? xr[o] + r : r;
        }
    }
}

static int f64_forward(cp_engine *e, const float *x, int batch, void *y, cp_timing *t)
{
    struct host_state *s = e->state;
    const cp_model *m = e->model;
    double t0 = cp_now();
    double *a0 = s->act[0];
    for (size_t i = 0; i < (size_t)batch * (size_t)m->in_width; ++i)
        a0[i] = (double)x[i];
    double t1 = cp_now();
    for (int l = 0; l < m->n_layers; ++l)
        f64_layer(&m->layers[l], s->params, s->act[l % 2], s->act[(l + 1) % 2], batch);
    double t2 = cp_now();
    memcpy(y, s->act[m->n_layers % 2], (size_t)batch * (size_t)m->out_width * sizeof(double));
    t->h2d_s = t1 - t0;
    t->wall_s = t2 - t1;
    t->d2h_s = cp_now() - t2;
    return CP_OK;
}

/* The double copy of the weights converts back to the model's floats exactly. */
static int f64_roundtrip(cp_engine *e, int *ok)
{
    struct host_state *s = e->state;
    *ok = 1;
    for (size_t i = 0; i < e->model->n_params; ++i) {
        float back = (float)s->params[i];
        if (memcmp(&back, &e->model->params[i], sizeof back) != 0)
            *ok = 0;
    }
    return CP_OK;
}

const struct cp_engine_ops cp_engine_ops_host_f64 = {f64_create, f64_forward, host_destroy,
                                                     f64_roundtrip};

int cp_host_blas_threads(int n)
{
    int old = openblas_get_num_threads();
    if (n > 0)
        openblas_set_num_threads(n);
    return old;
}
