/* Private: cl:cr's state and its kernel variants, shared by cr_cl.c (the choice, the settings,
 * the build and the probe) and cr_cl_run.c (the variants' rows, their launches, buffers and
 * release). */
#ifndef CLPARITY_CR_CL_RUN_IMPL_H
#define CLPARITY_CR_CL_RUN_IMPL_H

#include "cl-shared-impl.h"
#include "params-impl.h" /* struct cr_tune: CLPARITY_CR_TUNE's settings */

#include <stdbool.h>
#include <stddef.h>

/* cr.cl's geometry that the host needs too (cr.cl's CR_DIGITS, CR_LX × CR_LY, CR_TM, CR_TN). */
#define CR_CL_DIGITS 20
#define CR_CL_GEMM_LX 8
#define CR_CL_GEMM_LY 8
/* cr.cl's CR_TM = CR_TN: a tile's rows and outputs, CR_RM = CR_RN (the tune's rm, -DCR_RM) per
 * work-item */
#define CR_CL_GEMM_TILE(c) (CR_CL_GEMM_LX * (c)->tune.rm)

/* The kernel variants. */
enum cr_path {
    CR_GEMV,
    CR_SPLITK,
    CR_GEMM,
    CR_CPU,
    CR_STREAM,
    CR_CPU1,
    CR_TEAM,
    CR_TILES,
    CR_F32,      /* the float32-only certified method (clkernels/cr_f32.cl), gemv's layout */
    CR_F32_ITEM, /* the same method, a work-item per output (CPUs) */
    CR_N_PATHS
};

/* Whether path is one of the float32-only method's (no double, its own arithmetic). */
static inline bool cr_path_f32(enum cr_path path)
{
    return path == CR_F32 || path == CR_F32_ITEM;
}

struct cr_cl {
    enum cr_path path;
    struct cr_tune tune;
    bool f64;          /* the certified double path (CR_F64) */
    bool ftz;          /* float denormals through the bits (CR_NO_DENORM) */
    bool planted;      /* test hook corrupt-cl-cr */
    cl_program prog;   /* cr.cl */
    cl_kernel k[2];    /* the variant's kernels: its main one, and a second or NULL */
    cl_mem wnorm;      /* f64: |W_o|_2 of every layer's outputs, [n_layers][max_width]; f32:
                        * each output's smallest key of W_o (cr_f32.cl's cr_f32_key) */
    cl_mem part;       /* splitk: the ranges' sums (doubles, or digits without f64) */
    cl_mem pflags;     /* splitk without f64: the ranges' flags */
    cl_mem xpart;      /* splitk with f64: the ranges' sums of squares */
    cl_mem desc;       /* stream, cpu1: 8 ulongs per layer (cr.cl's cr_stream) */
    cl_mem xd;         /* cpu1 with f64: the rows' inputs as doubles, [max_batch][max_width] */
    size_t groups;     /* stream: work-groups per launch at most (compute units × sg) */
    size_t launched;   /* stream: work-groups of the last launch */
    int pf;            /* team: weights per work-item loaded ahead (cr_team.cl's CR_PF) */
    size_t part_bytes; /* the sizes of part and pflags */
    size_t pflags_bytes;
    char opts[320]; /* the build options of the variant set up (its probe's key) */
};

/* cl:cr's state, behind its path's ops (s->priv). */
static inline struct cr_cl *cr_state(const struct cl_state *s)
{
    return s->priv;
}

/* The variants' rows of the OpenCL engines' path type, indexed by enum cr_path (cr_cl_run.c). */
extern const struct cl_path_ops cr_paths[CR_N_PATHS];

/* The local memory of the group kernels (gemv, splitk), argument by argument (cr_cl_run.c). */
void cr_group_locals(const struct cr_cl *c, size_t sizes[3]);

/* The most rounded additions on any term's path to an output's double sum in c's variant, at
 * most in: cr_err_scale's argument for the first certificate (cr_bound.c). */
int cr_sum_depth(const struct cr_cl *c, int in);

/* Releases c's program and kernels (a variant set up again builds anew). */
void cr_release_program(struct cr_cl *c);

#endif
