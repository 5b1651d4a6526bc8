/* Private: the parent's side of the isolated setup (isolate_run.c; isolate-impl.h says why
 * and how), which the engine object reaches through its hook
 * (cp_engine_set_isolation, installed by cp_isolate_enable and the setup child). */
#ifndef CLPARITY_ISOLATE_RUN_IMPL_H
#define CLPARITY_ISOLATE_RUN_IMPL_H

#include "clparity/device.h"
#include "clparity/engine.h"

/* cp_engine_create's create step of an engine that builds kernels (cl:own, cl:relaxed,
 * cl:cr): isolated as above where the isolation is on, else create() in-process. */
int cp_isolate_create(cp_engine *e, const cp_device *dev, const cp_model *m, int max_batch,
                      int (*create)(cp_engine *e, const cp_device *dev, const cp_model *m,
                                    int max_batch));

#endif
