#include "a.h"
#include "b-impl.h"

int a_count(int n)
{
    return n <= 0 ? 0 : 1 + b_count(n - 1);
}
