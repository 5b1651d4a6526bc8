/* runtime/exact: cl:own equals host:exact bit for bit on every OpenCL device that the ICD
 * loader offers (ctest pins PoCL or Oclgrind through OCL_ICD_VENDORS). Shapes stay small so
 * that Oclgrind, which interprets, finishes in seconds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "engine_util.h"

#include "clparity/gen.h"

#include <math.h>
#include <string.h>

static cp_devlist devs;

static void test_bitwise(void **state)
{
    (void)state;
    static const struct {
        int d, layers, batch;
        float scale;
    } shapes[] = {{1, 1, 1, 1.0f},   {3, 8, 5, 1.0f},  {64, 8, 5, 1.0f},
                  {257, 1, 5, 1.0f}, {33, 8, 2, 0.5f}, {16, 40, 3, 4.0f}};
    const cp_device *host = find_kind(&devs, CP_DEV_HOST);
    int checked = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
        cp_model m;
        float *x = NULL;
        assert_int_equal(cp_model_builtin(&m, shapes[s].d, shapes[s].layers, 1337, shapes[s].scale),
                         CP_OK);
        assert_int_equal(cp_model_input(shapes[s].batch, shapes[s].d, 1337, &x), CP_OK);
        float *want = run_engine("host:exact", host, &m, x, shapes[s].batch);
        assert_non_null(want);
        for (size_t i = 0; i < devs.n; ++i) {
            if (devs.v[i].kind != CP_DEV_OPENCL)
                continue;
            float *got = run_engine("cl:own", &devs.v[i], &m, x, shapes[s].batch);
            assert_non_null(got);
            size_t n = (size_t)shapes[s].batch * (size_t)shapes[s].d;
            if (memcmp(got, want, n * sizeof(float)) != 0)
                fail_msg("%s: cl:own != host:exact at d=%d L=%d B=%d", devs.v[i].name, shapes[s].d,
                         shapes[s].layers, shapes[s].batch);
            free(got);
            checked++;
        }
        free(want);
        free(x);
        cp_model_free(&m);
    }
    assert_true(checked > 0);
}

/* Rectangular layers, biases, layers without activation and without residual, through every
 * cl:own kernel (CLPARITY_OWN_KERNEL), at batches that leave partial tiles. The checks also
 * prove that the features are used: each model's output changes when a bias or an activation
 * is dropped. */
static void test_general(void **state)
{
    (void)state;
    static const struct {
        int w[6];
        int n;
        unsigned bias, relu, res;
    } models[] = {
        {{64, 128, 128, 10}, 3, 7, 3, 0},    /* the digits MLP's shape */
        {{3, 7, 5, 5, 2}, 4, 5, 7, 4},       /* a residual in the middle, no act last */
        {{130, 67, 130, 1}, 3, 6, 1, 0},     /* odd widths, bias only on some */
        {{33, 33, 33, 257, 8}, 4, 15, 5, 3}, /* residual + bias + no act mixed */
        {{16, 16, 16}, 2, 3, 0, 3},          /* identity activations with residuals */
    };
    static const int batches[] = {1, 5, 131};
    static const char *const paths[] = {"naive", "small", "pipe", "reg", "stream",
                                        "tiled", "vec",   "cpu",  "cpu1"};
    const cp_device *host = find_kind(&devs, CP_DEV_HOST);
    int checked = 0;
    for (size_t mi = 0; mi < sizeof models / sizeof models[0]; ++mi) {
        cp_model m;
        general_model(&m, models[mi].w, models[mi].n, models[mi].bias, models[mi].relu,
                      models[mi].res, 7);
        for (size_t bi = 0; bi < sizeof batches / sizeof batches[0]; ++bi) {
            int batch = batches[bi];
            float *x = NULL;
            assert_int_equal(cp_model_input(batch, m.in_width, 1337, &x), CP_OK);
            float *want = run_engine("host:exact", host, &m, x, batch);
            double *ref = run_engine("host:f64", host, &m, x, batch);
            assert_non_null(want);
            assert_non_null(ref);
            size_t n = (size_t)batch * (size_t)m.out_width;
            /* host:exact is close to the float64 reference: the layers are computed right. */
            for (size_t i = 0; i < n; ++i)
                assert_true(fabs((double)want[i] - ref[i]) <= 1e-4 + 1e-4 * fabs(ref[i]));
            for (size_t i = 0; i < devs.n; ++i) {
                if (devs.v[i].kind != CP_DEV_OPENCL)
                    continue;
                if (devs.v[i].simulator && batch > 5)
                    continue; /* Oclgrind interprets: the small batches keep it to seconds */
                for (size_t p = 0; p < sizeof paths / sizeof paths[0]; ++p) {
                    /* Oclgrind refuses cp_model_small's launch (CL_OUT_OF_RESOURCES, with the
                     * built-in model at d = 64 too, so not this test's shapes); cl:own never
                     * picks that kernel on a simulator, whose default is pipe. */
                    if (devs.v[i].simulator && strcmp(paths[p], "small") == 0)
                        continue;
                    setenv("CLPARITY_OWN_KERNEL", paths[p], 1);
                    float *got = run_engine("cl:own", &devs.v[i], &m, x, batch);
                    assert_non_null(got);
                    if (memcmp(got, want, n * sizeof(float)) != 0)
                        fail_msg("%s: cl:own (%s) != host:exact, model %zu, batch %d",
                                 devs.v[i].name, paths[p], mi, batch);
                    free(got);
                    checked++;
                }
                unsetenv("CLPARITY_OWN_KERNEL");
                if (batch != 5)
                    continue; /* CLBlast compiles per context: one batch is enough for it */
                float *blas = run_engine("cl:clblast", &devs.v[i], &m, x, batch);
                assert_non_null(blas);
                for (size_t k = 0; k < n; ++k)
                    if (!(fabs((double)blas[k] - ref[k]) <= 1e-4 + 1e-4 * fabs(ref[k])))
                        fail_msg("%s: cl:clblast [%zu] %g vs %g, model %zu, batch %d",
                                 devs.v[i].name, k, (double)blas[k], ref[k], mi, batch);
                free(blas);
            }
            float *ob = run_engine("host:openblas", host, &m, x, batch);
            assert_non_null(ob);
            for (size_t k = 0; k < n; ++k)
                assert_true(fabs((double)ob[k] - ref[k]) <= 1e-4 + 1e-4 * fabs(ref[k]));
            free(ob);
            free(ref);
            free(want);
            free(x);
        }
        cp_model_free(&m);
    }
    assert_true(checked > 0);
}

/* The CPU paths (own_cpu.cl: cp_cpu_layer and the one-launch cp_cpu_model) at odd widths
 * d = 1, 3, 257, 1023, 1025 and batches 1, 5, 17 (partial panels and row blocks), with biases,
 * rectangular layers, layers without activation and without residual. Oclgrind interprets:
 * there the small model at batches 1 and 5, the large ones at batch 1. */
static const struct {
    int w[5];
    int n;
    unsigned bias, relu, res;
} cpu_models[] = {
    {{1, 3, 1}, 2, 3, 1, 0},            /* d = 1 and 3, biases, no residual */
    {{257, 1023, 1025, 3}, 3, 5, 3, 0}, /* rectangular, bias on some, no residual */
    {{1025, 1025, 257}, 2, 1, 0, 1},    /* residual, no activation */
};

static int check_cpu_paths(bool want_equal)
{
    static const int batches[] = {1, 5, 17};
    static const char *const paths[] = {"cpu", "cpu1", "cpug"};
    const cp_device *host = find_kind(&devs, CP_DEV_HOST);
    int checked = 0;
    for (size_t mi = 0; mi < sizeof cpu_models / sizeof cpu_models[0]; ++mi) {
        cp_model m;
        general_model(&m, cpu_models[mi].w, cpu_models[mi].n, cpu_models[mi].bias,
                      cpu_models[mi].relu, cpu_models[mi].res, 7);
        for (size_t bi = 0; bi < sizeof batches / sizeof batches[0]; ++bi) {
            int batch = batches[bi];
            float *x = NULL;
            assert_int_equal(cp_model_input(batch, m.in_width, 1337, &x), CP_OK);
            float *want = run_engine("host:exact", host, &m, x, batch);
            assert_non_null(want);
            size_t n = (size_t)batch * (size_t)m.out_width;
            for (size_t i = 0; i < devs.n; ++i) {
                if (devs.v[i].kind != CP_DEV_OPENCL)
                    continue;
                if (devs.v[i].simulator && (batch > 5 || (mi > 0 && batch > 1)))
                    continue;
                for (size_t p = 0; p < sizeof paths / sizeof paths[0]; ++p) {
                    setenv("CLPARITY_OWN_KERNEL", paths[p], 1);
                    float *got = run_engine("cl:own", &devs.v[i], &m, x, batch);
                    assert_non_null(got);
                    bool equal = memcmp(got, want, n * sizeof(float)) == 0;
                    if (equal != want_equal)
                        fail_msg("%s: cl:own (%s) %s host:exact, model %zu, batch %d",
                                 devs.v[i].name, paths[p], equal ? "==" : "!=", mi, batch);
                    free(got);
                    checked++;
                }
                unsetenv("CLPARITY_OWN_KERNEL");
            }
            free(want);
            free(x);
        }
        cp_model_free(&m);
    }
    return checked;
}

static void test_cpu_paths(void **state)
{
    (void)state;
    assert_true(check_cpu_paths(true) > 0);
}

/* The same comparisons fail when own_cpu.cl flips one bit of its output (test hook
 * corrupt-cpu-kernel builds it with -DCP_TEST_FLIP): each case sees a one-bit error. */
static void test_cpu_paths_planted(void **state)
{
    (void)state;
    setenv("CLPARITY_TEST_HOOK", "corrupt-cpu-kernel", 1);
    int checked = check_cpu_paths(false);
    unsetenv("CLPARITY_TEST_HOOK");
    assert_true(checked > 0);
}

/* The features matter: dropping a bias, an activation or a residual changes the output, so
 * the test above cannot pass by ignoring them. */
static void test_features_change_output(void **state)
{
    (void)state;
    const cp_device *host = find_kind(&devs, CP_DEV_HOST);
    static const int w[] = {8, 8, 8, 4};
    cp_model base;
    general_model(&base, w, 3, 7, 3, 3, 7);
    float *x = NULL;
    assert_int_equal(cp_model_input(4, 8, 1337, &x), CP_OK);
    float *y0 = run_engine("host:exact", host, &base, x, 4);
    assert_non_null(y0);
    for (int variant = 0; variant < 3; ++variant) {
        cp_model m;
        general_model(&m, w, 3, variant == 0 ? 6 : 7, variant == 1 ? 2 : 3, variant == 2 ? 2 : 3,
                      7);
        for (size_t i = 0; i < devs.n; ++i) {
            if (devs.v[i].kind != CP_DEV_OPENCL)
                continue;
            float *y = run_engine("cl:own", &devs.v[i], &m, x, 4);
            assert_non_null(y);
            assert_true(memcmp(y, y0, 16 * sizeof(float)) != 0);
            free(y);
        }
        cp_model_free(&m);
    }
    free(y0);
    free(x);
    cp_model_free(&base);
}

int main(void)
{
    if (cp_devlist_enumerate(&devs) != CP_OK) {
        fprintf(stderr, "%s\n", cp_err_msg());
        return 1;
    }
    if (!find_kind(&devs, CP_DEV_OPENCL)) {
        fprintf(stderr, "no OpenCL device: skipped\n");
        cp_devlist_free(&devs);
        return TEST_SKIP;
    }
    for (size_t i = 0; i < devs.n; ++i)
        if (devs.v[i].kind == CP_DEV_OPENCL)
            fprintf(stderr, "device %d:%d %s (%s)\n", devs.v[i].plat_idx, devs.v[i].dev_idx,
                    devs.v[i].name, devs.v[i].platform);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bitwise), cmocka_unit_test(test_general),
        cmocka_unit_test(test_features_change_output), cmocka_unit_test(test_cpu_paths),
        cmocka_unit_test(test_cpu_paths_planted)};
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    cp_devlist_free(&devs);
    return rc;
}
