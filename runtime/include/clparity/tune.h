/* The tunable kernel paths of the OpenCL engines with their candidate settings (`clparity
 * tune`), and the store of cl:own's and cl:cr's settings per device (cl:own's settings'
 * struct is private: runtime/opencl/tune-impl.h). None of cl:own's changes the order of a sum: they
 * move work between work-items and registers, so every setting gives the same bits, and the tests
 * check that; every cl:cr setting gives host:cr's bits (correctly rounded sums). */
#ifndef CLPARITY_TUNE_H
#define CLPARITY_TUNE_H

#include "clparity/export.h"
#include "clparity/device.h"
#include "clparity/engine.h"

#include <stdbool.h>
#include <stddef.h>

CP_API_BEGIN

/* One shape that `clparity tune` times a candidate at: the reference model's width, blocks and
 * batch. */
typedef struct cp_tune_shape {
    int d, layers, batch;
} cp_tune_shape;

/* One tunable kernel path and its candidate settings: a field of the path's row (ops) in the
 * OpenCL engines' path table, read by `clparity tune`. */
typedef struct cp_tunable {
    const char *path; /* the path's name */
    int rank;         /* the order in which tune times the engine's tunables */
    bool gpu;         /* tuned on GPUs (devices without CL_DEVICE_TYPE_CPU), else on CPUs */
    cp_tune_shape full, quick;                     /* the first shape of a run, of a --quick run */
    const char *const *cands, *const *quick_cands; /* name=value lists, NULL-terminated ("":
                                                    * the engine's settings by the width) */
    const cp_tune_shape *more; /* more shapes of a full run, up to one of d 0; or NULL */
} cp_tunable;

/* The tunables of engine (cl:own's and cl:cr's; none for the others) for dev's type, in the
 * order tune times them: up to max written to out, the count returned. */
size_t cp_tunables(const cp_engine_info *engine, const cp_device *dev, const cp_tunable **out,
                   size_t max);

/* cl:own's settings for dev as a list of every name (the defaults, replaced by what `clparity
 * tune` stored, replaced by CLPARITY_OWN_TUNE where set), with the list `over` (NULL for none)
 * set over them. CP_FAIL_USAGE where over or CLPARITY_OWN_TUNE does not parse. */
int cp_tune_own_spec(const cp_device *dev, const char *over, char *buf, size_t len);

/* Stores cl:own's settings own_spec (cp_tune_own_spec's list) for dev in <cache dir>/tune.json
 * (atomically), with cl:cr's settings cr_spec ("wg=128,ob=2,tk=16": CLPARITY_CR_TUNE's names,
 * never path; NULL or "" for none), the date and what was measured (a cJSON object passed as
 * void *, or NULL). An entry is {"params": "<own_spec>", "cr_params": "<cr_spec>", "date": ...,
 * "measured": ...}; entries without cr_params (stored before cl:cr was tuned) stay valid. */
int cp_tune_store_spec(const cp_device *dev, const char *own_spec, const char *cr_spec,
                       void *measured);

/* cl:cr's settings that `clparity tune` stored for dev, its driver and platform version
 * (runtime/opencl/cr_cl.c parses them, and ignores a list that does not parse or that names path,
 * exact or ftz): true with the list in buf; false, with buf "", where there is none, the
 * store is missing or cannot be read, the list does not fit len, or CLPARITY_CACHE=off. */
bool cp_tune_cr_stored(const cp_device *dev, char *buf, size_t len);

/* "<device>|<driver>|<platform version>": the key of a stored setting. */
void cp_tune_key(const cp_device *dev, char *buf, size_t len);

CP_API_END

#endif
