/* Private: clparity ulp's sample and comparison (runtime/opencl/ulp.c), which train's probe of its
 * div/sqrt way runs on its own program (runtime/opencl/train_probe.c). */
#ifndef CLPARITY_ULP_IMPL_H
#define CLPARITY_ULP_IMPL_H

#include "clparity/error.h"
#include "clparity/ulp.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The correctly rounded function a case is measured against, on the host. */
enum ulp_ref { ULP_REF_SQRT, ULP_REF_DIV, ULP_REF_RECIP };

/* Kernel k takes (x, y, r, n, op) as ulp.cl's ulp_eval and train.cl's tr_divsqrt do: runs it
 * with op on the first n inputs of ref's sample (half: only those in the half_ functions'
 * domain) on q, in chunks, and compares each result with the host's correctly rounded one. */
int ulp_run(cl_context ctx, cl_command_queue q, cl_kernel k, int op, enum ulp_ref ref, bool half,
            size_t n, uint64_t seed, void (*progress)(void *ctx, size_t done, size_t total),
            void *pctx, cp_ulp_stats *st);

#endif
