/* runtime/train: one SGD step on tiny models whose every intermediate value is exact in
 * float, worked out by hand below, on every training engine and every OpenCL device that the
 * ICD loader offers (ctest pins PoCL and Oclgrind). It pins the formulas of clparity/train.h:
 * ReLU' is 0 at exactly 0, the residual passes the gradient, the bias gradient, the update.
 * Then the other optimizers (momentum, Nesterov, Adam, AdamW, SGD's weight decay): three steps
 * of a Linear layer with a bias against values that tests/optim_ref.py computes with exact
 * fractions rounded once per operation, on host:exact and cl:own (float) and host:f64. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "clparity/device.h"
#include "clparity/engine.h"
#include "clparity/error.h"
#include "clparity/train.h"

#include "train-impl.h" /* train_pow_n, struct cp_train_ops */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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

/* The expected parameters [W00, W01, W10, W11, b0, b1] after each of three steps, printed by
 * `/usr/bin/python3 tests/optim_ref.py` (exact fractions, each operation rounded once to
 * float32 or float64, in clparity/train.h's order). */
static const double want_adam_f32[3][6] = {
    {0.5099999904632568, -0.23999999463558197, 0.11500000208616257, 0.9900000095367432,
     0.25999999046325684, -0.5099999904632568},
    {0.5199625492095947, -0.23003745079040527, 0.10501087456941605, 0.9800108671188354,
     0.2699625492095947, -0.5199891328811646},
    {0.5298564434051514, -0.22014354169368744, 0.09504041820764542, 0.9700403809547424,
     0.27985644340515137, -0.5299596190452576},
};
static const double want_adam_f64[3][6] = {
    {0.5099999996431492, -0.2400000007568507, 0.11500000027351742, 0.9900000004235174,
     0.25999999950981595, -0.5099999996764826},
    {0.5199625502291696, -0.23003745058834976, 0.10501087057041117, 0.9800108708728942,
     0.26996254995666313, -0.5199891293287612},
    {0.5298564520112775, -0.2201435492411836, 0.09504041036304414, 0.9700404108204422,
     0.27985645159379047, -0.5299595894844898},
};
static const double want_adam_wd_f32[3][6] = {
    {0.5099999904632568, -0.23999999463558197, 0.11500000208616257, 0.9900000095367432,
     0.25999999046325684, -0.5099999904632568},
    {0.519957959651947, -0.23003403842449188, 0.1050109714269638, 0.9800093770027161,
     0.2699570953845978, -0.5199880599975586},
    {0.5298380255699158, -0.22012996673583984, 0.09504079073667526, 0.9700348377227783,
     0.27983465790748596, -0.5299555659294128},
};
static const double want_adam_wd_f64[3][6] = {
    {0.5099999996336254, -0.24000000069410563, 0.11500000027320685, 0.9900000003901841,
     0.2599999994907683, -0.5099999996712195},
    {0.5199579470340358, -0.2300340430320948, 0.10501097190199107, 0.9800093882693965,
     0.2699571098728833, -0.5199880683062007},
    {0.5298380360123528, -0.22012997441412316, 0.0950407922586717, 0.9700348306564666,
     0.27983466574237525, -0.5299555835230098},
};
static const double want_adamw_f32[3][6] = {
    {0.5099499821662903, -0.2399749904870987, 0.11498750001192093, 0.9898999929428101,
     0.25997498631477356, -0.5099499821662903},
    {0.5198616981506348, -0.22998826205730438, 0.10498687624931335, 0.9798118472099304,
     0.2699117064476013, -0.5198881030082703},
    {0.5297041535377502, -0.22007085382938385, 0.09500594437122345, 0.9697434306144714,
     0.2797791063785553, -0.5298065543174744},
};
static const double want_adamw_f64[3][6] = {
    {0.5099499996442669, -0.23997500075740952, 0.11498750027379682, 0.9899000004257527,
     0.2599749995103747, -0.5099499996776002},
    {0.5198617213149916, -0.2299882870057848, 0.1049868808748474, 0.9798118899312284,
     0.26991171854139945, -0.5198881252771231},
    {0.5297041406550833, -0.2200708831013668, 0.0950059453047119, 0.9697434720170611,
     0.27977913273626653, -0.5298065732964006},
};
static const double want_adam_b05_f32[3][6] = {
    {0.5099866986274719, -0.24005305767059326, 0.1150050014257431, 0.9900199770927429,
     0.259973406791687, -0.5099900364875793},
    {0.5198674201965332, -0.23021380603313446, 0.1050456240773201, 0.9800758361816406,
     0.269840270280838, -0.5199443697929382},
    {0.5295703411102295, -0.22055411338806152, 0.09514214843511581, 0.9701878428459167,
     0.27952873706817627, -0.5298426747322083},
};
static const double want_adam_b05_f64[3][6] = {
    {0.5099866841975526, -0.24005305062020962, 0.11500499772465508, 0.9900199603029116,
     0.2599734040323962, -0.5099900097667158},
    {0.5198674015666972, -0.2302137947633282, 0.1050456157339162, 0.9800757885857359,
     0.2698402621265502, -0.5199443164988733},
    {0.5295703043810166, -0.2205541071301432, 0.09514214110644027, 0.9701877740534722,
     0.27952871698122, -0.5298426323924882},
};
static const double want_momentum_f32[3][6] = {
    {0.5074999928474426, -0.24812500178813934, 0.10500000417232513, 0.9950000047683716,
     0.2537499964237213, -0.5099999904632568},
    {0.5213562250137329, -0.24466094374656677, 0.06805000454187393, 0.9857624769210815,
     0.26067811250686646, -0.5284749865531921},
    {0.5402056574821472, -0.2399485856294632, 0.017784884199500084, 0.9731962084770203,
     0.2701028287410736, -0.5536075234413147},
};
static const double want_momentum_f64[3][6] = {
    {0.5074999998323619, -0.24812500004190952, 0.10500000044703484, 0.9950000001117587,
     0.25374999991618097, -0.5099999997764826},
    {0.5213562495314517, -0.2446609376171371, 0.06805000124946237, 0.9857625003123656,
     0.2606781247657258, -0.5284749993752688},
    {0.5402056710176539, -0.23994858224558652, 0.01778487728625629, 0.9731962193215641,
     0.27010283550882697, -0.5536075613568718},
};
static const double want_nesterov_f32[3][6] = {
    {0.5141549706459045, -0.24638999998569489, 0.08697625249624252, 0.99031001329422,
     0.25707748532295227, -0.518904983997345},
    {0.532928466796875, -0.24159501492977142, 0.036541908979415894, 0.9774389266967773,
     0.2664642333984375, -0.5439697504043579},
    {0.5546512007713318, -0.23603540658950806, -0.021822147071361542, 0.9625148773193359,
     0.2773256003856659, -0.5729584097862244},
};
static const double want_nesterov_f64[3][6] = {
    {0.5141549996836111, -0.24639000008068979, 0.08697625084989703, 0.9903100002165883,
     0.25707749984180556, -0.5189049995774403},
    {0.532928494845641, -0.24159501482995321, 0.03654190640476639, 0.9774389178330471,
     0.2664642474228205, -0.5439697546096619},
    {0.5546512211760057, -0.23603540936517073, -0.021822147015790567, 0.9625148511155803,
     0.27732561058800287, -0.5729583954966534},
};
static const double want_sgd_wd_f32[3][6] = {
    {0.5070000290870667, -0.24787500500679016, 0.10487499833106995, 0.9940000176429749,
     0.2535000145435333, -0.5095000267028809},
    {0.5136218070983887, -0.24584494531154633, 0.0858251228928566, 0.9882697463035583,
     0.25681090354919434, -0.5184630155563354},
    {0.5198855400085449, -0.24390475451946259, 0.0677928552031517, 0.9827948808670044,
     0.25994277000427246, -0.5269177556037903},
};
static const double want_sgd_wd_f64[3][6] = {
    {0.5069999998435378, -0.24787500004749746, 0.1048750004498288, 0.9940000001341105,
     0.2534999999217689, -0.5094999997876585},
    {0.5136217497039848, -0.24584493759075088, 0.08582512585159577, 0.9882697502561621,
     0.2568108748519924, -0.5184629995993227},
    {0.5198854897049836, -0.24390475222384958, 0.06779285858415776, 0.9827948699921194,
     0.2599427448524918, -0.5269177576830644},
};

/* One Linear 2 -> 2 with a bias, no activation, no residual (tests/optim_ref.py's model). */
static cp_model linear_2x2(cp_layer *ly, float *p)
{
    static const float init[6] = {0.5f, -0.25f, 0.125f, 1.0f, 0.25f, -0.5f};
    memcpy(p, init, sizeof init);
    *ly =
        (cp_layer){.in = 2, .out = 2, .w_off = 0, .has_bias = true, .b_off = 4, .act = CP_ACT_NONE};
    return (cp_model){.n_layers = 1,
                      .layers = ly,
                      .params = p,
                      .n_params = 6,
                      .in_width = 2,
                      .out_width = 2,
                      .max_width = 2};
}

/* Three steps of o on engine/dev, each step's parameters against want (want32 for the float
 * engines, want64 for host:f64), exactly. Returns 1 when it ran. */
static int check_optim(const char *engine, const cp_device *dev, const cp_optim *o,
                       const double want32[3][6], const double want64[3][6])
{
    cp_layer ly;
    float p[6];
    cp_model m = linear_2x2(&ly, p);
    const float x[2] = {2.0f, 0.5f}, t[2] = {1.5f, -0.75f};
    cp_trainer *tr = NULL;
    if (cp_trainer_create_optim(engine, dev, &m, 1, x, t, o, &tr) != CP_OK) {
        print_error("%s on %s: %s\n", engine, dev->name, cp_err_msg());
        fail();
    }
    bool f64 = cp_trainer_dtype(tr) == CP_F64;
    for (int step = 0; step < 3; ++step) {
        double loss, w64[6];
        float w32[6];
        assert_int_equal(cp_trainer_step(tr, &loss), CP_OK);
        assert_int_equal(cp_trainer_weights(tr, f64 ? (void *)w64 : (void *)w32), CP_OK);
        for (int i = 0; i < 6; ++i) {
            double got = f64 ? w64[i] : (double)w32[i];
            double want = f64 ? want64[step][i] : want32[step][i];
            if (memcmp(&got, &want, sizeof got) != 0) {
                print_error("%s %s on %s, step %d: param %d is %a, want %a\n",
                            cp_optim_name(o->kind), engine, dev->name, step + 1, i, got, want);
                fail();
            }
        }
    }
    cp_trainer_destroy(tr);
    return 1;
}

/* host:exact and host:f64 on host, cl:own on every OpenCL device; returns how many ran. */
static int check_optim_all(const cp_optim *o, const double want32[3][6], const double want64[3][6])
{
    static const char *const exact[] = {"host:exact", "host:f64", "cl:own"};
    int ran = 0;
    for (size_t e = 0; e < 3; ++e)
        for (size_t i = 0; i < devs.n; ++i)
            if ((strncmp(exact[e], "host:", 5) == 0) == (devs.v[i].kind == CP_DEV_HOST))
                ran += check_optim(exact[e], &devs.v[i], o, want32, want64);
    return ran;
}

static cp_optim optim(enum cp_optim_kind kind)
{
    cp_optim o;
    cp_optim_default(kind, 0.01, &o);
    return o;
}

/* Adam with PyTorch's defaults (betas 0.9, 0.999, eps 1e-8, no weight decay). */
static void test_adam(void **state)
{
    (void)state;
    cp_optim o = optim(CP_OPTIM_ADAM);
    assert_true(check_optim_all(&o, want_adam_f32, want_adam_f64) >= 2);
}

/* Adam's L2 weight decay (added to the gradient), and betas 0.5, 0.75 with eps 1e-3: lerp's
 * other branch (weight 1 − 0.5 is not below 0.5) and an eps that shows in the denominator. */
static void test_adam_wd_betas(void **state)
{
    (void)state;
    cp_optim o = optim(CP_OPTIM_ADAM);
    o.weight_decay = 0.1;
    assert_true(check_optim_all(&o, want_adam_wd_f32, want_adam_wd_f64) >= 2);
    o = optim(CP_OPTIM_ADAM);
    o.beta1 = 0.5;
    o.beta2 = 0.75;
    o.eps = 1e-3;
    assert_true(check_optim_all(&o, want_adam_b05_f32, want_adam_b05_f64) >= 2);
}

/* AdamW with its default decoupled weight decay 1e-2. */
static void test_adamw(void **state)
{
    (void)state;
    cp_optim o = optim(CP_OPTIM_ADAMW);
    assert_true(o.weight_decay == 1e-2);
    assert_true(check_optim_all(&o, want_adamw_f32, want_adamw_f64) >= 2);
}

/* Momentum 0.9 (the buffer is the gradient at step 1), and Nesterov with weight decay; SGD's
 * weight decay. */
static void test_momentum_nesterov_sgd_wd(void **state)
{
    (void)state;
    cp_optim o = optim(CP_OPTIM_MOMENTUM);
    assert_true(o.momentum == 0.9);
    assert_true(check_optim_all(&o, want_momentum_f32, want_momentum_f64) >= 2);
    o.nesterov = true;
    o.weight_decay = 0.01;
    assert_true(check_optim_all(&o, want_nesterov_f32, want_nesterov_f64) >= 2);
    o = optim(CP_OPTIM_SGD);
    o.weight_decay = 0.1;
    assert_true(check_optim_all(&o, want_sgd_wd_f32, want_sgd_wd_f64) >= 2);
}

/* beta^t without libm: the correctly rounded power, here against Python's exact fractions,
 * `float(Fraction(b) ** n)` (glibc's pow agrees on each). */
static void test_pow(void **state)
{
    (void)state;
    static const struct {
        double b;
        long n;
        double want;
    } v[] = {{0.9, 0, 1.0},
             {0.9, 1, 0.9},
             {0.9, 7, 0.4782969000000001},
             {0.9, 100, 2.6561398887587544e-05},
             {0.999, 3, 0.997002999},
             {0.999, 100, 0.9047921471137089},
             {0.999, 12345, 4.324661796025634e-06},
             {0.75, 1000, 1.151498540124827e-125},
             {0.999999, 1000000, 0.36787925722106646}};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; ++i) {
        double got = train_pow_n(v[i].b, v[i].n);
        if (got != v[i].want) {
            print_error("%g^%ld = %.17g, want %.17g\n", v[i].b, v[i].n, got, v[i].want);
            fail();
        }
    }
}

/* The checks of PyTorch's constructors, and ours. */
static void test_optim_check(void **state)
{
    (void)state;
    cp_optim o = optim(CP_OPTIM_ADAM);
    assert_int_equal(cp_optim_check(&o), CP_OK);
    o.beta2 = 1.0;
    assert_int_equal(cp_optim_check(&o), CP_FAIL_USAGE);
    o = optim(CP_OPTIM_ADAM);
    o.eps = 0.0;
    assert_int_equal(cp_optim_check(&o), CP_FAIL_USAGE);
    o = optim(CP_OPTIM_ADAMW);
    o.weight_decay = -1e-3;
    assert_int_equal(cp_optim_check(&o), CP_FAIL_USAGE);
    o = optim(CP_OPTIM_MOMENTUM);
    o.momentum = 0.0;
    assert_int_equal(cp_optim_check(&o), CP_FAIL_USAGE);
    o = optim(CP_OPTIM_SGD);
    o.nesterov = true;
    assert_int_equal(cp_optim_check(&o), CP_FAIL_USAGE);
    cp_layer ly;
    float p[6];
    cp_model m = linear_2x2(&ly, p);
    const float x[2] = {1.0f, 2.0f};
    cp_trainer *tr = NULL;
    assert_int_equal(
        cp_trainer_create_optim("host:exact", &devs.v[devs.n - 1], &m, 1, x, x, &o, &tr),
        CP_FAIL_USAGE);
    assert_null(tr);
}

/* The model of run_poked and test_weights_view: d=40 L=3, a batch of B40 rows of inputs x and
 * targets t. */
enum { B40 = 24 };
static void model_40(cp_model *m, float *x, float *t)
{
    assert_int_equal(cp_model_builtin(m, 40, 3, 7, 1.0f), CP_OK);
    for (int i = 0; i < B40 * 40; ++i) {
        x[i] = (float)((i * 37) % 23 - 11) / 8.0f;
        t[i] = (float)((i * 11) % 7 - 3) / 4.0f;
    }
}

/* A run of steps with a weight poked one ULP and a round trip between them, on the threaded
 * host trainers (hostblas/train_par.c: each step writes the next step's panels of W, so a
 * weight changed outside a step must be packed again) against the scalar loops
 * (CLPARITY_HOST_EXACT=scalar): the weights and the optimizer's state must be the same bits. */
static void run_poked(const char *engine, const cp_optim *o, const char *mode, void *w, void *st)
{
    cp_model m;
    float x[B40 * 40], t[B40 * 40];
    model_40(&m, x, t);
    if (mode)
        setenv("CLPARITY_HOST_EXACT", mode, 1);
    cp_trainer *tr = NULL;
    int st0 = cp_trainer_create_optim(engine, &devs.v[devs.n - 1], &m, B40, x, t, o, &tr);
    unsetenv("CLPARITY_HOST_EXACT");
    assert_int_equal(st0, CP_OK);
    double loss, y[B40 * 40];
    int ok;
    for (int s = 1; s <= 6; ++s) {
        assert_int_equal(cp_trainer_step(tr, &loss), CP_OK);
        if (s == 2)
            assert_int_equal(cp_trainer_poke_ulp(tr, (size_t)(40 * 17 + 5)), CP_OK);
        if (s == 4) {
            assert_int_equal(cp_trainer_roundtrip(tr, y, &ok), CP_OK);
            assert_true(ok);
        }
    }
    assert_int_equal(cp_trainer_weights(tr, w), CP_OK);
    if (cp_trainer_state_count(tr) > 0)
        assert_int_equal(cp_trainer_state(tr, 0, st), CP_OK);
    cp_trainer_destroy(tr);
    cp_model_free(&m);
}

/* cp_trainer_weights_view, which train reads every step's weights through (the host trainers'
 * own memory, cl:own's pinned copy read again at each call): cl:own's weights are host:exact's
 * at each of three Adam steps, as seen through both views, and a weight poked on the device
 * shows in the next view (one weight differs, by one ULP), on every OpenCL device. */
static void test_weights_view(void **state)
{
    (void)state;
    cp_model m;
    float x[B40 * 40], t[B40 * 40];
    model_40(&m, x, t);
    cp_optim o;
    cp_optim_default(CP_OPTIM_ADAM, 1e-2, &o);
    int ran = 0;
    for (size_t i = 0; i < devs.n; ++i) {
        if (devs.v[i].kind == CP_DEV_HOST)
            continue;
        cp_trainer *th = NULL, *tc = NULL;
        assert_int_equal(
            cp_trainer_create_optim("host:exact", &devs.v[devs.n - 1], &m, B40, x, t, &o, &th),
            CP_OK);
        if (cp_trainer_create_optim("cl:own", &devs.v[i], &m, B40, x, t, &o, &tc) != CP_OK) {
            print_error("cl:own on %s: %s\n", devs.v[i].name, cp_err_msg());
            fail();
        }
        const void *vh, *vc, *v0;
        double loss;
        float before[40 * 40 * 3];
        assert_true(m.n_params <= sizeof before / sizeof *before);
        assert_int_equal(cp_trainer_weights_view(th, &v0), CP_OK);
        memcpy(before, v0, m.n_params * sizeof(float));
        for (int s = 1; s <= 3; ++s) {
            assert_int_equal(cp_trainer_step(th, &loss), CP_OK);
            assert_int_equal(cp_trainer_step(tc, &loss), CP_OK);
            assert_int_equal(cp_trainer_weights_view(th, &vh), CP_OK);
            assert_int_equal(cp_trainer_weights_view(tc, &vc), CP_OK);
            assert_true(memcmp(vh, before, m.n_params * sizeof(float)) != 0); /* it moved */
            if (memcmp(vh, vc, m.n_params * sizeof(float)) != 0) {
                print_error("cl:own on %s: step %d's weights (view) are not host:exact's\n",
                            devs.v[i].name, s);
                fail();
            }
            memcpy(before, vh, m.n_params * sizeof(float));
        }
        assert_int_equal(cp_trainer_poke_ulp(tc, 17), CP_OK);
        assert_int_equal(cp_trainer_weights_view(tc, &vc), CP_OK);
        size_t differ = 0;
        for (size_t k = 0; k < m.n_params; ++k)
            differ += memcmp((const float *)vc + k, before + k, sizeof(float)) != 0;
        assert_int_equal(differ, 1);
        assert_float_equal(((const float *)vc)[17], nextafterf(before[17], INFINITY), 0.0f);
        cp_trainer_destroy(th);
        cp_trainer_destroy(tc);
        ++ran;
    }
    cp_model_free(&m);
    if (ran == 0)
        print_message("no OpenCL device: cl:own's view not run\n");
}

static void test_host_poked(void **state)
{
    (void)state;
    static const enum cp_optim_kind kinds[] = {CP_OPTIM_SGD, CP_OPTIM_ADAM};
    static const char *const host[] = {"host:exact", "host:f64"};
    enum { N = 3 * 40 * 40 };
    static double w[2][N], st[2][N];
    for (int e = 0; e < 2; ++e)
        for (int k = 0; k < 2; ++k) {
            cp_optim o = optim(kinds[k]);
            memset(w, 0, sizeof w);
            memset(st, 0, sizeof st);
            run_poked(host[e], &o, "scalar", w[0], st[0]);
            run_poked(host[e], &o, NULL, w[1], st[1]);
            if (memcmp(w[0], w[1], sizeof w[0]) != 0 || memcmp(st[0], st[1], sizeof st[0]) != 0) {
                print_error("%s, %s: the threaded step's weights after a poke and a round trip "
                            "differ from the scalar loops'\n",
                            host[e], k ? "adam" : "sgd");
                fail();
            }
        }
}

/* The training traits of the registry's engines (cp_engine_info's .train), which train's
 * report, checks and defaults read instead of engine names: the roles, the twins, the
 * defaults, the correctly rounded and the fast-math ones; the dtype of the weights. */
static void test_traits(void **state)
{
    (void)state;
    static const struct {
        const char *engine;
        enum cp_train_role role, twin;
        bool by_default, cr, drifts;
        enum cp_dtype dtype;
    } want[] = {
        {"cl:own", CP_TRAIN_PLAIN, CP_TRAIN_BASELINE, true, false, false, CP_F32},
        {"cl:clblast", CP_TRAIN_PLAIN, CP_TRAIN_PLAIN, false, false, false, CP_F32},
        {"cl:relaxed", CP_TRAIN_PLAIN, CP_TRAIN_PLAIN, false, false, true, CP_F32},
        {"cl:cr", CP_TRAIN_PLAIN, CP_TRAIN_CR_BASE, false, true, false, CP_F32},
        {"host:exact", CP_TRAIN_BASELINE, CP_TRAIN_PLAIN, true, false, false, CP_F32},
        {"host:f64", CP_TRAIN_REFERENCE, CP_TRAIN_PLAIN, true, false, false, CP_F64},
        {"host:openblas", CP_TRAIN_PLAIN, CP_TRAIN_PLAIN, false, false, false, CP_F32},
        {"host:cr", CP_TRAIN_CR_BASE, CP_TRAIN_PLAIN, false, true, false, CP_F32},
    };
    size_t trainable = 0;
    for (size_t i = 0; i < cp_engine_count(); ++i) {
        const cp_engine_info *e = cp_engine_at(i);
        assert_int_equal(cp_train_engine_supported(e->name), e->train != NULL);
        trainable += e->train != NULL;
    }
    assert_int_equal(trainable, sizeof want / sizeof *want);
    assert_null(cp_train_traits_of(NULL));
    for (size_t i = 0; i < sizeof want / sizeof *want; ++i) {
        const cp_engine_info *e = cp_engine_find(want[i].engine);
        assert_non_null(e);
        const cp_train_traits *t = cp_train_traits_of(e->train);
        assert_non_null(t);
        if (t->role != want[i].role || t->twin != want[i].twin ||
            t->by_default != want[i].by_default || t->cr != want[i].cr ||
            t->drifts != want[i].drifts || e->train->dtype != want[i].dtype) {
            print_error("%s: role %d twin %d by_default %d cr %d drifts %d dtype %d, want %d %d "
                        "%d %d %d %d\n",
                        want[i].engine, t->role, t->twin, t->by_default, t->cr, t->drifts,
                        e->train->dtype, want[i].role, want[i].twin, want[i].by_default, want[i].cr,
                        want[i].drifts, want[i].dtype);
            fail();
        }
    }
}

int main(void)
{
    if (cp_devlist_enumerate(&devs) != CP_OK) {
        fprintf(stderr, "%s\n", cp_err_msg());
        return 1;
    }
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_block),
                                       cmocka_unit_test(test_relu_zero),
                                       cmocka_unit_test(test_two_layers_bias),
                                       cmocka_unit_test(test_batch),
                                       cmocka_unit_test(test_adam),
                                       cmocka_unit_test(test_adam_wd_betas),
                                       cmocka_unit_test(test_adamw),
                                       cmocka_unit_test(test_momentum_nesterov_sgd_wd),
                                       cmocka_unit_test(test_pow),
                                       cmocka_unit_test(test_optim_check),
                                       cmocka_unit_test(test_host_poked),
                                       cmocka_unit_test(test_weights_view),
                                       cmocka_unit_test(test_traits)};
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    cp_devlist_free(&devs);
    return rc;
}
