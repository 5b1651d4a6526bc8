/* clparity train's parts: tools/cmd_train.c (options, preparing, the training loop) and
 * tools/train_out.c (the tables and the JSON, CSV, --save and plot files). */
#ifndef CLPARITY_TRAIN_CLI_H
#define CLPARITY_TRAIN_CLI_H

#include "clparity/device.h"
#include "clparity/model.h"
#include "clparity/train.h"

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

struct result {
    const cp_device *dev; /* NULL: another rank's result (--mpi) */
    const char *engine;
    cp_trainer *tr;
    bool probe_failed; /* cl:own: its training kernels failed their probe on this device */
    int state_base;    /* cl:own: its optimizer state equals host:exact's bit for bit; -1 n/a */
    const char *state_diff; /* state_base 0: the first state tensor that differs */
    const char *div_sqrt;   /* cp_trainer_div_sqrt: "" where it does not apply */
    enum cp_dtype dtype;
    /* --mpi, rank 0: another rank's result, as it described it */
    int rank;
    char label[300]; /* "host#1/0:0 Oclgrind Simulator" */
    char tag[64];    /* its --save file's tag: "r1.p0d0" */
    char platform[128], driver[128];
    void *w; /* current weights, n_params of the dtype */
    double loss;
    uint64_t max_ulp_base; /* over the recorded steps */
    long first_div;        /* first recorded step that differs from the baseline; 0: none */
    long first_div_cr;     /* cl:cr: the first recorded step whose weights are not host:cr's */
    void *y_rt;
    int roundtrip;    /* 1 ok, 0 failed */
    int forward_base; /* cl:own: the round trip's output equals host:exact's; -1 n/a */
    int forward_cr;   /* cl:cr: the round trip's output equals host:cr's; -1 n/a */
    uint64_t hash;
    /* seconds in cp_trainer_step (each ends with the loss on the host): the first step (a
     * driver may compile kernels at their first launch), and the sum over the others */
    double first_s, step_s;
};

struct rec {
    long step;
    size_t res;
    double loss, base_abs, base_bitwise, f64_abs;
    uint64_t base_ulp, f64_ulp;
};

struct train {
    struct opts o;
    cp_devlist devs;
    bool *chosen;
    cp_model m;
    float *x, *t;
    struct result *r;
    size_t nr, base, ref; /* indices of host:exact and host:f64 */
    size_t cr;            /* index of host:cr, the twin of every cl:cr result; SIZE_MAX: none */
    struct rec *recs;
    size_t nrecs, caprecs;
    char build_options[128];
    const char *arch_from;
    char model_sha256[65];
    /* --mpi, ranks other than 0: rank 0's model (moved into m), input and target; such a rank
     * runs no host:f64 (rank 0 computes the reference) */
    bool given;
};

/* "1:0 pthread-..." or "host" ("host#1/1:0 ..." for another rank's result). */
void train_label(const struct result *r, char *buf, size_t len);

/* The parts of the training (tools/cmd_train.c), which train --mpi runs rank by rank:
 * devices, engines, the model and the checks; the trainers; one step of every local result
 * (test hook train-ulp: *poked); the weights of every local result; the measurements of
 * every result at a recorded step (rank 0); the round trips and hashes; the exit status. */
int train_prepare(struct train *T);
int train_start(struct train *T);
int train_step(struct train *T, long step, bool *poked);
int train_read_weights(struct train *T);
int train_record(struct train *T, long step);
int train_finish(struct train *T);
int train_verdict(const struct train *T);
void train_free(struct train *T);
bool train_recorded(const struct train *T, long step);
/* --mpi (tools/train_mpi.c); every rank calls it and gets the same status. */
int train_mpi(struct train *T);

/* Output (train_out.c). */
void train_print_tables(FILE *f, const struct train *T);
int train_write_json(const struct train *T);
int train_write_csv(const struct train *T);
int train_save(const struct train *T);
int train_write_plot(const struct train *T);

#endif
