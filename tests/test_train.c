/* runtime/train: one SGD step on tiny models whose every intermediate value is exact in
 * float, worked out by hand below, on every training engine and every OpenCL device that the
 * ICD loader offers (ctest pins PoCL and Oclgrind). It pins the formulas of clparity/train.h:
 * ReLU' is 0 at exactly 0, the residual passes the gradient, the bias gradient, the update. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "clparity/device.h"
#include "clparity/error.h"
#include "clparity/train.h"

#include <stdio.h>
#include <string.h>

static cp_devlist devs;

/* Runs one step of `engine` on dev and checks the loss and the new parameters exactly. */
static int check_step(const char *engine, const cp_device *dev, const cp_model *m, int batch,
                      const float *x, const float *t, double lr, double want_loss,
                      const double *want, size_t n)
{
    cp_trainer *tr = NULL;
    int st = cp_trainer_create(engine, dev, m, batch, x, t, lr, &tr);
    if (st != CP_OK) {
        print_error("%s: %s\n", engine, cp_err_msg());
        return 0;
    }
    double loss = -1.0;
    assert_int_equal(cp_trainer_step(tr, &loss), CP_OK);
    if (loss != want_loss) {
        print_error("%s on %s: loss %.17g, want %.17g\n", engine, dev->name, loss, want_loss);
        fail();
    }
    double w64[16];
    float w32[16];
    assert_true(n <= 16);
    if (cp_trainer_dtype(tr) == CP_F64) {
        assert_int_equal(cp_trainer_weights(tr, w64), CP_OK);
    } else {
        assert_int_equal(cp_trainer_weights(tr, w32), CP_OK);
        for (size_t i = 0; i < n; ++i)
            w64[i] = w32[i];
    }
    for (size_t i = 0; i < n; ++i)
        if (w64[i] != want[i]) {
            print_error("%s on %s: param %zu is %.17g, want %.17g\n", engine, dev->name, i, w64[i],
                        want[i]);
            fail();
        }
    cp_trainer_destroy(tr);
    return 1;
}

static const char *const engines[] = {"host:exact", "host:f64", "host:openblas", "cl:own",
                                      "cl:clblast"};

/* Every engine on every device it applies to; returns how many ran. */
static int check_all(const cp_model *m, int batch, const float *x, const float *t, double lr,
                     double want_loss, const double *want, size_t n)
{
    int ran = 0;
    for (size_t e = 0; e < sizeof engines / sizeof engines[0]; ++e)
        for (size_t i = 0; i < devs.n; ++i) {
            bool host = strncmp(engines[e], "host:", 5) == 0;
            if (host != (devs.v[i].kind == CP_DEV_HOST))
                continue;
            ran += check_step(engines[e], &devs.v[i], m, batch, x, t, lr, want_loss, want, n);
        }
    return ran;
}

/* One post block y = x + relu(x·Wᵀ), 2 → 2, on the weights p[4] (W row-major). */
static cp_model block_2x2(cp_layer *ly, float *p)
{
    *ly = (cp_layer){.in = 2, .out = 2, .w_off = 0, .act = CP_ACT_RELU, .residual = true};
    return (cp_model){.n_layers = 1,
                      .layers = ly,
                      .params = p,
                      .n_params = 4,
                      .in_width = 2,
                      .out_width = 2,
                      .max_width = 2};
}

/* One residual ReLU block, d = 2: x = [1, 2], W = [[0.5, -1], [0.25, 0.25]], t = 0.
 * z = [-1.5, 0.75], y = x + relu(z) = [1, 2.75], loss = (1 + 7.5625) / 2 = 4.28125,
 * g = 2/2 · y = [1, 2.75], dz = [0, 2.75], gW = dz ⊗ x = [[0, 0], [2.75, 5.5]],
 * W − 0.125·gW = [[0.5, -1], [-0.09375, -0.4375]]. */
static void test_block(void **state)
{
    (void)state;
    cp_layer ly;
    float p[4] = {0.5f, -1.0f, 0.25f, 0.25f};
    cp_model m = block_2x2(&ly, p);
    const float x[2] = {1.0f, 2.0f}, t[2] = {0.0f, 0.0f};
    const double want[4] = {0.5, -1.0, -0.09375, -0.4375};
    assert_true(check_all(&m, 1, x, t, 0.125, 4.28125, want, 4) >= 3);
}

/* ReLU' at exactly 0 is 0: x = [1, 1], W[0] = [1, -1] gives z0 = 0, so W[0] stays although
 * g0 = 1; z1 = 0.5 + 0.5 = 1 > 0 moves W[1] by 0.125 · g1 · x with g1 = 2 (y1 = 1 + 1). */
static void test_relu_zero(void **state)
{
    (void)state;
    cp_layer ly;
    float p[4] = {1.0f, -1.0f, 0.5f, 0.5f};
    cp_model m = block_2x2(&ly, p);
    const float x[2] = {1.0f, 1.0f}, t[2] = {0.0f, 0.0f};
    /* y = [1, 2], loss = (1 + 4) / 2 = 2.5, g = [1, 2], dz = [0, 2], gW[1] = [2, 2]. */
    const double want[4] = {1.0, -1.0, 0.25, 0.25};
    assert_true(check_all(&m, 1, x, t, 0.125, 2.5, want, 4) >= 3);
}

/* Two layers: the residual passes the gradient to the first layer, and a bias. Layer 0:
 * Linear 2→2 with bias, no activation, no residual; layer 1: the block of test_block's
 * shape. x = [1, 2], W0 = I, b0 = [0, 0.5], so a1 = [1, 2.5]; W1 = [[0.5, -1], [0, 0.5]]:
 * z1 = [-2, 1.25], y = [1, 3.75], t = [1, 1.75]: g = (2/2)(y − t) = [0, 2], loss = 2.
 * dz1 = [0, 2]; gW1 = [[0, 0], [2, 5]]; da1 = dz1·W1 + g = [0, 1] + [0, 2] = [0, 3];
 * layer 0: dz0 = [0, 3], gW0 = [[0, 0], [3, 6]], gb0 = [0, 3]. lr 0.125. */
static void test_two_layers_bias(void **state)
{
    (void)state;
    cp_layer ly[2] = {
        {.in = 2, .out = 2, .w_off = 0, .has_bias = true, .b_off = 4, .act = CP_ACT_NONE},
        {.in = 2, .out = 2, .w_off = 6, .act = CP_ACT_RELU, .residual = true}};
    float p[10] = {1.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.5f, 0.5f, -1.0f, 0.0f, 0.5f};
    cp_model m = {.n_layers = 2,
                  .layers = ly,
                  .params = p,
                  .n_params = 10,
                  .in_width = 2,
                  .out_width = 2,
                  .max_width = 2};
    const float x[2] = {1.0f, 2.0f}, t[2] = {1.0f, 1.75f};
    const double want[10] = {1.0,   0.0, -0.375, 0.25,  0.0, /* W0, b0[0] */
                             0.125, 0.5, -1.0,   -0.25, -0.125};
    assert_true(check_all(&m, 1, x, t, 0.125, 2.0, want, 10) >= 3);
}

/* Batch 2 sums the gradient over the rows: the block of test_block with rows x and −x
 * (the second row's z = [1.5, -0.75]: y = [-1 + 1.5, -2] = [0.5, -2]). N = 4,
 * loss = (1 + 7.5625 + 0.25 + 4) / 4 = 3.203125; g = (2/4) y: row 0 [0.5, 1.375],
 * row 1 [0.25, -1]; dz: row 0 [0, 1.375], row 1 [0.25, 0]; gW[0] = 0.25 · (−x) =
 * [-0.25, -0.5], gW[1] = 1.375 · x = [1.375, 2.75]; lr 0.125. */
static void test_batch(void **state)
{
    (void)state;
    cp_layer ly;
    float p[4] = {0.5f, -1.0f, 0.25f, 0.25f};
    cp_model m = block_2x2(&ly, p);
    const float x[4] = {1.0f, 2.0f, -1.0f, -2.0f}, t[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    const double want[4] = {0.53125, -0.9375, 0.078125, -0.09375};
    assert_true(check_all(&m, 2, x, t, 0.125, 3.203125, want, 4) >= 3);
}

int main(void)
{
    if (cp_devlist_enumerate(&devs) != CP_OK) {
        fprintf(stderr, "%s\n", cp_err_msg());
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_block), cmocka_unit_test(test_relu_zero),
        cmocka_unit_test(test_two_layers_bias), cmocka_unit_test(test_batch)};
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    cp_devlist_free(&devs);
    return rc;
}
