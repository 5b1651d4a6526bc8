/* The options of run and compare, and the command line's side of a job: the files it reads
 * (--model, --input, --labels) and writes (--out, --save, --json). The job itself is the
 * library's (clparity/job.h). */
#include "run_job.h"

#include "cli.h"
#include "opts.h"
#include "progress.h"

#include "clparity/compare.h"
#include "clparity/npy.h"
#include "clparity/report.h"
#include "clparity/select.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The options of run and compare, in the order of their help. */
#define JO(field) OPT_AT(struct job_opts, field)
#define RUNS_ADAPTIVE "adaptive, see --min-time;\ngiven, exactly N"
#define JO_SEEN(field) OPT_SEEN(struct job_opts, field)
#define BELONGS "unknown option '--%s' (it belongs to compare)"
#define JOB_USES(RUN)                                                                              \
    {.id = OPT_DEVICE},                                                                            \
        {.id = OPT_ENGINES,                                                                        \
         JO(engines),                                                                              \
         .def = "every engine that applies:\ncl:own, cl:clblast, cl:relaxed, cl:cr on "            \
                "OpenCL devices;\nhost:openblas, host:exact, host:f64, host:cr on host"},          \
        {.id = OPT_DMODEL, JO(d), JO_SEEN(d_set), .def = "128"},                                   \
        {.id = OPT_LAYERS, JO(layers), JO_SEEN(layers_set), .def = "128"},                         \
        {.id = OPT_BATCH, JO(batch), JO_SEEN(batch_set), .def = "1"},                              \
        {.id = OPT_SEED, JO(seed), JO_SEEN(seed_set)},                                             \
        {.id = OPT_INIT_SCALE, JO(init_scale), JO_SEEN(init_scale_set)},                           \
        {.id = OPT_ALLOW_SLOW, JO(allow_slow)},                                                    \
        {.id = OPT_MODEL,                                                                          \
         JO(model),                                                                                \
         .def = "; the architecture comes from\nthe flags below, else the metadata "               \
                "clparity.arch (written by\ntools/export_torch.py), else the tensor names"},       \
        {.id = OPT_ARCH}, {.id = OPT_ACT}, {.id = OPT_RESIDUAL}, {.id = OPT_INPUT, JO(input)},     \
        {.id = OPT_LABELS, JO(labels)}, {.id = OPT_OUT, JO(out)},                                  \
        {.id = OPT_NO_REFERENCE,                                                                   \
         JO(no_reference),                                                                         \
         .refuse = RUN ? NULL : "--%s: compare always needs the host:f64 reference"},              \
        {.id = OPT_EXPECT,                                                                         \
         .def = ", every run of each gave\nthe same hash, and the weights' round trip was "        \
                "bit-exact",                                                                       \
         .refuse = RUN ? BELONGS : NULL},                                                          \
        {.id = OPT_EQUAL_NAN, JO(equal_nan), .refuse = RUN ? BELONGS : NULL},                      \
        {.id = OPT_INVARIANCE, JO(invariance), .refuse = RUN ? BELONGS : NULL},                    \
        {.id = OPT_MPI, JO(mpi), .refuse = RUN ? BELONGS : NULL},                                  \
        {.id = OPT_RUNS, JO(runs), JO_SEEN(runs_set), .def = RUNS_ADAPTIVE},                       \
        {.id = OPT_MIN_TIME, JO(min_time), JO_SEEN(min_time_set), .def = "0.2"},                   \
        {.id = OPT_WARMUP, JO(warmup), .def = "2"},                                                \
        {.id = OPT_JSON, JO(json), .def = "the results"},                                          \
        {.id = OPT_CSV,                                                                            \
         JO(csv),                                                                                  \
         .help = "write one row per device x engine as CSV ('-' for stdout):\n"                    \
                 "timings, ULP and the other metrics against host:f64; the\n"                      \
                 "first line is '# provenance: ' and the provenance as JSON"},                     \
        {.id = OPT_PLOT,                                                                           \
         JO(plot),                                                                                 \
         .def = "the median wall time of each device x engine, with\nerror bars from the "         \
                "fastest to the slowest run, and its\nmax ULP against host:f64,"},                 \
    {                                                                                              \
        .id = OPT_SAVE, JO(save), .def = "inputs, weights, every result (.npy) and index.json"     \
    }

static const struct opt_use run_uses[] = {JOB_USES(1)};
static const struct opt_use compare_uses[] = {JOB_USES(0)};

void job_opts_help(const struct job_opts *o)
{
    if (o->compare)
        opts_help(stdout, compare_uses, sizeof compare_uses / sizeof *compare_uses);
    else
        opts_help(stdout, run_uses, sizeof run_uses / sizeof *run_uses);
}

void job_opts_defaults(struct job_opts *o)
{
    memset(o, 0, sizeof *o);
    o->d = 128;
    o->layers = 128;
    o->batch = 1;
    o->seed = 1337;
    o->init_scale = 1.0;
    o->runs = 0; /* adaptive */
    o->min_time = CP_MIN_TIME;
    o->warmup = 2;
    o->expect = CP_EXPECT_NONE;
    o->arch.act = -1;
    o->arch.residual = -1;
}

/* What the table cannot store itself: -d's list, the architecture's enums, --expect. */
static int job_opt_set(void *ctx, enum opt_id id, const struct opt_value *v)
{
    struct job_opts *o = ctx;
    if (id == OPT_DEVICE)
        o->sels[o->nsel++] = (char *)v->s;
    else if (id == OPT_ARCH)
        o->arch.kind = v->choice == 0 ? CP_ARCH_DUMB : CP_ARCH_MLP;
    else if (id == OPT_ACT)
        o->arch.act = v->choice == 0 ? CP_ACT_RELU : CP_ACT_NONE;
    else if (id == OPT_RESIDUAL)
        o->arch.residual = v->choice == 0;
    else if (id == OPT_EXPECT)
        return cp_expect_parse(v->s, &o->expect);
    return CP_OK;
}

/* Whether the --engines list names a correctly rounded engine (the default list holds cl:cr
 * and host:cr). */
static bool engines_name_cr(const char *list)
{
    if (!list)
        return true;
    for (const char *p = list; p && *p;) {
        size_t len = strcspn(p, ",");
        char tok[64];
        snprintf(tok, sizeof tok, "%.*s", (int)(len < sizeof tok ? len : sizeof tok - 1), p);
        if (cp_engine_correctly_rounded(tok))
            return true;
        p += len + (p[len] == ',');
    }
    return false;
}

int job_opts_parse(const char *cmd, int argc, char **argv, struct job_opts *o, void (*help)(void),
                   bool *handled)
{
    *handled = false;
    o->sels = calloc((size_t)argc, sizeof *o->sels);
    if (!o->sels)
        return cli_fail(cmd, CP_FAIL_RUNTIME, "out of memory");
    int st = o->compare ? opts_parse(cmd, argc, argv, compare_uses,
                                     sizeof compare_uses / sizeof *compare_uses, job_opt_set, NULL,
                                     o, help, handled)
                        : opts_parse(cmd, argc, argv, run_uses, sizeof run_uses / sizeof *run_uses,
                                     job_opt_set, NULL, o, help, handled);
    if (st != CP_OK || *handled)
        return st;
    if (o->runs_set && o->min_time_set)
        return cli_fail(cmd, CP_FAIL_USAGE,
                        "--runs fixes the count and --min-time sets a floor for an adaptive "
                        "count: give one of them");
    if (!o->model && (o->arch.kind != CP_ARCH_AUTO || o->arch.act >= 0 || o->arch.residual >= 0))
        return cli_fail(cmd, CP_FAIL_USAGE,
                        "--arch, --act and --residual describe a --model file; the built-in "
                        "model is always relu with a residual");
    if (o->model && (o->d_set || o->layers_set || o->init_scale_set))
        return cli_fail(cmd, CP_FAIL_USAGE,
                        "--%s: the --model file sets the model's shape and weights",
                        o->d_set        ? "d-model"
                        : o->layers_set ? "layers"
                                        : "init-scale");
    if (o->expect == CP_PRESET_CR && !engines_name_cr(o->engines))
        return cli_fail(cmd, CP_FAIL_USAGE,
                        "--expect cr judges the correctly rounded results (cl:cr, host:cr) "
                        "against host:cr, and --engines selects none: add cl:cr or host:cr to "
                        "--engines");
    return CP_OK;
}

/* --input: float32 [batch, in]; it sets the batch. Without --model its width is d. */
static int load_input(struct job *j)
{
    struct job_opts *o = &j->o;
    if (!o->input)
        return CP_OK;
    cp_npy a;
    int st = cp_npy_read(o->input, &a);
    if (st != CP_OK)
        return cli_fail(j->cmd, st, "--input: %s", cp_err_msg());
    const char *why = NULL;
    if (a.dtype != CP_F32)
        why = "must be float32 (<f4)";
    else if (a.ndim != 2)
        why = "must be 2-D [batch, width]";
    else if (a.shape[0] == 0 || a.shape[0] > 16777216 || a.shape[1] == 0)
        why = "must have between 1 and 16777216 rows and a width of at least 1";
    if (why) {
        char shape[96] = "";
        for (int k = 0, n = 0; k < a.ndim && n < (int)sizeof shape; ++k)
            n += snprintf(shape + n, sizeof shape - (size_t)n, "%s%zu", k ? ", " : "", a.shape[k]);
        const char *descr = cp_dtype_descr(a.dtype);
        cp_npy_free(&a);
        return cli_fail(j->cmd, CP_FAIL_USAGE, "--input: %s: %s [%s]: it %s", o->input, descr,
                        shape, why);
    }
    size_t rows = a.shape[0], width = a.shape[1];
    size_t want = o->model ? (size_t)cp_job_model(j->cj)->in_width : (size_t)o->d;
    if (o->batch_set && (size_t)o->batch != rows)
        st = cli_fail(j->cmd, CP_FAIL_USAGE,
                      "--batch %ld conflicts with --input %s, which holds %zu rows", o->batch,
                      o->input, rows);
    else if ((o->model || o->d_set) && width != want)
        st = cli_fail(j->cmd, CP_FAIL_USAGE, "--input: %s has width %zu, but the %s takes %zu",
                      o->input, width, o->model ? "model" : "--d-model", want);
    else if (!o->model && width > 65536)
        st = cli_fail(j->cmd, CP_FAIL_USAGE, "--input: %s has width %zu, above --d-model's 65536",
                      o->input, width);
    if (st != CP_OK) {
        cp_npy_free(&a);
        return st;
    }
    o->batch = (long)rows;
    if (!o->model)
        o->d = (long)width;
    st = cp_job_set_input(j->cj, a.data, (long)rows, (long)width);
    cp_npy_free(&a);
    return st == CP_OK ? CP_OK : cli_fail(j->cmd, st, "--input: %s", cp_err_msg());
}

/* --labels: int32 or int64 class ids, one per input row, each a class of the model. */
static int load_labels(struct job *j)
{
    struct job_opts *o = &j->o;
    cp_npy a;
    int st = cp_npy_read(o->labels, &a);
    if (st != CP_OK)
        return cli_fail(j->cmd, st, "--labels: %s", cp_err_msg());
    if (a.dtype != CP_I32 && a.dtype != CP_I64)
        st = cli_fail(j->cmd, CP_FAIL_USAGE, "--labels: %s is %s; class ids must be int32 or int64",
                      o->labels, cp_dtype_descr(a.dtype));
    else if (a.ndim != 1 || a.shape[0] != (size_t)o->batch)
        st = cli_fail(j->cmd, CP_FAIL_USAGE,
                      "--labels: %s must be 1-D with one id per input (%ld), not %d-D with %zu "
                      "elements",
                      o->labels, o->batch, a.ndim, a.count);
    if (st != CP_OK) {
        cp_npy_free(&a);
        return st;
    }
    int out_width = o->model ? cp_job_model(j->cj)->out_width : (int)o->d;
    j->labels = malloc((a.count ? a.count : 1) * sizeof *j->labels);
    if (!j->labels) {
        cp_npy_free(&a);
        return cli_fail(j->cmd, CP_FAIL_RUNTIME, "out of memory for the labels");
    }
    for (size_t i = 0; i < a.count && st == CP_OK; ++i) {
        int64_t v = a.dtype == CP_I32 ? ((const int32_t *)a.data)[i] : ((const int64_t *)a.data)[i];
        if (v < 0 || v >= out_width)
            st = cli_fail(j->cmd, CP_FAIL_USAGE,
                          "--labels: %s: label %lld at row %zu is not a class of the model's %d "
                          "outputs",
                          o->labels, (long long)v, i, out_width);
        j->labels[i] = v;
    }
    cp_npy_free(&a);
    return st;
}

/* The library's reading of the options. */
static void lib_opts(const struct job_opts *o, cp_job_opts *c)
{
    cp_job_opts_default(c);
    c->selectors = (const char *const *)o->sels;
    c->n_selectors = o->nsel;
    c->engines = o->engines;
    c->d = o->d;
    c->layers = o->layers;
    c->batch = o->batch;
    c->seed = o->seed;
    c->init_scale = o->init_scale;
    c->runs = o->runs;
    c->min_time = o->min_time;
    c->warmup = o->warmup;
    c->compare = o->compare;
    c->equal_nan = o->equal_nan;
    c->invariance = o->invariance;
    c->allow_slow = o->allow_slow;
    c->no_reference = o->no_reference;
    c->hash_early = o->json || o->save; /* only the JSON and index.json show the hashes */
    c->model_file = o->model;
    c->input_file = o->input;
    c->labels_file = o->labels;
}

/* --mpi: the engines of --engines that apply to a device that this rank selects (the others
 * may run on another rank); an unknown name stays, for the usual error. None that applies is
 * an error here too. */
static int mpi_engines(struct job *j)
{
    const struct job_opts *o = &j->o;
    cp_devlist l;
    bool *chosen = NULL;
    int st = cp_devlist_enumerate(&l);
    if (st != CP_OK)
        return CP_OK; /* the selection that follows reports it */
    chosen = calloc(l.n + 1, sizeof *chosen);
    char *list = strdup(o->engines), *keep = calloc(strlen(o->engines) + 1, 1);
    if (!chosen || !list || !keep)
        st = cli_fail(j->cmd, CP_FAIL_RUNTIME, "out of memory");
    else if (cp_select(&l, (const char *const *)o->sels, o->nsel, getenv("CLPARITY_DEVICES"),
                       chosen) != CP_OK)
        st = CP_OK; /* likewise */
    else {
        char *save = NULL;
        for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            const cp_engine_info *e = cp_engine_find(t);
            bool applies = !e;
            for (size_t i = 0; e && i < l.n; ++i)
                applies = applies || (chosen[i] && l.v[i].kind == e->kind);
            if (applies)
                strcat(strcat(keep, keep[0] ? "," : ""), t);
        }
        if (!keep[0])
            st = cli_fail(j->cmd, CP_FAIL_USAGE,
                          "--engines %s: none of them applies to the devices selected on this "
                          "machine",
                          o->engines);
    }
    free(list);
    free(chosen);
    cp_devlist_free(&l);
    if (st == CP_OK && keep && keep[0])
        j->engines = keep;
    else
        free(keep);
    return st;
}

/* The order of the checks is the command line's: the output paths, the devices and engines,
 * the files, then what the library checks before any work. */
int job_prepare(struct job *j, const char *cmd, const struct job_opts *o)
{
    memset(j, 0, sizeof *j);
    j->cmd = cmd;
    j->o = *o;
    o = &j->o; /* --input may set the batch */
    /* Every path against the others, before any work: no output may overwrite an input,
     * another output, or land in the --save folder. */
    const struct cli_path paths[] = {
        {"--model", o->given ? NULL : o->model, CLI_IN_FILE},
        {"--input", o->given ? NULL : o->input, CLI_IN_FILE},
        {"--labels", o->labels, CLI_IN_FILE},
        {"--out", o->out, CLI_OUT_FILE},
        {"--json", o->json, CLI_OUT_FILE},
        {"--csv", o->csv, CLI_OUT_FILE},
        {"--plot", o->plot, CLI_OUT_FILE},
        {"--save", o->save, CLI_OUT_DIR},
    };
    if (o->json && o->csv && strcmp(o->json, "-") == 0 && strcmp(o->csv, "-") == 0)
        return cli_fail(cmd, CP_FAIL_USAGE,
                        "--json - and --csv -: only one of them can take stdout");
    if ((o->csv || o->plot) && o->mpi)
        return cli_fail(cmd, CP_FAIL_USAGE,
                        "--%s is not written under --mpi yet (use --json or --save there)",
                        o->csv ? "csv" : "plot");
    if (cli_check_plot(cmd, o->plot) != CP_OK)
        return CP_FAIL_USAGE;
    int st = cli_check_paths(cmd, paths, sizeof paths / sizeof *paths);
    if (st == CP_OK && o->save)
        st = cli_check_output_dir(cmd, o->save);
    if (st != CP_OK)
        return st;
    cp_job_opts c;
    lib_opts(o, &c);
    st = o->mpi && o->engines ? mpi_engines(j) : CP_OK;
    if (st != CP_OK)
        return st;
    if (j->engines)
        c.engines = j->engines;
    if (o->given) { /* rank 0 computes the reference and the baseline */
        c.no_reference = true;
        c.hash_early = false;
    }
    st = cp_job_create(&c, &j->cj);
    if (st != CP_OK)
        return cli_fail(cmd, st, "%s", cp_err_msg());
    /* A result whose engine fails ends with its error, and the others go on (issue 21);
     * --mpi's ranks still stop at the first, as before. */
    cp_job_set_keep_failed(j->cj, !o->mpi);
    st = cp_job_select_devices(j->cj);
    if (st != CP_OK) /* one line: what there is and the fix (runtime/registry/select.c) */
        return cli_fail(cmd, st, "%s", cp_err_msg());
    st = cp_job_select_engines(j->cj);
    if (st != CP_OK)
        return cli_fail(cmd, st, "%s", cp_err_msg());
    if (o->given) {
        st = cp_job_set_model(j->cj, &o->given->model, "rank 0", NULL);
        if (st == CP_OK)
            st = cp_job_set_input(j->cj, o->given->x, o->given->rows, o->given->width);
        if (st != CP_OK)
            return cli_fail(cmd, st, "%s", cp_err_msg());
    } else if (o->model) {
        cp_model m;
        const char *arch_from;
        char sha[65];
        st = cli_load_model(cmd, o->model, &o->arch, &m, &arch_from, sha);
        if (st != CP_OK)
            return st;
        st = cp_job_set_model(j->cj, &m, arch_from, sha);
        cp_model_free(&m);
        if (st != CP_OK)
            return cli_fail(cmd, st, "%s", cp_err_msg());
    }
    st = load_input(j);
    if (st == CP_OK && o->labels)
        st = load_labels(j);
    if (st != CP_OK)
        return st;
    st = cp_job_prepare(j->cj);
    if (st != CP_OK)
        return cli_fail(cmd, st, "%s", cp_err_msg());
    size_t nres = cp_job_result_count(j->cj);
    if (o->out && nres != 1)
        return cli_fail(cmd, CP_FAIL_USAGE,
                        "--out writes one result, but this job has %zu (devices x engines); use "
                        "--save DIR for several, or narrow -d and --engines to one",
                        nres);
    return CP_OK;
}

/* The progress line of run and compare (and of compare --mpi's rank 0; the other ranks' stderr
 * is no terminal): "run: 3/8  cl:own on 0:0 pthread-...  timed 4/10". */
static void job_progress(const cp_job_event *ev, void *ctx)
{
    const struct job *j = ctx;
    char who[64], label[300] = "";
    if (j->o.mpi) /* only rank 0 (its data not given) shows it: progress_via_parent */
        snprintf(who, sizeof who, "%s --mpi, rank %s", j->cmd, j->o.given ? "> 0" : "0");
    else
        snprintf(who, sizeof who, "%s", j->cmd);
    if (ev->dev)
        cp_device_label(ev->dev, label, sizeof label);
    switch (ev->phase) {
    case CP_JOB_BUILD:
        progress_stage("%s: %zu/%zu  %s on %s  build", who, ev->index + 1, ev->count, ev->engine,
                       label);
        break;
    case CP_JOB_WARMUP:
    case CP_JOB_TIMED: {
        char of[32] = "";
        if (ev->runs > 0)
            snprintf(of, sizeof of, "/%ld", ev->runs);
        (ev->run == 0 ? progress_stage : progress_show)(
            "%s: %zu/%zu  %s on %s  %s %ld%s", who, ev->index + 1, ev->count, ev->engine, label,
            ev->phase == CP_JOB_WARMUP ? "warm-up" : "timed", ev->run + 1, of);
    } break;
    case CP_JOB_CHECKS:
        progress_stage("%s: %zu/%zu  %s on %s  round trip%s", who, ev->index + 1, ev->count,
                       ev->engine, label, j->o.invariance ? " and invariance" : "");
        break;
    case CP_JOB_REFERENCE:
        progress_stage("%s: the reference: %s", who, ev->engine);
        break;
    case CP_JOB_METRICS:
        progress_stage("%s: metrics against the reference", who);
        break;
    }
}

int job_execute(struct job *j)
{
    cp_job_set_progress(j->cj, job_progress, j);
    int st = cp_job_run(j->cj);
    progress_clear();
    if (st != CP_OK) {
        cli_fail(j->cmd, st, "%s", cp_err_msg());
        cli_print_build_log();
        return st;
    }
    /* Each result that failed, as the line that used to stop the run; the build log when one
     * of them was a build's. */
    bool log = false;
    for (size_t i = 0; i < cp_job_result_count(j->cj); ++i) {
        const cp_job_result *r = cp_job_result_at(j->cj, i);
        if (!r->error[0])
            continue;
        char label[300];
        cp_device_label(r->dev, label, sizeof label);
        cli_fail(j->cmd, CP_FAIL_RUNTIME, "%s on %s: %s", r->eng->name, label, r->error);
        log = log || strstr(r->error, "build log follows");
    }
    if (log)
        cli_print_build_log();
    return CP_OK;
}

int job_failed_status(const struct job *j, int st)
{
    size_t n = cp_job_failed_count(j->cj), total = cp_job_result_count(j->cj);
    if (n == 0)
        return st;
    char names[2048] = "";
    for (size_t i = 0, used = 0; i < total && used < sizeof names; ++i) {
        const cp_job_result *r = cp_job_result_at(j->cj, i);
        if (!r->error[0])
            continue;
        char label[300];
        cp_device_label(r->dev, label, sizeof label);
        char id[32] = ""; /* compare's rows have ids, run's do not */
        if (j->o.compare)
            snprintf(id, sizeof id, "R%zu ", i + 1);
        used += (size_t)snprintf(names + used, sizeof names - used, "%s%s%s %s", used ? ", " : "",
                                 id, label, r->eng->name);
    }
    /* Status 3 over 1 (--expect not met): a run with a failed result did not run whole. */
    return cli_fail(j->cmd, CP_FAIL_RUNTIME,
                    "%zu of %zu result%s failed (%s); every other result is kept%s", n, total,
                    total > 1 ? "s" : "", names,
                    j->o.json || j->o.save ? ", and the files say which failed" : "");
}

int job_probe_status(const struct job *j, int st)
{
    if (st != CP_OK)
        return st; /* the check that already failed, or the run's error, is the status */
    char names[2048] = "";
    size_t n = 0, total = cp_job_result_count(j->cj);
    for (size_t i = 0, used = 0; i < total; ++i) {
        const cp_job_result *r = cp_job_result_at(j->cj, i);
        if (r->error[0] || r->paths.exact != 0)
            continue;
        char label[300];
        cp_device_label(r->dev, label, sizeof label);
        ++n;
        if (used < sizeof names)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s%s %s", used ? ", " : "",
                                     label, r->eng->name);
    }
    if (n == 0)
        return st;
    return cli_fail(j->cmd, CP_FAIL_CHECK,
                    "%zu result%s failed %s probe on every kernel path (%s): %s numbers are not "
                    "promised; builds: says why",
                    n, n > 1 ? "s" : "", n > 1 ? "their" : "its", names, n > 1 ? "their" : "its");
}

void job_free(struct job *j)
{
    cp_job_destroy(j->cj);
    free(j->labels);
    free(j->engines);
    free(j->o.sels);
    memset(j, 0, sizeof *j);
}

void job_print_builds(FILE *out, const struct job *j)
{
    const char *lead = "builds:";
    for (size_t i = 0; i < cp_job_result_count(j->cj); ++i) {
        const cp_job_result *r = cp_job_result_at(j->cj, i);
        const char *state = cp_cache_state_name(r->build_cache);
        if (!state || r->error[0])
            continue;
        char label[300];
        cp_device_label(r->dev, label, sizeof label);
        char took[48];
        cp_fmt_secs(r->build_s, took, sizeof took);
        fprintf(out, "%-7s %s on %s: %s (cache %s%s%s)", lead, r->eng->name, label, took, state,
                r->build_cache_note[0] ? "; " : "", r->build_cache_note);
        lead = "";
        const cp_path_report *p = &r->paths;
        if (!p->used[0]) {
            fputc('\n', out);
            continue;
        }
        bool relaxed = !r->eng->twin; /* no bits to equal: its probe checks a bound */
        char probes[64];
        if (p->in_child) { /* the child's probe time is in the build time above, not known apart */
            snprintf(probes, sizeof probes, "built and probed in a setup child");
        } else {
            char took[48];
            cp_fmt_secs(p->probe_s, took, sizeof took);
            snprintf(probes, sizeof probes, "probes %s", took);
        }
        fprintf(out, "; kernel path %s, %s (%s)\n", p->used,
                p->probe_off    ? "NOT PROBED (CLPARITY_OWN_PROBE=off)"
                : p->exact == 1 ? "passed its probe"
                : p->exact == 0 ? (relaxed ? "FAILED its probe: its outputs are not to be trusted"
                                           : "NOT EXACT: no path passed its probe on this device")
                                : "within its probe's bound (fast math, never exact)",
                probes);
        for (int k = 0; k < p->n_rejected; ++k)
            fprintf(out, "%-7s   rejected %s: %s\n", "", p->rejected[k].path, p->rejected[k].why);
    }
    /* what each result ran: the kernel path, or the library routine (by batch) */
    lead = "ran:";
    for (size_t i = 0; i < cp_job_result_count(j->cj); ++i) {
        const cp_job_result *r = cp_job_result_at(j->cj, i);
        if (r->error[0] || !r->routine[0])
            continue;
        char label[300];
        cp_device_label(r->dev, label, sizeof label);
        fprintf(out, "%-7s %s on %s: %s\n", lead, r->eng->name, label, r->routine);
        lead = "";
    }
}
