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
#include "clparity/error.h"
#include "clparity/train.h"

#include "train-impl.h" /* train_pow_n */

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

/* The expected parameters [W00, W01, W10, W11, b0, b1] after each of three steps, printed by
 * `/usr/bin/python3 tests/optim_ref.py` (exact fractions, each operation rounded once to
 * float32 or float64, in clparity/train.h's order). */
static const double want_adam_f32[3][6] = {
    {0.5099999904632568, -0.23999999463558197, 0.11500000208616257, 0.9900000095367432,
     0.25999999046325684, -0.5099999904632568},
    {0.5199172496795654, -0.23008275032043457, 0.10500429570674896, 0.9800043106079102,
     0.26991721987724304, -0.5199956893920898},
    {0.5296694040298462, -0.2203305959701538, 0.09501583874225616, 0.970015823841095,
     0.2796693742275238, -0.529984176158905},
};
static const double want_adam_f64[3][6] = {
    {0.5099999993764827, -0.2400000004235174, 0.11500000026161265, 0.9900000002425651,
     0.2599999993764826, -0.5099999997383874},
    {0.5199172382508132, -0.23008276133439595, 0.10500429753849547, 0.9800042975002627,
     0.26991723825081315, -0.5199957024615046},
    {0.5296693926448803, -0.22033060671095975, 0.09501583803228947, 0.9700158379747381,
     0.27966939264488033, -0.5299841619677106},
};
static const double want_adam_wd_f32[3][6] = {
    {0.5099999904632568, -0.23999999463558197, 0.11500000208616257, 0.9900000095367432,
     0.25999999046325684, -0.5099999904632568},
    {0.51987624168396, -0.23007817566394806, 0.10500439256429672, 0.9800042510032654,
     0.26989811658859253, -0.5199955105781555},
    {0.5294896960258484, -0.22031083703041077, 0.09501618891954422, 0.9700157046318054,
     0.2795868515968323, -0.529983401298523},
};
static const double want_adam_wd_f64[3][6] = {
    {0.5099999992764827, -0.2400000004139936, 0.1150000002614321, 0.990000000242209,
     0.25999999933203816, -0.5099999997376476},
    {0.5198762511337867, -0.23007818685444728, 0.10500439086635287, 0.9800042677855002,
     0.26989812366555505, -0.5199954940315444},
    {0.5294896818448795, -0.22031085044450432, 0.09501618405320977, 0.970015727775018,
     0.2795868568482755, -0.5299833890339979},
};
static const double want_adamw_f32[3][6] = {
    {0.5099499821662903, -0.2399749904870987, 0.11498750001192093, 0.9898999929428101,
     0.25997498631477356, -0.5099499821662903},
    {0.5198162794113159, -0.23003366589546204, 0.10498031228780746, 0.9798052906990051,
     0.26986631751060486, -0.5198946595191956},
    {0.5295167565345764, -0.2202582210302353, 0.09498140215873718, 0.969718873500824,
     0.27959176898002625, -0.5298311114311218},
};
static const double want_adamw_f64[3][6] = {
    {0.5099499993776002, -0.2399750004240762, 0.11498750026189206, 0.9899000002448003,
     0.25997499937704144, -0.5099499997395049},
    {0.5198163244824622, -0.23003368260612825, 0.1049803175906344, 0.9798053263063142,
     0.2698663219813447, -0.5198946886621594},
    {0.5295167834562794, -0.2202582384039269, 0.09498141032401697, 0.9697189365214609,
     0.2795917759548533, -0.5298311084295483},
};
static const double want_adam_b05_f32[3][6] = {
    {0.5099601745605469, -0.24001996219158173, 0.1150038093328476, 0.990001916885376,
     0.2599601745605469, -0.5099961757659912},
    {0.5197133421897888, -0.230245441198349, 0.10502257198095322, 0.9800187349319458,
     0.2697133719921112, -0.5199773907661438},
    {0.5290897488594055, -0.2208462357521057, 0.09506431221961975, 0.9700585603713989,
     0.2790898084640503, -0.5299356579780579},
};
static const double want_adam_b05_f64[3][6] = {
    {0.5099601591399229, -0.2400199603029116, 0.1150038082965473, 0.9900019046226369,
     0.2599601591399229, -0.5099961917034527},
    {0.5197133466380023, -0.23024543726730923, 0.1050225686468107, 0.9800187475131117,
     0.2697133466380023, -0.5199774313531893},
    {0.5290897789542865, -0.2208462320107868, 0.09506430514009817, 0.970058552740544,
     0.27908977895428655, -0.5299356948599018},
};
static const double want_momentum_f32[3][6] = {
    {0.5024999976158142, -0.24500000476837158, 0.09875000268220901, 0.9474999904632568,
     0.2524999976158142, -0.5262500047683716},
    {0.507099986076355, -0.23579999804496765, 0.050450004637241364, 0.8508999943733215,
     0.257099986076355, -0.5745500326156616},
    {0.5133140087127686, -0.22337199747562408, -0.014796990901231766, 0.7204059958457947,
     0.26331397891044617, -0.639797031879425},
};
static const double want_momentum_f64[3][6] = {
    {0.5024999999441206, -0.2450000001117587, 0.09875000058673322, 0.9475000011734664,
     0.25249999994412065, -0.5262499994132668},
    {0.5070999998446554, -0.2358000003106892, 0.05045000163111835, 0.8509000032622367,
     0.25709999984465537, -0.5745499983688817},
    {0.5133139997180998, -0.22337200056380033, -0.014796997040048257, 0.7204060059199034,
     0.2633139997180998, -0.6397969970400482},
};
static const double want_nesterov_f32[3][6] = {
    {0.5046550035476685, -0.24045249819755554, 0.07510125637054443, 0.9000599980354309,
     0.25470250844955444, -0.549780011177063},
    {0.5107530355453491, -0.22791776061058044, 0.009630977176129818, 0.7689161896705627,
     0.26086828112602234, -0.6150809526443481},
    {0.5176957845687866, -0.21360254287719727, -0.0650736391544342, 0.6192491054534912,
     0.26789695024490356, -0.6895706653594971},
};
static const double want_nesterov_f64[3][6] = {
    {0.5046549998959526, -0.24045250021340325, 0.07510125111532397, 0.9000600022338331,
     0.2547024998948909, -0.5497799988873303},
    {0.5107530178217544, -0.2279177594943694, 0.00963097446376927, 0.7689162260102654,
     0.26086825879417874, -0.6150809231051698},
    {0.5176957528984291, -0.213602543067049, -0.06507364119637919, 0.6192491469255859,
     0.26789694312564766, -0.6895706656283328},
};
static const double want_sgd_wd_f32[3][6] = {
    {0.5019999742507935, -0.2447499930858612, 0.09862499684095383, 0.9465000033378601,
     0.25224998593330383, -0.5257499814033508},
    {0.5038504600524902, -0.23980024456977844, 0.07386762648820877, 0.896236002445221,
     0.2543502449989319, -0.5498830080032349},
    {0.5055606365203857, -0.23513245582580566, 0.05062919110059738, 0.8490106463432312,
     0.2563098967075348, -0.5724976658821106},
};
static const double want_sgd_wd_f64[3][6] = {
    {0.5019999999552965, -0.24475000011734666, 0.09862500058952718, 0.9465000011958182,
     0.2522499999497086, -0.5257499994244427},
    {0.5038504999172763, -0.23980025022127108, 0.0738676261067409, 0.896236002246976,
     0.2543502499061115, -0.5498829989211709},
    {0.5055606468853258, -0.23513245506300007, 0.05062919268325842, 0.8490106346667078,
     0.2563098971185954, -0.5724976817335674},
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
    const float x[2] = {1.0f, 2.0f}, t[2] = {0.5f, -1.0f};
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
                                       cmocka_unit_test(test_optim_check)};
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    cp_devlist_free(&devs);
    return rc;
}
