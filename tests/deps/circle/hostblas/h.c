#include "h.h"
#include "../runtime/d.h"

int h_twice(int x)
{
    return x * D_TWO;
}
