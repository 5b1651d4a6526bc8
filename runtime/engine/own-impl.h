/* Private: cl:own's kernel paths (cl-shared-impl.h, own_path.c) and the probe that checks a path on
 * a device before cl:own first uses it there (own_probe.c). */
#ifndef CLPARITY_OWN_IMPL_H
#define CLPARITY_OWN_IMPL_H

#include "clparity/device.h"
#include "clparity/engine.h"
#include "clparity/model.h"

#include <stdbool.h>
#include <stddef.h>

/* What a probe found for one path on one device. */
enum cp_probe_verdict {
    CP_PROBE_PASS, /* the probe model's outputs carry host:exact's bits */
    CP_PROBE_FAIL, /* wrong bits, or rejected by the loop check: why says which */
    CP_PROBE_NA    /* the path does not apply to this device: a usage error, or the device
                    * refuses its launch (why says which) */
};

/* The probe model's class: a path's kernel variant depends on the widths (reg's one-row form
 * up to 128) and the batch (rows per work-item), so the probe runs a model of the real one's
 * class. */
struct cp_probe_class {
    bool wide;      /* the real model has a layer wider than 128 */
    bool big_batch; /* its batch is over 16 */
    bool square;    /* every layer is max_width in and out (cpu1 and cpug then ping-pong between
                     * the activation buffers, one of them also the input) */
    int flags;      /* square with every layer's flags the same (1 bias, 2 ReLU, 4 residual: reg
                     * then takes the layer table as constants): those flags; else -1 */
};

/* Checks path (its index and name) on dev: first the loop check's rule (cp_own_loop_rule),
 * then cl:own runs a small model of odd sizes with biases, a rectangular layer, a layer without
 * activation, layers with and without the residual and more than one work-group, with that
 * path forced, and every output is compared bit for bit with the definition (each output a
 * chain of fmaf from 0.0f, k ascending, then the bias, ReLU and the residual: host:exact's
 * order). The verdict is kept for the process and, unless the program cache is off or
 * CLPARITY_KERNEL_DIR replaces the sources, in the program cache, keyed by the device, driver,
 * platform, the kernel sources, the path, the class, the tune settings and any test hook.
 * Returns CP_OK with *v set; an error where the path's program fails to build (with the
 * compiler's log, as outside the probe) or the host runs out of memory. */
int cp_own_probe(const cp_device *dev, int path, const char *name, struct cp_probe_class cls,
                 enum cp_probe_verdict *v, char *why, size_t why_len);

/* The verdict kept for path on dev (this process or the program cache) without probing: true
 * when there is one. */
bool cp_own_probe_kept(const cp_device *dev, int path, const char *name, struct cp_probe_class cls,
                       enum cp_probe_verdict *v, char *why, size_t why_len);

/* How many iterations of one work-item's loop of 100000 run on dev (clkernels/probe.cl):
 * 100000 where loops run to the end, as OpenCL promises; fewer where the device stops them
 * (Mesa llvmpipe: 65535 in all per work-item). Kept like a path's verdict. */
int cp_own_loop_check(const cp_device *dev, long *ran);
#define CP_LOOP_CHECK_N 100000L

/* The loop check's rule for a path on dev (cp_own_probe applies it with max_in 0): where the
 * device stops a work-item's loops early, *rejects every path but naive (the others loop over
 * whole rows, panels or layers in one work-item, past any such budget at some size that a
 * small probe does not reach), and naive too where a layer has max_in inputs or more; why says
 * so. */
int cp_own_loop_rule(const cp_device *dev, const char *name, int max_in, bool *rejects, char *why,
                     size_t why_len);

/* CLPARITY_OWN_PROBE=off: no probe at all (cl:own's paths, cl:relaxed, the training
 * kernels): the first choice is taken unchecked and reported as not probed. For the tests of
 * the program cache, which count its entries, and for timing a cold build alone. */
bool cp_own_probe_off(void);

/* An OpenCL engine ("cl:own", "cl:relaxed" or "cl:cr", with kernel path or variant `path`
 * forced) on dev, making no probe of its own (own_probe.c, so that the paths and the probes
 * below engine_cl.c need not call it back). */
/* The OpenCL engines a probe creates (cl:own's paths, cl:relaxed's bound, cl:cr's variants),
 * handed down by engine_cl.c (cp_cl_probe_engines, before it sets an engine up). */
enum cp_probe_cl { CP_PROBE_CL_OWN, CP_PROBE_CL_RELAXED, CP_PROBE_CL_CR, CP_PROBE_CL_N };
void cp_cl_probe_engines(const cp_engine_info *own, const cp_engine_info *relaxed,
                         const cp_engine_info *cr);
const cp_engine_info *cp_cl_probe_engine(enum cp_probe_cl which);
int cp_cl_create_probing(const cp_engine_info *engine, const cp_device *dev, const cp_model *m,
                         int batch, int path, cp_engine **out);
/* The path cp_cl_create_probing forces for the engine being created on this thread; -1: none
 * (engine_cl.c reads it). */
int cp_cl_forced_path(void);

/* A probe of its own: runs on dev and sets *v and why; an error only when out of memory. The
 * fault-injection hooks are suspended while it runs (the run's calls are counted, not the
 * probe's). */
typedef int (*cp_probe_fn)(const cp_device *dev, void *ctx, struct cp_probe_class cls,
                           enum cp_probe_verdict *v, char *why, size_t why_len);
/* Runs probe `run` where no verdict is kept for (dev, id, cls), and keeps it as cp_own_probe
 * keeps a path's: ids 0 and up are cl:own's paths, -1 the loop check, -3 the training kernels,
 * CP_PROBE_ID_RELAXED(p) cl:relaxed on path p; name goes into the cache key. */
#define CP_PROBE_ID_RELAXED(p) (-100 - (p))
int cp_probe_cached(const cp_device *dev, int id, const char *name, struct cp_probe_class cls,
                    cp_probe_fn run, void *ctx, enum cp_probe_verdict *v, char *why,
                    size_t why_len);
/* The same, for a probe whose verdict depends on more than the class: `extra` (at most
 * CP_PROBE_KEY_EXTRA - 1 characters, NULL for none) goes into the key of the verdict kept for
 * the process and into the program cache's (cl:cr: its variant's build options). */
#define CP_PROBE_KEY_EXTRA 512
int cp_probe_cached_ex(const cp_device *dev, int id, const char *name, const char *extra,
                       struct cp_probe_class cls, cp_probe_fn run, void *ctx,
                       enum cp_probe_verdict *v, char *why, size_t why_len);
/* The probe's model of class cls, its batch and its input (malloc'd, batch x in_width). */
int cp_probe_model(const cp_device *dev, struct cp_probe_class cls, cp_model *m, int *batch,
                   float **x);
/* cl:relaxed's probe of cl:own's path (its index and name) built with fast math: first the loop
 * check's rule, then every output of the probe model within 1e-3 (1 + |r|) of the definition's.
 * Kept like cp_own_probe's verdicts, under its own key. */
int cp_relaxed_probe(const cp_device *dev, int path, const char *name, struct cp_probe_class cls,
                     enum cp_probe_verdict *v, char *why, size_t why_len);

/* cl:cr's probe (cr_probe.c) of one kernel variant: `make` creates cl:cr on dev for model m
 * and batch rows with that variant and its settings (cr_cl.c), making no probe of its own;
 * CP_FAIL_USAGE where the variant does not apply to the device. */
typedef int (*cp_cr_probe_make)(const cp_device *dev, const void *make_ctx, const cp_model *m,
                                int batch, cp_engine **out);
/* Runs the variant on cl:cr's probe models (special values, cancellation, ties, odd sizes:
 * cr_probe.c's first comment) and compares every output with host:cr's bits (a NaN with any
 * NaN). The verdict is kept as cp_own_probe's, under id (CP_PROBE_ID_CR) and name, keyed also
 * by `key` (the variant's build options and launch settings). CP_OK with *v set; an error
 * where the variant's program fails to build or the host runs out of memory. */
#define CP_PROBE_ID_CR(p, exact) (-200 - 2 * (p) - ((exact) ? 1 : 0))
int cp_cr_probe(const cp_device *dev, int id, const char *name, const char *key,
                cp_cr_probe_make make, const void *make_ctx, enum cp_probe_verdict *v, char *why,
                size_t why_len);

#endif
