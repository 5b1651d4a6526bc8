/* runtime/jobs -> hostblas only. */
#include "../../hostblas/h.h"

int c_four(int x)
{
    return h_twice(h_twice(x));
}
