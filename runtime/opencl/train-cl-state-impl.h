/* Private: an OpenCL trainer's state (runtime/opencl/train_cl.c) and its probes
 * (runtime/opencl/train_probe.c), which is given cl:own's ops rather than calling back. */
#ifndef CLPARITY_TRAIN_CL_STATE_IMPL_H
#define CLPARITY_TRAIN_CL_STATE_IMPL_H

#include "cl-shared-impl.h"
#include "clparity/error.h"
#include "train-impl.h"

#include <CL/cl.h>

#include <stdbool.h>
#include <stddef.h>

struct train_cl {
    cl_context ctx;
    cl_command_queue q;
    cl_program prog;
    cl_kernel k_fwd, k_outgrad, k_dz, k_dx, k_upw, k_upb, k_epi, k_add, k_axpy;
    cl_kernel k_gw, k_gb, k_sgd, k_mom, k_adam; /* the optimizers other than plain SGD */
    cl_mem p, acts, z, t, g, gn, dz, gw;        /* gw: cl:clblast's weight gradient (plain SGD) */
    cl_mem G, st[2]; /* the other optimizers: the whole gradient and their state */
    cl_mem wstage;   /* the weights' host copy (cl_view): allocated by the driver (pinned where */
    void *wmap;      /* it can), mapped from the first view to destroy */
    cl_mem ystage;   /* the output's host copy (y), allocated and mapped so from create */
    bool clblast;
    bool cr;      /* cl:cr: clkernels/cr.cl's training kernels (CR_TRAIN), no clblast ones */
    bool relaxed; /* cl:relaxed: train.cl built with OWN_RELAXED_OPTIONS */
    int plant;    /* the test hooks train-plant-m, -v, -root: 1, 2, 3; 0 none */
    /* cl:own's tiled kernels (CLPARITY_TRAIN_KERNELS): per layer l, lk[3l..3l+2] its
     * tr_fwd_t, tr_dx_t and tr_gw_t (blocks lrm[3l..3l+2]: 1, 4 or 8), every argument set at
     * create but the forward's weights; NULL with the simple kernels */
    cl_kernel *lk;
    int *lrm;
    size_t n_lk;      /* 3 per layer (destroy does not read the model, which may be gone) */
    bool tile_forced; /* CLPARITY_TRAIN_KERNELS named a block: not fitting is an error */
    /* adam and adamw in the tiled weight-gradient kernel's epilogue (no G, no optimizer pass):
     * sc holds the step's scalars (TILE_SCALARS floats, train_tile.cl's tr_gw_t) */
    bool fused_adam;
    cl_mem sc;
    /* the step in one launch (CLPARITY_TRAIN_KERNELS=stream: train_stream.cl's tr_step_s, its
     * blocks 16x16), with the tiled kernels above (tiled1's) for a forward alone: its layer table,
     * third gradient buffer, the device-wide barrier's counters (and their copy, read with each
     * step's output) and its work-groups */
    cl_kernel k_step;
    cl_mem sdesc, g3, ctl;
    cl_int ctl_host[4];
    size_t step_groups;
    /* cl:own's CPU kernels (CLPARITY_TRAIN_KERNELS=cpu: train_cpu.cl, train_cl_cpu.c): the
     * rows' forward and backward, the weights' gradient and update, Wᵀ from p; the layer
     * table; Wᵀ (wt), rebuilt before the next forward where wt_stale; how tr_cpu_grad
     * updates (its argument upd) and its work-items */
    int mode;      /* enum tile_mode, TILE_SIMPLE for cl:clblast, cl:relaxed and cl:cr */
    bool auto_cpu; /* auto took TILE_CPU (a CPU device): the simple kernels where it fails */
    cl_kernel k_rows, k_grad, k_wt;
    cl_mem desc, wt;
    bool wt_stale;
    int upd;
    int rb; /* rows per work-item (TR_RB) */
    size_t grad_items;
    char kernels[64]; /* the way and the tile test hooks: the training probe's key */
    size_t stride;
    float *y; /* host copy of the output, for the loss: ystage's mapping */
    float *t_host;
};

/* CLPARITY_TRAIN_KERNELS' words, in runtime/base/env.c's order: auto is TILE_CPU on CPU
 * devices (own_cpu_device: PoCL, rusticl's llvmpipe; a 16×16 work-group of barriers costs
 * more there than it saves), else TILE_GRID, whose blocks follow the grid's size. */
enum tile_mode { TILE_AUTO, TILE_SIMPLE, TILE_GRID, TILE_1, TILE_4, TILE_8, TILE_CPU, TILE_STREAM };
/* The step at which the test hooks train-plant-m, -v and -root move every m, v or sqrt(v). */
#define TRAIN_PLANT_STEP 2

/* the floats of the fused Adam's scalars buffer (train_tile.cl's tr_gw_t) */
#define TILE_SCALARS 11

/* A device buffer of n floats (from init where not NULL) on c's context; what names it. */
static inline int train_cl_buffer(struct train_cl *c, size_t n, const void *init, cl_mem *out,
                                  const char *what)
{
    cl_int rc;
    *out = own_create_buffer(c->ctx, CL_MEM_READ_WRITE, (n ? n : 1) * sizeof(float), NULL, &rc);
    if (rc != CL_SUCCESS)
        return cp_err_set(CP_FAIL_RUNTIME, "clCreateBuffer(%s) failed: %s (%d)", what,
                          cp_cl_error_name(rc), rc);
    /* A write, not CL_MEM_COPY_HOST_PTR: Oclgrind's uninitialised-value check does not see
     * the data a buffer was created with. */
    if (init && n) {
        rc = clEnqueueWriteBuffer(c->q, *out, CL_TRUE, 0, n * sizeof(float), init, 0, NULL, NULL);
        if (rc != CL_SUCCESS)
            return cp_err_set(CP_FAIL_RUNTIME, "clEnqueueWriteBuffer(%s) failed: %s (%d)", what,
                              cp_cl_error_name(rc), rc);
    }
    return CP_OK;
}
/* train_cl_tile.c: the tiled kernels for mode (not TILE_SIMPLE), every argument set; their
 * launch of the rows × cols outputs in blocks of rm; their release. */
int train_cl_tile_setup(cp_trainer *tr, const cp_device *dev, int mode);
int train_cl_tile_enqueue(struct train_cl *c, cl_kernel k, const char *name, int rm, size_t rows,
                          size_t cols);
void train_cl_tile_release(struct train_cl *c);
/* The step in one launch (c->k_step), then the output read and the barrier's counters checked:
 * train_cl.c's step, with its optimizer pass between the two where one is needed. */
int train_cl_stream_enqueue(cp_trainer *tr);
int train_cl_stream_check(struct train_cl *c);

/* train_cl_cpu.c: the CPU kernels' build options (after a space), whether they take model m
 * (else auto takes the simple kernels), their setup once train.cl is built with them, a forward
 * (and backward: every row's dz and dx) from weights buffer p, the weights' gradient and update of
 * the step to come, and their release. */
void train_cl_cpu_options(cp_trainer *tr, char *buf, size_t len);
bool train_cl_cpu_fits(const cp_model *m); /* the layer table's ints hold its offsets */
int train_cl_cpu_setup(cp_trainer *tr);
int train_cl_cpu_rows(cp_trainer *tr, cl_mem p, bool backward);
int train_cl_cpu_grad(cp_trainer *tr);
void train_cl_cpu_release(struct train_cl *c);

/* train_cl_options.c: tr->build_options (and tr->div_sqrt, div_way, c->plant) for the
 * trainer's program, cr.cl's for cl:cr, train.cl's for the others. */
int train_cl_build_options(cp_trainer *tr, const cp_device *dev);

/* cl:own's probes (tr->probe, tr->probe_why): the training kernels (three SGD steps of a
 * trainer of own, cl:own's ops, against host:exact), and adam and adamw's div/sqrt way. Nothing
 * with CLPARITY_OWN_PROBE=off, nor for the probe's own trainer. */
int train_cl_probe(cp_trainer *tr, const cp_device *dev, const struct cp_train_ops *own);
/* True while the training probe makes its trainer: the tiled kernels then take both blocks,
 * alternating, so that the probe covers every kernel that a large model runs. */
bool train_cl_probing(void);
/* The way (enum tile_mode) of the trainer being probed: the probe's own trainer takes it. */
int train_cl_probe_mode(void);
/* True where the tiled rule gives every product of model m at this batch 16x16 blocks (grids
 * too small to fill the device): auto then takes the step in one launch. */
bool train_cl_tile_small(const cp_model *m, int batch);
/* cl:cr's probe of its div/sqrt (adam and adamw): cr.cl's tr_divsqrt, the float way on the
 * bits, as cl:own's probe of a way; tr->probe 1 passed, 0 failed. Nothing with
 * CLPARITY_OWN_PROBE=off. */
int train_cl_cr_probe(cp_trainer *tr, const cp_device *dev);

#endif
