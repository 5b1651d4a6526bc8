/* The engine registry (clparity/engine.h: cp_engine_count, cp_engine_at, cp_engine_find): the
 * list of the engines, each one entry. An engine's entry (its traits as data: its ops, its
 * training, its footprint) lives beside it (runtime/opencl/engine_cl.c, hostblas/host_engines.c);
 * adding an engine is its entry there and one line here. The top of the engines: no engine
 * calls it back (the engine object is engine.c's, which reaches an engine through info->ops). */
#include "engine-impl.h"

#include <string.h>

/* In the order of --help and of the reports. */
static const cp_engine_info *const engines[] = {
    &cp_engine_cl_own,     &cp_engine_cl_clblast, &cp_engine_cl_relaxed, &cp_engine_host_openblas,
    &cp_engine_host_exact, &cp_engine_host_f64,   &cp_engine_host_cr,    &cp_engine_cl_cr,
};

size_t cp_engine_count(void)
{
    return sizeof engines / sizeof engines[0];
}

const cp_engine_info *cp_engine_at(size_t i)
{
    return i < cp_engine_count() ? engines[i] : NULL;
}

const cp_engine_info *cp_engine_find(const char *name)
{
    for (size_t i = 0; i < cp_engine_count(); ++i)
        if (strcmp(engines[i]->name, name) == 0)
            return engines[i];
    return NULL;
}

int cp_host_about_get(cp_host_about *a)
{
    memset(a, 0, sizeof *a);
    for (size_t i = 0; i < cp_engine_count(); ++i)
        if (engines[i]->ops->about) {
            engines[i]->ops->about(a);
            return CP_OK;
        }
    return cp_err_set(CP_FAIL_USAGE, "no engine says how the host is set up");
}
