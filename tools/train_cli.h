/* clparity train's parts: tools/cmd_train.c (options, the training loop), tools/train_prep.c
 * (preparing the run), tools/train_mpi.c (--mpi) and tools/train_out.c (the tables, the JSON,
 * CSV, --save and plot files, the verdict); the training itself is the library's
 * (clparity/train_run.h). */
#ifndef CLPARITY_TRAIN_CLI_H
#define CLPARITY_TRAIN_CLI_H

#include "clparity/device.h"
#include "clparity/model.h"
#include "clparity/train.h"
#include "clparity/train_run.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define CMD "train"
/* What the report and the JSON say of a cl:relaxed result. */
#define TRAIN_RELAXED_NOTE                                                                         \
    "fast math (-cl-fast-relaxed-math -cl-mad-enable: a * b + c in the sums; adam and adamw "      \
    "divide with native_divide and native_sqrt): its weights may drift from host:exact's; "        \
    "reported, never a failure"

struct opts {
    char **sels;
    size_t nsel;
    const char *engines, *json, *csv, *save, *model, *plot;
    bool shape_set; /* --d-model, --layers or --init-scale given */
    long d, layers, batch, steps, every;
    bool every_set; /* --every given: every recorded step is printed, else about ten */
    bool no_f64;    /* --no-f64: no host:f64 */
    uint64_t seed;
    double init_scale, lr;
    bool target_zeros, allow_slow;
    bool mpi; /* --mpi: every rank of mpirun (tools/train_mpi.c) */
    /* --optimizer and its hyperparameters, each with whether it was given */
    int optimizer; /* enum cp_optim_kind: the index of the word in OPT_OPTIMIZER's choices */
    double momentum, eps, weight_decay, beta1, beta2;
    bool nesterov, momentum_set, eps_set, weight_decay_set, betas_set;
    cp_optim opt; /* what parse makes of them */
};

/* The command: its options, and the run (clparity/train_run.h) they make. */
struct train {
    struct opts o;
    cp_train_run R;
    double t_step1; /* when step 1 started (seconds, CLOCK_MONOTONIC): the progress's rate */
};

/* About this many recorded steps are printed without --every (evenly spaced, the first and
 * the last among them, and the first divergence of any result beside them). */
#define TRAIN_PRINTED_STEPS 10

/* tools/train_prep.c: the run's settings from the parsed options (before anything else); the
 * options' paths, devices, engines and model into T->R, checked (every
 * rank of --mpi); the trainers (a failure printed, with the build log); the status of a
 * library call, its message printed where it failed; T's release. */
void train_setup(struct train *T);
int train_prepare(struct train *T);
int train_start(struct train *T);
int train_failed(int st);
void train_free(struct train *T);
/* --mpi (tools/train_mpi.c); every rank calls it and gets the same status. */
int train_mpi(struct train *T);

/* Output (train_out.c): the tables, the JSON, CSV, --save and plot files, and the verdict
 * (all of them, then every failed check named: the exit status). */
void train_print_tables(FILE *f, const struct train *T);
int train_write_json(const struct train *T);
int train_write_csv(const struct train *T);
int train_save(const struct train *T);
int train_write_plot(const struct train *T);
int train_verdict(const struct train *T);

#endif
