/* runtime/stats: the timing statistics (cp_stats_of), the adaptive rule (cp_runs_more), the
 * spread's cause (cp_stats_noise) and the speed verdict (cp_speed_of), on made-up samples
 * whose answers are worked out by hand in the comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "clparity/report.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EPS 1e-12

/* 1..10 in a shuffled order: median 5.5, mean 5.5, sd sqrt(82.5 / 9); p10 = 1 + 0.9 = 1.9 and
 * p90 = 9 + 0.1 = 9.1 (linear interpolation at (n - 1)·q); the median's interval [x(2), x(9)]
 * with coverage 1 - 2·11/1024 (P(Bin(10, 1/2) <= 1) = 11/1024 <= 0.025 < 56/1024). */
static void test_ten(void **state)
{
    (void)state;
    double v[] = {7, 3, 10, 1, 5, 9, 2, 8, 4, 6};
    cp_stats s = cp_stats_of(v, 10);
    assert_int_equal(s.n, 10);
    assert_true(fabs(s.median - 5.5) < EPS);
    assert_true(fabs(s.mean - 5.5) < EPS);
    assert_true(fabs(s.sd - sqrt(82.5 / 9.0)) < EPS);
    assert_true(fabs(s.min - 1.0) < EPS && fabs(s.max - 10.0) < EPS);
    assert_true(fabs(s.p10 - 1.9) < EPS);
    assert_true(fabs(s.p90 - 9.1) < EPS);
    assert_true(fabs(s.ci_lo - 2.0) < EPS && fabs(s.ci_hi - 9.0) < EPS);
    assert_true(fabs(s.ci_level - (1.0 - 22.0 / 1024.0)) < EPS);
    assert_true(fabs(s.total - 55.0) < EPS);
    assert_true(fabs(s.head - 5.0) < EPS); /* the first fifth as they ran: (7 + 3) / 2 */
}

/* Five runs: no interval reaches 95 %, so it is [min, max] at 1 - 2/32. One run: sd 0. */
static void test_small(void **state)
{
    (void)state;
    double v[] = {3, 1, 4, 1, 5};
    cp_stats s = cp_stats_of(v, 5);
    assert_true(fabs(s.median - 3.0) < EPS);
    assert_true(fabs(s.ci_lo - 1.0) < EPS && fabs(s.ci_hi - 5.0) < EPS);
    assert_true(fabs(s.ci_level - 0.9375) < EPS);
    double one[] = {2.5};
    s = cp_stats_of(one, 1);
    assert_int_equal(s.n, 1);
    assert_true(s.sd == 0.0 && s.median == 2.5 && s.p10 == 2.5 && s.p90 == 2.5);
    s = cp_stats_of(NULL, 0);
    assert_int_equal(s.n, 0);
    assert_true(s.median == 0.0 && s.ci_level == 0.0);
}

/* n = 100 and 20: the textbook intervals [x(40), x(61)] and [x(6), x(15)]. */
static void test_interval_table(void **state)
{
    (void)state;
    double v[100];
    for (int i = 0; i < 100; ++i)
        v[i] = (double)(100 - i); /* x(k) = k */
    cp_stats s = cp_stats_of(v, 100);
    assert_true(fabs(s.ci_lo - 40.0) < EPS && fabs(s.ci_hi - 61.0) < EPS);
    assert_true(s.ci_level >= 0.95 && s.ci_level < 0.97);
    for (int i = 0; i < 20; ++i)
        v[i] = (double)(i + 1);
    s = cp_stats_of(v, 20);
    assert_true(fabs(s.ci_lo - 6.0) < EPS && fabs(s.ci_hi - 15.0) < EPS);
}

/* The adaptive rule: at least 5 runs and min_time, at most 200, waived past 10 s; fixed N. */
static void test_runs_rule(void **state)
{
    (void)state;
    assert_true(cp_runs_more(0, 0.2, 0, 0.0));
    assert_true(cp_runs_more(0, 0.2, 4, 5.0));    /* 4 runs: the floor of 5 */
    assert_true(cp_runs_more(0, 0.2, 5, 0.19));   /* 5 runs, not yet 0.2 s */
    assert_false(cp_runs_more(0, 0.2, 5, 0.2));   /* both floors met */
    assert_false(cp_runs_more(0, 0.2, 200, 0.1)); /* the cap */
    assert_false(cp_runs_more(0, 0.2, 2, 10.0));  /* one slow forward: past 10 s */
    assert_true(cp_runs_more(0, 30.0, 50, 12.0)); /* a floor above 10 s moves the limit */
    assert_true(cp_runs_more(3, 0.2, 2, 100.0));  /* --runs 3: exactly 3 */
    assert_false(cp_runs_more(3, 0.2, 3, 0.0));
    assert_int_equal(cp_runs_cap(0), CP_RUNS_MAX);
    assert_int_equal(cp_runs_cap(7), 7);
}

/* A round's share of the rule (sweep --rounds): N / R runs, the first N % R rounds one more;
 * adaptive, ceil(5 / R) runs and min_time / R, at most 200 / R runs, the limit / R. */
static void test_runs_round(void **state)
{
    (void)state;
    /* --runs 7 over 3 rounds: 3, 2, 2 */
    assert_int_equal(cp_runs_cap_round(7, 3, 0), 3);
    assert_int_equal(cp_runs_cap_round(7, 3, 1), 2);
    assert_int_equal(cp_runs_cap_round(7, 3, 2), 2);
    assert_true(cp_runs_more_round(7, 0.2, 3, 0, 2, 100.0));
    assert_false(cp_runs_more_round(7, 0.2, 3, 0, 3, 0.0));
    assert_false(cp_runs_more_round(7, 0.2, 3, 1, 2, 0.0));
    /* adaptive over 5 rounds: 1 run floor, 0.04 s, 40 runs, 2 s */
    assert_int_equal(cp_runs_cap_round(0, 5, 4), 40);
    assert_true(cp_runs_more_round(0, 0.2, 5, 3, 0, 0.0));
    assert_true(cp_runs_more_round(0, 0.2, 5, 3, 1, 0.039));
    assert_false(cp_runs_more_round(0, 0.2, 5, 3, 1, 0.04));
    assert_false(cp_runs_more_round(0, 0.2, 5, 3, 40, 0.001));
    assert_false(cp_runs_more_round(0, 0.2, 5, 3, 1, 2.0));
    /* over 3 rounds: a floor of 2 runs, a cap of 66 */
    assert_true(cp_runs_more_round(0, 0.2, 3, 0, 1, 1.0));
    assert_false(cp_runs_more_round(0, 0.2, 3, 0, 2, 1.0));
    assert_int_equal(cp_runs_cap_round(0, 3, 0), 66);
    /* one round is cp_runs_more */
    for (size_t k = 0; k < 210; k += 3)
        for (double m = 0.0; m < 12.0; m += 0.05) {
            assert_true(cp_runs_more_round(0, 0.2, 1, 0, k, m) == cp_runs_more(0, 0.2, k, m));
            assert_true(cp_runs_more_round(9, 0.2, 1, 0, k, m) == cp_runs_more(9, 0.2, k, m));
        }
}

/* Round medians overlap when their ranges [min, max] meet; one round tells nothing. */
static void test_rounds_overlap(void **state)
{
    (void)state;
    double fast[3] = {1.0, 1.1, 1.05}, slow[3] = {1.2, 1.3, 1.25}, mixed[3] = {1.2, 1.0, 1.3};
    double edge[2] = {1.1, 1.4};
    assert_false(cp_rounds_overlap(fast, 3, slow, 3));
    assert_false(cp_rounds_overlap(slow, 3, fast, 3));
    assert_true(cp_rounds_overlap(fast, 3, mixed, 3)); /* a round of mixed as fast as fast */
    assert_true(cp_rounds_overlap(mixed, 3, slow, 3));
    assert_true(cp_rounds_overlap(fast, 3, edge, 2)); /* 1.1 in both */
    assert_false(cp_rounds_overlap(fast, 1, mixed, 3));
    assert_false(cp_rounds_overlap(fast, 3, mixed, 1));
}

/* The cause to suspect for a large spread. */
static void test_noise(void **state)
{
    (void)state;
    double tight[20], few[5] = {1, 2, 1, 2, 1}, cold[20], load[20];
    for (int i = 0; i < 20; ++i) {
        tight[i] = 1.0 + 0.001 * (i % 3);
        cold[i] = i < 4 ? 3.0 : 1.0 + 0.01 * (i % 2) + (i == 10 ? 2.0 : 0.0) + (i > 15 ? 0.5 : 0);
        load[i] = i % 3 == 1 ? 1.6 : 1.0;
    }
    cp_stats s = cp_stats_of(tight, 20);
    assert_int_equal(cp_stats_noise(&s), CP_NOISE_NONE);
    assert_string_equal(cp_stats_mark(&s), "");
    s = cp_stats_of(few, 5);
    assert_int_equal(cp_stats_noise(&s), CP_NOISE_FEW_RUNS);
    assert_string_equal(cp_stats_mark(&s), "~");
    s = cp_stats_of(cold, 20);
    assert_int_equal(cp_stats_noise(&s), CP_NOISE_COLD);
    s = cp_stats_of(load, 20);
    assert_true(cp_stats_spread(&s) > CP_NOISY_SPREAD);
    assert_int_equal(cp_stats_noise(&s), CP_NOISE_LOAD);
    assert_non_null(strstr(cp_noise_cause(CP_NOISE_LOAD), "load"));
}

/* The verdict: 1.63x apart with tight spreads is outside the noise; overlapping intervals, and
 * fewer than 10 runs on either side, are within it; the ± propagates the relative robust
 * spreads. */
static void test_speed(void **state)
{
    (void)state;
    double a[11], b[11], c[11];
    for (int i = 0; i < 11; ++i) {
        a[i] = 1.00 + 0.01 * (i - 5); /* 0.95 .. 1.05 */
        b[i] = 1.63 + 0.01 * (i - 5);
        c[i] = 1.02 + 0.01 * (i - 5);
    }
    cp_stats sa = cp_stats_of(a, 11), sb = cp_stats_of(b, 11), sc = cp_stats_of(c, 11);
    cp_speed sp = cp_speed_of(&sa, &sb);
    assert_true(fabs(sp.ratio - 1.63) < 1e-9);
    double ra = cp_stats_robust_sd(&sa) / 1.0, rb = cp_stats_robust_sd(&sb) / 1.63;
    assert_true(fabs(sp.ratio_sd - 1.63 * sqrt(ra * ra + rb * rb)) < 1e-12);
    assert_false(sp.within_noise);
    assert_false(cp_speed_within_noise(&sb, &sa)); /* either order */
    assert_true(cp_speed_of(&sa, &sc).within_noise);
    assert_true(cp_speed_within_noise(&sc, &sa));
    /* The same 1.63x from 9 runs each: too few to tell. */
    cp_stats a9 = cp_stats_of(a, 9), b9 = cp_stats_of(b, 9);
    assert_false(cp_speed_of(&sa, &sb).within_noise);
    assert_true(cp_speed_of(&a9, &b9).within_noise);
    assert_true(cp_speed_of(&sa, &b9).within_noise);
    const cp_stats *v[] = {&sb, NULL, &sa, &sc};
    assert_int_equal(cp_speed_fastest(v, 4), 2);
}

/* The verdict's words (cp_speed_print): a ratio outside the noise as "R ± s times faster";
 * within it no number, and why: one run, fewer than 10 runs, a spread larger than the
 * difference. */
static void speed_text(const cp_stats *f, const cp_stats *o, char *buf, size_t len)
{
    const cp_stats *v[] = {f, o};
    const char *names[] = {"F", "O"};
    FILE *m = fmemopen(buf, len, "w");
    assert_non_null(m);
    cp_speed_print(m, v, names, 2);
    fclose(m);
}

static void test_speed_words(void **state)
{
    (void)state;
    double a[11], b[11], c[11];
    for (int i = 0; i < 11; ++i) {
        a[i] = 1.00 + 0.01 * (i - 5);
        b[i] = 1.63 + 0.01 * (i - 5);
        c[i] = 1.05 + 0.08 * (i - 5); /* 0.65 .. 1.45: a spread far over the 5 % apart */
    }
    cp_stats sa = cp_stats_of(a, 11), sb = cp_stats_of(b, 11), sc = cp_stats_of(c, 11);
    char buf[2048];
    speed_text(&sa, &sb, buf, sizeof buf);
    assert_non_null(strstr(buf, "\n    1.63 ± 0.06 times faster than O\n"));
    speed_text(&sa, &sc, buf, sizeof buf);
    assert_non_null(strstr(
        buf, "\n    within noise of O: no verdict (the spread is larger than the difference)\n"));
    assert_null(strstr(buf, "times faster"));
    cp_stats a1 = cp_stats_of(a, 1), b1 = cp_stats_of(b, 1), a9 = cp_stats_of(a, 9),
             b9 = cp_stats_of(b, 9);
    speed_text(&a1, &b1, buf, sizeof buf);
    assert_non_null(strstr(buf, "within noise of O: no verdict (one run has no spread"));
    assert_null(strstr(buf, "times faster"));
    speed_text(&a9, &b9, buf, sizeof buf);
    assert_non_null(strstr(buf, "within noise of O: no verdict (fewer than 10 runs on a side)"));
    assert_null(strstr(buf, "times faster"));
}

/* The JSON keys, and reading them back (diff reads index.json's). */
static void test_json(void **state)
{
    (void)state;
    double v[] = {7, 3, 10, 1, 5, 9, 2, 8, 4, 6};
    cp_stats s = cp_stats_of(v, 10), back;
    cJSON *o = cJSON_CreateObject();
    cp_stats_json_add(o, "wall", &s, true);
    assert_true(cJSON_GetObjectItem(o, "wall_ci_low_s")->valuedouble == 2.0);
    assert_true(cJSON_GetObjectItem(o, "runs")->valuedouble == 10.0);
    assert_true(cJSON_IsBool(cJSON_GetObjectItem(o, "noisy")));
    assert_true(cp_stats_from_json(o, "wall", &back));
    assert_int_equal(back.n, 10);
    assert_true(back.median == s.median && back.sd == s.sd && back.p90 == s.p90);
    assert_false(cp_stats_from_json(o, "e2e", &back));
    cJSON_Delete(o);
}

/* cp_json_print: every double reads back as itself (cJSON alone printed 78309.92237586058 as
 * 78309.9223758606, one ulp off, and DBL_MAX as 1.79769313486232e+308, which reads back as
 * inf), ints and short decimals print as before, the tree is left as it was. 20000 doubles over 40
 * decades from a fixed LCG, and the ends of the range. */
static void test_json_exact_numbers(void **state)
{
    (void)state;
    cJSON *a = cJSON_CreateArray();
    double want[20006];
    size_t n = 0;
    uint64_t x = 12345;
    for (int i = 0; i < 20000; ++i) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        double m = (double)(x >> 11) / 9007199254740992.0; /* [0, 1): 53 random bits */
        want[n++] = (i % 2 ? -m : m) * pow(10.0, (double)(i % 40) - 20.0);
    }
    double ends[] = {78309.92237586058, 0.1, 5e-324, 1.7976931348623157e308, 3.0, -2.5};
    for (size_t i = 0; i < sizeof ends / sizeof *ends; ++i)
        want[n++] = ends[i];
    for (size_t i = 0; i < n; ++i)
        cJSON_AddItemToArray(a, cJSON_CreateNumber(want[i]));
    char *text = cp_json_print(a, false);
    assert_non_null(text);
    cJSON *back = cJSON_Parse(text);
    assert_non_null(back);
    assert_int_equal(cJSON_GetArraySize(back), (int)n);
    size_t off = 0;
    for (size_t i = 0; i < n; ++i) {
        double got = cJSON_GetArrayItem(back, (int)i)->valuedouble;
        off += memcmp(&got, &want[i], sizeof got) != 0;
    }
    assert_int_equal(off, 0);
    assert_non_null(strstr(
        text, ",78309.92237586058,0.1,4.94065645841247e-324,1.7976931348623157e+308,3,-2.5]"));
    assert_true(cJSON_IsNumber(cJSON_GetArrayItem(a, 0))); /* the caller's tree unchanged */
    cJSON_free(text);
    cJSON_Delete(back);
    cJSON_Delete(a);
}

/* cp_json_push and cp_json_add own what they are given: an item that cannot be added (its
 * array or object missing, as when that one's allocation failed) is deleted, not leaked (the
 * fault loop's leak in train --save, tests/faults). cJSON's allocations counted by hooks of our
 * own; the last test, since it leaves cJSON on plain malloc (no json_oom count) after. */
static long json_live;
static void *count_malloc(size_t n)
{
    ++json_live;
    return malloc(n);
}
static void count_free(void *p)
{
    json_live -= p != NULL;
    free(p);
}

static void test_json_push_owns(void **state)
{
    (void)state;
    cJSON_Hooks h = {count_malloc, count_free};
    cJSON_InitHooks(&h);
    json_live = 0;
    assert_false(cp_json_push(NULL, cJSON_CreateString("lost")));
    assert_false(cp_json_add(NULL, "key", cJSON_CreateNumber(1.0)));
    assert_false(cp_json_push(NULL, NULL));
    assert_int_equal(json_live, 0);
    cJSON *a = cJSON_CreateArray(), *o = cJSON_CreateObject();
    assert_true(cp_json_push(a, cJSON_CreateString("kept")));
    assert_true(cp_json_add(o, "list", a));
    assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(o, "list"), 0)->valuestring, "kept");
    assert_false(cp_json_push(a, NULL)); /* nothing to add: a is left as it was */
    assert_int_equal(cJSON_GetArraySize(a), 1);
    cJSON_Delete(o);
    assert_int_equal(json_live, 0);
    cJSON_InitHooks(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ten),
        cmocka_unit_test(test_small),
        cmocka_unit_test(test_interval_table),
        cmocka_unit_test(test_runs_rule),
        cmocka_unit_test(test_runs_round),
        cmocka_unit_test(test_rounds_overlap),
        cmocka_unit_test(test_noise),
        cmocka_unit_test(test_speed),
        cmocka_unit_test(test_speed_words),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_json_exact_numbers),
        cmocka_unit_test(test_json_push_owns), /* last: it leaves cJSON's hooks plain */
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
