/* runtime/exact: cl:own equals host:exact bit for bit on every OpenCL device that the ICD
 * loader offers (ctest pins PoCL or Oclgrind through OCL_ICD_VENDORS). Shapes stay small so
 * that Oclgrind, which interprets, finishes in seconds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "engine_util.h"

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
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_bitwise)};
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    cp_devlist_free(&devs);
    return rc;
}
