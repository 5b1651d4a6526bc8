/* cl:own's one-launch and persistent paths: small, pipe and reg (own_small.cl: the whole
 * model in one launch, a work-group per row or per reg_rr rows) and stream (own_stream.cl:
 * tiles of outputs streaming the weights, a launch per layer or one launch with a device-wide
 * barrier). */
#include "cl-shared-impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t stream_layer_size(const cp_layer *L)
{
    return (size_t)L->out * own_round_up((size_t)L->in, 4) + (L->has_bias ? (size_t)L->out : 0);
}

/* Floats of the stream path's buffer: every layer on a float4 boundary. */
static size_t stream_total(const cp_model *m)
{
    size_t total = 0;
    for (int l = 0; l < m->n_layers; ++l)
        total = own_round_up(total, 4) + stream_layer_size(&m->layers[l]);
    return total;
}

/* The stream path's tile and chunk where the tune leaves them to the width (0), as measured on
 * the H100 (2026-11-25, docs/PERFORMANCE.md: tools/gpu/variants.sh): chunks of 8192 floats
 * (32 KiB) streamed best; 16 outputs per tile at d <= 512 (few, large tiles: the chain is
 * short and fewer groups meet at each barrier), else 8 while that leaves at most two tiles per
 * compute unit, else 16. rb: the batch rounded up to a power of 2 (at most 16), while the
 * owners of the tile's outputs fit the work-group of 256. */
static void stream_shape(const cp_model *m, int batch, unsigned cus, int *no, int *kc, int *rb)
{
    if (*no == 0)
        *no = m->max_width <= 512 || (size_t)m->max_width / 8 > 2 * (size_t)cus ? 16 : 8;
    if (*kc == 0)
        *kc = 8192 / *no < 32 ? 32 : 8192 / *no > 1024 ? 1024 : 8192 / *no;
    *rb = 1;
    while (*rb < batch && 2 * *rb * *no <= 256 && *rb < 16)
        *rb *= 2;
}

/* ---- where each path fits ---------------------------------------------------------------
 * The one-launch paths hold every layer in one buffer (padded to float4s), with int offsets
 * in their layer table; reg computes a uniform model's offsets in size_t instead. */
static bool one_launch_fits(const cp_engine *e, const cp_device *dev, size_t max_wg, bool reg,
                            const char *name, char *why, size_t len)
{
    const cp_model *m = e->model;
    int uflags;
    bool fits =
        (size_t)m->max_width <= max_wg && m->max_width <= 1024 &&
        ((cl_ulong)m->n_params + 4 * (cl_ulong)m->n_layers) * sizeof(float) <= dev->max_alloc;
    bool ok = reg ? fits && (m->n_params < (size_t)1 << 30 || own_uniform_model(m, &uflags))
                  : fits && m->n_params < (size_t)1 << 30;
    if (!ok)
        snprintf(why, len,
                 "CLPARITY_OWN_KERNEL=%s: a layer of width %d does not fit one work-group of "
                 "this device (%zu)",
                 name, m->max_width, max_wg);
    return ok;
}

static bool small_fits(const cp_engine *e, const cp_device *dev, size_t max_wg, char *why,
                       size_t len)
{
    return one_launch_fits(e, dev, max_wg, false, "small", why, len);
}

static bool pipe_fits(const cp_engine *e, const cp_device *dev, size_t max_wg, char *why,
                      size_t len)
{
    return one_launch_fits(e, dev, max_wg, false, "pipe", why, len);
}

static bool reg_fits(const cp_engine *e, const cp_device *dev, size_t max_wg, char *why, size_t len)
{
    return one_launch_fits(e, dev, max_wg, true, "reg", why, len);
}

static bool stream_fits(const cp_engine *e, const cp_device *dev, size_t max_wg, char *why,
                        size_t len)
{
    if (max_wg < 256) {
        snprintf(why, len, "CLPARITY_OWN_KERNEL=stream needs work-groups of 256");
        return false;
    }
    if ((cl_ulong)stream_total(e->model) * sizeof(float) > dev->max_alloc) {
        snprintf(why, len,
                 "CLPARITY_OWN_KERNEL=stream: the model (%zu floats with padding) does not fit "
                 "one buffer of this device",
                 stream_total(e->model));
        return false;
    }
    return true;
}

/* ---- build options ----------------------------------------------------------------------- */

/* Wb[k/4][o][k%4] = W[o][k] for one layer (cp_model_small_reg), k padded to a multiple of 4
 * with zeros, then the bias. */
static void block_layer(const cp_model *m, int l, float *dst)
{
    const cp_layer *L = &m->layers[l];
    const float *w = m->params + L->w_off;
    for (int o = 0; o < L->out; ++o)
        for (int k = 0; k < L->in; ++k)
            dst[((size_t)(k / 4) * (size_t)L->out + (size_t)o) * 4 + (size_t)(k % 4)] =
                w[(size_t)o * (size_t)L->in + (size_t)k];
    if (L->has_bias)
        memcpy(dst + own_round_up((size_t)L->in, 4) * (size_t)L->out, m->params + L->b_off,
               (size_t)L->out * sizeof(float));
}

static size_t layer_b_size(const cp_layer *L)
{
    return own_round_up((size_t)L->in, 4) * (size_t)L->out + (L->has_bias ? (size_t)L->out : 0);
}

static int reg_options(const cp_engine *e, struct cl_state *s, const cp_device *dev,
                       const struct own_limits *lim, const cp_own_tune *tune, char *opts,
                       size_t len)
{
    const cp_model *m = e->model;
    size_t max_wg = lim->max_wg;
    cl_ulong local_mem = lim->local_mem;
    size_t w = (size_t)m->max_width;
    own_st(s)->small_ls = own_round_up(w, 32) <= max_wg ? own_round_up(w, 32) : w;
    /* Rows per work-group: up to the tuned number, while every compute unit keeps a
     * work-group and the 2 x rr rows of activations fit the local memory. */
    size_t row_bytes = 2 * own_round_up(w, 4) * sizeof(float);
    own_st(s)->reg_rr = 1;
    while (2 * own_st(s)->reg_rr <= tune->reg_rr &&
           (size_t)e->max_batch / (size_t)(2 * own_st(s)->reg_rr) >= dev->compute_units &&
           (cl_ulong)(2 * own_st(s)->reg_rr) * row_bytes <= (local_mem < 49152 ? local_mem : 49152))
        own_st(s)->reg_rr *= 2;
    /* Where a whole row of every layer fits a work-item's registers (128 floats), rg groups
     * of work-items take the layers in turn (cp_model_small_rot), up to B = 256. Measured
     * on the H100 (2026-11-25, tools/gpu/variants.sh round 5, rg=1 / 2 / 3 ms): d=128
     * L=3840 B=1 6.44 / 2.19 / 2.14, L=128 B=1 0.155 / 0.097 / 0.162, B=64 0.157 / 0.100
     * / 0.098, B=256 0.186 / 0.174 / 0.175, but B=2048 0.446 / 0.536 / 0.499. */
    own_st(s)->reg_ng =
        w <= 128 && e->max_batch <= 256 && own_st(s)->small_ls * (size_t)tune->reg_rg <= max_wg
            ? tune->reg_rg
            : 1;
    /* rot's chain runs over the whole row: its "chunk" is the padded width */
    int rc = own_st(s)->reg_ng > 1 ? (int)own_round_up(w, 4) : tune->reg_rc;
    int n = snprintf(opts, len,
                     "-cl-std=CL1.2 -DCP_NO_TILES -DCP_LS=%zu -DCP_MAXW=%zu -DCP_RC=%d "
                     "-DCP_RD=%d -DCP_RR=%d",
                     own_st(s)->small_ls, w, rc, tune->reg_rd, own_st(s)->reg_rr);
    if (own_st(s)->reg_ng > 1)
        n += snprintf(opts + n, len - (size_t)n, " -DCP_NG=%d", own_st(s)->reg_ng);
    int flags;
    if (own_uniform_model(m, &flags))
        snprintf(opts + n, len - (size_t)n, " -DCP_UD=%d -DCP_UFLAGS=%d -DCP_US=%zu",
                 m->layers[0].in, flags, own_round_up(layer_b_size(&m->layers[0]), 4));
    own_st(s)->k_name = own_st(s)->reg_ng > 1 ? "cp_model_small_rot" : "cp_model_small_reg";
    return CP_OK;
}

/* Tiles of no outputs × rb rows (rb: the batch rounded up to a power of 2, while the owners
 * fit the work-group); the chunk shrinks until both tiles fit local memory. */
static int stream_options(const cp_engine *e, struct cl_state *s, const cp_device *dev,
                          const struct own_limits *lim, const cp_own_tune *tune, char *opts,
                          size_t len)
{
    const cp_model *m = e->model;
    int no = tune->str_no, kc = tune->str_kc, rb = 1;
    stream_shape(m, e->max_batch, dev->compute_units, &no, &kc, &rb);
    own_st(s)->str_sg =
        tune->str_sg ? tune->str_sg
        : (size_t)(m->max_width + no - 1) / (size_t)no * (size_t)((e->max_batch + rb - 1) / rb) >
                dev->compute_units
            ? 2
            : 1;
    while ((cl_ulong)(no + rb) * (cl_ulong)(kc + 4) * sizeof(float) + 64 > lim->local_mem &&
           kc > 32)
        kc /= 2;
    own_st(s)->str_no = no;
    own_st(s)->str_rb = rb;
    own_st(s)->str_sp = tune->str_sp;
    own_st(s)->cus = dev->compute_units;
    snprintf(opts, len, "-cl-std=CL1.2 -DCP_LS=256 -DCP_NO=%d -DCP_RB=%d -DCP_KC=%d%s%s", no, rb,
             kc, own_st(s)->str_sp ? " -DCP_PERSIST" : "",
             own_st(s)->str_sp ? own_spin_bound_options(dev) : "");
    own_st(s)->k_name = "cp_stream";
    return CP_OK;
}

/* small and pipe: the pipelined kernel gets more work-items than outputs: they share the loads
 * of the weight tiles, and more of them keep more loads in flight. */
static int small_pipe_options(const cp_engine *e, struct cl_state *s, const struct own_limits *lim,
                              bool pipe, char *opts, size_t len)
{
    const cp_model *m = e->model;
    size_t max_wg = lim->max_wg;
    size_t w = (size_t)m->max_width;
    own_st(s)->small_ls = !pipe ? own_round_up(w, 8) : (max_wg < 1024 ? max_wg : 1024);
    if (own_st(s)->small_ls > max_wg || own_st(s)->small_ls < w)
        own_st(s)->small_ls = own_round_up(w, 8) <= max_wg ? own_round_up(w, 8) : w;
    size_t budget = (lim->local_mem < 49152 ? (size_t)lim->local_mem : 49152) / sizeof(float);
    size_t kt = budget > 2 * w + 64 ? (budget - 2 * w - 64) / w : 1;
    if (kt > 256)
        kt = 256;
    if (kt > 4)
        kt &= ~(size_t)3;
    bool v4 = w % 4 == 0; /* every width a multiple of 4: float4 weight tiles */
    for (int l = 0; l < m->n_layers; ++l)
        v4 = v4 && m->layers[l].out % 4 == 0;
    snprintf(opts, len, "-cl-std=CL1.2 -DCP_LS=%zu -DCP_MAXW=%zu -DCP_KT=%zu%s",
             own_st(s)->small_ls, w, kt, v4 && pipe ? " -DCP_V4" : "");
    own_st(s)->k_name = !pipe ? "cp_model_small" : "cp_model_small_pipe";
    return CP_OK;
}

static int small_options(const cp_engine *e, struct cl_state *s, const cp_device *dev,
                         const struct own_limits *lim, const cp_own_tune *tune, char *opts,
                         size_t len)
{
    (void)dev;
    (void)tune;
    return small_pipe_options(e, s, lim, false, opts, len);
}

static int pipe_options(const cp_engine *e, struct cl_state *s, const cp_device *dev,
                        const struct own_limits *lim, const cp_own_tune *tune, char *opts,
                        size_t len)
{
    (void)dev;
    (void)tune;
    return small_pipe_options(e, s, lim, true, opts, len);
}

/* ---- the weights' layouts ---------------------------------------------------------------- */

/* A layer's row length in own_setup_small's buffer: out, or out padded to panels of nr. */
static int small_ldw(const cp_layer *L, int nr)
{
    return nr ? (int)own_round_up((size_t)L->out, (size_t)nr) : L->out;
}

/* The one-launch paths: one buffer with every layer, transposed (Wt[k][o]), blocked for
 * cp_model_small_reg, or packed in panels of nr outputs (nr > 0, cp_cpu_model), each layer on
 * a float4 boundary, and the layer table. */
int own_setup_small(cp_engine *e, struct cl_state *s, bool blocked, int nr)
{
    const cp_model *m = e->model;
    size_t total = 0;
    for (int l = 0; l < m->n_layers; ++l) {
        const cp_layer *L = &m->layers[l];
        total = own_round_up(total, 4) +
                (blocked ? layer_b_size(L) : own_layer_t_size(L, small_ldw(L, nr)));
    }
    float *wt = calloc(total ? total : 1, sizeof *wt); /* zero padding between layers */
    int *desc = malloc((size_t)m->n_layers * 5 * sizeof *desc);
    int st = CP_OK;
    if (!wt || !desc) {
        st = cp_err_set(CP_FAIL_RUNTIME, "cl:own: out of memory for the transposed weights");
        goto out;
    }
    size_t off = 0;
    for (int l = 0; l < m->n_layers; ++l) {
        const cp_layer *L = &m->layers[l];
        off = own_round_up(off, 4); /* every layer on a float4 boundary, for CP_V4 and reg */
        size_t k_rows = blocked ? own_round_up((size_t)L->in, 4) : (size_t)L->in;
        if (blocked)
            block_layer(m, l, wt + off);
        else if (nr)
            own_pack_layer(m, l, small_ldw(L, nr), nr, wt + off);
        else
            own_transpose_layer(m, l, L->out, wt + off);
        desc[5 * l] = L->in;
        desc[5 * l + 1] = L->out;
        desc[5 * l + 2] = own_layer_flags(L);
        /* past INT_MAX only a uniform model takes this path, and its kernel does not read the
         * table's offsets (reg: -DCP_UD) */
        size_t b_at = off + k_rows * (size_t)(blocked ? L->out : small_ldw(L, nr));
        desc[5 * l + 3] = off <= INT32_MAX ? (int)off : -1;
        desc[5 * l + 4] = b_at <= INT32_MAX ? (int)b_at : -1;
        off += blocked ? layer_b_size(L) : own_layer_t_size(L, small_ldw(L, nr));
    }
    st = own_upload(s, &own_st(s)->wt, wt, total * sizeof *wt, "transposed weights");
    if (st == CP_OK)
        st = own_upload(s, &own_st(s)->desc, desc, (size_t)m->n_layers * 5 * sizeof *desc,
                        "layer table");
out:
    free(wt);
    free(desc);
    return st;
}

static int small_upload(cp_engine *e, struct cl_state *s)
{
    return own_setup_small(e, s, false, 0);
}

static int reg_upload(cp_engine *e, struct cl_state *s)
{
    return own_setup_small(e, s, true, 0);
}

/* The stream path (own_stream.cl): every layer's W[o][k] as stored, rows padded to a multiple
 * of 4 with zeros, the bias after them, each layer on a float4 boundary; the layer table (5
 * longs per layer: in, out, flags, offsets of W and bias), and for the one-launch form the
 * barrier's counters. */
static int stream_upload(cp_engine *e, struct cl_state *s)
{
    const cp_model *m = e->model;
    size_t total = stream_total(m);
    float *w = calloc(total ? total : 1, sizeof *w);
    own_st(s)->str_desc = malloc((size_t)m->n_layers * 5 * sizeof *own_st(s)->str_desc);
    int st = CP_OK;
    if (!w || !own_st(s)->str_desc) {
        st = cp_err_set(CP_FAIL_RUNTIME, "cl:own: out of memory for the stream layout");
        goto out;
    }
    size_t off = 0;
    for (int l = 0; l < m->n_layers; ++l) {
        const cp_layer *L = &m->layers[l];
        size_t ldk = own_round_up((size_t)L->in, 4);
        off = own_round_up(off, 4);
        for (int o = 0; o < L->out; ++o)
            memcpy(w + off + (size_t)o * ldk, m->params + L->w_off + (size_t)o * (size_t)L->in,
                   (size_t)L->in * sizeof(float));
        if (L->has_bias)
            memcpy(w + off + (size_t)L->out * ldk, m->params + L->b_off,
                   (size_t)L->out * sizeof(float));
        long long *d = own_st(s)->str_desc + 5 * (size_t)l;
        d[0] = L->in;
        d[1] = L->out;
        d[2] = own_layer_flags(L);
        d[3] = (long long)off;
        d[4] = (long long)(off + (size_t)L->out * ldk);
        off += stream_layer_size(L);
    }
    st = own_upload(s, &own_st(s)->wt, w, total * sizeof *w, "stream weights");
    if (st == CP_OK)
        st = own_upload(s, &own_st(s)->desc, own_st(s)->str_desc,
                        (size_t)m->n_layers * 5 * sizeof *own_st(s)->str_desc, "layer table");
    if (st == CP_OK && own_st(s)->str_sp)
        st = own_ctl_new(s->ctx, &s->ctl);
out:
    free(w);
    return st;
}

/* ---- launches ----------------------------------------------------------------------------- */

/* The whole model in one launch, a work-group per row (reg: per reg_rr rows). */
static int one_launch_enqueue(cp_engine *e, struct cl_state *s, int batch, cl_mem *result)
{
    const cp_model *m = e->model;
    bool reg = own_st(s)->path == PATH_REG;
    cl_int n_layers = m->n_layers, in0 = m->in_width, out_last = m->out_width, nb = batch;
    const size_t sizes[] = {sizeof s->act[0],       sizeof s->act[1], sizeof own_st(s)->wt,
                            sizeof own_st(s)->desc, sizeof n_layers,  sizeof in0,
                            sizeof out_last,        sizeof nb};
    const void *const vals[] = {&s->act[0], &s->act[1], &own_st(s)->wt, &own_st(s)->desc,
                                &n_layers,  &in0,       &out_last,      &nb};
    int st = own_set_args(own_st(s)->k_path, s->ops->name, reg ? 8 : 7, sizes, vals);
    if (st != CP_OK)
        return st;
    size_t groups =
        reg ? ((size_t)batch + (size_t)own_st(s)->reg_rr - 1) / (size_t)own_st(s)->reg_rr
            : (size_t)batch;
    size_t local = own_st(s)->small_ls * (reg ? (size_t)own_st(s)->reg_ng : 1);
    size_t global = local * groups;
    cl_int rc = own_enqueue_kernel(s->q, own_st(s)->k_path, 1, NULL, &global, &local, 0, NULL,
                                   &s->events[0]);
    if (rc != CL_SUCCESS)
        return cp_err_set(CP_FAIL_RUNTIME, "clEnqueueNDRangeKernel(%s) failed: %s (%d)",
                          own_st(s)->k_name, cp_cl_error_name(rc), rc);
    *result = s->act[1];
    return CP_OK;
}

/* The stream kernel over layers [l0, l1): a work-group per tile of layer l0 (a launch per
 * layer), or, with str_sp, every layer in one launch of str_sg work-groups per compute unit
 * that meet at a device-wide barrier (its counters zeroed first). */
static int enqueue_stream(struct cl_state *s, int l0, int l1, int batch)
{
    cl_mem ctl = s->ctl;
    cl_int a = l0, b = l1, nb = batch, max_tiles = 0;
    for (int l = l0; l < l1; ++l) {
        const long long *d = own_st(s)->str_desc + 5 * (size_t)l;
        long long t = (d[1] + own_st(s)->str_no - 1) / own_st(s)->str_no *
                      ((batch + own_st(s)->str_rb - 1) / own_st(s)->str_rb);
        if (t > max_tiles)
            max_tiles = t > INT32_MAX ? INT32_MAX : (cl_int)t;
    }
    const size_t sizes[] = {sizeof s->act[0],
                            sizeof s->act[1],
                            sizeof own_st(s)->wt,
                            sizeof own_st(s)->desc,
                            sizeof ctl,
                            sizeof a,
                            sizeof b,
                            sizeof nb,
                            sizeof max_tiles};
    const void *const vals[] = {&s->act[0], &s->act[1], &own_st(s)->wt, &own_st(s)->desc, &ctl, &a,
                                &b,         &nb,        &max_tiles};
    int st = own_set_args(own_st(s)->k_path, "cp_stream", 9, sizes, vals);
    if (st != CP_OK)
        return st;
    size_t groups;
    cl_int rc;
    if (own_st(s)->str_sp) {
        st = own_ctl_clear(s->q, s->ctl);
        if (st != CP_OK)
            return st;
        groups = (size_t)own_st(s)->cus * (size_t)own_st(s)->str_sg;
    } else {
        groups = (size_t)max_tiles;
    }
    size_t local = 256, global = 256 * groups;
    rc = own_enqueue_kernel(s->q, own_st(s)->k_path, 1, NULL, &global, &local, 0, NULL,
                            &s->events[l0]);
    return rc == CL_SUCCESS ? CP_OK : cp_err_cl(rc, "clEnqueueNDRangeKernel(cp_stream)");
}

static int stream_layer(cp_engine *e, struct cl_state *s, int l, int batch, cl_mem in, cl_mem out)
{
    (void)e;
    (void)in;
    (void)out;
    return enqueue_stream(s, l, l + 1, batch);
}

static int stream_enqueue(cp_engine *e, struct cl_state *s, int batch, cl_mem *result)
{
    (void)result;
    if (!own_st(s)->str_sp)
        return own_enqueue_layers(e, s, batch, stream_layer);
    int st = enqueue_stream(s, 0, e->model->n_layers, batch);
    if (st != CP_OK)
        clFinish(s->q);
    return st;
}

static int stream_after_read(cp_engine *e, struct cl_state *s)
{
    (void)e;
    return own_st(s)->str_sp ? own_check_ctl(s, "cl:own stream",
                                             (size_t)own_st(s)->cus * (size_t)own_st(s)->str_sg,
                                             "CLPARITY_OWN_TUNE=sp=0 for a launch per layer")
                             : CP_OK;
}

/* ---- `clparity tune`'s candidates (cmd_tune.c reads them from the rows) ------------------ */

static const char *const reg_c[] = {"rc=16,rd=2,rg=1",  "rc=32,rd=2,rg=1", "rc=64,rd=2,rg=1",
                                    "rc=128,rd=2,rg=1", "rc=16,rd=4,rg=1", "rc=32,rd=3,rg=1",
                                    "rc=32,rd=4,rg=1",  "rc=64,rd=3,rg=1", "rc=64,rd=2,rg=2",
                                    "rc=64,rd=2,rg=3",  "rc=64,rd=2,rg=4", NULL};
/* stream: the width rule (0s) against fixed tiles, chunks and groups per compute unit, and a
 * launch per layer (sp=0). */
static const char *const stream_c[] = {"so=0,sk=0,sp=1,sg=0",    "so=16,sk=512,sp=1,sg=1",
                                       "so=16,sk=512,sp=1,sg=2", "so=8,sk=1024,sp=1,sg=1",
                                       "so=8,sk=1024,sp=1,sg=2", "so=32,sk=256,sp=1,sg=1",
                                       "so=0,sk=0,sp=0,sg=0",    NULL};
static const char *const stream_q[] = {"so=0,sk=0,sp=1,sg=0", "so=16,sk=512,sp=1,sg=2",
                                       "so=0,sk=0,sp=0,sg=0", NULL};
/* The reference model and B=256. A deep model (L=1024) was a third shape on 2026-11-25: its
 * time outweighed the others and picked rg=3 (sum 0.865 ms against rg=2's 0.881), which takes
 * the reference model alone from 0.097 to 0.162 ms (docs/PERFORMANCE.md). */
static const cp_tune_shape reg_more[] = {{128, 128, 256}, {0, 0, 0}};
static const cp_tune_shape stream_more[] = {{512, 64, 1}, {2048, 16, 1}, {4096, 4, 1}, {0, 0, 0}};

/* `clparity tune`'s candidates for reg and stream (GPUs). */
static const cp_tunable reg_tune = {.path = "reg",
                                    .rank = 0,
                                    .gpu = true,
                                    .full = {128, 128, 1},
                                    .quick = {128, 16, 1},
                                    .cands = reg_c,
                                    .quick_cands = reg_c,
                                    .more = reg_more};
static const cp_tunable stream_tune = {.path = "stream",
                                       .rank = 1,
                                       .gpu = true,
                                       .full = {1024, 64, 1},
                                       .quick = {1024, 8, 1},
                                       .cands = stream_c,
                                       .quick_cands = stream_q,
                                       .more = stream_more};

const struct cl_path_ops own_path_small = {
    .name = "small",
    .file = "own_small.cl",
    .fits = small_fits,
    .options = small_options,
    .plant = "-DCP_PLANT_BIT",
    .upload = small_upload,
    .enqueue_model = one_launch_enqueue,
    .release = own_release,
};

const struct cl_path_ops own_path_pipe = {
    .name = "pipe",
    .file = "own_small.cl",
    .fits = pipe_fits,
    .options = pipe_options,
    .plant = "-DCP_PLANT_BIT",
    .upload = small_upload,
    .enqueue_model = one_launch_enqueue,
    .release = own_release,
};

const struct cl_path_ops own_path_reg = {
    .name = "reg",
    .file = "own_small.cl",
    .fits = reg_fits,
    .options = reg_options,
    .plant = "-DCP_PLANT_BIT",
    .plant_after_probe = true,
    .upload = reg_upload,
    .enqueue_model = one_launch_enqueue,
    .release = own_release,
    .tune = &reg_tune,
};

const struct cl_path_ops own_path_stream = {
    .name = "stream",
    .file = "own_stream.cl",
    .fits = stream_fits,
    .options = stream_options,
    .plant = "-DCP_PLANT_BIT",
    .plant_after_probe = true,
    .upload = stream_upload,
    .enqueue_model = stream_enqueue,
    .after_read = stream_after_read,
    .release = own_release,
    .tune = &stream_tune,
};
