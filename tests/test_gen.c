/* runtime/gen: the published test vectors (seed 1337). They were computed by an independent
 * Python implementation of DESIGN.md's generator (splitmix64, float32 rounding at each step,
 * math.log), so a change in any operation or its order shows here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "clparity/gen.h"

#include <math.h>

static void test_bits(void **state)
{
    (void)state;
    static const uint64_t want[] = {UINT64_C(0xa5484b6569558fa5), UINT64_C(0x3b547dc1a2e14dc6),
                                    UINT64_C(0xb1036eaa24cf4242), UINT64_C(0x04bc3527fb2a1a3e)};
    for (uint64_t i = 0; i < 4; ++i)
        assert_true(cp_gen_bits(1337, CP_TENSOR_INPUT, i) == want[i]);
    /* splitmix64's well-known first output for state 0 */
    assert_true(cp_gen_splitmix64(0) == UINT64_C(0xe220a8397b1dcdaf));
}

static void test_uniform(void **state)
{
    (void)state;
    static const float want[] = {0x1.4a9096p-1f, 0x1.daa3e8p-3f, 0x1.6206dcp-1f, 0x1.2f0d4p-6f};
    for (uint64_t i = 0; i < 4; ++i)
        assert_true(cp_gen_uniform(1337, CP_TENSOR_INPUT, i) == want[i]);
    for (uint64_t i = 0; i < 10000; ++i) {
        float u = cp_gen_uniform(7, 3, i);
        assert_true(u >= 0.0f && u < 1.0f);
    }
}

static void test_weights(void **state)
{
    (void)state;
    float bound = cp_gen_linear_bound(128);
    assert_true(bound == 0x1.6a09e6p-4f);
    static const float want[] = {-0x1.a8ecdep-5f, 0x1.fac8ecp-5f, 0x1.38aaep-4f,
                                 0x1.56484p-5f,   -0x1.34aefp-4f, 0x1.69412cp-6f};
    float got[6];
    cp_gen_fill_uniform_weights(got, 6, 1337, CP_TENSOR_WEIGHT(0), bound, 1.0f);
    for (int i = 0; i < 6; ++i)
        assert_true(got[i] == want[i]);
    /* every weight inside the bound, both signs present */
    int neg = 0;
    for (uint64_t i = 0; i < 4096; ++i) {
        float w = cp_gen_weight(1337, CP_TENSOR_WEIGHT(1), i, bound, 0.5f);
        assert_true(fabsf(w) <= 0.5f * bound);
        neg += w < 0.0f;
    }
    assert_true(neg > 1800 && neg < 2300);
}

static void test_normal(void **state)
{
    (void)state;
    static const float want[] = {0x1.573fb6p-1f, 0x1.23bdbap-2f,  -0x1.400148p+0f, 0x1.85ece6p+0f,
                                 0x1.3f2dd6p+1f, -0x1.066aa2p+0f, 0x1.3d578cp-1f,  -0x1.35e33cp+0f};
    float got[8];
    cp_gen_fill_normal(got, 8, 1337, CP_TENSOR_INPUT);
    for (int i = 0; i < 8; ++i)
        assert_true(got[i] == want[i]);
    /* moments of 20000 draws: mean ~ 0, variance ~ 1 */
    double s = 0.0, s2 = 0.0;
    for (uint64_t i = 0; i < 20000; ++i) {
        double v = cp_gen_normal(42, CP_TENSOR_INPUT, i);
        s += v;
        s2 += v * v;
    }
    double mean = s / 20000.0, var = s2 / 20000.0 - mean * mean;
    assert_true(fabs(mean) < 0.03);
    assert_true(fabs(var - 1.0) < 0.05);
}

static void test_log(void **state)
{
    (void)state;
    static const double xs[] = {1.0, 0.5, 2.0, 0.1, 0.9999999, 1e-300, 5e-324, 0.75, 3.0e10};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; ++i) {
        double got = cp_gen_log(xs[i]), want = log(xs[i]);
        assert_true(fabs(got - want) <= 4e-16 * fmax(1.0, fabs(want)));
    }
    assert_true(cp_gen_log(1.0) == 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bits),    cmocka_unit_test(test_uniform),
        cmocka_unit_test(test_weights), cmocka_unit_test(test_normal),
        cmocka_unit_test(test_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
