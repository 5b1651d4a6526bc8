/* Forward product z[b][o] = sum_k x[b][k] W[o][k] (fma chain, k ascending), B=64:
 * (a) lanes along o from W's row panels wp[o/16][k][16] (host:exact's tile: 8 rows x 1 panel);
 * (b) lanes along b from W in place (row-major) and xT[k][b]: 6 outputs x 4 vectors of 16 rows.
 * Both give the same bits; this times them (W in L2 or beyond). */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
#define B 64
__attribute__((target("avx512f"))) static void fwd_a(const float *wp, const float *x, float *z, int K, int N) {
  for (int p = 0; p < N / 16; ++p)
    for (int r0 = 0; r0 < B; r0 += 8) {
      __m512 acc[8];
      for (int r = 0; r < 8; ++r) acc[r] = _mm512_setzero_ps();
      const float *w = wp + (size_t)p * K * 16;
      for (int k = 0; k < K; ++k) {
        __m512 wv = _mm512_loadu_ps(w + (size_t)k * 16);
        for (int r = 0; r < 8; ++r)
          acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(x[(size_t)(r0 + r) * K + k]), wv, acc[r]);
      }
      for (int r = 0; r < 8; ++r) _mm512_storeu_ps(z + (size_t)(r0 + r) * N + p * 16, acc[r]);
    }
}
#define RO 6
__attribute__((target("avx512f"))) static void fwd_b(const float *W, const float *xT, float *zT, int K, int N) {
  for (int o0 = 0; o0 < N; o0 += RO) {
    int R = N - o0 < RO ? N - o0 : RO;
    __m512 acc[RO][4];
    for (int r = 0; r < RO; ++r) for (int v = 0; v < 4; ++v) acc[r][v] = _mm512_setzero_ps();
    const float *wr[RO];
    for (int r = 0; r < RO; ++r) wr[r] = W + (size_t)(o0 + (r < R ? r : 0)) * K;
    for (int k = 0; k < K; ++k) {
      __m512 xv0 = _mm512_loadu_ps(xT + (size_t)k * B), xv1 = _mm512_loadu_ps(xT + (size_t)k * B + 16);
      __m512 xv2 = _mm512_loadu_ps(xT + (size_t)k * B + 32), xv3 = _mm512_loadu_ps(xT + (size_t)k * B + 48);
      for (int r = 0; r < RO; ++r) {
        __m512 w = _mm512_set1_ps(wr[r][k]);
        acc[r][0] = _mm512_fmadd_ps(xv0, w, acc[r][0]); acc[r][1] = _mm512_fmadd_ps(xv1, w, acc[r][1]);
        acc[r][2] = _mm512_fmadd_ps(xv2, w, acc[r][2]); acc[r][3] = _mm512_fmadd_ps(xv3, w, acc[r][3]);
      }
    }
    for (int r = 0; r < R; ++r) for (int v = 0; v < 4; ++v) _mm512_storeu_ps(zT + (size_t)(o0 + r) * B + v * 16, acc[r][v]);
  }
}
/* dx[b][k] = sum_o dz[b][o] W[o][k], chain over o ascending; lanes along b from dzT[o][b], W in
 * place: per o, 6 contiguous k of row o */
__attribute__((target("avx512f"))) static void dx_b(const float *W, const float *dzT, float *dxT, int O, int I) {
  for (int k0 = 0; k0 < I; k0 += RO) {
    __m512 acc[RO][4];
    for (int r = 0; r < RO; ++r) for (int v = 0; v < 4; ++v) acc[r][v] = _mm512_setzero_ps();
    for (int o = 0; o < O; ++o) {
      const float *d = dzT + (size_t)o * B, *w = W + (size_t)o * I + k0;
      if (o + 8 < O) __builtin_prefetch(w + 8 * (size_t)I, 0, 3);
      __m512 d0 = _mm512_loadu_ps(d), d1 = _mm512_loadu_ps(d + 16), d2 = _mm512_loadu_ps(d + 32), d3 = _mm512_loadu_ps(d + 48);
      for (int r = 0; r < RO; ++r) {
        __m512 wv = _mm512_set1_ps(w[r]);
        acc[r][0] = _mm512_fmadd_ps(d0, wv, acc[r][0]); acc[r][1] = _mm512_fmadd_ps(d1, wv, acc[r][1]);
        acc[r][2] = _mm512_fmadd_ps(d2, wv, acc[r][2]); acc[r][3] = _mm512_fmadd_ps(d3, wv, acc[r][3]);
      }
    }
    for (int r = 0; r < RO && k0 + r < I; ++r) for (int v = 0; v < 4; ++v) _mm512_storeu_ps(dxT + (size_t)(k0 + r) * B + v * 16, acc[r][v]);
  }
}
int main(int argc, char **argv) {
  int K = atoi(argv[1]), N = K, L = argc > 2 ? atoi(argv[2]) : 1, reps = argc > 3 ? atoi(argv[3]) : 50;
  size_t nw = (size_t)K * N;
  float *W = aligned_alloc(64, nw * 4 * L), *wp = aligned_alloc(64, nw * 4 * L), *x = aligned_alloc(64, (size_t)B * K * 4),
        *xT = aligned_alloc(64, (size_t)B * K * 4), *z = aligned_alloc(64, (size_t)B * N * 4), *zT = aligned_alloc(64, (size_t)B * N * 4);
  srand(1);
  for (size_t i = 0; i < nw * L; ++i) W[i] = (float)rand() / RAND_MAX - 0.5f;
  for (int l = 0; l < L; ++l) for (int o = 0; o < N; ++o) for (int k = 0; k < K; ++k) wp[(size_t)l*nw + ((size_t)(o / 16) * K + k) * 16 + o % 16] = W[(size_t)l*nw + (size_t)o * K + k];
  for (int b = 0; b < B; ++b) for (int k = 0; k < K; ++k) { x[(size_t)b * K + k] = (float)rand() / RAND_MAX; xT[(size_t)k * B + b] = x[(size_t)b * K + k]; }
  double ta = 1e9, tb = 1e9;
  for (int rep = 0; rep < reps; ++rep) {
    double t0 = now(); for (int l = 0; l < L; ++l) fwd_a(wp + (size_t)l*nw, x, z, K, N); double t1 = now();
    for (int l = 0; l < L; ++l) fwd_b(W + (size_t)l*nw, xT, zT, K, N); double t2 = now();
    if (t1 - t0 < ta) ta = t1 - t0; if (t2 - t1 < tb) tb = t2 - t1;
  }
  double tc = 1e9;
  for (int rep = 0; rep < reps; ++rep) { double t0 = now(); for (int l = 0; l < L; ++l) dx_b(W + (size_t)l*nw, xT, zT, N, K); double t1 = now(); if (t1 - t0 < tc) tc = t1 - t0; }
  printf("dx in place (lanes b, K %% 6 rest dropped): %.1f GFLOP/s\n", 2.0 * B * K * N * L / tc / 1e9);
  for (int l = 0; l < L; ++l) fwd_b(W + (size_t)l*nw, xT, zT, K, N);
  int bad = 0; for (int b = 0; b < B; ++b) for (int o = 0; o < N; ++o) bad += memcmp(&z[(size_t)b * N + o], &zT[(size_t)o * B + b], 4) != 0;
  double f = 2.0 * B * K * N * L;
  printf("K=N=%d L=%d B=%d: panels (lanes o) %.1f GFLOP/s, in place (lanes b) %.1f GFLOP/s; outputs differing %d\n", K, L, B, f / ta / 1e9, f / tb / 1e9, bad);
}
