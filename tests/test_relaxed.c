/* runtime/relaxed: cl:relaxed on each of cl:own's kernel paths (CLPARITY_OWN_KERNEL), at odd
 * widths (d = 37, 129: partial vectors, tiles and panels; 129 crosses reg's one-row limit) and
 * batches 1 and 3, on every OpenCL device (PoCL and Oclgrind in ctest). Each case checks that
 * the path asked for is the one that ran (its relaxed probe passed: no fallback), that every
 * output is within cl:relaxed's bound of host:f64 (1e-3 (1 + |r|), its probe's), and that its
 * bits are the same run to run: twice in one engine and once more in a fresh one. The planted
 * case (test hook relaxed-wrong: one output off by up to half its value) must fail every path's
 * probe and the bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "clparity/gen.h"
#include "engine_util.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

static cp_devlist devs;
static const cp_device *host;

/* The model of case c: the built-in blocks (square, ReLU and residual: reg's constant layer
 * table) or a general one (biases, a rectangular layer each way, a layer without activation,
 * residuals on some), d wide. */
static void case_model(cp_model *m, int d, bool builtin)
{
    if (builtin) {
        assert_int_equal(cp_model_builtin(m, d, 4, 1337, 1.0f), CP_OK);
        return;
    }
    const int w[] = {d, d, 23, d, d};
    general_model(m, w, 4, 0xb, 0x3, 0x9, 11); /* the last layer has the residual */
}

/* Outputs outside cl:relaxed's bound of the float64 reference. */
static size_t outside_bound(const float *y, const double *ref, size_t n, size_t *first)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i)
        if (!(fabs((double)y[i] - ref[i]) <= 1e-3 * (1.0 + fabs(ref[i]))) && bad++ == 0)
            *first = i;
    return bad;
}

/* One forward of e into a fresh buffer (NULL after printing why). */
static float *forward(cp_engine *e, const float *x, int batch, size_t n)
{
    float *y = malloc(n * sizeof *y);
    cp_timing t;
    if (y && cp_engine_forward(e, x, batch, y, &t) != CP_OK) {
        fprintf(stderr, "cl:relaxed forward: %s\n", cp_err_msg());
        free(y);
        y = NULL;
    }
    return y;
}

/* cl:relaxed with path forced on dev: how the case went. planted: under relaxed-wrong, where
 * the probe must reject the path and the output must break the bound. Returns false where the
 * path does not apply to the device (a usage error at create: *why says so). */
static bool check_case(const cp_device *dev, const char *path, const cp_model *m, const float *x,
                       int batch, const double *ref, bool planted, char *why, size_t why_len)
{
    size_t n = (size_t)batch * (size_t)m->out_width;
    cp_engine *e = NULL;
    setenv("CLPARITY_OWN_KERNEL", path, 1);
    int st = cp_engine_create(cp_engine_find("cl:relaxed"), dev, m, batch, &e);
    if (st == CP_FAIL_USAGE) {
        snprintf(why, why_len, "%s", cp_err_msg());
        unsetenv("CLPARITY_OWN_KERNEL");
        return false;
    }
    if (st != CP_OK)
        fail_msg("%s: cl:relaxed (%s): %s", dev->name, path, cp_err_msg());
    const cp_path_report *p = cp_engine_paths(e);
    if (strcmp(p->used, path) != 0)
        fail_msg("%s: cl:relaxed asked for path %s ran %s (%s)", dev->name, path, p->used,
                 p->n_rejected ? p->rejected[0].why : "no rejection");
    if (planted ? p->exact != 0 : p->exact != -1)
        fail_msg("%s: cl:relaxed (%s): its probe %s (exact %d%s%s)", dev->name, path,
                 planted ? "passed a planted error" : "did not pass", p->exact,
                 p->n_rejected ? ": " : "", p->n_rejected ? p->rejected[0].why : "");
    float *a = forward(e, x, batch, n), *b = forward(e, x, batch, n);
    assert_non_null(a);
    assert_non_null(b);
    char want[CP_ROUTINE_LEN];
    snprintf(want, sizeof want, "path %s (relaxed)", path);
    if (strcmp(cp_engine_routine(e), want) != 0)
        fail_msg("%s: cl:relaxed (%s) reports routine '%s'", dev->name, path, cp_engine_routine(e));
    cp_engine_destroy(e);
    float *c = run_engine("cl:relaxed", dev, m, x, batch);
    unsetenv("CLPARITY_OWN_KERNEL");
    assert_non_null(c);
    if (memcmp(a, b, n * sizeof *a) != 0 || memcmp(a, c, n * sizeof *a) != 0)
        fail_msg("%s: cl:relaxed (%s) is not deterministic: d=%d B=%d (%s)", dev->name, path,
                 m->max_width, batch,
                 memcmp(a, b, n * sizeof *a) ? "forward to forward" : "engine to engine");
    size_t first = 0, bad = outside_bound(b, ref, n, &first);
    if (planted && !bad)
        fail_msg("%s: cl:relaxed (%s): the planted error is inside the bound (d=%d B=%d)",
                 dev->name, path, m->max_width, batch);
    if (!planted && bad)
        fail_msg("%s: cl:relaxed (%s): %zu of %zu outputs outside 1e-3 (1 + |r|) of host:f64, "
                 "first %zu: %.9g against %.9g (d=%d B=%d)",
                 dev->name, path, bad, n, first, (double)b[first], ref[first], m->max_width, batch);
    free(a);
    free(b);
    free(c);
    return true;
}

/* Every path on every OpenCL device at every case; returns the cases run. Oclgrind interprets
 * (about 1 us per multiply-add): there d = 37 only, and it refuses cp_model_small's launch
 * (test_exact.c says so), which cl:own never picks on a simulator. */
static int check_paths(bool planted)
{
    /* d, built-in or general, batch: each width and batch with each kind of model, once (a
     * case is a program build and a probe per path: PoCL compiles for a second or more) */
    static const struct {
        int d;
        bool builtin;
        int batch;
    } cases[] = {{37, false, 3}, {37, true, 1}, {129, false, 1}, {129, true, 3}};
    int checked = 0;
    for (size_t ci = 0; ci < (planted ? 1 : sizeof cases / sizeof *cases); ++ci) {
        cp_model m;
        case_model(&m, cases[ci].d, cases[ci].builtin);
        int batch = cases[ci].batch;
        float *x = NULL;
        assert_int_equal(cp_model_input(batch, m.in_width, 1337, &x), CP_OK);
        double *ref = run_engine("host:f64", host, &m, x, batch);
        assert_non_null(ref);
        for (size_t i = 0; i < devs.n; ++i) {
            const cp_device *dev = &devs.v[i];
            if (dev->kind != CP_DEV_OPENCL || (dev->simulator && cases[ci].d > 37))
                continue;
            for (size_t p = 0; p < cp_own_path_count(); ++p) {
                const char *path = cp_own_path_name(p);
                if (dev->simulator && strcmp(path, "small") == 0)
                    continue;
                char why[512];
                if (!check_case(dev, path, &m, x, batch, ref, planted, why, sizeof why))
                    fail_msg("%s: cl:relaxed (%s) does not apply at d=%d B=%d: %s", dev->name, path,
                             cases[ci].d, batch, why);
                checked++;
            }
        }
        free(ref);
        free(x);
        cp_model_free(&m);
    }
    return checked;
}

static void test_paths(void **state)
{
    (void)state;
    int n = check_paths(false);
    fprintf(stderr, "cl:relaxed: %d cases within the bound and deterministic\n", n);
    assert_true(n > 0);
}

/* The checks above fail on a planted error: under relaxed-wrong every path's probe rejects it
 * (and the naive fallback too, so the path asked for stays, marked), and the output breaks the
 * bound. In a process of its own (`test_relaxed planted`, with CLPARITY_TEST_HOOK set): the
 * probes' verdicts are kept for the process. */
static void test_paths_planted(void **state)
{
    (void)state;
    int n = check_paths(true);
    fprintf(stderr, "cl:relaxed, relaxed-wrong: %d cases rejected by the probe and the bound\n", n);
    assert_true(n > 0);
}

int main(int argc, char **argv)
{
    bool planted = argc > 1 && strcmp(argv[1], "planted") == 0;
    const char *hook = getenv("CLPARITY_TEST_HOOK");
    if (planted && !(hook && strcmp(hook, "relaxed-wrong") == 0)) {
        fprintf(stderr, "usage: CLPARITY_TEST_HOOK=relaxed-wrong test_relaxed planted\n");
        return 2;
    }
    if (cp_devlist_enumerate(&devs) != CP_OK) {
        fprintf(stderr, "%s\n", cp_err_msg());
        return 1;
    }
    host = find_kind(&devs, CP_DEV_HOST);
    if (!find_kind(&devs, CP_DEV_OPENCL)) {
        fprintf(stderr, "no OpenCL device: skipped\n");
        cp_devlist_free(&devs);
        return TEST_SKIP;
    }
    /* the path each case asks for, not a tuned or forced one from the environment */
    unsetenv("CLPARITY_OWN_TUNE");
    unsetenv("CLPARITY_OWN_PROBE");
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_paths)};
    const struct CMUnitTest planted_tests[] = {cmocka_unit_test(test_paths_planted)};
    int rc = planted ? cmocka_run_group_tests(planted_tests, NULL, NULL)
                     : cmocka_run_group_tests(tests, NULL, NULL);
    cp_devlist_free(&devs);
    return rc;
}
