/* The probe of cl:own's kernel paths (own-impl.h): before cl:own takes a path on a device for
 * the first time, that path runs a small model there and must give the bits of the
 * definition. OpenCL promises correctly rounded + - * fma, so a conforming device and a kernel
 * that relies only on what OpenCL promises pass; a miscompile, or a kernel that relies on
 * something a device does not give (progress across work-groups, memory visibility, ...), is
 * caught here instead of in a user's report. */
#include "clparity/env.h"
#include "cache-impl.h"
#include "engine-impl.h"
#include "isolate-impl.h"
#include "own-impl.h"
#include "program-impl.h"

#include "clparity/gen.h"
#include "tune-impl.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bumped when the probe model or its checks change: older verdicts are then not read. */
#define PROBE_VERSION "clparity-probe 6"
#define PROBE_SEED UINT64_C(0x70726f6265) /* "probe" */

/* The probe's layers: odd widths, a rectangular layer each way, biases on some, a layer
 * without activation, residuals on the square ones. The wide class crosses 128 (reg's
 * one-row-per-work-item limit) and stays small enough for Oclgrind (at most 2.3 M multiply-adds).
 */
struct probe_layer {
    int in, out;
    bool bias;
    int act;
    bool residual;
};
static const struct probe_layer narrow_layers[] = {
    {127, 127, true, CP_ACT_RELU, true},  {127, 45, true, CP_ACT_RELU, false},
    {45, 127, false, CP_ACT_RELU, false}, {127, 127, true, CP_ACT_NONE, true},
    {127, 127, false, CP_ACT_RELU, true}, {127, 127, true, CP_ACT_NONE, true},
    {127, 127, true, CP_ACT_RELU, false}, {127, 127, true, CP_ACT_RELU, true},
};
static const struct probe_layer wide_layers[] = {
    {67, 131, true, CP_ACT_RELU, false},  {131, 131, true, CP_ACT_RELU, true},
    {131, 67, false, CP_ACT_NONE, false}, {67, 67, true, CP_ACT_RELU, true},
    {67, 131, false, CP_ACT_RELU, false}, {131, 131, true, CP_ACT_NONE, true},
    {131, 131, false, CP_ACT_RELU, true}, {131, 67, true, CP_ACT_RELU, false},
};
/* Eight layers, 127 wide: on Mesa 22.3's rusticl, cpug's square models went wrong from the
 * fifth layer on, and cpu1's at 96 wide and more but not at 80 (B = 5; docs/VENDORS.md): probes
 * of four layers, or 67 wide, passed them. */
#define PROBE_LAYERS 8

/* On a simulator (Oclgrind interprets at about 1 us per multiply-add) the probe is light, the
 * same kinds of layers at smaller sizes: the full one took 16 s there at batch 5 and 62 s at
 * batch 17. */
static const struct probe_layer light_narrow[] = {
    {37, 37, true, CP_ACT_RELU, true},
    {37, 23, true, CP_ACT_RELU, false},
    {23, 37, false, CP_ACT_RELU, false},
    {37, 37, true, CP_ACT_NONE, true},
};
static const struct probe_layer light_wide[] = {
    {67, 131, true, CP_ACT_RELU, false},
    {131, 67, false, CP_ACT_NONE, false},
};

static int probe_batch(struct cp_probe_class cls, bool light)
{
    return cls.big_batch ? 17 : light ? 2 : 5;
}

/* The square class: 8 layers of 127 (131 when wide; light: 3 of 37 or 131) with the real
 * model's flags, or where they differ, each combination in turn. */
static int square_layers(struct cp_probe_class cls, bool light, struct probe_layer *pl)
{
    static const int mixed[PROBE_LAYERS] = {7, 6, 5, 3, 2, 4, 1, 0};
    int w = cls.wide ? 131 : light ? 37 : 127, n = light ? 3 : PROBE_LAYERS;
    for (int l = 0; l < n; ++l) {
        int f = cls.flags >= 0 ? cls.flags : mixed[l];
        pl[l] = (struct probe_layer){w, w, (f & 1) != 0, (f & 2) ? CP_ACT_RELU : CP_ACT_NONE,
                                     (f & 4) != 0};
    }
    return n;
}

static int probe_model(struct cp_probe_class cls, bool light, cp_model *m)
{
    struct probe_layer sq[PROBE_LAYERS];
    int n = square_layers(cls, light, sq);
    const struct probe_layer *pl = sq;
    if (!cls.square && light) {
        pl = cls.wide ? light_wide : light_narrow;
        n = cls.wide ? 2 : 4;
    } else if (!cls.square) {
        pl = cls.wide ? wide_layers : narrow_layers;
        n = PROBE_LAYERS;
    }
    memset(m, 0, sizeof *m);
    int st = CP_OK;
    for (int l = 0; l < n && st == CP_OK; ++l) {
        size_t nw = (size_t)pl[l].in * (size_t)pl[l].out;
        float *w = malloc(nw * sizeof *w), *b = malloc((size_t)pl[l].out * sizeof *b);
        if (!w || !b) {
            free(w);
            free(b);
            return cp_err_set(CP_FAIL_RUNTIME, "out of memory for the probe model");
        }
        float bound = cp_gen_linear_bound(pl[l].in);
        for (size_t i = 0; i < nw; ++i)
            w[i] = cp_gen_weight(PROBE_SEED, CP_TENSOR_WEIGHT(l), i, bound, 1.0f);
        for (int o = 0; o < pl[l].out; ++o)
            b[o] = cp_gen_weight(PROBE_SEED, CP_TENSOR_BIAS(l), (uint64_t)o, bound, 1.0f);
        st = cp_model_add_layer(m, pl[l].in, pl[l].out, w, pl[l].bias ? b : NULL, pl[l].act,
                                pl[l].residual);
        free(w);
        free(b);
    }
    return st;
}

/* "127-127-45-...": the probe model's widths, for the reasons it gives. */
static void describe_model(const cp_model *m, char *buf, size_t len)
{
    int n = snprintf(buf, len, "%d", m->in_width);
    for (int l = 0; l < m->n_layers && n > 0 && (size_t)n < len; ++l)
        n += snprintf(buf + n, len - (size_t)n, "-%d", m->layers[l].out);
}

/* The definition, in host:exact's order: acc = fmaf(x[k], W[o][k], acc) from 0.0f, k
 * ascending; then + bias, the activation, x[o] + v. This file is built with
 * -ffp-contract=off, and fmaf is correctly rounded in every libm. */
static void probe_reference(const cp_model *m, int batch, const float *x, float *buf0, float *buf1,
                            const float **out)
{
    const float *in = x;
    float *bufs[2] = {buf0, buf1};
    for (int l = 0; l < m->n_layers; ++l) {
        const cp_layer *L = &m->layers[l];
        const float *w = m->params + L->w_off;
        float *y = bufs[l & 1];
        for (int r = 0; r < batch; ++r)
            for (int o = 0; o < L->out; ++o) {
                float acc = 0.0f;
                for (int k = 0; k < L->in; ++k)
                    acc = fmaf(in[(size_t)r * (size_t)L->in + (size_t)k],
                               w[(size_t)o * (size_t)L->in + (size_t)k], acc);
                if (L->has_bias)
                    acc = acc + m->params[L->b_off + (size_t)o];
                float v = L->act == CP_ACT_RELU ? cp_relu(acc) : acc;
                if (L->residual)
                    v = in[(size_t)r * (size_t)L->in + (size_t)o] + v;
                y[(size_t)r * (size_t)L->out + (size_t)o] = v;
            }
        in = y;
    }
    *out = in;
}

/* One run of the probe model of class cls through an OpenCL engine on dev, and the
 * definition's output beside it. */
struct probe_out {
    cp_model m;
    int batch;
    size_t n_out;
    float *x, *y, *b0, *b1;
    const float *ref; /* b0 or b1: the definition's output */
};

static void probe_out_free(struct probe_out *o)
{
    cp_model_free(&o->m);
    free(o->x);
    free(o->y);
    free(o->b0);
    free(o->b1);
}

/* Runs `engine` (cl:own with `path` forced, or cl:relaxed) on the probe model. CP_OK with *v
 * CP_PROBE_NA and why set where the engine does not apply to the device (a usage error) or the
 * device refuses its launch (CL_OUT_OF_RESOURCES: a work-group's local memory or registers, say:
 * the next path is taken); CP_OK with *v untouched and o->y, o->ref filled where it ran. A
 * build that fails is an error of the run, as it is outside the probe (with the compiler's
 * log), not a verdict: the path's bits were never seen. o is freed by probe_out_free either
 * way. */
static int probe_forward(const cp_device *dev, const cp_engine_info *engine, int path,
                         struct cp_probe_class cls, struct probe_out *o, enum cp_probe_verdict *v,
                         char *why, size_t why_len)
{
    memset(o, 0, sizeof *o);
    int st = cp_probe_model(dev, cls, &o->m, &o->batch, &o->x);
    if (st != CP_OK)
        return st;
    o->n_out = (size_t)o->batch * (size_t)o->m.out_width;
    size_t n_buf = (size_t)o->batch * (size_t)o->m.max_width;
    o->y = malloc(o->n_out * sizeof *o->y);
    o->b0 = malloc(n_buf * sizeof *o->b0);
    o->b1 = malloc(n_buf * sizeof *o->b1);
    if (!o->y || !o->b0 || !o->b1)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory for the probe");
    cp_engine *e = NULL;
    int rc = cp_cl_create_probing(engine, dev, &o->m, o->batch, path, &e);
    cp_timing t;
    if (rc == CP_OK) {
        rc = cp_engine_forward(e, o->x, o->batch, o->y, &t);
        if (rc != CP_OK)
            snprintf(why, why_len, "the device refuses its launch: %s", cp_err_msg());
    } else if (rc == CP_FAIL_USAGE) {
        snprintf(why, why_len, "%s", cp_err_msg());
    } else {
        st = rc;
    }
    cp_engine_destroy(e);
    if (st == CP_OK && rc != CP_OK)
        *v = CP_PROBE_NA;
    else if (st == CP_OK)
        probe_reference(&o->m, o->batch, o->x, o->b0, o->b1, &o->ref);
    return st;
}

/* cl:own's path: every output bit-equal to the definition's. *v and why as for cp_own_probe. */
static int probe_run(const cp_device *dev, int path, struct cp_probe_class cls,
                     enum cp_probe_verdict *v, char *why, size_t why_len)
{
    struct probe_out o;
    *v = CP_PROBE_FAIL;
    int st =
        probe_forward(dev, cp_cl_probe_engine(CP_PROBE_CL_OWN), path, cls, &o, v, why, why_len);
    if (st != CP_OK || *v == CP_PROBE_NA) {
        probe_out_free(&o);
        return st;
    }
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < o.n_out; ++i)
        if (memcmp(&o.y[i], &o.ref[i], sizeof(float)) != 0 && bad++ == 0)
            first = i;
    *v = bad ? CP_PROBE_FAIL : CP_PROBE_PASS;
    if (bad) {
        char widths[96];
        describe_model(&o.m, widths, sizeof widths);
        size_t ow = (size_t)o.m.out_width;
        snprintf(why, why_len,
                 "probe (widths %s, batch %d): %zu of %zu outputs differ from host:exact's "
                 "bits, first row %zu output %zu: %a (%.9g) against %a (%.9g)",
                 widths, o.batch, bad, o.n_out, first / ow, first % ow, (double)o.y[first],
                 (double)o.y[first], (double)o.ref[first], (double)o.ref[first]);
    } else {
        snprintf(why, why_len, "probe passed");
    }
    probe_out_free(&o);
    return CP_OK;
}

/* ---- the device's loop budget -------------------------------------------------------------- */

/* Iterations of the loop check: more than any budget seen (llvmpipe's 65535), few enough to
 * take a millisecond. */
#define LOOP_CHECK_N 100000

/* Runs cp_loop_count (clkernels/probe.cl) in one work-item: *ran is how many of its
 * LOOP_CHECK_N iterations ran (the index past the last o[i] == i + 1). */
static int loop_check_run(const cp_device *dev, long *ran)
{
    cl_context ctx = NULL;
    cl_command_queue q = NULL;
    cl_program prog = NULL;
    cl_kernel k = NULL;
    cl_mem buf = NULL;
    int *host = calloc(LOOP_CHECK_N, sizeof *host);
    int st = host ? cp_cl_open(dev, 0, &ctx, &q)
                  : cp_err_set(CP_FAIL_RUNTIME, "out of memory for the loop check");
    if (st == CP_OK)
        st = cp_program_build_ex(ctx, dev->device_id, "probe.cl", "-cl-std=CL1.2", &prog, NULL);
    cl_int rc = CL_SUCCESS;
    if (st == CP_OK) {
        k = clCreateKernel(prog, "cp_loop_count", &rc);
        if (rc != CL_SUCCESS)
            st = cp_err_cl(rc, "clCreateKernel(cp_loop_count)");
    }
    if (st == CP_OK) {
        buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                             LOOP_CHECK_N * sizeof *host, host, &rc);
        if (rc != CL_SUCCESS)
            st = cp_err_cl(rc, "clCreateBuffer(loop check)");
    }
    cl_int n = LOOP_CHECK_N;
    size_t one = 1;
    if (st == CP_OK && ((rc = clSetKernelArg(k, 0, sizeof buf, &buf)) != CL_SUCCESS ||
                        (rc = clSetKernelArg(k, 1, sizeof n, &n)) != CL_SUCCESS))
        st = cp_err_cl(rc, "clSetKernelArg(cp_loop_count)");
    if (st == CP_OK &&
        (rc = clEnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, 0, NULL, NULL)) != CL_SUCCESS)
        st = cp_err_cl(rc, "clEnqueueNDRangeKernel(cp_loop_count)");
    if (st == CP_OK && (rc = clEnqueueReadBuffer(q, buf, CL_TRUE, 0, LOOP_CHECK_N * sizeof *host,
                                                 host, 0, NULL, NULL)) != CL_SUCCESS)
        st = cp_err_cl(rc, "clEnqueueReadBuffer(loop check)");
    if (st == CP_OK) {
        long i = 0;
        while (i < LOOP_CHECK_N && host[i] == i + 1)
            ++i;
        *ran = i;
    }
    if (buf)
        clReleaseMemObject(buf);
    if (k)
        clReleaseKernel(k);
    if (prog)
        clReleaseProgram(prog);
    if (q)
        clReleaseCommandQueue(q);
    if (ctx)
        clReleaseContext(ctx);
    free(host);
    return st;
}

/* The engines a probe creates: engine_cl.c, above the probes, hands them down as it creates an
 * engine (cp_cl_probe_engines), so that no probe names an engine it would call up into. */
static _Atomic(const cp_engine_info *) probe_engines[CP_PROBE_CL_N];

void cp_cl_probe_engines(const cp_engine_info *own, const cp_engine_info *relaxed,
                         const cp_engine_info *cr)
{
    probe_engines[CP_PROBE_CL_OWN] = own;
    probe_engines[CP_PROBE_CL_RELAXED] = relaxed;
    probe_engines[CP_PROBE_CL_CR] = cr;
}

const cp_engine_info *cp_cl_probe_engine(enum cp_probe_cl which)
{
    return probe_engines[which];
}

/* cp_cl_create_probing's path for the engine it creates on this thread (-1: none). */
static _Thread_local int forced_path = -1;

int cp_cl_forced_path(void)
{
    return forced_path;
}

int cp_cl_create_probing(const cp_engine_info *engine, const cp_device *dev, const cp_model *m,
                         int batch, int path, cp_engine **out)
{
    forced_path = path;
    int st = cp_engine_create(engine, dev, m, batch, out);
    forced_path = -1;
    return st;
}

/* ---- verdicts kept for the process and in the program cache ------------------------------ */

struct memo {
    cl_device_id dev;
    int id; /* cp_probe_cached's: a path's index, or another probe's (the loop check's...) */
    struct cp_probe_class cls;
    char extra[CP_PROBE_KEY_EXTRA];
    enum cp_probe_verdict v;
    char why[CP_PROBE_WHY];
};
static struct memo *memos;
static size_t n_memos;
static pthread_mutex_t memo_lock = PTHREAD_MUTEX_INITIALIZER;

static bool memo_find(const cp_device *dev, int id, struct cp_probe_class cls, const char *extra,
                      enum cp_probe_verdict *v, char *why, size_t why_len)
{
    bool found = false;
    pthread_mutex_lock(&memo_lock);
    for (size_t i = 0; i < n_memos && !found; ++i)
        if (memos[i].dev == dev->device_id && memos[i].id == id && memos[i].cls.wide == cls.wide &&
            memos[i].cls.big_batch == cls.big_batch && memos[i].cls.square == cls.square &&
            memos[i].cls.flags == cls.flags && strcmp(memos[i].extra, extra ? extra : "") == 0) {
            *v = memos[i].v;
            snprintf(why, why_len, "%s", memos[i].why);
            found = true;
        }
    pthread_mutex_unlock(&memo_lock);
    return found;
}

static void memo_add(const cp_device *dev, int id, struct cp_probe_class cls, const char *extra,
                     enum cp_probe_verdict v, const char *why)
{
    pthread_mutex_lock(&memo_lock);
    struct memo *more = realloc(memos, (n_memos + 1) * sizeof *memos);
    if (more) { /* without memory the next engine probes again: slower, not wrong */
        memos = more;
        memos[n_memos].dev = dev->device_id;
        memos[n_memos].id = id;
        memos[n_memos].cls = cls;
        snprintf(memos[n_memos].extra, sizeof memos[n_memos].extra, "%s", extra ? extra : "");
        memos[n_memos].v = v;
        snprintf(memos[n_memos].why, sizeof memos[n_memos].why, "%s", why);
        ++n_memos;
    }
    pthread_mutex_unlock(&memo_lock);
}

/* Whether verdicts may be read from and written to the program cache: not with the sources
 * replaced. A test hook is part of the key (kernel-bit:<path> plants a bit in the probe's own
 * build; the others are suspended or do not reach the probe), so a test sees its own verdicts
 * kept and no one else's. */
static bool verdict_cacheable(void)
{
    const char *dir;
    return cp_cache_enabled() && cp_env_get("CLPARITY_KERNEL_DIR", &dir) == CP_OK && !dir;
}

/* The SHA-256 of every embedded kernel source, one after the other: computed once, for every
 * verdict's key (a probe's verdict holds for the sources as a whole: they include each other). */
static unsigned char sources_sha[32];
static bool sources_ok;
static pthread_once_t sources_once = PTHREAD_ONCE_INIT;

static void sources_hash(void)
{
    size_t total = 0;
    for (size_t i = 0; i < cp_kernel_source_count; ++i)
        total += cp_kernel_sources[i].len;
    unsigned char *all = malloc(total ? total : 1);
    if (!all)
        return;
    size_t at = 0;
    for (size_t i = 0; i < cp_kernel_source_count; ++i) {
        memcpy(all + at, cp_kernel_sources[i].data, cp_kernel_sources[i].len);
        at += cp_kernel_sources[i].len;
    }
    sources_ok = cp_sha256(all, total, sources_sha);
    free(all);
}

/* The verdict's key: the kernel sources, the path, the class and what shapes the path's build
 * (tune settings, compute units, work-group size), with the device's and driver's strings
 * (cp_cache_key_for). */
static int verdict_key(const cp_device *dev, const char *name, const char *extra,
                       struct cp_probe_class cls, struct cp_cache_key *k)
{
    cl_uint pref_vec = 0;
    size_t max_wg = 0;
    cl_int rc = clGetDeviceInfo(dev->device_id, CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT,
                                sizeof pref_vec, &pref_vec, NULL);
    if (rc == CL_SUCCESS)
        rc = clGetDeviceInfo(dev->device_id, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_wg, &max_wg,
                             NULL);
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clGetDeviceInfo (probe key)");
    cp_own_tune t;
    enum cp_tune_source src;
    int st = cp_tune_get(dev, pref_vec, &t, &src);
    if (st != CP_OK)
        return st;
    char tune[256], opts[512 + CP_PROBE_KEY_EXTRA];
    cp_tune_format(&t, tune, sizeof tune);
    snprintf(opts, sizeof opts,
             "%s path=%s wide=%d big_batch=%d square=%d flags=%d light=%d cus=%u wg=%zu vec=%u "
             "tune=%s hook=%s%s%s",
             PROBE_VERSION, name, cls.wide, cls.big_batch, cls.square, cls.flags, dev->simulator,
             dev->compute_units, max_wg, pref_vec, tune,
             cp_test_hook_active() ? getenv("CLPARITY_TEST_HOOK") : "",
             extra && extra[0] ? " " : "", extra ? extra : ""); /* NULL and "" are one key */
    pthread_once(&sources_once, sources_hash);
    if (!sources_ok)
        return cp_err_set(CP_FAIL_RUNTIME, "probe key: SHA-256 of the kernel sources failed");
    char kname[48], why[256];
    snprintf(kname, sizeof kname, "probe:%s", name);
    st = cp_cache_key_for(k, dev->device_id, kname, sources_sha, sizeof sources_sha, opts, why,
                          sizeof why);
    if (st != CP_OK)
        return cp_err_set(st, "probe key: %s", why);
    return CP_OK;
}

#define PAYLOAD_PASS PROBE_VERSION "\npass\n"
#define PAYLOAD_FAIL PROBE_VERSION "\nfail\n"

static bool verdict_load(const struct cp_cache_key *k, enum cp_probe_verdict *v, char *why,
                         size_t why_len)
{
    unsigned char *p = NULL;
    size_t n = 0;
    char miss[128];
    if (!cp_cache_load(k, &p, &n, miss, sizeof miss))
        return false;
    bool ok = true;
    size_t lp = strlen(PAYLOAD_PASS), lf = strlen(PAYLOAD_FAIL);
    if (n == lp && memcmp(p, PAYLOAD_PASS, lp) == 0) {
        *v = CP_PROBE_PASS;
        snprintf(why, why_len, "probe passed (cached)");
    } else if (n > lf && memcmp(p, PAYLOAD_FAIL, lf) == 0 && memchr(p + lf, '\0', n - lf) == NULL) {
        *v = CP_PROBE_FAIL;
        snprintf(why, why_len, "%.*s (cached)", (int)(n - lf), (const char *)p + lf);
    } else {
        ok = false; /* not ours: probe again, and the store replaces it */
    }
    free(p);
    return ok;
}

static void verdict_store(const struct cp_cache_key *k, enum cp_probe_verdict v, const char *why)
{
    char payload[CP_PROBE_WHY + 64], miss[256];
    int n = v == CP_PROBE_PASS ? snprintf(payload, sizeof payload, "%s", PAYLOAD_PASS)
                               : snprintf(payload, sizeof payload, "%s%s", PAYLOAD_FAIL, why);
    if (n > 0)
        (void)cp_cache_store(k, payload,
                             (size_t)n < sizeof payload ? (size_t)n : sizeof payload - 1, miss,
                             sizeof miss); /* not stored: probed again next time */
}

int cp_probe_cached(const cp_device *dev, int id, const char *name, struct cp_probe_class cls,
                    cp_probe_fn run, void *ctx, enum cp_probe_verdict *v, char *why, size_t why_len)
{
    return cp_probe_cached_ex(dev, id, name, NULL, cls, run, ctx, v, why, why_len);
}

int cp_probe_cached_ex(const cp_device *dev, int id, const char *name, const char *extra,
                       struct cp_probe_class cls, cp_probe_fn run, void *ctx,
                       enum cp_probe_verdict *v, char *why, size_t why_len)
{
    if (memo_find(dev, id, cls, extra, v, why, why_len))
        return CP_OK;
    struct cp_cache_key k = {0};
    bool cacheable = verdict_cacheable();
    if (cacheable && verdict_key(dev, name, extra, cls, &k) != CP_OK)
        cacheable = false; /* probed, not stored */
    if (cacheable && verdict_load(&k, v, why, why_len)) {
        cp_cache_key_free(&k);
        memo_add(dev, id, cls, extra, *v, why);
        return CP_OK;
    }
    if (!cp_isolate_may_compile("a probe")) {
        cp_cache_key_free(&k);
        return CP_FAIL_RUNTIME;
    }
    /* The programs built for the probe enter the program cache only once it passed: a binary
     * of a build that then crashes, or gives wrong bits, is never found there. */
    cp_isolate_probe_begin(id, name, extra, cls);
    cp_program_cache_hold(true);
    cp_test_suspend(true);
    int st = run(dev, ctx, cls, v, why, why_len);
    cp_test_suspend(false);
    cp_program_cache_hold(false);
    cp_program_cache_release(st == CP_OK && *v == CP_PROBE_PASS);
    if (st == CP_OK) {
        if (cacheable && *v != CP_PROBE_NA)
            verdict_store(&k, *v, why);
        memo_add(dev, id, cls, extra, *v, why);
        cp_isolate_probe_end(id, name, extra, cls, *v, why);
    }
    cp_cache_key_free(&k);
    return st;
}

void cp_probe_record(const cp_device *dev, int id, const char *name, const char *extra,
                     struct cp_probe_class cls, enum cp_probe_verdict v, const char *why,
                     bool persist)
{
    struct cp_cache_key k = {0};
    if (persist && v != CP_PROBE_NA && verdict_cacheable() &&
        verdict_key(dev, name, extra, cls, &k) == CP_OK)
        verdict_store(&k, v, why);
    cp_cache_key_free(&k);
    memo_add(dev, id, cls, extra, v, why);
}

static int own_probe_run(const cp_device *dev, void *ctx, struct cp_probe_class cls,
                         enum cp_probe_verdict *v, char *why, size_t why_len)
{
    return probe_run(dev, *(const int *)ctx, cls, v, why, why_len);
}

int cp_own_loop_rule(const cp_device *dev, const char *name, int max_in, bool *rejects, char *why,
                     size_t why_len)
{
    long ran;
    int st = cp_own_loop_check(dev, &ran);
    *rejects = false;
    if (st != CP_OK || ran >= CP_LOOP_CHECK_N)
        return st;
    bool naive = strcmp(name, "naive") == 0;
    if (naive && max_in < ran)
        return CP_OK;
    *rejects = true;
    if (naive)
        snprintf(why, why_len,
                 "the device stops a work-item's loops after %ld iterations in all (as Mesa "
                 "llvmpipe does; tests/vendor/loop_limit.cl), and a layer has that many inputs",
                 ran);
    else
        snprintf(why, why_len,
                 "the device stops a work-item's loops after %ld iterations in all (as Mesa "
                 "llvmpipe does; tests/vendor/loop_limit.cl): only naive stays under that at "
                 "every size",
                 ran);
    return CP_OK;
}

int cp_own_probe(const cp_device *dev, int path, const char *name, struct cp_probe_class cls,
                 enum cp_probe_verdict *v, char *why, size_t why_len)
{
    bool rejects;
    int st = cp_own_loop_rule(dev, name, 0, &rejects, why, why_len);
    if (st != CP_OK || rejects) {
        *v = CP_PROBE_FAIL;
        return st;
    }
    return cp_probe_cached(dev, path, name, cls, own_probe_run, &path, v, why, why_len);
}

int cp_probe_model(const cp_device *dev, struct cp_probe_class cls, cp_model *m, int *batch,
                   float **x)
{
    bool light = dev->kind == CP_DEV_OPENCL && dev->simulator;
    int st = probe_model(cls, light, m);
    *batch = probe_batch(cls, light);
    *x = NULL;
    if (st != CP_OK) {
        cp_model_free(m); /* the layers made before the failure */
        return st;
    }
    size_t n = (size_t)*batch * (size_t)m->in_width;
    *x = malloc(n * sizeof **x);
    if (!*x) {
        cp_model_free(m);
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory for the probe");
    }
    for (size_t i = 0; i < n; ++i)
        (*x)[i] = cp_gen_normal(PROBE_SEED, 0, i);
    return CP_OK;
}

/* cl:relaxed on one of cl:own's paths: its sums may be contracted and reordered, so it is held
 * to a bound, not to bits: each output within 1e-3 (1 + |r|) of the definition's. That passes
 * any honest fast-math result of the probe's model (errors near 1e-6 there) and fails a kernel
 * that computes something else. */
static int relaxed_probe_run(const cp_device *dev, void *ctx, struct cp_probe_class cls,
                             enum cp_probe_verdict *v, char *why, size_t why_len)
{
    struct probe_out o;
    *v = CP_PROBE_FAIL;
    int st = probe_forward(dev, cp_cl_probe_engine(CP_PROBE_CL_RELAXED), *(const int *)ctx, cls, &o,
                           v, why, why_len);
    if (st != CP_OK || *v == CP_PROBE_NA) {
        probe_out_free(&o);
        return st;
    }
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < o.n_out; ++i) {
        double d = fabs((double)o.y[i] - (double)o.ref[i]);
        if (!(d <= 1e-3 * (1.0 + fabs((double)o.ref[i]))) && bad++ == 0)
            first = i;
    }
    *v = bad ? CP_PROBE_FAIL : CP_PROBE_PASS;
    if (bad)
        snprintf(why, why_len,
                 "probe: %zu of %zu outputs off by more than 1e-3 (1 + |r|), first %zu: %.9g "
                 "against %.9g",
                 bad, o.n_out, first, (double)o.y[first], (double)o.ref[first]);
    else
        snprintf(why, why_len, "probe passed");
    probe_out_free(&o);
    return CP_OK;
}

int cp_relaxed_probe(const cp_device *dev, int path, const char *name, struct cp_probe_class cls,
                     enum cp_probe_verdict *v, char *why, size_t why_len)
{
    bool rejects;
    int st = cp_own_loop_rule(dev, name, 0, &rejects, why, why_len);
    if (st != CP_OK || rejects) {
        *v = CP_PROBE_FAIL;
        return st;
    }
    char key[CP_PATH_NAME + 16];
    snprintf(key, sizeof key, "relaxed:%s", name);
    return cp_probe_cached(dev, CP_PROBE_ID_RELAXED(path), key, cls, relaxed_probe_run, &path, v,
                           why, why_len);
}

bool cp_own_probe_kept(const cp_device *dev, int path, const char *name, struct cp_probe_class cls,
                       enum cp_probe_verdict *v, char *why, size_t why_len)
{
    if (memo_find(dev, path, cls, NULL, v, why, why_len))
        return true;
    struct cp_cache_key k = {0};
    if (!verdict_cacheable() || verdict_key(dev, name, NULL, cls, &k) != CP_OK)
        return false;
    bool found = verdict_load(&k, v, why, why_len);
    cp_cache_key_free(&k);
    if (found)
        memo_add(dev, path, cls, NULL, *v, why);
    return found;
}

/* The loop check's result is kept like a path's verdict, under the pseudo-path -1 ("loops"):
 * its why holds the count that ran. */
int cp_own_loop_check(const cp_device *dev, long *ran)
{
    const struct cp_probe_class none = {false, false, false, -1};
    enum cp_probe_verdict v;
    char why[CP_PROBE_WHY];
    if (cp_own_probe_kept(dev, -1, "loops", none, &v, why, sizeof why)) {
        char *end;
        long n = strtol(why, &end, 10);
        if (end != why && n >= 0 && n <= LOOP_CHECK_N) {
            *ran = n;
            return CP_OK;
        }
    }
    if (!cp_isolate_may_compile("the loop check"))
        return CP_FAIL_RUNTIME;
    cp_program_cache_hold(true);
    cp_test_suspend(true);
    int st = loop_check_run(dev, ran);
    cp_test_suspend(false);
    cp_program_cache_hold(false);
    cp_program_cache_release(st == CP_OK);
    if (st != CP_OK)
        return st;
    /* Test hook loop-limit: the device behaves as llvmpipe does */
    if (cp_test_hook("loop-limit") && *ran > 65535)
        *ran = 65535;
    snprintf(why, sizeof why, "%ld", *ran);
    v = *ran == LOOP_CHECK_N ? CP_PROBE_PASS : CP_PROBE_FAIL;
    struct cp_cache_key k = {0};
    if (verdict_cacheable() && verdict_key(dev, "loops", NULL, none, &k) == CP_OK)
        verdict_store(&k, CP_PROBE_FAIL, why); /* "fail" carries the count, pass or not */
    cp_cache_key_free(&k);
    memo_add(dev, -1, none, NULL, v, why);
    return CP_OK;
}

bool cp_own_probe_off(void)
{
    int w; /* on,off; a bad value was refused before any work (cp_env_check_all) */
    return cp_env_word("CLPARITY_OWN_PROBE", &w) == CP_OK && w == 1;
}
