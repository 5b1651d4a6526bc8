/* runtime/engines: every engine against host:f64 on the first OpenCL device (PoCL in ctest)
 * at several shapes, odd ones too; cl:own bit for bit equal to host:exact; DESIGN's ReLU on
 * the device; cl:clblast's GEMV at batch 1. CLBlast's shapes stay in this one process: it
 * compiles for seconds in each. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "clparity/metrics.h"
#include "engine_util.h"

#include <math.h>
#include <string.h>

static cp_devlist devs;
static const cp_device *cl_dev, *host;

static void check_shape(int d, int layers, int batch)
{
    cp_model m;
    float *x = NULL;
    assert_int_equal(cp_model_builtin(&m, d, layers, 1337, 1.0f), CP_OK);
    assert_int_equal(cp_model_input(batch, d, 1337, &x), CP_OK);
    double *ref = run_engine("host:f64", host, &m, x, batch);
    assert_non_null(ref);
    float *exact = run_engine("host:exact", host, &m, x, batch);
    assert_non_null(exact);
    static const char *const f32_engines[] = {"cl:own", "cl:clblast", "host:openblas",
                                              "host:exact"};
    for (size_t e = 0; e < 4; ++e) {
        const cp_device *dev = strncmp(f32_engines[e], "cl:", 3) == 0 ? cl_dev : host;
        float *y = run_engine(f32_engines[e], dev, &m, x, batch);
        assert_non_null(y);
        cp_metrics met;
        assert_int_equal(cp_metrics_compute(y, ref, (size_t)batch, (size_t)d, false, &met), CP_OK);
        if (!(met.rel_to_max <= 1e-5) || met.nan || met.inf)
            fail_msg("%s d=%d L=%d B=%d: rel_to_max %g (nan %zu inf %zu)", f32_engines[e], d,
                     layers, batch, met.rel_to_max, met.nan, met.inf);
        if (strcmp(f32_engines[e], "cl:own") == 0 &&
            memcmp(y, exact, (size_t)batch * (size_t)d * sizeof(float)) != 0)
            fail_msg("cl:own differs from host:exact at d=%d L=%d B=%d", d, layers, batch);
        free(y);
    }
    free(exact);
    free(ref);
    free(x);
    cp_model_free(&m);
}

static void test_shapes(void **state)
{
    (void)state;
    static const int ds[] = {1, 3, 64, 257};
    static const int bs[] = {1, 5};
    static const int ls[] = {1, 8};
    for (size_t i = 0; i < 4; ++i)
        for (size_t j = 0; j < 2; ++j)
            for (size_t k = 0; k < 2; ++k)
                check_shape(ds[i], ls[k], bs[j]);
}

static float from_bits(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

/* One 1×1 layer with W = 1: y = relu(x) (and x + relu(x) with the residual), through the
 * kernel's fma and ReLU, for NaN, denormals, infinities and both zeros. */
static void test_relu_on_device(void **state)
{
    (void)state;
    float params[1] = {1.0f};
    cp_layer layer = {.in = 1, .out = 1, .w_off = 0, .act = CP_ACT_RELU, .residual = false};
    cp_model m = {.n_layers = 1,
                  .layers = &layer,
                  .params = params,
                  .n_params = 1,
                  .in_width = 1,
                  .out_width = 1,
                  .max_width = 1,
                  .d = 1};
    float x[] = {NAN,   from_bits(5), from_bits(0x80000005u), -1.0f, 2.0f, INFINITY, -INFINITY,
                 -0.0f, 0.0f};
    const uint32_t want[] = {0, 5, 0, 0, 0x40000000u, 0x7f800000u, 0, 0, 0};
    int batch = (int)(sizeof x / sizeof x[0]);
    for (int residual = 0; residual < 2; ++residual) {
        layer.residual = residual;
        float *own = run_engine("cl:own", cl_dev, &m, x, batch);
        float *ex = run_engine("host:exact", host, &m, x, batch);
        assert_non_null(own);
        assert_non_null(ex);
        for (int i = 0; i < batch; ++i) {
            uint32_t a, b;
            memcpy(&a, &own[i], 4);
            memcpy(&b, &ex[i], 4);
            if (i == 0) {
                assert_true(isnan(own[i]) && isnan(ex[i])); /* NaN propagates */
                continue;
            }
            if (a != b)
                fail_msg("residual=%d x[%d]=%a: cl:own %08x host:exact %08x", residual, i,
                         (double)x[i], a, b);
            if (!residual && a != want[i])
                fail_msg("relu(%a) gave %08x, want %08x", (double)x[i], a, want[i]);
        }
        free(own);
        free(ex);
    }
}

/* cl:clblast at batch 1 calls CLBlastSgemv (as host:openblas calls cblas_sgemv there), and
 * CLBlastSgemm at batch 3; at batch 1 its bits are the same forward to forward and engine to
 * engine, and close to host:f64, at odd widths. Layer 0's sums are -inf where its ReLU gives 0:
 * CLBlastSgemv reads its output buffer (times beta = 0) before writing it, so an infinity left
 * there would turn the next layer into NaN (0 * inf) unless the epilogue clears it. */
static void test_clblast_gemv(void **state)
{
    (void)state;
    static const int ds[] = {37, 129};
    for (size_t di = 0; di < 2; ++di) {
        int d = ds[di];
        cp_model m;
        assert_int_equal(cp_model_builtin(&m, d, 3, 1337, 1.0f), CP_OK);
        /* row 0 of layer 0's W: -3e38 on every input, so that its sum overflows to -inf for
         * an input of positive sum (made below), and ReLU then gives 0 */
        for (int k = 0; k < d; ++k)
            m.params[m.layers[0].w_off + (size_t)k] = -3e38f;
        float *x = NULL;
        assert_int_equal(cp_model_input(3, d, 1337, &x), CP_OK);
        for (int k = 0; k < d; ++k)
            x[k] = fabsf(x[k]) + 1.0f;
        double *ref = run_engine("host:f64", host, &m, x, 1);
        assert_non_null(ref);
        size_t n = (size_t)d;
        const cp_engine_info *info = cp_engine_find("cl:clblast");
        float *y[3];
        cp_engine *e = NULL;
        cp_timing t;
        for (int run = 0; run < 3; ++run) {
            /* two forwards of one engine, then one of a fresh engine */
            if (run != 1) {
                cp_engine_destroy(e);
                if (cp_engine_create(info, cl_dev, &m, 3, &e) != CP_OK)
                    fail_msg("cl:clblast: %s", cp_err_msg());
            }
            y[run] = malloc(3 * n * sizeof(float));
            assert_non_null(y[run]);
            if (cp_engine_forward(e, x, 1, y[run], &t) != CP_OK)
                fail_msg("cl:clblast forward: %s", cp_err_msg());
            if (strcmp(cp_engine_routine(e), "CLBlastSgemv + cp_epilogue") != 0)
                fail_msg("cl:clblast at B=1 ran '%s', not CLBlastSgemv", cp_engine_routine(e));
        }
        /* batch 3: SGEMM */
        float *y3 = malloc(3 * n * sizeof(float));
        assert_non_null(y3);
        if (cp_engine_forward(e, x, 3, y3, &t) != CP_OK)
            fail_msg("cl:clblast forward: %s", cp_err_msg());
        if (strcmp(cp_engine_routine(e), "CLBlastSgemm + cp_epilogue") != 0)
            fail_msg("cl:clblast at B=3 ran '%s', not CLBlastSgemm", cp_engine_routine(e));
        free(y3);
        cp_engine_destroy(e);
        if (memcmp(y[0], y[1], n * sizeof(float)) != 0 ||
            memcmp(y[0], y[2], n * sizeof(float)) != 0)
            fail_msg("cl:clblast at B=1, d=%d: bits differ between runs", d);
        cp_metrics met;
        assert_int_equal(cp_metrics_compute(y[0], ref, 1, n, false, &met), CP_OK);
        if (!(met.rel_to_max <= 1e-5) || met.nan || met.inf)
            fail_msg("cl:clblast at B=1, d=%d: rel_to_max %g (nan %zu inf %zu)", d, met.rel_to_max,
                     met.nan, met.inf);
        for (int run = 0; run < 3; ++run)
            free(y[run]);
        free(ref);
        free(x);
        cp_model_free(&m);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1) /* by hand: only the tests whose names match, e.g. test_engines test_clblast* */
        cmocka_set_test_filter(argv[1]);
    if (cp_devlist_enumerate(&devs) != CP_OK) {
        fprintf(stderr, "%s\n", cp_err_msg());
        return 1;
    }
    cl_dev = find_kind(&devs, CP_DEV_OPENCL);
    host = find_kind(&devs, CP_DEV_HOST);
    if (!cl_dev) {
        fprintf(stderr, "no OpenCL device: skipped\n");
        cp_devlist_free(&devs);
        return TEST_SKIP;
    }
    fprintf(stderr, "OpenCL device: %s (%s)\n", cl_dev->name, cl_dev->platform);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_relu_on_device),
        cmocka_unit_test(test_clblast_gemv),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    cp_devlist_free(&devs);
    return rc;
}
