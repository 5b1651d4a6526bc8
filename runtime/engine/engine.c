#include "engine-impl.h"
#include "clparity/format.h"

#include <stdlib.h>
#include <string.h>

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

/* cp_engine_set_isolation's; NULL (a program that links the library, unless it turns the
 * isolation on): every engine is set up in this process. */
static cp_isolated_setup_fn isolated_setup;

void cp_engine_set_isolation(cp_isolated_setup_fn setup)
{
    isolated_setup = setup;
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
    int st = e->ops->isolated && isolated_setup
                 ? isolated_setup(e, dev, m, max_batch, e->ops->create)
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

size_t cp_tunables(const cp_engine_info *engine, const cp_device *dev, const cp_tunable **out,
                   size_t max)
{
    return engine && engine->ops->tunables ? engine->ops->tunables(dev, out, max) : 0;
}
