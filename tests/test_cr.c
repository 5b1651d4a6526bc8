/* runtime/cr: host:cr's arithmetic (hostblas/cr.c). The exact accumulator and its rounding on
 * hand-made sums whose right answer is known: ties both ways, one unit of 2^-298 off a midpoint,
 * cancellation to zero and the sign of zero, overflow at 2^128 − 2^103, subnormals, NaN and
 * infinity; cr_dot_zero against the accumulator; the fast path's certificate; and host:cr's fast
 * path against its scalar form (every output through the accumulator) on random and near-tie
 * rows and on exact zeros of both signs, bit for bit. With the argument
 * "planted", the comparisons must see host:cr's planted one-bit error (test hook corrupt-cr). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cr_util.h"
#include "engine_util.h"

#include "hostblas/cr.h"
#include "clparity/error.h"
#include "clparity/gen.h"

#include <math.h>
#include <string.h>

static cp_devlist devs;
static bool planted;
static int compared; /* comparisons made by compare_modes */

/* The sum of products x[i]·w[i] (and bias b where has_b) must have the bits want. */
static void check_sum(const char *what, const float *x, const float *w, int n, bool has_b, float b,
                      uint32_t want)
{
    float got = cr_dot(x, w, n, has_b ? &b : NULL);
    if (cr_bits(got) != want)
        fail_msg("%s: got %a (0x%08x), want %a (0x%08x)", what, (double)got, cr_bits(got),
                 (double)cr_float(want), want);
}

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Exact ties go to the even neighbour, both ways and both signs; one unit of the exact sum
 * (2^-298, the product of two smallest subnormals) off a tie decides it. */
static void test_ties(void **state)
{
    (void)state;
    const float tiny = 0x1p-149f; /* tiny·tiny = 2^-298, the accumulator's unit */
    /* 1 + 2^-24: between 1 (even) and 1 + 2^-23 (odd): down */
    float x1[] = {1.0f, 0x1p-24f}, w1[] = {1.0f, 1.0f};
    check_sum("1 + 2^-24", x1, w1, 2, false, 0, 0x3f800000u);
    /* 1 + 3·2^-24: between 1 + 2^-23 (odd) and 1 + 2^-22 (even): up */
    float x2[] = {1.0f, 0x1.8p-23f}, w2[] = {1.0f, 1.0f};
    check_sum("1 + 3*2^-24", x2, w2, 2, false, 0, 0x3f800002u);
    /* the same ties negative, the tie part from the bias */
    float x3[] = {-1.0f}, w3[] = {1.0f};
    check_sum("-1 - 2^-24", x3, w3, 1, true, -0x1p-24f, 0xbf800000u);
    float x4[] = {-1.0f, -0x1p-23f}, w4[] = {1.0f, 1.0f};
    check_sum("-1 - 3*2^-24", x4, w4, 2, true, -0x1p-24f, 0xbf800002u);
    /* one unit above and below the tie 1 + 2^-24 */
    float x5[] = {1.0f, 0x1p-24f, tiny}, w5[] = {1.0f, 1.0f, tiny};
    check_sum("1 + 2^-24 + 2^-298", x5, w5, 3, false, 0, 0x3f800001u);
    float w6[] = {1.0f, 1.0f, -tiny};
    check_sum("1 + 2^-24 - 2^-298", x5, w6, 3, false, 0, 0x3f800000u);
    /* one unit off the odd tie 1 + 3·2^-24: below goes down to the odd neighbour */
    float x7[] = {1.0f, 0x1.8p-23f, tiny}, w7[] = {1.0f, 1.0f, -tiny};
    check_sum("1 + 3*2^-24 - 2^-298", x7, w7, 3, false, 0, 0x3f800001u);
    /* a tie made of many small terms far below the result's lsb: 2^20 + 0.0625 ... */
    float x8[] = {0x1p20f, 0x1p-5f, 0x1p-5f}, w8[] = {1.0f, 1.0f, 1.0f};
    /* 2^20 + 2^-4: ulp at 2^20 is 2^-3, tie between 2^20 (even) and 2^20 + 2^-3: down */
    check_sum("2^20 + 2^-4 in two halves", x8, w8, 3, false, 0, 0x49800000u);
    /* a tie below a power of two: 2 - 2^-24 lies between 2 - 2^-23 (odd) and 2 (even): up */
    float x9[] = {2.0f, -0x1p-24f}, w9[] = {1.0f, 1.0f};
    check_sum("2 - 2^-24", x9, w9, 2, false, 0, 0x40000000u);
    /* 2 + 2^-23: between 2 (even) and 2 + 2^-22: down; + 2^-298: up */
    float x10[] = {2.0f, 0x1p-23f, tiny}, w10[] = {1.0f, 1.0f, tiny};
    check_sum("2 + 2^-23 + 2^-298", x10, w10, 3, false, 0, 0x40000001u);
    check_sum("2 + 2^-23", x10, w10, 2, false, 0, 0x40000000u);
}

/* Cancellation to an exact zero is +0; -0 only when every term is -0; a nonzero sum that rounds
 * to zero keeps its sign. */
static void test_zero(void **state)
{
    (void)state;
    float x1[] = {1.5f, -1.5f}, w1[] = {3.0f, 3.0f};
    check_sum("3*1.5 - 3*1.5", x1, w1, 2, false, 0, 0x00000000u);
    check_sum("... + bias -0", x1, w1, 2, true, -0.0f, 0x00000000u);
    float x2[] = {-0.0f, 0.0f}, w2[] = {1.0f, -2.0f}; /* -0, -0 */
    check_sum("-0 + -0", x2, w2, 2, false, 0, 0x80000000u);
    check_sum("-0 + -0 + bias -0", x2, w2, 2, true, -0.0f, 0x80000000u);
    check_sum("-0 + -0 + bias +0", x2, w2, 2, true, 0.0f, 0x00000000u);
    float x3[] = {-0.0f, 0.0f}, w3[] = {1.0f, 2.0f}; /* -0, +0 */
    check_sum("-0 + +0", x3, w3, 2, false, 0, 0x00000000u);
    float x4[] = {0x1p100f, 0x1p100f, 0x1p-149f}, w4[] = {1.0f, -1.0f, 0x1p-149f};
    check_sum("2^100 - 2^100 + 2^-298", x4, w4, 3, false, 0, 0x00000000u);
    float w5[] = {1.0f, -1.0f, -0x1p-149f};
    check_sum("2^100 - 2^100 - 2^-298", x4, w5, 3, false, 0, 0x80000000u);
    /* huge terms cancelling exactly around a small one: the accumulator's top digits */
    float x6[] = {0x1.fffffep127f, 1.0f, -0x1.fffffep127f},
          w6[] = {0x1.fffffep127f, 1.0f, 0x1.fffffep127f};
    check_sum("max^2 + 1 - max^2", x6, w6, 3, false, 0, 0x3f800000u);
    /* an empty sum is +0 */
    cr_acc a;
    cr_acc_init(&a);
    assert_int_equal(cr_bits(cr_acc_round(&a)), 0u);
}

/* cr_dot_zero (every term a zero: the fast path's outputs whose bound is 0) against the
 * accumulator, bit for bit: 2,000 sums of 0 to 70 terms, each a signed zero times a finite
 * value (either side), with no bias, +0 or -0; a third of them with every term -0, so that both
 * signs of the answer come up many times. */
static void test_dot_zero(void **state)
{
    (void)state;
    uint64_t r = 0x9e3779b97f4a7c15u;
    int neg = 0, cases = 0;
    for (int c = 0; c < 2000; ++c) {
        float x[70], w[70], b;
        r = r * 6364136223846793005u + 1442695040888963407u;
        int n = (int)(r >> 33) % 71, kind = (int)(r >> 20) % 3, bias = (int)(r >> 10) % 3;
        for (int k = 0; k < n; ++k) {
            r = r * 6364136223846793005u + 1442695040888963407u;
            float v = (float)((r >> 40) % 1000 + 1) * 0x1p-7f; /* finite, nonzero */
            bool zx = (r >> 8) & 1, sz = (r >> 9) & 1, sv = (r >> 10) & 1;
            if (kind == 0) /* every term -0: the zero's sign and the value's differ */
                sv = !sz;
            float z = sz ? -0.0f : 0.0f, f = sv ? -v : v;
            x[k] = zx ? z : f;
            w[k] = zx ? f : z;
        }
        b = bias == 2 ? -0.0f : 0.0f;
        const float *bp = bias == 0 ? NULL : &b;
        float want = cr_dot(x, w, n, bp), got = cr_dot_zero(x, w, n, bp);
        if (cr_bits(got) != cr_bits(want))
            fail_msg("case %d (n %d, bias %d): cr_dot_zero 0x%08x, cr_dot 0x%08x", c, n, bias,
                     cr_bits(got), cr_bits(want));
        neg += cr_bits(want) == 0x80000000u;
        ++cases;
    }
    /* both answers came up */
    assert_true(neg > 200 && cases - neg > 200);
}

/* Overflow from exactly 2^128 − 2^103 (the midpoint above the largest float, whose significand
 * is odd); just below it, the largest float. */
static void test_overflow(void **state)
{
    (void)state;
    const float max = 0x1.fffffep127f, tiny = 0x1p-149f;
    float x1[] = {max, 0x1p103f}, w1[] = {1.0f, 1.0f};
    check_sum("max + 2^103", x1, w1, 2, false, 0, 0x7f800000u);
    float x2[] = {max, 0x1p103f, tiny}, w2[] = {1.0f, 1.0f, -tiny};
    check_sum("max + 2^103 - 2^-298", x2, w2, 3, false, 0, 0x7f7fffffu);
    float x3[] = {-max, -0x1p103f}, w3[] = {1.0f, 1.0f};
    check_sum("-max - 2^103", x3, w3, 2, false, 0, 0xff800000u);
    check_sum("-max - 2^103 + 2^-298 (bias)", x2, w2, 2, true, -0x1p103f, 0x7f7fffffu);
    float x4[] = {-max, -0x1p103f, tiny}, w4[] = {1.0f, 1.0f, tiny};
    check_sum("-max - 2^103 + 2^-298", x4, w4, 3, false, 0, 0xff7fffffu);
    /* the largest products, many of them: far past the range, then cancelled back */
    float x5[64], w5[64];
    for (int i = 0; i < 64; ++i) {
        x5[i] = max;
        w5[i] = i < 32 ? max : -max;
    }
    check_sum("32 max^2 - 32 max^2", x5, w5, 64, true, 1.0f, 0x3f800000u);
    check_sum("32 max^2", x5, w5, 32, false, 0, 0x7f800000u);
    /* a product past the range with a float bias: still finite after the cancellation */
    float x6[] = {0x1p100f, 0x1p100f}, w6[] = {0x1p100f, -0x1p100f};
    check_sum("2^200 - 2^200 + max", x6, w6, 2, true, max, 0x7f7fffffu);
}

/* The subnormal range: the smallest subnormal, ties at the bottom, rounding into the normal
 * range. */
static void test_subnormal(void **state)
{
    (void)state;
    float x1[] = {0x1p-75f}, w1[] = {0x1p-74f};
    check_sum("2^-149", x1, w1, 1, false, 0, 0x00000001u);
    float x2[] = {0x1p-75f}, w2[] = {0x1p-75f};
    check_sum("2^-150 (a tie to 0)", x2, w2, 1, false, 0, 0x00000000u);
    float w3[] = {-0x1p-75f};
    check_sum("-2^-150 (a tie to -0)", x2, w3, 1, false, 0, 0x80000000u);
    float x4[] = {0x1p-75f, 0x1p-149f}, w4[] = {0x1p-75f, 0x1p-149f};
    check_sum("2^-150 + 2^-298", x4, w4, 2, false, 0, 0x00000001u);
    float x5[] = {0x1.8p-74f}, w5[] = {0x1p-75f}; /* 3·2^-150: 2^-149 odd, 2^-148 even */
    check_sum("3*2^-150", x5, w5, 1, false, 0, 0x00000002u);
    float x6[] = {0x1p-126f, -0x1p-75f}, w6[] = {1.0f, 0x1p-75f}; /* 2^-126 − 2^-150 */
    check_sum("2^-126 - 2^-150 (up into the normals)", x6, w6, 2, false, 0, 0x00800000u);
    float x7[] = {0x1p-126f, -0x1p-75f, 0x1p-149f}, w7[] = {1.0f, 0x1p-75f, -0x1p-149f};
    check_sum("2^-126 - 2^-150 - 2^-298", x7, w7, 3, false, 0, 0x007fffffu);
    float x8[] = {0x1p-149f, 0x1p-149f}, w8[] = {1.0f, 0.5f}; /* subnormal · 0.5 = 2^-150 */
    check_sum("2^-149 + 2^-150 (tie up to even)", x8, w8, 2, false, 0, 0x00000002u);
    check_sum("bias: largest subnormal", x1, w1, 0, true, 0x1.fffffcp-127f, 0x007fffffu);
}

/* NaN and infinity: inf · 0, +inf with -inf, a lone infinity, NaN anywhere. */
static void test_special(void **state)
{
    (void)state;
    const float inf = INFINITY;
    float x1[] = {inf, 1.0f}, w1[] = {0.0f, 1.0f};
    assert_true(isnan(cr_dot(x1, w1, 2, NULL)));
    float w2[] = {-0.0f, 1.0f};
    assert_true(isnan(cr_dot(x1, w2, 2, NULL)));
    float x3[] = {inf, -inf}, w3[] = {1.0f, 1.0f};
    assert_true(isnan(cr_dot(x3, w3, 2, NULL)));
    float x4[] = {inf, 2.0f}, w4[] = {-3.0f, 0x1.fffffep127f};
    check_sum("inf * -3 + finite", x4, w4, 2, false, 0, 0xff800000u);
    float x5[] = {1.0f}, w5[] = {1.0f};
    check_sum("1 + bias inf", x5, w5, 1, true, inf, 0x7f800000u);
    float x6[] = {inf}, w6[] = {1.0f};
    float b = -inf;
    assert_true(isnan(cr_dot(x6, w6, 1, &b)));
    float x7[] = {NAN, 0.0f}, w7[] = {0.0f, 1.0f};
    assert_true(isnan(cr_dot(x7, w7, 2, NULL)));
    b = NAN;
    assert_true(isnan(cr_dot(x5, w5, 1, &b)));
    float x8[] = {inf, inf}, w8[] = {2.0f, 0x1p-149f};
    check_sum("inf + inf", x8, w8, 2, false, 0, 0x7f800000u);
}

/* The certificate: a midpoint or a gap under the bound is never certified; zero, huge and NaN
 * sums go to the accumulator; a clear case is. */
static void test_certify(void **state)
{
    (void)state;
    float v;
    double mid = 1.0 + 0x1p-24;
    assert_false(cr_certify(mid, 0.0, &v));
    assert_true(cr_certify(mid + 0x1p-40, 0x1p-42, &v));
    assert_int_equal(cr_bits(v), 0x3f800001u);
    assert_false(cr_certify(mid + 0x1p-40, 0x1p-40, &v));
    assert_true(cr_certify(-(mid - 0x1p-40), 0x1p-42, &v));
    assert_int_equal(cr_bits(v), 0xbf800000u);
    assert_false(cr_certify(0.0, 0.0, &v));
    assert_false(cr_certify(0x1p-160, 0.0, &v)); /* rounds to 0: the sign is the accumulator's */
    assert_false(cr_certify(0x1p127, 0.0, &v));
    assert_false(cr_certify(NAN, 0.0, &v));
    assert_false(cr_certify(INFINITY, 0.0, &v));
    assert_false(cr_certify(1.0, NAN, &v));
    /* the smallest subnormal: neighbours 0 and 2^-148 */
    assert_true(cr_certify(0x1p-149, 0x1p-160, &v));
    assert_int_equal(cr_bits(v), 1u);
    assert_false(cr_certify(0x1.8p-149, 0x1p-160, &v)); /* the midpoint above it */
    /* the scale is at least gamma_(in+2) */
    for (int in = 1; in < (1 << 24); in *= 7) {
        double m = (double)in + 2.0;
        assert_true(cr_err_scale(in) >= m * 0x1p-53 / (1.0 - m * 0x1p-53));
    }
}

/* A model of one or more layers w[0] -> w[1] -> ..., with biases, ReLU and residuals by the
 * masks (as tests/test_exact.c's general_model), weights from the generator. */
static cp_model *make_model(const int *w, int n, unsigned bias, unsigned relu, unsigned res,
                            uint64_t seed)
{
    cp_model *m = cp_model_new();
    assert_non_null(m);
    for (int l = 0; l < n; ++l) {
        size_t nw = (size_t)w[l] * (size_t)w[l + 1];
        float *W = malloc(nw * sizeof *W), *b = malloc((size_t)w[l + 1] * sizeof *b);
        assert_true(W && b);
        float bound = cp_gen_linear_bound(w[l]);
        cp_gen_fill_uniform_weights(W, nw, seed, CP_TENSOR_WEIGHT(l), bound, 1.0f);
        cp_gen_fill_uniform_weights(b, (size_t)w[l + 1], seed, CP_TENSOR_BIAS(l), bound, 1.0f);
        assert_int_equal(cp_model_add_layer(m, w[l], w[l + 1], W, (bias >> l) & 1 ? b : NULL,
                                            (relu >> l) & 1 ? CP_ACT_RELU : CP_ACT_NONE,
                                            ((res >> l) & 1) && w[l] == w[l + 1]),
                         CP_OK);
        free(W);
        free(b);
    }
    return m;
}

/* Whether this CPU has host:cr's AVX2 level (AVX2 and FMA), which the default (the widest
 * level) does not run where the CPU has AVX-512. */
static bool cpu_has_avx2(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return false;
#endif
}

/* host:cr's output for model m at batch rows of x, in CLPARITY_HOST_CR mode (NULL: auto). */
static float *run_cr(const cp_model *m, const float *x, int batch, const char *mode)
{
    if (mode)
        setenv("CLPARITY_HOST_CR", mode, 1);
    else
        unsetenv("CLPARITY_HOST_CR");
    float *y = run_engine("host:cr", find_kind(&devs, CP_DEV_HOST), m, x, batch);
    unsetenv("CLPARITY_HOST_CR");
    assert_non_null(y);
    return y;
}

/* The fast path (auto, and its portable loop: generic) against the scalar form, and with 1 and
 * 3 threads; returns how many comparisons differed. */
static int compare_modes(const cp_model *m, const float *x, int batch, const char *label)
{
    size_t n = (size_t)batch * (size_t)m->out_width;
    float *want = run_cr(m, x, batch, "scalar");
    int differed = 0;
    /* CLPARITY_HOST_CR, CLPARITY_HOST_THREADS, CLPARITY_HOST_ISA */
    static const char *const runs[][3] = {{NULL, NULL, NULL},       {"generic", NULL, NULL},
                                          {NULL, NULL, "baseline"}, {NULL, NULL, "avx2"},
                                          {NULL, "1", NULL},        {NULL, "3", NULL}};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; ++i) {
        if (runs[i][2] && strcmp(runs[i][2], "avx2") == 0 && !cpu_has_avx2())
            continue; /* the default is then the widest level */
        if (runs[i][1])
            setenv("CLPARITY_HOST_THREADS", runs[i][1], 1);
        if (runs[i][2])
            setenv("CLPARITY_HOST_ISA", runs[i][2], 1);
        float *got = run_cr(m, x, batch, runs[i][0]);
        unsetenv("CLPARITY_HOST_THREADS");
        unsetenv("CLPARITY_HOST_ISA");
        ++compared;
        for (size_t k = 0; k < n; ++k)
            if (cr_bits(got[k]) != cr_bits(want[k]) && !(isnan(got[k]) && isnan(want[k]))) {
                if (!planted)
                    print_error("%s (%s, threads %s, isa %s): output %zu: %a, scalar %a\n", label,
                                runs[i][0] ? runs[i][0] : "auto", runs[i][1] ? runs[i][1] : "all",
                                runs[i][2] ? runs[i][2] : "widest", k, (double)got[k],
                                (double)want[k]);
                ++differed;
                break;
            }
        free(got);
    }
    free(want);
    return differed;
}

/* Random models and rows: the shapes of tests/test_exact.c, odd widths, biases, ReLU and
 * residuals, batches with partial tiles. */
static int check_random(void)
{
    static const struct {
        int w[5];
        int n;
        unsigned bias, relu, res;
    } models[] = {
        {{64, 128, 128, 10}, 3, 7, 3, 0},
        {{3, 7, 5, 5, 2}, 4, 5, 7, 4},
        {{130, 67, 130, 1}, 3, 6, 1, 0},
        {{33, 33, 33, 257, 8}, 4, 15, 5, 3},
        {{1, 1}, 1, 1, 0, 1},
        {{513, 513}, 1, 1, 1, 1},
    };
    static const int batches[] = {1, 7, 37};
    int differed = 0;
    for (size_t i = 0; i < sizeof models / sizeof models[0]; ++i)
        for (size_t b = 0; b < sizeof batches / sizeof batches[0]; ++b) {
            cp_model *m = make_model(models[i].w, models[i].n, models[i].bias, models[i].relu,
                                     models[i].res, 7 + i);
            float *x = NULL;
            assert_int_equal(cp_model_input(batches[b], m->in_width, 1337 + b, &x), CP_OK);
            char label[64];
            snprintf(label, sizeof label, "model %zu, batch %d", i, batches[b]);
            differed += compare_modes(m, x, batches[b], label);
            free(x);
            cp_model_delete(m);
        }
    return differed;
}

/* Exact zeros through the fast path (a bound of 0: cr_output's cr_dot_zero), against the
 * scalar form: a layer with no bias, activation or residual (so that -0 reaches the output),
 * whose W rows are each all zeros with some nonzero rows between, and inputs whose rows are
 * all zeros; the zeros' signs chosen so that some outputs are -0 and some +0, then the same with
 * biases of -0 and +0. */
static int check_zeros(void)
{
    enum { IN = 37, OUT = 29, B = 9 };
    float W[OUT * IN], bias[OUT], x[B * IN];
    for (int o = 0; o < OUT; ++o) {
        for (int k = 0; k < IN; ++k) /* row o: zeros, -0 where o % 3 == 0, or values */
            W[o * IN + k] = o % 4 == 3   ? (float)((o + k) % 5 - 2) * 0.25f + 0.125f
                            : o % 3 == 0 ? -0.0f
                                         : 0.0f;
        bias[o] = o % 2 ? -0.0f : 0.0f;
    }
    for (int b = 0; b < B; ++b) /* rows of zeros (-0 in odd rows), then rows of values */
        for (int k = 0; k < IN; ++k)
            x[b * IN + k] = b < 4 ? (b % 2 ? -0.0f : 0.0f)
                                  : (float)((3 * b + k) % 7 - 3) * 0.5f - (b % 2 ? 0.0f : 0.25f);
    int differed = 0, neg = 0;
    for (int with_bias = 0; with_bias < 2; ++with_bias) {
        const int w[2] = {IN, OUT};
        cp_model *m = cp_model_new();
        assert_non_null(m);
        assert_int_equal(
            cp_model_add_layer(m, w[0], w[1], W, with_bias ? bias : NULL, CP_ACT_NONE, false),
            CP_OK);
        differed += compare_modes(m, x, B, with_bias ? "zeros, biases ±0" : "zeros");
        float *y = run_cr(m, x, B, "scalar");
        for (int i = 0; i < B * OUT; ++i)
            neg += cr_bits(y[i]) == 0x80000000u;
        free(y);
        cp_model_delete(m);
    }
    assert_true(neg >= 10); /* -0 came up */
    return differed;
}

/* The boundary layer (cr_util.h): the fast path against the scalar form, and some of the
 * answers from the construction. */
static int check_boundaries(void)
{
    enum { IN = CR_BOUND_IN, OUT = CR_BOUND_OUT, B = CR_BOUND_B };
    float W[OUT * IN], bias[OUT], x[B * IN];
    cp_model *m = cr_boundary_model(W, bias, x);
    assert_non_null(m);
    int differed = compare_modes(m, x, B, "boundaries");
    /* some of the answers, from the construction (row 0, x = 1) */
    float *y = run_cr(m, x, B, "scalar");
    assert_int_equal(cr_bits(y[6]), cr_bits(nextafterf(W[6 * IN], 2.0f))); /* kind 0, scale 1: up */
    assert_int_equal(cr_bits(y[13]), cr_bits(W[13 * IN]));                 /* kind 1: down */
    assert_int_equal(cr_bits(y[9]), 0x33800000u);                          /* kind 3: t = 2^-24 */
    assert_int_equal(cr_bits(y[10]), cr_bits(W[10 * IN]));                 /* kind 4: a */
    assert_int_equal(cr_bits(y[17]), 0u);                                  /* kind 5: +0 */
    assert_int_equal(cr_bits(y[OUT + 17]), 0u);                            /* and for x = -1 */
    assert_true(isinf(y[3]) && y[3] > 0.0f);                               /* inf · 1 */
    assert_true(isnan(y[11]));
    free(y);
    cp_model_delete(m);
    return differed;
}

static void test_fast_equals_scalar(void **state)
{
    (void)state;
    compared = 0;
    int differed = check_random() + check_boundaries() + check_zeros();
    assert_true(compared > 0);
    if (planted) {
        /* every comparison sees the bit that corrupt-cr flips in the fast path's output */
        if (differed != compared)
            fail_msg("the planted one-bit error (corrupt-cr) went unseen in %d of %d comparisons",
                     compared - differed, compared);
    } else if (differed) {
        fail_msg("%d comparisons of host:cr's fast path with its scalar form differed", differed);
    }
}

int main(int argc, char **argv)
{
    planted = argc > 1 && strcmp(argv[1], "planted") == 0;
    if (planted)
        setenv("CLPARITY_TEST_HOOK", "corrupt-cr", 1);
    if (cp_devlist_enumerate(&devs) != CP_OK) {
        fprintf(stderr, "%s\n", cp_err_msg());
        return 1;
    }
    const struct CMUnitTest all[] = {
        cmocka_unit_test(test_ties),      cmocka_unit_test(test_zero),
        cmocka_unit_test(test_dot_zero),  cmocka_unit_test(test_overflow),
        cmocka_unit_test(test_subnormal), cmocka_unit_test(test_special),
        cmocka_unit_test(test_certify),   cmocka_unit_test(test_fast_equals_scalar),
    };
    const struct CMUnitTest fast[] = {cmocka_unit_test(test_fast_equals_scalar)};
    int rc = planted ? cmocka_run_group_tests(fast, NULL, NULL)
                     : cmocka_run_group_tests(all, NULL, NULL);
    cp_devlist_free(&devs);
    return rc;
}
