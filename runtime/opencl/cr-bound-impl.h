/* Private: cl:cr's first certificate's bound per kernel variant (cr_bound.c). */
#ifndef CLPARITY_CR_BOUND_IMPL_H
#define CLPARITY_CR_BOUND_IMPL_H

#include "cr-cl-state.h"

/* The most rounded additions on any term's path to an output's double sum in c's variant, at
 * most in: cr_err_scale's argument for the first certificate (cr_bound.c). */
int cr_sum_depth(const struct cr_cl *c, int in);

#endif
