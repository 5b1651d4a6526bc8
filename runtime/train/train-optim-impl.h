/* Private: the optimizers' state and needs (runtime/train/train_optim.c), below the trainer. */
#ifndef CLPARITY_TRAIN_OPTIM_IMPL_H
#define CLPARITY_TRAIN_OPTIM_IMPL_H

#include "clparity/train.h"

#include <stdbool.h>
#include <stddef.h>

/* The number of state tensors of kind (0, 1 or 2) and their PyTorch names. */
size_t train_state_count(enum cp_optim_kind kind);
const char *train_state_name(enum cp_optim_kind kind, size_t k);
/* Whether the step needs the whole gradient and the optimizer's update rather than the fused
 * plain SGD update W = fma(−lr, gW, W). */
bool train_needs_grad(const cp_optim *o);

#endif
