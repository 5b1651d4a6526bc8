/* clparity peak: what a device can do at best, measured with tiny kernels (clkernels/peak.cl)
 * or, for the host, with threaded C loops; cached per device and driver as one small JSON file
 * each, next to the program cache. Every problem with a cache file means a new measurement. */
#include "clparity/peak.h"

#include "cache-impl.h"
#include "engine-impl.h"
#include "file-impl.h" /* cp_json_write_entry */
#include "program-impl.h"
#include "peak-stats-impl.h"

#include "clparity/report.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Part of every key: a change of method (kernels, sizes, units) makes old entries miss. */
#define PEAK_METHOD 4
/* The cache file's layout: 2 added the spread. Entries of schema 1 (a median of 5, no
 * spread) are stale. */
#define PEAK_CACHE_SCHEMA 2
/* Each timed repetition of the fma and triad measurements aims at about this long. */
#define PEAK_TARGET_S 0.04
/* The triad's three arrays together: far above any cache, within any max allocation. */
#define TRIAD_BYTES (192ull << 20)
/* Why an entry of an older clparity is measured again. */
#define PEAK_STALE "an older entry without a spread"

/* ---- the key and the cache file ------------------------------------------------------------ */

static void peak_key(const cp_device *dev, char *buf, size_t len)
{
    if (dev->kind == CP_DEV_HOST) {
        char cpu[256];
        cp_host_cpu_name(cpu, sizeof cpu);
        snprintf(buf, len, "method %d\nhost\n%s\n%ld cpus", PEAK_METHOD, cpu,
                 sysconf(_SC_NPROCESSORS_ONLN));
    } else {
        snprintf(buf, len, "method %d\nopencl\n%s\n%s\n%s\n%s\n%s\n%s", PEAK_METHOD, dev->name,
                 dev->vendor, dev->version, dev->driver, dev->platform, dev->platform_version);
    }
}

int cp_peak_cache_path(const cp_device *dev, char *buf, size_t len)
{
    char dir[4096], key[2048];
    int st = cp_cache_dir(dir, sizeof dir);
    if (st != CP_OK)
        return st;
    peak_key(dev, key, sizeof key);
    unsigned char md[32];
    if (!cp_sha256(key, strlen(key), md))
        return cp_err_set(CP_FAIL_RUNTIME, "peak cache: SHA-256 failed");
    char hex[17];
    for (int i = 0; i < 8; ++i)
        snprintf(hex + 2 * i, 3, "%02x", md[i]);
    int n = snprintf(buf, len, "%s/peak-%s.json", dir, hex);
    if (n < 0 || (size_t)n >= len)
        return cp_err_set(CP_FAIL_RUNTIME, "peak cache: the path is too long");
    return CP_OK;
}

static bool read_file(const char *path, char **text, char *why, size_t why_len)
{
    *text = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(why, why_len, "%s", errno == ENOENT ? "no entry" : strerror(errno));
        return false;
    }
    size_t cap = 4096, n = 0;
    char *b = malloc(cap + 1);
    while (b) {
        size_t got = fread(b + n, 1, cap - n, f);
        n += got;
        if (n < cap)
            break;
        if (cap >= (1u << 20)) { /* a peak entry is a few hundred bytes */
            free(b);
            b = NULL;
            snprintf(why, why_len, "file too large");
            break;
        }
        char *nb = realloc(b, 2 * cap + 1);
        if (!nb) {
            free(b);
            b = NULL;
            snprintf(why, why_len, "out of memory");
            break;
        }
        b = nb;
        cap *= 2;
    }
    fclose(f);
    if (!b)
        return false;
    b[n] = '\0';
    *text = b;
    return true;
}

/* A sound entry for this key: valid JSON, the same key, finite positive numbers. */
static bool cache_load(const char *path, const char *key, bool host, cp_peak *p, char *why,
                       size_t why_len)
{
    char *text;
    if (!read_file(path, &text, why, why_len))
        return false;
    cJSON *root = cJSON_Parse(text);
    free(text);
    bool ok = false;
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(root, "key");
    const cJSON *at = cJSON_GetObjectItemCaseSensitive(root, "measured_at");
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
    const cJSON *spread = cJSON_GetObjectItemCaseSensitive(root, "spread");
    if (!root)
        snprintf(why, why_len, "not JSON");
    else if (!cJSON_IsString(k) || strcmp(k->valuestring, key) != 0)
        snprintf(why, why_len, "another device's or method's entry");
    else if (cJSON_IsNumber(schema) && schema->valuedouble < PEAK_CACHE_SCHEMA)
        snprintf(why, why_len, "%s", PEAK_STALE);
    else if (!cJSON_IsNumber(schema) || schema->valuedouble != PEAK_CACHE_SCHEMA)
        snprintf(why, why_len, "unknown schema");
    else if (!peak_positive_number(root, "fma_gflops", &p->fma_gflops) ||
             !peak_positive_number(root, "bandwidth_gbs", &p->bandwidth_gbs) ||
             (!host && !peak_positive_number(root, "latency_us", &p->latency_us)))
        snprintf(why, why_len, "missing or bad values");
    else if (!peak_spread_load(cJSON_GetObjectItemCaseSensitive(spread, "fma_gflops"),
                               p->fma_gflops, &p->fma) ||
             !peak_spread_load(cJSON_GetObjectItemCaseSensitive(spread, "bandwidth_gbs"),
                               p->bandwidth_gbs, &p->bandwidth) ||
             (!host && !peak_spread_load(cJSON_GetObjectItemCaseSensitive(spread, "latency_us"),
                                         p->latency_us, &p->latency)))
        snprintf(why, why_len, "missing or bad spread");
    else {
        ok = true;
        snprintf(p->measured_at, sizeof p->measured_at, "%s",
                 cJSON_IsString(at) ? at->valuestring : "");
    }
    cJSON_Delete(root);
    return ok;
}

static void cache_store(const char *path, const char *key, const cp_peak *p, char *why,
                        size_t why_len)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    if (!cp_cache_make_dirs(dir, why, why_len))
        return;
    cJSON *o = cJSON_CreateObject();
    if (!o) {
        snprintf(why, why_len, "out of memory");
        return;
    }
    cJSON_AddNumberToObject(o, "schema", PEAK_CACHE_SCHEMA);
    cJSON_AddStringToObject(o, "key", key);
    cJSON_AddNumberToObject(o, "fma_gflops", p->fma_gflops);
    cJSON_AddNumberToObject(o, "bandwidth_gbs", p->bandwidth_gbs);
    if (p->latency_us >= 0.0)
        cJSON_AddNumberToObject(o, "latency_us", p->latency_us);
    else
        cJSON_AddNullToObject(o, "latency_us");
    cJSON *spread = cJSON_AddObjectToObject(o, "spread");
    if (spread) {
        cp_json_add(spread, "fma_gflops", peak_spread_json(&p->fma));
        cp_json_add(spread, "bandwidth_gbs", peak_spread_json(&p->bandwidth));
        cp_json_add(spread, "latency_us", peak_spread_json(&p->latency));
    }
    cJSON_AddStringToObject(o, "measured_at", p->measured_at);
    cJSON_AddStringToObject(o, "clparity_version", cp_version());
    cJSON_AddStringToObject(o, "git_hash", cp_git_hash());
    if (cp_json_write_entry(path, o) != CP_OK)
        snprintf(why, why_len, "%s", cp_err_msg());
    cJSON_Delete(o);
}

/* ---- OpenCL ------------------------------------------------------------------------------- */

struct cl_peak {
    cl_context ctx;
    cl_command_queue q;
    cl_program prog;
    cl_kernel fma, triad, empty;
    cl_mem out, a, b, c;
};

static void cl_peak_free(struct cl_peak *s)
{
    if (s->q)
        clFinish(s->q);
    cl_mem mems[] = {s->out, s->a, s->b, s->c};
    for (size_t i = 0; i < 4; ++i)
        if (mems[i])
            clReleaseMemObject(mems[i]);
    cl_kernel ks[] = {s->fma, s->triad, s->empty};
    for (size_t i = 0; i < 3; ++i)
        if (ks[i])
            clReleaseKernel(ks[i]);
    if (s->prog)
        clReleaseProgram(s->prog);
    if (s->q)
        clReleaseCommandQueue(s->q);
    if (s->ctx)
        clReleaseContext(s->ctx);
}

/* One launch of k over global work-items (local chosen by the driver), to completion. */
static int launch(struct cl_peak *s, cl_kernel k, size_t global, const char *name, double *sec)
{
    double t0 = cp_now();
    cl_int rc = clEnqueueNDRangeKernel(s->q, k, 1, NULL, &global, NULL, 0, NULL, NULL);
    if (rc != CL_SUCCESS)
        return cp_err_set(CP_FAIL_RUNTIME, "clEnqueueNDRangeKernel(%s) failed: %s (%d)", name,
                          cp_cl_error_name(rc), rc);
    rc = clFinish(s->q);
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clFinish");
    *sec = cp_now() - t0;
    return CP_OK;
}

static int set_arg(cl_kernel k, cl_uint i, size_t size, const void *v, const char *name)
{
    cl_int rc = clSetKernelArg(k, i, size, v);
    if (rc != CL_SUCCESS)
        return cp_err_set(CP_FAIL_RUNTIME, "clSetKernelArg(%s, %u) failed: %s (%d)", name, i,
                          cp_cl_error_name(rc), rc);
    return CP_OK;
}

static int cl_fma(struct cl_peak *s, const cp_device *dev, int width, double *gflops,
                  cp_peak_spread *spread)
{
    size_t max_wg = 0;
    cl_int rc = clGetDeviceInfo(dev->device_id, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_wg,
                                &max_wg, NULL);
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clGetDeviceInfo(CL_DEVICE_MAX_WORK_GROUP_SIZE)");
    /* Enough work-items to fill every compute unit several times over. */
    size_t wg = max_wg < 1024 ? max_wg : 1024;
    size_t global = (size_t)(dev->compute_units ? dev->compute_units : 1) * wg * 4;
    rc = CL_SUCCESS;
    s->out = clCreateBuffer(s->ctx, CL_MEM_WRITE_ONLY, global * sizeof(float), NULL, &rc);
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clCreateBuffer(peak fma output)");
    cl_float m = 0.999999f, c = 1e-3f;
    int st = set_arg(s->fma, 0, sizeof s->out, &s->out, "cp_peak_fma");
    if (st == CP_OK)
        st = set_arg(s->fma, 1, sizeof m, &m, "cp_peak_fma");
    if (st == CP_OK)
        st = set_arg(s->fma, 2, sizeof c, &c, "cp_peak_fma");
    /* A first launch on its own: drivers that compile at the first launch (PoCL's work-group
     * functions) would otherwise make the sizing below think the kernel is slow. */
    cl_int iters = 1;
    double sec = 0.0;
    if (st == CP_OK)
        st = set_arg(s->fma, 3, sizeof iters, &iters, "cp_peak_fma");
    if (st == CP_OK)
        st = launch(s, s->fma, global, "cp_peak_fma", &sec);
    /* Double the iterations until one launch takes a measurable time, then aim at the target. */
    iters = 16;
    while (st == CP_OK) {
        st = set_arg(s->fma, 3, sizeof iters, &iters, "cp_peak_fma");
        if (st == CP_OK)
            st = launch(s, s->fma, global, "cp_peak_fma", &sec);
        if (st != CP_OK || sec >= PEAK_TARGET_S / 4 || iters >= (1 << 24))
            break;
        iters *= 2;
    }
    if (st != CP_OK)
        return st;
    double scaled = (double)iters * PEAK_TARGET_S / (sec > 1e-9 ? sec : 1e-9);
    iters = (cl_int)(scaled < iters ? iters : scaled > (1 << 26) ? (1 << 26) : scaled);
    st = set_arg(s->fma, 3, sizeof iters, &iters, "cp_peak_fma");
    double t[PEAK_REPS_MAX];
    size_t n = 0;
    while (st == CP_OK && peak_want_more(t, n))
        st = launch(s, s->fma, global, "cp_peak_fma", &t[n++]);
    if (st != CP_OK)
        return st;
    /* 8 chains (CP_PEAK_CHAINS in peak.cl) of width floats, 2 flops per fma. */
    double flops = (double)global * (double)iters * 8.0 * (double)width * 2.0;
    *gflops = peak_rate_stats(t, n, flops / 1e9, spread);
    return CP_OK;
}

static int cl_triad(struct cl_peak *s, const cp_device *dev, double *gbs, cp_peak_spread *spread)
{
    /* Three arrays: 64 MiB each, less where the device allows less. */
    unsigned long long each = TRIAD_BYTES / 3;
    if (each > dev->max_alloc / 2)
        each = dev->max_alloc / 2;
    if (3 * each > dev->global_mem / 2)
        each = dev->global_mem / 6;
    size_t n4 = (size_t)(each / 16); /* float4 elements */
    if (n4 == 0)
        return cp_err_set(CP_FAIL_RUNTIME, "peak: the device's memory is too small to measure");
    size_t bytes = n4 * 16;
    cl_int rc = CL_SUCCESS;
    cl_mem *bufs[] = {&s->a, &s->b, &s->c};
    for (int i = 0; i < 3; ++i) {
        *bufs[i] = clCreateBuffer(s->ctx, CL_MEM_READ_WRITE, bytes, NULL, &rc);
        if (rc != CL_SUCCESS)
            return cp_err_cl(rc, "clCreateBuffer(peak triad)");
        cl_float v = (cl_float)(i + 1);
        rc = clEnqueueFillBuffer(s->q, *bufs[i], &v, sizeof v, 0, bytes, 0, NULL, NULL);
        if (rc != CL_SUCCESS)
            return cp_err_cl(rc, "clEnqueueFillBuffer(peak triad)");
    }
    cl_float scalar = 3.0f;
    int st = set_arg(s->triad, 0, sizeof s->a, &s->a, "cp_peak_triad");
    if (st == CP_OK)
        st = set_arg(s->triad, 1, sizeof s->b, &s->b, "cp_peak_triad");
    if (st == CP_OK)
        st = set_arg(s->triad, 2, sizeof s->c, &s->c, "cp_peak_triad");
    if (st == CP_OK)
        st = set_arg(s->triad, 3, sizeof scalar, &scalar, "cp_peak_triad");
    /* The first launch is a warm-up: it also faults the pages in. On a fast device one launch
     * is short next to its own overhead, so each repetition runs k launches back to back,
     * k chosen to last about PEAK_TARGET_S / 2. */
    double warm = 0.0;
    for (int i = 0; i < 2 && st == CP_OK; ++i) /* the second, without a first launch's costs */
        st = launch(s, s->triad, n4, "cp_peak_triad", &warm);
    if (st != CP_OK)
        return st;
    double want = PEAK_TARGET_S / 2 / (warm > 1e-9 ? warm : 1e-9);
    int k = want < 1.0 ? 1 : want > 1000.0 ? 1000 : (int)want;
    double t[PEAK_REPS_MAX];
    size_t n = 0;
    for (; st == CP_OK && peak_want_more(t, n); ++n) {
        double t0 = cp_now();
        for (int i = 0; i < k && st == CP_OK; ++i) {
            size_t global = n4;
            cl_int rc =
                clEnqueueNDRangeKernel(s->q, s->triad, 1, NULL, &global, NULL, 0, NULL, NULL);
            if (rc != CL_SUCCESS)
                st = cp_err_set(CP_FAIL_RUNTIME,
                                "clEnqueueNDRangeKernel(cp_peak_triad) failed: %s (%d)",
                                cp_cl_error_name(rc), rc);
        }
        cl_int rc = clFinish(s->q);
        if (st == CP_OK && rc != CL_SUCCESS)
            st = cp_err_cl(rc, "clFinish");
        t[n] = (cp_now() - t0) / k;
    }
    if (st != CP_OK)
        return st;
    *gbs = peak_rate_stats(t, n, 3.0 * (double)bytes / 1e9, spread);
    return CP_OK;
}

static int cl_latency(struct cl_peak *s, double *us, cp_peak_spread *spread)
{
    int st = set_arg(s->empty, 0, sizeof s->out, &s->out, "cp_peak_empty");
    double t[LATENCY_REPS];
    for (int r = 0; r < 20 && st == CP_OK; ++r) /* warm-up */
        st = launch(s, s->empty, 1, "cp_peak_empty", &t[0]);
    for (int r = 0; r < LATENCY_REPS && st == CP_OK; ++r)
        st = launch(s, s->empty, 1, "cp_peak_empty", &t[r]);
    if (st != CP_OK)
        return st;
    cp_stats ts = cp_stats_of(t, LATENCY_REPS); /* sorts t */
    *us = 1e6 * ts.median;
    spread->min = 1e6 * ts.min;
    spread->max = 1e6 * ts.max;
    spread->p10 = 1e6 * peak_quantile(t, LATENCY_REPS, 0.1);
    spread->p90 = 1e6 * peak_quantile(t, LATENCY_REPS, 0.9);
    spread->reps = LATENCY_REPS;
    return CP_OK;
}

static int measure_cl(const cp_device *dev, cp_peak *p)
{
    struct cl_peak s = {0};
    cl_int rc;
    int st = cp_cl_open(dev, 0, &s.ctx, &s.q);
    if (st != CP_OK)
        goto out;
    /* float16 chains on CPUs (PoCL runs them in one AVX-512 register; measured 5x the
     * float4 kernel there), float4 elsewhere. */
    int width = (dev->type & CL_DEVICE_TYPE_CPU) ? 16 : 4;
    char opts[64];
    snprintf(opts, sizeof opts, "-cl-std=CL1.2 -DCP_PEAK_W=%d", width);
    st = cp_program_build_ex(s.ctx, dev->device_id, "peak.cl", opts, &s.prog, NULL);
    if (st != CP_OK)
        goto out;
    static const char *const names[] = {"cp_peak_fma", "cp_peak_triad", "cp_peak_empty"};
    cl_kernel *ks[] = {&s.fma, &s.triad, &s.empty};
    for (int i = 0; i < 3; ++i) {
        *ks[i] = clCreateKernel(s.prog, names[i], &rc);
        if (rc != CL_SUCCESS) {
            st = cp_err_set(CP_FAIL_RUNTIME, "clCreateKernel(%s) failed: %s (%d)", names[i],
                            cp_cl_error_name(rc), rc);
            goto out;
        }
    }
    st = cl_fma(&s, dev, width, &p->fma_gflops, &p->fma);
    if (st == CP_OK)
        st = cl_triad(&s, dev, &p->bandwidth_gbs, &p->bandwidth);
    if (st == CP_OK)
        st = cl_latency(&s, &p->latency_us, &p->latency);
out:
    cl_peak_free(&s);
    return st;
}

/* ---- host --------------------------------------------------------------------------------- */

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

static int measure_host(cp_peak *p)
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

/* ---- the entry point ---------------------------------------------------------------------- */

static double round6(double v)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.6g", v);
    return strtod(buf, NULL);
}

int cp_peak_get(const cp_device *dev, bool remeasure, cp_peak *out)
{
    double t0 = cp_now();
    memset(out, 0, sizeof *out);
    out->latency_us = -1.0;
    peak_spread_none(&out->fma);
    peak_spread_none(&out->bandwidth);
    peak_spread_none(&out->latency);
    if (dev->kind == CP_DEV_OPENCL && dev->simulator)
        return CP_OK; /* available stays false: a simulator has no peak */
    out->available = true;
    char key[2048], why[256] = "";
    peak_key(dev, key, sizeof key);
    bool cache = cp_cache_enabled();
    if (cache && cp_peak_cache_path(dev, out->cache_file, sizeof out->cache_file) != CP_OK) {
        snprintf(out->cache_note, sizeof out->cache_note, "cache not used: %s", cp_err_msg());
        cache = false;
        out->cache_file[0] = '\0';
    }
    if (cache && !remeasure) {
        if (cache_load(out->cache_file, key, dev->kind == CP_DEV_HOST, out, why, sizeof why)) {
            out->cached = true;
            out->noisy = peak_spread_noisy(&out->fma, out->fma_gflops) ||
                         peak_spread_noisy(&out->bandwidth, out->bandwidth_gbs);
            out->seconds = cp_now() - t0;
            return CP_OK;
        }
        /* What a failed load may have filled in is not this measurement's. */
        out->latency_us = -1.0;
        peak_spread_none(&out->fma);
        peak_spread_none(&out->bandwidth);
        peak_spread_none(&out->latency);
        if (strcmp(why, PEAK_STALE) == 0)
            snprintf(out->cache_note, sizeof out->cache_note, "%s, measured again", PEAK_STALE);
        else if (strcmp(why, "no entry") != 0)
            snprintf(out->cache_note, sizeof out->cache_note, "bad entry replaced: %s", why);
    }
    int st = dev->kind == CP_DEV_HOST ? measure_host(out) : measure_cl(dev, out);
    if (st != CP_OK)
        return st;
    /* Six significant digits, far finer than the noise: the cached numbers then read back
     * equal to these (cJSON prints 15 digits, which need not give the same double back). */
    out->fma_gflops = round6(out->fma_gflops);
    out->bandwidth_gbs = round6(out->bandwidth_gbs);
    if (out->latency_us >= 0.0)
        out->latency_us = round6(out->latency_us);
    cp_peak_spread *spreads[] = {&out->fma, &out->bandwidth, &out->latency};
    for (size_t i = 0; i < 3; ++i)
        if (spreads[i]->reps > 0) {
            spreads[i]->min = round6(spreads[i]->min);
            spreads[i]->p10 = round6(spreads[i]->p10);
            spreads[i]->p90 = round6(spreads[i]->p90);
            spreads[i]->max = round6(spreads[i]->max);
        }
    out->noisy = peak_spread_noisy(&out->fma, out->fma_gflops) ||
                 peak_spread_noisy(&out->bandwidth, out->bandwidth_gbs);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(out->measured_at, sizeof out->measured_at, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (cache) {
        why[0] = '\0';
        cache_store(out->cache_file, key, out, why, sizeof why);
        if (why[0])
            snprintf(out->cache_note, sizeof out->cache_note, "not stored: %s", why);
    }
    out->seconds = cp_now() - t0;
    return CP_OK;
}
