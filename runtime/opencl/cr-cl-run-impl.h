/* Private: cl:cr's state and its kernel variants, shared by cr_cl.c (the choice, the settings,
 * the build and the probe) and cr_cl_run.c (the variants' rows, their launches, buffers and
 * release). */
#ifndef CLPARITY_CR_CL_RUN_IMPL_H
#define CLPARITY_CR_CL_RUN_IMPL_H

#include "cr-cl-state.h"

#include <stddef.h>

/* The variants' rows of the OpenCL engines' path type, indexed by enum cr_path (cr_cl_run.c). */
extern const struct cl_path_ops cr_paths[CR_N_PATHS];

/* The local memory of the group kernels (gemv, splitk), argument by argument (cr_cl_run.c). */
void cr_group_locals(const struct cr_cl *c, size_t sizes[3]);

/* The local memory of the tiled kernels (gemm, tiles, f32-gemm, f32-tiles): xs and ws each
 * (*tile bytes), and xq (cr_cl_run.c). */
void cr_tile_locals(const struct cr_cl *c, size_t *tile, size_t *xq);

/* Releases c's program and kernels (a variant set up again builds anew). */
void cr_release_program(struct cr_cl *c);

#endif
