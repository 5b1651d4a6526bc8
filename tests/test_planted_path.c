/* runtime/planted_path_pocl: a path added as one file (tests/own_path_planted.c) plus one row
 * (runtime/opencl/own_path_table.c compiled with OWN_PATH_EXTRA) is listed, chosen by the rules,
 * probed, and tuned, with no other file changed: docs/ENGINES.md, "Adding a kernel path".
 * `test_planted_path planted` runs under CLPARITY_TEST_HOOK=kernel-bit:planted: the probe must
 * reject the path (one flipped bit) and cl:own fall back to the device's own choice. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cl-shared-impl.h"
#include "engine_util.h"

#include "clparity/metrics.h"

#include <stdlib.h>
#include <string.h>

static cp_devlist devs;
static bool planted_run; /* under kernel-bit:planted */

static void test_listed(void **state)
{
    (void)state;
    assert_int_equal(cp_own_path_count(), N_PATHS + 1);
    assert_string_equal(cp_own_path_name(N_PATHS), "planted");
}

/* cl:own on dev for the reference model at d, L, B (forced: the planted path forced as the
 * probe forces a path, with no probe of its own): the path used, and whether its output has
 * host:exact's bits; *hash: the output's. */
static const char *run_own(const cp_device *dev, int d, int layers, int batch, bool forced,
                           bool *same, uint64_t *hash)
{
    static char used[CP_PATH_NAME];
    cp_model m;
    float *x = NULL;
    assert_int_equal(cp_model_builtin(&m, d, layers, 1337, 1.0f), CP_OK);
    assert_int_equal(cp_model_input(batch, d, 1337, &x), CP_OK);
    size_t n = (size_t)batch * (size_t)d;
    float *y = malloc(n * sizeof *y);
    assert_non_null(y);
    cp_engine *e = NULL;
    cp_timing t;
    int st = forced ? cp_cl_create_probing(&cp_engine_cl_own, dev, &m, batch, N_PATHS, &e)
                    : cp_engine_create(cp_engine_find("cl:own"), dev, &m, batch, &e);
    if (st != CP_OK || cp_engine_forward(e, x, batch, y, &t) != CP_OK)
        fail_msg("cl:own on %s: %s", dev->name, cp_err_msg());
    snprintf(used, sizeof used, "%s", e->paths.used);
    if (strcmp(used, "planted") != 0)
        assert_true(e->paths.n_rejected >= 1 && strcmp(e->paths.rejected[0].path, "planted") == 0);
    else if (!forced)
        assert_int_equal(e->paths.exact, 1); /* passed its probe */
    cp_engine_destroy(e);
    const cp_device *host = find_kind(&devs, CP_DEV_HOST);
    float *want = run_engine("host:exact", host, &m, x, batch);
    assert_non_null(want);
    *same = memcmp(y, want, n * sizeof *y) == 0;
    *hash = cp_hash_fnv1a(y, n * sizeof *y);
    free(want);
    free(y);
    free(x);
    cp_model_free(&m);
    return used;
}

static void test_chosen_and_probed(void **state)
{
    (void)state;
    for (size_t i = 0; i < devs.n; ++i) {
        if (devs.v[i].kind != CP_DEV_OPENCL)
            continue;
        bool same;
        uint64_t h;
        const char *used = run_own(&devs.v[i], 64, 4, 3, false, &same, &h);
        /* its first rule takes it everywhere; its probe passes it, unless its bit is planted */
        if (planted_run)
            assert_string_not_equal(used, "planted");
        else
            assert_string_equal(used, "planted");
        assert_true(same);
    }
}

/* What `clparity tune` does with the path's candidates (cp_tunables, the rows' lists): each
 * timed with the path forced and the candidate in CLPARITY_OWN_TUNE, the same bits. (tune
 * forces the path through CLPARITY_OWN_KERNEL, whose words runtime/base/env.c lists: a path of
 * clparity's own adds its name there too; this test forces it as the probe does.) */
static void test_tuned(void **state)
{
    (void)state;
    for (size_t i = 0; i < devs.n; ++i) {
        const cp_device *dev = &devs.v[i];
        if (dev->kind != CP_DEV_OPENCL)
            continue;
        const cp_tunable *tv[16];
        size_t nt = cp_tunables(cp_engine_find("cl:own"), dev, tv, 16);
        const cp_tunable *tu = NULL;
        for (size_t t = 0; t < nt; ++t)
            if (strcmp(tv[t]->path, "planted") == 0)
                tu = tv[t];
        if (dev->type & CL_DEVICE_TYPE_CPU)
            assert_non_null(tu);
        if (!tu || planted_run)
            continue;
        uint64_t first = 0;
        for (const char *const *c = tu->quick_cands; *c; ++c) {
            setenv("CLPARITY_OWN_TUNE", *c, 1);
            bool same;
            uint64_t h;
            const char *used =
                run_own(dev, tu->quick.d, tu->quick.layers, tu->quick.batch, true, &same, &h);
            unsetenv("CLPARITY_OWN_TUNE");
            assert_string_equal(used, "planted");
            assert_true(same);
            if (c == tu->quick_cands)
                first = h;
            assert_true(h == first);
        }
    }
}

int main(int argc, char **argv)
{
    planted_run = argc > 1 && strcmp(argv[1], "planted") == 0;
    int status = devices_or_skip(&devs);
    if (status)
        return status;
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_listed),
                                       cmocka_unit_test(test_chosen_and_probed),
                                       cmocka_unit_test(test_tuned)};
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    cp_devlist_free(&devs);
    return rc;
}
