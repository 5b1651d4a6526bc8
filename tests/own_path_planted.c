/* A planted extra kernel path of cl:own, for tests/test_planted_path.c: the whole path in one
 * file, registered by compiling cl:own's tables (runtime/opencl/own_path_table.c) again with
 * OWN_PATH_EXTRA=own_path_planted, which adds it as one row. It runs block.cl's cp_linear (a
 * work-item per output, cl:own's order: host:exact's bits) under its own name, program and
 * tune parameter: rr (reg's rows per work-group, which it passes as a define and ignores), so
 * that `clparity tune` has candidates to time and compare. */
#include "cl-shared-impl.h"

#include <stdio.h>

static bool planted_fits(const cp_engine *e, const cp_device *dev, size_t max_wg, char *why,
                         size_t len)
{
    (void)e;
    (void)dev;
    (void)max_wg;
    (void)why;
    (void)len;
    return true;
}

static int planted_options(const cp_engine *e, struct cl_state *s, const cp_device *dev,
                           const struct own_limits *lim, const cp_own_tune *tune, char *opts,
                           size_t len)
{
    (void)e;
    (void)dev;
    (void)lim;
    snprintf(opts, len, "-cl-std=CL1.2 -DCP_PLANTED_RR=%d", tune->reg_rr);
    own_st(s)->k_name = "cp_linear";
    return CP_OK;
}

/* One layer: cp_linear with the weights as stored, from the path's own program. */
static int planted_layer(cp_engine *e, struct cl_state *s, int l, int batch, cl_mem in, cl_mem outb)
{
    struct stored_layer a;
    own_stored_layer(e, s, l, &a);
    size_t global[2] = {(size_t)a.out, (size_t)batch};
    const size_t sizes[] = {sizeof in,    sizeof outb,      sizeof a.w,        sizeof a.w_off,
                            sizeof a.in,  sizeof a.out,     sizeof a.has_bias, sizeof a.b_off,
                            sizeof a.act, sizeof a.residual};
    const void *const vals[] = {&in,    &outb,       &a.w,     &a.w_off, &a.in,
                                &a.out, &a.has_bias, &a.b_off, &a.act,   &a.residual};
    cl_kernel k = own_st(s)->k_path;
    int st = own_set_args(k, "cp_linear", 10, sizes, vals);
    if (st != CP_OK)
        return st;
    cl_int rc = own_enqueue_kernel(s->q, k, 2, NULL, global, NULL, 0, NULL, &s->events[l]);
    return rc == CL_SUCCESS ? CP_OK : cp_err_cl(rc, "clEnqueueNDRangeKernel(cp_linear)");
}

static const char *const planted_c[] = {"rr=1", "rr=4", "rr=8", NULL};
static const cp_tunable planted_tune = {.path = "planted",
                                        .rank = 1,
                                        .gpu = false,
                                        .full = {64, 4, 8},
                                        .quick = {32, 2, 4},
                                        .cands = planted_c,
                                        .quick_cands = planted_c,
                                        .more = NULL};

const struct cl_path_ops own_path_planted = {
    .name = "planted",
    .file = "block.cl",
    .fits = planted_fits,
    .options = planted_options,
    .plant = "-DCP_PLANT_BIT",
    .reads_chunks = true,
    .enqueue_layer = planted_layer,
    .release = own_release,
    .tune = &planted_tune,
};
