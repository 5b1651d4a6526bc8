/* cl:own's per-layer GEMM paths: naive (block.cl's cp_linear, the reference form, a work-item
 * per output), tiled (own_gemm.cl's cp_gemm_tiled and cp_gemm_tiled4, local-memory tiles, for
 * GPUs) and vec (own_gemm.cl's cp_gemm_vec, register tiles over packed panels, for CPUs). */
#include "cl-shared-impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Wt[k][o] = W[o][k] for one layer, n padded to ldw with zeros, then the bias. */
void own_transpose_layer(const cp_model *m, int l, int ldw, float *dst)
{
    const cp_layer *L = &m->layers[l];
    const float *w = m->params + L->w_off;
    for (int k = 0; k < L->in; ++k)
        for (int o = 0; o < ldw; ++o)
            dst[(size_t)k * (size_t)ldw + (size_t)o] =
                o < L->out ? w[(size_t)o * (size_t)L->in + (size_t)k] : 0.0f;
    if (L->has_bias)
        memcpy(dst + (size_t)L->in * (size_t)ldw, m->params + L->b_off,
               (size_t)L->out * sizeof(float));
}

size_t own_layer_t_size(const cp_layer *L, int ldw)
{
    return (size_t)L->in * (size_t)ldw + (L->has_bias ? (size_t)L->out : 0);
}

/* Wp[n / nr][k][n % nr] = W[n][k] for one layer (cp_gemm_vec's panels), n padded to ldw (a
 * multiple of nr) with zeros, then the bias. */
void own_pack_layer(const cp_model *m, int l, int ldw, int nr, float *dst)
{
    const cp_layer *L = &m->layers[l];
    const float *w = m->params + L->w_off;
    for (int o = 0; o < ldw; ++o) {
        float *panel = dst + (size_t)(o / nr) * (size_t)L->in * (size_t)nr + (size_t)(o % nr);
        for (int k = 0; k < L->in; ++k)
            panel[(size_t)k * (size_t)nr] =
                o < L->out ? w[(size_t)o * (size_t)L->in + (size_t)k] : 0.0f;
    }
    if (L->has_bias)
        memcpy(dst + (size_t)L->in * (size_t)ldw, m->params + L->b_off,
               (size_t)L->out * sizeof(float));
}

/* PATH_VEC, PATH_CPU and PATH_TILED: one buffer per layer, n padded to a multiple of pad:
 * packed in panels of pad columns (vec and cpu, pad = vec_w·vec_nv), or transposed (tiled, pad
 * 4 for cp_gemm_tiled4's float4 rows). */
int own_setup_per_layer(cp_engine *e, struct cl_state *s, int pad, bool packed)
{
    const cp_model *m = e->model;
    s->wt_layer = calloc((size_t)m->n_layers, sizeof *s->wt_layer);
    s->ldw = calloc((size_t)m->n_layers, sizeof *s->ldw);
    if (!s->wt_layer || !s->ldw)
        return cp_err_set(CP_FAIL_RUNTIME, "cl:own: out of memory");
    int st = CP_OK;
    for (int l = 0; l < m->n_layers && st == CP_OK; ++l) {
        const cp_layer *L = &m->layers[l];
        s->ldw[l] = (int)own_round_up((size_t)L->out, (size_t)pad);
        size_t n = own_layer_t_size(L, s->ldw[l]);
        float *wt = malloc((n ? n : 1) * sizeof *wt);
        if (!wt)
            return cp_err_set(CP_FAIL_RUNTIME, "cl:own: out of memory for layer %d", l);
        if (packed)
            own_pack_layer(m, l, s->ldw[l], pad, wt);
        else
            own_transpose_layer(m, l, s->ldw[l], wt);
        st = own_upload(s, &s->wt_layer[l], wt, n * sizeof *wt, "transposed layer");
        free(wt);
    }
    return st;
}

/* ---- naive ------------------------------------------------------------------------------- */

static bool always_fits(const cp_engine *e, const cp_device *dev, size_t max_wg, char *why,
                        size_t len)
{
    (void)e;
    (void)dev;
    (void)max_wg;
    (void)why;
    (void)len;
    return true;
}

/* One layer of cp_linear: a work-item per output, the weights as stored. cl:relaxed runs it
 * too. */
static int naive_layer(cp_engine *e, struct cl_state *s, int l, int batch, cl_mem in, cl_mem outb)
{
    struct stored_layer a;
    own_stored_layer(e, s, l, &a);
    size_t global[2] = {(size_t)a.out, (size_t)batch};
    const size_t sizes[] = {sizeof in,    sizeof outb,      sizeof a.w,        sizeof a.w_off,
                            sizeof a.in,  sizeof a.out,     sizeof a.has_bias, sizeof a.b_off,
                            sizeof a.act, sizeof a.residual};
    const void *const vals[] = {&in,    &outb,       &a.w,     &a.w_off, &a.in,
                                &a.out, &a.has_bias, &a.b_off, &a.act,   &a.residual};
    int st = own_set_args(s->k_linear, "cp_linear", 10, sizes, vals);
    if (st != CP_OK)
        return st;
    cl_int rc =
        own_enqueue_kernel(s->q, s->k_linear, 2, NULL, global, NULL, 0, NULL, &s->events[l]);
    return rc == CL_SUCCESS ? CP_OK : cp_err_cl(rc, "clEnqueueNDRangeKernel(cp_linear)");
}

/* ---- tiled ------------------------------------------------------------------------------- */

static bool tiled_fits(const cp_engine *e, const cp_device *dev, size_t max_wg, char *why,
                       size_t len)
{
    (void)e;
    (void)dev;
    if (max_wg >= 256)
        return true;
    snprintf(why, len, "CLPARITY_OWN_KERNEL=tiled needs work-groups of 256");
    return false;
}

/* The two tiles, (bk rows of 128 + xp floats for x, of 128 for W) times db, must fit the local
 * memory: give up double buffering, then the padding, then depth. */
static int tiled_options(const cp_engine *e, struct cl_state *s, const cp_device *dev,
                         const struct own_limits *lim, const cp_own_tune *tune, char *opts,
                         size_t len)
{
    (void)e;
    (void)dev;
    own_st(s)->tile_bk = tune->tiled_bk;
    own_st(s)->tile_xp = tune->tiled_xp;
    own_st(s)->tile_db = tune->tiled_db ? 2 : 1;
    while ((cl_ulong)(own_st(s)->tile_bk * own_st(s)->tile_db) *
                   (256 + (cl_ulong)own_st(s)->tile_xp) * sizeof(float) >
               lim->local_mem &&
           (own_st(s)->tile_db > 1 || own_st(s)->tile_xp > 0 || own_st(s)->tile_bk > 16)) {
        if (own_st(s)->tile_db > 1)
            own_st(s)->tile_db = 1;
        else if (own_st(s)->tile_xp > 0)
            own_st(s)->tile_xp = 0;
        else
            own_st(s)->tile_bk = 16;
    }
    snprintf(opts, len,
             "-cl-std=CL1.2 -DCP_BM=128 -DCP_BN=128 -DCP_BK=16 "
             "-DCP_TM=8 -DCP_TN=8 -DCP_BK4=%d -DCP_DB=%d -DCP_XL=%d -DCP_XP=%d -DCP_PF=%d",
             own_st(s)->tile_bk, own_st(s)->tile_db == 2, tune->tiled_xl, own_st(s)->tile_xp,
             tune->tiled_pf);
    own_st(s)->k_name = "cp_gemm_tiled";
    return CP_OK;
}

static int tiled_upload(cp_engine *e, struct cl_state *s)
{
    return own_setup_per_layer(e, s, 4, false);
}

static int tiled_layer(cp_engine *e, struct cl_state *s, int l, int batch, cl_mem in, cl_mem outb)
{
    const cp_layer *L = &e->model->layers[l];
    cl_mem w = s->chunks[s->layer_chunk[l]];
    size_t base = s->chunk_start[s->layer_chunk[l]];
    cl_ulong w_off = (cl_ulong)(L->w_off - base);
    cl_ulong b_off = (cl_ulong)(L->has_bias ? L->b_off - base : 0);
    cl_int in_w = L->in, out_w = L->out;
    cl_int flags = own_layer_flags(L);
    cl_int m_rows = batch;
    cl_int rc;
    int st;
    cl_kernel k = own_st(s)->k_path;
    if (L->in % 4 == 0) {
        /* cp_gemm_tiled4 reads the layer's transposed weights, the bias after them. */
        k = own_st(s)->k_path4;
        cl_mem wt = s->wt_layer[l];
        cl_int ldw = s->ldw[l];
        cl_ulong bt_off = (cl_ulong)L->in * (cl_ulong)ldw;
        const size_t sizes[] = {sizeof in,    sizeof outb,   sizeof wt,
                                sizeof ldw,   sizeof bt_off, sizeof m_rows,
                                sizeof out_w, sizeof in_w,   sizeof flags};
        const void *const vals[] = {&in, &outb, &wt, &ldw, &bt_off, &m_rows, &out_w, &in_w, &flags};
        st = own_set_args(k, "cp_gemm_tiled4", 9, sizes, vals);
    } else {
        const size_t sizes[] = {sizeof in,    sizeof outb,  sizeof w,
                                sizeof w_off, sizeof b_off, sizeof m_rows,
                                sizeof out_w, sizeof in_w,  sizeof flags};
        const void *const vals[] = {&in, &outb, &w, &w_off, &b_off, &m_rows, &out_w, &in_w, &flags};
        st = own_set_args(k, "cp_gemm_tiled", 9, sizes, vals);
    }
    if (st != CP_OK)
        return st;
    /* The two local tiles: tile_bk rows of 128 floats (x's padded by tile_xp; twice,
     * double-buffered), or 16 rows of 132 (padded) in the scalar kernel. */
    size_t rows = (size_t)(own_st(s)->tile_bk * own_st(s)->tile_db);
    size_t tiles[2] = {rows * (128 + (size_t)own_st(s)->tile_xp) * sizeof(float),
                       rows * 128 * sizeof(float)};
    if (L->in % 4 != 0)
        tiles[0] = tiles[1] = 16 * 132 * sizeof(float);
    for (cl_uint a = 9; a < 11; ++a) {
        rc = clSetKernelArg(k, a, tiles[a - 9], NULL);
        if (rc != CL_SUCCESS)
            return cp_err_cl(rc, "clSetKernelArg(cp_gemm_tiled, local tile)");
    }
    size_t local[2] = {16, 16};
    size_t grid[2] = {own_round_up((size_t)L->out, 128) / 8, own_round_up((size_t)batch, 128) / 8};
    rc = own_enqueue_kernel(s->q, k, 2, NULL, grid, local, 0, NULL, &s->events[l]);
    return rc == CL_SUCCESS ? CP_OK : cp_err_cl(rc, "clEnqueueNDRangeKernel(cp_gemm_tiled)");
}

/* ---- vec --------------------------------------------------------------------------------- */

static int vec_options(const cp_engine *e, struct cl_state *s, const cp_device *dev,
                       const struct own_limits *lim, const cp_own_tune *tune, char *opts,
                       size_t len)
{
    (void)e;
    (void)lim;
    own_st(s)->vec_w = tune->vec_w;
    own_st(s)->vec_rb = tune->vec_rb;
    own_st(s)->vec_nv = tune->vec_nv;
    own_st(s)->vec_mc = tune->vec_mc;
    own_st(s)->cus = dev->compute_units;
    snprintf(opts, len, "-cl-std=CL1.2 -DCP_VW=%d -DCP_RB=%d -DCP_NV=%d", own_st(s)->vec_w,
             own_st(s)->vec_rb, own_st(s)->vec_nv);
    own_st(s)->k_name = "cp_gemm_vec";
    return CP_OK;
}

static int vec_upload(cp_engine *e, struct cl_state *s)
{
    return own_setup_per_layer(e, s, own_st(s)->vec_w * own_st(s)->vec_nv, true);
}

static int vec_layer(cp_engine *e, struct cl_state *s, int l, int batch, cl_mem in, cl_mem outb)
{
    const cp_layer *L = &e->model->layers[l];
    cl_int in_w = L->in, out_w = L->out;
    cl_int flags = own_layer_flags(L);
    cl_int m_rows = batch;
    cl_mem wt = s->wt_layer[l];
    cl_ulong wt_off = 0, bt_off = (cl_ulong)L->in * (cl_ulong)s->ldw[l];
    cl_int ldw = s->ldw[l];
    /* Rows per work-item: the tuned number (a multiple of the register tile), no more than
     * the batch needs, and fewer where that leaves under 4 work-items per compute unit. */
    size_t panels = (size_t)ldw / (size_t)(own_st(s)->vec_w * own_st(s)->vec_nv),
           rb = (size_t)own_st(s)->vec_rb;
    size_t mc = own_round_up((size_t)own_st(s)->vec_mc, rb);
    if (mc > own_round_up((size_t)batch, rb))
        mc = own_round_up((size_t)batch, rb);
    while (mc > rb && panels * (((size_t)batch + mc - 1) / mc) < 4 * (size_t)own_st(s)->cus)
        mc = own_round_up(mc / 2, rb);
    cl_int mc_i = (cl_int)mc;
    const size_t sizes[] = {sizeof in,     sizeof outb, sizeof wt,     sizeof wt,
                            sizeof wt_off, sizeof ldw,  sizeof bt_off, sizeof m_rows,
                            sizeof out_w,  sizeof in_w, sizeof flags,  sizeof mc_i};
    /* The bias sits after the packed weights in the same buffer: p is that buffer. */
    const void *const vals[] = {&in,     &outb,   &wt,    &wt,   &wt_off, &ldw,
                                &bt_off, &m_rows, &out_w, &in_w, &flags,  &mc_i};
    int st = own_set_args(own_st(s)->k_path, "cp_gemm_vec", 12, sizes, vals);
    if (st != CP_OK)
        return st;
    /* Work-groups of one work-item: as many groups as work-items for the cores to share
     * (PoCL's own choice could make fewer groups than cores). */
    size_t grid[2] = {panels, ((size_t)batch + mc - 1) / mc}, one[2] = {1, 1};
    cl_int rc =
        own_enqueue_kernel(s->q, own_st(s)->k_path, 2, NULL, grid, one, 0, NULL, &s->events[l]);
    return rc == CL_SUCCESS ? CP_OK : cp_err_cl(rc, "clEnqueueNDRangeKernel(cp_gemm_vec)");
}

/* ---- `clparity tune`'s candidates (cmd_tune.c reads them from the rows) ------------------ */

static const char *const tiled_c[] = {"bk=16,db=0,xl=0,xp=0,pf=1",
                                      "bk=16,db=0,xl=0,xp=4,pf=1",
                                      "bk=32,db=0,xl=0,xp=0,pf=1",
                                      "bk=32,db=0,xl=0,xp=4,pf=1",
                                      "bk=16,db=1,xl=0,xp=0,pf=1",
                                      "bk=16,db=1,xl=0,xp=4,pf=1",
                                      "bk=16,db=0,xl=1,xp=0,pf=1",
                                      "bk=32,db=1,xl=0,xp=4,pf=1",
                                      "bk=16,db=0,xl=0,xp=4,pf=0",
                                      "bk=32,db=0,xl=0,xp=4,pf=0",
                                      NULL};
/* vec: register tiles of rb rows × nv vectors that fit 16 (vw=8, AVX2) or 32 (vw=16,
 * AVX-512) vector registers, then the rows per work-item around the best tiles. */
static const char *const vec_c[] = {"vw=8,rb=4,nv=1,mc=128",  "vw=8,rb=4,nv=2,mc=128",
                                    "vw=8,rb=8,nv=1,mc=128",  "vw=8,rb=2,nv=4,mc=128",
                                    "vw=16,rb=8,nv=1,mc=128", "vw=16,rb=4,nv=2,mc=128",
                                    "vw=16,rb=8,nv=2,mc=128", "vw=16,rb=12,nv=2,mc=128",
                                    "vw=16,rb=4,nv=4,mc=128", "vw=16,rb=8,nv=2,mc=32",
                                    "vw=16,rb=8,nv=2,mc=512", "vw=16,rb=4,nv=4,mc=32",
                                    "vw=16,rb=4,nv=4,mc=512", NULL};
static const char *const vec_q[] = {"vw=8,rb=4,nv=2,mc=128", "vw=16,rb=8,nv=1,mc=128",
                                    "vw=16,rb=8,nv=2,mc=128", "vw=16,rb=4,nv=4,mc=32", NULL};

/* `clparity tune`'s candidates for tiled (GPUs) and vec (CPUs). */
static const cp_tunable tiled_tune = {.path = "tiled",
                                      .rank = 2,
                                      .gpu = true,
                                      .full = {2048, 4, 2048},
                                      .quick = {512, 2, 512},
                                      .cands = tiled_c,
                                      .quick_cands = tiled_c,
                                      .more = NULL};
static const cp_tunable vec_tune = {.path = "vec",
                                    .rank = 0,
                                    .gpu = false,
                                    .full = {1024, 4, 1024},
                                    .quick = {256, 2, 256},
                                    .cands = vec_c,
                                    .quick_cands = vec_q,
                                    .more = NULL};

const struct cl_path_ops own_path_naive = {
    .name = "naive",
    .fits = always_fits,
    .plant = "-DCP_PLANT_BIT",
    .reads_chunks = true,
    .enqueue_layer = naive_layer,
    .release = own_release,
};

const struct cl_path_ops own_path_tiled = {
    .name = "tiled",
    .file = "own_gemm.cl",
    .fits = tiled_fits,
    .options = tiled_options,
    .kernel2 = "cp_gemm_tiled4",
    .plant = "-DCP_PLANT_BIT",
    .reads_chunks = true,
    .upload = tiled_upload,
    .enqueue_layer = tiled_layer,
    .release = own_release,
    .tune = &tiled_tune,
};

const struct cl_path_ops own_path_vec = {
    .name = "vec",
    .file = "own_gemm.cl",
    .fits = always_fits,
    .options = vec_options,
    .plant = "-DCP_PLANT_BIT",
    .upload = vec_upload,
    .enqueue_layer = vec_layer,
    .release = own_release,
    .tune = &vec_tune,
};
