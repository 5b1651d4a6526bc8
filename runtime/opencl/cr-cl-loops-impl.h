/* Private: cl:cr's loop budgets, an interface of its own (tools/check_deps): cr_cl_run.c's
 * rows of the variants take them, cr_cl_loops.c defines them from cl:cr's state's types. */
#ifndef CLPARITY_CR_CL_LOOPS_IMPL_H
#define CLPARITY_CR_CL_LOOPS_IMPL_H

#include "cr-cl-state.h"

/* The variants' loop budgets for a layer of `in` inputs (priv: a struct cr_cl; cr_cl_loops.c). */
long cr_gemv_need(const void *priv, long in);
long cr_splitk_need(const void *priv, long in);
long cr_gemm_need(const void *priv, long in);
long cr_f32_item_need(const void *priv, long in);
long cr_cpu_need(const void *priv, long in);
long cr_cpu1_need(const void *priv, long in);
long cr_team_need(const void *priv, long in);

#endif
