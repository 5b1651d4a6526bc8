/* runtime/metrics: ULP distance (NumPy's nulp_diff), the error norms, bitwise and argmax
 * agreement, the hash, and DESIGN's ReLU, on hand-computed cases. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "clparity/error.h"
#include "clparity/metrics.h"
#include "clparity/model.h"

#include <float.h>
#include <math.h>
#include <string.h>

static float from_bits(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

static uint32_t bits_of(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

static void test_ulp(void **state)
{
    (void)state;
    assert_true(cp_ulp_dist(0.0f, -0.0f) == 0);
    assert_true(cp_ulp_dist(1.0f, 1.0f) == 0);
    assert_true(cp_ulp_dist(1.0f, nextafterf(1.0f, 2.0f)) == 1);
    assert_true(cp_ulp_dist(1.0f, nextafterf(1.0f, 0.0f)) == 1);
    /* smallest denormals on both sides of zero: 1 each way, 2 across */
    float tiny = from_bits(1), ntiny = from_bits(0x80000001u);
    assert_true(cp_ulp_dist(tiny, 0.0f) == 1);
    assert_true(cp_ulp_dist(ntiny, 0.0f) == 1);
    assert_true(cp_ulp_dist(ntiny, -0.0f) == 1);
    assert_true(cp_ulp_dist(tiny, ntiny) == 2);
    /* largest denormal to smallest normal */
    assert_true(cp_ulp_dist(from_bits(0x007fffffu), FLT_MIN) == 1);
    /* opposite signs: the distance goes through zero */
    assert_true(cp_ulp_dist(1.0f, -1.0f) == 2ull * 0x3f800000ull);
    assert_true(cp_ulp_dist(-2.0f, 2.0f) == 2ull * 0x40000000ull);
    /* infinities are ordinary ends of the scale */
    assert_true(cp_ulp_dist(INFINITY, FLT_MAX) == 1);
    assert_true(cp_ulp_dist(-INFINITY, INFINITY) == 2ull * 0x7f800000ull);
    /* symmetric */
    assert_true(cp_ulp_dist(3.5f, -0.25f) == cp_ulp_dist(-0.25f, 3.5f));
}

static void test_relu(void **state)
{
    (void)state;
    assert_true(bits_of(cp_relu(-0.0f)) == 0u); /* −0 becomes +0 */
    assert_true(bits_of(cp_relu(0.0f)) == 0u);
    assert_true(isnan(cp_relu(NAN))); /* NaN propagates */
    assert_true(cp_relu(-1.0f) == 0.0f);
    assert_true(cp_relu(2.5f) == 2.5f);
    float den = from_bits(0x00000005u), nden = from_bits(0x80000005u);
    assert_true(bits_of(cp_relu(den)) == 5u); /* a positive denormal survives */
    assert_true(bits_of(cp_relu(nden)) == 0u);
    assert_true(cp_relu(-INFINITY) == 0.0f && cp_relu(INFINITY) == INFINITY);
    assert_true(cp_relu_f64(-0.0) == 0.0 && !signbit(cp_relu_f64(-0.0)));
    assert_true(isnan(cp_relu_f64(NAN)));
}

static void test_metrics_values(void **state)
{
    (void)state;
    /* 2 rows × 3: r = [1, -2, 4 | 0.5, 0, -8]; a differs by 1 ULP at [0], by 0.5 at [2]. */
    const double r[] = {1.0, -2.0, 4.0, 0.5, 0.0, -8.0};
    float a[] = {1.0f, -2.0f, 4.5f, 0.5f, 0.0f, -8.0f};
    a[0] = nextafterf(1.0f, 2.0f);
    cp_metrics m;
    assert_int_equal(cp_metrics_compute(a, r, 2, 3, false, &m), CP_OK);
    assert_true(m.n == 6);
    /* 4.5 vs 4: 2^20 ULPs apart (4 → 4.5 is 0.5 / 2^-21 steps) */
    assert_true(m.max_ulp == (1u << 20));
    assert_true(m.worst == 2);
    assert_true(m.worst_a == 4.5f && m.worst_r == 4.0);
    assert_true(m.max_abs == 0.5);
    assert_true(m.max_rel == 0.125);
    assert_true(m.rel_to_max == 0.5 / 8.0);
    double eps = (double)nextafterf(1.0f, 2.0f) - 1.0;
    double norm = sqrt(eps * eps + 0.25) / sqrt(1 + 4 + 16 + 0.25 + 64);
    assert_true(fabs(m.norm_rel - norm) < 1e-15);
    assert_true(fabs(m.bitwise - 4.0 / 6.0) < 1e-15);
    assert_true(m.argmax == 1.0); /* rows' argmax: 2 and 0 both agree */
    /* median of {1, 0, 2^20, 0, 0, 0} = 0 */
    assert_true(m.median_ulp == 0.0);
    assert_true(m.nan == 0 && m.inf == 0 && m.nan_mismatch == 0);
}

static void test_metrics_argmax_and_nan(void **state)
{
    (void)state;
    const double r[] = {1.0, 2.0, NAN, 3.0};
    float a[] = {2.0f, 1.0f, NAN, 3.0f};
    cp_metrics m;
    assert_int_equal(cp_metrics_compute(a, r, 2, 2, false, &m), CP_OK);
    assert_true(m.argmax == 0.5); /* row 0 flips */
    assert_true(m.nan == 1);
    assert_true(m.nan_mismatch == 1); /* NaN vs NaN is a mismatch without --equal-nan */
    assert_true(m.bitwise == 0.25);
    assert_int_equal(cp_metrics_compute(a, r, 2, 2, true, &m), CP_OK);
    assert_true(m.nan_mismatch == 0);
    assert_true(m.bitwise == 0.5);
    /* NaN against a number is a mismatch and stays out of the ULP max */
    const double r2[] = {1.0, 1.0};
    float a2[] = {NAN, 1.0f};
    assert_int_equal(cp_metrics_compute(a2, r2, 1, 2, true, &m), CP_OK);
    assert_true(m.nan_mismatch == 1 && m.max_ulp == 0);
    /* −0 against +0: 0 ULP but not bitwise equal */
    const double r3[] = {0.0};
    float a3[] = {-0.0f};
    assert_int_equal(cp_metrics_compute(a3, r3, 1, 1, false, &m), CP_OK);
    assert_true(m.max_ulp == 0 && m.bitwise == 0.0);
}

static void test_pair_and_hash(void **state)
{
    (void)state;
    float a[] = {1.0f, 2.0f, 3.0f, 4.0f};
    float b[] = {1.0f, 2.0f, 3.0f, 4.0f};
    double bw;
    uint64_t mu;
    cp_metrics_pair(a, b, 4, &bw, &mu);
    assert_true(bw == 1.0 && mu == 0);
    b[3] = nextafterf(nextafterf(4.0f, 5.0f), 5.0f);
    cp_metrics_pair(a, b, 4, &bw, &mu);
    assert_true(bw == 0.75 && mu == 2);
    /* FNV-1a 64 reference values: "" and "a" */
    assert_true(cp_hash_fnv1a("", 0) == UINT64_C(0xcbf29ce484222325));
    assert_true(cp_hash_fnv1a("a", 1) == UINT64_C(0xaf63dc4c8601ec8c));
    assert_true(cp_hash_fnv1a("foobar", 6) == UINT64_C(0x85944171f73967e8));
}

static void test_presets(void **state)
{
    (void)state;
    /* torch: |a−r| ≤ 1e-5 + 1.3e-6·|r| */
    assert_true(cp_preset_close(CP_PRESET_TORCH, 1.0f, 1.0 + 1.1e-5, false));  /* 1.13e-5 */
    assert_false(cp_preset_close(CP_PRESET_TORCH, 1.0f, 1.0 + 1.2e-5, false)); /* > 1.13e-5 */
    assert_true(cp_preset_close(CP_PRESET_TORCH, 0.0f, 9.9e-6, false));
    assert_false(cp_preset_close(CP_PRESET_TORCH, 0.0f, 1.01e-5, false));
    assert_true(cp_preset_close(CP_PRESET_TORCH, 1000.0f, 1000.0 + 1.3e-3, false));
    assert_false(cp_preset_close(CP_PRESET_TORCH, 1000.0f, 1000.0 + 1.4e-3, false));
    /* clblast: |a−r| < 1e-3, or relative to |a|+|r| below 0.005 */
    assert_true(cp_preset_close(CP_PRESET_CLBLAST, 0.0f, 9.9e-4, false));
    assert_false(cp_preset_close(CP_PRESET_CLBLAST, 0.0f, 1.1e-3, false));  /* rel = 1 */
    assert_true(cp_preset_close(CP_PRESET_CLBLAST, 100.0f, 100.9, false));  /* 0.9/200.9 */
    assert_false(cp_preset_close(CP_PRESET_CLBLAST, 100.0f, 101.1, false)); /* 1.1/201.1 */
    /* non-finite: equal infinities pass, NaN only against NaN with equal_nan */
    assert_true(cp_preset_close(CP_PRESET_TORCH, INFINITY, INFINITY, false));
    assert_false(cp_preset_close(CP_PRESET_TORCH, INFINITY, -INFINITY, false));
    assert_false(cp_preset_close(CP_PRESET_TORCH, NAN, NAN, false));
    assert_true(cp_preset_close(CP_PRESET_TORCH, NAN, NAN, true));
    assert_false(cp_preset_close(CP_PRESET_CLBLAST, NAN, 1.0, true));
    /* counts */
    const double r[] = {1.0, 2.0, 3.0, 4.0};
    const float a[] = {1.0f, 2.00002f, 3.0f, NAN};
    assert_int_equal(cp_preset_mismatches(CP_PRESET_TORCH, a, r, NULL, 4, true), 2);
    assert_int_equal(cp_preset_mismatches(CP_PRESET_CLBLAST, a, r, NULL, 4, true), 1);
    /* bitwise against another float32 result: −0 ≠ +0, NaN = NaN only with equal_nan */
    const float b[] = {1.0f, 2.00002f, -0.0f, NAN};
    const float c[] = {1.0f, 2.00002f, 0.0f, NAN};
    assert_int_equal(cp_preset_mismatches(CP_PRESET_BITWISE, b, NULL, c, 4, false), 2);
    assert_int_equal(cp_preset_mismatches(CP_PRESET_BITWISE, b, NULL, c, 4, true), 1);
    assert_int_equal(cp_preset_mismatches(CP_PRESET_BITWISE, c, NULL, c, 3, false), 0);
    assert_string_equal(cp_preset_name(CP_PRESET_TORCH), "torch");
    assert_string_equal(cp_preset_name(CP_PRESET_CLBLAST), "clblast");
    assert_string_equal(cp_preset_name(CP_PRESET_BITWISE), "bitwise");
    /* cr against host:cr: −0 ≠ +0; a NaN of the same bits is equal, another NaN only with
     * equal_nan */
    float qnan = NAN, other = NAN;
    uint32_t u;
    memcpy(&u, &other, sizeof u);
    u ^= 1; /* another payload */
    memcpy(&other, &u, sizeof u);
    const float d[] = {1.0f, -0.0f, qnan, qnan};
    const float e[] = {1.0f, 0.0f, qnan, other};
    assert_int_equal(cp_preset_mismatches(CP_PRESET_CR, d, NULL, e, 4, false), 2);
    assert_int_equal(cp_preset_mismatches(CP_PRESET_CR, d, NULL, e, 4, true), 1);
    assert_int_equal(cp_preset_mismatches(CP_PRESET_CR, d, NULL, d, 4, false), 0);
    assert_string_equal(cp_preset_name(CP_PRESET_CR), "cr");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ulp),
        cmocka_unit_test(test_relu),
        cmocka_unit_test(test_metrics_values),
        cmocka_unit_test(test_metrics_argmax_and_nan),
        cmocka_unit_test(test_pair_and_hash),
        cmocka_unit_test(test_presets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
