/* `clparity tune`'s tunables, read from the OpenCL engines' path tables: every row of cl:own's
 * own_paths[] and cl:cr's cr_paths[] with tune parameters (ops->tune) for the device's type, in
 * their rank's order. A path that adds a row with its candidates is tuned with no other file
 * changed. */
#include "cr-cl-run-impl.h"

/* rows' tunables for dev's type, by rank, up to max into out; the count. */
static size_t tunables_of(const struct cl_path_ops *const *rows, size_t n_rows,
                          const cp_device *dev, const cp_tunable **out, size_t max)
{
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

/* cl:own's (its ops' tunables; cl:relaxed has none of its own: cl:own's settings serve it). */
size_t own_tunables(const cp_device *dev, const cp_tunable **out, size_t max)
{
    return tunables_of(own_paths, own_n_paths, dev, out, max);
}

/* cl:cr's. */
size_t cr_tunables(const cp_device *dev, const cp_tunable **out, size_t max)
{
    const struct cl_path_ops *rows[CR_N_PATHS];
    for (size_t i = 0; i < CR_N_PATHS; ++i)
        rows[i] = &cr_paths[i];
    return tunables_of(rows, CR_N_PATHS, dev, out, max);
}
