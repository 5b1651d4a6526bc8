/* cr/cl_matrix_pocl: cl:cr (clkernels/cr.cl) bit for bit against host:cr on every OpenCL device
 * that the ICD loader offers (ctest pins PoCL), under several settings of each kernel variant
 * (CLPARITY_CR_TUNE: the work-group size, the outputs per group, the number of k ranges of
 * split-k, the GEMM's tile depth, the CPU kernel's vectors and rows, the one-launch kernel's
 * work-groups per compute unit, team's work-items per output, the exact accumulator for
 * every output, the float-denormal-free code): the built-in model at d = 1, 3, 67 and 257 and
 * general models with biases, ReLU or not and residuals, at batches 1, 5, 17 and 64; the widths
 * past 1000 (d = 1023 and 1025, and a 1025-1023-1025 model) at batches 1 and 5 (their tiles and
 * k loops repeat as at B = 64; cr/cl_gpu_wide_pocl_* runs d=67 at B=130); and the boundary layer
 * (cr_util.h) whose outputs take the exact fallback. With the argument "planted" (test hook
 * corrupt-cl-cr: one flipped bit of one output of the last layer) every comparison must see the
 * difference; the planted run leaves the widths past 1000 out (the plant sits in each variant's
 * store, whatever the width). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cr_util.h"
#include "engine_util.h"

#include "clparity/error.h"

#include <math.h>
#include <string.h>

static cp_devlist devs;
static bool planted;
static int compared, differed;

/* The default choice, and at least three settings of each variant; the defaults of the others
 * apply. */
static const char *const settings[] = {
    "",
    "path=gemv",
    "path=gemv,wg=16,ob=1",
    "path=gemv,wg=128,ob=8",
    "path=gemv,wg=32,ob=2,exact=1",
    "path=gemv,ftz=1",
    "path=splitk,split=1",
    "path=splitk,split=3,wg=32,ob=2",
    "path=splitk,split=16,wg=16,ob=8",
    "path=splitk,split=5,exact=1,ftz=1",
    "path=gemm,tk=8",
    "path=gemm,tk=16,ftz=1",
    "path=gemm,tk=32",
    "path=gemm,exact=1",
    "path=cpu",
    "path=cpu,vw=4,rb=1",
    "path=cpu,vw=8,rb=8,ftz=1",
    "path=stream",
    "path=stream,wg=16,ob=1,sg=1",
    "path=stream,wg=32,ob=2,sg=16,ftz=1",
    "path=stream,ob=8,sg=2,exact=1",
    "path=cpu1",
    "path=cpu1,vw=4,rb=2,ob=2",
    "path=cpu1,vw=16,rb=8,ob=8,ftz=1",
    "path=cpu1,vw=8,rb=1,ob=4,exact=1",
    "path=team",
    "path=team,split=16,ftz=1",
    "path=tiles",
    "path=tiles,tk=32,sg=2",
};
#define N_SETTINGS (sizeof settings / sizeof settings[0])
/* The planted run takes one or two settings of each variant and of each form (exact, ftz): the
 * plant sits in each variant's store (cr.cl's CP_PLANT), and the host code is the same as the
 * plain run's, which takes them all. */
static const bool in_planted[N_SETTINGS] = {
    [0] = true,  [1] = true,  [4] = true,  [7] = true,  [9] = true,  [10] = true, [11] = true,
    [13] = true, [16] = true, [17] = true, [20] = true, [21] = true, [23] = true,
};

static const int batches[] = {1, 5, 17, 64};
/* Models wider than this run at the first two batches only, and not in the planted run: on the
 * 2-core CI machine they took most of the test's time (566 s, the planted twin 374 s). */
enum { WIDE = 1000 };

/* The batches of a model whose widest layer is w, and their count; 0 to leave it out. */
static int batches_for(int w)
{
    if (w <= WIDE)
        return 4;
    return planted ? 0 : 2;
}

static bool same_bits(float a, float b)
{
    uint32_t ua, ub;
    memcpy(&ua, &a, sizeof ua);
    memcpy(&ub, &b, sizeof ub);
    return ua == ub || (isnan(a) && isnan(b)); /* NaN payloads are not part of the contract */
}

/* One engine on m, created for the largest batch, run at each batch of bs (the first rows of
 * x); outputs into y[i] (malloc'd). False after printing why where it failed. */
static bool run_batches(const char *engine, const cp_device *dev, const cp_model *m, const float *x,
                        const int *bs, int nb, float **y)
{
    const cp_engine_info *info = cp_engine_find(engine);
    cp_engine *e = NULL;
    int most = 0;
    for (int i = 0; i < nb; ++i)
        most = bs[i] > most ? bs[i] : most;
    if (cp_engine_create(info, dev, m, most, &e) != CP_OK) {
        print_error("%s on %s: %s\n", engine, dev->name, cp_err_msg());
        return false;
    }
    bool ok = true;
    for (int i = 0; i < nb && ok; ++i) {
        cp_timing t;
        y[i] = malloc((size_t)bs[i] * (size_t)m->out_width * sizeof(float));
        ok = y[i] && cp_engine_forward(e, x, bs[i], y[i], &t) == CP_OK;
        if (!ok)
            print_error("%s on %s, batch %d: %s\n", engine, dev->name, bs[i],
                        y[i] ? cp_err_msg() : "out of memory");
    }
    cp_engine_destroy(e);
    return ok;
}

/* cl:cr under every setting against host:cr on m, at each batch of bs. */
static void compare_model(const cp_model *m, const float *x, const int *bs, int nb,
                          const char *label)
{
    float *want[4] = {NULL}, *got[4] = {NULL};
    assert_true(nb <= 4);
    assert_true(run_batches("host:cr", find_kind(&devs, CP_DEV_HOST), m, x, bs, nb, want));
    for (size_t d = 0; d < devs.n; ++d) {
        if (devs.v[d].kind != CP_DEV_OPENCL)
            continue;
        for (size_t s = 0; s < N_SETTINGS; ++s) {
            if (planted && !in_planted[s])
                continue;
            setenv("CLPARITY_CR_TUNE", settings[s], 1);
            bool ran = run_batches("cl:cr", &devs.v[d], m, x, bs, nb, got);
            unsetenv("CLPARITY_CR_TUNE");
            if (!ran)
                fail_msg("%s: cl:cr (%s) failed on %s", label, settings[s], devs.v[d].name);
            for (int b = 0; b < nb; ++b) {
                size_t n = (size_t)bs[b] * (size_t)m->out_width, k = 0;
                ++compared;
                while (k < n && same_bits(got[b][k], want[b][k]))
                    ++k;
                if (k < n && !planted)
                    print_error("%s, batch %d: cl:cr (%s) on %s: output %zu: %a, host:cr %a\n",
                                label, bs[b], settings[s], devs.v[d].name, k, (double)got[b][k],
                                (double)want[b][k]);
                else if (k == n && planted)
                    print_error("%s, batch %d: cl:cr (%s) on %s: the planted bit went unseen\n",
                                label, bs[b], settings[s], devs.v[d].name);
                differed += k < n;
                free(got[b]);
                got[b] = NULL;
            }
        }
    }
    for (int b = 0; b < nb; ++b)
        free(want[b]);
}

static void test_builtin(void **state)
{
    (void)state;
    static const int ds[] = {1, 3, 67, 257, 1023, 1025};
    for (size_t i = 0; i < sizeof ds / sizeof ds[0]; ++i) {
        cp_model m;
        float *x = NULL;
        int layers = ds[i] <= 257 ? 3 : 2, nb = batches_for(ds[i]);
        if (nb == 0)
            continue;
        assert_int_equal(cp_model_builtin(&m, ds[i], layers, 1337, 1.0f), CP_OK);
        assert_int_equal(cp_model_input(64, ds[i], 1337, &x), CP_OK);
        char label[64];
        snprintf(label, sizeof label, "built-in d=%d L=%d", ds[i], layers);
        compare_model(&m, x, batches, nb, label);
        free(x);
        cp_model_free(&m);
    }
}

/* Rectangular layers with biases, ReLU or none, residuals with and without a bias. */
static void test_general(void **state)
{
    (void)state;
    static const struct {
        int w[4];
        int n;
        unsigned bias, relu, res;
    } models[] = {
        {{67, 257, 3, 67}, 3, 7, 5, 0},
        {{1025, 1023, 1025}, 2, 3, 1, 0},
        {{257, 257, 257}, 2, 2, 3, 3},
    };
    for (size_t i = 0; i < sizeof models / sizeof models[0]; ++i) {
        int widest = 0;
        for (size_t j = 0; j < sizeof models[i].w / sizeof models[i].w[0]; ++j) /* 0 past n */
            widest = models[i].w[j] > widest ? models[i].w[j] : widest;
        const int nb = batches_for(widest);
        if (nb == 0)
            continue;
        cp_model m;
        float *x = NULL;
        general_model(&m, models[i].w, models[i].n, models[i].bias, models[i].relu, models[i].res,
                      23 + i);
        assert_int_equal(cp_model_input(64, m.in_width, 1337 + i, &x), CP_OK);
        char label[64];
        snprintf(label, sizeof label, "general model %zu", i);
        compare_model(&m, x, batches, nb, label);
        free(x);
        cp_model_free(&m);
    }
}

/* Ties, one unit off a tie, cancellation, NaN and infinity: the exact fallback decides. */
static void test_boundaries(void **state)
{
    (void)state;
    enum { IN = CR_BOUND_IN, OUT = CR_BOUND_OUT, B = CR_BOUND_B };
    float W[OUT * IN], bias[OUT], x[B * IN];
    cp_model *m = cr_boundary_model(W, bias, x);
    assert_non_null(m);
    const int bs[] = {B};
    compare_model(m, x, bs, 1, "boundary layer");
    cp_model_delete(m);
}

static void test_verdict(void **state)
{
    (void)state;
    assert_true(compared > 0);
    if (planted) {
        if (differed != compared)
            fail_msg("the planted one-bit error (corrupt-cl-cr) went unseen in %d of %d "
                     "comparisons",
                     compared - differed, compared);
    } else if (differed) {
        fail_msg("%d of %d comparisons of cl:cr with host:cr differed", differed, compared);
    }
}

int main(int argc, char **argv)
{
    planted = argc > 1 && strcmp(argv[1], "planted") == 0;
    if (planted)
        setenv("CLPARITY_TEST_HOOK", "corrupt-cl-cr", 1);
    unsetenv("CLPARITY_CR_TUNE");
    int status = devices_or_skip(&devs);
    if (status)
        return status;
    const struct CMUnitTest all[] = {
        cmocka_unit_test(test_builtin),
        cmocka_unit_test(test_general),
        cmocka_unit_test(test_boundaries),
        cmocka_unit_test(test_verdict),
    };
    int rc = cmocka_run_group_tests(all, NULL, NULL);
    cp_devlist_free(&devs);
    return rc;
}
