/* clparity train: the tables, and the JSON, CSV, --save and plot files. */
#include "cli.h"
#include "csv.h"
#include "train_cli.h"

#include "clparity/error.h"
#include "clparity/metrics.h"
#include "clparity/npy.h"
#include "clparity/report.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* "SGD", "SGD with momentum 0.9 (Nesterov), weight decay 0.001", "Adam (betas 0.9, 0.999,
 * eps 1e-08)", "AdamW (betas 0.9, 0.999, eps 1e-08, weight decay 0.01, decoupled)". */
static void optim_desc(const cp_optim *o, char *buf, size_t len)
{
    char wd[64] = "";
    if (o->weight_decay != 0.0)
        snprintf(wd, sizeof wd, ", weight decay %.9g%s", o->weight_decay,
                 o->kind == CP_OPTIM_ADAMW ? ", decoupled" : "");
    switch (o->kind) {
    case CP_OPTIM_SGD:
        snprintf(buf, len, "SGD%s", wd);
        break;
    case CP_OPTIM_MOMENTUM:
        snprintf(buf, len, "SGD with momentum %.9g%s%s", o->momentum,
                 o->nesterov ? " (Nesterov)" : "", wd);
        break;
    case CP_OPTIM_ADAM:
    case CP_OPTIM_ADAMW:
        snprintf(buf, len, "%s (betas %.9g, %.9g, eps %.9g%s)",
                 o->kind == CP_OPTIM_ADAM ? "Adam" : "AdamW", o->beta1, o->beta2, o->eps, wd);
        break;
    }
}

static void print_model(FILE *f, const struct train *T)
{
    const struct opts *o = &T->o;
    char opt[256];
    optim_desc(&o->opt, opt, sizeof opt);
    if (o->model) {
        char desc[512];
        cp_model_describe(&T->R.m, desc, sizeof desc);
        fprintf(f,
                "model: %s (%s; %s), batch %ld, seed %llu; %s %ld steps, lr %.9g (float), MSE "
                "against %s targets\n",
                o->model, desc, T->R.arch_from, o->batch, (unsigned long long)o->seed, opt,
                o->steps, (double)(float)o->lr, o->target_zeros ? "zero" : "random");
        return;
    }
    fprintf(f,
            "model: %ld blocks y = x + relu(x·Wᵀ), d=%ld, batch %ld, seed %llu, init-scale %g; "
            "%s %ld steps, lr %.9g (float), MSE against %s targets\n",
            o->layers, o->d, o->batch, (unsigned long long)o->seed, o->init_scale, opt, o->steps,
            (double)(float)o->lr, o->target_zeros ? "zero" : "random");
}

/* Whether step is printed: every recorded step with --every; else TRAIN_PRINTED_STEPS of the
 * nsteps recorded steps, evenly spaced (k·(nsteps − 1) / (TRAIN_PRINTED_STEPS − 1), rounded:
 * the first and the last among them), and any result's first divergence (idx: the step's
 * index among the recorded steps). */
static bool step_printed(const struct train *T, long step, size_t idx, size_t nsteps)
{
    if (T->o.every_set || nsteps <= TRAIN_PRINTED_STEPS)
        return true;
    for (size_t i = 0; i < T->R.nr; ++i)
        if (T->R.r[i].first_div == step || T->R.r[i].first_div_cr == step)
            return true;
    for (size_t k = 0; k < TRAIN_PRINTED_STEPS; ++k)
        if (idx == (k * (nsteps - 1) + (TRAIN_PRINTED_STEPS - 1) / 2) / (TRAIN_PRINTED_STEPS - 1))
            return true;
    return false;
}

/* The f64 columns: "-" without host:f64 (--no-f64). */
static void print_f64(FILE *f, const struct train *T, const cp_train_rec *rc)
{
    if (T->R.ref == SIZE_MAX)
        fprintf(f, " %10s %8s\n", "-", "-");
    else
        fprintf(f, " %10.3g %8llu\n", rc->f64_abs, (unsigned long long)rc->f64_ulp);
}

/* The recorded steps (all, or about ten of them: step_printed). */
static void print_steps(FILE *f, const struct train *T)
{
    size_t nsteps = 0, shown = 0;
    for (size_t i = 0; i < T->R.nrecs; ++i)
        nsteps += i == 0 || T->R.recs[i].step != T->R.recs[i - 1].step;
    fprintf(f, "%-6s %-30s %-13s %13s %10s %8s %8s %10s %8s\n", "step", "device", "engine", "loss",
            "abs base", "ULP base", "bitwise", "abs f64", "ULP f64");
    for (size_t i = 0, idx = 0; i < T->R.nrecs; ++i) {
        const cp_train_rec *rc = &T->R.recs[i];
        if (i > 0 && rc->step != T->R.recs[i - 1].step)
            ++idx;
        if (!step_printed(T, rc->step, idx, nsteps))
            continue;
        shown += i == 0 || rc->step != T->R.recs[i - 1].step;
        char lb[300];
        cp_train_result_label(&T->R.r[rc->res], lb, sizeof lb);
        fprintf(f, "%-6ld %-30.30s %-13s %13.6e %10.3g %8llu %8.6f", rc->step, lb,
                T->R.r[rc->res].engine, rc->loss, rc->base_abs, (unsigned long long)rc->base_ulp,
                rc->base_bitwise);
        print_f64(f, T, rc);
    }
    if (shown < nsteps)
        fprintf(f,
                "(%zu of the %zu recorded steps shown, each checked: --every K prints every K-th, "
                "--json and --csv have them all)\n",
                shown, nsteps);
}

/* builds: each OpenCL result's setup before its first step, apart from the step times (the
 * build, or the cache's binary, its probes and a warm-up step), as run's builds: line. */
static void print_builds(FILE *f, const struct train *T)
{
    const char *lead = "builds:";
    for (size_t i = 0; i < T->R.nr; ++i) {
        const cp_train_result *r = &T->R.r[i];
        const char *state = cp_cache_state_name(r->build_cache);
        if (!r->w || !state)
            continue;
        char lb[300];
        cp_train_result_label(r, lb, sizeof lb);
        fprintf(f, "%-7s %s on %s: %.3f s (cache %s%s%s; with its probes and a warm-up step)\n",
                lead, r->engine, lb, r->build_s, state, r->build_cache_note[0] ? "; " : "",
                r->build_cache_note);
        lead = "";
    }
}

void train_print_tables(FILE *f, const struct train *T)
{
    print_model(f, T);
    print_steps(f, T);
    fprintf(f, "\nfinal (max ULP and first differing step against host:exact over the recorded "
               "steps; = cr: cl:cr's weights are host:cr's at every recorded step, and its "
               "forward too; the first step's time, builds apart, and the mean of the others):\n");
    fprintf(f, "%-30s %-13s %13s %-16s %8s %9s %10s %12s %9s %9s %9s\n", "device", "engine",
            "final loss", "weights hash", "max ULP", "first div", "round trip", "fwd = exact",
            "= cr", "1st ms", "ms/step");
    for (size_t i = 0; i < T->R.nr; ++i) {
        const cp_train_result *r = &T->R.r[i];
        char lb[300], fd[32];
        if (!r->w) /* a rank that failed (--mpi): the ranks' table says why */
            continue;
        cp_train_result_label(r, lb, sizeof lb);
        if (i == T->R.ref)
            snprintf(fd, sizeof fd, "ref");
        else if (r->first_div)
            snprintf(fd, sizeof fd, "%ld", r->first_div);
        else
            snprintf(fd, sizeof fd, "none");
        char eqcr[32] = "-";
        if (r->first_div_cr)
            snprintf(eqcr, sizeof eqcr, "NO, %ld", r->first_div_cr);
        else if (r->forward_cr == 0)
            snprintf(eqcr, sizeof eqcr, "fwd NO");
        else if (r->forward_cr == 1)
            snprintf(eqcr, sizeof eqcr, "yes");
        char mean[32] = "-";
        if (T->R.steps > 1)
            cp_fmt_ms(r->step_s / (double)(T->R.steps - 1), mean, sizeof mean);
        char first[32];
        cp_fmt_ms(r->first_s, first, sizeof first);
        fprintf(f, "%-30.30s %-13s %13.6e %016llx %8llu %9s %10s %12s %9s %9s %9s\n", lb, r->engine,
                r->loss, (unsigned long long)r->hash, (unsigned long long)r->max_ulp_base, fd,
                r->roundtrip ? "ok" : "FAILED",
                r->forward_base < 0 ? "-"
                : r->forward_base   ? "yes"
                                    : "NO",
                eqcr, first, mean);
    }
    print_builds(f, T);
    /* how each OpenCL result divides and takes square roots in the optimizer (adam, adamw) */
    for (size_t i = 0; i < T->R.nr; ++i) {
        const cp_train_result *r = &T->R.r[i];
        char lb[300];
        if (!r->w || !r->div_sqrt || !r->div_sqrt[0])
            continue;
        cp_train_result_label(r, lb, sizeof lb);
        fprintf(f, "div/sqrt: %s %s: %s\n", lb, r->engine, r->div_sqrt);
    }
    for (size_t i = 0; i < T->R.nr; ++i) {
        const cp_train_result *r = &T->R.r[i];
        char lb[300];
        if (!r->w || !r->traits->drifts)
            continue;
        cp_train_result_label(r, lb, sizeof lb);
        fprintf(f, "note: %s %s: %s\n", lb, r->engine, TRAIN_RELAXED_NOTE);
    }
}

/* "<tag>.<engine>.npy", or with state "<tag>.<engine>.<state>.npy" (an optimizer state
 * tensor). */
static void result_file_of(const cp_train_result *r, const char *state, char *buf, size_t len)
{
    char tag[64], eng[32];
    if (r->dev)
        cp_device_tag(r->dev, tag, sizeof tag);
    else
        snprintf(tag, sizeof tag, "%s", r->tag);
    snprintf(eng, sizeof eng, "%s", r->engine);
    for (char *c = eng; *c; ++c)
        if (*c == ':')
            *c = '-';
    snprintf(buf, len, "%s.%s%s%s.npy", tag, eng, state ? "." : "", state ? state : "");
}

static void result_file(const cp_train_result *r, char *buf, size_t len)
{
    result_file_of(r, NULL, buf, len);
}

/* The optimizer with the hyperparameters that apply to it, under PyTorch's names. */
static cJSON *optim_json(const cp_optim *o)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "name", cp_optim_name(o->kind));
    if (o->kind == CP_OPTIM_MOMENTUM) {
        cJSON_AddNumberToObject(j, "momentum", o->momentum);
        cJSON_AddNumberToObject(j, "dampening", 0.0);
        cJSON_AddBoolToObject(j, "nesterov", o->nesterov);
    } else if (o->kind == CP_OPTIM_ADAM || o->kind == CP_OPTIM_ADAMW) {
        cJSON *b = cJSON_AddArrayToObject(j, "betas");
        cp_json_push(b, cJSON_CreateNumber(o->beta1));
        cp_json_push(b, cJSON_CreateNumber(o->beta2));
        cJSON_AddNumberToObject(j, "eps", o->eps);
        cJSON_AddBoolToObject(j, "amsgrad", false);
    }
    cJSON_AddNumberToObject(j, "weight_decay", o->weight_decay);
    return j;
}

static cJSON *model_json(const struct train *T)
{
    const struct opts *o = &T->o;
    cJSON *m = cJSON_CreateObject();
    if (o->model) {
        cJSON_AddStringToObject(m, "arch", "file");
        cJSON_AddStringToObject(m, "file", o->model);
        cJSON_AddStringToObject(m, "model_sha256", T->R.model_sha256);
        cJSON_AddStringToObject(m, "arch_from", T->R.arch_from);
    } else {
        cJSON_AddStringToObject(m, "arch", "dumb");
        cJSON_AddNumberToObject(m, "d", (double)o->d);
        cJSON_AddNumberToObject(m, "layers", (double)o->layers);
        cJSON_AddNumberToObject(m, "init_scale", o->init_scale);
    }
    cJSON_AddNumberToObject(m, "batch", (double)o->batch);
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)o->seed);
    cJSON_AddStringToObject(m, "seed", seed);
    cJSON_AddNumberToObject(m, "steps", (double)o->steps);
    cJSON_AddNumberToObject(m, "lr", (double)(float)o->lr);
    cp_json_add(m, "optimizer", optim_json(&o->opt));
    cJSON_AddStringToObject(m, "target", o->target_zeros ? "zeros" : "random");
    cJSON_AddNumberToObject(m, "every", (double)o->every);
    cJSON_AddBoolToObject(m, "no_f64", o->no_f64);
    char hex[65];
    cp_sha256_hex(T->R.x, (size_t)o->batch * (size_t)T->R.m.in_width * sizeof(float), hex);
    cJSON_AddStringToObject(m, "input_sha256", hex);
    cp_sha256_hex(T->R.t, (size_t)o->batch * (size_t)T->R.m.out_width * sizeof(float), hex);
    cJSON_AddStringToObject(m, "target_sha256", hex);
    cp_sha256_hex(T->R.m.params, T->R.m.n_params * sizeof(float), hex); /* the initial weights */
    cJSON_AddStringToObject(m, "weights_sha256", hex);
    /* Every layer, so that a reader can rebuild the model from the flat parameters. */
    cJSON *ls = cJSON_AddArrayToObject(m, "layer_list");
    for (int l = 0; l < T->R.m.n_layers; ++l) {
        const cp_layer *ly = &T->R.m.layers[l];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddNumberToObject(j, "in", ly->in);
        cJSON_AddNumberToObject(j, "out", ly->out);
        cJSON_AddNumberToObject(j, "w_off", (double)ly->w_off);
        cJSON_AddBoolToObject(j, "has_bias", ly->has_bias);
        cJSON_AddNumberToObject(j, "b_off", (double)ly->b_off);
        cJSON_AddStringToObject(j, "act", ly->act == CP_ACT_RELU ? "relu" : "none");
        cJSON_AddBoolToObject(j, "residual", ly->residual);
        cp_json_push(ls, j);
    }
    return m;
}

static cJSON *result_json(const struct train *T, const cp_train_result *r)
{
    cJSON *j = cJSON_CreateObject();
    char lb[300], hash[32], file[160];
    cp_train_result_label(r, lb, sizeof lb);
    result_file(r, file, sizeof file);
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long)r->hash);
    cJSON_AddStringToObject(j, "file", file);
    cJSON_AddStringToObject(j, "device", lb);
    cJSON_AddStringToObject(j, "platform",
                            !r->dev                       ? r->platform
                            : r->dev->kind == CP_DEV_HOST ? "host"
                                                          : r->dev->platform);
    cJSON_AddStringToObject(j, "driver",
                            !r->dev                       ? r->driver
                            : r->dev->kind == CP_DEV_HOST ? ""
                                                          : r->dev->driver);
    cJSON_AddStringToObject(j, "engine", r->engine);
    cJSON_AddStringToObject(j, "dtype", cp_dtype_descr(r->dtype));
    cJSON_AddStringToObject(j, "hash", hash);
    cJSON_AddNumberToObject(j, "final_loss", r->loss);
    cJSON_AddNumberToObject(j, "max_ulp_base", (double)r->max_ulp_base);
    cJSON_AddNumberToObject(j, "first_divergent_step", (double)r->first_div);
    cJSON_AddBoolToObject(j, "roundtrip", r->roundtrip == 1);
    cJSON_AddNumberToObject(j, "first_step_ms", 1e3 * r->first_s);
    if (cp_cache_state_name(r->build_cache)) { /* an OpenCL result of this process */
        cJSON_AddNumberToObject(j, "build_s", r->build_s);
        cJSON_AddStringToObject(j, "build_cache", cp_cache_state_name(r->build_cache));
    }
    if (T->R.steps > 1)
        cJSON_AddNumberToObject(j, "step_ms_mean", 1e3 * r->step_s / (double)(T->R.steps - 1));
    if (r->forward_base >= 0)
        cJSON_AddBoolToObject(j, "forward_equals_baseline", r->forward_base == 1);
    if (r->forward_cr >= 0) { /* cl:cr against host:cr */
        cJSON_AddNumberToObject(j, "first_divergent_step_cr", (double)r->first_div_cr);
        cJSON_AddBoolToObject(j, "forward_equals_cr", r->forward_cr == 1);
    }
    if (r->div_sqrt && r->div_sqrt[0])
        cJSON_AddStringToObject(j, "div_sqrt", r->div_sqrt);
    if (r->traits->drifts)
        cJSON_AddStringToObject(j, "note", TRAIN_RELAXED_NOTE);
    if (r->state_base >= 0)
        cJSON_AddBoolToObject(j, "state_equals_baseline", r->state_base == 1);
    size_t ns = r->tr ? cp_trainer_state_count(r->tr) : 0;
    if (ns) { /* a local result's optimizer state, in a --save folder */
        cJSON *sf = cJSON_AddObjectToObject(j, "state_files");
        for (size_t k = 0; k < ns; ++k) {
            result_file_of(r, cp_trainer_state_name(r->tr, k), file, sizeof file);
            cJSON_AddStringToObject(sf, cp_trainer_state_name(r->tr, k), file);
        }
    }
    return j;
}

int train_write_json(const struct train *T)
{
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return cli_fail(CMD, CP_FAIL_RUNTIME, "out of memory building JSON");
    cJSON_AddNumberToObject(root, "schema", 1);
    cJSON_AddStringToObject(root, "command", "train");
    cp_json_add(root, "provenance", cp_provenance_json(T->R.build_options));
    cp_json_add(root, "model", model_json(T));
    cJSON *steps = cJSON_AddArrayToObject(root, "steps");
    for (size_t i = 0; i < T->R.nrecs; ++i) {
        const cp_train_rec *rc = &T->R.recs[i];
        const cp_train_result *r = &T->R.r[rc->res];
        cJSON *s = cJSON_CreateObject();
        char lb[300];
        cp_train_result_label(r, lb, sizeof lb);
        cJSON_AddNumberToObject(s, "step", (double)rc->step);
        cJSON_AddStringToObject(s, "device", lb);
        cJSON_AddStringToObject(s, "engine", r->engine);
        cJSON_AddNumberToObject(s, "loss", rc->loss);
        cJSON_AddNumberToObject(s, "base_max_abs", rc->base_abs);
        cJSON_AddNumberToObject(s, "base_max_ulp", (double)rc->base_ulp);
        cJSON_AddNumberToObject(s, "base_bitwise", rc->base_bitwise);
        if (T->R.ref != SIZE_MAX) { /* not --no-f64 */
            cJSON_AddNumberToObject(s, "f64_max_abs", rc->f64_abs);
            cJSON_AddNumberToObject(s, "f64_max_ulp", (double)rc->f64_ulp);
        }
        cp_json_push(steps, s);
    }
    cJSON *res = cJSON_AddArrayToObject(root, "results");
    for (size_t i = 0; i < T->R.nr; ++i)
        if (T->R.r[i].w) /* not a result of a rank that failed (--mpi) */
            cp_json_push(res, result_json(T, &T->R.r[i]));
    return cli_write_json(CMD, "--json", T->o.json, root);
}

int train_write_csv(const struct train *T)
{
    struct text t = {0};
    csv_begin(&t, cp_provenance_json(T->R.build_options),
              "step,device,engine,loss,base_max_abs,base_max_ulp,base_bitwise,f64_max_abs,"
              "f64_max_ulp\n");
    for (size_t i = 0; i < T->R.nrecs; ++i) {
        const cp_train_rec *rc = &T->R.recs[i];
        char lb[300];
        cp_train_result_label(&T->R.r[rc->res], lb, sizeof lb);
        for (char *c = lb; *c; ++c)
            if (*c == ',' || *c == '"')
                *c = ' ';
        text_add(&t, "%ld,%s,%s,%.17g,%.17g,%llu,%.17g", rc->step, lb, T->R.r[rc->res].engine,
                 rc->loss, rc->base_abs, (unsigned long long)rc->base_ulp, rc->base_bitwise);
        if (T->R.ref == SIZE_MAX) /* --no-f64: the f64 columns empty */
            text_add(&t, ",,\n");
        else
            text_add(&t, ",%.17g,%llu\n", rc->f64_abs, (unsigned long long)rc->f64_ulp);
    }
    return csv_write(CMD, T->o.csv, &t);
}

/* A local result's optimizer state tensors, each shaped as its weights. */
static int save_state(const cp_train_result *r, const char *dir, int ndims, const size_t *shape)
{
    size_t ns = r->tr ? cp_trainer_state_count(r->tr) : 0, n = 1;
    for (int d = 0; d < ndims; ++d)
        n *= shape[d];
    void *buf = ns ? malloc((n ? n : 1) * cp_dtype_size(r->dtype)) : NULL;
    if (ns && !buf)
        return cp_err_set(CP_FAIL_RUNTIME, "--save: out of memory");
    int st = CP_OK;
    for (size_t k = 0; st == CP_OK && k < ns; ++k) {
        char file[200], path[4096];
        result_file_of(r, cp_trainer_state_name(r->tr, k), file, sizeof file);
        snprintf(path, sizeof path, "%s/%s", dir, file);
        if ((st = cp_trainer_state(r->tr, k, buf)) == CP_OK)
            st = cp_npy_write(path, r->dtype, ndims, shape, buf);
        if (st != CP_OK)
            st = cp_err_set(st, "--save: %s", cp_err_msg());
    }
    free(buf);
    return st;
}

/* The files of --save, into the folder dir (the temporary one of cp_save_begin). */
static int save_files(const struct train *T, const char *dir)
{
    const struct opts *o = &T->o;
    char path[4096];
    /* [layers, d, d] for the built-in model; the flat parameters for a --model file. */
    size_t shape[3] = {(size_t)o->layers, (size_t)o->d, (size_t)o->d};
    int wdims = 3;
    if (o->model) {
        shape[0] = T->R.m.n_params;
        wdims = 1;
    }
    /* The inputs of the training: x, the target and the initial weights. */
    size_t xs[2] = {(size_t)o->batch, (size_t)T->R.m.in_width};
    size_t ts[2] = {(size_t)o->batch, (size_t)T->R.m.out_width};
    const char *names[] = {"x.npy", "target.npy", "weights.npy"};
    const float *data[] = {T->R.x, T->R.t, T->R.m.params};
    const size_t *shapes[] = {xs, ts, shape};
    const int ndims[] = {2, 2, wdims};
    for (size_t i = 0; i < 3; ++i) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        int st = cp_npy_write(path, CP_F32, ndims[i], shapes[i], data[i]);
        if (st != CP_OK)
            return cp_err_set(st, "--save: %s", cp_err_msg());
    }
    for (size_t i = 0; i < T->R.nr; ++i) {
        const cp_train_result *r = &T->R.r[i];
        char file[160];
        if (!r->w)
            continue;
        result_file(r, file, sizeof file);
        snprintf(path, sizeof path, "%s/%s", dir, file);
        int st = cp_npy_write(path, r->dtype, wdims, shape, r->w);
        if (st != CP_OK)
            return cp_err_set(st, "--save: %s", cp_err_msg());
        if ((st = save_state(r, dir, wdims, shape)) != CP_OK)
            return st;
    }
    cJSON *index = cJSON_CreateObject();
    if (!index)
        return cp_err_set(CP_FAIL_RUNTIME, "--save: out of memory building index.json");
    cJSON_AddNumberToObject(index, "schema", 1);
    cJSON_AddStringToObject(index, "version", cp_version());
    cJSON_AddStringToObject(index, "command", "train");
    cp_json_add(index, "provenance", cp_provenance_json(T->R.build_options));
    cp_json_add(index, "model", model_json(T));
    cJSON *res = cJSON_AddArrayToObject(index, "results");
    for (size_t i = 0; i < T->R.nr; ++i)
        if (T->R.r[i].w) /* not a result of a rank that failed (--mpi) */
            cp_json_push(res, result_json(T, &T->R.r[i]));
    snprintf(path, sizeof path, "%s/index.json", dir);
    int st = cp_json_write(path, index);
    cJSON_Delete(index);
    return st == CP_OK ? CP_OK : cp_err_set(st, "--save: %s", cp_err_msg());
}

/* --save DIR: one folder that replaces DIR whole (cp_save_begin). */
int train_save(const struct train *T)
{
    cp_save *s;
    int st = cp_save_begin(T->o.save, &s);
    if (st == CP_OK) {
        st = save_files(T, cp_save_dir(s));
        st = st == CP_OK ? cp_save_commit(s) : cp_save_abort(s, st);
    }
    return st == CP_OK ? CP_OK : cli_fail(CMD, st, "%s", cp_err_msg());
}

/* --plot: one line per float32 result, its max abs weight difference to host:f64 against the
 * step (log y), and dashed its difference to host:exact where any step has one (a log scale
 * cannot show 0). gnuplot writes a temporary file, renamed when it succeeded. */
int train_write_plot(const struct train *T)
{
    const struct opts *o = &T->o;
    struct cli_plot pl;
    int st = cli_plot_open(CMD, o->plot, &pl);
    if (st != CP_OK)
        return st;
    FILE *gp = pl.gp;
    char title[300];
    bool any_div = false;
    for (size_t i = 0; i < T->R.nr; ++i)
        any_div = any_div || (i != T->R.ref && T->R.r[i].first_div);
    snprintf(title, sizeof title, "weights during SGD: max |W - W(host:f64)|%s",
             any_div ? " (solid) and max |W - W(host:exact)| (dashed)"
                     : "; every result equals host:exact at every recorded step");
    fprintf(gp, "\nset title ");
    cli_gp_quoted(gp, title);
    fprintf(gp, "\nset xlabel \"step\"\nset ylabel \"max abs weight difference\"\n"
                "set logscale y\nset grid xtics ytics mytics\nset key below\n");
    for (size_t i = 0; i < T->R.nr; ++i) {
        if (i == T->R.ref)
            continue;
        fprintf(gp, "$r%zu << EOD\n", i);
        for (size_t k = 0; k < T->R.nrecs; ++k)
            if (T->R.recs[k].res == i)
                fprintf(gp, "%ld %.9g %.9g\n", T->R.recs[k].step,
                        T->R.recs[k].f64_abs > 0 ? T->R.recs[k].f64_abs : NAN,
                        T->R.recs[k].base_abs > 0 ? T->R.recs[k].base_abs : NAN);
        fprintf(gp, "EOD\n");
    }
    fprintf(gp, "plot ");
    const char *sep = "";
    for (size_t i = 0; i < T->R.nr; ++i) {
        if (i == T->R.ref)
            continue;
        char lb[300], name[400];
        cp_train_result_label(&T->R.r[i], lb, sizeof lb);
        snprintf(name, sizeof name, "%s %s vs host:f64", lb, T->R.r[i].engine);
        fprintf(gp, "%s$r%zu using 1:2 with linespoints lw 2 title ", sep, i);
        cli_gp_quoted(gp, name);
        sep = ", \\\n     ";
        if (T->R.r[i].first_div) {
            snprintf(name, sizeof name, "%s %s vs host:exact", lb, T->R.r[i].engine);
            fprintf(gp, "%s$r%zu using 1:3 with linespoints dt 2 lw 2 title ", sep, i);
            cli_gp_quoted(gp, name);
        }
    }
    return cli_plot_close(CMD, &pl);
}

/* The report, the files, then every check that failed, each named: the exit status. */
int train_verdict(const struct train *T)
{
    int st = CP_OK;
    bool json_out = T->o.json && strcmp(T->o.json, "-") == 0;
    bool csv_out = T->o.csv && strcmp(T->o.csv, "-") == 0;
    FILE *out = json_out || csv_out ? stderr : stdout;
    train_print_tables(out, T);
    cli_flush(out);
    if (T->o.save && (st = train_save(T)) != CP_OK)
        return st;
    if (T->o.json && (st = train_write_json(T)) != CP_OK)
        return st;
    if (T->o.csv && (st = train_write_csv(T)) != CP_OK)
        return st;
    if (T->o.plot && (st = train_write_plot(T)) != CP_OK)
        return st;
    for (size_t i = 0; i < T->R.nr; ++i) {
        const cp_train_result *r = &T->R.r[i];
        char lb[300];
        cp_train_result_label(r, lb, sizeof lb);
        /* host:exact's twin (cl:own), and host:exact itself */
        bool exact = r->traits->twin == CP_TRAIN_BASELINE || r->traits->role == CP_TRAIN_BASELINE;
        if (r->probe_failed)
            st = cli_fail(CMD, CP_FAIL_CHECK,
                          "%s on %s: its training kernels failed their probe on this device",
                          r->engine, lb);
        if (exact && r->first_div) {
            st = cli_fail(CMD, CP_FAIL_CHECK,
                          "%s on %s diverged from host:exact at step %ld (max %llu ULP)", r->engine,
                          lb, r->first_div, (unsigned long long)r->max_ulp_base);
        }
        if (!r->roundtrip)
            st = cli_fail(CMD, CP_FAIL_CHECK,
                          "%s on %s: the final weights' round trip changed the forward output",
                          r->engine, lb);
        if (r->forward_base == 0)
            st = cli_fail(CMD, CP_FAIL_CHECK,
                          "%s on %s: the forward of the final weights differs from host:exact's",
                          r->engine, lb);
        if (r->first_div_cr)
            st = cli_fail(CMD, CP_FAIL_CHECK,
                          "%s on %s diverged from host:cr at step %ld (its weights are not "
                          "host:cr's bits)",
                          r->engine, lb, r->first_div_cr);
        if (r->forward_cr == 0)
            st = cli_fail(CMD, CP_FAIL_CHECK,
                          "%s on %s: the forward of the final weights differs from host:cr's",
                          r->engine, lb);
        if (r->state_base == 0)
            st = cli_fail(CMD, CP_FAIL_CHECK,
                          "%s on %s: its final optimizer state (%s) differs from %s's", r->engine,
                          lb, r->state_diff,
                          r->traits->twin == CP_TRAIN_CR_BASE ? "host:cr" : "host:exact");
    }
    return st;
}
