/* runtime/jobs -> hostblas (a call), while hostblas/h.c includes runtime/jobs/d.h: a folder
 * circle, two folders deep, that is no file circle (d.h has no d.c: a node of its own). */
#include "../../hostblas/h.h"

int c_four(int x)
{
    return h_twice(h_twice(x));
}
