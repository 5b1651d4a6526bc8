/* The BLAS engines: host:openblas (OpenBLAS's sgemm and sgemv, shared out over the pool of
 * pool.c) and host:f64, the float64 reference. */
#include "host-impl.h"

#include <cblas.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* ---- host:openblas -------------------------------------------------------------------- */

/* Multiply-adds per thread, at least, before a layer is shared out over the pool (a 128 x 128
 * matrix-vector product takes a few microseconds on one core). */
#define BLAS_MACS_PER_THREAD (1 << 11)
/* Layers below this many multiply-adds stay on one thread: on 16 cores, d=64 B=1 (2^12) took
 * 0.068 ms on one thread and 0.08-0.15 on two of the pool (tools/gpu/blas_threads.py,
 * 2026-11-25); d=128 B=1 (2^14) took 0.25 on eight against 0.30-0.53 for the bare loop. */
#define BLAS_SHARE_MACS (1 << 13)
/* Layers up to this many multiply-adds take at most half the cores: measured on 16 cores,
 * the reference model (d=128, B=1) ran in 0.315 ms on 8 threads against 0.47-0.69 ms on one,
 * and on the 2-core machine one thread beat two (2026-11-23, docs/PERFORMANCE.md); at d=128
 * B=16 (2^18 a layer) the pool's two threads on 2 cores took 1.27 ms against OpenBLAS's one
 * thread's 0.93 (it keeps products of m·n·k <= 2^18 on one thread), while on 16 cores the
 * pool's 8 threads took 0.94 against OpenBLAS's 4.6 (2026-11-25). */
#define BLAS_TINY_MACS (1 << 18)
/* From a layer of this many multiply-adds and BLAS_OWN_WEIGHTS weights, the whole forward
 * goes to OpenBLAS's own threads, as a bare loop of cblas_sgemm would: its threads share the
 * packed panels, where the pool's single-threaded column slices each pack the whole of x
 * (2 cores, d=1024 B=1024: 37.8 ms for the pool against 28.0 for OpenBLAS's threads). Narrow
 * layers at large batches stay on the pool, split by rows (each thread packs the small W). */
#define BLAS_OWN_MACS (1 << 22)
#define BLAS_OWN_WEIGHTS (1 << 18)
/* Matrix-vector products (B <= GEMV_MAX_ROWS) with BLAS_OWN_WEIGHTS weights or more go to
 * OpenBLAS's threaded sgemv too: on 16 cores, d=512 L=128 B=1 took 1.31 ms on OpenBLAS's 16
 * threads against 2.9-4.7 on the pool's sgemv slices, d=1024 L=128 5.8 against 8.3-18 (the
 * pool's sgemv calls contend for OpenBLAS's buffers; tools/gpu/blas_threads.py, 2026-11-25).
 * On 2 cores the two were equal. */
/* Output columns per slice unit: a multiple of OpenBLAS's SkylakeX sgemm micro-tile. */
#define BLAS_COLS 16
/* Batch rows per row block, at least, when a layer splits by rows. */
#define BLAS_ROWS 16
/* Batches up to this many rows go through sgemv, row by row (faster than sgemm there). */
#define GEMV_MAX_ROWS 1

/* host:openblas's epilogue for outputs [o0, o1) of every row: bias, activation, residual.
 * The flags are hoisted and the pointers restrict, so that GCC vectorises each variant (a
 * branchy loop over the fields took 37 % of sgemm's time at d=1024 B=1024, measured). */
static void blas_epilogue(const cp_layer *L, const float *restrict bias, const float *restrict z,
                          const float *restrict xin, float *restrict y, int batch, int o0, int o1)
{
    const bool has_bias = L->has_bias, relu = L->act == CP_ACT_RELU, res = L->residual;
    const size_t ld = (size_t)L->out, ldx = (size_t)L->in;
    for (int b = 0; b < batch; ++b) {
        const float *restrict zr = z + (size_t)b * ld;
        const float *restrict xr = xin + (size_t)b * ldx;
        float *restrict yr = y + (size_t)b * ld;
        for (int o = o0; o < o1; ++o) {
            float acc = zr[o];
            if (has_bias)
                acc = acc + bias[o];
            float r = relu ? cp_relu(acc) : acc;
            yr[o] = res ? xr[o] + r : r;
        }
    }
}

/* One layer's product and epilogue, for output columns [o0, o1): z = x·W[o0:o1]ᵀ in one
 * OpenBLAS call (or one per row), then bias, activation, residual. */
static void openblas_slice(const cp_model *m, const cp_layer *L, const float *xin, float *yout,
                           float *tmp, int batch, int o0, int o1)
{
    int n = o1 - o0;
    if (n <= 0)
        return;
    const float *w = m->params + L->w_off + (size_t)o0 * (size_t)L->in;
    if (batch <= GEMV_MAX_ROWS) /* matrix-vector products: sgemv streams W without packing it */
        for (int b = 0; b < batch; ++b)
            cblas_sgemv(CblasRowMajor, CblasNoTrans, n, L->in, 1.0f, w, L->in,
                        xin + (size_t)b * (size_t)L->in, 1, 0.0f,
                        tmp + (size_t)b * (size_t)L->out + (size_t)o0, 1);
    else
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, batch, n, L->in, 1.0f, xin, L->in, w,
                    L->in, 0.0f, tmp + o0, L->out);
    blas_epilogue(L, L->has_bias ? m->params + L->b_off : NULL, tmp, xin, yout, batch, o0, o1);
}

/* Whether a layer splits by batch rows (more blocks of BLAS_ROWS rows than column units:
 * a narrow layer at a large batch, where every thread packs the small W whole) rather than by
 * output columns (every thread packs x whole). */
static bool blas_by_rows(const cp_layer *L, int batch)
{
    return batch / BLAS_ROWS > (L->out + BLAS_COLS - 1) / BLAS_COLS;
}

/* The pieces a layer splits into for the pool: row blocks or column units. */
static long blas_units(const cp_layer *L, int batch)
{
    return blas_by_rows(L, batch) ? batch / BLAS_ROWS : (L->out + BLAS_COLS - 1) / BLAS_COLS;
}

/* Thread id of n: rows [B·id/n, B·(id+1)/n), or the columns of units [U·id/n, U·(id+1)/n),
 * single-threaded OpenBLAS; or, where the forward goes to OpenBLAS's threads (threads[l] =
 * 0), the whole layer. */
static void openblas_layer(cp_engine *e, int l, int batch, int id, int n)
{
    struct host_state *s = e->state;
    const cp_layer *L = &e->model->layers[l];
    const float *x = s->act[l % 2];
    float *y = s->act[(l + 1) % 2], *tmp = s->tmp;
    int o0 = 0, o1 = L->out;
    if (n > 1 && blas_by_rows(L, batch)) {
        size_t r0 = (size_t)((long)batch * id / n), r1 = (size_t)((long)batch * (id + 1) / n);
        x += r0 * (size_t)L->in;
        y += r0 * (size_t)L->out;
        tmp += r0 * (size_t)L->out;
        batch = (int)(r1 - r0);
    } else if (n > 1) {
        long u = blas_units(L, batch);
        o0 = (int)(u * id / n) * BLAS_COLS;
        o1 = (int)(u * (id + 1) / n) * BLAS_COLS;
        o1 = o1 < L->out ? o1 : L->out;
    }
    openblas_slice(e->model, L, x, y, tmp, batch, o0, o1);
    if (e->forwards == 1 && o1 > o0 && batch > 0) /* corrupt-pool: the second forward only */
        host_corrupt(e, l, id, n, y + o0);
}

/* CLPARITY_HOST_SPLIT: who shares out host:openblas's layers. auto: the rules above; pool:
 * the pool for every layer of 2^13 multiply-adds or more (never OpenBLAS's threads); openblas:
 * OpenBLAS's own threads for every layer (the bare loop's calls). For measuring the rules. */
enum { SPLIT_AUTO, SPLIT_POOL, SPLIT_OPENBLAS };

static int blas_split(int *split)
{
    static const char *const words[] = {"auto", "pool", "openblas"}; /* in SPLIT_ order */
    int st = host_env_word("CLPARITY_HOST_SPLIT", words, 3, split);
    if (*split < 0)
        *split = SPLIT_AUTO;
    return st;
}

/* Threads per layer for a forward of batch rows: 0 everywhere (OpenBLAS's own threads) where
 * some layer is large in both work and weights, or is a matrix-vector product with large
 * weights, or where no layer would take two threads of the pool (on 2 cores OpenBLAS's
 * threaded sgemv beat one thread at d=128 B=1: 0.27 against 0.35 ms); else the pool's share:
 * one thread below BLAS_SHARE_MACS, at most half of max for tiny layers. */
static void openblas_plan(cp_engine *e, int batch, int max)
{
    struct host_state *s = e->state;
    bool own = false, shared = false;
    for (int l = 0; l < e->model->n_layers; ++l) {
        const cp_layer *L = &e->model->layers[l];
        double w = (double)L->in * L->out;
        own = own ||
              (w >= BLAS_OWN_WEIGHTS && (w * batch >= BLAS_OWN_MACS || batch <= GEMV_MAX_ROWS));
    }
    own = s->split == SPLIT_OPENBLAS || (own && s->split != SPLIT_POOL);
    int half = max / 2 > 1 ? max / 2 : 1;
    for (int l = 0; l < e->model->n_layers; ++l) {
        const cp_layer *L = &e->model->layers[l];
        double macs = (double)batch * L->in * L->out;
        s->threads[l] = own ? 0
                        : macs < BLAS_SHARE_MACS
                            ? 1
                            : layer_threads(L, batch, BLAS_MACS_PER_THREAD, blas_units(L, batch),
                                            macs <= BLAS_TINY_MACS ? half : max);
        shared = shared || s->threads[l] > 1;
    }
    for (int l = 0; l < e->model->n_layers && !shared && s->split != SPLIT_POOL; ++l)
        s->threads[l] = 0;
}

static int openblas_create(cp_engine *e, const cp_device *dev, const cp_model *m, int max_batch)
{
    (void)dev;
    (void)m;
    int st = host_alloc(e, sizeof(float), true);
    if (st != CP_OK)
        return st;
    struct host_state *s = e->state;
    s->corrupt = cp_test_hook("corrupt-pool");
    int n;
    st = blas_split(&s->split);
    if (st == CP_OK)
        st = host_max_threads(&n);
    if (st != CP_OK)
        return st;
    /* The pool where some batch up to max_batch (1, 2, 4, ..., max_batch) shares a layer out. */
    bool shared = false;
    for (int b = 1; !shared; b *= 2) {
        openblas_plan(e, b < max_batch ? b : max_batch, n);
        for (int l = 0; l < m->n_layers; ++l)
            shared = shared || s->threads[l] > 1;
        if (b >= max_batch)
            break;
    }
    st = host_pool_create(e, s, shared ? n : 1);
    snprintf(e->build_options, sizeof e->build_options,
             "OpenBLAS %s: %d threads for large layers; a pool of %d threads (1 OpenBLAS thread "
             "each) for smaller ones",
             openblas_get_corename(), openblas_get_num_threads(), s->max_threads);
    return st;
}

/* Each layer's columns shared out over threads[l] threads of the pool, each one OpenBLAS call
 * on one thread with its part of the epilogue, no more threads than OpenBLAS's own count
 * (OPENBLAS_NUM_THREADS, or cp_engine_threads: one thread gives OpenBLAS's single-threaded
 * result); or, for large layers, OpenBLAS's threads per layer and the epilogue after. */
static int openblas_forward(cp_engine *e, const float *x, int batch, void *y, cp_timing *t)
{
    struct host_state *s = e->state;
    snprintf(e->routine, sizeof e->routine, "%s",
             batch <= GEMV_MAX_ROWS ? "cblas_sgemv" : "cblas_sgemm");
    int blas = openblas_get_num_threads();
    openblas_plan(e, batch, blas < s->max_threads ? blas : s->max_threads);
    if (s->threads[0] == 0) { /* OpenBLAS's threads: every layer whole, on this thread */
        host_forward_f32(e, openblas_layer, x, batch, y, t);
        return CP_OK;
    }
    if (blas > 1)
        openblas_set_num_threads(1);
    host_forward_f32(e, openblas_layer, x, batch, y, t);
    if (blas > 1)
        openblas_set_num_threads(blas);
    return CP_OK;
}

static int openblas_threads(int n)
{
    int old = openblas_get_num_threads();
    if (n > 0)
        openblas_set_num_threads(n);
    return old;
}

const struct cp_engine_ops cp_engine_ops_host_openblas = {.create = openblas_create,
                                                          .forward = openblas_forward,
                                                          .destroy = host_destroy,
                                                          .threads = openblas_threads};

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
    snprintf(e->routine, sizeof e->routine, "C double loops");
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

const struct cp_engine_ops cp_engine_ops_host_f64 = {.create = f64_create,
                                                     .forward = f64_forward,
                                                     .destroy = host_destroy,
                                                     .roundtrip = f64_roundtrip};
