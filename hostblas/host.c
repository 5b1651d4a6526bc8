/* The host engines: OpenBLAS, the exact twin of clkernels/block.cl, and the float64
 * reference. This file is built with -ffp-contract=off: host:exact's bitwise equality with
 * cl:own depends on every multiply-add being the explicit fmaf below. */
#include "../runtime/engine-impl.h"

#include <cblas.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct row_pool;

struct host_state {
    void *act[2];          /* ping-pong activations, max_batch × max_width */
    void *tmp;             /* GEMM output before the epilogue (host:openblas) */
    double *params;        /* host:f64: the weights in double */
    struct row_pool *pool; /* host:openblas on tiny layers: threads that share out the rows */
};

static void row_pool_free(struct row_pool *p);

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
    row_pool_free(s->pool);
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

/* Below this many multiply-adds per layer, OpenBLAS's own threads cost more than they bring
 * (a 128 x 128 matrix-vector product takes a few microseconds on one core). */
#define TINY_LAYER_MACS (1 << 18)
/* Rows of a layer per thread of the row pool, at least. */
#define POOL_MIN_ROWS 16
#define POOL_MAX_THREADS 16

/* One layer's product and epilogue, for output columns [o0, o1): z = x·W[o0:o1]ᵀ in one
 * OpenBLAS call (single-threaded: the caller parallelises), then bias, activation, residual. */
static void openblas_layer(const cp_model *m, const cp_layer *L, const float *xin, float *yout,
                           float *tmp, int batch, int o0, int o1)
{
    int n = o1 - o0;
    if (n <= 0)
        return;
    const float *w = m->params + L->w_off + (size_t)o0 * (size_t)L->in;
    if (batch == 1) /* a matrix-vector product: sgemv streams W once, without packing it */
        cblas_sgemv(CblasRowMajor, CblasNoTrans, n, L->in, 1.0f, w, L->in, xin, 1, 0.0f, tmp + o0,
                    1);
    else
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, batch, n, L->in, 1.0f, xin, L->in, w,
                    L->in, 0.0f, tmp + o0, L->out);
    for (int b = 0; b < batch; ++b)
        for (int o = o0; o < o1; ++o) {
            float acc = tmp[(size_t)b * (size_t)L->out + (size_t)o];
            if (L->has_bias)
                acc = acc + m->params[L->b_off + (size_t)o];
            float r = L->act == CP_ACT_RELU ? cp_relu(acc) : acc;
            yout[(size_t)b * (size_t)L->out + (size_t)o] =
                L->residual ? xin[(size_t)b * (size_t)L->in + (size_t)o] + r : r;
        }
}

/* The row pool: for models whose layers are all tiny, each forward runs on n threads (the
 * caller and n - 1 workers), each taking its share of every layer's output rows, with a
 * spinning barrier between layers (a sleeping one costs more than such a layer). Workers
 * sleep on a condition variable between forwards. Each output is one OpenBLAS call's result
 * whichever thread computes it, so the results do not depend on the timing. */
struct row_worker {
    struct row_pool *p;
    int id;
};

struct row_pool {
    int n;
    int main_sense; /* the calling thread's barrier sense */
    pthread_t th[POOL_MAX_THREADS];
    struct row_worker wk[POOL_MAX_THREADS];
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned long gen; /* forwards started, under mu */
    bool stop;
    atomic_int arrived;
    atomic_int sense;
    /* the forward being run */
    const cp_model *m;
    float *act[2], *tmp;
    int batch;
};

static void pool_barrier(struct row_pool *p, int *local_sense)
{
    int s = !*local_sense;
    *local_sense = s;
    if (atomic_fetch_add_explicit(&p->arrived, 1, memory_order_acq_rel) == p->n - 1) {
        atomic_store_explicit(&p->arrived, 0, memory_order_relaxed);
        atomic_store_explicit(&p->sense, s, memory_order_release);
        return;
    }
    for (unsigned spins = 0; atomic_load_explicit(&p->sense, memory_order_acquire) != s; ++spins)
        if (spins >= 2000) /* more threads than free cores (or valgrind): let others run */
            sched_yield();
}

/* Thread id's share of one forward: every layer's rows [out·id/n, out·(id+1)/n). */
static void pool_run(struct row_pool *p, int id, int *local_sense)
{
    const cp_model *m = p->m;
    for (int l = 0; l < m->n_layers; ++l) {
        const cp_layer *L = &m->layers[l];
        int o0 = (int)((long)L->out * id / p->n), o1 = (int)((long)L->out * (id + 1) / p->n);
        openblas_layer(m, L, p->act[l % 2], p->act[(l + 1) % 2], p->tmp, p->batch, o0, o1);
        pool_barrier(p, local_sense);
    }
}

static void *pool_worker(void *arg)
{
    struct row_worker *w = arg;
    struct row_pool *p = w->p;
    int local_sense = 0;
    unsigned long seen = 0;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        while (p->gen == seen && !p->stop)
            pthread_cond_wait(&p->cv, &p->mu);
        bool stop = p->stop;
        seen = p->gen;
        pthread_mutex_unlock(&p->mu);
        if (stop)
            return NULL;
        pool_run(p, w->id, &local_sense);
    }
}

static void row_pool_free(struct row_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->stop = true;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    for (int i = 1; i < p->n; ++i)
        pthread_join(p->th[i], NULL);
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

static double biggest_layer_macs(const cp_model *m, int batch)
{
    double biggest = 0.0;
    for (int l = 0; l < m->n_layers; ++l) {
        double macs = (double)batch * m->layers[l].in * m->layers[l].out;
        biggest = macs > biggest ? macs : biggest;
    }
    return biggest;
}

/* The row pool for a model of tiny layers: one thread per POOL_MIN_ROWS rows of the
 * narrowest layer, on at most half the cores (OpenBLAS's own idle threads spin for a while
 * on the others; on 2 cores the two kinds of spinning threads slowed each other down). */
static int pool_create(cp_engine *e, struct host_state *s)
{
    const cp_model *m = e->model;
    int narrow = m->n_layers ? m->layers[0].out : 0;
    for (int l = 1; l < m->n_layers; ++l)
        narrow = m->layers[l].out < narrow ? m->layers[l].out : narrow;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int n = cores > 1 ? (int)(cores / 2) : 1;
    n = n < openblas_get_num_threads() ? n : openblas_get_num_threads();
    n = n < narrow / POOL_MIN_ROWS ? n : narrow / POOL_MIN_ROWS;
    const char *env = getenv("CLPARITY_HOST_THREADS");
    if (env && env[0]) {
        char *end;
        long v = strtol(env, &end, 10);
        if (*end || v < 1 || v > POOL_MAX_THREADS)
            return cp_err_set(CP_FAIL_USAGE, "CLPARITY_HOST_THREADS: '%s' is not 1 to %d", env,
                              POOL_MAX_THREADS);
        n = (int)v;
    }
    n = n < POOL_MAX_THREADS ? n : POOL_MAX_THREADS;
    if (n < 2 || biggest_layer_macs(m, e->max_batch) >= TINY_LAYER_MACS)
        return CP_OK;
    struct row_pool *p = calloc(1, sizeof *p);
    if (!p)
        return cp_err_set(CP_FAIL_RUNTIME, "host:openblas: out of memory");
    if (pthread_mutex_init(&p->mu, NULL) != 0) {
        free(p);
        return cp_err_set(CP_FAIL_RUNTIME, "host:openblas: pthread_mutex_init failed");
    }
    if (pthread_cond_init(&p->cv, NULL) != 0) {
        pthread_mutex_destroy(&p->mu);
        free(p);
        return cp_err_set(CP_FAIL_RUNTIME, "host:openblas: pthread_cond_init failed");
    }
    atomic_init(&p->arrived, 0);
    atomic_init(&p->sense, 0);
    p->n = 1;
    s->pool = p;
    for (int i = 1; i < n; ++i) {
        p->wk[i].p = p;
        p->wk[i].id = i;
        if (pthread_create(&p->th[i], NULL, pool_worker, &p->wk[i]) != 0)
            break; /* fewer threads: still correct */
        p->n = i + 1;
    }
    if (p->n < 2) {
        row_pool_free(p);
        s->pool = NULL;
    }
    return CP_OK;
}

static int openblas_create(cp_engine *e, const cp_device *dev, const cp_model *m, int max_batch)
{
    (void)dev;
    (void)m;
    (void)max_batch;
    int st = host_alloc(e, sizeof(float), true);
    if (st != CP_OK)
        return st;
    return pool_create(e, e->state);
}

static int openblas_forward(cp_engine *e, const float *x, int batch, void *y, cp_timing *t)
{
    struct host_state *s = e->state;
    const cp_model *m = e->model;
    int threads = openblas_get_num_threads();
    bool tiny = biggest_layer_macs(m, batch) < TINY_LAYER_MACS && threads > 1;
    if (tiny)
        openblas_set_num_threads(1);
    double t0 = cp_now();
    memcpy(s->act[0], x, (size_t)batch * (size_t)m->in_width * sizeof(float));
    double t1 = cp_now();
    struct row_pool *p = s->pool;
    if (tiny && p) {
        p->m = m;
        p->act[0] = s->act[0];
        p->act[1] = s->act[1];
        p->tmp = s->tmp;
        p->batch = batch;
        pthread_mutex_lock(&p->mu);
        p->gen++;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
        pool_run(p, 0, &p->main_sense); /* ends on the last layer's barrier */
    } else {
        for (int l = 0; l < m->n_layers; ++l)
            openblas_layer(m, &m->layers[l], s->act[l % 2], s->act[(l + 1) % 2], s->tmp, batch, 0,
                           m->layers[l].out);
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
