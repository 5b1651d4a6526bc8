#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
__attribute__((target("avx512f"),noinline)) void adam(float*restrict p,const float*restrict G,float*restrict m,float*restrict v,size_t n){
 const float w1=0.1f,beta2=0.999f,c2=0.001f,bc2=0.7f,nss=-0.001f,eps=1e-8f;
 for(size_t i=0;i<n;++i){float g=G[i],pi=p[i];float d=g-m[i];float mi=fmaf(w1,d,m[i]);float vi=v[i]*beta2;vi=vi+(c2*g)*g;float den=sqrtf(vi)/bc2+eps;m[i]=mi;v[i]=vi;p[i]=pi+(nss*mi)/den;}}
int main(int c,char**a){size_t n=atol(a[1]);int reps=atoi(a[2]);float*p=aligned_alloc(64,n*4),*g=aligned_alloc(64,n*4),*m=aligned_alloc(64,n*4),*v=aligned_alloc(64,n*4);
for(size_t i=0;i<n;i++){p[i]=1;g[i]=0.01f*(i%7);m[i]=0;v[i]=0;}
double t0=now();for(int r=0;r<reps;r++)adam(p,g,m,v,n);double t=now()-t0;printf("n=%zu %.3f ns/weight\n",n,t/reps/n*1e9);}
