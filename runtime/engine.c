#include "engine-impl.h"
#include "isolate-run-impl.h"

#include <stdlib.h>
#include <string.h>

static const cp_engine_info engines[] = {
    {"cl:own", CP_DEV_OPENCL, CP_F32,
     "our .cl kernels: k ascending, explicit fma, FP_CONTRACT OFF (bitwise twin of host:exact)",
     false},
    {"cl:clblast", CP_DEV_OPENCL, CP_F32,
     "CLBlast SGEMV at batch 1, SGEMM beyond, + our ReLU/residual epilogue kernel", false},
    {"cl:relaxed", CP_DEV_OPENCL, CP_F32,
     "cl:own's kernel paths with a * b + c for fma, -cl-fast-relaxed-math -cl-mad-enable: what "
     "exactness costs",
     false},
    {"host:openblas", CP_DEV_HOST, CP_F32,
     "OpenBLAS cblas_sgemv at batch 1, cblas_sgemm beyond, "
     "+ C epilogue",
     false},
    {"host:exact", CP_DEV_HOST, CP_F32,
     "plain C in cl:own's order with fmaf, -ffp-contract=off (the baseline)", false},
    {"host:f64", CP_DEV_HOST, CP_F64, "double precision: the reference", false},
    /* Only by name for now: the defaults' reports stay as they are until the report knows it
     * (issue 23, part 3). */
    {"host:cr", CP_DEV_HOST, CP_F32,
     "correctly rounded: each output's exact sum rounded once (RN); the same bits on every "
     "correct implementation",
     true},
    {"cl:cr", CP_DEV_OPENCL, CP_F32,
     "correctly rounded on the OpenCL device: host:cr's bits, any split", true},
};

static const struct cp_engine_ops *const engine_ops[] = {
    &cp_engine_ops_cl_own,        &cp_engine_ops_cl_clblast, &cp_engine_ops_cl_relaxed,
    &cp_engine_ops_host_openblas, &cp_engine_ops_host_exact, &cp_engine_ops_host_f64,
    &cp_engine_ops_host_cr,       &cp_engine_ops_cl_cr,
};

size_t cp_engine_count(void)
{
    return sizeof engines / sizeof engines[0];
}

const cp_engine_info *cp_engine_at(size_t i)
{
    return i < cp_engine_count() ? &engines[i] : NULL;
}

const cp_engine_info *cp_engine_find(const char *name)
{
    for (size_t i = 0; i < cp_engine_count(); ++i)
        if (strcmp(engines[i].name, name) == 0)
            return &engines[i];
    return NULL;
}

void cp_engine_footprint(const cp_engine_info *info, const cp_model *m, int batch,
                         unsigned long long *total, unsigned long long *largest)
{
    unsigned long long act = (unsigned long long)batch * (unsigned long long)m->max_width;
    unsigned long long esz = info->dtype == CP_F64 ? 8 : 4;
    unsigned long long layer_max = 0;
    for (int l = 0; l < m->n_layers; ++l) {
        const cp_layer *L = &m->layers[l];
        unsigned long long b =
            ((unsigned long long)L->in * (unsigned long long)L->out + (L->has_bias ? L->out : 0)) *
            esz;
        if (b > layer_max)
            layer_max = b;
    }
    unsigned long long params = (unsigned long long)m->n_params * esz;
    unsigned long long buffers =
        strcmp(info->name, "cl:clblast") == 0 || strcmp(info->name, "host:openblas") == 0 ? 3 : 2;
    /* cl:own and cl:relaxed (its kernels) keep the weights as uploaded (for the round-trip
     * checks) and a copy in their kernels' layout (transposed or blocked). */
    if (strcmp(info->name, "cl:own") == 0 || strcmp(info->name, "cl:relaxed") == 0)
        params *= 2;
    /* host:openblas reads the model's float weights in place; host:f64 keeps a double copy,
     * host:exact one packed in panels of 16 outputs (padded: at most 15 rows more a layer). */
    if (strcmp(info->name, "host:openblas") == 0)
        params = 0;
    if (strcmp(info->name, "host:exact") == 0 || strcmp(info->name, "host:cr") == 0)
        params += 15ULL * (unsigned long long)m->max_width * (unsigned long long)m->n_layers * esz;
    /* host:cr also keeps each output's weight norm and the activations in double; cl:cr
     * the weights as stored, each output's weight norm and each row's sum of squares (its
     * split-k partial sums, CLPARITY_CR_TUNE=path=splitk, are checked when it is created). */
    if (strcmp(info->name, "host:cr") == 0) {
        params += (unsigned long long)m->max_width * (unsigned long long)m->n_layers * 8ULL;
        buffers += 4;
    }
    if (strcmp(info->name, "cl:cr") == 0)
        params += (unsigned long long)m->max_width * (unsigned long long)m->n_layers * 8ULL +
                  (unsigned long long)batch * 8ULL;
    *total = params + buffers * act * esz;
    *largest = layer_max > act * esz ? layer_max : act * esz;
}

unsigned long long cp_engine_host_footprint(const cp_engine_info *info, const cp_device *dev,
                                            const cp_model *m, int batch)
{
    unsigned long long total, largest;
    cp_engine_footprint(info, m, batch, &total, &largest);
    if (info->kind == CP_DEV_HOST)
        return total;
    unsigned long long host = 0;
    if (dev->type & CL_DEVICE_TYPE_CPU)
        host += total;
    /* cl:own's one-launch path (cl:relaxed's too) transposes every layer into one host buffer
     * before the upload. */
    if (strcmp(info->name, "cl:own") == 0 || strcmp(info->name, "cl:relaxed") == 0)
        host += (unsigned long long)m->n_params * 4ULL;
    return host;
}

static void fmt_size(unsigned long long b, char *buf, size_t len)
{
    if (b >= (1ULL << 30))
        snprintf(buf, len, "%.2f GiB", (double)b / (double)(1ULL << 30));
    else
        snprintf(buf, len, "%.1f MiB", (double)b / (double)(1ULL << 20));
}

int cp_engine_check_memory(const cp_engine_info *info, const cp_device *dev, const cp_model *m,
                           int batch)
{
    unsigned long long total, largest;
    cp_engine_footprint(info, m, batch, &total, &largest);
    char need[32], have[32], label[300];
    cp_device_label(dev, label, sizeof label);
    if (dev->kind == CP_DEV_OPENCL && largest > dev->max_alloc) {
        fmt_size(largest, need, sizeof need);
        fmt_size(dev->max_alloc, have, sizeof have);
        return cp_err_set(CP_FAIL_USAGE,
                          "model too large for %s: %s: one buffer needs %s (%llu bytes) > "
                          "CL_DEVICE_MAX_MEM_ALLOC_SIZE %s (%llu bytes)",
                          label, info->name, need, largest, have,
                          (unsigned long long)dev->max_alloc);
    }
    if (dev->kind == CP_DEV_OPENCL && total > dev->global_mem) {
        fmt_size(total, need, sizeof need);
        fmt_size(dev->global_mem, have, sizeof have);
        return cp_err_set(CP_FAIL_USAGE,
                          "model too large for %s: %s needs %s (%llu bytes) > "
                          "CL_DEVICE_GLOBAL_MEM_SIZE %s (%llu bytes)",
                          label, info->name, need, total, have,
                          (unsigned long long)dev->global_mem);
    }
    return CP_OK;
}

int cp_engine_create(const cp_engine_info *info, const cp_device *dev, const cp_model *m,
                     int max_batch, cp_engine **out)
{
    *out = NULL;
    if (info->kind != dev->kind)
        return cp_err_set(CP_FAIL_USAGE, "engine %s does not apply to device %s", info->name,
                          dev->name);
    cp_engine *e = calloc(1, sizeof *e);
    if (!e)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory creating engine %s", info->name);
    e->info = info;
    e->ops = engine_ops[info - engines];
    e->model = m;
    e->max_batch = max_batch;
    e->paths.exact = -1;
    int st = e->ops->isolated ? cp_isolate_create(e, dev, m, max_batch, e->ops->create)
                              : e->ops->create(e, dev, m, max_batch);
    if (st != CP_OK) {
        cp_engine_destroy(e);
        return st;
    }
    *out = e;
    return CP_OK;
}

bool cp_test_hook(const char *name)
{
    const char *h = getenv("CLPARITY_TEST_HOOK");
    return h && strcmp(h, name) == 0;
}

/* "fail-<what>:N" (N >= 1, default 1): the Nth call of that kind in this process fails. The
 * counters are per process: the commands run one engine at a time on one thread. */
static _Thread_local bool test_suspended;

void cp_test_suspend(bool on)
{
    test_suspended = on;
}

bool cp_test_fail(const char *what)
{
    static long enqueues, allocs;
    if (test_suspended)
        return false;
    long *count = strcmp(what, "enqueue") == 0 ? &enqueues
                  : strcmp(what, "alloc") == 0 ? &allocs
                                               : NULL;
    if (!count)
        return false;
    ++*count;
    const char *h = getenv("CLPARITY_TEST_HOOK");
    size_t n = strlen(what);
    if (!h || strncmp(h, "fail-", 5) != 0 || strncmp(h + 5, what, n) != 0)
        return false;
    const char *rest = h + 5 + n;
    long want = 1;
    if (rest[0] == ':') {
        char *end;
        want = strtol(rest + 1, &end, 10);
        if (end == rest + 1 || *end != '\0')
            return false;
    } else if (rest[0] != '\0') {
        return false;
    }
    return *count == want;
}

bool cp_test_hook_active(void)
{
    const char *h = getenv("CLPARITY_TEST_HOOK");
    return h && h[0];
}

int cp_engine_forward(cp_engine *e, const float *x, int batch, void *y, cp_timing *t)
{
    if (batch <= 0 || batch > e->max_batch)
        return cp_err_set(CP_FAIL_USAGE, "%s: batch %d outside 1..%d", e->info->name, batch,
                          e->max_batch);
    t->wall_s = 0.0;
    t->kernel_s = -1.0;
    t->h2d_s = t->d2h_s = 0.0;
    int st = e->ops->forward(e, x, batch, y, t);
    /* Test hook: the second forward's output loses one bit, as a flaky device would. */
    if (st == CP_OK && ++e->forwards == 2 && cp_test_hook("corrupt-run"))
        ((unsigned char *)y)[0] ^= 1;
    return st;
}

int cp_engine_threads(cp_engine *e, int n)
{
    return e->ops->threads ? e->ops->threads(n) : -1;
}

int cp_host_about_get(cp_host_about *a)
{
    memset(a, 0, sizeof *a);
    for (size_t i = 0; i < cp_engine_count(); ++i)
        if (engine_ops[i]->about) {
            engine_ops[i]->about(a);
            return CP_OK;
        }
    return cp_err_set(CP_FAIL_USAGE, "no engine says how the host is set up");
}

int cp_engine_roundtrip(cp_engine *e, int *ok)
{
    *ok = -1;
    return e->ops->roundtrip ? e->ops->roundtrip(e, ok) : CP_OK;
}

double cp_engine_build_seconds(const cp_engine *e)
{
    return e->build_s;
}

double cp_engine_upload_seconds(const cp_engine *e)
{
    return e->upload_s;
}

const char *cp_engine_build_options(const cp_engine *e)
{
    return e->build_options;
}

enum cp_cache_state cp_engine_build_cache(const cp_engine *e)
{
    return e->build_cache.state;
}

bool cp_engine_cache_hit(const cp_engine *e)
{
    return e->build_cache.state == CP_CACHE_HIT;
}

const char *cp_engine_build_cache_note(const cp_engine *e)
{
    return e->build_cache.note;
}

const cp_path_report *cp_engine_paths(const cp_engine *e)
{
    return &e->paths;
}

const char *cp_engine_routine(const cp_engine *e)
{
    return e->routine;
}

void cp_engine_destroy(cp_engine *e)
{
    if (!e)
        return;
    if (e->ops && e->state)
        e->ops->destroy(e);
    free(e);
}

bool cp_device_exact_capable(const cp_device *d)
{
    return d->kind == CP_DEV_HOST ||
           ((d->fp32 & CL_FP_DENORM) && strstr(d->profile, "EMBEDDED") == NULL);
}
