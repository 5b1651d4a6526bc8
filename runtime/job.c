/* A job: the model, its input, and every selected device × engine run on them, with the
 * float64 reference and the metrics (clparity/job.h). Moved here from the command line, which
 * now parses options and prints, and nothing else. */
#include "clparity/job.h"

#include "clparity/npy.h"
#include "clparity/report.h"
#include "clparity/select.h"
#include "metrics-impl.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cp_job {
    cp_job_opts o;
    bool selected, prepared;
    cp_devlist devs;
    bool *chosen;
    bool *use; /* per registered engine */
    cp_model model;
    bool model_set; /* cp_job_set_model: a model of the caller's, not the built-in one */
    float *x;
    bool x_given; /* cp_job_set_input, not the generator */
    double *ref;  /* host:f64's output: the reference */
    float *base;  /* host:exact's output: the baseline (compare only) */
    float *cr;    /* host:cr's output: the correctly rounded answer (compare only) */
    cp_job_result *res;
    size_t nres;
    bool keep_failed;            /* cp_job_set_keep_failed */
    cp_job_progress_fn progress; /* cp_job_set_progress */
    void *progress_ctx;
    size_t nfailed;
    char build_options[512];
    char arch_from[128];
    char model_sha256[65];
    /* The work that needs no device (the hidden reference and baseline, the SHA-256 of the
     * input and weights) runs on a second thread while the first result's engine is built,
     * and is joined before its first forward: timed runs never share the CPU with it. */
    void *bg;
    const char *bg_hidden; /* what the second thread computes: the engines of bg_names
                              ("host:f64, host:exact and host:cr"), or NULL (the hashes only) */
    char bg_names[64];
    char input_sha256[65], weights_sha256[65];
};

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
static void hash_inputs(const cp_job *j, char in_hex[65], char w_hex[65])
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
        hash_inputs(j, j->input_sha256, j->weights_sha256);
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
        hash_inputs(j, in_buf, w_buf);
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
        cJSON_AddItemToArray(rej, x);
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
        cJSON_AddItemToObject(o, "timing", t);
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
        cJSON_AddItemToArray(arr, result_json(j, &j->res[i]));
    if (!j->o.compare) { /* compare's verdict lives in "comparison" */
        cJSON *sp = speed_json(j);
        if (sp)
            cJSON_AddItemToObject(root, "speed", sp);
        else
            cJSON_AddNullToObject(root, "speed"); /* fewer than two timed results */
    }
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
            cJSON_AddItemToArray(errors, o);
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
        cJSON_AddItemToArray(results, o);
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
        cJSON_AddItemToObject(index, "results", results);
        if (errors) {
            cJSON_AddItemToObject(index, "errors", errors);
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
