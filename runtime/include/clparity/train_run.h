/* A training run: one model, input and target trained on every selected device × training
 * engine, step by step, with the weights of every result measured at each recorded step
 * against host:exact's (the baseline) and host:f64's (the reference). This is what `clparity
 * train` does, as a library, in cp_job's manner (clparity/job.h): phases the caller runs in
 * order (plan, check, generate, start, steps, finish), a progress callback, and nothing
 * printed; train --mpi runs the same phases rank by rank.
 *
 * Ownership: the run owns its devices, model, input, target, trainers and buffers until
 * cp_train_run_free. Errors: every call that can fail returns an enum cp_status with a message
 * for cp_err_msg(). */
#ifndef CLPARITY_TRAIN_RUN_H
#define CLPARITY_TRAIN_RUN_H

#include "clparity/export.h"
#include "clparity/cache.h"
#include "clparity/device.h"
#include "clparity/engine.h"
#include "clparity/model.h"
#include "clparity/npy.h"
#include "clparity/train.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

CP_API_BEGIN

/* One device × engine. */
typedef struct cp_train_result {
    const cp_device *dev; /* NULL: another rank's result (--mpi) */
    const char *engine;
    const cp_train_traits *traits; /* its engine's (cp_train_traits_of) */
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
    /* the current weights, n_params of the dtype: the trainer's own (cp_trainer_weights_view),
     * or w_buf's (--mpi: another rank's, as it sent them) */
    const void *w;
    void *w_buf;
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
    /* seconds of the trainer's setup before the first step: the program's build (or the
     * cache's binary), its probes and a warm-up step that launches every kernel once (the
     * weights and state put back after it); what the program cache did (CP_CACHE_NONE: no
     * program, the host engines) */
    double build_s;
    enum cp_cache_state build_cache;
    char build_cache_note[256];
} cp_train_result;

/* One result's measurements at a recorded step. */
typedef struct cp_train_rec {
    long step;
    size_t res;
    double loss, base_abs, base_bitwise, f64_abs;
    uint64_t base_ulp, f64_ulp;
} cp_train_rec;

/* What the run tells its progress display: a trainer being built (result i), a result whose
 * training kernels failed their probe (i, why), a step starting (step). */
enum cp_train_event_kind { CP_TRAIN_EV_BUILD, CP_TRAIN_EV_PROBE_FAILED, CP_TRAIN_EV_STEP };

typedef struct cp_train_run cp_train_run;
typedef void (*cp_train_progress_fn)(const cp_train_run *R, enum cp_train_event_kind kind, size_t i,
                                     long step, const char *why, void *ctx);

struct cp_train_run {
    /* Set by the caller before cp_train_run_plan: */
    long batch, steps, every;
    uint64_t seed;
    bool target_zeros; /* the target is zeros, else the generator's normal values */
    bool allow_slow;   /* train on a simulator beyond CP_SIMULATOR_MAC_LIMIT */
    bool no_f64;       /* no host:f64 result (ref is SIZE_MAX; the f64 measurements NAN) */
    cp_optim opt;
    bool given;      /* --mpi, ranks other than 0: rank 0's model, input and target (moved into m,
                        x, t): such a rank runs no host:f64 (rank 0 computes the reference) */
    cp_devlist devs; /* the devices, and which are selected: owned by the run */
    bool *chosen;
    cp_train_progress_fn progress; /* NULL: none */
    void *progress_ctx;
    /* The run's: */
    cp_model m; /* cp_train_run_generate's built-in model, or one the caller moved in */
    float *x, *t;
    cp_train_result *r;
    size_t nr, base, ref; /* indices of host:exact and host:f64 (SIZE_MAX: no_f64) */
    size_t cr;            /* index of host:cr, the twin of every cl:cr result; SIZE_MAX: none */
    cp_train_rec *recs;
    size_t nrecs, caprecs;
    char build_options[128];
    const char *arch_from;
    char model_sha256[65];
    struct host_pool *pool; /* the measurements' threads (hostblas's shared pool); NULL: one */
    int pool_n;             /* of them, the measurements' */
    bool pool_made;
};

/* "1:0 pthread-..." or "host" ("host#1/1:0 ..." for another rank's result). */
void cp_train_result_label(const cp_train_result *r, char *buf, size_t len);

/* The results of the selected devices × engines (use: a flag per registered engine, as
 * cp_engine_at numbers them; by_name: the engines were named, else only those trained by
 * default): host:exact and host:f64 first (the references), the other host engines, host:cr
 * with any correctly rounded engine, then every OpenCL device's. */
int cp_train_run_plan(cp_train_run *R, const bool *use, bool by_name);
/* Once the model's shape is known (m, with or without weights): the simulator guard, each
 * device's way of dividing (cp_train_check_device), and memory on every device and the host;
 * CP_FAIL_USAGE before any work. */
int cp_train_run_check(cp_train_run *R);
/* The built-in model's weights (unless the caller moved a model in with its weights: loaded),
 * the input and the target. Nothing for a run that was given them. */
int cp_train_run_generate(cp_train_run *R, bool loaded);
/* The trainers of the local results, and the buffers of their weights and round trips. */
int cp_train_run_start(cp_train_run *R);
/* One step of every local result (test hooks train-ulp, train-ulp-at:N: *poked); CP_FAIL_CHECK for
 * a loss that is not finite. */
int cp_train_run_step(cp_train_run *R, long step, bool *poked);
bool cp_train_run_recorded(const cp_train_run *R, long step);
/* The weights of every local result; then the measurements of every result at a recorded
 * step (rank 0). */
int cp_train_run_read_weights(cp_train_run *R);
int cp_train_run_record(cp_train_run *R, long step);
/* The round trips and hashes, the forwards against the twins', the optimizer states. */
int cp_train_run_finish(cp_train_run *R);
/* Whether result i's round-trip output equals that of the result of role twin (its traits'
 * twin: host:exact for cl:own, host:cr for cl:cr): 1 or 0; -1 where it has no such twin. */
int cp_train_run_twin_forward(const cp_train_run *R, size_t i, enum cp_train_role twin);
void cp_train_run_free(cp_train_run *R);

CP_API_END

#endif
