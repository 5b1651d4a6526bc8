#include "engine-impl.h"
#include "isolate-run-impl.h"
#include "clparity/format.h"
#include "train-impl.h"

#include <stdlib.h>
#include <string.h>

/* The footprints (cp_engine_footprint): f holds the default when they are called, the weights
 * once in the engine's dtype and two activation buffers. */

/* cl:own and cl:relaxed (its kernels) keep the weights as uploaded (for the round-trip checks)
 * and a copy in their kernels' layout (transposed or blocked); their one-launch path transposes
 * every layer into one host buffer before the upload. */
static void footprint_own(const cp_model *m, int batch, cp_footprint *f)
{
    (void)batch;
    f->weights *= 2;
    f->staging += (unsigned long long)m->n_params * 4ULL;
}

static void footprint_clblast(const cp_model *m, int batch, cp_footprint *f)
{
    (void)m;
    (void)batch;
    f->buffers = 3;
}

/* host:openblas reads the model's float weights in place. */
static void footprint_openblas(const cp_model *m, int batch, cp_footprint *f)
{
    (void)m;
    (void)batch;
    f->weights = 0;
    f->buffers = 3;
}

/* host:exact keeps the weights packed in panels of 16 outputs (padded: at most 15 rows more a
 * layer). */
static void footprint_exact(const cp_model *m, int batch, cp_footprint *f)
{
    (void)batch;
    f->weights +=
        15ULL * (unsigned long long)m->max_width * (unsigned long long)m->n_layers * sizeof(float);
}

/* host:cr: host:exact's panels, and each output's weight norm and the activations in double. */
static void footprint_host_cr(const cp_model *m, int batch, cp_footprint *f)
{
    footprint_exact(m, batch, f);
    f->weights += (unsigned long long)m->max_width * (unsigned long long)m->n_layers * 8ULL;
    f->buffers += 4;
}

/* cl:cr: the weights as stored, each output's weight norm and each row's sum of squares (its
 * split-k partial sums, CLPARITY_CR_TUNE=path=splitk, are checked when it is created). */
static void footprint_cl_cr(const cp_model *m, int batch, cp_footprint *f)
{
    f->weights += (unsigned long long)m->max_width * (unsigned long long)m->n_layers * 8ULL +
                  (unsigned long long)batch * 8ULL;
}

/* The registry: one entry an engine, its traits as fields. */
static const cp_engine_info engines[] = {
    {
        .name = "cl:own",
        .kind = CP_DEV_OPENCL,
        .dtype = CP_F32,
        .summary = "our .cl kernels: k ascending, explicit fma, FP_CONTRACT OFF (bitwise twin of "
                   "host:exact)",
        .twin = "host:exact",
        .in_sweep = true,
        .footprint = footprint_own,
        .ops = &cp_engine_ops_cl_own,
        .train = &train_ops_cl_own,
    },
    {
        .name = "cl:clblast",
        .kind = CP_DEV_OPENCL,
        .dtype = CP_F32,
        .summary = "CLBlast SGEMV at batch 1, SGEMM beyond, + our ReLU/residual epilogue kernel",
        .footprint = footprint_clblast,
        .ops = &cp_engine_ops_cl_clblast,
        .train = &train_ops_cl_clblast,
    },
    {
        .name = "cl:relaxed",
        .kind = CP_DEV_OPENCL,
        .dtype = CP_F32,
        .summary = "cl:own's kernel paths with a * b + c for fma, -cl-fast-relaxed-math "
                   "-cl-mad-enable: what exactness costs",
        .footprint = footprint_own,
        .ops = &cp_engine_ops_cl_relaxed,
        .train = &train_ops_cl_relaxed,
    },
    {
        .name = "host:openblas",
        .kind = CP_DEV_HOST,
        .dtype = CP_F32,
        .summary = "OpenBLAS cblas_sgemv at batch 1, cblas_sgemm beyond, "
                   "+ C epilogue",
        .in_sweep = true,
        .footprint = footprint_openblas,
        .ops = &cp_engine_ops_host_openblas,
        .train = &train_ops_host_openblas,
    },
    {
        .name = "host:exact",
        .kind = CP_DEV_HOST,
        .dtype = CP_F32,
        .summary = "plain C in cl:own's order with fmaf, -ffp-contract=off (the baseline)",
        .role = CP_ROLE_BASELINE,
        .footprint = footprint_exact,
        .ops = &cp_engine_ops_host_exact,
        .train = &train_ops_host_exact,
    },
    {
        /* the default footprint: the weights in double */
        .name = "host:f64",
        .kind = CP_DEV_HOST,
        .dtype = CP_F64,
        .summary = "double precision: the reference",
        .ops = &cp_engine_ops_host_f64,
        .train = &train_ops_host_f64,
    },
    {
        /* Only by name for now: the defaults' reports stay as they are until the report knows
         * it (issue 23, part 3). */
        .name = "host:cr",
        .kind = CP_DEV_HOST,
        .dtype = CP_F32,
        .summary = "correctly rounded: each output's exact sum rounded once (RN); the same bits "
                   "on every correct implementation",
        .by_name = true,
        .correctly_rounded = true,
        .role = CP_ROLE_CR_ANSWER,
        .footprint = footprint_host_cr,
        .ops = &cp_engine_ops_host_cr,
        .train = &train_ops_host_cr,
    },
    {
        .name = "cl:cr",
        .kind = CP_DEV_OPENCL,
        .dtype = CP_F32,
        .summary = "correctly rounded on the OpenCL device: host:cr's bits, any split",
        .by_name = true,
        .correctly_rounded = true,
        .twin = "host:cr",
        .footprint = footprint_cl_cr,
        .ops = &cp_engine_ops_cl_cr,
        .train = &train_ops_cl_cr,
    },
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

/* *f for this engine, model and batch; returns the bytes of one element of its dtype. */
static unsigned long long footprint_of(const cp_engine_info *info, const cp_model *m, int batch,
                                       cp_footprint *f)
{
    unsigned long long esz = info->dtype == CP_F64 ? 8 : 4;
    f->weights = (unsigned long long)m->n_params * esz;
    f->buffers = 2;
    f->staging = 0;
    if (info->footprint)
        info->footprint(m, batch, f);
    return esz;
}

void cp_engine_footprint(const cp_engine_info *info, const cp_model *m, int batch,
                         unsigned long long *total, unsigned long long *largest)
{
    unsigned long long act = (unsigned long long)batch * (unsigned long long)m->max_width;
    cp_footprint f;
    unsigned long long esz = footprint_of(info, m, batch, &f);
    unsigned long long layer_max = 0;
    for (int l = 0; l < m->n_layers; ++l) {
        const cp_layer *L = &m->layers[l];
        unsigned long long b =
            ((unsigned long long)L->in * (unsigned long long)L->out + (L->has_bias ? L->out : 0)) *
            esz;
        if (b > layer_max)
            layer_max = b;
    }
    *total = f.weights + f.buffers * act * esz;
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
    /* the staging copy (cl:own's and cl:relaxed's transposed weights) */
    cp_footprint f;
    footprint_of(info, m, batch, &f);
    return host + f.staging;
}

int cp_engine_check_memory(const cp_engine_info *info, const cp_device *dev, const cp_model *m,
                           int batch)
{
    unsigned long long total, largest;
    cp_engine_footprint(info, m, batch, &total, &largest);
    char need[32], have[32], label[300];
    cp_device_label(dev, label, sizeof label);
    if (dev->kind == CP_DEV_OPENCL && largest > dev->max_alloc) {
        cp_fmt_bytes(largest, false, need, sizeof need);
        cp_fmt_bytes(dev->max_alloc, false, have, sizeof have);
        return cp_err_set(CP_FAIL_USAGE,
                          "model too large for %s: %s: one buffer needs %s (%llu bytes) > "
                          "CL_DEVICE_MAX_MEM_ALLOC_SIZE %s (%llu bytes)",
                          label, info->name, need, largest, have,
                          (unsigned long long)dev->max_alloc);
    }
    if (dev->kind == CP_DEV_OPENCL && total > dev->global_mem) {
        cp_fmt_bytes(total, false, need, sizeof need);
        cp_fmt_bytes(dev->global_mem, false, have, sizeof have);
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
    e->ops = info->ops;
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
        if (engines[i].ops->about) {
            engines[i].ops->about(a);
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
