/* Private: what every engine implements. */
#ifndef CLPARITY_ENGINE_IMPL_H
#define CLPARITY_ENGINE_IMPL_H

#include "clparity/engine.h"
#include "clparity/tune.h"
#include "program-impl.h"
#include "testhook-impl.h" /* the engines plant their faults through it */

#include <time.h>

struct cp_engine_ops {
    /* Its setup builds and probes kernels: done in a child process where the isolation is on
     * (isolate-impl.h), so that a compiler crash costs a path, not the run. cl:clblast builds
     * inside CLBlast (no program cache to warm): not isolated. */
    bool isolated;
    int (*create)(cp_engine *e, const cp_device *dev, const cp_model *m, int max_batch);
    int (*forward)(cp_engine *e, const float *x, int batch, void *y, cp_timing *t);
    void (*destroy)(cp_engine *e);
    /* Optional: the round-trip check of cp_engine_roundtrip. */
    int (*roundtrip)(cp_engine *e, int *ok);
    /* Optional: the library's thread count, for cp_engine_threads. */
    int (*threads)(int n);
    /* Optional: the host's setup, for cp_host_about_get (one engine has it). */
    void (*about)(cp_host_about *a);
    /* Optional: its tunable kernel paths for dev's type, by rank (cp_tunables). */
    size_t (*tunables)(const cp_device *dev, const cp_tunable **out, size_t max);
};

struct cp_engine {
    const cp_engine_info *info;
    const struct cp_engine_ops *ops;
    const cp_model *model;
    int max_batch;
    double build_s, upload_s;
    long forwards; /* calls of cp_engine_forward so far */
    char build_options[512];
    /* What the program cache did; CP_CACHE_NONE for engines that build no program. */
    struct cp_build_cache build_cache;
    cp_path_report paths; /* cl:own's path and the probe's rejections (exact -1 elsewhere) */
    char routine[CP_ROUTINE_LEN]; /* what the last forward ran (cp_engine_routine) */
    void *state;                  /* the engine's own */
};

/* How cp_engine_create sets up an engine whose ops are isolated: the setup child's driver
 * (isolate-run-impl.h's cp_isolate_create), installed by cp_isolate_enable and by the child
 * itself; NULL sets every engine up in this process. A hook, so that the engine object, below
 * the driver, never calls up into it. */
typedef int (*cp_isolated_setup_fn)(cp_engine *e, const cp_device *dev, const cp_model *m,
                                    int max_batch,
                                    int (*create)(cp_engine *e, const cp_device *dev,
                                                  const cp_model *m, int max_batch));
void cp_engine_set_isolation(cp_isolated_setup_fn setup);

/* The engines' registry entries (runtime/opencl/engine_cl.c, hostblas/host_engines.c), which
 * runtime/registry/registry.c lists. */
extern const cp_engine_info cp_engine_cl_own;
extern const cp_engine_info cp_engine_cl_clblast;
extern const cp_engine_info cp_engine_cl_relaxed;
extern const cp_engine_info cp_engine_host_openblas;
extern const cp_engine_info cp_engine_host_exact;
extern const cp_engine_info cp_engine_host_f64;
extern const cp_engine_info cp_engine_host_cr;
extern const cp_engine_info cp_engine_cl_cr;

extern const struct cp_engine_ops cp_engine_ops_cl_own;
extern const struct cp_engine_ops cp_engine_ops_cl_clblast;
extern const struct cp_engine_ops cp_engine_ops_cl_relaxed;
extern const struct cp_engine_ops cp_engine_ops_cl_cr;
extern const struct cp_engine_ops cp_engine_ops_host_openblas;
extern const struct cp_engine_ops cp_engine_ops_host_exact;
extern const struct cp_engine_ops cp_engine_ops_host_cr;
extern const struct cp_engine_ops cp_engine_ops_host_f64;

static inline double cp_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
