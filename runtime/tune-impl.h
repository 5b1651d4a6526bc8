/* Private: the name=value lists of the tune settings (CLPARITY_OWN_TUNE, `clparity tune`'s
 * store, CLPARITY_CR_TUNE), parsed from a table of parameters: the parser and the tables are
 * params.c's (params-impl.h), below env.c, which checks the variables with them. */
#ifndef CLPARITY_TUNE_IMPL_H
#define CLPARITY_TUNE_IMPL_H

#include "params-impl.h"

#include <stddef.h>

#endif
