/* dx = dz·W with the batch in the AVX-512 lanes, W read in place: unblocked (every row of W per tile) and in blocks of OB rows with the partial sums kept in between; same bits, GFLOP/s. gcc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -ffp-contract=off -o dxl dxl.c; ./dxl K L reps OB (one core) */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
#define B 64
#define RO 6
/* plain: chain over all o per tile */
__attribute__((target("avx512f"))) static void dx_b(const float *W, const float *dzT, float *dxT, int O, int I) {
  for (int k0 = 0; k0 < I; k0 += RO) {
    __m512 acc[RO][4];
    for (int r = 0; r < RO; ++r) for (int v = 0; v < 4; ++v) acc[r][v] = _mm512_setzero_ps();
    for (int o = 0; o < O; ++o) {
      const float *d = dzT + (size_t)o * B, *w = W + (size_t)o * I + k0;
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
/* blocked over o: chunks of KC outputs, blocks of OB terms, partial sums in a scratch (exact) */
#define KC 48
__attribute__((target("avx512f"))) static void dx_blk(const float *W, const float *dzT, float *dxT, int O, int I, int OB) {
  __m512 sc[KC][4];
  for (int kc = 0; kc < I; kc += KC) {
    int kn = I - kc < KC ? I - kc : KC;
    for (int o0 = 0; o0 < O; o0 += OB) {
      int o1 = O - o0 < OB ? O : o0 + OB;
      for (int k0 = kc; k0 < kc + kn; k0 += RO) {
        __m512 acc[RO][4];
        int t = k0 - kc;
        for (int r = 0; r < RO; ++r) for (int v = 0; v < 4; ++v) acc[r][v] = o0 ? sc[t + r][v] : _mm512_setzero_ps();
        for (int o = o0; o < o1; ++o) {
          const float *d = dzT + (size_t)o * B, *w = W + (size_t)o * I + k0;
          __m512 d0 = _mm512_loadu_ps(d), d1 = _mm512_loadu_ps(d + 16), d2 = _mm512_loadu_ps(d + 32), d3 = _mm512_loadu_ps(d + 48);
          for (int r = 0; r < RO; ++r) {
            __m512 wv = _mm512_set1_ps(w[r]);
            acc[r][0] = _mm512_fmadd_ps(d0, wv, acc[r][0]); acc[r][1] = _mm512_fmadd_ps(d1, wv, acc[r][1]);
            acc[r][2] = _mm512_fmadd_ps(d2, wv, acc[r][2]); acc[r][3] = _mm512_fmadd_ps(d3, wv, acc[r][3]);
          }
        }
        for (int r = 0; r < RO; ++r) for (int v = 0; v < 4; ++v) sc[t + r][v] = acc[r][v];
      }
    }
    for (int r = 0; r < kn; ++r) for (int v = 0; v < 4; ++v) _mm512_storeu_ps(dxT + (size_t)(kc + r) * B + v * 16, sc[r][v]);
  }
}
int main(int argc, char **argv) {
  int K = atoi(argv[1]), L = atoi(argv[2]), reps = atoi(argv[3]), OB = atoi(argv[4]);
  int N = K; size_t nw = (size_t)K * N;
  float *W = aligned_alloc(64, nw * 4 * L), *dzT = aligned_alloc(64, (size_t)B * N * 4), *a = aligned_alloc(64, (size_t)B * K * 4 + 4096), *b = aligned_alloc(64, (size_t)B * K * 4 + 4096);
  srand(1);
  for (size_t i = 0; i < nw * L; ++i) W[i] = (float)rand() / RAND_MAX - 0.5f;
  for (size_t i = 0; i < (size_t)B * N; ++i) dzT[i] = (float)rand() / RAND_MAX - 0.5f;
  double ta = 1e9, tb = 1e9;
  for (int rep = 0; rep < reps; ++rep) {
    double t0 = now(); for (int l = 0; l < L; ++l) dx_b(W + (size_t)l*nw, dzT, a, N, K); double t1 = now();
    for (int l = 0; l < L; ++l) dx_blk(W + (size_t)l*nw, dzT, b, N, K, OB); double t2 = now();
    if (t1 - t0 < ta) ta = t1 - t0; if (t2 - t1 < tb) tb = t2 - t1;
  }
  double f = 2.0 * B * K * N * L;
  printf("K=%d L=%d OB=%d: plain %.1f, blocked %.1f GFLOP/s; differ %d\n", K, L, OB, f/ta/1e9, f/tb/1e9, memcmp(a, b, (size_t)B*K*4) != 0);
}
