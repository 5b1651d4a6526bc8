/* cl:own's CPU paths (own_cpu.cl), for small batches on PoCL: cpu (cp_cpu_layer, a
 * matrix-vector kernel per layer whose lanes are adjacent outputs: cp_gemm_vec's register
 * tile of 8 rows wastes 7 of them at B = 1), cpu1 (cp_cpu_model, the whole model in one
 * launch, a work-item per row block, for narrow models where PoCL's cost per launch, about
 * 10 us on 2 cores, outweighs a layer's work) and cpug (cp_cpu_grid, one launch, every core on
 * each layer, its groups meeting at a device-wide barrier). Where each is chosen: own_rules[]
 * (own_path.c). */
#include "cl-shared-impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int own_cpu_rows(int batch)
{
    return batch >= 4 ? 4 : batch >= 2 ? 2 : 1;
}

/* Whether every layer is max_width wide in and out: cp_cpu_model then ping-pongs between the
 * two activation buffers with packed rows. */
bool own_cpu_uniform(const cp_model *m)
{
    for (int l = 0; l < m->n_layers; ++l)
        if (m->layers[l].in != m->max_width || m->layers[l].out != m->max_width)
            return false;
    return true;
}

/* cp_cpu_model and cp_cpu_grid hold the packed model in one buffer whose layer table holds
 * int offsets. */
static bool one_buffer_fits(const cp_engine *e, const cp_device *dev, size_t max_wg,
                            const char *name, char *why, size_t len)
{
    (void)max_wg;
    const cp_model *m = e->model;
    double packed = 0.0; /* cp_cpu_model's layer table holds int offsets */
    for (int l = 0; l < m->n_layers; ++l)
        packed += (double)own_round_up((size_t)m->layers[l].out, 64) * (m->layers[l].in + 1);
    if (packed < 2147483647.0 && packed * sizeof(float) <= (double)dev->max_alloc)
        return true;
    snprintf(why, len,
             "CLPARITY_OWN_KERNEL=%s: the packed model does not fit one buffer of this device "
             "with int offsets",
             name);
    return false;
}

static bool cpu_fits(const cp_engine *e, const cp_device *dev, size_t max_wg, char *why, size_t len)
{
    (void)e;
    (void)dev;
    (void)max_wg;
    (void)why;
    (void)len;
    return true;
}

static bool cpu1_fits(const cp_engine *e, const cp_device *dev, size_t max_wg, char *why,
                      size_t len)
{
    return one_buffer_fits(e, dev, max_wg, "cpu1", why, len);
}

static bool cpug_fits(const cp_engine *e, const cp_device *dev, size_t max_wg, char *why,
                      size_t len)
{
    return one_buffer_fits(e, dev, max_wg, "cpug", why, len);
}

/* cp_cpu_grid's shape: its units are panels of vec_w·nv outputs × row blocks, shared by the
 * joined groups layer by layer. The widest layer should give every compute unit gu units
 * (tune gu): 4 vectors per work-item where it then has enough panels, else 2, else 1 (fewer
 * fma chains in flight, more cores on the layer); and no more groups than that layer's units,
 * since an idle group still pays every barrier. tests/check_built.py (cpug_nv) applies the same
 * rule to the device's width and compute units for the exact/cpug16_* tests: change both. */
static void cpug_shape(const cp_engine *e, struct cl_state *s, unsigned cus, int gu)
{
    size_t blocks =
               ((size_t)e->max_batch + (size_t)own_st(s)->cpu_rb - 1) / (size_t)own_st(s)->cpu_rb,
           units = 0;
    for (int nv = 4; nv >= 1; nv /= 2) {
        size_t nr = (size_t)own_st(s)->vec_w * (size_t)nv;
        own_st(s)->vec_nv = nv;
        units = ((size_t)e->model->max_width + nr - 1) / nr * blocks;
        if (units >= (size_t)gu * cus)
            break;
    }
    own_st(s)->cus = units < cus ? (unsigned)units : cus;
}

/* Vectors of the device's preferred width (tune->vec_w), 4 of them per work-item (four fma
 * chains in flight at B = 1; cpug: see cpug_shape), 2 rows per work-item from B = 2 on, 4 from
 * B = 4. */
static void cpu_common_options(const cp_engine *e, struct cl_state *s, const cp_own_tune *tune,
                               unsigned cus, char *opts, size_t len)
{
    own_st(s)->vec_w = tune->vec_w;
    own_st(s)->vec_nv = 4;
    own_st(s)->cpu_rb = own_cpu_rows(e->max_batch);
    if (own_st(s)->path == PATH_CPUG)
        cpug_shape(e, s, cus, tune->cpu_gu);
    snprintf(opts, len, "-cl-std=CL1.2 -DCP_VW=%d -DCP_NV=%d -DCP_RB=%d%s", own_st(s)->vec_w,
             own_st(s)->vec_nv, own_st(s)->cpu_rb,
             !s->probing && !s->relaxed && cp_test_hook("corrupt-cpu-kernel") ? " -DCP_TEST_FLIP"
                                                                              : "");
}

static int cpu_options(const cp_engine *e, struct cl_state *s, const cp_device *dev,
                       const struct own_limits *lim, const cp_own_tune *tune, char *opts,
                       size_t len)
{
    (void)lim;
    cpu_common_options(e, s, tune, dev->compute_units, opts, len);
    own_st(s)->k_name = "cp_cpu_layer";
    return CP_OK;
}

static int cpu1_options(const cp_engine *e, struct cl_state *s, const cp_device *dev,
                        const struct own_limits *lim, const cp_own_tune *tune, char *opts,
                        size_t len)
{
    (void)lim;
    cpu_common_options(e, s, tune, dev->compute_units, opts, len);
    own_st(s)->k_name = "cp_cpu_model";
    return CP_OK;
}

/* a group per compute unit: PoCL runs one per core */
static int cpug_options(const cp_engine *e, struct cl_state *s, const cp_device *dev,
                        const struct own_limits *lim, const cp_own_tune *tune, char *opts,
                        size_t len)
{
    (void)lim;
    cpu_common_options(e, s, tune, dev->compute_units, opts, len);
    snprintf(opts + strlen(opts), len - strlen(opts), " -DCP_GRID%s", own_spin_bound_options(dev));
    own_st(s)->k_name = "cp_cpu_grid";
    return CP_OK;
}

static int cpu_upload(cp_engine *e, struct cl_state *s)
{
    return own_setup_per_layer(e, s, own_st(s)->vec_w * own_st(s)->vec_nv, true);
}

static int cpu1_upload(cp_engine *e, struct cl_state *s)
{
    return own_setup_small(e, s, false, own_st(s)->vec_w * own_st(s)->vec_nv);
}

static int cpug_upload(cp_engine *e, struct cl_state *s)
{
    int st = own_setup_small(e, s, false, own_st(s)->vec_w * own_st(s)->vec_nv);
    return st == CP_OK ? own_ctl_new(s->ctx, &s->ctl) : st;
}

/* One layer of cp_cpu_layer: a work-item per panel × cpu_rb rows, work-groups of one. */
static int cpu_layer(cp_engine *e, struct cl_state *s, int l, int batch, cl_mem in, cl_mem outb)
{
    const cp_layer *L = &e->model->layers[l];
    cl_mem wt = s->wt_layer[l];
    cl_ulong b_off = (cl_ulong)L->in * (cl_ulong)s->ldw[l];
    cl_int m_rows = batch, n = L->out, k = L->in, flags = own_layer_flags(L);
    const size_t sizes[] = {sizeof in,     sizeof outb, sizeof wt, sizeof b_off,
                            sizeof m_rows, sizeof n,    sizeof k,  sizeof flags};
    const void *const vals[] = {&in, &outb, &wt, &b_off, &m_rows, &n, &k, &flags};
    int st = own_set_args(own_st(s)->k_path, "cp_cpu_layer", 8, sizes, vals);
    if (st != CP_OK)
        return st;
    size_t grid[2] = {(size_t)s->ldw[l] / (size_t)(own_st(s)->vec_w * own_st(s)->vec_nv),
                      ((size_t)batch + (size_t)own_st(s)->cpu_rb - 1) / (size_t)own_st(s)->cpu_rb},
           one[2] = {1, 1};
    cl_int rc =
        own_enqueue_kernel(s->q, own_st(s)->k_path, 2, NULL, grid, one, 0, NULL, &s->events[l]);
    return rc == CL_SUCCESS ? CP_OK : cp_err_cl(rc, "clEnqueueNDRangeKernel(cp_cpu_layer)");
}

/* The whole model in one launch of cp_cpu_model. A model of mixed widths keeps its rows
 * max_width apart in act[1] and tmp (see the kernel) and packs the output into act[0]
 * afterwards; a uniform one ping-pongs between act[0] and act[1]. */
static int cpu_enqueue_model(cp_engine *e, struct cl_state *s, int batch, cl_mem *result)
{
    const cp_model *m = e->model;
    bool uniform = own_cpu_uniform(m);
    cl_int rc;
    if (!uniform && !s->tmp) {
        size_t bytes = (size_t)e->max_batch * (size_t)m->max_width * sizeof(float);
        s->tmp = own_create_buffer(s->ctx, CL_MEM_READ_WRITE, bytes, NULL, &rc);
        if (rc != CL_SUCCESS)
            return cp_err_cl(rc, "clCreateBuffer(cp_cpu_model's activations)");
    }
    cl_mem a = s->act[1], b = uniform ? s->act[0] : s->tmp;
    cl_int n_layers = m->n_layers, m_rows = batch, ldx = m->in_width, ld = m->max_width;
    const size_t sizes[] = {sizeof s->act[0],
                            sizeof a,
                            sizeof b,
                            sizeof own_st(s)->wt,
                            sizeof own_st(s)->desc,
                            sizeof n_layers,
                            sizeof m_rows,
                            sizeof ldx,
                            sizeof ld,
                            sizeof s->ctl};
    const void *const vals[] = {&s->act[0], &a,   &b,  &own_st(s)->wt, &own_st(s)->desc, &n_layers,
                                &m_rows,    &ldx, &ld, &s->ctl};
    bool grid = own_st(s)->path == PATH_CPUG;
    int st = own_set_args(own_st(s)->k_path, own_st(s)->k_name, grid ? 10 : 9, sizes, vals);
    if (st == CP_OK && grid)
        st = own_ctl_clear(s->q, s->ctl);
    if (st != CP_OK)
        return st;
    /* cpu1: a work-item per row block; cpug: a work-group of one per compute unit */
    size_t global =
        grid ? own_st(s)->cus
             : ((size_t)batch + (size_t)own_st(s)->cpu_rb - 1) / (size_t)own_st(s)->cpu_rb;
    size_t one = 1;
    rc =
        own_enqueue_kernel(s->q, own_st(s)->k_path, 1, NULL, &global, &one, 0, NULL, &s->events[0]);
    if (rc != CL_SUCCESS)
        return cp_err_set(CP_FAIL_RUNTIME, "clEnqueueNDRangeKernel(%s) failed: %s (%d)",
                          own_st(s)->k_name, cp_cl_error_name(rc), rc);
    *result = n_layers % 2 ? a : b;
    return own_cpu_pack_output(m, s, batch, result, "cp_cpu_model");
}

int own_cpu_pack_output(const cp_model *m, struct cl_state *s, int batch, cl_mem *result,
                        const char *kname)
{
    if (m->out_width == m->max_width)
        return CP_OK;
    /* rows max_width apart -> packed rows of out_width, into act[0] (read by layer 0 only) */
    size_t origin[3] = {0, 0, 0};
    size_t region[3] = {(size_t)m->out_width * sizeof(float), (size_t)batch, 1};
    cl_int rc = clEnqueueCopyBufferRect(s->q, *result, s->act[0], origin, origin, region,
                                        (size_t)m->max_width * sizeof(float), 0,
                                        (size_t)m->out_width * sizeof(float), 0, 0, NULL, NULL);
    if (rc != CL_SUCCESS) {
        char what[80];
        snprintf(what, sizeof what, "clEnqueueCopyBufferRect(%s's output)", kname);
        return cp_err_cl(rc, what);
    }
    *result = s->act[0];
    return CP_OK;
}

static int cpug_after_read(cp_engine *e, struct cl_state *s)
{
    (void)e;
    return own_check_ctl(s, "cl:own cpug", (size_t)own_st(s)->cus,
                         "CLPARITY_OWN_KERNEL=cpu for a launch per layer");
}

const struct cl_path_ops own_path_cpu = {
    .name = "cpu",
    .file = "own_cpu.cl",
    .fits = cpu_fits,
    .options = cpu_options,
    .plant = "-DCP_TEST_FLIP",
    .upload = cpu_upload,
    .enqueue_layer = cpu_layer,
    .release = own_release,
};

const struct cl_path_ops own_path_cpu1 = {
    .name = "cpu1",
    .file = "own_cpu.cl",
    .fits = cpu1_fits,
    .options = cpu1_options,
    .plant = "-DCP_TEST_FLIP",
    .upload = cpu1_upload,
    .enqueue_model = cpu_enqueue_model,
    .release = own_release,
};

const struct cl_path_ops own_path_cpug = {
    .name = "cpug",
    .file = "own_cpu.cl",
    .fits = cpug_fits,
    .options = cpug_options,
    .plant = "-DCP_TEST_FLIP",
    .upload = cpug_upload,
    .enqueue_model = cpu_enqueue_model,
    .after_read = cpug_after_read,
    .release = own_release,
};
