/* clparity peak on the host: fma throughput and memory bandwidth measured with threaded C
 * loops (peak.c has the cache and the OpenCL kernels). */
#include "peak-impl.h"

#include "engine-impl.h"
#include "clparity/report.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Independent fma chains, one vector register each: no chain waits on another, so every fma
 * unit stays busy. Each step is HOST_CHAINS fmas of the vector width. x86 gets explicit
 * AVX-512 or AVX2+FMA code, picked by what the CPU supports at run time; elsewhere (and on x86
 * without FMA) the compiler's fmaf. */
#define HOST_CHAINS 8

static double host_fma_plain(long iters, float m, float c, float seed, int *lanes)
{
    float acc[HOST_CHAINS][4];
    for (int i = 0; i < HOST_CHAINS; ++i)
        for (int l = 0; l < 4; ++l)
            acc[i][l] = seed + (float)(i * 4 + l) * 1e-3f;
    for (long it = 0; it < iters; ++it)
        for (int i = 0; i < HOST_CHAINS; ++i)
            for (int l = 0; l < 4; ++l)
                acc[i][l] = fmaf(acc[i][l], m, c);
    double s = 0.0;
    for (int i = 0; i < HOST_CHAINS; ++i)
        for (int l = 0; l < 4; ++l)
            s += acc[i][l];
    *lanes = 4;
    return s;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

__attribute__((target("avx512f"))) static double host_fma_avx512(long iters, float m, float c,
                                                                 float seed, int *lanes)
{
    __m512 acc[HOST_CHAINS];
    for (int i = 0; i < HOST_CHAINS; ++i)
        acc[i] = _mm512_set1_ps(seed + (float)i * 1e-3f);
    const __m512 vm = _mm512_set1_ps(m), vc = _mm512_set1_ps(c);
    for (long it = 0; it < iters; ++it)
        for (int i = 0; i < HOST_CHAINS; ++i)
            acc[i] = _mm512_fmadd_ps(acc[i], vm, vc);
    double s = 0.0;
    for (int i = 0; i < HOST_CHAINS; ++i)
        s += _mm512_reduce_add_ps(acc[i]);
    *lanes = 16;
    return s;
}

__attribute__((target("avx2,fma"))) static double host_fma_avx2(long iters, float m, float c,
                                                                float seed, int *lanes)
{
    __m256 acc[HOST_CHAINS];
    for (int i = 0; i < HOST_CHAINS; ++i)
        acc[i] = _mm256_set1_ps(seed + (float)i * 1e-3f);
    const __m256 vm = _mm256_set1_ps(m), vc = _mm256_set1_ps(c);
    for (long it = 0; it < iters; ++it)
        for (int i = 0; i < HOST_CHAINS; ++i)
            acc[i] = _mm256_fmadd_ps(acc[i], vm, vc);
    float lane[8];
    double s = 0.0;
    for (int i = 0; i < HOST_CHAINS; ++i) {
        _mm256_storeu_ps(lane, acc[i]);
        for (int l = 0; l < 8; ++l)
            s += lane[l];
    }
    *lanes = 8;
    return s;
}
#endif

/* The widest loop this CPU runs; *lanes is its vector width. */
static double host_fma_loop(long iters, float m, float c, float seed, int *lanes)
{
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        return host_fma_avx512(iters, m, c, seed, lanes);
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return host_fma_avx2(iters, m, c, seed, lanes);
#endif
    return host_fma_plain(iters, m, c, seed, lanes);
}

struct host_gate {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool go, abort;
};

struct host_task {
    long iters;
    double result;
    float *a, *b, *c; /* triad */
    size_t n;
    struct host_gate *gate;
};

/* Waits until every thread has been created; false when the run was called off. */
static bool host_wait(struct host_gate *g)
{
    pthread_mutex_lock(&g->mu);
    while (!g->go)
        pthread_cond_wait(&g->cv, &g->mu);
    bool run = !g->abort;
    pthread_mutex_unlock(&g->mu);
    return run;
}

static void *host_fma_thread(void *arg)
{
    struct host_task *t = arg;
    if (host_wait(t->gate)) {
        int lanes;
        t->result = host_fma_loop(t->iters, 0.999999f, 1e-3f, (float)t->result, &lanes);
    }
    return NULL;
}

static void *host_triad_thread(void *arg)
{
    struct host_task *t = arg;
    if (host_wait(t->gate))
        for (size_t i = 0; i < t->n; ++i)
            t->a[i] = t->b[i] + 3.0f * t->c[i];
    return NULL;
}

/* Runs fn on nthreads threads released together; the seconds from release to the last join. */
static int host_parallel(void *(*fn)(void *), struct host_task *tasks, long nthreads, double *sec)
{
    pthread_t *th = calloc((size_t)nthreads, sizeof *th);
    if (!th)
        return cp_err_set(CP_FAIL_RUNTIME, "peak: out of memory");
    struct host_gate gate = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, false};
    long started = 0;
    int st = CP_OK;
    for (; started < nthreads; ++started) {
        tasks[started].gate = &gate;
        int rc = pthread_create(&th[started], NULL, fn, &tasks[started]);
        if (rc != 0) {
            st = cp_err_set(CP_FAIL_RUNTIME, "peak: pthread_create failed: %s", strerror(rc));
            break;
        }
    }
    double t0 = cp_now();
    pthread_mutex_lock(&gate.mu);
    gate.go = true;
    gate.abort = st != CP_OK; /* the threads that did start return at once */
    pthread_cond_broadcast(&gate.cv);
    pthread_mutex_unlock(&gate.mu);
    for (long i = 0; i < started; ++i)
        pthread_join(th[i], NULL);
    *sec = cp_now() - t0;
    free(th);
    return st;
}

int peak_measure_host(cp_peak *p)
{
    long nthreads = sysconf(_SC_NPROCESSORS_ONLN);
    if (nthreads < 1)
        nthreads = 1;
    struct host_task *tasks = calloc((size_t)nthreads, sizeof *tasks);
    if (!tasks)
        return cp_err_set(CP_FAIL_RUNTIME, "peak: out of memory");
    /* One thread alone first, to size the loop. */
    long iters = 1 << 14;
    double sec = 0.0;
    int lanes = 1;
    for (;;) {
        double t0 = cp_now();
        volatile double sink = host_fma_loop(iters, 0.999999f, 1e-3f, 0.5f, &lanes);
        (void)sink;
        sec = cp_now() - t0;
        if (sec >= PEAK_TARGET_S / 4 || iters >= (1L << 40))
            break;
        iters *= 2;
    }
    iters = (long)((double)iters * PEAK_TARGET_S / (sec > 1e-9 ? sec : 1e-9));
    double t[PEAK_REPS_MAX + 1];
    size_t nt = 0;
    int st = CP_OK;
    while (st == CP_OK && peak_want_more(t, nt)) {
        for (long i = 0; i < nthreads; ++i) {
            tasks[i].iters = iters;
            tasks[i].result = 0.5 + (double)i;
        }
        st = host_parallel(host_fma_thread, tasks, nthreads, &t[nt++]);
    }
    if (st != CP_OK)
        goto out;
    p->fma_gflops = peak_rate_stats(
        t, nt, (double)nthreads * (double)iters * HOST_CHAINS * lanes * 2.0 / 1e9, &p->fma);

    size_t n = (size_t)(TRIAD_BYTES / 3 / sizeof(float));
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    if (!a || !b || !c) {
        st = cp_err_set(CP_FAIL_RUNTIME, "peak: out of memory for the triad's %llu MiB",
                        TRIAD_BYTES >> 20);
    } else {
        size_t per = (n + (size_t)nthreads - 1) / (size_t)nthreads;
        for (long i = 0; i < nthreads; ++i) {
            size_t lo = (size_t)i * per < n ? (size_t)i * per : n;
            size_t hi = lo + per < n ? lo + per : n;
            tasks[i].a = a + lo;
            tasks[i].b = b + lo;
            tasks[i].c = c + lo;
            tasks[i].n = hi - lo;
        }
        /* b and c are filled here; the first, untimed pass faults a's pages in. */
        for (size_t i = 0; i < n; ++i) {
            b[i] = 1.0f;
            c[i] = 2.0f;
        }
        st = host_parallel(host_triad_thread, tasks, nthreads, &t[0]);
        for (nt = 0; st == CP_OK && peak_want_more(t + 1, nt); ++nt)
            st = host_parallel(host_triad_thread, tasks, nthreads, &t[1 + nt]);
        if (st == CP_OK)
            p->bandwidth_gbs =
                peak_rate_stats(t + 1, nt, 3.0 * (double)n * sizeof(float) / 1e9, &p->bandwidth);
    }
    free(a);
    free(b);
    free(c);
    p->latency_us = -1.0;
out:
    free(tasks);
    return st;
}
