/* A job: the model, its input, and every selected device × engine run on them, with the
 * float64 reference and the metrics. `run` (and later commands) print and save it. */
#ifndef CLPARITY_JOB_H
#define CLPARITY_JOB_H

#include "clparity/device.h"
#include "clparity/engine.h"
#include "clparity/metrics.h"
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
    long runs, warmup;
    const char *json, *save;
    bool allow_slow;
    bool no_reference; /* run only: skip host:f64 (speed runs of large models) */
    /* compare only */
    bool compare; /* accept --expect/--equal-nan/--invariance; baseline and round trip */
    int expect;   /* CMP_EXPECT_NONE or an enum cp_preset */
    bool equal_nan;
    bool invariance;
    /* models, inputs and labels from files */
    const char *model;  /* --model FILE.safetensors */
    const char *input;  /* --input X.npy: float32 [batch, in] */
    const char *labels; /* --labels Y.npy: int32 or int64 class ids */
    const char *out;    /* --out Y.npy: the one result */
    cp_arch_opts arch;  /* --arch, --act, --residual */
    bool d_set, layers_set, batch_set, seed_set, init_scale_set;
};

/* The parsing of the options that every model command shares; returns CP_OK, or an exit
 * status after printing the problem. *handled is set for --help/--version. */
void job_opts_defaults(struct job_opts *o);
int job_opts_parse(const char *cmd, int argc, char **argv, struct job_opts *o, void (*help)(void),
                   bool *handled);
extern const char job_model_help[];
extern const char job_compare_help[];

struct job_stats {
    double median, min, max;
};

struct job_result {
    const cp_device *dev;
    const cp_engine_info *eng;
    void *y;               /* batch × out_width of eng->dtype: the last timed run's output */
    uint64_t hash;         /* of y */
    bool deterministic;    /* every warm-up and timed run gave the same hash */
    struct job_stats wall; /* seconds */
    double kernel_median;  /* < 0: n/a */
    double h2d_median, d2h_median;
    double build_s, upload_s;
    /* cp_engine_build_cache (CP_CACHE_NONE: no program built) and its note */
    enum cp_cache_state build_cache;
    char build_cache_note[256];
    cp_metrics m;                            /* against the reference; float32 results only */
    int roundtrip;                           /* 1, 0, -1 n/a (compare only) */
    long batch_inv_equal, batch_inv_checked; /* --invariance; checked < 0: not checked */
    int thread_inv;                          /* host:openblas, --invariance; -1: n/a */
};

struct job {
    const char *cmd;
    struct job_opts o;
    cp_devlist devs;
    bool *chosen;
    bool *use; /* per registered engine */
    cp_model model;
    float *x;
    double *ref; /* host:f64's output: the reference */
    float *base; /* host:exact's output: the baseline (compare only) */
    struct job_result *res;
    size_t nres;
    char build_options[512];
    /* --model: where the architecture came from, and the file's SHA-256 */
    const char *arch_from;
    char model_sha256[65];
    int64_t *labels; /* --labels: batch class ids */
    /* The work that needs no device (the hidden reference and baseline, the SHA-256 of the
     * input and weights) runs on a second thread while the first result's engine is built,
     * and is joined before its first forward: timed runs never share the CPU with it. */
    void *bg;
    char input_sha256[65], weights_sha256[65];
};

/* Devices, engines, the simulator guard and the memory checks, then the model and input:
 * everything that can refuse the job comes before any work. */
int job_prepare(struct job *j, const char *cmd, const struct job_opts *o);
/* Runs every result, the reference and the metrics. */
int job_execute(struct job *j);
/* The "model: ..." line of run and compare. */
void job_print_model(FILE *f, const struct job *j);
/* --out FILE: the one result, as .npy. */
int job_write_out(const struct job *j);
/* --save DIR: x.npy, weights.npy, one .npy per result, index.json. */
int job_save(const struct job *j);
void job_free(struct job *j);

/* The JSON of the job's model, results and provenance (a cJSON object). */
void *job_json(const struct job *j);

/* "1:0 pthread-..." / "host", and the result's file name "p1d0.cl-own.npy". */
void job_result_file(const struct job_result *r, char *buf, size_t len);

#endif
