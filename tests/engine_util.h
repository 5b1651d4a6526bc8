/* Shared by the engine tests: find an OpenCL device, run one engine on a model. */
#ifndef CLPARITY_TEST_ENGINE_UTIL_H
#define CLPARITY_TEST_ENGINE_UTIL_H

#include "clparity/device.h"
#include "clparity/engine.h"
#include "clparity/model.h"

#include <stdio.h>
#include <stdlib.h>

/* ctest's "skipped": a test that needs an OpenCL device and finds none. */
#define TEST_SKIP 77

static inline const cp_device *find_kind(const cp_devlist *l, enum cp_dev_kind kind)
{
    for (size_t i = 0; i < l->n; ++i)
        if (l->v[i].kind == kind)
            return &l->v[i];
    return NULL;
}

/* Runs `engine` once on dev; returns a malloc'd output (float or double), NULL on failure
 * after printing why. */
static inline void *run_engine(const char *engine, const cp_device *dev, const cp_model *m,
                               const float *x, int batch)
{
    const cp_engine_info *info = cp_engine_find(engine);
    cp_engine *e = NULL;
    cp_timing t;
    size_t n = (size_t)batch * (size_t)m->out_width;
    void *y = malloc(n * cp_dtype_size(info->dtype));
    if (!y)
        return NULL;
    if (cp_engine_create(info, dev, m, batch, &e) != CP_OK ||
        cp_engine_forward(e, x, batch, y, &t) != CP_OK) {
        fprintf(stderr, "%s on %s: %s\n", engine, dev->name, cp_err_msg());
        free(y);
        y = NULL;
    }
    cp_engine_destroy(e);
    return y;
}

#endif
