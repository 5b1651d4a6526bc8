/* cl:own's training probes: fma's signed zeros (train.cl's TR_FMA_ZERO_FIX), three SGD steps
 * against host:exact, and adam and adamw's div/sqrt way; each verdict kept per device. */
#include "clparity/env.h"
#include "clparity/train.h"

#include "cl-shared-impl.h"
#include "engine-impl.h"
#include "own-impl.h"
#include "program-impl.h"
#include "train-cl-state-impl.h"
#include "train-impl.h"
#include "ulp-impl.h"

#include "clparity/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Set while the training probe makes its own trainers (no probe of their own), and the way
 * (enum tile_mode) of the trainer that it probes, which its own trainer takes. */
static _Thread_local bool train_probing;
static _Thread_local int train_probe_mode;

/* The training kernels' probe: three SGD steps of the probe model (odd widths, biases, a
 * rectangular layer, no activation on one, residuals) on cl:own and on host:exact must leave
 * the same weights, bit for bit. */
static int train_probe_run(const cp_device *dev, void *ctx, struct cp_probe_class cls,
                           enum cp_probe_verdict *v, char *why, size_t why_len)
{
    const struct cp_train_ops *own = *(const struct cp_train_ops **)ctx; /* cl:own's */
    cp_model m;
    int batch;
    float *x;
    int st = cp_probe_model(dev, cls, &m, &batch, &x);
    if (st != CP_OK)
        return st;
    size_t nt = (size_t)batch * (size_t)m.out_width, np = m.n_params ? m.n_params : 1;
    float *t = malloc(nt * sizeof *t), *wc = malloc(np * sizeof *wc), *wh = malloc(np * sizeof *wh);
    cp_trainer *tc = NULL, *th = NULL;
    if (!t || !wc || !wh) {
        st = cp_err_set(CP_FAIL_RUNTIME, "out of memory for the training probe");
        goto out;
    }
    for (size_t i = 0; i < nt; ++i)
        t[i] = 0.5f * x[i % ((size_t)batch * (size_t)m.in_width)];
    cp_optim o;
    cp_optim_default(CP_OPTIM_SGD, 0.01, &o);
    train_probing = true;
    int rc = train_create(own, "cl:own", dev, &m, batch, x, t, &o, &tc);
    train_probing = false;
    if (rc == CP_OK)
        rc = train_create(&train_ops_host_exact, "host:exact", dev, &m, batch, x, t, &o, &th);
    double loss;
    for (int i = 0; rc == CP_OK && i < 3; ++i) {
        rc = cp_trainer_step(tc, &loss);
        if (rc == CP_OK)
            rc = cp_trainer_step(th, &loss);
    }
    /* test hook kernel-bit:train: one weight on the device one ULP off, as a wrong kernel
     * would leave it */
    if (rc == CP_OK && cp_test_hook("kernel-bit:train"))
        rc = cp_trainer_poke_ulp(tc, 0);
    if (rc == CP_OK)
        rc = cp_trainer_weights(tc, wc);
    if (rc == CP_OK)
        rc = cp_trainer_weights(th, wh);
    if (rc != CP_OK) { /* an error of the run (with its message), not a verdict */
        st = rc;
        goto out;
    }
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < m.n_params; ++i)
        if (memcmp(&wc[i], &wh[i], sizeof(float)) != 0 && bad++ == 0)
            first = i;
    *v = bad ? CP_PROBE_FAIL : CP_PROBE_PASS;
    if (bad)
        snprintf(why, why_len,
                 "training probe (3 SGD steps): %zu of %zu weights differ from host:exact's, "
                 "first %zu: %a against %a",
                 bad, m.n_params, first, (double)wc[first], (double)wh[first]);
    else
        snprintf(why, why_len, "training probe passed");
out:
    cp_trainer_destroy(tc);
    cp_trainer_destroy(th);
    cp_model_free(&m);
    free(x);
    free(t);
    free(wc);
    free(wh);
    return st;
}

/* The div/sqrt way's probe on the trainer's own program: train.cl's tr_divsqrt over the first
 * TRAIN_DIVSQRT_PROBE_N inputs of clparity ulp's samples of / and sqrt (every special value and
 * pair of them, then the hard cases), every result bit-identical to the host's correctly
 * rounded one (NaN payloads aside). */
#define TRAIN_DIVSQRT_PROBE_N 16384

static int divsqrt_probe_run(const cp_device *dev, void *ctx, struct cp_probe_class cls,
                             enum cp_probe_verdict *v, char *why, size_t why_len)
{
    (void)dev;
    (void)cls;
    cp_trainer *tr = ctx;
    cl_int rc;
    cl_kernel k = clCreateKernel(tr->c->prog, "tr_divsqrt", &rc);
    if (rc != CL_SUCCESS)
        return cp_err_set(CP_FAIL_RUNTIME, "clCreateKernel(tr_divsqrt) failed: %s (%d)",
                          cp_cl_error_name(rc), rc);
    cp_ulp_stats sd, ss;
    int st = ulp_run(tr->c->ctx, tr->c->q, k, 1, ULP_REF_DIV, false, TRAIN_DIVSQRT_PROBE_N, 1337,
                     NULL, NULL, &sd);
    if (st == CP_OK)
        st = ulp_run(tr->c->ctx, tr->c->q, k, 0, ULP_REF_SQRT, false, TRAIN_DIVSQRT_PROBE_N, 1337,
                     NULL, NULL, &ss);
    clReleaseKernel(k);
    if (st != CP_OK)
        return st;
    *v = sd.bits_differ || ss.bits_differ ? CP_PROBE_FAIL : CP_PROBE_PASS;
    const cp_ulp_stats *bad = sd.bits_differ ? &sd : &ss;
    if (*v == CP_PROBE_PASS)
        snprintf(why, why_len, "div/sqrt probe passed");
    else if (bad == &sd)
        snprintf(why, why_len,
                 "div/sqrt probe (%s): %zu of %zu quotients and %zu of %zu square roots differ "
                 "from the correctly rounded ones, e.g. %a / %a gave %a, not %a",
                 tr->div_sqrt, sd.bits_differ, sd.n, ss.bits_differ, ss.n, (double)sd.worst_x,
                 (double)sd.worst_y, (double)sd.worst_got, (double)sd.worst_want);
    else
        snprintf(why, why_len,
                 "div/sqrt probe (%s): %zu of %zu square roots differ from the correctly rounded "
                 "ones, e.g. sqrt(%a) gave %a, not %a",
                 tr->div_sqrt, ss.bits_differ, ss.n, (double)ss.worst_x, (double)ss.worst_got,
                 (double)ss.worst_want);
    return CP_OK;
}

bool train_cl_probing(void)
{
    return train_probing;
}

int train_cl_probe_mode(void)
{
    return train_probe_mode;
}

/* cl:own's probes: the training kernels (three SGD steps), and adam and adamw's div/sqrt way
 * (one verdict per way, ids -10 - way). The first that fails gives the reason. */
int train_cl_probe(cp_trainer *tr, const cp_device *dev, const struct cp_train_ops *own)
{
    if (train_probing || cp_own_probe_off())
        return CP_OK;
    const struct cp_probe_class cls = {false, false, false, -1};
    enum cp_probe_verdict v;
    /* keyed by the kernels' way (CLPARITY_TRAIN_KERNELS and the tile test hooks) too, which
     * the probe's trainer takes */
    train_probe_mode = tr->c->mode;
    int st = cp_probe_cached_ex(dev, -3, "train", tr->c->kernels, cls, train_probe_run, &own, &v,
                                tr->probe_why, sizeof tr->probe_why);
    if (st != CP_OK)
        return st;
    tr->probe = v == CP_PROBE_PASS ? 1 : 0;
    if (tr->div_way < 0 || tr->probe == 0)
        return CP_OK;
    static const char *const keys[] = {"train-divsqrt-device", "train-divsqrt-double",
                                       "train-divsqrt-float"};
    char why[CP_PROBE_WHY];
    st = cp_probe_cached(dev, -10 - tr->div_way, keys[tr->div_way], cls, divsqrt_probe_run, tr, &v,
                         why, sizeof why);
    if (st == CP_OK && v != CP_PROBE_PASS) {
        tr->probe = 0;
        snprintf(tr->probe_why, sizeof tr->probe_why, "%s", why);
    }
    return st;
}

int train_cl_cr_probe(cp_trainer *tr, const cp_device *dev)
{
    if (cp_own_probe_off())
        return CP_OK;
    const struct cp_probe_class cls = {false, false, false, -1};
    enum cp_probe_verdict v;
    /* keyed by the build options too: the test hooks' (divsqrt-skew, divsqrt-no-correction,
     * train-denorms-are-zero) are other programs */
    int st = cp_probe_cached_ex(dev, -13, "train-divsqrt-cr", tr->build_options, cls,
                                divsqrt_probe_run, tr, &v, tr->probe_why, sizeof tr->probe_why);
    if (st == CP_OK)
        tr->probe = v == CP_PROBE_PASS ? 1 : 0;
    return st;
}
