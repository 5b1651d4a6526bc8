/* b.c's private header (the checker counts it as part of b.c). */
#ifndef B_IMPL_H
#define B_IMPL_H
int b_count(int n);
#endif
