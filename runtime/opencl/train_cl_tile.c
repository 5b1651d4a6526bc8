/* cl:own's tiled training kernels on the device side (train.cl's train_tile.cl, issue 35): which
 * block each layer's products take, their kernels with every argument set once, and their
 * launches (CLPARITY_TRAIN_KERNELS). The step that runs them is train_cl.c's. */
#include "clparity/error.h"
#include "clparity/train.h"

#include "cl-shared-impl.h"
#include "own-impl.h"
#include "train-cl-state-impl.h"
#include "train-impl.h"

#include <stdlib.h>
#include <string.h>

/* tiled picks, for each product, the largest block that still gives enough work-groups: 128×128
 * outputs per work-group (8×8 per work-item) where that gives at least TILE_MIN_GROUPS8, else
 * 64×64 (4×4) where that gives at least TILE_MIN_GROUPS4, else 16×16. The step in one launch
 * (stream) where every product takes 16×16 and is small (train_cl_tile_small). Measured on the
 * H200 (132 SMs), 2026-11-30 (docs/PERFORMANCE.md, "cl:own's training products read their tiles
 * four at a time"): every way at d = 256 to 2048 and B = 16 to 1024; the rule of one work-group
 * per SM for either block (132) left 64×64 unused where it was 1.1-1.8 times faster, and took the
 * step in one launch at d=512 B=1024 at 1.8 times 64×64's time. */
#define TILE_MIN_GROUPS8 128
#define TILE_MIN_GROUPS4 64
/* the step in one launch only where no product has more than two 16×16 blocks per SM of a
 * 132-SM GPU, nor more than 2^23 terms (outputs × k): past either, a launch per product won */
#define STREAM_MAX_OUTPUTS (2 * 132 * 256)
#define STREAM_MAX_TERMS ((size_t)1 << 23)
#define TILE_WG 16

static size_t tile_groups(size_t rows, size_t cols, size_t blk)
{
    return (rows + blk - 1) / blk * ((cols + blk - 1) / blk);
}

static int tile_rm(int mode, size_t rows, size_t cols)
{
    if (mode == TILE_STREAM)
        return 1; /* the one-launch step's blocks (train_stream.cl) */
    if (mode == TILE_1 || mode == TILE_4 || mode == TILE_8)
        return mode == TILE_1 ? 1 : mode == TILE_4 ? 4 : 8;
    return tile_groups(rows, cols, 128) >= TILE_MIN_GROUPS8  ? 8
           : tile_groups(rows, cols, 64) >= TILE_MIN_GROUPS4 ? 4
                                                             : 1;
}

/* a product of rows × cols outputs and k terms each is small enough for the step in one launch */
static bool stream_fits(size_t rows, size_t cols, size_t k)
{
    return tile_rm(TILE_GRID, rows, cols) == 1 && rows * cols <= STREAM_MAX_OUTPUTS &&
           rows * cols * k <= STREAM_MAX_TERMS;
}

bool train_cl_tile_small(const cp_model *m, int batch)
{
    for (int l = 0; l < m->n_layers; ++l) {
        const cp_layer *ly = &m->layers[l];
        size_t b = (size_t)batch, in = (size_t)ly->in, out = (size_t)ly->out;
        if (!stream_fits(b, out, in) || !stream_fits(b, in, out) ||
            !stream_fits(out, in + (ly->has_bias ? 1 : 0), b))
            return false;
    }
    return true;
}

/* train.cl's kernel base with block rm (tr_fwd_t1, ...); *fits false where the device cannot
 * run it in 16×16 work-groups (an error where the block was asked for: tiled1, 4, 8). */
static int tile_kernel(struct train_cl *c, const cp_device *dev, const char *base, int rm,
                       cl_kernel *k, bool *fits)
{
    char name[32];
    snprintf(name, sizeof name, "%s%d", base, rm);
    cl_int rc;
    *k = clCreateKernel(c->prog, name, &rc);
    if (rc != CL_SUCCESS)
        return cp_err_set(CP_FAIL_RUNTIME, "clCreateKernel(%s) failed: %s (%d)", name,
                          cp_cl_error_name(rc), rc);
    size_t wg = 0;
    rc = clGetKernelWorkGroupInfo(*k, dev->device_id, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg,
                                  NULL);
    if (rc != CL_SUCCESS)
        return cp_err_set(CP_FAIL_RUNTIME, "clGetKernelWorkGroupInfo(%s) failed: %s (%d)", name,
                          cp_cl_error_name(rc), rc);
    *fits = *fits && wg >= TILE_WG * TILE_WG;
    if (wg < TILE_WG * TILE_WG && c->tile_forced)
        return cp_err_set(CP_FAIL_RUNTIME,
                          "CLPARITY_TRAIN_KERNELS: %s runs at most %zu work-items per group on "
                          "this device, not %d",
                          name, wg, TILE_WG * TILE_WG);
    return CP_OK;
}

void train_cl_tile_release(struct train_cl *c)
{
    for (size_t i = 0; c->lk && i < c->n_lk; ++i)
        if (c->lk[i])
            clReleaseKernel(c->lk[i]);
    free(c->lk);
    free(c->lrm);
    c->lk = NULL;
    c->lrm = NULL;
    c->n_lk = 0;
    if (c->sc)
        clReleaseMemObject(c->sc);
    c->sc = NULL;
    c->fused_adam = false;
    if (c->k_step)
        clReleaseKernel(c->k_step);
    c->k_step = NULL;
    cl_mem *ms[] = {&c->sdesc, &c->g3, &c->ctl};
    for (size_t i = 0; i < sizeof ms / sizeof *ms; ++i) {
        if (*ms[i])
            clReleaseMemObject(*ms[i]);
        *ms[i] = NULL;
    }
}

/* The weight-gradient kernels' (tr_gw_t, tr_step_s) update: 0 the gradient into G, 1 plain
 * SGD in place, 2 adam's or adamw's fused; where it goes, and the state and scalars of the fused
 * update (else any buffer: not read). */
struct gw_args {
    cl_int update;
    cl_mem dst, ms, vs, sc;
};

static struct gw_args gw_args(const cp_trainer *tr)
{
    const struct train_cl *c = tr->c;
    bool f = c->fused_adam;
    return (struct gw_args){f ? 2 : !tr->needs_grad, tr->needs_grad && !f ? c->G : c->p,
                            f ? c->st[0] : c->p, f ? c->st[1] : c->p, f ? c->sc : c->p};
}

/* train_stream.cl's layer table: TR_SD longs per layer */
#define STREAM_SD 9

/* The step in one launch: its layer table, a third gradient buffer, the
 * barrier's counters, the kernel with every argument set, and its work-groups: one per compute
 * unit (its groups that are not running would be waited for in vain; cp_join leaves them out). */
static int stream_setup(cp_trainer *tr, const cp_device *dev)
{
    struct train_cl *c = tr->c;
    const cp_model *m = tr->m;
    size_t L = (size_t)m->n_layers;
    cl_long *d = calloc(STREAM_SD * (L ? L : 1), sizeof *d);
    if (!d)
        return cp_err_set(CP_FAIL_RUNTIME, "cl:own training: out of memory");
    for (size_t l = 0; l < L; ++l) {
        const cp_layer *ly = &m->layers[l];
        cl_long *e = d + STREAM_SD * l;
        e[0] = (cl_long)(l * c->stride);
        e[1] = (cl_long)((l + 1) * c->stride);
        e[2] = (cl_long)ly->w_off;
        e[3] = (cl_long)ly->b_off;
        e[4] = ly->in;
        e[5] = ly->out;
        e[6] = ly->has_bias;
        e[7] = ly->act == CP_ACT_RELU;
        e[8] = ly->residual;
    }
    cl_int rc;
    const char *name = "tr_step_s";
    c->k_step = clCreateKernel(c->prog, name, &rc);
    int st = rc == CL_SUCCESS ? CP_OK
                              : cp_err_set(CP_FAIL_RUNTIME, "clCreateKernel(%s) failed: %s (%d)",
                                           name, cp_cl_error_name(rc), rc);
    if (st == CP_OK) {
        size_t bytes = STREAM_SD * (L ? L : 1) * sizeof *d;
        c->sdesc = own_create_buffer(c->ctx, CL_MEM_READ_ONLY, bytes, NULL, &rc);
        if (rc == CL_SUCCESS)
            rc = clEnqueueWriteBuffer(c->q, c->sdesc, CL_TRUE, 0, bytes, d, 0, NULL, NULL);
        if (rc != CL_SUCCESS)
            st = cp_err_cl(rc, "the one-launch step's layer table");
    }
    free(d);
    if (st == CP_OK)
        st = train_cl_buffer(c, c->stride, NULL, &c->g3, "gradient");
    if (st == CP_OK)
        st = own_ctl_new(c->ctx, &c->ctl);
    if (st != CP_OK)
        return st;
    /* one per compute unit: two per unit were slower on the H200 (d=128 L=128 B=64 SGD: 1.29
     * against 1.00 ms a step; docs/results/2026-11-29b-gpu/run2) */
    c->step_groups = dev->compute_units ? (size_t)dev->compute_units : 1;
    cl_int n_layers = m->n_layers, batch = tr->batch, n_out = tr->batch * m->out_width;
    float s = 2.0f / (float)n_out, neg_lr = -tr->lr;
    struct gw_args a = gw_args(tr);
    const size_t sz[] = {sizeof c->acts, sizeof c->z,     sizeof c->p,  sizeof c->t,
                         sizeof c->g,    sizeof c->gn,    sizeof c->g3, sizeof a.dst,
                         sizeof a.ms,    sizeof a.vs,     sizeof a.sc,  sizeof c->sdesc,
                         sizeof c->ctl,  sizeof n_layers, sizeof batch, sizeof n_out,
                         sizeof s,       sizeof a.update, sizeof neg_lr};
    const void *const va[] = {&c->acts, &c->z,  &c->p, &c->t,     &c->g,     &c->gn,  &c->g3,
                              &a.dst,   &a.ms,  &a.vs, &a.sc,     &c->sdesc, &c->ctl, &n_layers,
                              &batch,   &n_out, &s,    &a.update, &neg_lr};
    return own_set_args_at(c->k_step, name, 0, sizeof sz / sizeof *sz, sz, va);
}

/* cl:own's tiled kernels, three per layer with their arguments set once (the forward's
 * weights buffer is set at each forward): a step then sets none. Where the device cannot run
 * 16×16 work-groups, the simple kernels stay (c->lk NULL). */
int train_cl_tile_setup(cp_trainer *tr, const cp_device *dev, int mode)
{
    struct train_cl *c = tr->c;
    const cp_model *m = tr->m;
    size_t L = (size_t)m->n_layers;
    c->lk = calloc(3 * L + 1, sizeof *c->lk);
    c->lrm = calloc(3 * L + 1, sizeof *c->lrm);
    if (!c->lk || !c->lrm) {
        train_cl_tile_release(c);
        return cp_err_set(CP_FAIL_RUNTIME, "cl:own training: out of memory");
    }
    c->n_lk = 3 * L;
    c->tile_forced = mode != TILE_GRID;
    bool fits = true;
    /* adam and adamw fused where the layers' weights and biases are every parameter */
    size_t covered = 0;
    for (size_t l = 0; l < L; ++l)
        covered +=
            ((size_t)m->layers[l].in + (m->layers[l].has_bias ? 1 : 0)) * (size_t)m->layers[l].out;
    c->fused_adam = (tr->opt.kind == CP_OPTIM_ADAM || tr->opt.kind == CP_OPTIM_ADAMW) &&
                    covered == m->n_params && !cp_test_hook("train-tile-unfused");
    int st = CP_OK;
    if (c->fused_adam) {
        const float zeros[TILE_SCALARS] = {0};
        if ((st = train_cl_buffer(c, TILE_SCALARS, zeros, &c->sc, "adam's scalars")) != CP_OK)
            return st;
    }
    cl_int batch = tr->batch;
    float neg_lr = -tr->lr;
    struct gw_args a = gw_args(tr);
    for (size_t l = 0; st == CP_OK && l < L; ++l) {
        const cp_layer *ly = &m->layers[l];
        cl_ulong x_off = (cl_ulong)l * c->stride, y_off = x_off + c->stride, z_off = x_off;
        cl_ulong w_off = ly->w_off, b_off = ly->b_off;
        cl_int in = ly->in, out = ly->out, hb = ly->has_bias, act = ly->act == CP_ACT_RELU,
               res = ly->residual;
        /* the backward runs from the last layer with g = c->g, then swaps g and gn */
        bool even = (L - 1 - l) % 2 == 0;
        cl_mem g = even ? c->g : c->gn, gn = even ? c->gn : c->g;
        int *rm = &c->lrm[3 * l];
        rm[0] = tile_rm(mode, (size_t)batch, (size_t)out);
        rm[1] = tile_rm(mode, (size_t)batch, (size_t)in);
        rm[2] = tile_rm(mode, (size_t)out, (size_t)in + (hb ? 1 : 0));
        static const int sizes[] = {1, 4, 8};
        for (int i = 0; mode == TILE_GRID && train_cl_probing() && i < 3; ++i)
            rm[i] = sizes[(l + (size_t)i) % 3];
        cl_kernel *k = &c->lk[3 * l];
        if ((st = tile_kernel(c, dev, "tr_fwd_t", rm[0], &k[0], &fits)) != CP_OK ||
            (st = tile_kernel(c, dev, "tr_dx_t", rm[1], &k[1], &fits)) != CP_OK ||
            (st = tile_kernel(c, dev, "tr_gw_t", rm[2], &k[2], &fits)) != CP_OK)
            break;
        const size_t fsz[] = {sizeof c->acts, sizeof x_off, sizeof c->acts, sizeof y_off,
                              sizeof c->z,    sizeof z_off, sizeof c->p,    sizeof w_off,
                              sizeof in,      sizeof out,   sizeof batch,   sizeof hb,
                              sizeof b_off,   sizeof act,   sizeof res};
        const void *const fva[] = {&c->acts, &x_off, &c->acts, &y_off, &c->z,
                                   &z_off,   &c->p,  &w_off,   &in,    &out,
                                   &batch,   &hb,    &b_off,   &act,   &res};
        const size_t dsz[] = {sizeof g,     sizeof c->z, sizeof z_off, sizeof c->p,
                              sizeof w_off, sizeof gn,   sizeof in,    sizeof out,
                              sizeof batch, sizeof act,  sizeof res};
        const void *const dva[] = {&g,  &c->z, &z_off, &c->p, &w_off, &gn,
                                   &in, &out,  &batch, &act,  &res};
        const size_t gsz[] = {sizeof g,     sizeof c->z,     sizeof z_off,  sizeof c->acts,
                              sizeof x_off, sizeof a.dst,    sizeof w_off,  sizeof b_off,
                              sizeof in,    sizeof out,      sizeof batch,  sizeof act,
                              sizeof hb,    sizeof a.update, sizeof neg_lr, sizeof a.ms,
                              sizeof a.vs,  sizeof a.sc};
        const void *const gva[] = {&g,     &c->z,     &z_off,  &c->acts, &x_off, &a.dst,
                                   &w_off, &b_off,    &in,     &out,     &batch, &act,
                                   &hb,    &a.update, &neg_lr, &a.ms,    &a.vs,  &a.sc};
        if ((st = own_set_args_at(k[0], "tr_fwd_t", 0, 15, fsz, fva)) != CP_OK ||
            (st = own_set_args_at(k[1], "tr_dx_t", 0, 11, dsz, dva)) != CP_OK)
            break;
        st = own_set_args_at(k[2], "tr_gw_t", 0, 18, gsz, gva);
    }
    if (st == CP_OK && fits && mode == TILE_STREAM)
        st = stream_setup(tr, dev);
    if (st != CP_OK || !fits)
        train_cl_tile_release(c);
    return st;
}

/* A tiled kernel over a rows × cols output in blocks of rm·16. */
int train_cl_tile_enqueue(struct train_cl *c, cl_kernel k, const char *name, int rm, size_t rows,
                          size_t cols)
{
    size_t blk = (size_t)TILE_WG * (size_t)rm;
    size_t gws[2] = {own_round_up(cols ? cols : 1, blk) / blk * TILE_WG,
                     own_round_up(rows ? rows : 1, blk) / blk * TILE_WG};
    size_t lws[2] = {TILE_WG, TILE_WG};
    cl_int rc = own_enqueue_kernel(c->q, k, 2, NULL, gws, lws, 0, NULL, NULL);
    if (rc != CL_SUCCESS)
        return cp_err_set(CP_FAIL_RUNTIME, "clEnqueueNDRangeKernel(%s) failed: %s (%d)", name,
                          cp_cl_error_name(rc), rc);
    return CP_OK;
}

/* The step in one launch: the barrier's counters zeroed, the launch; the counters are read back
 * with the output (train_cl_stream_check). */
int train_cl_stream_enqueue(cp_trainer *tr)
{
    struct train_cl *c = tr->c;
    int st = own_ctl_clear(c->q, c->ctl);
    if (st != CP_OK)
        return st;
    size_t local = 256, global = 256 * c->step_groups;
    cl_int rc = own_enqueue_kernel(c->q, c->k_step, 1, NULL, &global, &local, 0, NULL, NULL);
    if (rc != CL_SUCCESS)
        return cp_err_set(CP_FAIL_RUNTIME, "clEnqueueNDRangeKernel(tr_step_s) failed: %s (%d)",
                          cp_cl_error_name(rc), rc);
    rc = clEnqueueReadBuffer(c->q, c->ctl, CL_FALSE, 0, sizeof c->ctl_host, c->ctl_host, 0, NULL,
                             NULL);
    return rc == CL_SUCCESS ? CP_OK : cp_err_cl(rc, "clEnqueueReadBuffer(barrier counters)");
}

/* After a blocking read that followed the launch: a wait given up inside the kernel leaves the
 * step unfinished, so no result. */
int train_cl_stream_check(struct train_cl *c)
{
    return own_ctl_verdict(c->ctl_host, "cl:own training in one launch", c->step_groups,
                           "CLPARITY_TRAIN_KERNELS=tiled for a launch per product");
}
