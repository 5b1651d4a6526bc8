/* A job: one model and one input run on every selected device × engine, with the float64
 * reference (host:f64) and, for a comparison, the host:exact baseline. This is what
 * `clparity run` and `clparity compare` do, as a library (docs/LIBRARY.md).
 *
 * Ownership: a cp_job owns everything it computes (outputs, reference, baseline, devices);
 * pointers it hands out stay valid until cp_job_destroy. Strings in cp_job_opts (selectors,
 * engines, file names) are borrowed: they must outlive the job.
 *
 * Errors: every call that can fail returns an enum cp_status (CP_OK, CP_FAIL_USAGE for a bad
 * value, a selector that matches nothing or a model too large, CP_FAIL_RUNTIME for OpenCL,
 * memory and I/O) and records a message for cp_err_msg(). */
#ifndef CLPARITY_JOB_H
#define CLPARITY_JOB_H

#include "clparity/cache.h"
#include "clparity/device.h"
#include "clparity/engine.h"
#include "clparity/export.h"
#include "clparity/metrics.h"
#include "clparity/model.h"
#include "clparity/report.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

CP_API_BEGIN

typedef struct cp_job cp_job; /* opaque */

typedef struct cp_job_opts {
    const char *const *selectors; /* -d: each may be a comma list; none: the default */
    size_t n_selectors;
    const char *engines;   /* comma list; NULL: every engine that applies to a selected device */
    long d, layers, batch; /* the built-in model (128, 128, 1); batch also for cp_job_set_model */
    uint64_t seed;         /* 1337: the built-in model's weights and the generated input */
    double init_scale;     /* 1.0 */
    long runs, warmup;     /* 0 (the count adapts: clparity/report.h, cp_runs_more), 2 */
    bool compare;          /* compare's extras: the host:exact baseline, the weights' round trip */
    bool equal_nan;        /* NaN against NaN counts as equal */
    bool invariance;       /* with compare: batch and thread invariance */
    bool allow_slow;       /* run on a simulator beyond CP_SIMULATOR_MAC_LIMIT */
    bool no_reference;     /* skip host:f64 (no metrics); with compare, also the host:exact
                              baseline: they come from elsewhere (compare --mpi computes them
                              once, on rank 0), and cp_comparison_from_job refuses the job */
    bool hash_early;       /* hash the input and weights while the first engine builds (they
                              are hashed on demand otherwise, by the JSON and cp_job_save) */
    /* Recorded in the JSON and index.json only: where the model, input and labels came from. */
    const char *model_file, *input_file, *labels_file;
    double min_time; /* with runs 0: the floor of measured time per result (CP_MIN_TIME) */
} cp_job_opts;

/* One device × engine, read-only; valid until cp_job_destroy. */

typedef struct cp_job_result {
    const cp_device *dev;
    const cp_engine_info *eng;
    void *y;              /* batch × out_width of eng->dtype: the last timed run's output */
    uint64_t hash;        /* FNV-1a 64 of y */
    bool deterministic;   /* every warm-up and timed run gave the same hash */
    cp_stats wall;        /* seconds, first enqueue to clFinish; wall.n: the runs timed */
    double kernel_median; /* < 0: n/a (the library hides its events) */
    double h2d_median, d2h_median;
    double build_s, upload_s;
    enum cp_cache_state build_cache; /* CP_CACHE_NONE: no program built */
    char build_cache_note[256];
    cp_path_report paths;         /* cl:own: the kernel path and what the probe rejected */
    char routine[CP_ROUTINE_LEN]; /* the library routine or kernel that ran (cp_engine_routine) */
    cp_metrics m;                 /* against host:f64; float32 results only */
    int roundtrip;                /* 1, 0, -1 n/a (compare only) */
    long batch_inv_equal, batch_inv_checked; /* invariance; checked < 0: not checked */
    int thread_inv;                          /* host:openblas with invariance: 1, 0; -1 n/a */
    /* "" when the result ran; else why its engine failed ("clEnqueueNDRangeKernel(cp_epilogue)
     * failed: CL_OUT_OF_RESOURCES (-5)"), kept with cp_job_set_keep_failed: then y is NULL and
     * nothing above but dev and eng holds a value. */
    char error[1024];
} cp_job_result;

/* A cJSON object (as void *) of a path report: {"used", "exact", "rejected": [{"path", "why"}]};
 * NULL when out of memory. */
void *cp_path_report_json(const cp_path_report *p);

/* The defaults above. */
void cp_job_opts_default(cp_job_opts *o);

/* A job with these options (copied; their strings are borrowed). Nothing is enumerated yet. */
int cp_job_create(const cp_job_opts *o, cp_job **out);
void cp_job_destroy(cp_job *j);

/* Enumerates the devices and applies the selectors (else $CLPARITY_DEVICES, else every
 * non-simulator device plus host) and the engine list. A selector that matches nothing, an
 * unknown engine, or one that applies to no selected device is CP_FAIL_USAGE.
 * cp_job_prepare calls it when it was not called. */
int cp_job_select(cp_job *j);
/* Its two halves, for callers that report a selector apart (the command line follows a
 * selector that matches nothing with the list of devices). */
int cp_job_select_devices(cp_job *j);
int cp_job_select_engines(cp_job *j);
/* Every device found (selected or not) and whether each was selected: NULL before
 * cp_job_select. */
const cp_devlist *cp_job_devices(const cp_job *j);
bool cp_job_device_selected(const cp_job *j, size_t i);

/* A model instead of the built-in one: its contents move into the job (*m is left empty).
 * arch_from and sha256 (may be NULL) are recorded with opts.model_file. */
int cp_job_set_model(cp_job *j, cp_model *m, const char *arch_from, const char *sha256);
/* The input instead of the generated one: rows × width floats, copied. It sets the batch
 * (and, for the built-in model, d). CP_FAIL_USAGE when width is not the model's. */
int cp_job_set_input(cp_job *j, const float *x, long rows, long width);

/* Everything that can refuse the job, before any work: selection, the model's shape, the
 * simulator guard, each device's and the host's memory. */
int cp_job_prepare(cp_job *j);
/* Generates what is missing now: the built-in model's weights and the input (calls
 * cp_job_prepare first when it was not called). cp_job_run calls it. */
int cp_job_generate(cp_job *j);
/* Generates what is missing (weights, input), runs every result (warm-up, timed runs), the
 * reference and, with compare, the baseline, and the metrics. Calls cp_job_prepare first
 * when it was not called. On an engine failure, cp_program_log() may hold a build log.
 * By default the first result whose engine fails stops the job (its status and message). */
int cp_job_run(cp_job *j);
/* keep: a result whose engine fails at run time (CP_FAIL_RUNTIME; a bad value, CP_FAIL_USAGE,
 * still stops the job) ends with its error (cp_job_result.error, y NULL) and the
 * job goes on with the others; cp_job_run returns CP_OK when the rest ran, and
 * cp_job_failed_count says how many failed. The reference (host:f64) and compare's baseline
 * (host:exact) failing still stop the job: nothing could be compared. Call before cp_job_run. */
void cp_job_set_keep_failed(cp_job *j, bool keep);
/* What the job is doing, for a progress display: the library prints nothing itself.
 * CP_JOB_BUILD: result index of count is being created (its program built, its weights
 * uploaded); CP_JOB_WARMUP and CP_JOB_TIMED: run runs done of runs; CP_JOB_CHECKS: compare's
 * round trip and invariance checks; CP_JOB_REFERENCE: waiting for (or computing) the hidden
 * host:f64 reference or host:exact baseline (engine names which; dev is NULL); CP_JOB_METRICS:
 * the metrics of every result against the reference (dev and engine NULL). */
enum cp_job_phase {
    CP_JOB_BUILD,
    CP_JOB_WARMUP,
    CP_JOB_TIMED,
    CP_JOB_CHECKS,
    CP_JOB_REFERENCE,
    CP_JOB_METRICS,
};
typedef struct cp_job_event {
    enum cp_job_phase phase;
    size_t index, count;  /* result index (from 0) of count results */
    const cp_device *dev; /* NULL for the reference and the metrics */
    const char *engine;   /* "cl:own"; "host:f64" for the reference; NULL for the metrics */
    long run, runs;       /* CP_JOB_WARMUP, CP_JOB_TIMED: runs done so far of runs (runs <= 0:
                             a count not fixed in advance) */
} cp_job_event;
typedef void (*cp_job_progress_fn)(const cp_job_event *ev, void *ctx);
/* fn (NULL: none) is called by cp_job_run at each stage and after each run, always on the
 * thread that called cp_job_run; it must not call back into the job. Call before cp_job_run. */
void cp_job_set_progress(cp_job *j, cp_job_progress_fn fn, void *ctx);
/* Results that ended with an error (cp_job_set_keep_failed), and result i's error (NULL when
 * it ran, or i is out of range). */
size_t cp_job_failed_count(const cp_job *j);
const char *cp_job_result_error(const cp_job *j, size_t i);

/* What the job holds. */
const cp_job_opts *cp_job_get_opts(const cp_job *j); /* batch and d as set by the input */
const cp_model *cp_job_model(const cp_job *j);
const float *cp_job_input(const cp_job *j);      /* batch × in_width */
const double *cp_job_reference(const cp_job *j); /* host:f64's output, or NULL */
const float *cp_job_baseline(const cp_job *j);   /* host:exact's output (compare), or NULL */
const float *cp_job_cr(const cp_job *j);         /* host:cr's output (compare), or NULL */
size_t cp_job_result_count(const cp_job *j);
const cp_job_result *cp_job_result_at(const cp_job *j, size_t i);
/* "where the architecture came from" and the model file's SHA-256 ("" without one). */
const char *cp_job_arch_from(const cp_job *j);
const char *cp_job_model_sha256(const cp_job *j);

/* Result i's engine name ("cl:own"), its device's label ("1:0 pthread-..." or "host") into
 * buf, and its output (batch × out_width of *dtype); NULL / "" for an i out of range (and
 * the output NULL for a result that failed). For
 * bindings, which cannot read cp_job_result. */
const char *cp_job_result_engine(const cp_job *j, size_t i);
/* What result i ran: cp_engine_routine ("path reg", "CLBlastSgemv + cp_epilogue", ...); "" for a
 * result that failed. */
const char *cp_job_result_routine(const cp_job *j, size_t i);
void cp_job_result_device(const cp_job *j, size_t i, char *buf, size_t len);
const void *cp_job_result_output(const cp_job *j, size_t i, enum cp_dtype *dtype);

/* One number of result i by name, for bindings: "max_ulp", "median_ulp", "max_abs",
 * "max_rel", "rel_to_max", "norm_rel", "bitwise", "argmax", "nan", "inf", "nan_mismatch",
 * "compared", "wall_median_s", "wall_min_s", "wall_max_s", "wall_mean_s", "wall_sd_s",
 * "wall_p10_s", "wall_p90_s", "wall_ci_low_s", "wall_ci_high_s", "runs", "kernel_median_s",
 * "build_s",
 * "hash" (as a double: use the struct for all 64 bits), "deterministic", "roundtrip".
 * NaN for an unknown name, and for metrics of results without them (host:f64, no reference). */
double cp_job_result_value(const cp_job *j, size_t i, const char *name);
/* Result i's "timing" of --json (run's and compare's top-level "results"), as JSON text in *out
 * (malloc'd: free it with cp_free): every name the JSON has (wall_*_s, wall_ci_level, runs,
 * measured_s, spread, noisy, noise_cause, kernel_median_s, ..., gflops); "null" for a result
 * that failed. For bindings. */
int cp_job_result_timing_json(const cp_job *j, size_t i, char **out);

/* The "model: ..." line of run and compare. */
void cp_job_print_model(const cp_job *j, FILE *f);
/* The result's file name in a --save folder: "p1d0.cl-own.npy". */
void cp_job_result_file(const cp_job_result *r, char *buf, size_t len);
/* The one result i as .npy. */
int cp_job_write_output(const cp_job *j, size_t i, const char *path);
/* x.npy, weights.npy (the built-in model), reference.npy, baseline.npy and cr.npy (compare:
 * host:cr's output), one .npy per result,
 * index.json (DESIGN.md, Files; a result that failed has no file: index.json lists it under
 * "errors" instead of "results"), as one folder that replaces dir whole (cp_save_begin in
 * clparity/report.h): dir is the old folder or the new one at every instant, and left as it
 * was on failure. */
int cp_job_save(const cp_job *j, const char *dir);
/* The same files written into the existing folder dir (cp_save_dir), for a caller that adds
 * its own before cp_save_commit. */
int cp_job_save_files(const cp_job *j, const char *dir);
/* schema, provenance, model, reference, results (with metrics unless compare; a result that
 * failed has "error" and no numbers) as a cJSON
 * object, returned as void * to keep cJSON out of this header (cJSON_Delete it); NULL when
 * out of memory. */
void *cp_job_json(const cp_job *j);

CP_API_END

#endif
