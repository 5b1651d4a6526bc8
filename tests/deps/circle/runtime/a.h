/* Planted for tests/deps: a.c and b.c call each other (a file circle). */
#ifndef A_H
#define A_H
int a_count(int n);
#endif
