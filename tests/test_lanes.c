/* hostblas/exact.c's tile with the batch in the AVX-512 lanes (host:exact's training step):
 * the forward (exact_fwd_lanes512: z = x·Wᵀ + b) and the input gradient (exact_dx_lanes512:
 * dx = dz·W, W's columns read in place, its rows in blocks of 256 with the partial sums kept in
 * between), in float (host:exact) and in double (host:f64: _f64), against the scalar chain that
 * defines those trainers' bits (from 0, one fma a term, k ascending, then + the bias), bit for
 * bit, at odd sizes: widths that are no multiple of the
 * tile's 6 outputs, more than 256 and 512 terms (several blocks), row ranges of 1 to 5 vectors
 * that do not start at row 0, and column ranges that start and end inside a tile. Values of
 * mixed magnitudes and signs, so that a sum taken in another order, or one term dropped, gives
 * other bits. Every output outside the range asked for must stay as it was. With the argument
 * "planted", one bit of one output (its lowest) is flipped after each call, and every check must
 * see exactly that one output differ. Skipped (77) where the CPU has no AVX-512. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "host-impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool planted;

#if defined(__x86_64__) && defined(__GNUC__)

/* A reproducible value of mixed magnitude (2^-12 to 2^4) and sign, exact in float. */
static double val(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t r = (uint32_t)(*s >> 33);
    double m = (double)(r & 0xffffff) / 16777216.0 + 0.5;
    int e = (int)((r >> 24) % 17) - 12;
    return ((r >> 23) & 1 ? -1.0 : 1.0) * ldexp(m, e);
}

/* The same with 26 more bits below float's (for double: sums of such products round there). */
static double val53(uint64_t *s)
{
    double v = val(s);
    return v + v * ldexp((double)((uint32_t)(*s >> 7) & 0x3ffffffu), -50);
}

#define SENTINEL 12345.0

/* The outputs [r0, r1) × [c0, c1) of got (rows `ld` apart, elements of es bytes) against want,
 * and every other one still SENTINEL; with `planted`, the lowest bit of output (r0 + 1, c0 + 1)
 * is flipped first, and exactly that one must differ. */
static void check(const char *what, void *gotv, const void *wantv, const void *sentinel, size_t es,
                  int rows, int ld, int r0, int r1, int c0, int c1)
{
    unsigned char *got = gotv;
    const unsigned char *want = wantv;
    if (planted)
        got[((size_t)(r0 + 1) * ld + c0 + 1) * es] ^= 1u; /* little-endian: the lowest byte */
    long bad = 0, outside = 0;
    for (int b = 0; b < rows; ++b)
        for (int c = 0; c < ld; ++c) {
            size_t i = ((size_t)b * ld + c) * es;
            bool in = b >= r0 && b < r1 && c >= c0 && c < c1;
            if (in && memcmp(got + i, want + i, es) != 0) {
                if (!bad && !planted)
                    fprintf(stderr, "%s: row %d output %d differs\n", what, b, c);
                ++bad;
            }
            outside += !in && memcmp(got + i, sentinel, es) != 0;
        }
    if (outside)
        fail_msg("%s: %ld outputs outside the range were written", what, outside);
    if (planted ? bad != 1 : bad != 0)
        fail_msg("%s: %ld outputs differ from the scalar chain (want %d)", what, bad,
                 planted ? 1 : 0);
}

/* One shape in element type T: W [out, in], a batch of `batch` rows; the forward over rows
 * [r0, r1) and outputs [c0, c1), dx over rows [r0, r1) and W's columns [k0, k1). */
#define LANES_SHAPE(NAME, T, VAL, FMA, FWD, DX)                                                    \
    static void NAME(int in, int out, int batch, int r0, int r1, int c0, int c1, int k0, int k1)   \
    {                                                                                              \
        uint64_t s = (uint64_t)(in * 1000003 + out * 1009 + batch);                                \
        size_t nw = (size_t)in * out, B = (size_t)batch;                                           \
        size_t nmax = B * (size_t)(in > out ? in : out);                                           \
        T *w = malloc(nw * sizeof *w), *bias = malloc((size_t)out * sizeof *bias);                 \
        T *x = malloc(B * in * sizeof *x), *xt = malloc(B * in * sizeof *xt);                      \
        T *dz = malloc(B * out * sizeof *dz), *dzt = malloc(B * out * sizeof *dzt);                \
        T *got = malloc(nmax * sizeof *got), *want = malloc(nmax * sizeof *want);                  \
        const T sentinel = (T)SENTINEL;                                                            \
        assert_true(w &&bias &&x &&xt &&dz &&dzt &&got &&want);                                    \
        for (size_t i = 0; i < nw; ++i)                                                            \
            w[i] = (T)VAL(&s);                                                                     \
        for (int o = 0; o < out; ++o)                                                              \
            bias[o] = (T)VAL(&s);                                                                  \
        for (size_t b = 0; b < B; ++b) {                                                           \
            for (int k = 0; k < in; ++k)                                                           \
                xt[(size_t)k * B + b] = x[b * in + k] = (T)VAL(&s);                                \
            for (int o = 0; o < out; ++o)                                                          \
                dzt[(size_t)o * B + b] = dz[b * out + o] = (T)VAL(&s);                             \
        }                                                                                          \
        char what[160];                                                                            \
        /* the forward: z[b][o] = chain over k of x[b][k]·W[o][k], then + bias[o] */              \
        for (size_t i = 0; i < B * out; ++i)                                                       \
            got[i] = sentinel;                                                                     \
        for (size_t b = 0; b < B; ++b)                                                             \
            for (int o = 0; o < out; ++o) {                                                        \
                T acc = 0;                                                                         \
                for (int k = 0; k < in; ++k)                                                       \
                    acc = FMA(x[b * in + k], w[(size_t)o * in + k], acc);                          \
                want[b * out + o] = acc + bias[o];                                                 \
            }                                                                                      \
        FWD(w, bias, xt, got, batch, in, out, r0, r1, c0, c1);                                     \
        snprintf(what, sizeof what, "%s in=%d out=%d batch=%d rows [%d, %d) outputs [%d, %d)",     \
                 #FWD, in, out, batch, r0, r1, c0, c1);                                            \
        check(what, got, want, &sentinel, sizeof(T), batch, out, r0, r1, c0, c1);                  \
        /* dx[b][k] = chain over o of dz[b][o]·W[o][k] */                                         \
        for (size_t i = 0; i < B * in; ++i)                                                        \
            got[i] = sentinel;                                                                     \
        for (size_t b = 0; b < B; ++b)                                                             \
            for (int k = 0; k < in; ++k) {                                                         \
                T acc = 0;                                                                         \
                for (int o = 0; o < out; ++o)                                                      \
                    acc = FMA(dz[b * out + o], w[(size_t)o * in + k], acc);                        \
                want[b * in + k] = acc;                                                            \
            }                                                                                      \
        DX(w, dzt, got, batch, in, out, r0, r1, k0, k1);                                           \
        snprintf(what, sizeof what, "%s in=%d out=%d batch=%d rows [%d, %d) columns [%d, %d)",     \
                 #DX, in, out, batch, r0, r1, k0, k1);                                             \
        check(what, got, want, &sentinel, sizeof(T), batch, in, r0, r1, k0, k1);                   \
        free(w);                                                                                   \
        free(bias);                                                                                \
        free(x);                                                                                   \
        free(xt);                                                                                  \
        free(dz);                                                                                  \
        free(dzt);                                                                                 \
        free(got);                                                                                 \
        free(want);                                                                                \
    }
LANES_SHAPE(shape_f32, float, val, fmaf, exact_fwd_lanes512, exact_dx_lanes512)
LANES_SHAPE(shape_f64, double, val53, fma, exact_fwd_lanes512_f64, exact_dx_lanes512_f64)

/* in, out, batch, rows, forward's outputs, dx's columns; in float and in double */
static void one_shape(int in, int out, int batch, int r0, int r1, int c0, int c1, int k0, int k1)
{
    shape_f32(in, out, batch, r0, r1, c0, c1, k0, k1);
    shape_f64(in, out, batch, r0, r1, c0, c1, k0, k1);
}

static void test_lanes(void **state)
{
    (void)state;
    /* in, out, batch, rows, forward's outputs, dx's columns */
    one_shape(37, 45, 16, 0, 16, 0, 45, 0, 37);
    one_shape(520, 530, 32, 16, 32, 5, 527, 7, 520);
    one_shape(513, 259, 80, 0, 80, 0, 259, 1, 512);
    one_shape(300, 517, 48, 16, 48, 3, 11, 250, 300);
    one_shape(1030, 600, 64, 0, 64, 6, 600, 0, 1030);
    one_shape(7, 257, 96, 32, 96, 0, 7, 0, 7);
}

#endif

int main(int argc, char **argv)
{
    planted = argc > 1 && strcmp(argv[1], "planted") == 0;
#if !(defined(__x86_64__) && defined(__GNUC__))
    printf("skipped: the lanes' tile is built for x86-64 only\n");
    return 77;
#else
    if (!isa_has(ISA_AVX512)) {
        printf("skipped: this CPU has no AVX-512, where the lanes' tile runs\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_lanes)};
    return cmocka_run_group_tests(tests, NULL, NULL);
#endif
}
