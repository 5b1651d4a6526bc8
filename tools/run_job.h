/* The command line's job: run's and compare's options over the library's cp_job. */
#ifndef CLPARITY_TOOLS_RUN_JOB_H
#define CLPARITY_TOOLS_RUN_JOB_H

#include "clparity/job.h"
#include "clparity/model.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct job_opts {
    char **sels; /* -d arguments */
    size_t nsel;
    const char *engines; /* --engines, or NULL */
    long d, layers, batch;
    uint64_t seed;
    double init_scale;
    long runs, warmup; /* runs 0: adaptive (cp_runs_more) */
    double min_time;   /* --min-time: the floor of an adaptive count */
    bool runs_set, min_time_set;
    const char *json, *save;
    const char *csv, *plot; /* --csv FILE, --plot FILE.png|.svg (job_write_tables) */
    bool allow_slow;
    bool no_reference; /* run only: skip host:f64 (speed runs of large models) */
    /* compare only */
    bool compare; /* accept --expect/--equal-nan/--invariance; baseline and round trip */
    int expect;   /* CP_EXPECT_NONE or an enum cp_preset */
    bool equal_nan;
    bool invariance;
    /* models, inputs and labels from files */
    const char *model;  /* --model FILE.safetensors */
    const char *input;  /* --input X.npy: float32 [batch, in] */
    const char *labels; /* --labels Y.npy: int32 or int64 class ids */
    const char *out;    /* --out Y.npy: the one result */
    cp_arch_opts arch;  /* --arch, --act, --residual */
    bool d_set, layers_set, batch_set, seed_set, init_scale_set;
    /* --mpi (compare): each rank keeps the engines of --engines that apply to its devices */
    bool mpi;
    /* Ranks other than 0 of --mpi: rank 0's model (moved into the job) and input, instead of
     * the files or the built-in model; no reference, no baseline. NULL otherwise. */
    struct job_given *given;
};

struct job_given {
    cp_model model;
    float *x;
    long rows, width;
};

/* The parsing of the options that every model command shares; returns CP_OK, or an exit
 * status after printing the problem. *handled is set for --help/--version. */
void job_opts_defaults(struct job_opts *o);
int job_opts_parse(const char *cmd, int argc, char **argv, struct job_opts *o, void (*help)(void),
                   bool *handled);
/* The options' part of run's or compare's help (o->compare), generated from their table. */
void job_opts_help(const struct job_opts *o);
/* "12 runs after 2 warm-up" or "adaptive runs (at least 5 and 0.2 s timed per result, at most
 * 200) after 2 warm-up". */
void job_runs_text(const struct job_opts *o, char *buf, size_t len);

/* A job of the command line: its options, the library's job, and the --labels. */
struct job {
    const char *cmd;
    struct job_opts o;
    cp_job *cj;
    int64_t *labels; /* --labels: batch class ids */
    char *engines;   /* --mpi: the engines of --engines that apply here */
    /* --save: more files for the folder (compare --mpi: the other ranks' results), written
     * into dir, the temporary folder, before it takes DIR's place. */
    int (*save_more)(const struct job *j, const char *dir, void *ctx);
    void *save_ctx;
};

/* Devices, engines, the files, the simulator guard and the memory checks: everything that
 * can refuse the job comes before any work. Each prints its problem and returns the status. */
int job_prepare(struct job *j, const char *cmd, const struct job_opts *o);
/* Runs every result, the reference and the metrics (cp_job_run). A result whose engine fails
 * (not --mpi) ends with its error, named on stderr, and the job goes on: CP_OK. */
int job_execute(struct job *j);
/* st, or, when results failed, CP_FAIL_RUNTIME after a last stderr line naming them (3 takes
 * precedence over --expect's 1). */
int job_failed_status(const struct job *j, int st);
/* st, or, when st is CP_OK and a result's probe rejected every kernel path (cl:own, cl:cr,
 * cl:relaxed: cp_path_report's exact 0), CP_FAIL_CHECK after a last stderr line naming them:
 * a number no probe vouched for is never printed with status 0. */
int job_probe_status(const struct job *j, int st);
/* --out FILE (the one result, as .npy), --save DIR (x.npy, weights.npy, one .npy per result,
 * index.json, and what save_more adds, as one folder that replaces DIR whole), then --json FILE:
 * the job's JSON with "command", and what add puts after it (NULL: nothing; false: out of memory).
 * Prints the problem and returns the status. */
int job_write_files(const struct job *j, bool (*add)(void *root, const struct job *j, void *ctx),
                    void *ctx);
void job_free(struct job *j);
/* --csv FILE (one row per device × engine: timings, and metrics against host:f64 from cmp
 * for compare, else from the job) and --plot FILE (median wall time with min-max error bars,
 * and max ULP, per device × engine, through gnuplot), each as asked. Prints the problem and
 * returns the status. */
struct cp_comparison;
int job_write_tables(const struct job *j, const struct cp_comparison *cmp);

/* The JSON of the job's model, results and provenance (a cJSON object), with the labels. */
void *job_json(const struct job *j);
/* The "builds:" lines: program build time per OpenCL result and what the program cache did (a
 * warm build, hit, next to a cold one, miss or off, is the cache's gain); for cl:own and
 * cl:relaxed, the kernel path taken and the paths its probe rejected on that device, with the
 * reason. Then the "ran:" lines: per result, the kernel path or library routine that ran
 * (cp_engine_routine). */
void job_print_builds(FILE *out, const struct job *j);
/* run's timing table and speed verdict (cp_timing_print) over the results that ran; status 3,
 * printed, when there is no memory to print them. */
int job_print_speed(FILE *out, const struct job *j);

#endif
