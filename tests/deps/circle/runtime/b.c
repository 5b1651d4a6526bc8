#include "b-impl.h"
#include "a.h"

int b_count(int n)
{
    return n <= 0 ? 0 : 1 + a_count(n - 1);
}
