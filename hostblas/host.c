/* The host engines: OpenBLAS, the exact twin of clkernels/block.cl, and the float64
 * reference. This file is built with -ffp-contract=off: host:exact's bitwise equality with
 * cl:own depends on every multiply-add being the explicit fmaf below. */
#define _GNU_SOURCE /* pthread_setaffinity_np, CPU_SET: the pool's pinning */
#include "../runtime/engine-impl.h"
#include "hostblas/cr.h"
#include "clparity/env.h"

#include <cblas.h>
#include <strings.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct host_pool;

/* host:exact's unit of work at one instruction-set level (EXACT_UNIT, exact_unit_for). */
typedef void (*exact_unit_fn)(const cp_layer *L, const float *p, const float *wp, const float *x,
                              float *y, int r0, int r1, int p0, int p1);

struct host_state {
    void *act[2];       /* ping-pong activations, max_batch × max_width */
    void *tmp;          /* GEMM output before the epilogue (host:openblas) */
    double *params;     /* host:f64: the weights in double */
    float *packed;      /* host:exact: every layer's weights in panels (exact_pack) */
    size_t *pack_off;   /* host:exact: each layer's offset into packed */
    int *threads;       /* threads per layer in the current forward */
    int max_threads;    /* the pool's threads, 1 without a pool */
    bool scalar;        /* host:exact: CLPARITY_HOST_EXACT=scalar, the reference loop */
    exact_unit_fn unit; /* host:exact: exact_unit_for its level (CLPARITY_HOST_ISA) */
    bool corrupt;       /* test hook corrupt-exact / corrupt-pool / corrupt-cr (host_corrupt) */
    int split;          /* host:openblas: CLPARITY_HOST_SPLIT, SPLIT_AUTO, _POOL or _OPENBLAS */
    struct host_pool *pool;
    /* host:cr (besides packed, pack_off, scalar and corrupt, as host:exact's) */
    double *actd[2];          /* the activations in double: the fast path's input */
    double *wnorm;            /* |W_o|_2 of every layer's outputs, max_width a layer */
    cr_unit_fn cr_unit;       /* the fast path's unit at its level */
    bool cr_stats;            /* CLPARITY_HOST_CR_STATS=1: count the fallbacks */
    atomic_long cr_fallbacks; /* outputs that took the exact accumulator */
    long cr_outputs;          /* outputs computed */
};

static void host_pool_free(struct host_pool *p);

/* The host engines' settings by environment variable, read through runtime/env.c's table
 * (which refuses a value it does not list): *choice is the index of name's value in words (n of
 * them, in the table's order), or -1 where it is unset or empty. A table whose words differ
 * from the engine's is a bug, named as such. */
static int host_env_word(const char *name, const char *const *words, int n, int *choice)
{
    int st = cp_env_word(name, choice);
    if (st != CP_OK || *choice < 0)
        return st;
    const char *v = getenv(name);
    if (*choice >= n || strcasecmp(v, words[*choice]) != 0)
        return cp_err_set(CP_FAIL_RUNTIME, "%s: runtime/env.c's words differ from the engine's",
                          name);
    return CP_OK;
}

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
    s->threads = calloc((size_t)e->model->n_layers + 1, sizeof *s->threads);
    s->max_threads = 1;
    if (!s->act[0] || !s->act[1] || (need_tmp && !s->tmp) || !s->threads)
        return cp_err_set(CP_FAIL_RUNTIME, "%s: out of memory for activations (%zu bytes)",
                          e->info->name, 3 * n * esz);
    return CP_OK;
}

static void host_destroy(cp_engine *e)
{
    struct host_state *s = e->state;
    host_pool_free(s->pool);
    free(s->act[0]);
    free(s->act[1]);
    free(s->tmp);
    free(s->params);
    free(s->packed);
    free(s->pack_off);
    free(s->actd[0]);
    free(s->actd[1]);
    free(s->wnorm);
    free(s->threads);
    free(s);
    e->state = NULL;
}

/* ---- the thread pool ----------------------------------------------------------------------
 * host:openblas and host:exact share out each layer over threads[l] threads of a pool (the
 * caller and up to POOL_MAX_THREADS - 1 workers), with a spinning barrier between layers (a
 * sleeping one costs more than a small layer). Only the threads that some layer of the forward
 * uses take part in it (a barrier over all 16 cores cost more than a tiny layer itself); the
 * others, and every worker between forwards, sleep on a condition variable. Each output is computed
 * whole by one thread, in a split that depends only on the layer's size and the thread count, so
 * the results do not depend on the timing. */
#define POOL_MAX_THREADS 16

typedef void (*pool_layer_fn)(cp_engine *e, int l, int batch, int id, int n);

struct pool_worker {
    struct host_pool *p;
    int id;
    bool pinned; /* this thread runs on one CPU now (pool_pin), until it sees p->unpin */
};

struct host_pool {
    int n;
    int active; /* the threads of the forward being run: ids 0 to active - 1, under mu */
    pthread_t th[POOL_MAX_THREADS];
    struct pool_worker wk[POOL_MAX_THREADS];
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned long gen; /* forwards started, under mu */
    bool stop;
    bool pinned;       /* pool_pin ran: worker i on cpu[i], the caller on cpu[0] */
    int cpu0;          /* the caller's CPU during a forward, where pinned */
    cpu_set_t all;     /* the CPUs the process may run on, given back on unpinning */
    atomic_bool unpin; /* a barrier wait of a pinned pool reached POOL_SLEEP_S: unpin for good */
    atomic_int arrived;
    atomic_uint phase;   /* barriers passed */
    atomic_int sleepers; /* threads asleep in a barrier, on bcv */
    pthread_mutex_t bmu;
    pthread_cond_t bcv;
    /* the forward being run */
    cp_engine *e;
    pool_layer_fn fn;
    int batch;
};

/* A thread waiting in a barrier spins POOL_SPINS times, then yields its core between checks,
 * and sleeps once it has waited POOL_SLEEP_S: on free cores a layer's barrier never sleeps,
 * while with more threads than free cores (a loaded machine, CLPARITY_HOST_THREADS above the
 * cores, valgrind) the waiting threads give the late ones their cores. On the 2-core machine
 * beside CI's asan job, host:exact at d=512 L=16 B=64 on 8 threads took 56 ms with yields
 * alone and 11 ms with a sleep after 20000 spins (2 threads: 3.5 ms); sleeping that early made
 * host:openblas at d=128 L=128 B=16 take 2.0 ms in the runs where a core was busy elsewhere,
 * against 1.1 with yields (0.55 ms on free cores; 2026-11-25, AMD EPYC). */
#define POOL_SPINS 2000
#define POOL_SLEEP_S 1e-3

/* A barrier of the forward's active threads: the last to arrive starts the next phase and
 * wakes the sleepers. The phase is read before arriving (the release of the arrival keeps it
 * there), so a thread can never miss the change it waits for. A sleeper counts itself before
 * it reads the phase, and the last arriver reads the count after it writes the phase (both
 * sequentially consistent): either the sleeper sees the new phase or it is woken, under bmu. */
static void pool_barrier(struct host_pool *p, int active)
{
    unsigned ph = atomic_load_explicit(&p->phase, memory_order_acquire);
    if (atomic_fetch_add_explicit(&p->arrived, 1, memory_order_acq_rel) == active - 1) {
        atomic_store_explicit(&p->arrived, 0, memory_order_relaxed);
        atomic_store(&p->phase, ph + 1);
        if (atomic_load(&p->sleepers) > 0) {
            pthread_mutex_lock(&p->bmu);
            pthread_cond_broadcast(&p->bcv);
            pthread_mutex_unlock(&p->bmu);
        }
        return;
    }
    for (unsigned spins = 0; spins < POOL_SPINS; ++spins)
        if (atomic_load_explicit(&p->phase, memory_order_acquire) != ph)
            return;
    for (double t0 = cp_now(); cp_now() - t0 < POOL_SLEEP_S;) {
        sched_yield();
        if (atomic_load_explicit(&p->phase, memory_order_acquire) != ph)
            return;
    }
    /* Someone else's work is on our cores, and pinned threads cannot move away. The first
     * forward is left out: its one-time costs (OpenBLAS's buffers, first touches) wait too. */
    if (p->pinned && p->gen > 1)
        atomic_store_explicit(&p->unpin, true, memory_order_relaxed);
    pthread_mutex_lock(&p->bmu);
    atomic_fetch_add(&p->sleepers, 1);
    while (atomic_load(&p->phase) == ph)
        pthread_cond_wait(&p->bcv, &p->bmu);
    atomic_fetch_sub(&p->sleepers, 1);
    pthread_mutex_unlock(&p->bmu);
}

/* A pinned thread of a pool that has seen contention takes all of the process's CPUs again. */
static void pool_maybe_unpin(struct host_pool *p, int id)
{
    if (p->wk[id].pinned && atomic_load_explicit(&p->unpin, memory_order_relaxed)) {
        (void)pthread_setaffinity_np(pthread_self(), sizeof p->all, &p->all);
        p->wk[id].pinned = false;
    }
}

/* Thread id's share of one forward: its part of every layer that takes more than it. */
static void pool_run(struct host_pool *p, int id, int active)
{
    cp_engine *e = p->e;
    const int *threads = ((struct host_state *)e->state)->threads;
    for (int l = 0; l < e->model->n_layers; ++l) {
        pool_maybe_unpin(p, id);
        if (id < threads[l])
            p->fn(e, l, p->batch, id, threads[l]);
        pool_barrier(p, active);
    }
}

static void *pool_worker(void *arg)
{
    struct pool_worker *w = arg;
    struct host_pool *p = w->p;
    unsigned long seen = 0;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        while (p->gen == seen && !p->stop)
            pthread_cond_wait(&p->cv, &p->mu);
        bool stop = p->stop;
        int active = p->active;
        seen = p->gen;
        pthread_mutex_unlock(&p->mu);
        if (stop)
            return NULL;
        if (w->id < active) /* else this forward needs no more threads than the lower ids */
            pool_run(p, w->id, active);
    }
}

static void host_pool_free(struct host_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->stop = true;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    for (int i = 1; i < p->n; ++i)
        pthread_join(p->th[i], NULL);
    pthread_cond_destroy(&p->bcv);
    pthread_mutex_destroy(&p->bmu);
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

/* The most threads a layer may take: CLPARITY_HOST_THREADS, else the cores (at most
 * POOL_MAX_THREADS). */
static int host_max_threads(int *n)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    *n = cores < 1 ? 1 : cores > POOL_MAX_THREADS ? POOL_MAX_THREADS : (int)cores;
    double v; /* 1 to POOL_MAX_THREADS, as runtime/env.c's table says */
    bool set;
    int st = cp_env_number("CLPARITY_HOST_THREADS", &v, &set);
    if (st == CP_OK && set)
        *n = (int)v;
    return st;
}

/* Threads for one layer: one per macs_per_thread multiply-adds, no more than units (the
 * pieces the layer splits into) or max. */
static int layer_threads(const cp_layer *L, int batch, double macs_per_thread, long units, int max)
{
    double macs = (double)batch * (double)L->in * (double)L->out;
    double n = macs / macs_per_thread;
    n = n < (double)units ? n : (double)units;
    n = n < (double)max ? n : (double)max;
    return n < 1.0 ? 1 : (int)n;
}

/* A pool of as many threads as the CPUs that the process may run on pins worker i to the i-th
 * of them, and the calling thread to the first one for the length of each forward (its own
 * mask is put back after), so that the scheduler never stacks two of a layer's threads on one
 * core, until a barrier wait after the first forward reaches POOL_SLEEP_S: then someone else's
 * work is on our cores, and every thread takes all of the process's CPUs again, for good
 * (pool_maybe_unpin). A smaller pool is never pinned (it would share its cores with another
 * such process); CLPARITY_HOST_PIN=0 pins nothing. Measured on the 2-core machine
 * (2026-11-25, docs/PERFORMANCE.md): unpinned, a quiet machine ran the pool in a slow mode of
 * twice the time now and then (d=128 L=128 B=512, host:openblas 9.9, 19.8, 19.6 ms; pinned
 * 10.2, 10.2, 9.7); pinned for good, with one busy process on one of the cores, the pool took
 * 172-312 ms where unpinned it took 15-20 (a pinned thread waits for the busy one's time
 * slices, and each layer waits for it); pinned until contention, 19.6-20.8. A CPU that refuses
 * the pin leaves that thread unpinned: it changes the speed, never a result. */
static int pool_pin_wanted(bool *pin)
{
    static const char *const words[] = {"0", "1"};
    int choice;
    int st = host_env_word("CLPARITY_HOST_PIN", words, 2, &choice);
    *pin = choice != 0;
    return st;
}

static void pool_pin(struct host_pool *p)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return;
    int cpus[CPU_SETSIZE], n = 0;
    for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &set))
            cpus[n++] = c;
    if (n == 0 || p->n < n)
        return; /* a pool smaller than the CPUs: pinned, two such processes would share cores */
    for (int i = 1; i < p->n; ++i) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpus[i % n], &one);
        p->wk[i].pinned = pthread_setaffinity_np(p->th[i], sizeof one, &one) == 0;
    }
    p->all = set;
    p->pinned = true;
    p->cpu0 = cpus[0];
}

/* Starts the pool of n threads where some layer at max_batch would use two or more. */
static int host_pool_create(cp_engine *e, struct host_state *s, int n)
{
    bool useful = false;
    for (int l = 0; l < e->model->n_layers; ++l)
        useful = useful || s->threads[l] > 1;
    bool pin;
    int st = pool_pin_wanted(&pin);
    if (st != CP_OK || n < 2 || !useful)
        return st;
    struct host_pool *p = calloc(1, sizeof *p);
    if (!p)
        return cp_err_set(CP_FAIL_RUNTIME, "%s: out of memory", e->info->name);
    if (pthread_mutex_init(&p->mu, NULL) != 0)
        goto out_free;
    if (pthread_cond_init(&p->cv, NULL) != 0)
        goto out_mu;
    if (pthread_mutex_init(&p->bmu, NULL) != 0)
        goto out_cv;
    if (pthread_cond_init(&p->bcv, NULL) != 0)
        goto out_bmu;
    atomic_init(&p->arrived, 0);
    atomic_init(&p->phase, 0);
    atomic_init(&p->unpin, false);
    p->n = 1;
    s->pool = p;
    for (int i = 1; i < n; ++i) {
        p->wk[i].p = p;
        p->wk[i].id = i;
        if (pthread_create(&p->th[i], NULL, pool_worker, &p->wk[i]) != 0)
            break; /* fewer threads: still correct, the thread counts are capped below */
        p->n = i + 1;
    }
    s->max_threads = p->n;
    if (pin)
        pool_pin(p);
    if (p->n < 2) {
        host_pool_free(p);
        s->pool = NULL;
    }
    return CP_OK;

out_bmu:
    pthread_mutex_destroy(&p->bmu);
out_cv:
    pthread_cond_destroy(&p->cv);
out_mu:
    pthread_mutex_destroy(&p->mu);
out_free:
    free(p);
    return cp_err_set(CP_FAIL_RUNTIME,
                      "%s: the thread pool's mutex or condition variable "
                      "could not be initialised",
                      e->info->name);
}

/* Runs every layer of a forward, on the pool where some layer takes two threads or more. */
static void host_run_layers(cp_engine *e, pool_layer_fn fn, int batch)
{
    struct host_state *s = e->state;
    struct host_pool *p = s->pool;
    int active = 1;
    for (int l = 0; l < e->model->n_layers; ++l)
        active = s->threads[l] > active ? s->threads[l] : active;
    if (!p || active < 2) {
        for (int l = 0; l < e->model->n_layers; ++l)
            fn(e, l, batch, 0, 1);
        return;
    }
    p->e = e;
    p->fn = fn;
    p->batch = batch;
    pthread_mutex_lock(&p->mu);
    p->gen++;
    p->active = active;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    cpu_set_t mask, one;
    bool pinned = p->pinned && !atomic_load_explicit(&p->unpin, memory_order_relaxed) &&
                  pthread_getaffinity_np(pthread_self(), sizeof mask, &mask) == 0;
    if (pinned) {
        CPU_ZERO(&one);
        CPU_SET(p->cpu0, &one);
        pinned = pthread_setaffinity_np(pthread_self(), sizeof one, &one) == 0;
    }
    p->wk[0].pinned = pinned; /* the caller is thread 0 of pool_run */
    pool_run(p, 0, active);   /* ends on the last layer's barrier */
    if (pinned)
        (void)pthread_setaffinity_np(pthread_self(), sizeof mask, &mask);
}

/* One host forward: the input into act[0], the layers, the output out; the three times. */
static void host_forward_f32(cp_engine *e, pool_layer_fn fn, const float *x, int batch, void *y,
                             cp_timing *t)
{
    struct host_state *s = e->state;
    const cp_model *m = e->model;
    double t0 = cp_now();
    memcpy(s->act[0], x, (size_t)batch * (size_t)m->in_width * sizeof(float));
    double t1 = cp_now();
    host_run_layers(e, fn, batch);
    double t2 = cp_now();
    memcpy(y, s->act[m->n_layers % 2], (size_t)batch * (size_t)m->out_width * sizeof(float));
    t->h2d_s = t1 - t0;
    t->wall_s = t2 - t1;
    t->d2h_s = cp_now() - t2;
}

/* Test hooks corrupt-exact and corrupt-pool: the last thread of a shared layer (host:exact:
 * or the only one) flips the lowest bit of its first output of the last layer, to show that
 * the tests see one wrong bit from any thread's share (host:openblas: only from the pool). */
static void host_corrupt(const cp_engine *e, int l, int id, int n, float *out)
{
    const struct host_state *s = e->state;
    if (s->corrupt && l == e->model->n_layers - 1 && id == n - 1 && (s->packed || n > 1)) {
        unsigned char *b = (unsigned char *)out;
        b[0] ^= 1;
    }
}

/* ---- host:exact ---------------------------------------------------------------------- */

/* host:exact's panels: each layer's weights packed as Wp[o / XP][k][o % XP], out padded to a
 * multiple of XP with zeros, so that XP adjacent outputs are one vector load at each k. */
#define XP 16
/* Panels per chunk: the unit of host:exact's cache blocking and of its thread split. */
#define EXACT_CHUNK 8
/* Multiply-adds per thread, at least, before a layer of host:exact is shared out. */
#define EXACT_MACS_PER_THREAD (1 << 14)

static size_t exact_panels(const cp_layer *L)
{
    return ((size_t)L->out + XP - 1) / XP;
}

/* The reference loop (CLPARITY_HOST_EXACT=scalar): one output at a time. */
static void exact_layer_scalar(const cp_layer *L, const float *p, const float *x, float *y,
                               int batch)
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

/* The epilogue of a tile of R rows × NV·XP outputs from o0, in host:exact's order: the sum
 * (acc, row-major per tile row), then the bias, the activation, the residual. */
static inline __attribute__((always_inline)) void
exact_store(const cp_layer *L, const float *restrict p, const float *restrict acc,
            const float *restrict x, float *restrict y, int o0, const int R, const int NV)
{
    for (int r = 0; r < R; ++r) {
        const float *xr = x + (size_t)r * (size_t)L->in;
        float *yr = y + (size_t)r * (size_t)L->out;
        for (int c = 0; c < NV * XP && o0 + c < L->out; ++c) {
            int o = o0 + c;
            float v = acc[(r * NV + c / XP) * XP + c % XP];
            if (L->has_bias)
                v = v + p[L->b_off + (size_t)o];
            float rl = L->act == CP_ACT_RELU ? cp_relu(v) : v;
            yr[o] = L->residual ? xr[o] + rl : rl;
        }
    }
}

/* R rows × NV panels of outputs: R·NV·XP accumulators, each its own fma chain from 0.0f, k
 * ascending (lanes are outputs, never k, so vectorising changes no bit), then the epilogue.
 * Inlined with constant R and NV into exact_unit's cases, where GCC vectorises the lanes. */
static inline __attribute__((always_inline)) void
exact_tile(const cp_layer *L, const float *restrict p, const float *restrict wp, int K,
           const float *restrict x, float *restrict y, int o0, const int R, const int NV)
{
    float acc[8 * XP];
    for (int i = 0; i < R * NV * XP; ++i)
        acc[i] = 0.0f;
    for (int k = 0; k < K; ++k)
        for (int j = 0; j < NV; ++j) {
            const float *w = wp + ((size_t)j * (size_t)K + (size_t)k) * XP;
            for (int r = 0; r < R; ++r) {
                const float a = x[(size_t)r * (size_t)K + (size_t)k];
                for (int v = 0; v < XP; ++v)
                    acc[(r * NV + j) * XP + v] = fmaf(a, w[v], acc[(r * NV + j) * XP + v]);
            }
        }
    exact_store(L, p, acc, x, y, o0, R, NV);
}

/* Defines NAME(L, p, wp, x, y, r0, r1, p0, p1) with attributes ATTR: rows [r0, r1) × panels
 * [p0, p1) of one layer through TILE, in chunks of EXACT_CHUNK panels (512 KiB of weights at
 * K = 1024) that stay in cache while every row passes over them: MAXR (8 or 4), MAXR / 2,
 * MAXR / 4 or 1 rows at a time with MAXR / rows panels each (MAXR panel-rows of chains in
 * flight), then one panel at a time for the rest of the chunk. The shape of a tile changes no
 * bit: each output is its own chain. */
#define EXACT_UNIT(ATTR, NAME, TILE, MAXR)                                                         \
    ATTR static void NAME(const cp_layer *L, const float *p, const float *wp, const float *x,      \
                          float *y, int r0, int r1, int p0, int p1)                                \
    {                                                                                              \
        const int K = L->in;                                                                       \
        for (int c0 = p0; c0 < p1; c0 += EXACT_CHUNK) {                                            \
            int c1 = c0 + EXACT_CHUNK < p1 ? c0 + EXACT_CHUNK : p1;                                \
            for (int r = r0; r < r1;) {                                                            \
                int R = r1 - r >= (MAXR)       ? (MAXR)                                            \
                        : r1 - r >= (MAXR) / 2 ? (MAXR) / 2                                        \
                        : r1 - r >= (MAXR) / 4 ? (MAXR) / 4                                        \
                                               : 1;                                                \
                const float *xr = x + (size_t)r * (size_t)K;                                       \
                float *yr = y + (size_t)r * (size_t)L->out;                                        \
                for (int pn = c0; pn < c1;) {                                                      \
                    const float *w = wp + (size_t)pn * (size_t)K * XP;                             \
                    int full = pn + (MAXR) / R <= c1; /* MAXR / R panels left, else one */         \
                    if (R == (MAXR))                                                               \
                        TILE(L, p, w, K, xr, yr, pn *XP, (MAXR), 1);                               \
                    else if (R == (MAXR) / 2 && full)                                              \
                        TILE(L, p, w, K, xr, yr, pn *XP, (MAXR) / 2, 2);                           \
                    else if (R == (MAXR) / 4 && full)                                              \
                        TILE(L, p, w, K, xr, yr, pn *XP, (MAXR) / 4, 4);                           \
                    else if (R == 1 && full)                                                       \
                        TILE(L, p, w, K, xr, yr, pn *XP, 1, (MAXR));                               \
                    else if (R == (MAXR) / 2)                                                      \
                        TILE(L, p, w, K, xr, yr, pn *XP, (MAXR) / 2, 1);                           \
                    else if (R == (MAXR) / 4)                                                      \
                        TILE(L, p, w, K, xr, yr, pn *XP, (MAXR) / 4, 1);                           \
                    else                                                                           \
                        TILE(L, p, w, K, xr, yr, pn *XP, 1, 1);                                    \
                    pn += full ? (MAXR) / R : 1;                                                   \
                }                                                                                  \
                r += R;                                                                            \
            }                                                                                      \
        }                                                                                          \
    }

/* The portable loop (exact_tile) at each instruction-set level: plain C for the baseline
 * x86-64 (or any other CPU; fmaf is a library call there), and compiled for AVX2 + FMA and
 * for AVX-512 F (CLPARITY_HOST_EXACT=generic). Every variant gives the same bits, since fmaf
 * is correctly rounded either way and the build has -ffp-contract=off. */
EXACT_UNIT(, exact_unit, exact_tile, 8)

#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_EXACT_ISA 1
EXACT_UNIT(__attribute__((target("avx2,fma"))), exact_unit_avx2, exact_tile, 8)
EXACT_UNIT(__attribute__((target("avx512f"))), exact_unit_avx512, exact_tile, 8)

/* exact_tile with AVX-512 intrinsics: GCC's vectorised exact_tile keeps its accumulators on
 * the stack, a load and a store per fma; here they stay in 8 zmm registers. Each lane is still
 * one output's fma chain (vfmadd is the correctly rounded fma of every lane). */
static inline __attribute__((always_inline, target("avx512f"))) void
exact_tile512(const cp_layer *L, const float *restrict p, const float *restrict wp, int K,
              const float *restrict x, float *restrict y, int o0, const int R, const int NV)
{
    __m512 acc[8];
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i)
        acc[i] = _mm512_setzero_ps();
    for (int k = 0; k < K; ++k) {
#pragma GCC unroll 8
        for (int j = 0; j < NV; ++j) {
            __m512 w = _mm512_loadu_ps(wp + ((size_t)j * (size_t)K + (size_t)k) * XP);
#pragma GCC unroll 8
            for (int r = 0; r < R; ++r)
                acc[r * NV + j] = _mm512_fmadd_ps(
                    _mm512_set1_ps(x[(size_t)r * (size_t)K + (size_t)k]), w, acc[r * NV + j]);
        }
    }
    float out[8 * XP];
#pragma GCC unroll 8
    for (int i = 0; i < R * NV; ++i)
        _mm512_storeu_ps(out + i * XP, acc[i]);
    exact_store(L, p, out, x, y, o0, R, NV);
}

/* The same with AVX2 + FMA: a panel of XP = 16 outputs is two ymm vectors, so a tile holds
 * R · NV ≤ 4 panel-rows, 8 ymm accumulators (of 16 registers: the weights and the broadcast
 * row value need the rest). Each lane is one output's fma chain, as above. */
static inline __attribute__((always_inline, target("avx2,fma"))) void
exact_tile256(const cp_layer *L, const float *restrict p, const float *restrict wp, int K,
              const float *restrict x, float *restrict y, int o0, const int R, const int NV)
{
    __m256 acc[8];
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i)
        acc[i] = _mm256_setzero_ps();
    for (int k = 0; k < K; ++k) {
#pragma GCC unroll 4
        for (int j = 0; j < NV; ++j) {
            const float *wk = wp + ((size_t)j * (size_t)K + (size_t)k) * XP;
            __m256 w0 = _mm256_loadu_ps(wk), w1 = _mm256_loadu_ps(wk + 8);
#pragma GCC unroll 4
            for (int r = 0; r < R; ++r) {
                __m256 a = _mm256_broadcast_ss(x + (size_t)r * (size_t)K + (size_t)k);
                acc[2 * (r * NV + j)] = _mm256_fmadd_ps(a, w0, acc[2 * (r * NV + j)]);
                acc[2 * (r * NV + j) + 1] = _mm256_fmadd_ps(a, w1, acc[2 * (r * NV + j) + 1]);
            }
        }
    }
    float out[4 * XP];
#pragma GCC unroll 8
    for (int i = 0; i < 2 * R * NV; ++i)
        _mm256_storeu_ps(out + i * 8, acc[i]);
    exact_store(L, p, out, x, y, o0, R, NV);
}

EXACT_UNIT(__attribute__((target("avx512f"))), exact_unit512, exact_tile512, 8)
EXACT_UNIT(__attribute__((target("avx2,fma"))), exact_unit256, exact_tile256, 4)
#endif

/* host:exact's instruction-set levels, widest first: the names of CLPARITY_HOST_ISA. */
enum { ISA_AVX512, ISA_AVX2, ISA_BASELINE, ISA_N };
static const char *const isa_words[ISA_N] = {"avx512", "avx2", "baseline"};

/* Whether this CPU (and its OS, which must save the vector registers) runs level isa: by the
 * instruction set that the level's code is compiled for, never by the CPU's model. */
static bool isa_has(int isa)
{
#ifdef HAVE_EXACT_ISA
    __builtin_cpu_init();
    if (isa == ISA_AVX512)
        return __builtin_cpu_supports("avx512f");
    if (isa == ISA_AVX2)
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
    return isa == ISA_BASELINE;
}

/* The levels this CPU has, widest first, into has ("avx2, baseline"). */
static void isa_list(char *has, size_t len)
{
    has[0] = '\0';
    for (int i = 0; i < ISA_N; ++i)
        if (isa_has(i))
            snprintf(has + strlen(has), len - strlen(has), "%s%s", has[0] ? ", " : "",
                     isa_words[i]);
}

/* host:exact's level: CLPARITY_HOST_ISA where this CPU has it, else the widest this CPU has.
 * A level the CPU lacks, or a word that is no level, is a usage error; the former names the
 * levels this CPU has. */
static int exact_isa(int *isa)
{
    int forced;
    *isa = ISA_BASELINE;
    int st = host_env_word("CLPARITY_HOST_ISA", isa_words, ISA_N, &forced);
    if (st != CP_OK)
        return st;
    if (forced >= 0 && !isa_has(forced)) {
        char has[64];
        isa_list(has, sizeof has);
        return cp_err_set(
            CP_FAIL_USAGE, "CLPARITY_HOST_ISA: this CPU lacks '%s' (%s); its levels are %s",
            isa_words[forced], forced == ISA_AVX512 ? "AVX-512 F" : "AVX2 and FMA", has);
    }
    for (int i = ISA_N - 1; i >= 0; --i)
        if (forced < 0 ? isa_has(i) : i == forced)
            *isa = i; /* the widest the CPU has is the last one found */
    return CP_OK;
}

/* The unit host:exact runs at level isa: the intrinsics kernel, or with generic the portable
 * loop compiled for that level. */
static exact_unit_fn exact_unit_for(int isa, bool generic)
{
#ifdef HAVE_EXACT_ISA
    if (isa == ISA_AVX512)
        return generic ? exact_unit_avx512 : exact_unit512;
    if (isa == ISA_AVX2)
        return generic ? exact_unit_avx2 : exact_unit256;
#else
    (void)isa;
    (void)generic;
#endif
    return exact_unit;
}

/* How a layer splits into units for threads: blocks of 8 rows × groups of 8 / rows panels. */
static void exact_units(const cp_layer *L, int batch, long *row_blocks, long *chunks)
{
    *row_blocks = (batch + 7) / 8;
    *chunks = ((long)exact_panels(L) + EXACT_CHUNK - 1) / EXACT_CHUNK;
}

/* A run of units of layer l in one chunk: rows [r0, r1) × panels [p0, p1). */
typedef void (*unit_run_fn)(cp_engine *e, int l, int r0, int r1, int p0, int p1);

/* Thread id of n: units [U·id/n, U·(id+1)/n) of layer l, a unit being a chunk of panels × a
 * block of 8 rows, chunk major: a thread streams its chunks of the weights once. Each run of
 * units in one chunk is one call of run (host:exact's and host:cr's). */
static void host_units(cp_engine *e, int l, int batch, int id, int n, unit_run_fn run)
{
    struct host_state *s = e->state;
    const cp_layer *L = &e->model->layers[l];
    float *y = s->act[(l + 1) % 2];
    long rb, pc;
    exact_units(L, batch, &rb, &pc);
    long u0 = rb * pc * id / n, u1 = rb * pc * (id + 1) / n;
    int panels = (int)exact_panels(L);
    for (long u = u0; u < u1;) {
        /* the run of units in one chunk, as one call */
        long c = u / rb, end = (c + 1) * rb < u1 ? (c + 1) * rb : u1;
        int p0 = (int)(c * EXACT_CHUNK), p1 = p0 + EXACT_CHUNK < panels ? p0 + EXACT_CHUNK : panels;
        int r0 = (int)((u - c * rb) * 8), r1 = (int)((end - c * rb) * 8);
        r1 = r1 < batch ? r1 : batch;
        run(e, l, r0, r1, p0, p1);
        if (u == u0)
            host_corrupt(e, l, id, n, y + (size_t)r0 * (size_t)L->out + (size_t)p0 * XP);
        u = end;
    }
}

static void exact_run(cp_engine *e, int l, int r0, int r1, int p0, int p1)
{
    struct host_state *s = e->state;
    const cp_model *m = e->model;
    s->unit(&m->layers[l], m->params, s->packed + s->pack_off[l], s->act[l % 2],
            s->act[(l + 1) % 2], r0, r1, p0, p1);
}

static void exact_layer(cp_engine *e, int l, int batch, int id, int n)
{
    struct host_state *s = e->state;
    if (s->scalar)
        exact_layer_scalar(&e->model->layers[l], e->model->params, s->act[l % 2],
                           s->act[(l + 1) % 2], batch);
    else
        host_units(e, l, batch, id, n, exact_run);
}

/* The panels of every layer (host:exact's and host:cr's), padded with zero outputs. */
static int exact_pack(cp_engine *e, struct host_state *s)
{
    const cp_model *m = e->model;
    s->pack_off = calloc((size_t)m->n_layers + 1, sizeof *s->pack_off);
    if (!s->pack_off)
        return cp_err_set(CP_FAIL_RUNTIME, "%s: out of memory", e->info->name);
    for (int l = 0; l < m->n_layers; ++l)
        s->pack_off[l + 1] =
            s->pack_off[l] + exact_panels(&m->layers[l]) * XP * (size_t)m->layers[l].in;
    size_t total = s->pack_off[m->n_layers];
    s->packed = malloc((total ? total : 1) * sizeof *s->packed);
    if (!s->packed)
        return cp_err_set(CP_FAIL_RUNTIME,
                          "%s: out of memory for the packed weights "
                          "(%zu bytes)",
                          e->info->name, total * sizeof *s->packed);
    for (int l = 0; l < m->n_layers; ++l) {
        const cp_layer *L = &m->layers[l];
        const float *w = m->params + L->w_off;
        float *dst = s->packed + s->pack_off[l];
        for (size_t o = 0; o < exact_panels(L) * XP; ++o)
            for (int k = 0; k < L->in; ++k)
                dst[((o / XP) * (size_t)L->in + (size_t)k) * XP + o % XP] =
                    o < (size_t)L->out ? w[o * (size_t)L->in + (size_t)k] : 0.0f;
    }
    return CP_OK;
}

/* Threads per layer for a forward of batch rows: one per EXACT_MACS_PER_THREAD multiply-adds,
 * at most one per unit and max; one everywhere for the scalar loops. */
static void exact_plan(cp_engine *e, int batch, int max)
{
    struct host_state *s = e->state;
    for (int l = 0; l < e->model->n_layers; ++l) {
        long rb, pc;
        exact_units(&e->model->layers[l], batch, &rb, &pc);
        s->threads[l] = s->scalar ? 1
                                  : layer_threads(&e->model->layers[l], batch,
                                                  EXACT_MACS_PER_THREAD, rb * pc, max);
    }
}

/* The threads of each layer at max_batch and the pool they share (host:exact's, host:cr's). */
static int exact_pool(cp_engine *e, struct host_state *s, int max_batch)
{
    int n;
    int st = host_max_threads(&n);
    if (st != CP_OK)
        return st;
    exact_plan(e, max_batch, n);
    return host_pool_create(e, s, n);
}

static int exact_create(cp_engine *e, const cp_device *dev, const cp_model *m, int max_batch)
{
    (void)dev;
    (void)m;
    int st = host_alloc(e, sizeof(float), false);
    if (st != CP_OK)
        return st;
    struct host_state *s = e->state;
    /* CLPARITY_HOST_EXACT: "scalar" (the reference loop) or "generic" (the portable loop at
     * the level, not its intrinsics kernel), for the tests that compare the loops. */
    static const char *const modes[] = {"scalar", "generic"};
    int mode;
    st = host_env_word("CLPARITY_HOST_EXACT", modes, 2, &mode);
    if (st != CP_OK)
        return st;
    s->scalar = mode == 0;
    int isa;
    st = exact_isa(&isa);
    if (st != CP_OK)
        return st;
    s->unit = exact_unit_for(isa, mode == 1);
    snprintf(e->routine, sizeof e->routine, "C fmaf chains (%s)",
             mode == 0   ? "scalar"
             : mode == 1 ? "generic"
                         : isa_words[isa]);
    s->corrupt = cp_test_hook("corrupt-exact");
    if (s->scalar)
        return CP_OK;
    double t0 = cp_now();
    st = exact_pack(e, s);
    if (st != CP_OK)
        return st;
    e->upload_s = cp_now() - t0;
    return exact_pool(e, s, max_batch);
}

static int exact_forward(cp_engine *e, const float *x, int batch, void *y, cp_timing *t)
{
    exact_plan(e, batch, ((struct host_state *)e->state)->max_threads);
    host_forward_f32(e, exact_layer, x, batch, y, t);
    return CP_OK;
}

static void host_about(cp_host_about *a);

const struct cp_engine_ops cp_engine_ops_host_exact = {
    .create = exact_create, .forward = exact_forward, .destroy = host_destroy, .about = host_about};

/* ---- host:cr ------------------------------------------------------------------------- */

/* host:cr reads host:exact's panels (exact_pack) through the same units and thread split; its
 * arithmetic, and the proof that every output is the correctly rounded sum, are in cr.c. */
_Static_assert(XP == CR_PANEL, "host:cr's units read host:exact's panels");

/* The fast path's kernel at host:exact's level (CLPARITY_HOST_ISA): the AVX2 + FMA intrinsics
 * (also at the AVX-512 level, whose CPUs have them), or with generic the portable loop
 * compiled for the level. */
static enum cr_kernel cr_kernel_for(int isa, bool generic)
{
    if (isa == ISA_AVX512)
        return generic || !isa_has(ISA_AVX2) ? CR_KERNEL_C_AVX512 : CR_KERNEL_AVX2;
    if (isa == ISA_AVX2)
        return generic ? CR_KERNEL_C_AVX2 : CR_KERNEL_AVX2;
    return CR_KERNEL_C;
}

static void cr_run(cp_engine *e, int l, int r0, int r1, int p0, int p1)
{
    struct host_state *s = e->state;
    const cp_model *m = e->model;
    const cp_layer *L = &m->layers[l];
    const cr_layer_args a = {.in = L->in,
                             .out = L->out,
                             .act = L->act,
                             .residual = L->residual,
                             .w = m->params + L->w_off,
                             .bias = L->has_bias ? m->params + L->b_off : NULL,
                             .wp = s->packed + s->pack_off[l],
                             .wnorm = s->wnorm + (size_t)l * (size_t)m->max_width,
                             .scale = cr_err_scale(L->in),
                             .x = s->act[l % 2],
                             .xd = s->actd[l % 2],
                             .y = s->act[(l + 1) % 2],
                             .yd = s->actd[(l + 1) % 2]};
    long fallbacks = s->cr_unit(&a, r0, r1, p0, p1);
    if (fallbacks)
        atomic_fetch_add_explicit(&s->cr_fallbacks, fallbacks, memory_order_relaxed);
}

/* The scalar form (CLPARITY_HOST_CR=scalar): every output through the exact accumulator, one
 * row at a time, on one thread; else host:exact's units over the pool. */
static void cr_layer(cp_engine *e, int l, int batch, int id, int n)
{
    struct host_state *s = e->state;
    const cp_model *m = e->model;
    const cp_layer *L = &m->layers[l];
    if (!s->scalar) {
        host_units(e, l, batch, id, n, cr_run);
        return;
    }
    const float *x = s->act[l % 2];
    float *y = s->act[(l + 1) % 2];
    for (int b = 0; b < batch; ++b)
        cr_layer_row(x + (size_t)b * (size_t)L->in, m->params + L->w_off,
                     L->has_bias ? m->params + L->b_off : NULL, L->in, L->out, L->act, L->residual,
                     y + (size_t)b * (size_t)L->out);
}

static int cr_create(cp_engine *e, const cp_device *dev, const cp_model *m, int max_batch)
{
    (void)dev;
    int st = host_alloc(e, sizeof(float), false);
    if (st != CP_OK)
        return st;
    struct host_state *s = e->state;
    /* CLPARITY_HOST_CR: "auto" (the default: the certified fast path, the accumulator where
     * the certificate fails), "scalar" (the accumulator for every output) or "generic" (the
     * fast path's portable loop at the level, not its intrinsics kernel); for the tests. */
    static const char *const modes[] = {"auto", "scalar", "generic"};
    static const char *const stats[] = {"0", "1"};
    int mode, stat, isa;
    if ((st = host_env_word("CLPARITY_HOST_CR", modes, 3, &mode)) != CP_OK ||
        (st = host_env_word("CLPARITY_HOST_CR_STATS", stats, 2, &stat)) != CP_OK ||
        (st = exact_isa(&isa)) != CP_OK || (st = cr_check_inputs(m, "host:cr")) != CP_OK)
        return st;
    s->scalar = mode == 1;
    s->cr_stats = stat == 1;
    atomic_init(&s->cr_fallbacks, 0);
    static const char *const kernels[] = {[CR_KERNEL_C] = "baseline",
                                          [CR_KERNEL_C_AVX2] = "avx2 generic",
                                          [CR_KERNEL_C_AVX512] = "avx512 generic",
                                          [CR_KERNEL_AVX2] = "avx2"};
    enum cr_kernel k = cr_kernel_for(isa, mode == 2);
    s->cr_unit = cr_unit_get(k);
    if (s->scalar)
        snprintf(e->routine, sizeof e->routine, "exact accumulator (scalar)");
    else
        snprintf(e->routine, sizeof e->routine, "f64 sums + exact fallback (%s)", kernels[k]);
    s->corrupt = cp_test_hook("corrupt-cr");
    if (s->scalar)
        return CP_OK;
    double t0 = cp_now();
    size_t act = (size_t)e->max_batch * (size_t)m->max_width;
    size_t nw = (size_t)m->n_layers * (size_t)m->max_width;
    s->actd[0] = malloc(act * sizeof(double));
    s->actd[1] = malloc(act * sizeof(double));
    s->wnorm = malloc((nw ? nw : 1) * sizeof(double));
    if (!s->actd[0] || !s->actd[1] || !s->wnorm)
        return cp_err_set(CP_FAIL_RUNTIME,
                          "host:cr: out of memory for the double activations and the weights' "
                          "norms (%zu bytes)",
                          (2 * act + nw) * sizeof(double));
    st = exact_pack(e, s);
    if (st != CP_OK)
        return st;
    for (int l = 0; l < m->n_layers; ++l) {
        const cp_layer *L = &m->layers[l];
        for (int o = 0; o < L->out; ++o)
            s->wnorm[(size_t)l * (size_t)m->max_width + (size_t)o] =
                cr_norm(m->params + L->w_off + (size_t)o * (size_t)L->in, L->in);
    }
    e->upload_s = cp_now() - t0;
    return exact_pool(e, s, max_batch);
}

/* The input in double (counted as its upload: the fast path reads doubles), then the layers. */
static int cr_forward(cp_engine *e, const float *x, int batch, void *y, cp_timing *t)
{
    struct host_state *s = e->state;
    const cp_model *m = e->model;
    double t0 = cp_now();
    if (!s->scalar)
        for (size_t i = 0; i < (size_t)batch * (size_t)m->in_width; ++i)
            s->actd[0][i] = (double)x[i];
    exact_plan(e, batch, s->max_threads);
    double t1 = cp_now();
    host_forward_f32(e, cr_layer, x, batch, y, t);
    t->h2d_s += t1 - t0;
    for (int l = 0; l < m->n_layers; ++l)
        s->cr_outputs += (long)batch * m->layers[l].out;
    return CP_OK;
}

/* With CLPARITY_HOST_CR_STATS=1, how often the certificate failed, on stderr (a debug count:
 * never in the report). */
static void cr_destroy(cp_engine *e)
{
    struct host_state *s = e->state;
    if (s->cr_stats) {
        long f = atomic_load(&s->cr_fallbacks);
        fprintf(stderr, "host:cr: %ld of %ld outputs took the exact fallback (%.3g%%)%s\n", f,
                s->cr_outputs, s->cr_outputs ? 100.0 * (double)f / (double)s->cr_outputs : 0.0,
                s->scalar ? " (scalar: every output)" : "");
    }
    host_destroy(e);
}

const struct cp_engine_ops cp_engine_ops_host_cr = {
    .create = cr_create, .forward = cr_forward, .destroy = cr_destroy};

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

/* host:exact's cp_host_about_get: the pool, its pinning, host:exact's level (each setting's
 * error, if any, said in the field, never left in the error message). */
static void host_about(cp_host_about *a)
{
    int n, isa;
    bool pin;
    a->pool_threads = host_max_threads(&n) == CP_OK ? n : 0;
    a->pool_pin = pool_pin_wanted(&pin) == CP_OK ? pin : -1;
    const char *env = getenv("CLPARITY_HOST_ISA");
    a->isa_forced = env && env[0];
    isa_list(a->isa_levels, sizeof a->isa_levels);
    a->isa = exact_isa(&isa) == CP_OK ? isa_words[isa] : NULL;
    if (!a->isa)
        snprintf(a->isa_error, sizeof a->isa_error, "%s", cp_err_msg());
}
