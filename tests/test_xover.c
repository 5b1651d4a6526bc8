/* tools/xover: sweep's crossovers on made-up times: none, one, several, ties, missing points. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "xover.h"

#include "clparity/report.h"

#include <math.h>

static const long x[] = {1, 2, 4, 8, 16, 32};
#define N 6

static size_t run(const double *ta, const double *tb, struct xover *out, size_t *n, int *first)
{
    return xover_find(ta, tb, NULL, x, N, out, n, first);
}

/* a is faster everywhere: never. */
static void test_never(void **state)
{
    (void)state;
    const double ta[N] = {1, 1, 1, 1, 1, 1}, tb[N] = {2, 3, 4, 5, 6, 7};
    struct xover out[N];
    size_t n;
    int first;
    assert_int_equal(run(ta, tb, out, &n, &first), N);
    assert_int_equal(n, 0);
    assert_int_equal(first, 0);
    assert_int_equal(run(tb, ta, out, &n, &first), N); /* swapped: b everywhere */
    assert_int_equal(n, 0);
    assert_int_equal(first, 1);
}

/* The GPU's shape: slower at small batch, faster from 8 on. */
static void test_one(void **state)
{
    (void)state;
    const double gpu[N] = {5, 5, 5, 5, 5, 5}, cpu[N] = {1, 2, 4, 8, 16, 32};
    struct xover out[N];
    size_t n;
    int first;
    assert_int_equal(run(gpu, cpu, out, &n, &first), N);
    assert_int_equal(first, 1);
    assert_int_equal(n, 1);
    assert_int_equal(out[0].at, 8);
    assert_int_equal(out[0].after, 4);
    assert_int_equal(out[0].faster, 0);
}

/* There and back: every change is listed. */
static void test_several(void **state)
{
    (void)state;
    const double ta[N] = {1, 3, 1, 3, 1, 3}, tb[N] = {2, 2, 2, 2, 2, 2};
    struct xover out[N];
    size_t n;
    int first;
    run(ta, tb, out, &n, &first);
    assert_int_equal(first, 0);
    assert_int_equal(n, 5);
    const long at[] = {2, 4, 8, 16, 32};
    for (size_t i = 0; i < n; ++i) {
        assert_int_equal(out[i].at, at[i]);
        assert_int_equal(out[i].after, x[i]);
        assert_int_equal(out[i].faster, i % 2 == 0 ? 1 : 0);
    }
}

/* A tie keeps the order before it; a tie at the start leaves it undecided. */
static void test_ties(void **state)
{
    (void)state;
    const double ta[N] = {2, 2, 1, 2, 3, 3}, tb[N] = {2, 2, 2, 2, 2, 2};
    struct xover out[N];
    size_t n;
    int first;
    run(ta, tb, out, &n, &first);
    assert_int_equal(first, 0); /* the first point that is not a tie: x = 4 */
    assert_int_equal(n, 1);
    assert_int_equal(out[0].at, 16); /* the tie at 8 kept a ahead */
    assert_int_equal(out[0].after, 8);
    assert_int_equal(out[0].faster, 1);
    const double all[N] = {2, 2, 2, 2, 2, 2};
    assert_int_equal(run(all, tb, out, &n, &first), N);
    assert_int_equal(n, 0);
    assert_int_equal(first, -1);
}

/* Refused or failed points (negative or NaN times) are skipped: the crossing is between the
 * common points around them. */
static void test_missing(void **state)
{
    (void)state;
    const double ta[N] = {1, -1, NAN, 1, -1, 1}, tb[N] = {2, 0.5, 0.5, 0.5, 0.5, -1};
    struct xover out[N];
    size_t n;
    int first;
    assert_int_equal(run(ta, tb, out, &n, &first), 2); /* x = 1 and 8 */
    assert_int_equal(n, 1);
    assert_int_equal(out[0].at, 8);
    assert_int_equal(out[0].after, 1);
    assert_int_equal(out[0].faster, 1);
    const double none[N] = {-1, -1, -1, -1, -1, -1};
    assert_int_equal(run(none, tb, out, &n, &first), 0);
    assert_int_equal(first, -1);
}

/* Samples of 11 runs around a median m, spread +-w: a made-up timed result. */
static cp_stats around(double m, double w)
{
    double v[11];
    for (int i = 0; i < 11; ++i)
        v[i] = m + w * (double)(i - 5) / 5.0;
    return cp_stats_of(v, 11);
}

/* The noise rule: two noisy series whose medians swap order at every point, but whose
 * intervals overlap, are within noise everywhere: no crossover, and none is faster first. One
 * clear change (far outside both spreads) is still counted, and a point within noise between
 * two decided ones does not add a change. */
static void test_noise_rule(void **state)
{
    (void)state;
    cp_stats a[N], b[N];
    double ta[N], tb[N];
    bool noise[N];
    for (size_t p = 0; p < N; ++p) {
        a[p] = around(p % 2 ? 1.02 : 0.98, 0.2);
        b[p] = around(1.0, 0.2);
    }
    for (size_t p = 0; p < N; ++p) {
        ta[p] = a[p].median;
        tb[p] = b[p].median;
        noise[p] = cp_speed_within_noise(&a[p], &b[p]);
        assert_true(noise[p]);
    }
    struct xover out[N];
    size_t n;
    int first;
    /* Without the rule, the medians alone cross five times. */
    assert_int_equal(xover_find(ta, tb, NULL, x, N, out, &n, &first), N);
    assert_int_equal(n, 5);
    assert_int_equal(xover_find(ta, tb, noise, x, N, out, &n, &first), N);
    assert_int_equal(n, 0);
    assert_int_equal(first, -1);

    /* a is 3x faster at x = 1, 2 (tight), within noise at 4 (its median 2 % above b's, but
     * noisy), then 3x slower from 8 on: the change is at 8, not at 4. */
    const double ma[N] = {1, 1, 1.02, 3, 3, 3};
    for (size_t p = 0; p < N; ++p) {
        a[p] = around(ma[p], p == 2 ? 0.3 : 0.01);
        b[p] = around(p < 2 ? 3.0 : 1.0, 0.01);
        ta[p] = a[p].median;
        tb[p] = b[p].median;
        noise[p] = cp_speed_within_noise(&a[p], &b[p]);
    }
    assert_false(noise[0]);
    assert_true(noise[2]);
    assert_false(noise[3]);
    xover_find(ta, tb, noise, x, N, out, &n, &first);
    assert_int_equal(first, 0);
    assert_int_equal(n, 1);
    assert_int_equal(out[0].at, 8);
    assert_int_equal(out[0].after, 4);
    assert_int_equal(out[0].faster, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_never),   cmocka_unit_test(test_one),
        cmocka_unit_test(test_several), cmocka_unit_test(test_ties),
        cmocka_unit_test(test_missing), cmocka_unit_test(test_noise_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
