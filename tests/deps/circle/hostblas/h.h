#ifndef H_H
#define H_H
int h_twice(int x);
#endif
