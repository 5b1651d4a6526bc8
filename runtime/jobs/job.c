/* A job: the model, its input, and every selected device × engine run on them, with the
 * float64 reference and the metrics (clparity/job.h). Moved here from the command line, which
 * now parses options and prints, and nothing else. What a job's results are read back as (the
 * accessors, the JSON, the saved folder) is in job_result.c. */
#include "clparity/job.h"

#include "clparity/npy.h"
#include "clparity/report.h"
#include "clparity/select.h"
#include "job-impl.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cp_job_opts_default(cp_job_opts *o)
{
    memset(o, 0, sizeof *o);
    o->d = 128;
    o->layers = 128;
    o->batch = 1;
    o->seed = 1337;
    o->init_scale = 1.0;
    o->runs = 0;
    o->warmup = 2;
    o->min_time = CP_MIN_TIME;
}

int cp_job_create(const cp_job_opts *o, cp_job **out)
{
    *out = NULL;
    if (o->runs < 0 || o->warmup < 0 || o->batch < 1 || o->d < 1 || o->layers < 1 ||
        !(o->min_time >= 0.0 && o->min_time <= 3600.0))
        return cp_err_set(CP_FAIL_USAGE,
                          "job options out of range (runs %ld, warmup %ld, batch "
                          "%ld, d %ld, layers %ld, min_time %g)",
                          o->runs, o->warmup, o->batch, o->d, o->layers, o->min_time);
    cp_job *j = calloc(1, sizeof *j);
    if (!j)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory");
    j->o = *o;
    *out = j;
    return CP_OK;
}

int cp_job_select_devices(cp_job *j)
{
    if (j->chosen)
        return cp_err_set(CP_FAIL_USAGE, "the devices are already selected");
    int st = cp_devlist_enumerate(&j->devs);
    if (st != CP_OK)
        return st;
    j->chosen = calloc(j->devs.n + 1, sizeof *j->chosen);
    if (!j->chosen)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory");
    return cp_select(&j->devs, j->o.selectors, j->o.n_selectors, getenv("CLPARITY_DEVICES"),
                     j->chosen);
}

int cp_job_select_engines(cp_job *j)
{
    if (!j->chosen)
        return cp_err_set(CP_FAIL_USAGE, "the engines are selected after the devices");
    free(j->use);
    j->use = calloc(cp_engine_count(), sizeof *j->use);
    if (!j->use)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory");
    int st = cp_select_engines(j->o.engines, &j->devs, j->chosen, j->use);
    j->selected = st == CP_OK;
    return st;
}

int cp_job_select(cp_job *j)
{
    if (j->selected)
        return CP_OK;
    int st = j->chosen ? CP_OK : cp_job_select_devices(j);
    return st == CP_OK ? cp_job_select_engines(j) : st;
}

const cp_devlist *cp_job_devices(const cp_job *j)
{
    return j->chosen ? &j->devs : NULL;
}

bool cp_job_device_selected(const cp_job *j, size_t i)
{
    return j->chosen && i < j->devs.n && j->chosen[i];
}

int cp_job_set_model(cp_job *j, cp_model *m, const char *arch_from, const char *sha256)
{
    if (j->prepared)
        return cp_err_set(CP_FAIL_USAGE, "the model is set before cp_job_prepare");
    if (!m || m->n_layers < 1 || !m->params)
        return cp_err_set(CP_FAIL_USAGE, "a model needs at least one layer and its weights");
    if (j->x && m->in_width != j->o.d)
        return cp_err_set(CP_FAIL_USAGE, "the input has width %ld, but the model takes %d", j->o.d,
                          m->in_width);
    cp_model_free(&j->model);
    j->model = *m;
    memset(m, 0, sizeof *m);
    j->model.seed = j->o.seed;
    j->model.init_scale = 1.0f;
    j->model_set = true;
    snprintf(j->arch_from, sizeof j->arch_from, "%s", arch_from ? arch_from : "the caller");
    snprintf(j->model_sha256, sizeof j->model_sha256, "%s", sha256 ? sha256 : "");
    return CP_OK;
}

int cp_job_set_input(cp_job *j, const float *x, long rows, long width)
{
    if (j->prepared)
        return cp_err_set(CP_FAIL_USAGE, "the input is set before cp_job_prepare");
    if (rows < 1 || rows > 16777216 || width < 1 || (!j->model_set && width > 65536))
        return cp_err_set(CP_FAIL_USAGE, "an input of %ld rows of width %ld is out of range", rows,
                          width);
    if (j->model_set && width != j->model.in_width)
        return cp_err_set(CP_FAIL_USAGE, "the input has width %ld, but the model takes %d", width,
                          j->model.in_width);
    size_t n = (size_t)rows * (size_t)width;
    float *copy = malloc(n * sizeof *copy);
    if (!copy)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory for the input (%ld x %ld)", rows, width);
    memcpy(copy, x, n * sizeof *copy);
    free(j->x);
    j->x = copy;
    j->x_given = true;
    j->o.batch = rows;
    if (!j->model_set)
        j->o.d = width;
    return CP_OK;
}

/* Host memory: the model, the input, every result and the reference, plus the largest
 * engine's working set in host memory (engines run one at a time): a host engine's, or an
 * OpenCL engine's on a CPU device, whose buffers are host memory too. */
static int check_host_memory(cp_job *j, size_t nres_f32, size_t nres_f64)
{
    const cp_model *m = &j->model;
    unsigned long long b = (unsigned long long)j->o.batch;
    unsigned long long need =
        (unsigned long long)m->n_params * 4ULL + b * (unsigned long long)m->in_width * 4ULL +
        b * (unsigned long long)m->out_width * (4ULL * nres_f32 + 8ULL * (nres_f64 + 1));
    unsigned long long eng_max = 0;
    for (size_t i = 0; i < j->nres; ++i) {
        unsigned long long tot =
            cp_engine_host_footprint(j->res[i].eng, j->res[i].dev, m, (int)j->o.batch);
        eng_max = tot > eng_max ? tot : eng_max;
    }
    /* The hidden reference (or baseline, or compare's host:cr: one at a time) runs on a
     * second thread while the first result's engine is built: the largest working set of
     * them comes on top. */
    if (j->nres > 0 && !j->o.no_reference) {
        static const char *const hidden[] = {"host:f64", "host:exact", "host:cr"};
        unsigned long long most = 0;
        for (int h = 0; h < (j->o.compare ? 3 : 1); ++h) {
            unsigned long long f = cp_engine_host_footprint(cp_engine_find(hidden[h]),
                                                            j->res[0].dev, m, (int)j->o.batch);
            most = f > most ? f : most;
        }
        eng_max += most;
    }
    need += eng_max;
    unsigned long long avail = cp_host_mem_available();
    if (avail && need > avail) {
        char a[32], n[32];
        cp_fmt_bytes(need, false, n, sizeof n);
        cp_fmt_bytes(avail, false, a, sizeof a);
        return cp_err_set(CP_FAIL_USAGE,
                          "model too large for host memory: needs %s (%llu bytes) > MemAvailable "
                          "%s (%llu bytes)",
                          n, need, a, avail);
    }
    return CP_OK;
}

int cp_job_prepare(cp_job *j)
{
    if (j->prepared)
        return CP_OK;
    int st = cp_job_select(j);
    if (st != CP_OK)
        return st;
    const cp_job_opts *o = &j->o;
    if (!j->model_set) {
        st = cp_model_builtin_shape(&j->model, (int)o->d, (int)o->layers, o->seed,
                                    (float)o->init_scale);
        if (st != CP_OK)
            return st;
    }

    /* The results, in device order and then engine order. */
    size_t nf32 = 0, nf64 = 0;
    j->res = calloc(j->devs.n * cp_engine_count() + 1, sizeof *j->res);
    if (!j->res)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory");
    double macs = cp_model_macs(&j->model, (int)o->batch);
    for (size_t i = 0; i < j->devs.n; ++i) {
        const cp_device *dev = &j->devs.v[i];
        if (!j->chosen[i])
            continue;
        bool any = false;
        for (size_t e = 0; e < cp_engine_count(); ++e) {
            const cp_engine_info *info = cp_engine_at(e);
            if (!j->use[e] || info->kind != dev->kind)
                continue;
            st = cp_engine_check_memory(info, dev, &j->model, (int)o->batch);
            if (st != CP_OK)
                return st;
            cp_job_result *r = &j->res[j->nres++];
            r->dev = dev;
            r->eng = info;
            any = true;
            if (info->dtype == CP_F64)
                nf64++;
            else
                nf32++;
        }
        /* With adaptive runs, the floor of CP_RUNS_MIN runs: a slow simulator meets the
         * --min-time floor within them. */
        long runs = o->runs > 0 ? o->runs : CP_RUNS_MIN;
        double total = macs * (double)(runs + o->warmup);
        if (any && dev->simulator && !o->allow_slow && total > CP_SIMULATOR_MAC_LIMIT)
            return cp_err_set(CP_FAIL_USAGE,
                              "%d:%d %s is a simulator: this run needs %.3g multiply-adds on it "
                              "(%.3g per forward x %ld runs), over its limit of %.3g; pass "
                              "--allow-slow, or use a smaller model or fewer --runs/--warmup",
                              dev->plat_idx, dev->dev_idx, dev->name, total, macs, runs + o->warmup,
                              CP_SIMULATOR_MAC_LIMIT);
    }
    /* compare's hidden host:exact and host:cr outputs (listed or not: a bound) */
    st = check_host_memory(j, nf32 + (o->compare ? 2 : 0), nf64);
    j->prepared = st == CP_OK;
    return st;
}

/* Everything that could refuse the job has been checked: now the weights and the input. */
int cp_job_generate(cp_job *j)
{
    int st = cp_job_prepare(j);
    if (st == CP_OK && !j->model_set && !j->model.params)
        st = cp_model_builtin_generate(&j->model);
    if (st == CP_OK && !j->x)
        st = cp_model_input((int)j->o.batch, j->model.in_width, j->o.seed, &j->x);
    return st;
}

/* Batch invariance: each of the first rows alone against the same row in the batch.
 * Thread invariance: host:openblas on one thread against all of them. */
static int check_invariance(cp_job *j, cp_job_result *r, cp_engine *e)
{
    const cp_model *m = &j->model;
    size_t esz = cp_dtype_size(r->eng->dtype), out_bytes = (size_t)m->out_width * esz;
    int batch = (int)j->o.batch;
    unsigned char *y1 = malloc((size_t)batch * out_bytes);
    if (!y1)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory for the invariance check");
    cp_timing tm;
    int st = CP_OK;
    if (batch > 1) {
        long rows = batch < 32 ? batch : 32;
        r->batch_inv_equal = 0;
        for (long row = 0; row < rows && st == CP_OK; ++row) {
            st = cp_engine_forward(e, j->x + (size_t)row * (size_t)m->in_width, 1, y1, &tm);
            r->batch_inv_equal +=
                st == CP_OK &&
                memcmp(y1, (unsigned char *)r->y + (size_t)row * out_bytes, out_bytes) == 0;
        }
        r->batch_inv_checked = rows;
    }
    if (st == CP_OK && cp_engine_threads(e, 0) >= 0) {
        int all = cp_engine_threads(e, 1);
        st = cp_engine_forward(e, j->x, batch, y1, &tm);
        cp_engine_threads(e, all);
        r->thread_inv = st == CP_OK && memcmp(y1, r->y, (size_t)batch * out_bytes) == 0;
    }
    free(y1);
    return st;
}

/* One device × engine: create, warm up, time, keep the last output, destroy. */
static int bg_join(cp_job *j);

/* Tells the caller's progress callback (cp_job_set_progress), if any. */
static void tell(const cp_job *j, enum cp_job_phase phase, const cp_job_result *r,
                 const char *engine, long run, long runs)
{
    if (!j->progress)
        return;
    cp_job_event ev = {.phase = phase,
                       .index = r ? (size_t)(r - j->res) : 0,
                       .count = j->nres,
                       .dev = r ? r->dev : NULL,
                       .engine = r ? r->eng->name : engine,
                       .run = run,
                       .runs = runs};
    j->progress(&ev, j->progress_ctx);
}

/* *fatal: the failure was not the result's own (the hidden reference or baseline, joined
 * here, failed). */
static int run_result(cp_job *j, cp_job_result *r, bool *fatal)
{
    const cp_model *m = &j->model;
    int batch = (int)j->o.batch;
    size_t out_n = (size_t)batch * (size_t)m->out_width;
    size_t bytes = out_n * cp_dtype_size(r->eng->dtype);
    size_t cap = cp_runs_cap(j->o.runs), k = 0;
    double *t = calloc(cap * 4, sizeof *t), measured = 0.0;
    r->y = malloc(bytes ? bytes : 1);
    if (!t || !r->y) {
        free(t);
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory for %s results", r->eng->name);
    }
    double *wall = t, *kern = t + cap, *h2d = t + 2 * cap, *d2h = t + 3 * cap;
    cp_engine *e = NULL;
    char label[300];
    cp_device_label(r->dev, label, sizeof label);
    tell(j, CP_JOB_BUILD, r, NULL, 0, 0);
    int st = cp_engine_create(r->eng, r->dev, m, batch, &e);
    if (j->bg && j->bg_hidden)
        tell(j, CP_JOB_REFERENCE, NULL, j->bg_hidden, 0, 0);
    int bg_st = bg_join(j);
    if (st != CP_OK) {
        st = cp_err_set(st, "%s on %s: %s", r->eng->name, label, cp_err_msg());
        goto out;
    }
    if (bg_st != CP_OK) {
        st = bg_st;
        *fatal = true;
        goto out;
    }
    r->build_s = cp_engine_build_seconds(e);
    r->upload_s = cp_engine_upload_seconds(e);
    r->build_cache = cp_engine_build_cache(e);
    snprintf(r->build_cache_note, sizeof r->build_cache_note, "%s", cp_engine_build_cache_note(e));
    r->paths = *cp_engine_paths(e);
    if (cp_engine_build_options(e)[0])
        snprintf(j->build_options, sizeof j->build_options, "%s", cp_engine_build_options(e));
    r->deterministic = true;
    bool kernel_known = true;
    for (long i = 0; i < j->o.warmup || cp_runs_more(j->o.runs, j->o.min_time, k, measured); ++i) {
        cp_timing tm;
        if (i < j->o.warmup)
            tell(j, CP_JOB_WARMUP, r, NULL, i, j->o.warmup);
        else
            tell(j, CP_JOB_TIMED, r, NULL, i - j->o.warmup, j->o.runs);
        st = cp_engine_forward(e, j->x, batch, r->y, &tm);
        if (st != CP_OK) {
            st = cp_err_set(st, "%s on %s: %s", r->eng->name, label, cp_err_msg());
            goto out;
        }
        uint64_t h = cp_hash_fnv1a(r->y, bytes);
        if (i > 0 && h != r->hash)
            r->deterministic = false;
        r->hash = h;
        if (i < j->o.warmup)
            continue;
        wall[k] = tm.wall_s;
        kern[k] = tm.kernel_s;
        h2d[k] = tm.h2d_s;
        d2h[k] = tm.d2h_s;
        measured += tm.wall_s;
        k++;
        if (tm.kernel_s < 0.0)
            kernel_known = false;
    }
    snprintf(r->routine, sizeof r->routine, "%s", cp_engine_routine(e));
    r->roundtrip = -1;
    r->batch_inv_checked = -1;
    r->thread_inv = -1;
    if (j->o.compare) {
        tell(j, CP_JOB_CHECKS, r, NULL, 0, 0);
        st = cp_engine_roundtrip(e, &r->roundtrip);
        if (st == CP_OK && j->o.invariance)
            st = check_invariance(j, r, e);
        if (st != CP_OK) {
            st = cp_err_set(st, "%s on %s: %s", r->eng->name, label, cp_err_msg());
            goto out;
        }
    }
    r->wall = cp_stats_of(wall, k);
    r->kernel_median = kernel_known ? cp_stats_of(kern, k).median : -1.0;
    r->h2d_median = cp_stats_of(h2d, k).median;
    r->d2h_median = cp_stats_of(d2h, k).median;
out:
    cp_engine_destroy(e);
    free(t);
    return st;
}

static const cp_device *host_device(const cp_job *j)
{
    for (size_t i = 0; i < j->devs.n; ++i)
        if (j->devs.v[i].kind == CP_DEV_HOST)
            return &j->devs.v[i];
    return NULL;
}

/* An engine the user did not list but the job needs: the reference or the baseline. */
static int run_hidden(cp_job *j, const char *name, void **out)
{
    const cp_model *m = &j->model;
    const cp_engine_info *info = cp_engine_find(name);
    size_t n = (size_t)j->o.batch * (size_t)m->out_width;
    void *y = malloc(n * cp_dtype_size(info->dtype));
    cp_engine *e = NULL;
    cp_timing tm;
    if (!y)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory for %s", name);
    int st = cp_engine_create(info, host_device(j), m, (int)j->o.batch, &e);
    if (st == CP_OK)
        st = cp_engine_forward(e, j->x, (int)j->o.batch, y, &tm);
    cp_engine_destroy(e);
    if (st != CP_OK) {
        free(y);
        return cp_err_set(st, "%s: %s", name, cp_err_msg());
    }
    *out = y;
    return CP_OK;
}

struct bg_work {
    pthread_t thread;
    cp_job *j;
    bool threaded; /* false: bg_main ran in the caller */
    bool want_ref, want_base, want_cr, want_hashes;
    double *ref;
    float *base, *cr;
    int st;
    char msg[1024]; /* cp_err_msg() is per thread: the second thread's message, for the first */
};

/* The SHA-256 of the input and of the weights, as hex: the JSON's and index.json's. */
void cp_job_hash_inputs(const cp_job *j, char in_hex[65], char w_hex[65])
{
    cp_sha256_hex(j->x, (size_t)j->o.batch * (size_t)j->model.in_width * sizeof(float), in_hex);
    cp_sha256_hex(j->model.params, j->model.n_params * sizeof(float), w_hex);
}

static void *bg_main(void *arg)
{
    struct bg_work *w = arg;
    cp_job *j = w->j;
    w->st = CP_OK;
    if (w->want_ref)
        w->st = run_hidden(j, "host:f64", (void **)&w->ref);
    if (w->st == CP_OK && w->want_base)
        w->st = run_hidden(j, "host:exact", (void **)&w->base);
    if (w->st == CP_OK && w->want_cr)
        w->st = run_hidden(j, "host:cr", (void **)&w->cr);
    if (w->st != CP_OK)
        snprintf(w->msg, sizeof w->msg, "%s", cp_err_msg());
    if (w->want_hashes)
        cp_job_hash_inputs(j, j->input_sha256, j->weights_sha256);
    return NULL;
}

/* Starts bg_main on a second thread; where no thread can be had, it runs here and now. */
static void bg_start(cp_job *j)
{
    struct bg_work *w = calloc(1, sizeof *w);
    if (!w)
        return; /* cp_job_run computes what is missing itself */
    w->j = j;
    bool ref_listed = false, base_listed = false, cr_listed = false;
    for (size_t i = 0; i < j->nres; ++i) {
        ref_listed = ref_listed || j->res[i].eng->dtype == CP_F64;
        base_listed = base_listed || j->res[i].eng->role == CP_ROLE_BASELINE;
        cr_listed = cr_listed || j->res[i].eng->role == CP_ROLE_CR_ANSWER;
    }
    w->want_ref = !ref_listed && !j->o.no_reference;
    w->want_base = j->o.compare && !base_listed && !j->o.no_reference;
    w->want_cr = j->o.compare && !cr_listed && !j->o.no_reference;
    w->want_hashes = j->o.hash_early; /* only the JSON and index.json show them */
    const char *names[3];
    int nn = 0;
    if (w->want_ref)
        names[nn++] = "host:f64";
    if (w->want_base)
        names[nn++] = "host:exact";
    if (w->want_cr)
        names[nn++] = "host:cr";
    j->bg_names[0] = '\0';
    for (int i = 0; i < nn; ++i) {
        size_t used = strlen(j->bg_names);
        snprintf(j->bg_names + used, sizeof j->bg_names - used, "%s%s",
                 i == 0        ? ""
                 : i == nn - 1 ? " and "
                               : ", ",
                 names[i]);
    }
    j->bg_hidden = nn ? j->bg_names : NULL;
    w->threaded = pthread_create(&w->thread, NULL, bg_main, w) == 0;
    if (!w->threaded)
        bg_main(w);
    j->bg = w;
}

/* Waits for bg_main and takes its outputs; CP_OK when there was none to wait for. */
static int bg_join(cp_job *j)
{
    struct bg_work *w = j->bg;
    if (!w)
        return CP_OK;
    if (w->threaded)
        pthread_join(w->thread, NULL);
    j->bg = NULL;
    int st = w->st == CP_OK ? CP_OK : cp_err_set(w->st, "%s", w->msg);
    if (w->ref)
        j->ref = w->ref;
    if (w->base)
        j->base = w->base;
    if (w->cr)
        j->cr = w->cr;
    free(w);
    return st;
}

void cp_job_set_keep_failed(cp_job *j, bool keep)
{
    j->keep_failed = keep;
}

void cp_job_set_progress(cp_job *j, cp_job_progress_fn fn, void *ctx)
{
    j->progress = fn;
    j->progress_ctx = ctx;
}

size_t cp_job_failed_count(const cp_job *j)
{
    return j->nfailed;
}

const char *cp_job_result_error(const cp_job *j, size_t i)
{
    return i < j->nres && j->res[i].error[0] ? j->res[i].error : NULL;
}

/* Whether result r is one that the job needs beyond itself: the reference (host:f64) or
 * compare's baseline (host:exact) or correctly rounded answer (host:cr); its failure stops
 * the job. */
static bool needed(const cp_job *j, const cp_job_result *r)
{
    if (j->o.no_reference)
        return false;
    return r->eng->dtype == CP_F64 || (j->o.compare && (r->eng->role == CP_ROLE_BASELINE ||
                                                        r->eng->role == CP_ROLE_CR_ANSWER));
}

/* *out: the output of the first listed result of engine name, else of a hidden run of it. */
static int listed_or_hidden(cp_job *j, const char *name, float **out)
{
    for (size_t i = 0; i < j->nres && !*out; ++i)
        if (strcmp(j->res[i].eng->name, name) == 0 && j->res[i].y)
            *out = j->res[i].y;
    if (*out)
        return CP_OK;
    tell(j, CP_JOB_REFERENCE, NULL, name, 0, 0);
    return run_hidden(j, name, (void **)out);
}

int cp_job_run(cp_job *j)
{
    int st = cp_job_generate(j);
    if (st != CP_OK)
        return st;
    bg_start(j);
    for (size_t i = 0; i < j->nres && st == CP_OK; ++i) {
        cp_job_result *r = &j->res[i];
        bool fatal = false;
        st = run_result(j, r, &fatal);
        /* Only a runtime failure (an OpenCL call, an allocation) ends the result alone: a bad
         * value (CP_FAIL_USAGE, e.g. CLPARITY_HOST_THREADS out of range) stops the run with
         * status 2, as it would any other. */
        if (st == CP_FAIL_RUNTIME && j->keep_failed && !fatal && !needed(j, r)) {
            /* The result ends with its error, the cause without the "engine on device: " that
             * run_result put before it; the others go on. */
            char label[300], lead[400];
            cp_device_label(r->dev, label, sizeof label);
            snprintf(lead, sizeof lead, "%s on %s: ", r->eng->name, label);
            const char *msg = cp_err_msg();
            if (strncmp(msg, lead, strlen(lead)) == 0)
                msg += strlen(lead);
            snprintf(r->error, sizeof r->error, "%s", msg[0] ? msg : "failed");
            free(r->y);
            cp_job_result kept = {.dev = r->dev, .eng = r->eng};
            memcpy(kept.error, r->error, sizeof kept.error);
            *r = kept;
            j->nfailed++;
            st = CP_OK;
            continue;
        }
        if (st == CP_OK && r->eng->dtype == CP_F64 && !j->ref)
            j->ref = r->y;
    }
    int bg_st = bg_join(j);
    if (st != CP_OK)
        return st;
    if (bg_st != CP_OK)
        return bg_st;
    if (!j->ref && j->o.no_reference) {
        /* no reference: no distances (the table says n/a), but the non-finite outputs are
         * still counted, so that a NaN/Inf column never reads 0 for an overflowed model */
        size_t n = (size_t)j->o.batch * (size_t)j->model.out_width;
        for (size_t i = 0; i < j->nres; ++i) {
            cp_job_result *r = &j->res[i];
            if (r->eng->dtype != CP_F32 || !r->y)
                continue;
            const float *y = r->y;
            for (size_t k = 0; k < n; ++k) {
                r->m.nan += isnan(y[k]) ? 1u : 0u;
                r->m.inf += isinf(y[k]) ? 1u : 0u;
            }
        }
        return CP_OK;
    }
    if (!j->ref) {
        /* host:f64 was not asked for as a result: it still is the reference. */
        tell(j, CP_JOB_REFERENCE, NULL, "host:f64", 0, 0);
        st = run_hidden(j, "host:f64", (void **)&j->ref);
        if (st != CP_OK)
            return st;
    }
    /* compare's baseline (host:exact) and correctly rounded answer (host:cr, for =cr): the
     * listed result's output, else a hidden run */
    if (j->o.compare && ((st = listed_or_hidden(j, "host:exact", &j->base)) != CP_OK ||
                         (st = listed_or_hidden(j, "host:cr", &j->cr)) != CP_OK))
        return st;
    tell(j, CP_JOB_METRICS, NULL, NULL, 0, 0);
    for (size_t i = 0; i < j->nres; ++i) {
        cp_job_result *r = &j->res[i];
        if (r->eng->dtype != CP_F32 || !r->y)
            continue;
        st = cp_metrics_compute(r->y, j->ref, (size_t)j->o.batch, (size_t)j->model.out_width,
                                j->o.equal_nan, &r->m);
        if (st != CP_OK)
            return st;
    }
    return CP_OK;
}

static bool is_result(const cp_job *j, const void *y)
{
    for (size_t i = 0; i < j->nres; ++i)
        if (j->res[i].y == y)
            return true;
    return false;
}

void cp_job_destroy(cp_job *j)
{
    if (!j)
        return;
    if (j->bg)
        bg_join(j);
    if (j->ref && !is_result(j, j->ref))
        free(j->ref);
    if (j->base && !is_result(j, j->base))
        free(j->base);
    if (j->cr && !is_result(j, j->cr))
        free(j->cr);
    for (size_t i = 0; i < j->nres; ++i)
        free(j->res[i].y);
    free(j->res);
    free(j->x);
    cp_model_free(&j->model);
    free(j->use);
    free(j->chosen);
    cp_devlist_free(&j->devs);
    free(j);
}
