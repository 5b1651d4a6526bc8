/* `clparity tune`'s tunables, read from the OpenCL engines' path tables: every row of cl:own's
 * own_paths[] and cl:cr's cr_paths[] with tune parameters (ops->tune) for the device's type, in
 * their rank's order. A path that adds a row with its candidates is tuned with no other file
 * changed. */
#include "cr-cl-run-impl.h"

#include <string.h>

size_t cp_tunables(const char *engine, const cp_device *dev, const cp_tunable **out, size_t max)
{
    const struct cl_path_ops *const *rows = NULL;
    const struct cl_path_ops *cr_rows[CR_N_PATHS];
    size_t n_rows = 0;
    if (strcmp(engine, "cl:own") == 0) {
        rows = own_paths;
        n_rows = own_n_paths;
    } else if (strcmp(engine, "cl:cr") == 0) {
        for (size_t i = 0; i < CR_N_PATHS; ++i)
            cr_rows[i] = &cr_paths[i];
        rows = cr_rows;
        n_rows = CR_N_PATHS;
    }
    bool gpu = !(dev->type & CL_DEVICE_TYPE_CPU);
    size_t n = 0;
    for (size_t i = 0; i < n_rows; ++i) {
        const cp_tunable *t = rows[i]->tune;
        if (!t || t->gpu != gpu || n >= max)
            continue;
        size_t at = n++; /* insertion by rank: a handful of rows */
        while (at > 0 && out[at - 1]->rank > t->rank) {
            out[at] = out[at - 1];
            --at;
        }
        out[at] = t;
    }
    return n;
}
