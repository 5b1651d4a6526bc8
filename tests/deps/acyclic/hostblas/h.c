#include "h.h"

int h_twice(int x)
{
    return x * 2;
}
