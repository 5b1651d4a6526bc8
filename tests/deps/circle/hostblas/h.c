#include "h.h"
#include "../runtime/jobs/d.h"

int h_twice(int x)
{
    return x * D_TWO;
}
