/* The probe of cl:cr's kernel variants (own-impl.h, cp_cr_probe): before cl:cr takes a variant
 * on a device, that variant runs two small models there and must give host:cr's bits. cl:cr's
 * promise leans on more than OpenCL's float arithmetic: on the device's double fma and sqrt, on
 * 64-bit integer arithmetic, on local memory and barriers. conda-forge's PoCL 3.0 broke it
 * (issue 32: max ULP 3.1e9 with exit 0): a device that breaks any of it is caught here, and
 * the variant is rejected with the first output that differs.
 *
 * The cases are those of tests/check_cr.py, in a model small enough to run in a few
 * milliseconds: odd widths (67, 131, 45, none a multiple of a work-group, a panel, a tile or a
 * row block; 13, 17, 5 on a simulator), 9 rows, and in the first layer special weights and input
 * rows, so that every output class the contract names is produced and compared: row 0, 8  plain
 * normal inputs (row 0, output 0 of the last layer carries test hook corrupt-cl-cr's planted bit)
 *   row 1     an input +inf (outputs ±inf, and inf · 0 = NaN where a weight is 0)
 *   row 2     an input NaN
 *   row 3     subnormal inputs (products below 2^-149: the accumulator's low digits)
 *   row 4     1 + 1e-8 - 1 (output 0: 1e-8, not 0), ties to even (1 + 2^-24 -> 1, output 1;
 *             -1 - 2^-24 -> -1, output 3) and a tie broken by a far bit (1 + 2^-24 + 2^-60,
 *             output 2)
 *   row 5     every input -0 (output 5, all weights positive: -0; the others +0)
 *   row 6     pairs of equal inputs against weights of opposite signs: output 4 cancels to
 *             exactly 0 (the certificate must fail, the exact accumulator decide)
 *   row 7     inputs near 1e37: output 6 (all weights 1) overflows to +inf
 * Model A is that layer alone (its outputs seen directly); model B feeds it into three more
 * layers with a bias, ReLU and the residual (the specials then flow through every epilogue and
 * the later layers' sums). */
#include "own-impl.h"

#include "clparity/gen.h"
#include "hostblas/cr.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bumped when the probe's models or checks change: older verdicts are then not read. */
#define CR_PROBE_VERSION "cr-probe 2"
#define CR_PROBE_SEED UINT64_C(0x637270726f6265) /* "crprobe" */
#define CR_PROBE_ROWS 9

/* The widths: 67, 131, 45; on a simulator (Oclgrind interprets, and the exact accumulator's
 * outputs cost it thousands of operations each: the full probe took 222 s there with its checks
 * on) 13, 17, 5, the same cases at 1/40 of the work. */
struct cr_widths {
    int in, mid, last;
};
static struct cr_widths cr_probe_widths(const cp_device *dev)
{
    return dev->simulator ? (struct cr_widths){13, 17, 5} : (struct cr_widths){67, 131, 45};
}

/* The first layer's weights [mid][in] (mid >= 8, in >= 12): special rows 0..7 (above), the
 * others random. */
static void special_weights(float *w, int in, int mid)
{
    float bound = cp_gen_linear_bound(in);
    for (size_t i = 0; i < (size_t)mid * (size_t)in; ++i)
        w[i] = cp_gen_weight(CR_PROBE_SEED, CP_TENSOR_WEIGHT(0), i, bound, 1.0f);
    memset(w, 0, 4 * (size_t)in * sizeof *w); /* outputs 0-3: only their special terms */
    w[0 * in + 0] = w[0 * in + 1] = w[0 * in + 2] = 1.0f;
    w[1 * in + 3] = w[1 * in + 4] = 1.0f;
    w[2 * in + 5] = w[2 * in + 6] = w[2 * in + 7] = 1.0f;
    w[3 * in + 8] = w[3 * in + 9] = 1.0f;
    float *w4 = w + 4 * in, *w5 = w + 5 * in, *w6 = w + 6 * in, *w7 = w + 7 * in;
    for (int k = 0; k + 1 < in; k += 2)
        w4[k + 1] = -w4[k];
    w4[in - 1] = 0.0f;
    for (int k = 0; k < in; ++k) {
        w5[k] = fabsf(w5[k]) + 0x1p-10f; /* every weight positive */
        w6[k] = 1.0f;
    }
    for (int k = 0; k < in; k += 3)
        w7[k] *= 0x1p-140f; /* subnormal weights among normal ones */
}

/* The input [9][in], rows as in the first comment. */
static void special_input(float *x, int in)
{
    for (size_t i = 0; i < (size_t)CR_PROBE_ROWS * (size_t)in; ++i)
        x[i] = cp_gen_normal(CR_PROBE_SEED, 0, i);
    float *r;
    x[1 * in + 10] = INFINITY;
    x[2 * in + 11] = NAN;
    r = x + 3 * in;
    for (int k = 0; k < in; ++k)
        r[k] *= 0x1p-130f;
    r = x + 4 * in;
    static const float row4[10] = {1.0f, 1e-8f,    -1.0f,    1.0f,  0x1p-24f,
                                   1.0f, 0x1p-24f, 0x1p-60f, -1.0f, -0x1p-24f};
    memcpy(r, row4, sizeof row4);
    r = x + 5 * in;
    for (int k = 0; k < in; ++k)
        r[k] = -0.0f;
    r = x + 6 * in;
    for (int k = 0; k + 1 < in; k += 2)
        r[k + 1] = r[k];
    r = x + 7 * in;
    for (int k = 0; k < in; ++k)
        r[k] = 1e37f * (1.0f + fabsf(r[k]));
}

/* Model A (n_layers 1) or B (4): the special layer, then 131 -> 131 with a bias, ReLU and the
 * residual, 131 -> 45 with a bias and no activation, 45 -> 45 with ReLU and the residual. */
static int cr_probe_model(struct cr_widths wd, int n_layers, cp_model *m)
{
    const struct {
        int in, out;
        bool bias;
        int act;
        bool residual;
    } layers[] = {{wd.in, wd.mid, false, CP_ACT_NONE, false},
                  {wd.mid, wd.mid, true, CP_ACT_RELU, true},
                  {wd.mid, wd.last, true, CP_ACT_NONE, false},
                  {wd.last, wd.last, false, CP_ACT_RELU, true}};
    memset(m, 0, sizeof *m);
    int st = CP_OK;
    for (int l = 0; l < n_layers && st == CP_OK; ++l) {
        size_t nw = (size_t)layers[l].in * (size_t)layers[l].out;
        float *w = malloc(nw * sizeof *w), *b = malloc((size_t)layers[l].out * sizeof *b);
        if (!w || !b) {
            st = cp_err_set(CP_FAIL_RUNTIME, "out of memory for cl:cr's probe model");
        } else {
            float bound = cp_gen_linear_bound(layers[l].in);
            if (l == 0)
                special_weights(w, wd.in, wd.mid);
            else
                for (size_t i = 0; i < nw; ++i)
                    w[i] = cp_gen_weight(CR_PROBE_SEED, CP_TENSOR_WEIGHT(l), i, bound, 1.0f);
            for (int o = 0; o < layers[l].out; ++o)
                b[o] = cp_gen_weight(CR_PROBE_SEED, CP_TENSOR_BIAS(l), (uint64_t)o, bound, 1.0f);
            st = cp_model_add_layer(m, layers[l].in, layers[l].out, w, layers[l].bias ? b : NULL,
                                    layers[l].act, layers[l].residual);
        }
        free(w);
        free(b);
    }
    if (st != CP_OK)
        cp_model_free(m);
    return st;
}

/* host:cr's bits for the rows of x through m (cr_layer_row: the scalar form, the contract);
 * *y malloc'd [rows][out_width]. */
static int cr_probe_reference(const cp_model *m, const float *x, int rows, float **y)
{
    size_t n = (size_t)rows * (size_t)m->max_width;
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    *y = NULL;
    if (!a || !b) {
        free(a);
        free(b);
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory for cl:cr's probe");
    }
    memcpy(a, x, (size_t)rows * (size_t)m->in_width * sizeof *a);
    for (int l = 0; l < m->n_layers; ++l) {
        const cp_layer *L = &m->layers[l];
        for (int r = 0; r < rows; ++r)
            cr_layer_row(a + (size_t)r * (size_t)L->in, m->params + L->w_off,
                         L->has_bias ? m->params + L->b_off : NULL, L->in, L->out, L->act,
                         L->residual, b + (size_t)r * (size_t)L->out);
        float *t = a;
        a = b;
        b = t;
    }
    free(b);
    *y = a;
    return CP_OK;
}

static bool same_bits(float a, float b)
{
    return memcmp(&a, &b, sizeof a) == 0 || (isnan(a) && isnan(b)); /* a NaN's payload is not
                                                                     * the contract's */
}

struct cr_probe_run_ctx {
    cp_cr_probe_make make;
    const void *make_ctx;
};

/* One model (A or B) through the variant: CP_OK with *v set (PASS, FAIL or NA) and why. */
static int cr_probe_one(const cp_device *dev, const struct cr_probe_run_ctx *c, int n_layers,
                        const float *x, enum cp_probe_verdict *v, char *why, size_t why_len)
{
    cp_model m;
    struct cr_widths wd = cr_probe_widths(dev);
    int st = cr_probe_model(wd, n_layers, &m);
    if (st != CP_OK)
        return st;
    float *ref = NULL, *y = malloc((size_t)CR_PROBE_ROWS * (size_t)m.out_width * sizeof *y);
    if (!y)
        st = cp_err_set(CP_FAIL_RUNTIME, "out of memory for cl:cr's probe");
    if (st == CP_OK)
        st = cr_probe_reference(&m, x, CR_PROBE_ROWS, &ref);
    cp_engine *e = NULL;
    int rc = st == CP_OK ? c->make(dev, c->make_ctx, &m, CR_PROBE_ROWS, &e) : st;
    cp_timing t;
    if (st != CP_OK) {
        /* out of memory: the run's error */
    } else if (rc == CP_FAIL_USAGE) {
        *v = CP_PROBE_NA;
        snprintf(why, why_len, "%s", cp_err_msg());
    } else if (rc != CP_OK) {
        st = rc; /* a build that fails: the run's error, with the compiler's log */
    } else if ((rc = cp_engine_forward(e, x, CR_PROBE_ROWS, y, &t)) != CP_OK) {
        *v = CP_PROBE_NA;
        snprintf(why, why_len, "the device refuses its launch: %s", cp_err_msg());
    } else {
        size_t n = (size_t)CR_PROBE_ROWS * (size_t)m.out_width, bad = 0, first = 0;
        for (size_t i = 0; i < n; ++i)
            if (!same_bits(y[i], ref[i]) && bad++ == 0)
                first = i;
        *v = bad ? CP_PROBE_FAIL : CP_PROBE_PASS;
        size_t ow = (size_t)m.out_width;
        char widths[64];
        int at = snprintf(widths, sizeof widths, "%d-%d", wd.in, wd.mid);
        if (n_layers > 1 && at > 0)
            snprintf(widths + at, sizeof widths - (size_t)at, "-%d-%d-%d", wd.mid, wd.last,
                     wd.last);
        if (bad)
            snprintf(why, why_len,
                     "probe (%s, widths %s, batch %d): %zu of %zu outputs differ from host:cr's "
                     "bits, first row %zu output %zu: %a (%.9g) against %a (%.9g)",
                     n_layers == 1 ? "special values" : "special values through 4 layers", widths,
                     CR_PROBE_ROWS, bad, n, first / ow, first % ow, (double)y[first],
                     (double)y[first], (double)ref[first], (double)ref[first]);
        else
            snprintf(why, why_len, "probe passed");
    }
    cp_engine_destroy(e);
    free(y);
    free(ref);
    cp_model_free(&m);
    return st;
}

static int cr_probe_run(const cp_device *dev, void *ctx, struct cp_probe_class cls,
                        enum cp_probe_verdict *v, char *why, size_t why_len)
{
    (void)cls; /* cl:cr's kernels do not change with the model's class: the key names the
                * variant's build options instead */
    int in = cr_probe_widths(dev).in;
    float *x = malloc((size_t)CR_PROBE_ROWS * (size_t)in * sizeof *x);
    if (!x)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory for cl:cr's probe");
    special_input(x, in);
    *v = CP_PROBE_FAIL;
    int st = cr_probe_one(dev, ctx, 1, x, v, why, why_len);
    if (st == CP_OK && *v == CP_PROBE_PASS)
        st = cr_probe_one(dev, ctx, 4, x, v, why, why_len);
    free(x);
    return st;
}

int cp_cr_probe(const cp_device *dev, int id, const char *name, const char *key,
                cp_cr_probe_make make, const void *make_ctx, enum cp_probe_verdict *v, char *why,
                size_t why_len)
{
    const struct cp_probe_class none = {false, false, false, -1};
    struct cr_probe_run_ctx c = {make, make_ctx};
    char full[CP_PROBE_KEY_EXTRA];
    snprintf(full, sizeof full, "%s %s", CR_PROBE_VERSION, key);
    return cp_probe_cached_ex(dev, id, name, full, none, cr_probe_run, &c, v, why, why_len);
}
