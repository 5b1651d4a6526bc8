#include "b-impl.h"

int b_count(int n)
{
    return n <= 0 ? 0 : 2 + b_count(n - 2);
}
