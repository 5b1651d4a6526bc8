/* Private: a job's state, shared by its run (job.c) and its outputs (job_result.c). */
#ifndef CLPARITY_JOB_IMPL_H
#define CLPARITY_JOB_IMPL_H

#include "clparity/job.h"

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

/* The SHA-256 of the input and of the weights, as hex: the JSON's and index.json's. */
void cp_job_hash_inputs(const cp_job *j, char in_hex[65], char w_hex[65]);

#endif
