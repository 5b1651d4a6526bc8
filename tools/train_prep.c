/* clparity train's preparing and progress (clparity/train_run.h does the training): the
 * paths, devices, engines and model of the options, which train and train --mpi share. */
#include "cli.h"
#include "mpi.h"
#include "progress.h"
#include "train_cli.h"

#include "clparity/engine.h"
#include "clparity/error.h"
#include "clparity/train_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* --model: the safetensors file, its architecture (from the tensor names or the file's
 * metadata: train has no --arch flags) and its SHA-256. */
static int load_model_file(struct train *T)
{
    cp_arch_opts arch = {CP_ARCH_AUTO, -1, -1};
    return cli_load_model(CMD, T->o.model, &arch, &T->R.m, &T->R.arch_from, T->R.model_sha256);
}

/* "train" or "train --mpi, rank 0": how the progress line starts. */
static void progress_who(const struct train *T, char *buf, size_t len)
{
    if (T->o.mpi)
        snprintf(buf, len, "%s --mpi, rank %d", CMD, mpi_rank());
    else
        snprintf(buf, len, "%s", CMD);
}

static double train_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* "12.3 steps/s, ETA 4 s" from the steps done since step 1 started (with their records). */
static void train_rate(const struct train *T, long step, char *buf, size_t len)
{
    double el = train_now_s() - T->t_step1, rate = el > 0.0 ? (double)(step - 1) / el : 0.0;
    if (!(rate > 0.0)) {
        snprintf(buf, len, "-");
        return;
    }
    double eta = (double)(T->R.steps - step + 1) / rate;
    char r[32];
    snprintf(r, sizeof r, rate >= 100.0 ? "%.0f" : "%.3g", rate);
    if (eta < 10.0)
        snprintf(buf, len, "%s steps/s, ETA %.1f s", r, eta);
    else if (eta < 120.0)
        snprintf(buf, len, "%s steps/s, ETA %.0f s", r, eta);
    else
        snprintf(buf, len, "%s steps/s, ETA %.0f min", r, eta / 60.0);
}

/* The run's progress: the build of each trainer, a failed probe (on stderr, at once), each
 * step with the steps per second, the time left and the loss of the first local result
 * (they differ in the last bits only, if at all). */
static void train_progress(const cp_train_run *R, enum cp_train_event_kind kind, size_t i,
                           long step, const char *why, void *ctx)
{
    struct train *T = ctx;
    char who[64];
    progress_who(T, who, sizeof who);
    if (kind == CP_TRAIN_EV_BUILD) {
        char dl[300];
        cp_device_label(R->r[i].dev, dl, sizeof dl);
        progress_stage("%s: %zu/%zu  %s on %s  build", who, i + 1, R->nr, R->r[i].engine, dl);
    } else if (kind == CP_TRAIN_EV_PROBE_FAILED) {
        char lb[300];
        cp_train_result_label(&R->r[i], lb, sizeof lb);
        progress_clear();
        fprintf(stderr,
                "train: %s on %s: its training kernels FAILED their probe (%s): its results "
                "are not promised to be %s's\n",
                R->r[i].engine, lb, why,
                R->r[i].traits->twin == CP_TRAIN_CR_BASE ? "host:cr" : "host:exact");
    } else if (progress_enabled()) {
        const cp_train_result *first = NULL;
        for (size_t k = 0; k < R->nr && !first; ++k)
            if (R->r[k].tr)
                first = &R->r[k];
        char rate[64];
        if (step == 1)
            T->t_step1 = train_now_s();
        train_rate(T, step, rate, sizeof rate);
        if (step == 1 || !first)
            progress_stage("%s: step %ld/%ld", who, step, R->steps);
        else if (step == 2) /* the first rate, shown whatever the time since step 1 */
            progress_stage("%s: step %ld/%ld  %s  last loss %.6g (%s)", who, step, R->steps, rate,
                           first->loss, first->engine);
        else
            progress_show("%s: step %ld/%ld  %s  last loss %.6g (%s)", who, step, R->steps, rate,
                          first->loss, first->engine);
    }
}

void train_setup(struct train *T)
{
    const struct opts *o = &T->o;
    cp_train_run *R = &T->R;
    R->batch = o->batch;
    R->steps = o->steps;
    R->every = o->every;
    R->seed = o->seed;
    R->target_zeros = o->target_zeros;
    R->allow_slow = o->allow_slow;
    R->no_f64 = o->no_f64;
    R->opt = o->opt;
    R->progress = train_progress;
    R->progress_ctx = T;
}

/* Devices, engines, the simulator guard and the model: everything that can refuse the run. */
int train_prepare(struct train *T)
{
    const struct opts *o = &T->o;
    cp_train_run *R = &T->R;
    /* Every path against the others, before any work (rank 0's, under --mpi). */
    const struct cli_path paths[] = {
        {"--model", o->model, CLI_IN_FILE}, {"--plot", o->plot, CLI_OUT_FILE},
        {"--json", o->json, CLI_OUT_FILE},  {"--csv", o->csv, CLI_OUT_FILE},
        {"--save", o->save, CLI_OUT_DIR},
    };
    int st = R->given ? CP_OK : cli_check_paths(CMD, paths, sizeof paths / sizeof *paths);
    if (st == CP_OK && !R->given && o->save)
        st = cli_check_output_dir(CMD, o->save);
    if (st != CP_OK)
        return st;
    st = cli_select_devices(CMD, o->sels, o->nsel, &R->devs, &R->chosen);
    if (st != CP_OK)
        return st;
    size_t ne = cp_engine_count();
    bool *use = calloc(ne, sizeof *use);
    if (!use)
        return cli_fail(CMD, CP_FAIL_RUNTIME, "out of memory");
    st = cli_select_engines(CMD, o->engines, &R->devs, R->chosen, use);
    for (size_t i = 0; st == CP_OK && o->engines && i < ne; ++i)
        if (use[i] && !cp_engine_at(i)->train)
            st = cli_fail(CMD, CP_FAIL_USAGE,
                          "--engines: %s cannot train (train supports cl:own, host:exact, "
                          "host:f64, cl:cr, host:cr, cl:clblast, host:openblas, cl:relaxed)",
                          cp_engine_at(i)->name);
    for (size_t i = 0; st == CP_OK && o->no_f64 && o->engines && i < ne; ++i) {
        const cp_train_traits *tt = cp_train_traits_of(cp_engine_at(i)->train);
        if (use[i] && tt && tt->role == CP_TRAIN_REFERENCE)
            st = cli_fail(CMD, CP_FAIL_USAGE, "--no-f64 skips %s: --engines cannot name it",
                          cp_engine_at(i)->name);
    }
    if (st == CP_OK && (st = cp_train_run_plan(R, use, o->engines != NULL)) != CP_OK)
        st = cli_fail(CMD, st, "%s", cp_err_msg());
    if (st == CP_OK && o->no_f64 && !o->mpi && R->nr < 2)
        st = cli_fail(CMD, CP_FAIL_USAGE,
                      "--no-f64: host:exact would be the only result: nothing is compared");
    free(use);
    if (st != CP_OK)
        return st;
    if (R->given) {
        /* rank 0's model, input and target are in place already */
    } else if (o->model) {
        if ((st = load_model_file(T)) != CP_OK)
            return st;
    } else if ((st = cp_model_builtin_shape(&R->m, (int)o->d, (int)o->layers, o->seed,
                                            (float)o->init_scale)) != CP_OK)
        return cli_fail(CMD, st, "%s", cp_err_msg());
    if ((st = cp_train_run_check(R)) != CP_OK ||
        (st = cp_train_run_generate(R, o->model != NULL)) != CP_OK)
        return cli_fail(CMD, st, "%s", cp_err_msg());
    return CP_OK;
}

int train_start(struct train *T)
{
    int st = cp_train_run_start(&T->R);
    if (st != CP_OK) {
        cli_fail(CMD, st, "%s", cp_err_msg());
        cli_print_build_log();
        return st;
    }
    progress_clear();
    return CP_OK;
}

int train_failed(int st)
{
    return st == CP_OK ? st : cli_fail(CMD, st, "%s", cp_err_msg());
}

void train_free(struct train *T)
{
    cp_train_run_free(&T->R);
    free(T->o.sels);
}
