#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <immintrin.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int c,char**v){size_t mb=atoi(v[1]);size_t n=mb*1024*1024/4;float*a=aligned_alloc(64,n*4);float*b=aligned_alloc(64,512u<<20);memset(a,1,n*4);
for(int r=0;r<5;r++){memset(b,r,512u<<20); /* evict */ double t0=now();__m512 s=_mm512_setzero_ps();for(size_t i=0;i<n;i+=16)s=_mm512_add_ps(s,_mm512_load_ps(a+i));double t1=now();
__m512 s2=_mm512_setzero_ps();for(size_t i=0;i<n;i+=16)s2=_mm512_add_ps(s2,_mm512_load_ps(a+i));double t2=now();
printf("%zu MB cold %.1f GB/s warm %.1f GB/s %f\n",mb,n*4/(t1-t0)/1e9,n*4/(t2-t1)/1e9,_mm512_reduce_add_ps(s)+_mm512_reduce_add_ps(s2));}}
