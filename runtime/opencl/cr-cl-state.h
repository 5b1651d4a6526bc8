/* Private: cl:cr's state and its kernel variants, the types alone (no functions): cr_cl.c,
 * cr_cl_run.c and cr_bound.c read them. An interface of its own (tools/check_deps), so that
 * cr_bound.c needs no header of cr_cl_run.c's. */
#ifndef CLPARITY_CR_CL_STATE_H
#define CLPARITY_CR_CL_STATE_H

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
    CR_F32,        /* the float32-only certified method (clkernels/cr_f32.cl), gemv's layout */
    CR_F32_ITEM,   /* the same method, a work-item per output (CPUs) */
    CR_F32_STREAM, /* the same method, stream's layout: the whole model in one launch (GPUs) */
    CR_F32_GEMM,   /* the same method in gemm's tiles, a launch per layer */
    CR_F32_TILES,  /* the same method in gemm's tiles, every layer in one launch as tiles */
    CR_N_PATHS
};

/* Whether path is one of the float32-only method's (no double, its own arithmetic). */
static inline bool cr_path_f32(enum cr_path path)
{
    return path == CR_F32 || path == CR_F32_ITEM || path == CR_F32_STREAM || path == CR_F32_GEMM ||
           path == CR_F32_TILES;
}

/* Whether path runs cr.cl's tiles of CR_CL_GEMM_LX × CR_CL_GEMM_LY work-items (gemm, tiles, and
 * the float32 method's f32-gemm and f32-tiles): its rm and tk, and no wg. */
static inline bool cr_path_tiled(enum cr_path path)
{
    return path == CR_GEMM || path == CR_TILES || path == CR_F32_GEMM || path == CR_F32_TILES;
}

/* Whether path runs every layer's tiles in one launch (tiles, f32-tiles). */
static inline bool cr_path_tiles(enum cr_path path)
{
    return path == CR_TILES || path == CR_F32_TILES;
}

/* Whether path runs cr_f32.cl's group function (cr_f32_block: the float-float rows in local
 * memory), a launch per layer (f32) or the whole model in one (f32-stream). */
static inline bool cr_path_f32_group(enum cr_path path)
{
    return path == CR_F32 || path == CR_F32_STREAM;
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
    cl_mem fix;        /* f32-gemm: a count per layer, then the (row, output) pairs of the
                        * outputs whose certificate failed, for cr_f32_fix (cr_f32.cl) */
    cl_uint *zeros;    /* f32-gemm: a 0 per layer, the counts' value before each forward */
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

#endif
