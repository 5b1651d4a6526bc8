/* A job's results, read back: the accessors, the model's and results' JSON, the printed model,
 * and the saved folder (--save). The run itself is in job.c. */
#include "job-impl.h"

#include "clparity/npy.h"
#include "clparity/report.h"
#include "metrics-impl.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const cp_job_opts *cp_job_get_opts(const cp_job *j)
{
    return &j->o;
}

const cp_model *cp_job_model(const cp_job *j)
{
    return &j->model;
}

const float *cp_job_input(const cp_job *j)
{
    return j->x;
}

const double *cp_job_reference(const cp_job *j)
{
    return j->ref;
}

const float *cp_job_baseline(const cp_job *j)
{
    return j->base;
}

const float *cp_job_cr(const cp_job *j)
{
    return j->cr;
}

size_t cp_job_result_count(const cp_job *j)
{
    return j->nres;
}

const cp_job_result *cp_job_result_at(const cp_job *j, size_t i)
{
    return i < j->nres ? &j->res[i] : NULL;
}

const char *cp_job_arch_from(const cp_job *j)
{
    return j->arch_from;
}

const char *cp_job_model_sha256(const cp_job *j)
{
    return j->model_sha256;
}

const char *cp_job_result_engine(const cp_job *j, size_t i)
{
    return i < j->nres ? j->res[i].eng->name : NULL;
}

const char *cp_job_result_routine(const cp_job *j, size_t i)
{
    return i < j->nres ? j->res[i].routine : NULL;
}

void cp_job_result_device(const cp_job *j, size_t i, char *buf, size_t len)
{
    if (i < j->nres)
        cp_device_label(j->res[i].dev, buf, len);
    else if (len)
        buf[0] = '\0';
}

const void *cp_job_result_output(const cp_job *j, size_t i, enum cp_dtype *dtype)
{
    if (i >= j->nres)
        return NULL;
    *dtype = j->res[i].eng->dtype;
    return j->res[i].y; /* NULL for a result that failed */
}

double cp_job_result_value(const cp_job *j, size_t i, const char *name)
{
    const cp_job_result *r = cp_job_result_at(j, i);
    if (!r || r->error[0])
        return NAN;
    const struct {
        const char *name;
        double v;
    } timing[] = {
        {"wall_median_s", r->wall.median},
        {"wall_min_s", r->wall.min},
        {"wall_max_s", r->wall.max},
        {"wall_mean_s", r->wall.mean},
        {"wall_sd_s", r->wall.sd},
        {"wall_p10_s", r->wall.p10},
        {"wall_p90_s", r->wall.p90},
        {"wall_ci_low_s", r->wall.ci_lo},
        {"wall_ci_high_s", r->wall.ci_hi},
        {"runs", (double)r->wall.n},
        {"kernel_median_s", r->kernel_median < 0.0 ? NAN : r->kernel_median},
        {"build_s", r->build_s},
        {"hash", (double)r->hash},
        {"deterministic", r->deterministic},
        {"roundtrip", r->roundtrip < 0 ? NAN : r->roundtrip},
    };
    for (size_t k = 0; k < sizeof timing / sizeof *timing; ++k)
        if (strcmp(name, timing[k].name) == 0)
            return timing[k].v;
    if (r->eng->dtype != CP_F32 || !j->ref)
        return NAN;
    const cp_metrics *m = &r->m;
    const struct {
        const char *name;
        double v;
    } metric[] = {
        {"max_ulp", m->compared ? (double)m->max_ulp : NAN},
        {"median_ulp", m->compared ? m->median_ulp : NAN},
        {"max_abs", m->max_abs},
        {"max_rel", m->max_rel},
        {"rel_to_max", m->rel_to_max},
        {"norm_rel", m->norm_rel},
        {"bitwise", m->bitwise},
        {"argmax", m->argmax},
        {"nan", (double)m->nan},
        {"inf", (double)m->inf},
        {"nan_mismatch", (double)m->nan_mismatch},
        {"compared", (double)m->compared},
    };
    for (size_t k = 0; k < sizeof metric / sizeof *metric; ++k)
        if (strcmp(name, metric[k].name) == 0)
            return metric[k].v;
    return NAN;
}

void cp_job_result_file(const cp_job_result *r, char *buf, size_t len)
{
    char tag[32], eng[64];
    cp_device_tag(r->dev, tag, sizeof tag);
    snprintf(eng, sizeof eng, "%s", r->eng->name);
    for (char *c = eng; *c; ++c)
        if (*c == ':')
            *c = '-';
    snprintf(buf, len, "%s.%s.npy", tag, eng);
}

static cJSON *model_json(const cp_job *j)
{
    cJSON *m = cJSON_CreateObject();
    if (!m)
        return NULL;
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)j->o.seed);
    if (j->model_set) {
        /* A model file is recorded by path and SHA-256, not saved again. */
        char desc[1024];
        cp_model_describe(&j->model, desc, sizeof desc);
        cJSON_AddStringToObject(m, "arch", j->o.model_file ? "file" : "arrays");
        if (j->o.model_file) {
            cJSON_AddStringToObject(m, "file", j->o.model_file);
            cJSON_AddStringToObject(m, "model_sha256", j->model_sha256);
        }
        cJSON_AddStringToObject(m, "layers_summary", desc);
        cJSON_AddStringToObject(m, "arch_from", j->arch_from);
        cJSON_AddNumberToObject(m, "in", j->model.in_width);
        cJSON_AddNumberToObject(m, "out", j->model.out_width);
        cJSON_AddNumberToObject(m, "layers", j->model.n_layers);
    } else {
        cJSON_AddStringToObject(m, "arch", "dumb");
        cJSON_AddNumberToObject(m, "d", j->model.d);
        cJSON_AddNumberToObject(m, "layers", j->model.n_layers);
        cJSON_AddNumberToObject(m, "init_scale", j->o.init_scale);
    }
    cJSON_AddNumberToObject(m, "batch", (double)j->o.batch);
    cJSON_AddStringToObject(m, "seed", seed); /* a string: a u64 does not fit a double */
    if (j->o.input_file)
        cJSON_AddStringToObject(m, "input", j->o.input_file);
    if (j->o.labels_file)
        cJSON_AddStringToObject(m, "labels", j->o.labels_file);
    const char *in_hex = j->input_sha256, *w_hex = j->weights_sha256;
    char in_buf[65], w_buf[65];
    if (!in_hex[0]) { /* not hashed while the engines ran */
        cp_job_hash_inputs(j, in_buf, w_buf);
        in_hex = in_buf;
        w_hex = w_buf;
    }
    cJSON_AddStringToObject(m, "input_sha256", in_hex);
    cJSON_AddStringToObject(m, "weights_sha256", w_hex);
    return m;
}

void cp_job_print_model(const cp_job *j, FILE *f)
{
    char src[64];
    if (j->x_given)
        snprintf(src, sizeof src, "inputs from %s", j->o.input_file ? "--input" : "the caller");
    else
        snprintf(src, sizeof src, "seed %llu", (unsigned long long)j->o.seed);
    if (!j->model_set) {
        fprintf(f,
                "model: %ld blocks y = x + relu(x·Wᵀ), d=%ld, batch %ld, %s, init-scale %g "
                "(%.4g multiply-adds per forward)\n",
                j->o.layers, j->o.d, j->o.batch, src, j->o.init_scale,
                cp_model_macs(&j->model, (int)j->o.batch));
        return;
    }
    char desc[1024];
    cp_model_describe(&j->model, desc, sizeof desc);
    fprintf(f, "model: %s (sha256 %.16s...), %d Linear layers: %s; architecture from %s\n",
            j->o.model_file ? j->o.model_file : "(arrays)", j->model_sha256, j->model.n_layers,
            desc, j->arch_from);
    fprintf(f, "       batch %ld, %s (%.4g multiply-adds per forward)\n", j->o.batch, src,
            cp_model_macs(&j->model, (int)j->o.batch));
}

int cp_job_write_output(const cp_job *j, size_t i, const char *path)
{
    const cp_job_result *r = cp_job_result_at(j, i);
    if (!r)
        return cp_err_set(CP_FAIL_USAGE, "no result %zu", i);
    if (r->error[0])
        return cp_err_set(CP_FAIL_RUNTIME, "result %zu has no output: %s", i, r->error);
    size_t shape[2] = {(size_t)j->o.batch, (size_t)j->model.out_width};
    return cp_npy_write(path, r->eng->dtype, 2, shape, r->y);
}

static cJSON *device_json(const cp_device *d)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    char buf[300];
    cp_device_tag(d, buf, sizeof buf);
    cJSON_AddStringToObject(o, "id", buf);
    cp_device_label(d, buf, sizeof buf);
    cJSON_AddStringToObject(o, "label", buf);
    cJSON_AddStringToObject(o, "name", d->name);
    cJSON_AddStringToObject(o, "platform", d->platform);
    cJSON_AddStringToObject(o, "driver", d->driver);
    if (d->kind == CP_DEV_OPENCL) {
        cp_fp_config_str(d->fp32, buf, sizeof buf);
        cJSON_AddStringToObject(o, "fp32_config", buf);
        cJSON_AddStringToObject(o, "profile", d->profile);
        cJSON_AddBoolToObject(o, "simulator", d->simulator);
    } else {
        cJSON_AddStringToObject(o, "blas_core", d->blas_core);
        cJSON_AddNumberToObject(o, "blas_threads", d->blas_threads);
    }
    return o;
}

/* {"used": path, "exact": bool, "rejected": [{"path", "why"}]}: cl:own's kernel path and what
 * its probe rejected on the device. */
void *cp_path_report_json(const cp_path_report *p)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "used", p->used);
    cJSON_AddBoolToObject(o, "exact", p->exact == 1);
    cJSON_AddNumberToObject(o, "probe_s", p->probe_s);
    cJSON_AddBoolToObject(o, "setup_child", p->in_child);
    cJSON *rej = cJSON_AddArrayToObject(o, "rejected");
    for (int i = 0; rej && i < p->n_rejected; ++i) {
        cJSON *x = cJSON_CreateObject();
        if (!x)
            break;
        cJSON_AddStringToObject(x, "path", p->rejected[i].path);
        cJSON_AddStringToObject(x, "why", p->rejected[i].why);
        cp_json_push(rej, x);
    }
    return o;
}

/* A result's "timing" of --json: the wall-time statistics, the kernel and transfer times, the
 * build, the warm-up runs and the GFLOP/s. */
static cJSON *timing_json(const cp_job *j, const cp_job_result *r)
{
    cJSON *t = cJSON_CreateObject();
    if (!t)
        return NULL;
    cp_stats_json_add(t, "wall", &r->wall, true);
    cp_json_add_num_or_null(t, "kernel_median_s", r->kernel_median);
    cJSON_AddNumberToObject(t, "h2d_median_s", r->h2d_median);
    cJSON_AddNumberToObject(t, "d2h_median_s", r->d2h_median);
    cJSON_AddNumberToObject(t, "build_s", r->build_s);
    if (cp_cache_state_name(r->build_cache))
        cJSON_AddStringToObject(t, "build_cache", cp_cache_state_name(r->build_cache));
    else
        cJSON_AddNullToObject(t, "build_cache"); /* host engines build no program */
    cJSON_AddNumberToObject(t, "upload_s", r->upload_s);
    cJSON_AddNumberToObject(t, "warmup", (double)j->o.warmup);
    double gflops = r->wall.median > 0.0
                        ? 2.0 * cp_model_macs(&j->model, (int)j->o.batch) / r->wall.median / 1e9
                        : -1.0;
    cp_json_add_num_or_null(t, "gflops", gflops);
    return t;
}

int cp_job_result_timing_json(const cp_job *j, size_t i, char **out)
{
    const cp_job_result *r = cp_job_result_at(j, i);
    cJSON *t = r && !r->error[0] ? timing_json(j, r) : NULL;
    if (r && !r->error[0] && !t) {
        *out = NULL;
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory formatting JSON");
    }
    return cp_json_text(t, out);
}

static cJSON *result_json(const cp_job *j, const cp_job_result *r)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    char buf[128];
    cp_json_add(o, "device", device_json(r->dev));
    cJSON_AddStringToObject(o, "engine", r->eng->name);
    cJSON_AddStringToObject(o, "dtype", cp_dtype_descr(r->eng->dtype));
    if (r->error[0]) { /* it failed: its cause, and no numbers */
        cJSON_AddStringToObject(o, "error", r->error);
        return o;
    }
    snprintf(buf, sizeof buf, "%016llx", (unsigned long long)r->hash);
    cJSON_AddStringToObject(o, "hash", buf);
    cJSON_AddBoolToObject(o, "deterministic", r->deterministic);
    cJSON_AddStringToObject(o, "routine", r->routine);
    if (r->paths.used[0])
        cp_json_add(o, "own_path", cp_path_report_json(&r->paths));
    cJSON *t = timing_json(j, r);
    if (t)
        cp_json_add(o, "timing", t);
    if (j->o.compare)
        return o; /* compare's metrics live in "comparison" */
    if (r->eng->dtype != CP_F32 || !j->ref) {
        cJSON_AddNullToObject(o, "metrics"); /* the reference itself */
        return o;
    }
    const cp_metrics *m = &r->m;
    cJSON *mj = cJSON_AddObjectToObject(o, "metrics");
    if (!mj)
        return o;
    cp_metrics_json_fill(mj, m, NAN);
    cJSON *w = cJSON_AddObjectToObject(mj, "worst");
    if (w) {
        cJSON_AddNumberToObject(w, "index", (double)m->worst);
        snprintf(buf, sizeof buf, "%a", (double)m->worst_a);
        cJSON_AddStringToObject(w, "value_hex", buf);
        snprintf(buf, sizeof buf, "%a", m->worst_r);
        cJSON_AddStringToObject(w, "reference_hex", buf);
        snprintf(buf, sizeof buf, "%.9g", (double)m->worst_a);
        cJSON_AddStringToObject(w, "value", buf);
        snprintf(buf, sizeof buf, "%.17g", m->worst_r);
        cJSON_AddStringToObject(w, "reference", buf);
    }
    return o;
}

/* The speed verdict over the results that ran (cp_speed_json), named as run prints them. */
static cJSON *speed_json(const cp_job *j)
{
    const cp_stats **st = calloc(j->nres + 1, sizeof *st);
    const char **nm = calloc(j->nres + 1, sizeof *nm);
    char(*names)[400] = calloc(j->nres + 1, sizeof *names);
    cJSON *o = NULL;
    if (st && nm && names) {
        for (size_t i = 0; i < j->nres; ++i) {
            char label[300];
            cp_device_label(j->res[i].dev, label, sizeof label);
            snprintf(names[i], sizeof names[i], "%s on %s", j->res[i].eng->name, label);
            nm[i] = names[i];
            st[i] = j->res[i].error[0] ? NULL : &j->res[i].wall;
        }
        o = cp_speed_json(st, nm, j->nres);
    }
    free(st);
    free(nm);
    free(names);
    return o;
}

void *cp_job_json(const cp_job *j)
{
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    cJSON_AddNumberToObject(root, "schema", 1);
    cp_json_add(root, "provenance", cp_provenance_json(j->build_options));
    cp_json_add(root, "model", model_json(j));
    if (j->ref)
        cJSON_AddStringToObject(root, "reference", "host:f64");
    else
        cJSON_AddNullToObject(root, "reference"); /* --no-reference */
    cJSON *arr = cJSON_AddArrayToObject(root, "results");
    for (size_t i = 0; arr && i < j->nres; ++i)
        cp_json_push(arr, result_json(j, &j->res[i]));
    if (!j->o.compare) /* compare's verdict lives in "comparison"; null: fewer than two timed */
        cp_json_add_or_null(root, "speed", speed_json(j));
    return root;
}

int cp_job_save_files(const cp_job *j, const char *dir)
{
    const cp_model *m = &j->model;
    char path[4096];
    size_t shape[3] = {(size_t)j->o.batch, (size_t)m->in_width, 0};
    snprintf(path, sizeof path, "%s/x.npy", dir);
    int st = cp_npy_write(path, CP_F32, 2, shape, j->x);
    if (st == CP_OK && !j->model_set) { /* a model file is recorded in index.json instead */
        size_t wshape[3] = {(size_t)m->n_layers, (size_t)m->d, (size_t)m->d};
        snprintf(path, sizeof path, "%s/weights.npy", dir);
        st = cp_npy_write(path, CP_F32, 3, wshape, m->params);
    }
    /* The reference (and compare's baseline) always, listed or not: diff needs them. */
    size_t yshape[2] = {(size_t)j->o.batch, (size_t)m->out_width};
    size_t out_n = (size_t)j->o.batch * (size_t)m->out_width;
    if (st == CP_OK && j->ref) {
        snprintf(path, sizeof path, "%s/reference.npy", dir);
        st = cp_npy_write(path, CP_F64, 2, yshape, j->ref);
    }
    if (st == CP_OK && j->base) {
        snprintf(path, sizeof path, "%s/baseline.npy", dir);
        st = cp_npy_write(path, CP_F32, 2, yshape, j->base);
    }
    if (st == CP_OK && j->cr) {
        snprintf(path, sizeof path, "%s/cr.npy", dir);
        st = cp_npy_write(path, CP_F32, 2, yshape, j->cr);
    }
    cJSON *index = cJSON_CreateObject();
    cJSON *results = index ? cJSON_AddArrayToObject(index, "results") : NULL;
    cJSON *errors = NULL; /* the results that failed: no file, their cause */
    if (!results)
        st = cp_err_set(CP_FAIL_RUNTIME, "out of memory");
    for (size_t i = 0; st == CP_OK && i < j->nres; ++i) {
        const cp_job_result *r = &j->res[i];
        char file[128], hash[32];
        if (r->error[0]) {
            cJSON *o = cJSON_CreateObject();
            if (!errors)
                errors = cJSON_CreateArray();
            if (!o || !errors) {
                cJSON_Delete(o);
                st = cp_err_set(CP_FAIL_RUNTIME, "out of memory");
                break;
            }
            char label[300];
            cp_device_label(r->dev, label, sizeof label);
            cJSON_AddStringToObject(o, "device", label);
            cJSON_AddStringToObject(o, "engine", r->eng->name);
            cJSON_AddStringToObject(o, "error", r->error);
            cp_json_push(errors, o);
            continue;
        }
        cp_job_result_file(r, file, sizeof file);
        snprintf(path, sizeof path, "%s/%s", dir, file);
        st = cp_npy_write(path, r->eng->dtype, 2, yshape, r->y);
        cJSON *o = cJSON_CreateObject();
        if (!o)
            break;
        cJSON_AddStringToObject(o, "file", file);
        char label[300];
        cp_device_label(r->dev, label, sizeof label);
        cJSON_AddStringToObject(o, "device", label);
        cJSON_AddStringToObject(o, "platform", r->dev->platform);
        cJSON_AddStringToObject(o, "driver", r->dev->driver);
        cJSON_AddStringToObject(o, "engine", r->eng->name);
        cJSON_AddStringToObject(o, "dtype", cp_dtype_descr(r->eng->dtype));
        snprintf(hash, sizeof hash, "%016llx", (unsigned long long)r->hash);
        cJSON_AddStringToObject(o, "hash", hash);
        /* The checks this run measured, for diff: every run's hash the same (known with two
         * runs or more, warm-ups included), and the weights' round trip (compare only). */
        if (j->o.warmup + (long)r->wall.n >= 2)
            cJSON_AddBoolToObject(o, "deterministic", r->deterministic);
        if (r->roundtrip >= 0)
            cJSON_AddBoolToObject(o, "roundtrip", r->roundtrip == 1);
        /* The timings, for diff: every statistic that run and compare print. */
        cJSON *t = cJSON_AddObjectToObject(o, "timing");
        if (t) {
            cp_stats_json_add(t, "wall", &r->wall, true);
            cJSON_AddNumberToObject(t, "warmup", (double)j->o.warmup);
        }
        cp_json_push(results, o);
    }
    if (st == CP_OK) {
        /* The keys of DESIGN.md's index.json; "results" moves to the end. */
        cJSON_DetachItemViaPointer(index, results);
        cJSON_AddNumberToObject(index, "schema", 1);
        cJSON_AddStringToObject(index, "version", cp_version());
        cp_json_add(index, "provenance", cp_provenance_json(j->build_options));
        cp_json_add(index, "model", model_json(j));
        char hash[32];
        if (j->ref) {
            snprintf(hash, sizeof hash, "%016llx",
                     (unsigned long long)cp_hash_fnv1a(j->ref, out_n * sizeof(double)));
            cJSON *ref = cJSON_AddObjectToObject(index, "reference");
            cJSON_AddStringToObject(ref, "file", "reference.npy");
            cJSON_AddStringToObject(ref, "engine", "host:f64");
            cJSON_AddStringToObject(ref, "hash", hash);
        }
        if (j->base) {
            snprintf(hash, sizeof hash, "%016llx",
                     (unsigned long long)cp_hash_fnv1a(j->base, out_n * sizeof(float)));
            cJSON *base = cJSON_AddObjectToObject(index, "baseline");
            cJSON_AddStringToObject(base, "file", "baseline.npy");
            cJSON_AddStringToObject(base, "engine", "host:exact");
            cJSON_AddStringToObject(base, "hash", hash);
        }
        if (j->cr) {
            snprintf(hash, sizeof hash, "%016llx",
                     (unsigned long long)cp_hash_fnv1a(j->cr, out_n * sizeof(float)));
            cJSON *cr = cJSON_AddObjectToObject(index, "cr");
            cJSON_AddStringToObject(cr, "file", "cr.npy");
            cJSON_AddStringToObject(cr, "engine", "host:cr");
            cJSON_AddStringToObject(cr, "hash", hash);
        }
        cp_json_add(index, "results", results);
        if (errors) {
            cp_json_add(index, "errors", errors);
            errors = NULL;
        }
        snprintf(path, sizeof path, "%s/index.json", dir);
        st = cp_json_write(path, index);
    }
    cJSON_Delete(errors);
    cJSON_Delete(index);
    if (st != CP_OK)
        return cp_err_set(st, "--save: %s", cp_err_msg()[0] ? cp_err_msg() : "out of memory");
    return CP_OK;
}

int cp_job_save(const cp_job *j, const char *dir)
{
    cp_save *s;
    int st = cp_save_begin(dir, &s);
    if (st != CP_OK)
        return st;
    st = cp_job_save_files(j, cp_save_dir(s));
    return st == CP_OK ? cp_save_commit(s) : cp_save_abort(s, st);
}
