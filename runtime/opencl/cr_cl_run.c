/* cl:cr's kernel variants as rows of the OpenCL engines' path type (cr_paths[]): the layers'
 * launches, each variant's loop budget, its buffers (the weights' norms, split-k's partial sums,
 * stream's layer table), and the release of cl:cr's state. cr_cl.c chooses the variant, sets it
 * up and builds it. */
#include "cr-cl-run-impl.h"
#include "cr-cl-loops-impl.h"
#include "cr-bound-impl.h"
#include "hostblas/cr.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(CR_CL_DIGITS == CR_DIGITS, "cr.cl's accumulator is cr.c's");

/* ---- the layers' launches ------------------------------------------------------------------ */

/* Layer l as cr.cl's kernels take it: the weights as stored, the flags (cl:own's, and 8 on the
 * layer where test hook corrupt-cl-cr flips a bit: cr.cl's CP_PLANT), the offset of its
 * weights' norms and the bits of the bound's factor cr_err_scale(cr_sum_depth). CR_LAYER_ARGS for
 * the per-layer kernels, cr_stream's layer table for the one launch. */
struct cr_layer {
    struct stored_layer a;
    cl_int flags;
    cl_ulong wn_off, scale_bits;
};

static void cr_layer_of(const cp_engine *e, const struct cl_state *s, int l, struct cr_layer *f)
{
    const cp_layer *L = &e->model->layers[l];
    own_stored_layer(e, s, l, &f->a);
    f->flags = own_layer_flags(L) | (cr_state(s)->planted && l == e->model->n_layers - 1 ? 8 : 0);
    f->wn_off = (cl_ulong)l * (cl_ulong)e->model->max_width;
    double scale = cr_err_scale(cr_sum_depth(cr_state(s), L->in));
    memcpy(&f->scale_bits, &scale, sizeof f->scale_bits);
}

/* The arguments every kernel of cr.cl takes first (cr.cl's CR_LAYER_ARGS): 11. */
static int cr_set_layer_args(cp_engine *e, struct cl_state *s, int l, cl_mem in, cl_mem outb,
                             cl_kernel k, const char *kname)
{
    struct cr_layer f;
    cr_layer_of(e, s, l, &f);
    const struct stored_layer *a = &f.a;
    const size_t sizes[] = {sizeof in,       sizeof outb,        sizeof a->w,
                            sizeof a->w_off, sizeof a->b_off,    sizeof a->in,
                            sizeof a->out,   sizeof f.flags,     sizeof cr_state(s)->wnorm,
                            sizeof f.wn_off, sizeof f.scale_bits};
    const void *const vals[] = {&in,          &outb,   &a->w,    &a->w_off,           &a->b_off,
                                &a->in,       &a->out, &f.flags, &cr_state(s)->wnorm, &f.wn_off,
                                &f.scale_bits};
    return own_set_args(k, kname, 11, sizes, vals);
}

/* The local memory of the group kernels (gemv, splitk, f32): the digits and flags of cr.cl's
 * cr_group_round, and the double sums' rows (CR_OB + 1) × CR_WG (one long without f64; f32:
 * cr_f32.cl's rows of floats, 3 × CR_OB + 1). */
void cr_group_locals(const struct cr_cl *c, size_t sizes[3])
{
    sizes[0] = (size_t)c->tune.wg * CR_CL_DIGITS * sizeof(cl_long);
    sizes[1] = (size_t)c->tune.wg * sizeof(cl_uint);
    sizes[2] = c->f64 ? (size_t)(c->tune.ob + 1) * (size_t)c->tune.wg * sizeof(cl_double)
               : cr_path_f32_group(c->path)
                   ? (size_t)(3 * c->tune.ob + 1) * (size_t)c->tune.wg * sizeof(cl_uint)
                   : sizeof(cl_long);
}

static int cr_create_buffer(struct cl_state *s, cl_mem *buf, size_t bytes, const char *what);

static int cr_enqueue(struct cl_state *s, cl_kernel k, const char *kname, cl_uint dims,
                      const size_t *global, const size_t *local, cl_event *ev)
{
    cl_int rc = own_enqueue_kernel(s->q, k, dims, NULL, global, local, 0, NULL, ev);
    if (rc == CL_SUCCESS)
        return CP_OK;
    char what[64];
    snprintf(what, sizeof what, "clEnqueueNDRangeKernel(%s)", kname);
    return cp_err_cl(rc, what);
}

static int cr_gemv_layer(cp_engine *e, struct cl_state *s, int l, int batch, cl_mem in, cl_mem outb)
{
    const struct cr_cl *c = cr_state(s);
    const cp_layer *L = &e->model->layers[l];
    const char *kname = cr_paths[c->path].kernel; /* gemv's, or f32's (the same arguments) */
    size_t loc[3];
    cr_group_locals(c, loc);
    const void *const nulls[] = {NULL, NULL, NULL};
    int st = cr_set_layer_args(e, s, l, in, outb, c->k[0], kname);
    if (st == CP_OK)
        st = own_set_args_at(c->k[0], kname, 11, 3, loc, nulls);
    if (st != CP_OK)
        return st;
    size_t groups = ((size_t)L->out + (size_t)c->tune.ob - 1) / (size_t)c->tune.ob;
    size_t global[2] = {groups * (size_t)c->tune.wg, (size_t)batch},
           local[2] = {(size_t)c->tune.wg, 1};
    return cr_enqueue(s, c->k[0], kname, 2, global, local,
                      &s->events[(size_t)l * CR_CL_EVENTS_PER_LAYER]);
}

static int cr_splitk_layer(cp_engine *e, struct cl_state *s, int l, int batch, cl_mem in,
                           cl_mem outb)
{
    const struct cr_cl *c = cr_state(s);
    const cp_layer *L = &e->model->layers[l];
    static const char *const names[2] = {"cr_split_part", "cr_split_finish"};
    cl_int split = c->tune.split;
    size_t loc[3];
    cr_group_locals(c, loc);
    const size_t sizes[] = {sizeof split, sizeof c->part, sizeof c->pflags, sizeof c->xpart, loc[0],
                            loc[1],       loc[2]};
    const void *const vals[] = {&split, &c->part, &c->pflags, &c->xpart, NULL, NULL, NULL};
    size_t groups = ((size_t)L->out + (size_t)c->tune.ob - 1) / (size_t)c->tune.ob;
    size_t wg = (size_t)c->tune.wg;
    for (int i = 0; i < 2; ++i) {
        int st = cr_set_layer_args(e, s, l, in, outb, c->k[i], names[i]);
        if (st == CP_OK)
            st = own_set_args_at(c->k[i], names[i], 11, 7, sizes, vals);
        if (st != CP_OK)
            return st;
    }
    size_t g0[3] = {groups * wg, (size_t)split, (size_t)batch}, l0[3] = {wg, 1, 1};
    size_t g1[2] = {groups * wg, (size_t)batch}, l1[2] = {wg, 1};
    cl_event *ev = &s->events[(size_t)l * CR_CL_EVENTS_PER_LAYER];
    int st = cr_enqueue(s, c->k[0], names[0], 3, g0, l0, &ev[0]);
    return st == CP_OK ? cr_enqueue(s, c->k[1], names[1], 2, g1, l1, &ev[1]) : st;
}

/* cr.cl's xs and ws (CR_TK × CR_TP doubles; the float32 method's: uints) and xq (CR_TM doubles)
 * of cr_gemm and cr_tiles; one long each where they are unused (the exact accumulator's, and xq
 * in the float32 method's). */
void cr_tile_locals(const struct cr_cl *c, size_t *tile, size_t *xq)
{
    size_t tk_tp = (size_t)c->tune.tk * (CR_CL_GEMM_TILE(c) + 1);
    *tile = c->f64                 ? tk_tp * sizeof(cl_double)
            : cr_path_f32(c->path) ? tk_tp * sizeof(cl_uint)
                                   : sizeof(cl_long);
    *xq = c->f64                 ? (size_t)CR_CL_GEMM_TILE(c) * sizeof(cl_double)
          : cr_path_f32(c->path) ? (size_t)CR_CL_GEMM_TILE(c) * sizeof(cl_uint)
                                 : sizeof(cl_long);
}

static int cr_gemm_layer(cp_engine *e, struct cl_state *s, int l, int batch, cl_mem in, cl_mem outb)
{
    const struct cr_cl *c = cr_state(s);
    const cp_layer *L = &e->model->layers[l];
    cl_int rows = batch;
    size_t tile, xq;
    cr_tile_locals(c, &tile, &xq);
    cl_int layer = l, layers = e->model->n_layers;
    size_t loc[3];
    cr_group_locals(c, loc);
    const size_t sizes[] = {sizeof rows,   tile,         tile,         xq,
                            sizeof c->fix, sizeof layer, sizeof layers};
    const void *const vals[] = {&rows, NULL, NULL, NULL, &c->fix, &layer, &layers};
    const size_t sizes2[] = {sizeof rows,   sizeof c->fix, sizeof layer,
                             sizeof layers, loc[0],        loc[1]};
    const void *const vals2[] = {&rows, &c->fix, &layer, &layers, NULL, NULL};
    /* cr_gemm, or cr_f32_gemm with the lists of its failed outputs, then cr_f32_fix */
    const char *kname = cr_paths[c->path].kernel, *kname2 = cr_paths[c->path].kernel2;
    int st = cr_set_layer_args(e, s, l, in, outb, c->k[0], kname);
    if (st == CP_OK)
        st = own_set_args_at(c->k[0], kname, 11, kname2 ? 7 : 4, sizes, vals);
    if (st == CP_OK && kname2)
        st = cr_set_layer_args(e, s, l, in, outb, c->k[1], kname2);
    if (st == CP_OK && kname2)
        st = own_set_args_at(c->k[1], kname2, 11, 6, sizes2, vals2);
    if (st == CP_OK && kname2 && l == 0) { /* every layer's count 0 before the forward (written
                                            * from c->zeros: Oclgrind takes a fill's bytes as
                                            * uninitialized) */
        cl_int rc = clEnqueueWriteBuffer(s->q, c->fix, CL_FALSE, 0,
                                         (size_t)layers * sizeof(cl_uint), c->zeros, 0, NULL, NULL);
        if (rc != CL_SUCCESS)
            st = cp_err_cl(rc, "clEnqueueWriteBuffer(f32-gemm's counts)");
    }
    if (st != CP_OK)
        return st;
    size_t global[2] = {
        own_round_up((size_t)L->out, CR_CL_GEMM_TILE(c)) / CR_CL_GEMM_TILE(c) * CR_CL_GEMM_LX,
        own_round_up((size_t)batch, CR_CL_GEMM_TILE(c)) / CR_CL_GEMM_TILE(c) * CR_CL_GEMM_LY};
    size_t local[2] = {CR_CL_GEMM_LX, CR_CL_GEMM_LY};
    cl_event *ev = &s->events[(size_t)l * CR_CL_EVENTS_PER_LAYER];
    st = cr_enqueue(s, c->k[0], kname, 2, global, local, &ev[0]);
    if (st != CP_OK || !kname2)
        return st;
    size_t wg = (size_t)c->tune.wg, all = c->groups * wg;
    return cr_enqueue(s, c->k[1], kname2, 1, &all, &wg, &ev[1]);
}

/* cr_stream: the whole model in one launch of c->groups work-groups (at most the most units
 * of any layer: more would leave at once), the barrier's counters zeroed first. */
static int cr_stream_model(cp_engine *e, struct cl_state *s, int batch)
{
    struct cr_cl *c = cr_state(s);
    const cp_model *m = e->model;
    cl_int n_layers = m->n_layers, nb = batch, max_units = 0;
    for (int l = 0; l < m->n_layers; ++l) {
        long long u = ((long long)m->layers[l].out + c->tune.ob - 1) / c->tune.ob * batch;
        if (u > max_units)
            max_units = u > INT32_MAX ? INT32_MAX : (cl_int)u;
    }
    size_t loc[3];
    cr_group_locals(c, loc);
    const size_t sizes[] = {sizeof s->act[0], sizeof s->act[1], sizeof s->chunks[0],
                            sizeof c->desc,   sizeof c->wnorm,  sizeof s->ctl,
                            sizeof n_layers,  sizeof nb,        sizeof max_units,
                            loc[0],           loc[1],           loc[2]};
    const void *const vals[] = {&s->act[0], &s->act[1], &s->chunks[0], &c->desc, &c->wnorm, &s->ctl,
                                &n_layers,  &nb,        &max_units,    NULL,     NULL,      NULL};
    const char *kname = cr_paths[c->path].kernel; /* cr_stream or cr_f32_stream */
    int st = own_set_args(c->k[0], kname, 12, sizes, vals);
    if (st == CP_OK)
        st = own_ctl_clear(s->q, s->ctl);
    if (st != CP_OK)
        return st;
    c->launched = c->groups < (size_t)max_units ? c->groups : (size_t)max_units;
    size_t global = c->launched * (size_t)c->tune.wg, local = (size_t)c->tune.wg;
    return cr_enqueue(s, c->k[0], kname, 1, &global, &local, &s->events[0]);
}

/* cr_tiles: the whole model in one launch of c->groups work-groups of cr_gemm's 64 work-items
 * (at most the most tiles of any layer), the barrier's counters zeroed first. */
static int cr_tiles_enqueue(cp_engine *e, struct cl_state *s, int batch, cl_mem *result)
{
    (void)result; /* the layers ping-pong as stream's */
    struct cr_cl *c = cr_state(s);
    const cp_model *m = e->model;
    cl_int n_layers = m->n_layers, nb = batch, max_units = 0;
    long long rows = ((long long)batch + CR_CL_GEMM_TILE(c) - 1) / CR_CL_GEMM_TILE(c);
    for (int l = 0; l < m->n_layers; ++l) {
        long long u =
            ((long long)m->layers[l].out + CR_CL_GEMM_TILE(c) - 1) / CR_CL_GEMM_TILE(c) * rows;
        if (u > max_units)
            max_units = u > INT32_MAX ? INT32_MAX : (cl_int)u;
    }
    size_t tile, xq;
    cr_tile_locals(c, &tile, &xq);
    const size_t sizes[] = {sizeof s->act[0],
                            sizeof s->act[1],
                            sizeof s->chunks[0],
                            sizeof c->desc,
                            sizeof c->wnorm,
                            sizeof s->ctl,
                            sizeof n_layers,
                            sizeof nb,
                            sizeof max_units,
                            tile,
                            tile,
                            xq};
    const void *const vals[] = {&s->act[0], &s->act[1], &s->chunks[0], &c->desc, &c->wnorm, &s->ctl,
                                &n_layers,  &nb,        &max_units,    NULL,     NULL,      NULL};
    const char *kname = cr_paths[c->path].kernel; /* cr_tiles or cr_f32_tiles */
    int st = own_set_args(c->k[0], kname, 12, sizes, vals);
    if (st == CP_OK)
        st = own_ctl_clear(s->q, s->ctl);
    if (st == CP_OK) {
        c->launched = c->groups < (size_t)max_units ? c->groups : (size_t)max_units;
        size_t local = (size_t)CR_CL_GEMM_LX * CR_CL_GEMM_LY, global = c->launched * local;
        st = cr_enqueue(s, c->k[0], kname, 1, &global, &local, &s->events[0]);
    }
    if (st != CP_OK)
        clFinish(s->q);
    return st;
}

/* cr_f32_item: a work-item per (output, row), the work-group size left to the implementation. */
static int cr_f32_item_layer(cp_engine *e, struct cl_state *s, int l, int batch, cl_mem in,
                             cl_mem outb)
{
    const struct cr_cl *c = cr_state(s);
    int st = cr_set_layer_args(e, s, l, in, outb, c->k[0], "cr_f32_item");
    if (st != CP_OK)
        return st;
    size_t global[2] = {(size_t)e->model->layers[l].out, (size_t)batch};
    return cr_enqueue(s, c->k[0], "cr_f32_item", 2, global, NULL,
                      &s->events[(size_t)l * CR_CL_EVENTS_PER_LAYER]);
}

/* cr_cpu over the layer's packed weights (s->wt_layer, panels of vw outputs): a work-item per
 * panel and block of rb rows, in work-groups of one (as cl:own's vec: PoCL shares the groups out
 * over its cores). */
static int cr_cpu_layer(cp_engine *e, struct cl_state *s, int l, int batch, cl_mem in, cl_mem outb)
{
    const struct cr_cl *c = cr_state(s);
    cl_int rows = batch;
    const size_t sizes[] = {sizeof rows, sizeof s->wt_layer[l]};
    const void *const vals[] = {&rows, &s->wt_layer[l]};
    int st = cr_set_layer_args(e, s, l, in, outb, c->k[0], "cr_cpu");
    if (st == CP_OK)
        st = own_set_args_at(c->k[0], "cr_cpu", 11, 2, sizes, vals);
    if (st != CP_OK)
        return st;
    size_t global[2] = {(size_t)s->ldw[l] / (size_t)c->tune.vw,
                        ((size_t)batch + (size_t)c->tune.rb - 1) / (size_t)c->tune.rb};
    size_t one[2] = {1, 1};
    return cr_enqueue(s, c->k[0], "cr_cpu", 2, global, one,
                      &s->events[(size_t)l * CR_CL_EVENTS_PER_LAYER]);
}

/* cpu1: cr_cpu_model (clkernels/cr_cpu.cl), the whole model in one launch, a work-item per rb
 * rows, as cl:own's cpu1 (own_cpu.c's cpu_enqueue_model): the weights as stored, stream's layer
 * table. A model of mixed widths keeps its rows max_width apart in act[1] and tmp and packs
 * the output into act[0] afterwards; a uniform one ping-pongs between act[0] and act[1]. */
static int cr_cpu1_enqueue(cp_engine *e, struct cl_state *s, int batch, cl_mem *result)
{
    const struct cr_cl *c = cr_state(s);
    const cp_model *m = e->model;
    bool uniform = own_cpu_uniform(m);
    if (!uniform && !s->tmp) {
        int st = cr_create_buffer(s, &s->tmp,
                                  (size_t)e->max_batch * (size_t)m->max_width * sizeof(float),
                                  "cr_cpu_model's activations");
        if (st != CP_OK)
            return st;
    }
    cl_mem a = s->act[1], b = uniform ? s->act[0] : s->tmp;
    cl_int n_layers = m->n_layers, rows = batch, ldx = m->in_width, ld = m->max_width;
    const size_t sizes[] = {sizeof s->act[0], sizeof a,        sizeof b,        sizeof s->chunks[0],
                            sizeof c->desc,   sizeof c->wnorm, sizeof n_layers, sizeof rows,
                            sizeof ldx,       sizeof ld,       sizeof c->xd};
    const void *const vals[] = {&s->act[0], &a,    &b,   &s->chunks[0], &c->desc, &c->wnorm,
                                &n_layers,  &rows, &ldx, &ld,           &c->xd};
    int st = own_set_args(c->k[0], "cr_cpu_model", 11, sizes, vals);
    if (st != CP_OK)
        return st;
    size_t global = ((size_t)batch + (size_t)c->tune.rb - 1) / (size_t)c->tune.rb, one = 1;
    if ((st = cr_enqueue(s, c->k[0], "cr_cpu_model", 1, &global, &one, &s->events[0])) != CP_OK)
        return st;
    *result = n_layers % 2 ? a : b;
    return own_cpu_pack_output(m, s, batch, result, "cr_cpu_model");
}

/* ---- `clparity tune`'s candidates (cmd_tune.c reads them from the rows) ------------------ */

/* cl:cr (runtime/opencl/cr_cl.c; CLPARITY_CR_TUNE's names): every setting must give host:cr's bits.
 * tune stores the best of each tunable without its path (cl:cr's rules keep choosing the
 * variant). stream: work-items and outputs per work-group and groups per compute unit, at B=1
 * (GPUs take stream up to B=64), "" the settings by the width that cl:cr takes by default;
 * gemm: the tiles' depth, at a large batch; cpu1 (PoCL): the lanes of k, rows per work-item
 * and outputs per block (a stored rb is the most, fewer for smaller batches; cpu takes the same
 * vw and rb). */
static const char *const cr_stream_c[] = {"",
                                          "wg=32,ob=1,sg=1",
                                          "wg=64,ob=1,sg=4",
                                          "wg=128,ob=2,sg=4",
                                          "wg=128,ob=4,sg=4",
                                          "wg=128,ob=8,sg=4",
                                          NULL};
static const char *const cr_stream_q[] = {"", "wg=32,ob=1,sg=1", "wg=128,ob=4,sg=4", NULL};
static const char *const cr_gemm_c[] = {"tk=16", "tk=8", "tk=32", NULL};
static const char *const cr_cpu1_c[] = {"vw=8,rb=4,ob=4",
                                        "vw=8,rb=2,ob=8",
                                        "vw=8,rb=1,ob=8",
                                        "vw=8,rb=4,ob=2",
                                        "vw=16,rb=2,ob=4",
                                        "vw=4,rb=4,ob=4",
                                        NULL};
static const char *const cr_cpu1_q[] = {"vw=8,rb=4,ob=4", "vw=8,rb=1,ob=8", "vw=16,rb=2,ob=4",
                                        NULL};
static const cp_tune_shape cr_stream_more[] = {{128, 32, 1}, {4096, 4, 1}, {0, 0, 0}};
static const cp_tunable cr_stream_tune = {.path = "stream",
                                          .rank = 0,
                                          .gpu = true,
                                          .full = {1024, 16, 1},
                                          .quick = {256, 4, 1},
                                          .cands = cr_stream_c,
                                          .quick_cands = cr_stream_q,
                                          .more = cr_stream_more};
static const cp_tunable cr_gemm_tune = {.path = "gemm",
                                        .rank = 1,
                                        .gpu = true,
                                        .full = {512, 2, 512},
                                        .quick = {128, 2, 64},
                                        .cands = cr_gemm_c,
                                        .quick_cands = cr_gemm_c,
                                        .more = NULL};
static const cp_tunable cr_cpu1_tune = {.path = "cpu1",
                                        .rank = 0,
                                        .gpu = false,
                                        .full = {512, 4, 64},
                                        .quick = {128, 2, 16},
                                        .cands = cr_cpu1_c,
                                        .quick_cands = cr_cpu1_q,
                                        .more = NULL};

static int cr_cl_upload(cp_engine *e, struct cl_state *s);
static int cr_stream_enqueue(cp_engine *e, struct cl_state *s, int batch, cl_mem *result);
static int cr_team_enqueue(cp_engine *e, struct cl_state *s, int batch, cl_mem *result);
static int cr_tiles_enqueue(cp_engine *e, struct cl_state *s, int batch, cl_mem *result);
static int cr_stream_after_read(cp_engine *e, struct cl_state *s);
static void cr_cl_release(struct cl_state *s);

/* cl:cr's kernel variants, rows of the OpenCL engines' one path type: each reads the weights as
 * stored, uploads the weights' norms and its own buffers (cr_cl_upload), records two events a
 * layer, and names its routine itself (cr_configure). name: path= of CLPARITY_CR_TUNE, and the
 * routine's; kernel and kernel2: cr.cl's kernels, the main one and the one launched before or
 * after it. */
const struct cl_path_ops cr_paths[CR_N_PATHS] = {
    [CR_GEMV] = {.name = "gemv",
                 .file = "cr.cl",
                 .kernel = "cr_gemv",
                 .kernel2 = NULL,
                 .reads_chunks = true,
                 .upload = cr_cl_upload,
                 .enqueue_layer = cr_gemv_layer,
                 .release = cr_cl_release,
                 .loop_need = cr_gemv_need,
                 .events_per_layer = CR_CL_EVENTS_PER_LAYER,
                 .sets_routine = true},
    [CR_SPLITK] = {.name = "splitk",
                   .file = "cr.cl",
                   .kernel = "cr_split_part",
                   .kernel2 = "cr_split_finish",
                   .reads_chunks = true,
                   .upload = cr_cl_upload,
                   .enqueue_layer = cr_splitk_layer,
                   .release = cr_cl_release,
                   .loop_need = cr_splitk_need,
                   .events_per_layer = CR_CL_EVENTS_PER_LAYER,
                   .sets_routine = true},
    [CR_GEMM] = {.name = "gemm",
                 .file = "cr.cl",
                 .kernel = "cr_gemm",
                 .reads_chunks = true,
                 .upload = cr_cl_upload,
                 .enqueue_layer = cr_gemm_layer,
                 .release = cr_cl_release,
                 .loop_need = cr_gemm_need,
                 .events_per_layer = CR_CL_EVENTS_PER_LAYER,

                 .tune = &cr_gemm_tune,
                 .sets_routine = true},
    [CR_CPU] = {.name = "cpu",
                .file = "cr.cl",
                .kernel = "cr_cpu",
                .kernel2 = NULL,
                .reads_chunks = true,
                .upload = cr_cl_upload,
                .enqueue_layer = cr_cpu_layer,
                .release = cr_cl_release,
                .loop_need = cr_cpu_need,
                .events_per_layer = CR_CL_EVENTS_PER_LAYER,
                .sets_routine = true},
    [CR_STREAM] = {.name = "stream",
                   .file = "cr.cl",
                   .kernel = "cr_stream",
                   .kernel2 = NULL,
                   .reads_chunks = true,
                   .upload = cr_cl_upload,
                   .enqueue_model = cr_stream_enqueue,
                   .after_read = cr_stream_after_read,
                   .release = cr_cl_release,
                   /* gemv's work for every layer in one work-item's loops (bounded per
                    * layer by gemv's; the whole is refused where the device stops loops,
                    * cr_check_loops) */
                   .loop_need = cr_gemv_need,
                   .events_per_layer = CR_CL_EVENTS_PER_LAYER,

                   .tune = &cr_stream_tune,
                   .sets_routine = true},
    [CR_CPU1] = {.name = "cpu1",
                 .file = "cr_cpu.cl",
                 .kernel = "cr_cpu_model",
                 .kernel2 = NULL,
                 .reads_chunks = true,
                 .upload = cr_cl_upload,
                 .enqueue_model = cr_cpu1_enqueue,
                 .release = cr_cl_release,
                 .loop_need = cr_cpu1_need,
                 .events_per_layer = CR_CL_EVENTS_PER_LAYER,
                 .tune = &cr_cpu1_tune,
                 .sets_routine = true},
    [CR_TEAM] = {.name = "team",
                 .file = "cr.cl",
                 .kernel = "cr_team",
                 .kernel2 = NULL,
                 .reads_chunks = true,
                 .upload = cr_cl_upload,
                 .enqueue_model = cr_team_enqueue,
                 .release = cr_cl_release,
                 .loop_need = cr_team_need,
                 .events_per_layer = CR_CL_EVENTS_PER_LAYER,
                 .sets_routine = true},
    [CR_TILES] = {.name = "tiles",
                  .file = "cr.cl",
                  .kernel = "cr_tiles",
                  .kernel2 = NULL,
                  .reads_chunks = true,
                  .upload = cr_cl_upload,
                  .enqueue_model = cr_tiles_enqueue,
                  .after_read = cr_stream_after_read,
                  .release = cr_cl_release,
                  .loop_need = cr_gemm_need,
                  .events_per_layer = CR_CL_EVENTS_PER_LAYER,
                  .sets_routine = true},
    [CR_F32] = {.name = "f32",
                .file = "cr_f32.cl",
                .kernel = "cr_f32_gemv",
                .kernel2 = NULL,
                .reads_chunks = true,
                .upload = cr_cl_upload,
                .enqueue_layer = cr_gemv_layer,
                .release = cr_cl_release,
                .loop_need = cr_gemv_need,
                .events_per_layer = CR_CL_EVENTS_PER_LAYER,
                .sets_routine = true},
    [CR_F32_ITEM] = {.name = "f32-item",
                     .file = "cr_f32.cl",
                     .kernel = "cr_f32_item",
                     .kernel2 = NULL,
                     .reads_chunks = true,
                     .upload = cr_cl_upload,
                     .enqueue_layer = cr_f32_item_layer,
                     .release = cr_cl_release,
                     .loop_need = cr_f32_item_need,
                     .events_per_layer = CR_CL_EVENTS_PER_LAYER,
                     .sets_routine = true},
    [CR_F32_STREAM] = {.name = "f32-stream",
                       .file = "cr_f32.cl",
                       .kernel = "cr_f32_stream",
                       .kernel2 = NULL,
                       .reads_chunks = true,
                       .upload = cr_cl_upload,
                       .enqueue_model = cr_stream_enqueue,
                       .after_read = cr_stream_after_read,
                       .release = cr_cl_release,
                       .loop_need = cr_gemv_need, /* f32's work for every layer, as stream's */
                       .events_per_layer = CR_CL_EVENTS_PER_LAYER,
                       .sets_routine = true},
    [CR_F32_GEMM] = {.name = "f32-gemm",
                     .file = "cr_f32.cl",
                     .kernel = "cr_f32_gemm",
                     .kernel2 = "cr_f32_fix",
                     .reads_chunks = true,
                     .upload = cr_cl_upload,
                     .enqueue_layer = cr_gemm_layer,
                     .release = cr_cl_release,
                     .loop_need = cr_gemm_need,
                     .events_per_layer = CR_CL_EVENTS_PER_LAYER,
                     .sets_routine = true},
    [CR_F32_TILES] = {.name = "f32-tiles",
                      .file = "cr_f32.cl",
                      .kernel = "cr_f32_tiles",
                      .kernel2 = NULL,
                      .reads_chunks = true,
                      .upload = cr_cl_upload,
                      .enqueue_model = cr_tiles_enqueue,
                      .after_read = cr_stream_after_read,
                      .release = cr_cl_release,
                      .loop_need = cr_gemm_need,
                      .events_per_layer = CR_CL_EVENTS_PER_LAYER,
                      .sets_routine = true},
};
void cr_release_program(struct cr_cl *c)
{
    for (int i = 0; i < 2; ++i)
        if (c->k[i]) {
            clReleaseKernel(c->k[i]);
            c->k[i] = NULL;
        }
    if (c->prog) {
        clReleaseProgram(c->prog);
        c->prog = NULL;
    }
}

/* ---- buffers, forward, release ------------------------------------------------------------ */

static int cr_create_buffer(struct cl_state *s, cl_mem *buf, size_t bytes, const char *what)
{
    cl_int rc;
    *buf = own_create_buffer(s->ctx, CL_MEM_READ_WRITE, bytes ? bytes : 1, NULL, &rc);
    if (rc == CL_SUCCESS)
        return CP_OK;
    char call[96];
    snprintf(call, sizeof call, "clCreateBuffer(%s)", what);
    return cp_err_cl(rc, call);
}

/* stream's layer table (cr.cl's cr_stream: 8 ulongs a layer, offsets into the one weight
 * buffer) and the barrier's counters. */
static int cr_stream_upload(cp_engine *e, struct cl_state *s)
{
    const cp_model *m = e->model;
    if (s->n_chunks != 1) /* cr_cl_setup checked that the weights fit one buffer */
        return cp_err_set(CP_FAIL_RUNTIME, "cl:cr stream: the weights span %zu buffers",
                          s->n_chunks);
    cl_ulong *d = calloc((size_t)m->n_layers * 8, sizeof *d);
    if (!d)
        return cp_err_set(CP_FAIL_RUNTIME, "cl:cr: out of memory for the layer table");
    for (int l = 0; l < m->n_layers; ++l) {
        struct cr_layer f;
        cr_layer_of(e, s, l, &f);
        cl_ulong *dl = d + 8 * (size_t)l;
        dl[0] = f.a.w_off;
        dl[1] = f.a.b_off;
        dl[2] = (cl_ulong)f.a.in;
        dl[3] = (cl_ulong)f.a.out;
        dl[4] = (cl_ulong)f.flags;
        dl[5] = f.wn_off;
        dl[6] = f.scale_bits;
    }
    int st =
        own_upload(s, &cr_state(s)->desc, d, (size_t)m->n_layers * 8 * sizeof *d, "layer table");
    free(d);
    return st == CP_OK ? own_ctl_new(s->ctx, &s->ctl) : st;
}

/* f32's keys: each output's smallest key of W_o (clkernels/cr_f32.cl's cr_f32_key: the biased
 * exponent field, 0 for a subnormal, 255 for zero), layer l's from l · max_width, as the norms. */
static int cr_f32_keys_upload(cp_engine *e, struct cl_state *s)
{
    const cp_model *m = e->model;
    size_t n = (size_t)m->n_layers * (size_t)m->max_width;
    cl_ulong *keys = calloc(n ? n : 1, sizeof *keys);
    if (!keys)
        return cp_err_set(CP_FAIL_RUNTIME, "cl:cr: out of memory for the weights' keys");
    for (int l = 0; l < m->n_layers; ++l) {
        const cp_layer *L = &m->layers[l];
        for (int o = 0; o < L->out; ++o) {
            const float *w = m->params + L->w_off + (size_t)o * (size_t)L->in;
            uint32_t least = 255;
            for (int k = 0; k < L->in; ++k) {
                uint32_t u;
                memcpy(&u, &w[k], sizeof u);
                u &= 0x7fffffffu;
                uint32_t key = u == 0 ? 255 : u >> 23;
                least = key < least ? key : least;
            }
            keys[(size_t)l * (size_t)m->max_width + (size_t)o] = least;
        }
    }
    int st = own_upload(s, &cr_state(s)->wnorm, keys, n * sizeof *keys, "weights' keys");
    free(keys);
    return st;
}

static int cr_cl_upload(cp_engine *e, struct cl_state *s)
{
    struct cr_cl *c = cr_state(s);
    const cp_model *m = e->model;
    int st = CP_OK;
    if (c->f64) {
        /* each output's |W_o|_2, cr.c's cr_norm: layer l's from l · max_width */
        size_t n = (size_t)m->n_layers * (size_t)m->max_width;
        double *wn = calloc(n ? n : 1, sizeof *wn);
        if (!wn)
            return cp_err_set(CP_FAIL_RUNTIME, "cl:cr: out of memory for the weights' norms");
        for (int l = 0; l < m->n_layers; ++l) {
            const cp_layer *L = &m->layers[l];
            for (int o = 0; o < L->out; ++o)
                wn[(size_t)l * (size_t)m->max_width + (size_t)o] =
                    cr_norm(m->params + L->w_off + (size_t)o * (size_t)L->in, L->in);
        }
        st = own_upload(s, &c->wnorm, wn, n * sizeof *wn, "weights' norms");
        free(wn);
        if (st == CP_OK && c->path == CR_CPU1)
            st = cr_create_buffer(s, &c->xd,
                                  (size_t)e->max_batch * (size_t)m->max_width * sizeof(cl_double),
                                  "cr_cpu_model's inputs as doubles");
    }
    if (st == CP_OK && cr_path_f32(c->path))
        st = cr_f32_keys_upload(e, s);
    /* stream's layer table: every whole-model variant reads it (cpu1, team and tiles leave the
     * barrier's counters unused or share them) */
    if (st == CP_OK && cr_paths[c->path].enqueue_model)
        st = cr_stream_upload(e, s);
    if (st == CP_OK && c->path == CR_F32_GEMM) {
        /* a count a layer (cleared before each forward, cr_gemm_layer), room for every output */
        c->zeros = calloc((size_t)m->n_layers, sizeof(cl_uint));
        if (!c->zeros)
            return cp_err_set(CP_FAIL_RUNTIME, "cl:cr: out of memory for f32-gemm's counts");
        st = cr_create_buffer(
            s, &c->fix,
            ((size_t)m->n_layers + 2 * (size_t)e->max_batch * (size_t)m->max_width) *
                sizeof(cl_uint),
            "f32-gemm's lists of failed outputs");
    }
    if (st == CP_OK && c->path == CR_CPU) /* the panels of cr_cpu, the bias after them */
        st = own_setup_per_layer(e, s, c->tune.vw, true);
    if (st == CP_OK && c->path == CR_SPLITK) {
        st = cr_create_buffer(s, &c->part, c->part_bytes, "split-k partial sums");
        if (st == CP_OK && c->pflags_bytes)
            st = cr_create_buffer(s, &c->pflags, c->pflags_bytes, "split-k flags");
        if (st == CP_OK && c->f64)
            st = cr_create_buffer(s, &c->xpart,
                                  (size_t)e->max_batch * (size_t)c->tune.split * sizeof(cl_double),
                                  "split-k sums of squares");
    }
    return st;
}

/* stream's forward: every layer in one launch (the other variants: a launch of their
 * enqueue_layer per layer, by engine_cl.c). */
/* cr_team: the whole model in one work-group of c->tune.wg work-items (split per output); its
 * local memory: the widest input as doubles and as bits, and wg + split partial sums. */
static int cr_team_enqueue(cp_engine *e, struct cl_state *s, int batch, cl_mem *result)
{
    (void)result; /* the layers ping-pong as stream's */
    struct cr_cl *c = cr_state(s);
    cl_int n_layers = e->model->n_layers, nb = batch;
    size_t width = (size_t)e->model->max_width;
    const size_t sizes[] = {sizeof s->act[0],
                            sizeof s->act[1],
                            sizeof s->chunks[0],
                            sizeof c->desc,
                            sizeof c->wnorm,
                            sizeof n_layers,
                            sizeof nb,
                            width * sizeof(cl_double),
                            width * sizeof(cl_uint),
                            (size_t)(c->tune.wg + c->tune.split) * sizeof(cl_double)};
    const void *const vals[] = {&s->act[0], &s->act[1], &s->chunks[0], &c->desc, &c->wnorm,
                                &n_layers,  &nb,        NULL,          NULL,     NULL};
    int st = own_set_args(c->k[0], "cr_team", 10, sizes, vals);
    size_t one = (size_t)c->tune.wg;
    if (st == CP_OK)
        st = cr_enqueue(s, c->k[0], "cr_team", 1, &one, &one, &s->events[0]);
    if (st != CP_OK)
        clFinish(s->q);
    return st;
}

static int cr_stream_enqueue(cp_engine *e, struct cl_state *s, int batch, cl_mem *result)
{
    (void)result; /* the layers ping-pong as cl:own's per-layer paths, stream's too */
    int st = cr_stream_model(e, s, batch);
    if (st != CP_OK)
        clFinish(s->q);
    return st;
}

/* After the output is read: stream's barrier counters (a wait given up: no result). */
static int cr_stream_after_read(cp_engine *e, struct cl_state *s)
{
    (void)e;
    return own_check_ctl(s, "cl:cr stream", cr_state(s)->launched,
                         "CLPARITY_CR_TUNE=path=gemv for a launch per layer");
}

static void cr_cl_release(struct cl_state *s)
{
    struct cr_cl *c = cr_state(s);
    if (!c)
        return;
    cl_mem *bufs[] = {&c->wnorm, &c->part, &c->pflags, &c->xpart, &c->desc, &c->xd, &c->fix};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; ++i)
        if (*bufs[i])
            clReleaseMemObject(*bufs[i]);
    cr_release_program(c);
    free(c->zeros);
    free(c);
    s->priv = NULL;
}
