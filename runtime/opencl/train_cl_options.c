/* train.cl's and cr.cl's build options for a trainer (train_cl_build_options): the division
 * and square root way, the fma signed-zero fix where the device needs it, the test hooks'
 * plants, flushed denormals, and the cpu kernels' settings. Split from train_cl.c (its
 * concern: the trainer's buffers, launches and steps). */
#include "clparity/env.h"
#include "clparity/train.h"

#include "cl-shared-impl.h"
#include "engine-impl.h"
#include "own-impl.h"
#include "params-impl.h"
#include "program-impl.h"
#include "train-cl-state-impl.h"
#include "train-impl.h"

#include "clparity/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The check of fma's signed zeros: probe.cl's cp_fma_cases on every a in ±0, b in ±1 and c in
 * ±0, bit for bit against the host's fmaf (IEEE 754: +0 but for −0 + −0). Mesa's llvmpipe
 * (rusticl 22.3) returns a·b for fma(a, b, ±0), −0 where IEEE gives +0: its verdict is a
 * failure, and train.cl is then built with TR_FMA_ZERO_FIX. ctx is the trainer's train_cl. */
#define FMA_ZERO_CASES 8

static int fma_zero_run(const cp_device *dev, void *ctx, struct cp_probe_class cls,
                        enum cp_probe_verdict *v, char *why, size_t why_len)
{
    (void)cls;
    struct train_cl *c = ctx;
    float in[3][FMA_ZERO_CASES], r[FMA_ZERO_CASES];
    for (int i = 0; i < FMA_ZERO_CASES; ++i) {
        in[0][i] = i & 1 ? -0.0f : 0.0f;
        in[1][i] = i & 2 ? -1.0f : 1.0f;
        in[2][i] = i & 4 ? -0.0f : 0.0f;
    }
    cl_program prog = NULL;
    cl_kernel k = NULL;
    cl_mem m[4] = {NULL, NULL, NULL, NULL};
    cl_int rc = CL_SUCCESS;
    int st = cp_program_build_ex(c->ctx, dev->device_id, "probe.cl", "-cl-std=CL1.2", &prog, NULL);
    if (st == CP_OK && !(k = clCreateKernel(prog, "cp_fma_cases", &rc)))
        st = cp_err_cl(rc, "clCreateKernel(cp_fma_cases)");
    for (int i = 0; st == CP_OK && i < 4; ++i)
        st = train_cl_buffer(c, FMA_ZERO_CASES, i < 3 ? in[i] : NULL, &m[i], "fma check");
    for (cl_uint i = 0; st == CP_OK && i < 4; ++i)
        if ((rc = clSetKernelArg(k, i, sizeof m[i], &m[i])) != CL_SUCCESS)
            st = cp_err_cl(rc, "clSetKernelArg(cp_fma_cases)");
    size_t n = FMA_ZERO_CASES;
    if (st == CP_OK &&
        (rc = own_enqueue_kernel(c->q, k, 1, NULL, &n, NULL, 0, NULL, NULL)) != CL_SUCCESS)
        st = cp_err_cl(rc, "clEnqueueNDRangeKernel(cp_fma_cases)");
    if (st == CP_OK && (rc = clEnqueueReadBuffer(c->q, m[3], CL_TRUE, 0, sizeof r, r, 0, NULL,
                                                 NULL)) != CL_SUCCESS)
        st = cp_err_cl(rc, "clEnqueueReadBuffer(fma check)");
    *v = CP_PROBE_PASS;
    snprintf(why, why_len, "fma's signed zeros as IEEE 754's");
    for (int i = 0; st == CP_OK && i < FMA_ZERO_CASES; ++i) {
        float want = fmaf(in[0][i], in[1][i], in[2][i]);
        if (memcmp(&r[i], &want, sizeof want) != 0 && *v == CP_PROBE_PASS) {
            *v = CP_PROBE_FAIL;
            snprintf(why, why_len,
                     "fma(%g, %g, %g) gave %g, not %g: train.cl built with "
                     "TR_FMA_ZERO_FIX",
                     (double)in[0][i], (double)in[1][i], (double)in[2][i], (double)r[i],
                     (double)want);
        }
    }
    for (int i = 0; i < 4; ++i)
        if (m[i])
            clReleaseMemObject(m[i]);
    if (k)
        clReleaseKernel(k);
    if (prog)
        clReleaseProgram(prog);
    return st;
}

/* Whether train.cl needs TR_FMA_ZERO_FIX on dev (the check above, kept per device; never for
 * cl:relaxed, nor with CLPARITY_OWN_PROBE=off). */
static int fma_zero_fix(cp_trainer *tr, const cp_device *dev, bool *fix)
{
    *fix = false;
    /* test hook fma-zero-nofix: the fix left out where the device needs it (the state check
     * must then fail on rusticl) */
    if (tr->c->relaxed || cp_own_probe_off() || cp_test_hook("fma-zero-nofix"))
        return CP_OK;
    const struct cp_probe_class cls = {false, false, false, -1};
    enum cp_probe_verdict v;
    char why[CP_PROBE_WHY];
    int st =
        cp_probe_cached(dev, -20, "fma-signed-zero", cls, fma_zero_run, tr->c, &v, why, sizeof why);
    *fix = st == CP_OK && v == CP_PROBE_FAIL;
    return st;
}

/* Test hook train-denorms-are-zero: the training program built with -cl-denorms-are-zero,
 * which PoCL honours (float arithmetic then flushes subnormal operands and results to zero):
 * a device that flushes, for the tests of cl:cr's promise (its values stay host:cr's) and of
 * cl:own's lack of it (its values leave host:exact's where subnormals occur). */
static const char *ftz_option(void)
{
    return cp_test_hook("train-denorms-are-zero") ? " -cl-denorms-are-zero" : "";
}

/* What cp_trainer_div_sqrt says of cl:relaxed with adam and adamw. */
#define RELAXED_DIV_SQRT "native (native_divide, native_sqrt; fast math)"

/* train.cl's build options. adam and adamw divide and take square roots, which must be
 * correctly rounded to stay host:exact's twin: divsqrt_way() picks how. cl:relaxed builds with
 * fast math and native_divide and native_sqrt instead. */
static int cl_options(cp_trainer *tr, const cp_device *dev)
{
    static const char *const plants[] = {"train-plant-m", "train-plant-v", "train-plant-root"};
    char extra[128] = "";
    if (train_divides(&tr->opt) && tr->c->relaxed) {
        tr->div_sqrt = RELAXED_DIV_SQRT;
    } else if (train_divides(&tr->opt)) {
        enum train_divsqrt way = TRAIN_DIVSQRT_DEVICE;
        int st = train_divsqrt_way(dev, &way);
        if (st != CP_OK)
            return st;
        train_divsqrt_options(way, extra, sizeof extra);
        tr->div_sqrt = train_divsqrt_name(way);
        tr->div_way = (int)way;
        for (int i = 0; i < 3; ++i)
            if (!tr->c->clblast && cp_test_hook(plants[i]))
                tr->c->plant = i + 1;
    }
    char plant[64] = "";
    if (tr->c->plant)
        snprintf(plant, sizeof plant, " -DTR_PLANT=%d", tr->c->plant);
    /* test hooks train-tile-plant-1, -4 and -8: one ULP off in train_tile.cl's kernels of that
     * block */
    static const int blocks[] = {1, 4, 8};
    for (int i = 0; i < 3; ++i) {
        char hook[32];
        snprintf(hook, sizeof hook, "train-tile-plant-%d", blocks[i]);
        if (cp_test_hook(hook))
            snprintf(plant + strlen(plant), sizeof plant - strlen(plant), " -DTR_TILE_PLANT=%d",
                     blocks[i]);
    }
    bool fix;
    int st = fma_zero_fix(tr, dev, &fix);
    if (st != CP_OK)
        return st;
    char cpu[96] = "";
    if (tr->c->mode == TILE_CPU)
        train_cl_cpu_options(tr, cpu, sizeof cpu);
    /* the tiled kernels only where the way launches them (train_cl.c: simple and cpu never) */
    bool tiles = tr->c->mode != TILE_SIMPLE && tr->c->mode != TILE_CPU;
    /* the one-launch step only for its way, its barrier's waits longer on CPU devices
     * (grid_sync.cl); test hook train-stream-giveup: a wait given up (train_stream.cl) */
    bool stream = tr->c->mode == TILE_STREAM;
    /* one block size's tiled kernels where the way launches no other (cp_program_keep says
     * why) */
    const int mode = tr->c->mode;
    const char *one_rm = stream || mode == TILE_1 ? " -DTR_TILE_RM=1"
                         : mode == TILE_4         ? " -DTR_TILE_RM=4"
                         : mode == TILE_8         ? " -DTR_TILE_RM=8"
                                                  : "";
    const char *spin = !stream                               ? ""
                       : cp_test_hook("train-stream-giveup") ? " -DTR_STREAM_GIVEUP"
                                                             : own_spin_bound_options(dev);
    int n =
        snprintf(tr->build_options, sizeof tr->build_options, "-cl-std=CL1.2%s%s%s%s%s%s%s%s%s%s%s",
                 tr->c->relaxed ? " " : "", tr->c->relaxed ? OWN_RELAXED_OPTIONS : "", extra, plant,
                 fix ? " -DTR_FMA_ZERO_FIX" : "", ftz_option(), cpu, tiles ? "" : " -DTR_NO_TILES",
                 tiles ? one_rm : "", stream ? " -DTR_STREAM" : "", spin);
    if (n < 0 || (size_t)n >= sizeof tr->build_options)
        return cp_err_set(CP_FAIL_RUNTIME,
                          "cl:own training: build options of %d bytes are too long", n);
    return CP_OK;
}

/* cl:cr's trainer's arithmetic on dev (cr.cl's CR_TRAIN part): *f64, whether its sums are
 * certified in double first (CR_F64: dev has cl_khr_fp64), and *fast, whether its +, −, · and
 * fma take the device's own float operation where that is IEEE's (CR_FAST_OPS: dev rounds float
 * arithmetic to nearest), unless CLPARITY_CR_TUNE says exact=1 (every sum through the exact
 * accumulator, every operation on the bits) or, for the sums, method=f32 (the forward's
 * float32-only method, which the trainer does not have: its sums then go through the
 * accumulator). A CLPARITY_CR_TUNE that does not parse is the usage error that cl:cr's forward
 * gives. */
static int cr_train_ways(const cp_device *dev, bool *f64, bool *fast)
{
    *fast = (dev->fp32 & CL_FP_ROUND_TO_NEAREST) != 0;
    struct cr_tune t = {.exact = 0, .method = 0};
    bool set;
    int st = cr_cl_device_f64(dev, f64);
    if (st != CP_OK || (st = cr_tune_env(&t, &set)) != CP_OK)
        return st;
    *f64 = *f64 && t.exact != 1 && t.method != 1;
    *fast = *fast && t.exact != 1;
    return CP_OK;
}

int train_cl_build_options(cp_trainer *tr, const cp_device *dev)
{
    struct train_cl *c = tr->c;
    /* cl:cr: cr.cl's training kernels, every operation through the accumulator or the bits
     * (CR_NO_DENORM): the same values on a device that flushes float denormals; the sums
     * certified in double first, and the operations by the device's float arithmetic where
     * that is IEEE's, where the device allows (cr_train_ways). adam and adamw divide
     * and take square roots the float way (divsqrt.cl, whose proof holds there too), whatever
     * the device offers; CLPARITY_TRAIN_DIVSQRT is cl:own's. Test hooks cr-train-flip: every
     * certified sum's lowest bit flipped (CR_TR_FLIP); cr-train-flip-ops: every answer of the
     * device's own +, −, · and fma (CR_TR_FLIP_OPS). */
    if (c->cr) {
        char way[128] = "";
        bool f64, fast;
        int st = cr_train_ways(dev, &f64, &fast);
        if (st != CP_OK)
            return st;
        if (train_divides(&tr->opt)) {
            train_divsqrt_options(TRAIN_DIVSQRT_FLOAT, way, sizeof way);
            tr->div_sqrt = train_divsqrt_name(TRAIN_DIVSQRT_FLOAT);
        }
        snprintf(tr->build_options, sizeof tr->build_options, "%s%s%s%s%s%s%s",
                 "-cl-std=CL1.2 -DCR_TRAIN -DCR_NO_DENORM", f64 ? " -DCR_F64" : "",
                 f64 && cp_test_hook("cr-train-flip") ? " -DCR_TR_FLIP" : "",
                 fast ? " -DCR_FAST_OPS" : "",
                 fast && cp_test_hook("cr-train-flip-ops") ? " -DCR_TR_FLIP_OPS" : "", way,
                 ftz_option());
        return CP_OK;
    }
    return cl_options(tr, dev);
}
