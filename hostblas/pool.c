/* The host engines' shared setup and thread pool: their settings, state and teardown, and the
 * pool that shares out each layer of a forward (host:openblas, host:exact and host:cr). */
#define _GNU_SOURCE /* pthread_setaffinity_np, CPU_SET: the pool's pinning */
#include "host-impl.h"
#include "clparity/env.h"

#include <strings.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The host engines' settings by environment variable, read through runtime/base/env.c's table
 * (which refuses a value it does not list): *choice is the index of name's value in words (n of
 * them, in the table's order), or -1 where it is unset or empty. A table whose words differ
 * from the engine's is a bug, named as such. */
int host_env_word(const char *name, const char *const *words, int n, int *choice)
{
    int st = cp_env_word(name, choice);
    if (st != CP_OK || *choice < 0)
        return st;
    const char *v = getenv(name);
    if (*choice >= n || strcasecmp(v, words[*choice]) != 0)
        return cp_err_set(CP_FAIL_RUNTIME,
                          "%s: runtime/base/env.c's words differ from the engine's", name);
    return CP_OK;
}

int host_alloc(cp_engine *e, size_t esz, bool need_tmp)
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

void host_destroy(cp_engine *e)
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
    /* the task being run (host_pool_task), else the forward */
    pool_task_fn task;
    void *task_arg;
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
    if (p->task) {
        p->task(p->task_arg, p, id, active);
        pool_barrier(p, active);
        return;
    }
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

void host_pool_free(struct host_pool *p)
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
int host_max_threads(int *n)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    *n = cores < 1 ? 1 : cores > POOL_MAX_THREADS ? POOL_MAX_THREADS : (int)cores;
    double v; /* 1 to POOL_MAX_THREADS, as runtime/base/env.c's table says */
    bool set;
    int st = cp_env_number("CLPARITY_HOST_THREADS", &v, &set);
    if (st == CP_OK && set)
        *n = (int)v;
    return st;
}

/* Threads for one layer: one per macs_per_thread multiply-adds, no more than units (the
 * pieces the layer splits into) or max. */
int layer_threads(const cp_layer *L, int batch, double macs_per_thread, long units, int max)
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
int pool_pin_wanted(bool *pin)
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

/* A pool of n threads (the caller and n - 1 workers), unpinned; NULL in *out where fewer than
 * two could be started. */
int host_pool_new(int n, struct host_pool **out)
{
    *out = NULL;
    if (n < 2)
        return CP_OK;
    struct host_pool *p = calloc(1, sizeof *p);
    if (!p)
        return cp_err_set(CP_FAIL_RUNTIME, "the host thread pool: out of memory");
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
    for (int i = 1; i < n && i < POOL_MAX_THREADS; ++i) {
        p->wk[i].p = p;
        p->wk[i].id = i;
        if (pthread_create(&p->th[i], NULL, pool_worker, &p->wk[i]) != 0)
            break; /* fewer threads: still correct, the thread counts are capped by p->n */
        p->n = i + 1;
    }
    if (p->n < 2)
        host_pool_free(p);
    else
        *out = p;
    return CP_OK;

out_bmu:
    pthread_mutex_destroy(&p->bmu);
out_cv:
    pthread_cond_destroy(&p->cv);
out_mu:
    pthread_mutex_destroy(&p->mu);
out_free:
    free(p);
    return cp_err_set(CP_FAIL_RUNTIME, "the host thread pool's mutex or condition variable "
                                       "could not be initialised");
}

/* The process's shared pool: one set of threads for callers that run one after another in one
 * thread (train's host references, host:exact's and host:f64's steps, and its per-step
 * measurements), so that one caller's idle threads, which spin and yield for up to POOL_SLEEP_S
 * after each task, never compete for the cores with the next caller's (on the H200's 16 cores
 * with a pool each, a third of a host step's samples were threads yielding). Created with the
 * host's threads (host_max_threads) at the first use, freed with the last. */
static pthread_mutex_t shared_mu = PTHREAD_MUTEX_INITIALIZER;
static struct host_pool *shared_pool;
static int shared_refs;

int host_pool_shared(int n, struct host_pool **out)
{
    *out = NULL;
    if (n < 2)
        return CP_OK;
    int max;
    int st = host_max_threads(&max);
    if (st != CP_OK)
        return st;
    pthread_mutex_lock(&shared_mu);
    if (!shared_pool)
        st = host_pool_new(max > n ? max : n, &shared_pool);
    if (st == CP_OK && shared_pool) {
        ++shared_refs;
        *out = shared_pool;
    }
    pthread_mutex_unlock(&shared_mu);
    return st;
}

void host_pool_unshare(struct host_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&shared_mu);
    if (p == shared_pool && --shared_refs == 0) {
        host_pool_free(shared_pool);
        shared_pool = NULL;
    }
    pthread_mutex_unlock(&shared_mu);
}

int host_pool_size(const struct host_pool *p)
{
    return p ? p->n : 1;
}

/* Starts the pool of n threads where some layer at max_batch would use two or more. */
int host_pool_create(cp_engine *e, struct host_state *s, int n)
{
    bool useful = false;
    for (int l = 0; l < e->model->n_layers; ++l)
        useful = useful || s->threads[l] > 1;
    bool pin;
    int st = pool_pin_wanted(&pin);
    if (st != CP_OK || n < 2 || !useful)
        return st;
    struct host_pool *p;
    st = host_pool_new(n, &p);
    if (st != CP_OK) { /* the message names the engine */
        char why[256];
        snprintf(why, sizeof why, "%s", cp_err_msg());
        return cp_err_set(CP_FAIL_RUNTIME, "%s: %s", e->info->name, why);
    }
    if (!p)
        return CP_OK;
    s->pool = p;
    s->max_threads = p->n;
    if (pin)
        pool_pin(p);
    return CP_OK;
}

/* Wakes threads 1 to active - 1 for the next forward or task. */
static void pool_wake(struct host_pool *p, int active)
{
    pthread_mutex_lock(&p->mu);
    p->gen++;
    p->active = active;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

void host_pool_task(struct host_pool *p, int n, pool_task_fn fn, void *arg)
{
    n = n < host_pool_size(p) ? n : host_pool_size(p);
    if (!p || n < 2) {
        fn(arg, NULL, 0, 1);
        return;
    }
    p->task = fn;
    p->task_arg = arg;
    pool_wake(p, n);
    pool_run(p, 0, n); /* ends on the task's last barrier */
    p->task = NULL;
}

void host_pool_sync(struct host_pool *p, int n)
{
    if (p && n > 1)
        pool_barrier(p, n);
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
    pool_wake(p, active);
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
void host_forward_f32(cp_engine *e, pool_layer_fn fn, const float *x, int batch, void *y,
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
void host_corrupt(const cp_engine *e, int l, int id, int n, float *out)
{
    const struct host_state *s = e->state;
    if (s->corrupt && l == e->model->n_layers - 1 && id == n - 1 && (s->packed || n > 1)) {
        unsigned char *b = (unsigned char *)out;
        b[0] ^= 1;
    }
}
