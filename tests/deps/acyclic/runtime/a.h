/* tests/deps: a.c calls b.c, never the other way. */
#ifndef A_H
#define A_H
int a_count(int n);
#endif
