/* clparity sweep: the model timed over a grid of one parameter (batch, width, depth, or a fixed
 * parameter budget spread over more or fewer layers), on every selected device x engine, with
 * the crossovers between them and a plot: the blog post's question "when is the GPU faster?".
 *
 * A point is a model shape; a result is one device x engine at one point. A result that does
 * not fit its device (or host memory, or a simulator's work limit) is a row marked refused,
 * and the sweep goes on. A speed run: no float64 reference is computed. */
#include "cli.h"
#include "cmds.h"
#include "sweep.h"
#include "opts.h"
#include "perf.h"
#include "progress.h"
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

static void on_signal(int sig)
{
    sweep_stop_signal = sig;
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
     .def = "cl:own, cl:cr and host:openblas\n"
            "where they apply: the speed targets, with cl:cr's correctly\n"
            "rounded curve beside cl:own's; any engine of run may be listed"},
    {.id = OPT_RUNS,
     SO(runs),
     SO_SEEN(runs_set),
     .def = "adaptive, see --min-time;\ngiven, exactly N"},
    {.id = OPT_MIN_TIME, SO(min_time), SO_SEEN(min_time_set), .def = "0.2"},
    {.id = OPT_ROUNDS, SO(rounds), SO_SEEN(rounds_set), .def = SWEEP_STR(SWEEP_ROUNDS_DEFAULT)},
    {.id = OPT_WARMUP, SO(warmup), SO_SEEN(warmup_set), .def = "2; before each round"},
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
           "± (half the p10-p90 spread), runs, min and max wall time (first enqueue to clFinish,\n"
           "after --warmup runs; '~' marks a spread over 20 %% of the median), kernel time\n"
           "from profiling events (n/a where the engine hides them), end-to-end time (from the\n"
           "start of the input's upload to the end of the output's read), GFLOP/s = 2·B·d²·L /\n"
           "median wall, and %% of the device's measured peak FMA throughput (clparity peak's\n"
           "median; n/a on a simulator; above 100 %% it is marked '!' and explained: the peak\n"
           "was measured too low). Then a crossover summary on median wall time: for every two\n"
           "device x engine series, each point where the faster one changes outside the noise\n"
           "(10 runs or more on each side, the intervals for the two medians apart and the\n"
           "ratio beyond its ± spread), or \"never\"; points where the two are within noise\n"
           "are listed as such and change nothing, as are points where the two change order\n"
           "from one round to another (--rounds: the grid is run %d times over, each result's\n"
           "runs pooled and printed in the last round). A speed run: no float64 reference is\n"
           "computed.\n"
           "\n"
           "Default grids (the blog post's):\n"
           "  batch   B = 1, 2, 4 ... 2048 at d = 128, L = 128\n"
           "  width   d = 64, 128 ... 4096 at L = 128, B = 1\n"
           "  depth   L = 128, 256 ... 3840 (steps of 128) at d = 128, B = 1\n"
           "  params  2^31 parameters, d = 128, 256 ... 4096 and L = 2^31/d² (131072 ... 128),\n"
           "          B = 1\n"
           "--quick grids (seconds to a minute on 2 cores; 1 warm-up unless given):\n"
           "  batch   B = 1, 4, 16, 64, 256 at d = 128, L = 16\n"
           "  width   d = 16, 32, 64, 128, 256 at L = 16, B = 1\n"
           "  depth   L = 8, 16, 32, 64, 128 at d = 128, B = 1\n"
           "  params  2^20 parameters, d = 16, 32, 64, 128, 256 (L = 4096 ... 16), B = 1\n"
           "\n",
           SWEEP_ROUNDS_DEFAULT);
    opts_help(stdout, sweep_uses, sizeof sweep_uses / sizeof *sweep_uses);
    printf(
        "\n"
        "A result beyond its device's memory (CL_DEVICE_MAX_MEM_ALLOC_SIZE or\n"
        "CL_DEVICE_GLOBAL_MEM_SIZE), beyond the host's MemAvailable, or over a simulator's work\n"
        "limit is a row 'refused: <size> > <limit> (<which>)'; the sweep goes on. A progress\n"
        "bar goes to stderr when it is a terminal. Ctrl-C (SIGINT) or SIGTERM stops after the\n"
        "current run: the finished rows are printed and written (--json marks the sweep\n"
        "interrupted, --csv and --plot hold what finished; after the first round, every\n"
        "point with the rounds it has), no temporary file is left, and\n"
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
    o->runs = 0; /* adaptive */
    o->min_time = CP_MIN_TIME;
    o->warmup = 2;
    o->rounds = SWEEP_ROUNDS_DEFAULT;
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
    if (o->runs_set && o->min_time_set)
        return cli_fail(cmd, CP_FAIL_USAGE,
                        "--runs fixes the count and --min-time sets a floor for an adaptive "
                        "count: give one of them");
    if (o->quick) {
        if (!o->warmup_set)
            o->warmup = 1;
        if (!o->layers_set && (o->vary == VARY_BATCH || o->vary == VARY_WIDTH))
            o->layers = 16;
        if (!o->params_set)
            o->params = QUICK_PARAMS;
    }
    if (cli_check_plot(cmd, o->plot) != CP_OK)
        return CP_FAIL_USAGE;
    if (o->json && o->csv && strcmp(o->json, "-") == 0 && strcmp(o->csv, "-") == 0)
        return cli_fail(cmd, CP_FAIL_USAGE, "--json - and --csv -: only one may take stdout");
    /* Every output against the others, before any work. */
    const struct cli_path paths[] = {
        {"--json", o->json, CLI_OUT_FILE},
        {"--csv", o->csv, CLI_OUT_FILE},
        {"--plot", o->plot, CLI_OUT_FILE},
    };
    return cli_check_paths(cmd, paths, sizeof paths / sizeof *paths);
}

static void sweep_free(struct sweep *s)
{
    sweep_free_rows(s);
    free(s->rows);
    free(s->ser);
    free(s->pts);
    free(s->peaks);
    free(s->use);
    free(s->chosen);
    cp_devlist_free(&s->devs);
    free(s->o.sels);
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
    st = sweep_make_points(&s);
    if (st == CP_OK)
        st = cli_select_devices("sweep", s.o.sels, s.o.nsel, &s.devs, &s.chosen);
    if (st == CP_OK)
        st = sweep_choose_engines(&s);
    if (st == CP_OK)
        st = sweep_make_series(&s);
    if (st != CP_OK)
        goto out;
    s.rounds = (size_t)(s.o.runs > 0 && s.o.runs < s.o.rounds ? s.o.runs : s.o.rounds);
    s.kept = calloc(s.npts + 1, sizeof *s.kept);
    if (!s.kept) {
        st = cli_fail("sweep", CP_FAIL_RUNTIME, "out of memory");
        goto out;
    }
    bool to_stdout =
        (s.o.json && strcmp(s.o.json, "-") == 0) || (s.o.csv && strcmp(s.o.csv, "-") == 0);
    s.out = to_stdout ? stderr : stdout;
    /* The bar (progress.h: on a terminal, without --quiet) shares stderr with the table when a
     * file takes stdout: each row clears it. */

    /* Ctrl-C and SIGTERM stop after the current run; what finished is kept. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART; /* no EINTR in the middle of a write or a driver's call */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    sweep_print_intro(&s);
    /* The peak of every device in the sweep, measured once per device and driver. */
    s.peaks = calloc(s.devs.n, sizeof *s.peaks);
    if (!s.peaks) {
        st = cli_fail("sweep", CP_FAIL_RUNTIME, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < s.devs.n && !sweep_stop_signal; ++i) {
        bool used = false;
        for (size_t k = 0; k < s.nser; ++k)
            used = used || s.ser[k].dev_index == i;
        if (!used)
            continue;
        char label[300];
        cp_device_label(&s.devs.v[i], label, sizeof label);
        progress_stage("the peak of %s (clparity peak: cached, or measured now)", label);
        if (cp_peak_get(&s.devs.v[i], false, &s.peaks[i]) != CP_OK) {
            /* No peak: its results show n/a for % of peak, and the sweep goes on. */
            progress_clear();
            fprintf(s.out, "peak: %s: not measured (%s): %% of peak n/a\n", label, cp_err_msg());
            memset(&s.peaks[i], 0, sizeof s.peaks[i]);
            continue;
        }
        progress_clear();
        const cp_peak *pk = &s.peaks[i];
        if (!pk->available)
            fprintf(s.out, "peak: %s: n/a (simulator)\n", label);
        else
            fprintf(s.out,
                    "peak: %s: %.1f GFLOP/s fma (p10-p90 %.1f-%.1f), %.1f GB/s triad (%s%s)\n",
                    label, pk->fma_gflops, pk->fma.p10, pk->fma.p90, pk->bandwidth_gbs,
                    pk->cached ? "cached" : "measured now",
                    pk->noisy ? "; noisy: clparity peak --remeasure on an idle machine" : "");
    }
    sweep_print_header(s.out);
    cli_flush(s.out);
    size_t done = 0;
    for (size_t r = 0; r < s.rounds && !sweep_stop_signal; ++r)
        for (size_t p = 0; p < s.npts && !sweep_stop_signal; ++p)
            sweep_run_point(&s, r, p, &done);
    sweep_finish_rows(&s);
    progress_clear();
    int sig = sweep_stop_signal;
    s.interrupted = sig != 0;
    if (s.interrupted) { /* on stderr always, and in the table's stream when that is stdout */
        size_t part = 0; /* rows kept with fewer rounds than the others */
        for (size_t i = 0; i < s.nrows; ++i)
            part += s.rows[i].status == ROW_OK && s.rows[i].nround < s.rounds &&
                    s.rows[i].round_median[0] < SWEEP_LONG_FORWARD;
        char msg[200];
        snprintf(msg, sizeof msg, "interrupted by %s: %zu of %zu results finished",
                 sig == SIGINT ? "SIGINT" : "SIGTERM", s.nrows, s.npts * s.nser);
        if (part)
            snprintf(msg + strlen(msg), sizeof msg - strlen(msg),
                     " (%zu of them in fewer than %zu rounds)", part, s.rounds);
        fprintf(stderr, "clparity sweep: %s; writing those\n", msg);
        if (s.out != stderr)
            fprintf(s.out, "%s; writing those\n", msg);
    }
    if ((st = sweep_test_times(&s)) != CP_OK)
        goto out;
    sweep_print_pct_note(&s);
    sweep_print_crossovers(&s);
    cli_flush(s.out);
    if (s.o.csv && (st = sweep_write_csv(&s)) != CP_OK)
        goto out;
    if (s.o.json && (st = sweep_write_json(&s)) != CP_OK)
        goto out;
    if (s.o.plot && (st = sweep_write_plot(&s)) != CP_OK)
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
        return 128 + sig; /* not reached, unless the signal is blocked: the shell's status */
    }
out:
    sweep_free(&s);
    return st;
}
