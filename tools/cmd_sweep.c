/* clparity sweep: the model timed over a grid of one parameter (batch, width, depth, or a fixed
 * parameter budget spread over more or fewer layers), on every selected device x engine, with
 * the crossovers between them and a plot: the blog post's question "when is the GPU faster?".
 *
 * A point is a model shape; a result is one device x engine at one point. A result that does
 * not fit its device (or host memory, or a simulator's work limit) is a row marked refused,
 * and the sweep goes on. A speed run: no float64 reference is computed. */
#include "cli.h"
#include "cmds.h"
#include "opts.h"
#include "perf.h"
#include "xover.h"

#include "clparity/engine.h"
#include "clparity/model.h"
#include "clparity/peak.h"
#include "clparity/report.h"
#include "clparity/select.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum vary { VARY_BATCH, VARY_WIDTH, VARY_DEPTH, VARY_PARAMS, N_VARY };
static const char *const vary_names[N_VARY] = {"batch", "width", "depth", "params"};
/* What the crossover lines call the varied value. */
static const char *const vary_symbol[N_VARY] = {"batch", "d", "L", "d"};

#define DEFAULT_PARAMS 2147483648.0 /* 2^31, the blog post's budget */
#define QUICK_PARAMS 1048576.0      /* 2^20 */

struct sweep_opts {
    char **sels;
    size_t nsel;
    const char *engines;
    int vary;
    const char *grid;
    bool quick;
    long d, layers, batch;
    bool d_set, layers_set, batch_set;
    double params;
    bool params_set;
    uint64_t seed;
    double init_scale;
    long runs, warmup;
    bool runs_set, warmup_set;
    const char *json, *csv, *plot;
    bool allow_slow;
};

struct point {
    long d, layers, batch;
    long x; /* the varied value: batch, d, L or (params) d */
};

struct series {
    const cp_device *dev;
    size_t dev_index; /* into the device list, for its peak */
    const cp_engine_info *eng;
};

enum row_status { ROW_OK, ROW_REFUSED, ROW_ERROR };
static const char *const row_status_names[] = {"ok", "refused", "error"};

struct row {
    size_t point, series;
    enum row_status status;
    char reason[320]; /* refused: "<size> > <limit> (<which>)"; error: the message */
    char detail[512]; /* refused: the full message of the check */
    double macs;
    cp_stats wall, e2e;
    double kernel_median; /* < 0: n/a */
    double gflops;
    double pct_peak; /* < 0: n/a */
};

struct sweep {
    struct sweep_opts o;
    cp_devlist devs;
    bool *chosen;
    bool *use;
    cp_peak *peaks; /* per device */
    struct point *pts;
    size_t npts;
    struct series *ser;
    size_t nser;
    struct row *rows;
    size_t nrows;
    FILE *out;     /* the table */
    bool progress; /* a progress bar on stderr */
    bool interrupted;
    int status;              /* 3 when a result failed at run time */
    char build_options[512]; /* the last OpenCL engine's, for the provenance */
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
    stop_signal = sig;
}

/* ---- options ------------------------------------------------------------------------------ */

#define SO(field) OPT_AT(struct sweep_opts, field)
#define SO_SEEN(field) OPT_SEEN(struct sweep_opts, field)

static const struct opt_use sweep_uses[] = {
    {.id = OPT_VARY, SO(vary)},
    {.id = OPT_GRID, SO(grid)},
    {.id = OPT_QUICK, SO(quick), .def = "the small grids above"},
    {.id = OPT_PARAMS, SO_SEEN(params_set)},
    {.id = OPT_DMODEL, SO(d), SO_SEEN(d_set), .def = "128 unless varied, as above"},
    {.id = OPT_LAYERS, SO(layers), SO_SEEN(layers_set), .def = "128 unless\nvaried, as above"},
    {.id = OPT_BATCH, SO(batch), SO_SEEN(batch_set), .def = "1 unless varied"},
    {.id = OPT_SEED, SO(seed)},
    {.id = OPT_INIT_SCALE, SO(init_scale)},
    {.id = OPT_DEVICE},
    {.id = OPT_ENGINES,
     SO(engines),
     .def = "cl:own and host:openblas, the\n"
            "speed targets, where they apply; any engine of run may be listed"},
    {.id = OPT_RUNS, SO(runs), SO_SEEN(runs_set), .def = "10"},
    {.id = OPT_WARMUP, SO(warmup), SO_SEEN(warmup_set), .def = "2"},
    {.id = OPT_JSON,
     SO(json),
     .help = "write every result, the peaks, the crossovers and provenance as\n"
             "JSON (docs/sweep.schema.json; '-' for stdout, the table then goes\n"
             "to stderr)"},
    {.id = OPT_CSV,
     SO(csv),
     .help = "write one line per result as CSV ('-' for stdout); the first line\n"
             "is '# provenance: ' and the provenance as JSON, the second the header"},
    {.id = OPT_PLOT,
     SO(plot),
     .def = "median wall time against the varied parameter, log\n"
            "axes, one line per device x engine"},
    {.id = OPT_ALLOW_SLOW, SO(allow_slow)},
};

static void sweep_help(void)
{
    printf("usage: clparity sweep --vary batch|width|depth|params [OPTIONS]\n"
           "\n"
           "Times the model (L blocks y = x + relu(x·Wᵀ), W [d, d]) over a grid of one parameter\n"
           "on every selected device x engine, and prints one row per point and result: median,\n"
           "min and max wall time (first enqueue to clFinish, after --warmup runs), kernel time\n"
           "from profiling events (n/a where the engine hides them), end-to-end time (from the\n"
           "start of the input's upload to the end of the output's read), GFLOP/s = 2·B·d²·L /\n"
           "median wall, and %% of the device's measured peak FMA throughput (clparity peak;\n"
           "n/a on a simulator). Then a crossover summary on median wall time: for every two\n"
           "device x engine series, each point where the faster one changes, or \"never\". A\n"
           "speed run: no float64 reference is computed.\n"
           "\n"
           "Default grids (the blog post's):\n"
           "  batch   B = 1, 2, 4 ... 2048 at d = 128, L = 128\n"
           "  width   d = 64, 128 ... 4096 at L = 128, B = 1\n"
           "  depth   L = 128, 256 ... 3840 (steps of 128) at d = 128, B = 1\n"
           "  params  2^31 parameters, d = 128, 256 ... 4096 and L = 2^31/d² (131072 ... 128),\n"
           "          B = 1\n"
           "--quick grids (seconds to a minute on 2 cores; 3 runs after 1 warm-up unless given):\n"
           "  batch   B = 1, 4, 16, 64, 256 at d = 128, L = 16\n"
           "  width   d = 16, 32, 64, 128, 256 at L = 16, B = 1\n"
           "  depth   L = 8, 16, 32, 64, 128 at d = 128, B = 1\n"
           "  params  2^20 parameters, d = 16, 32, 64, 128, 256 (L = 4096 ... 16), B = 1\n"
           "\n");
    opts_help(stdout, sweep_uses, sizeof sweep_uses / sizeof *sweep_uses);
    printf(
        "\n"
        "A result beyond its device's memory (CL_DEVICE_MAX_MEM_ALLOC_SIZE or\n"
        "CL_DEVICE_GLOBAL_MEM_SIZE), beyond the host's MemAvailable, or over a simulator's work\n"
        "limit is a row 'refused: <size> > <limit> (<which>)'; the sweep goes on. A progress\n"
        "bar goes to stderr when it is a terminal. Ctrl-C (SIGINT) or SIGTERM stops after the\n"
        "current run: the finished rows are printed and written (--json marks the sweep\n"
        "interrupted, --csv and --plot hold what finished), no temporary file is left, and\n"
        "clparity then ends by that signal (status 130 for SIGINT in a shell).\n"
        "\n"
        "exit status: 0 success (refused rows included), 2 usage error (bad option or grid, a\n"
        "selector that matches nothing, --plot without gnuplot), 3 runtime error (a result\n"
        "whose OpenCL call failed: its row says error and the sweep goes on; I/O)\n");
}

static void opts_defaults(struct sweep_opts *o)
{
    memset(o, 0, sizeof *o);
    o->vary = -1;
    o->d = 128;
    o->layers = 128;
    o->batch = 1;
    o->params = DEFAULT_PARAMS;
    o->seed = 1337;
    o->init_scale = 1.0;
    o->runs = 10;
    o->warmup = 2;
}

/* What the table cannot store itself: -d's list, and the budget, a double. */
static int set_opt(void *ctx, enum opt_id id, const struct opt_value *v)
{
    struct sweep_opts *o = ctx;
    if (id == OPT_DEVICE)
        o->sels[o->nsel++] = (char *)v->s;
    else if (id == OPT_PARAMS)
        o->params = (double)v->l;
    return CP_OK;
}

/* Options, then the checks between them; CP_OK or an exit status after the message. */
static int parse_opts(int argc, char **argv, struct sweep_opts *o, bool *handled)
{
    const char *cmd = "sweep";
    *handled = false;
    o->sels = calloc((size_t)argc + 1, sizeof *o->sels);
    if (!o->sels)
        return cli_fail(cmd, CP_FAIL_RUNTIME, "out of memory");
    int st = opts_parse(cmd, argc, argv, sweep_uses, sizeof sweep_uses / sizeof *sweep_uses,
                        set_opt, NULL, o, sweep_help, handled);
    if (st != CP_OK || *handled)
        return st;
    if (o->vary < 0)
        return cli_fail(cmd, CP_FAIL_USAGE,
                        "--vary is required: one of batch, width, depth, params");
    /* The varied parameter comes from the grid, never from its fixed option. */
    const char *clash = NULL;
    if (o->vary == VARY_BATCH && o->batch_set)
        clash = "--batch";
    else if ((o->vary == VARY_WIDTH || o->vary == VARY_PARAMS) && o->d_set)
        clash = "--d-model";
    else if ((o->vary == VARY_DEPTH || o->vary == VARY_PARAMS) && o->layers_set)
        clash = "--layers";
    if (clash)
        return cli_fail(cmd, CP_FAIL_USAGE,
                        "%s: --vary %s sets it from the grid (use --grid to choose its values)",
                        clash, vary_names[o->vary]);
    if (o->params_set && o->vary != VARY_PARAMS)
        return cli_fail(cmd, CP_FAIL_USAGE, "--params: only with --vary params");
    if (o->quick) {
        if (!o->runs_set)
            o->runs = 3;
        if (!o->warmup_set)
            o->warmup = 1;
        if (!o->layers_set && (o->vary == VARY_BATCH || o->vary == VARY_WIDTH))
            o->layers = 16;
        if (!o->params_set)
            o->params = QUICK_PARAMS;
    }
    if (o->plot && !cli_ends_with(o->plot, ".png") && !cli_ends_with(o->plot, ".svg"))
        return cli_fail(cmd, CP_FAIL_USAGE, "--plot: '%s' must end in .png or .svg", o->plot);
    if (o->plot && !cli_gnuplot_in_path())
        return cli_fail(cmd, CP_FAIL_USAGE,
                        "--plot: gnuplot is not in PATH (install gnuplot-nox, or leave out "
                        "--plot); nothing was run");
    if (o->json && o->csv && strcmp(o->json, "-") == 0 && strcmp(o->csv, "-") == 0)
        return cli_fail(cmd, CP_FAIL_USAGE, "--json - and --csv -: only one may take stdout");
    if (o->json && cli_check_output_file(cmd, "--json", o->json) != CP_OK)
        return CP_FAIL_RUNTIME;
    if (o->csv && cli_check_output_file(cmd, "--csv", o->csv) != CP_OK)
        return CP_FAIL_RUNTIME;
    if (o->plot && cli_check_output_file(cmd, "--plot", o->plot) != CP_OK)
        return CP_FAIL_RUNTIME;
    return CP_OK;
}

/* ---- the grid ----------------------------------------------------------------------------- */

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return x < y ? -1 : x > y;
}

static int grid_values(struct sweep *s, long **vals, size_t *n)
{
    const struct sweep_opts *o = &s->o;
    *vals = NULL;
    *n = 0;
    static const long max_of[N_VARY] = {16777216, 65536, 16777216, 65536};
    if (o->grid) {
        size_t cap = 1;
        for (const char *p = o->grid; *p; ++p)
            cap += *p == ',';
        long *v = calloc(cap, sizeof *v);
        char *copy = strdup(o->grid);
        if (!v || !copy) {
            free(v);
            free(copy);
            return cli_fail("sweep", CP_FAIL_RUNTIME, "out of memory");
        }
        size_t k = 0;
        int st = CP_OK;
        char *p = copy;
        for (size_t i = 0; i < cap && st == CP_OK; ++i) {
            char *comma = strchr(p, ',');
            if (comma)
                *comma = '\0';
            if (!p[0])
                st = cli_fail("sweep", CP_FAIL_USAGE, "--grid: '%s' has an empty value", o->grid);
            else
                st = cli_parse_long("sweep", "--grid", p, 1, max_of[o->vary], &v[k++]);
            p = comma ? comma + 1 : p + strlen(p);
        }
        free(copy);
        if (st != CP_OK) {
            free(v);
            return st;
        }
        qsort(v, k, sizeof *v, cmp_long);
        size_t u = 0;
        for (size_t i = 0; i < k; ++i)
            if (u == 0 || v[u - 1] != v[i])
                v[u++] = v[i];
        *vals = v;
        *n = u;
        return CP_OK;
    }
    long *v = calloc(32, sizeof *v);
    if (!v)
        return cli_fail("sweep", CP_FAIL_RUNTIME, "out of memory");
    size_t k = 0;
    switch (o->vary) {
    case VARY_BATCH:
        for (long b = 1; b <= (o->quick ? 256 : 2048); b *= o->quick ? 4 : 2)
            v[k++] = b;
        break;
    case VARY_WIDTH:
        for (long d = o->quick ? 16 : 64; d <= (o->quick ? 256 : 4096); d *= 2)
            v[k++] = d;
        break;
    case VARY_DEPTH:
        if (o->quick)
            for (long l = 8; l <= 128; l *= 2)
                v[k++] = l;
        else
            for (long l = 128; l <= 3840; l += 128)
                v[k++] = l;
        break;
    case VARY_PARAMS:
        for (long d = o->quick ? 16 : 128; d <= (o->quick ? 256 : 4096); d *= 2)
            v[k++] = d;
        break;
    }
    *vals = v;
    *n = k;
    return CP_OK;
}

static int make_points(struct sweep *s)
{
    long *vals;
    size_t n;
    int st = grid_values(s, &vals, &n);
    if (st != CP_OK)
        return st;
    s->pts = calloc(n ? n : 1, sizeof *s->pts);
    if (!s->pts) {
        free(vals);
        return cli_fail("sweep", CP_FAIL_RUNTIME, "out of memory");
    }
    const struct sweep_opts *o = &s->o;
    for (size_t i = 0; i < n && st == CP_OK; ++i) {
        struct point *p = &s->pts[i];
        p->d = o->d;
        p->layers = o->layers;
        p->batch = o->batch;
        p->x = vals[i];
        switch (o->vary) {
        case VARY_BATCH:
            p->batch = vals[i];
            break;
        case VARY_WIDTH:
            p->d = vals[i];
            break;
        case VARY_DEPTH:
            p->layers = vals[i];
            break;
        case VARY_PARAMS: {
            p->d = vals[i];
            double l = floor(o->params / ((double)p->d * (double)p->d));
            if (l < 1.0)
                st = cli_fail("sweep", CP_FAIL_USAGE,
                              "--grid: d = %ld leaves no whole layer of the %.0f-parameter "
                              "budget (d² = %.0f)",
                              p->d, o->params, (double)p->d * (double)p->d);
            else if (l > 16777216.0)
                st = cli_fail("sweep", CP_FAIL_USAGE,
                              "--grid: d = %ld needs %.0f layers of the %.0f-parameter budget, "
                              "over 16777216",
                              p->d, l, o->params);
            p->layers = (long)l;
            break;
        }
        }
    }
    free(vals);
    s->npts = n;
    return st;
}

/* The engines: --engines, or cl:own and host:openblas where they apply. */
static int choose_engines(struct sweep *s)
{
    s->use = calloc(cp_engine_count(), sizeof *s->use);
    if (!s->use)
        return cli_fail("sweep", CP_FAIL_RUNTIME, "out of memory");
    if (s->o.engines)
        return cli_select_engines("sweep", s->o.engines, &s->devs, s->chosen, s->use);
    bool any = false;
    for (size_t e = 0; e < cp_engine_count(); ++e) {
        const cp_engine_info *info = cp_engine_at(e);
        if (strcmp(info->name, "cl:own") != 0 && strcmp(info->name, "host:openblas") != 0)
            continue;
        for (size_t i = 0; i < s->devs.n; ++i)
            if (s->chosen[i] && s->devs.v[i].kind == info->kind)
                s->use[e] = any = true;
    }
    if (!any)
        return cli_fail("sweep", CP_FAIL_USAGE, "no engine applies to the selected devices");
    return CP_OK;
}

static int make_series(struct sweep *s)
{
    s->ser = calloc(s->devs.n * cp_engine_count() + 1, sizeof *s->ser);
    if (!s->ser)
        return cli_fail("sweep", CP_FAIL_RUNTIME, "out of memory");
    for (size_t i = 0; i < s->devs.n; ++i) {
        if (!s->chosen[i])
            continue;
        for (size_t e = 0; e < cp_engine_count(); ++e) {
            const cp_engine_info *info = cp_engine_at(e);
            if (s->use[e] && info->kind == s->devs.v[i].kind)
                s->ser[s->nser++] = (struct series){&s->devs.v[i], i, info};
        }
    }
    s->rows = calloc(s->npts * s->nser + 1, sizeof *s->rows);
    if (!s->rows)
        return cli_fail("sweep", CP_FAIL_RUNTIME, "out of memory");
    return CP_OK;
}

/* ---- measuring ---------------------------------------------------------------------------- */

/* Whether one result of a point can run: the device's memory (cp_engine_check_memory, with
 * the sizes from cp_engine_footprint for the short reason), the host's MemAvailable for the
 * model that every engine reads from, and a simulator's work limit. */
static bool refuse(struct sweep *s, const cp_model *m, const struct point *p,
                   const struct series *se, struct row *r)
{
    unsigned long long total, largest;
    cp_engine_footprint(se->eng, m, (int)p->batch, &total, &largest);
    char need[32], have[32];
    const cp_device *dev = se->dev;
    if (cp_engine_check_memory(se->eng, dev, m, (int)p->batch) != CP_OK) {
        snprintf(r->detail, sizeof r->detail, "%s", cp_err_msg());
        bool alloc = largest > dev->max_alloc;
        cp_fmt_bytes(alloc ? largest : total, true, need, sizeof need);
        cp_fmt_bytes(alloc ? dev->max_alloc : dev->global_mem, true, have, sizeof have);
        snprintf(r->reason, sizeof r->reason, "%s > %s (%s)", need, have,
                 alloc ? "CL_DEVICE_MAX_MEM_ALLOC_SIZE" : "CL_DEVICE_GLOBAL_MEM_SIZE");
        return true;
    }
    /* The model, the input and the output on the host, and what the engine holds there
     * besides (a CPU device's buffers are host memory too). */
    unsigned long long b = (unsigned long long)p->batch;
    unsigned long long host_need = (unsigned long long)m->n_params * 4ULL +
                                   b * (unsigned long long)m->in_width * 4ULL +
                                   b * (unsigned long long)m->out_width * 8ULL +
                                   cp_engine_host_footprint(se->eng, dev, m, (int)p->batch);
    unsigned long long avail = cp_host_mem_available();
    if (avail && host_need > avail) {
        cp_fmt_bytes(host_need, true, need, sizeof need);
        cp_fmt_bytes(avail, true, have, sizeof have);
        snprintf(r->reason, sizeof r->reason, "%s > %s (host MemAvailable)", need, have);
        snprintf(r->detail, sizeof r->detail,
                 "model too large for host memory: needs %s (%llu bytes) > MemAvailable %s "
                 "(%llu bytes)",
                 need, host_need, have, avail);
        return true;
    }
    double work = r->macs * (double)(s->o.runs + s->o.warmup);
    if (dev->kind == CP_DEV_OPENCL && dev->simulator && !s->o.allow_slow &&
        work > CP_SIMULATOR_MAC_LIMIT) {
        snprintf(r->reason, sizeof r->reason, "%.3g multiply-adds > %.3g (simulator limit)", work,
                 CP_SIMULATOR_MAC_LIMIT);
        snprintf(r->detail, sizeof r->detail,
                 "%s is a simulator: %.3g multiply-adds (%.3g per forward x %ld runs) over its "
                 "limit of %.3g; pass --allow-slow",
                 dev->name, work, r->macs, s->o.runs + s->o.warmup, CP_SIMULATOR_MAC_LIMIT);
        return true;
    }
    return false;
}

static void progress(const struct sweep *s, size_t done, const struct point *p,
                     const struct series *se)
{
    if (!s->progress)
        return;
    size_t total = s->npts * s->nser, width = 24;
    size_t filled = total ? done * width / total : width;
    char bar[32], label[300];
    for (size_t i = 0; i < width; ++i)
        bar[i] = i < filled ? '#' : '.';
    bar[width] = '\0';
    cp_device_label(se->dev, label, sizeof label);
    fprintf(stderr, "\r\033[K[%s] %zu/%zu  d=%ld L=%ld B=%ld  %s on %.40s", bar, done, total, p->d,
            p->layers, p->batch, se->eng->name, label);
    fflush(stderr);
}

static void progress_clear(const struct sweep *s)
{
    if (s->progress) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
    }
}

/* Runs one result: warm-up and timed runs. A failure is the row's, not the sweep's. False
 * when a signal stopped it before its last run: it is then no row at all. */
static bool run_row(struct sweep *s, const cp_model *m, const float *x, const struct point *p,
                    const struct series *se, struct row *r)
{
    size_t n = (size_t)p->batch * (size_t)m->out_width;
    size_t runs = (size_t)s->o.runs;
    void *y = malloc(n * cp_dtype_size(se->eng->dtype));
    double *t = calloc(3 * runs, sizeof *t);
    cp_engine *e = NULL;
    bool finished = true;
    if (!y || !t) {
        r->status = ROW_ERROR;
        snprintf(r->reason, sizeof r->reason, "out of memory for the output");
        goto out;
    }
    double *wall = t, *e2e = t + runs, *kern = t + 2 * runs;
    bool kernel_known = true;
    int st = cp_engine_create(se->eng, se->dev, m, (int)p->batch, &e);
    if (st == CP_OK && cp_engine_build_options(e)[0])
        snprintf(s->build_options, sizeof s->build_options, "%s", cp_engine_build_options(e));
    for (long i = 0; st == CP_OK && i < s->o.warmup + s->o.runs && !stop_signal; ++i) {
        cp_timing tm;
        st = cp_engine_forward(e, x, (int)p->batch, y, &tm);
        if (st != CP_OK || i < s->o.warmup)
            continue;
        size_t k = (size_t)(i - s->o.warmup);
        wall[k] = tm.wall_s;
        /* The three intervals are back to back: from the input's upload to the output's
         * read, without the profiling queries that follow them. */
        e2e[k] = tm.h2d_s + tm.wall_s + tm.d2h_s;
        kern[k] = tm.kernel_s;
        if (tm.kernel_s < 0.0)
            kernel_known = false;
    }
    if (st != CP_OK) {
        r->status = ROW_ERROR;
        snprintf(r->reason, sizeof r->reason, "%s", cp_err_msg());
        s->status = CP_FAIL_RUNTIME;
        goto out;
    }
    if (stop_signal) {
        finished = false; /* unfinished: not a row */
        goto out;
    }
    r->status = ROW_OK;
    r->wall = cp_stats_of(wall, runs);
    r->e2e = cp_stats_of(e2e, runs);
    r->kernel_median = kernel_known ? cp_stats_of(kern, runs).median : -1.0;
    r->gflops = r->wall.median > 0.0 ? 2.0 * r->macs / r->wall.median / 1e9 : -1.0;
    const cp_peak *pk = &s->peaks[se->dev_index];
    r->pct_peak = pk->available && pk->fma_gflops > 0.0 && r->gflops >= 0.0
                      ? 100.0 * r->gflops / pk->fma_gflops
                      : -1.0;
out:
    cp_engine_destroy(e);
    free(y);
    free(t);
    return finished;
}

/* ---- the table ---------------------------------------------------------------------------- */

static void ms_or_na(char *buf, size_t len, double s)
{
    if (s < 0.0 || !isfinite(s))
        snprintf(buf, len, "n/a");
    else if (1e3 * s < 0.1) /* three significant digits for sub-0.1 ms host times */
        snprintf(buf, len, "%.3g", 1e3 * s);
    else
        snprintf(buf, len, "%.3f", 1e3 * s);
}

static void print_header(FILE *out)
{
    fprintf(out, "%5s %7s %5s  %-32s %-14s %10s %10s %10s %10s %10s %9s %7s\n", "d", "L", "B",
            "device", "engine", "median ms", "min ms", "max ms", "kernel ms", "e2e ms", "GFLOP/s",
            "% peak");
}

static void print_row(const struct sweep *s, const struct row *r)
{
    const struct point *p = &s->pts[r->point];
    const struct series *se = &s->ser[r->series];
    char label[300];
    cp_device_label(se->dev, label, sizeof label);
    fprintf(s->out, "%5ld %7ld %5ld  %-32.32s %-14s ", p->d, p->layers, p->batch, label,
            se->eng->name);
    if (r->status != ROW_OK) {
        fprintf(s->out, "%s: %s\n", row_status_names[r->status], r->reason);
        return;
    }
    char med[32], mn[32], mx[32], k[32], e2e[32], pct[32];
    ms_or_na(med, sizeof med, r->wall.median);
    ms_or_na(mn, sizeof mn, r->wall.min);
    ms_or_na(mx, sizeof mx, r->wall.max);
    ms_or_na(k, sizeof k, r->kernel_median);
    ms_or_na(e2e, sizeof e2e, r->e2e.median);
    if (r->pct_peak >= 0.0)
        snprintf(pct, sizeof pct, "%.1f%%", r->pct_peak);
    else
        snprintf(pct, sizeof pct, "n/a");
    fprintf(s->out, "%10s %10s %10s %10s %10s %9.4g %7s\n", med, mn, mx, k, e2e, r->gflops, pct);
}

/* ---- crossovers --------------------------------------------------------------------------- */

/* The points where the faster of series a and b (median wall time) changes, in grid order
 * (xover_find); returns the number of common points. */
static size_t crossings_of(const struct sweep *s, size_t a, size_t b, struct xover *out, size_t *n,
                           int *first)
{
    double *t = malloc((2 * s->npts + 1) * sizeof *t);
    long *x = malloc((s->npts + 1) * sizeof *x);
    if (!t || !x) {
        free(t);
        free(x);
        *n = 0;
        *first = -1;
        return 0;
    }
    double *ta = t, *tb = t + s->npts;
    for (size_t p = 0; p < s->npts; ++p) {
        ta[p] = tb[p] = -1.0;
        x[p] = s->pts[p].x;
    }
    for (size_t i = 0; i < s->nrows; ++i) {
        const struct row *r = &s->rows[i];
        if (r->status != ROW_OK)
            continue;
        if (r->series == a)
            ta[r->point] = r->wall.median;
        else if (r->series == b)
            tb[r->point] = r->wall.median;
    }
    size_t common = xover_find(ta, tb, x, s->npts, out, n, first);
    free(t);
    free(x);
    return common;
}

static void series_name(const struct sweep *s, size_t i, char *buf, size_t len)
{
    char label[300];
    cp_device_label(s->ser[i].dev, label, sizeof label);
    snprintf(buf, len, "%s on %s", s->ser[i].eng->name, label);
}

/* "on 0:0 NVIDIA H100, cl:own beats host:openblas on host from batch ≥ 64". */
static void crossing_text(const struct sweep *s, size_t a, size_t b, const struct xover *c,
                          char *buf, size_t len)
{
    size_t w = c->faster == 0 ? a : b, l = c->faster == 0 ? b : a;
    char wl[300], ll[300];
    cp_device_label(s->ser[w].dev, wl, sizeof wl);
    cp_device_label(s->ser[l].dev, ll, sizeof ll);
    snprintf(buf, len, "on %s, %s beats %s on %s from %s ≥ %ld", wl, s->ser[w].eng->name,
             s->ser[l].eng->name, ll, vary_symbol[s->o.vary], c->at);
}

static void summary_text(const struct sweep *s, size_t a, size_t b, size_t common, int first,
                         size_t n, char *buf, size_t len)
{
    if (n > 0) {
        snprintf(buf, len, "%zu crossing%s", n, n == 1 ? "" : "s");
        return;
    }
    char name[400];
    if (common == 0) {
        snprintf(buf, len, "never (no point where both ran)");
        return;
    }
    if (first < 0) {
        snprintf(buf, len, "never (equal times at every common point)");
        return;
    }
    series_name(s, first == 0 ? a : b, name, sizeof name);
    snprintf(buf, len, "never (%s is faster at every one of %zu common point%s)", name, common,
             common == 1 ? "" : "s");
}

static void print_crossovers(const struct sweep *s)
{
    fprintf(s->out, "\ncrossovers (median wall time, %s):\n", vary_symbol[s->o.vary]);
    if (s->nser < 2) {
        fprintf(s->out, "  none to show: only one device x engine\n");
        return;
    }
    struct xover *cx = calloc(s->npts + 1, sizeof *cx);
    if (!cx)
        return;
    for (size_t a = 0; a < s->nser; ++a)
        for (size_t b = a + 1; b < s->nser; ++b) {
            size_t n;
            int first;
            size_t common = crossings_of(s, a, b, cx, &n, &first);
            char na[400], nb[400], text[1024];
            series_name(s, a, na, sizeof na);
            series_name(s, b, nb, sizeof nb);
            if (n == 0) {
                summary_text(s, a, b, common, first, n, text, sizeof text);
                fprintf(s->out, "  %s vs %s: %s\n", na, nb, text);
                continue;
            }
            fprintf(s->out, "  %s vs %s:\n", na, nb);
            for (size_t i = 0; i < n; ++i) {
                crossing_text(s, a, b, &cx[i], text, sizeof text);
                fprintf(s->out, "    %s (after %s = %ld)\n", text, vary_symbol[s->o.vary],
                        cx[i].after);
            }
        }
    free(cx);
}

/* ---- files -------------------------------------------------------------------------------- */

/* As in run: the options of the last OpenCL program built (cl:own picks its kernel and -D
 * sizes per shape, so they can differ between points). */
static const char *build_options_of(const struct sweep *s)
{
    return s->build_options[0] ? s->build_options : "";
}

static cJSON *row_json(const struct sweep *s, const struct row *r)
{
    const struct point *p = &s->pts[r->point];
    const struct series *se = &s->ser[r->series];
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON *pt = cJSON_AddObjectToObject(o, "point");
    if (pt) {
        cJSON_AddNumberToObject(pt, "index", (double)r->point);
        cJSON_AddNumberToObject(pt, "d", (double)p->d);
        cJSON_AddNumberToObject(pt, "layers", (double)p->layers);
        cJSON_AddNumberToObject(pt, "batch", (double)p->batch);
        cJSON_AddNumberToObject(pt, "params", (double)p->d * (double)p->d * (double)p->layers);
        cJSON_AddNumberToObject(pt, "macs", r->macs);
    }
    char buf[300];
    cp_device_label(se->dev, buf, sizeof buf);
    cJSON_AddStringToObject(o, "device", buf);
    cp_device_tag(se->dev, buf, sizeof buf);
    cJSON_AddStringToObject(o, "device_id", buf);
    cJSON_AddStringToObject(o, "engine", se->eng->name);
    cJSON_AddStringToObject(o, "status", row_status_names[r->status]);
    if (r->status == ROW_OK) {
        cJSON_AddNullToObject(o, "reason");
        cJSON_AddNullToObject(o, "detail");
    } else {
        cJSON_AddStringToObject(o, "reason", r->reason);
        if (r->detail[0])
            cJSON_AddStringToObject(o, "detail", r->detail);
        else
            cJSON_AddNullToObject(o, "detail");
    }
    if (r->status != ROW_OK) {
        cJSON_AddNullToObject(o, "timing");
        cJSON_AddNullToObject(o, "pct_peak");
        return o;
    }
    cJSON *t = cJSON_AddObjectToObject(o, "timing");
    if (t) {
        cJSON_AddNumberToObject(t, "wall_median_s", r->wall.median);
        cJSON_AddNumberToObject(t, "wall_min_s", r->wall.min);
        cJSON_AddNumberToObject(t, "wall_max_s", r->wall.max);
        cp_json_add_num_or_null(t, "kernel_median_s", r->kernel_median);
        cJSON_AddNumberToObject(t, "e2e_median_s", r->e2e.median);
        cJSON_AddNumberToObject(t, "e2e_min_s", r->e2e.min);
        cJSON_AddNumberToObject(t, "e2e_max_s", r->e2e.max);
        cp_json_add_num_or_null(t, "gflops", r->gflops);
        cJSON_AddNumberToObject(t, "runs", (double)s->o.runs);
        cJSON_AddNumberToObject(t, "warmup", (double)s->o.warmup);
    }
    cp_json_add_num_or_null(o, "pct_peak", r->pct_peak);
    return o;
}

static cJSON *series_ref(const struct sweep *s, size_t i)
{
    cJSON *o = cJSON_CreateObject();
    char buf[300];
    if (!o)
        return NULL;
    cp_device_label(s->ser[i].dev, buf, sizeof buf);
    cJSON_AddStringToObject(o, "device", buf);
    cJSON_AddStringToObject(o, "engine", s->ser[i].eng->name);
    return o;
}

static cJSON *crossovers_json(const struct sweep *s)
{
    cJSON *arr = cJSON_CreateArray();
    struct xover *cx = calloc(s->npts + 1, sizeof *cx);
    if (!arr || !cx) {
        free(cx);
        return arr;
    }
    for (size_t a = 0; a < s->nser; ++a)
        for (size_t b = a + 1; b < s->nser; ++b) {
            size_t n;
            int first;
            size_t common = crossings_of(s, a, b, cx, &n, &first);
            cJSON *o = cJSON_CreateObject();
            if (!o)
                break;
            cJSON_AddItemToObject(o, "a", series_ref(s, a));
            cJSON_AddItemToObject(o, "b", series_ref(s, b));
            cJSON_AddNumberToObject(o, "common_points", (double)common);
            if (first < 0)
                cJSON_AddNullToObject(o, "faster_first");
            else
                cJSON_AddStringToObject(o, "faster_first", first == 0 ? "a" : "b");
            cJSON *list = cJSON_AddArrayToObject(o, "crossings");
            for (size_t i = 0; list && i < n; ++i) {
                cJSON *c = cJSON_CreateObject();
                if (!c)
                    break;
                char text[1024];
                crossing_text(s, a, b, &cx[i], text, sizeof text);
                cJSON_AddNumberToObject(c, "at", (double)cx[i].at);
                cJSON_AddNumberToObject(c, "after", (double)cx[i].after);
                cJSON_AddStringToObject(c, "faster", cx[i].faster == 0 ? "a" : "b");
                cJSON_AddStringToObject(c, "text", text);
                cJSON_AddItemToArray(list, c);
            }
            char text[1024];
            summary_text(s, a, b, common, first, n, text, sizeof text);
            cJSON_AddStringToObject(o, "summary", text);
            cJSON_AddItemToArray(arr, o);
        }
    free(cx);
    return arr;
}

static int write_json(const struct sweep *s)
{
    const struct sweep_opts *o = &s->o;
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return cli_fail("sweep", CP_FAIL_RUNTIME, "out of memory building JSON");
    cJSON_AddNumberToObject(root, "schema", 1);
    cJSON_AddStringToObject(root, "command", "sweep");
    cJSON_AddItemToObject(root, "provenance", cp_provenance_json(build_options_of(s)));
    cJSON *sw = cJSON_AddObjectToObject(root, "sweep");
    if (sw) {
        cJSON_AddStringToObject(sw, "vary", vary_names[o->vary]);
        cJSON *grid = cJSON_AddArrayToObject(sw, "grid");
        for (size_t i = 0; grid && i < s->npts; ++i)
            cJSON_AddItemToArray(grid, cJSON_CreateNumber((double)s->pts[i].x));
        cJSON *fx = cJSON_AddObjectToObject(sw, "fixed");
        if (fx) {
            bool vd = o->vary == VARY_WIDTH || o->vary == VARY_PARAMS;
            bool vl = o->vary == VARY_DEPTH || o->vary == VARY_PARAMS;
            cp_json_add_num_or_null(fx, "d", vd ? -1.0 : (double)o->d);
            cp_json_add_num_or_null(fx, "layers", vl ? -1.0 : (double)o->layers);
            cp_json_add_num_or_null(fx, "batch", o->vary == VARY_BATCH ? -1.0 : (double)o->batch);
            cp_json_add_num_or_null(fx, "params", o->vary == VARY_PARAMS ? o->params : -1.0);
        }
        char seed[32];
        snprintf(seed, sizeof seed, "%llu", (unsigned long long)o->seed);
        cJSON_AddStringToObject(sw, "seed", seed);
        cJSON_AddNumberToObject(sw, "init_scale", o->init_scale);
        cJSON_AddNumberToObject(sw, "runs", (double)o->runs);
        cJSON_AddNumberToObject(sw, "warmup", (double)o->warmup);
        cJSON_AddBoolToObject(sw, "quick", o->quick);
        cJSON_AddNullToObject(sw, "reference"); /* a speed run: no host:f64 */
    }
    cJSON_AddBoolToObject(root, "interrupted", s->interrupted);
    cJSON *devs = cJSON_AddArrayToObject(root, "devices");
    for (size_t i = 0; devs && i < s->devs.n; ++i) {
        bool used = false;
        for (size_t k = 0; k < s->nser; ++k)
            used = used || s->ser[k].dev_index == i;
        if (!used)
            continue;
        cJSON *d = cJSON_CreateObject();
        if (!d)
            break;
        cJSON_AddItemToObject(d, "device", perf_device_json(&s->devs.v[i]));
        cJSON_AddItemToObject(d, "peak", perf_peak_json(&s->peaks[i]));
        cJSON_AddItemToArray(devs, d);
    }
    cJSON *res = cJSON_AddArrayToObject(root, "results");
    for (size_t i = 0; res && i < s->nrows; ++i)
        cJSON_AddItemToArray(res, row_json(s, &s->rows[i]));
    cJSON_AddItemToObject(root, "crossovers", crossovers_json(s));
    int st = cp_json_write(o->json, root);
    cJSON_Delete(root);
    if (st != CP_OK)
        return cli_fail("sweep", st, "--json: %s", cp_err_msg());
    return CP_OK;
}

/* A growing string for the CSV. */
struct text {
    char *p;
    size_t n, cap;
    bool oom;
};

static void text_add(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void text_add(struct text *t, const char *fmt, ...)
{
    if (t->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(t->p ? t->p + t->n : NULL, t->p ? t->cap - t->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            t->oom = true;
            return;
        }
        if (t->p && t->n + (size_t)k < t->cap) {
            t->n += (size_t)k;
            return;
        }
        size_t cap = (t->cap ? t->cap * 2 : 4096) + (size_t)k;
        char *np = realloc(t->p, cap);
        if (!np) {
            t->oom = true;
            return;
        }
        t->p = np;
        t->cap = cap;
    }
}

/* RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled. */
static void csv_field(struct text *t, const char *v, bool last)
{
    if (strpbrk(v, ",\"\r\n")) {
        text_add(t, "\"");
        for (const char *c = v; *c; ++c)
            text_add(t, *c == '"' ? "\"\"" : "%c", *c);
        text_add(t, "\"");
    } else {
        text_add(t, "%s", v);
    }
    text_add(t, last ? "\n" : ",");
}

static void csv_num(struct text *t, double v, bool last)
{
    char buf[64] = "";
    if (v >= 0.0 && isfinite(v))
        snprintf(buf, sizeof buf, "%.9g", v);
    csv_field(t, buf, last);
}

static const char csv_header[] =
    "vary,d,layers,batch,params,macs,device,device_id,engine,status,reason,runs,warmup,"
    "wall_median_s,wall_min_s,wall_max_s,kernel_median_s,e2e_median_s,e2e_min_s,e2e_max_s,"
    "gflops,peak_gflops,pct_peak\n";

static int write_csv(const struct sweep *s)
{
    struct text t = {0};
    cJSON *prov = cp_provenance_json(build_options_of(s));
    cJSON_AddBoolToObject(prov, "interrupted", s->interrupted);
    char *pj = prov ? cJSON_PrintUnformatted(prov) : NULL;
    cJSON_Delete(prov);
    if (!pj)
        return cli_fail("sweep", CP_FAIL_RUNTIME, "out of memory building CSV");
    text_add(&t, "# provenance: %s\n", pj);
    cJSON_free(pj);
    text_add(&t, "%s", csv_header);
    for (size_t i = 0; i < s->nrows; ++i) {
        const struct row *r = &s->rows[i];
        const struct point *p = &s->pts[r->point];
        const struct series *se = &s->ser[r->series];
        const cp_peak *pk = &s->peaks[se->dev_index];
        bool ok = r->status == ROW_OK;
        char label[300], tag[32];
        cp_device_label(se->dev, label, sizeof label);
        cp_device_tag(se->dev, tag, sizeof tag);
        csv_field(&t, vary_names[s->o.vary], false);
        csv_num(&t, (double)p->d, false);
        csv_num(&t, (double)p->layers, false);
        csv_num(&t, (double)p->batch, false);
        csv_num(&t, (double)p->d * (double)p->d * (double)p->layers, false);
        csv_num(&t, r->macs, false);
        csv_field(&t, label, false);
        csv_field(&t, tag, false);
        csv_field(&t, se->eng->name, false);
        csv_field(&t, row_status_names[r->status], false);
        csv_field(&t, ok ? "" : r->reason, false);
        csv_num(&t, (double)s->o.runs, false);
        csv_num(&t, (double)s->o.warmup, false);
        csv_num(&t, ok ? r->wall.median : -1.0, false);
        csv_num(&t, ok ? r->wall.min : -1.0, false);
        csv_num(&t, ok ? r->wall.max : -1.0, false);
        csv_num(&t, ok ? r->kernel_median : -1.0, false);
        csv_num(&t, ok ? r->e2e.median : -1.0, false);
        csv_num(&t, ok ? r->e2e.min : -1.0, false);
        csv_num(&t, ok ? r->e2e.max : -1.0, false);
        csv_num(&t, ok ? r->gflops : -1.0, false);
        csv_num(&t, pk->available ? pk->fma_gflops : -1.0, false);
        csv_num(&t, ok ? r->pct_peak : -1.0, true);
    }
    int st = CP_OK;
    if (t.oom)
        st = cli_fail("sweep", CP_FAIL_RUNTIME, "out of memory building CSV");
    else if (cp_file_write_atomic(s->o.csv, t.p, t.n) != CP_OK)
        st = cli_fail("sweep", CP_FAIL_RUNTIME, "--csv: %s", cp_err_msg());
    free(t.p);
    return st;
}

/* The blog post's plot: median wall time against the varied parameter, log axes, one line
 * per device x engine. gnuplot reads the script on its stdin and writes a temporary file,
 * renamed when it succeeded. */
static int write_plot(const struct sweep *s)
{
    const struct sweep_opts *o = &s->o;
    struct cli_plot pl;
    int st = cli_plot_open("sweep", o->plot, &pl);
    if (st != CP_OK)
        return st;
    FILE *gp = pl.gp;
    char title[256];
    switch (o->vary) {
    case VARY_BATCH:
        snprintf(title, sizeof title, "time against batch (d = %ld, L = %ld)", o->d, o->layers);
        break;
    case VARY_WIDTH:
        snprintf(title, sizeof title, "time against width d (L = %ld, B = %ld)", o->layers,
                 o->batch);
        break;
    case VARY_DEPTH:
        snprintf(title, sizeof title, "time against depth L (d = %ld, B = %ld)", o->d, o->batch);
        break;
    default:
        snprintf(title, sizeof title,
                 "time against width d at %.0f parameters (L = params/d², B = %ld)", o->params,
                 o->batch);
        break;
    }
    fprintf(gp, "\nset title ");
    cli_gp_quoted(gp, title);
    fprintf(gp, "\nset xlabel ");
    cli_gp_quoted(gp, o->vary == VARY_BATCH   ? "batch size B"
                      : o->vary == VARY_DEPTH ? "layers L"
                                              : "width d");
    fprintf(gp, "\nset ylabel \"median wall time (ms)\"\n"
                "set logscale xy\nset grid xtics ytics mxtics mytics\n"
                "set key below\nset pointsize 1\n");
    /* One data block per series with at least one finished point. */
    size_t nplot = 0;
    for (size_t k = 0; k < s->nser; ++k) {
        bool any = false;
        for (size_t i = 0; i < s->nrows; ++i)
            any = any || (s->rows[i].series == k && s->rows[i].status == ROW_OK);
        if (!any)
            continue;
        fprintf(gp, "$s%zu << EOD\n", k);
        for (size_t i = 0; i < s->nrows; ++i) {
            const struct row *r = &s->rows[i];
            if (r->series == k && r->status == ROW_OK)
                fprintf(gp, "%ld %.9g\n", s->pts[r->point].x, 1e3 * r->wall.median);
        }
        fprintf(gp, "EOD\n");
        nplot++;
    }
    if (nplot == 0) {
        /* Nothing finished: an empty frame says so rather than no file at all. */
        fprintf(gp, "set label 1 \"no finished results\" at graph 0.5, graph 0.5 center\n"
                    "unset logscale\nplot [0:1] [0:1] NaN notitle\n");
    } else {
        fprintf(gp, "plot ");
        const char *sep = "";
        for (size_t k = 0; k < s->nser; ++k) {
            bool any = false;
            for (size_t i = 0; i < s->nrows; ++i)
                any = any || (s->rows[i].series == k && s->rows[i].status == ROW_OK);
            if (!any)
                continue;
            char name[400];
            series_name(s, k, name, sizeof name);
            fprintf(gp, "%s$s%zu using 1:2 with linespoints lw 2 title ", sep, k);
            cli_gp_quoted(gp, name);
            sep = ", \\\n     ";
        }
        fprintf(gp, "\n");
    }
    return cli_plot_close("sweep", &pl);
}

/* ---- the sweep ---------------------------------------------------------------------------- */

static void sweep_free(struct sweep *s)
{
    free(s->rows);
    free(s->ser);
    free(s->pts);
    free(s->peaks);
    free(s->use);
    free(s->chosen);
    cp_devlist_free(&s->devs);
    free(s->o.sels);
}

static void print_intro(const struct sweep *s)
{
    const struct sweep_opts *o = &s->o;
    fprintf(s->out, "sweep: --vary %s over %zu point%s", vary_names[o->vary], s->npts,
            s->npts == 1 ? "" : "s");
    if (o->vary != VARY_WIDTH && o->vary != VARY_PARAMS)
        fprintf(s->out, ", d = %ld", o->d);
    if (o->vary != VARY_DEPTH && o->vary != VARY_PARAMS)
        fprintf(s->out, ", L = %ld", o->layers);
    if (o->vary != VARY_BATCH)
        fprintf(s->out, ", B = %ld", o->batch);
    if (o->vary == VARY_PARAMS)
        fprintf(s->out, ", %.0f parameters (L = params/d²)", o->params);
    fprintf(s->out, "; seed %llu, init-scale %g\n", (unsigned long long)o->seed, o->init_scale);
    fprintf(s->out,
            "timing: %ld run%s after %ld warm-up; wall = first enqueue to clFinish, e2e = from "
            "the input's upload to the output's read; no reference (a speed run)\n",
            o->runs, o->runs == 1 ? "" : "s", o->warmup);
}

static void run_point(struct sweep *s, size_t pi, size_t *done)
{
    const struct point *p = &s->pts[pi];
    cp_model m;
    float *x = NULL;
    size_t first = s->nrows;
    int st =
        cp_model_builtin_shape(&m, (int)p->d, (int)p->layers, s->o.seed, (float)s->o.init_scale);
    if (st != CP_OK) {
        /* Only a shape beyond int range gets here; every result of the point says why. */
        for (size_t k = 0; k < s->nser; ++k) {
            struct row *r = &s->rows[s->nrows++];
            *r = (struct row){.point = pi, .series = k, .status = ROW_REFUSED};
            snprintf(r->reason, sizeof r->reason, "%s", cp_err_msg());
            print_row(s, r);
        }
        *done += s->nser;
        return;
    }
    bool any = false;
    for (size_t k = 0; k < s->nser; ++k) {
        struct row *r = &s->rows[s->nrows++];
        *r = (struct row){.point = pi,
                          .series = k,
                          .status = ROW_OK,
                          .kernel_median = -1.0,
                          .pct_peak = -1.0,
                          .gflops = -1.0};
        r->macs = cp_model_macs(&m, (int)p->batch);
        if (refuse(s, &m, p, &s->ser[k], r))
            r->status = ROW_REFUSED;
        else
            any = true;
    }
    if (any) {
        st = cp_model_builtin_generate(&m);
        if (st == CP_OK)
            st = cp_model_input((int)p->batch, m.in_width, s->o.seed, &x);
        if (st != CP_OK) {
            /* Host memory for the weights or the input: every result of the point fails. */
            for (size_t i = first; i < s->nrows; ++i)
                if (s->rows[i].status == ROW_OK) {
                    s->rows[i].status = ROW_ERROR;
                    snprintf(s->rows[i].reason, sizeof s->rows[i].reason, "%s", cp_err_msg());
                }
            s->status = CP_FAIL_RUNTIME;
            any = false;
        }
    }
    size_t keep = first;
    for (size_t i = first; i < s->nrows; ++i) {
        struct row *r = &s->rows[i];
        if (stop_signal)
            break;
        if (r->status == ROW_OK && any) {
            progress(s, *done, p, &s->ser[r->series]);
            if (!run_row(s, &m, x, p, &s->ser[r->series], r))
                break; /* interrupted in the middle of this result: it is not kept */
        }
        progress_clear(s);
        print_row(s, r);
        fflush(s->out);
        s->rows[keep++] = *r;
        (*done)++;
    }
    s->nrows = keep;
    free(x);
    cp_model_free(&m);
}

int cmd_sweep(int argc, char **argv)
{
    struct sweep s;
    memset(&s, 0, sizeof s);
    opts_defaults(&s.o);
    bool handled;
    int st = parse_opts(argc, argv, &s.o, &handled);
    if (st != CP_OK || handled)
        goto out;
    st = make_points(&s);
    if (st == CP_OK)
        st = cli_select_devices("sweep", s.o.sels, s.o.nsel, &s.devs, &s.chosen);
    if (st == CP_OK)
        st = choose_engines(&s);
    if (st == CP_OK)
        st = make_series(&s);
    if (st != CP_OK)
        goto out;
    bool to_stdout =
        (s.o.json && strcmp(s.o.json, "-") == 0) || (s.o.csv && strcmp(s.o.csv, "-") == 0);
    s.out = to_stdout ? stderr : stdout;
    /* The bar shares stderr with the table when a file takes stdout: each row clears it. */
    s.progress = isatty(STDERR_FILENO);

    /* Ctrl-C and SIGTERM stop after the current run; what finished is kept. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART; /* no EINTR in the middle of a write or a driver's call */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    print_intro(&s);
    /* The peak of every device in the sweep, measured once per device and driver. */
    s.peaks = calloc(s.devs.n, sizeof *s.peaks);
    if (!s.peaks) {
        st = cli_fail("sweep", CP_FAIL_RUNTIME, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < s.devs.n && !stop_signal; ++i) {
        bool used = false;
        for (size_t k = 0; k < s.nser; ++k)
            used = used || s.ser[k].dev_index == i;
        if (!used)
            continue;
        char label[300];
        cp_device_label(&s.devs.v[i], label, sizeof label);
        if (s.progress) {
            fprintf(stderr, "\r\033[Kthe peak of %s (clparity peak: cached, or measured now)",
                    label);
            fflush(stderr);
        }
        if (cp_peak_get(&s.devs.v[i], false, &s.peaks[i]) != CP_OK) {
            /* No peak: its results show n/a for % of peak, and the sweep goes on. */
            progress_clear(&s);
            fprintf(s.out, "peak: %s: not measured (%s): %% of peak n/a\n", label, cp_err_msg());
            memset(&s.peaks[i], 0, sizeof s.peaks[i]);
            continue;
        }
        progress_clear(&s);
        const cp_peak *pk = &s.peaks[i];
        if (!pk->available)
            fprintf(s.out, "peak: %s: n/a (simulator)\n", label);
        else
            fprintf(s.out, "peak: %s: %.1f GFLOP/s fma, %.1f GB/s triad (%s)\n", label,
                    pk->fma_gflops, pk->bandwidth_gbs, pk->cached ? "cached" : "measured now");
    }
    print_header(s.out);
    fflush(s.out);
    size_t done = 0;
    for (size_t p = 0; p < s.npts && !stop_signal; ++p)
        run_point(&s, p, &done);
    progress_clear(&s);
    int sig = stop_signal;
    s.interrupted = sig != 0;
    if (s.interrupted)
        fprintf(s.out, "interrupted by %s: %zu of %zu results finished; writing those\n",
                sig == SIGINT ? "SIGINT" : "SIGTERM", s.nrows, s.npts * s.nser);
    print_crossovers(&s);
    fflush(s.out);
    if (s.o.csv && (st = write_csv(&s)) != CP_OK)
        goto out;
    if (s.o.json && (st = write_json(&s)) != CP_OK)
        goto out;
    if (s.o.plot && (st = write_plot(&s)) != CP_OK)
        goto out;
    st = s.status;
    if (st != CP_OK)
        cli_fail("sweep", st, "%s", "some results failed at run time: their rows say error");
    if (sig) {
        /* End by the signal, as a shell expects of an interrupted command. */
        sweep_free(&s);
        fflush(NULL);
        signal(sig, SIG_DFL);
        raise(sig);
        return CP_FAIL_RUNTIME; /* not reached */
    }
out:
    sweep_free(&s);
    return st;
}
