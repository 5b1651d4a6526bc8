/* Training engines (clparity/train.h): the host trainers of hostblas/train_host.c and cl:own
 * on OpenCL, whose weights, activations and gradients stay on the device between steps. */
#include "clparity/env.h"
#include "clparity/train.h"

#include "engine-cl-impl.h"
#include "engine-impl.h"
#include "own-impl.h"
#include "program-impl.h"
#include "train-impl.h"
#include "ulp-impl.h"
#include "hostblas/cr.h"

#include "clparity/error.h"

#include <clblast_c.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum train_kind { TK_EXACT, TK_F64, TK_CL, TK_BLAS, TK_CLBLAST, TK_RELAXED, TK_CR, TK_CL_CR };

struct train_cl {
    cl_context ctx;
    cl_command_queue q;
    cl_program prog;
    cl_kernel k_fwd, k_outgrad, k_dz, k_dx, k_upw, k_upb, k_epi, k_add, k_axpy;
    cl_kernel k_gw, k_gb, k_sgd, k_mom, k_adam; /* the optimizers other than plain SGD */
    cl_mem p, acts, z, t, g, gn, dz, gw;        /* gw: cl:clblast's weight gradient (plain SGD) */
    cl_mem G, st[2]; /* the other optimizers: the whole gradient and their state */
    bool clblast;
    bool cr;      /* cl:cr: clkernels/cr.cl's training kernels (CR_TRAIN), no clblast ones */
    bool relaxed; /* cl:relaxed: train.cl built with OWN_RELAXED_OPTIONS */
    int plant;    /* the test hooks train-plant-m, -v, -root: 1, 2, 3; 0 none */
    size_t stride;
    float *y; /* host copy of the output, for the loss */
    float *t_host;
};

struct cp_trainer {
    enum train_kind kind;
    const cp_model *m;
    int batch;
    float lr;
    cp_optim opt;
    bool needs_grad; /* not the fused plain SGD update */
    long step;       /* steps done (cl:own, cl:clblast) */
    const char *div_sqrt;
    int div_way; /* enum train_divsqrt of adam and adamw on cl:own and cl:clblast; -1 none */
    struct train_host h;
    struct train_cl c;
    char build_options[256];
    int probe; /* cl:own: 1 its kernels passed the training probe, 0 failed; -1 n/a */
    char probe_why[CP_PROBE_WHY];
};

/* Set while the training probe makes its own trainers (no probe of their own). */
static _Thread_local bool train_probing;

bool cp_train_engine_supported(const char *engine)
{
    return strcmp(engine, "cl:own") == 0 || strcmp(engine, "host:exact") == 0 ||
           strcmp(engine, "host:f64") == 0 || strcmp(engine, "cl:clblast") == 0 ||
           strcmp(engine, "host:openblas") == 0 || strcmp(engine, "cl:relaxed") == 0 ||
           strcmp(engine, "cl:cr") == 0 || strcmp(engine, "host:cr") == 0;
}

/* The engines whose weights live on an OpenCL device (train.cl's kernels, or cr.cl's). */
static bool on_device(const cp_trainer *tr)
{
    return tr->kind == TK_CL || tr->kind == TK_CLBLAST || tr->kind == TK_RELAXED ||
           tr->kind == TK_CL_CR;
}

double cp_train_step_macs(const cp_model *m, int batch)
{
    double s = 0.0;
    for (int l = 0; l < m->n_layers; ++l)
        s += 3.0 * (double)batch * (double)m->layers[l].in * (double)m->layers[l].out;
    return s;
}

static size_t round_up(size_t n, size_t r)
{
    return (n + r - 1) / r * r;
}

/* Sets argument i of kernel k (i evaluated once); names the kernel variable and the index. */
#define SET(k, i, v)                                                                               \
    do {                                                                                           \
        cl_uint ai_ = (i);                                                                         \
        cl_int rc_ = clSetKernelArg(k, ai_, sizeof(v), &(v));                                      \
        if (rc_ != CL_SUCCESS)                                                                     \
            return cp_err_set(CP_FAIL_RUNTIME, "clSetKernelArg(%s, %u) failed: %s (%d)", #k, ai_,  \
                              cp_cl_error_name(rc_), (int)rc_);                                    \
    } while (0)

static int enqueue(struct train_cl *c, cl_kernel k, const char *name, cl_uint dims, size_t g0,
                   size_t g1)
{
    size_t gws[2] = {round_up(g0 ? g0 : 1, 8), g1 ? g1 : 1};
    cl_int rc = clEnqueueNDRangeKernel(c->q, k, dims, NULL, gws, NULL, 0, NULL, NULL);
    if (rc != CL_SUCCESS)
        return cp_err_set(CP_FAIL_RUNTIME, "clEnqueueNDRangeKernel(%s) failed: %s (%d)", name,
                          cp_cl_error_name(rc), rc);
    return CP_OK;
}

static int cl_buffer(struct train_cl *c, size_t n, const void *init, cl_mem *out, const char *what)
{
    cl_int rc;
    *out = clCreateBuffer(c->ctx, CL_MEM_READ_WRITE, (n ? n : 1) * sizeof(float), NULL, &rc);
    if (rc != CL_SUCCESS)
        return cp_err_set(CP_FAIL_RUNTIME, "clCreateBuffer(%s) failed: %s (%d)", what,
                          cp_cl_error_name(rc), rc);
    /* A write, not CL_MEM_COPY_HOST_PTR: Oclgrind's uninitialised-value check does not see
     * the data a buffer was created with. */
    if (init && n) {
        rc = clEnqueueWriteBuffer(c->q, *out, CL_TRUE, 0, n * sizeof(float), init, 0, NULL, NULL);
        if (rc != CL_SUCCESS)
            return cp_err_set(CP_FAIL_RUNTIME, "clEnqueueWriteBuffer(%s) failed: %s (%d)", what,
                              cp_cl_error_name(rc), rc);
    }
    return CP_OK;
}

/* Whether dev has double precision that divides and takes square roots correctly rounded:
 * cl_khr_fp64 on a full-profile device (the embedded profile allows 3 ULP). */
static bool fp64_full(const cp_device *dev)
{
    cl_device_fp_config fp64 = 0;
    if (clGetDeviceInfo(dev->device_id, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, NULL) !=
        CL_SUCCESS)
        fp64 = 0; /* a device without cl_khr_fp64 may answer with an error */
    return fp64 && strcmp(dev->profile, "FULL_PROFILE") == 0;
}

/* The report's names of the ways, in enum train_divsqrt's order. */
static const char *const way_names[] = {"device (-cl-fp32-correctly-rounded-divide-sqrt)", "double",
                                        "float (fma correction)"};
#define RELAXED_DIV_SQRT "native (native_divide, native_sqrt; fast math)"

int cp_train_divsqrt_env(int *way)
{
    /* runtime/env.c's table lists CP_TRAIN_DIVSQRT_CHOICES: its index is the way's */
    return cp_env_word("CLPARITY_TRAIN_DIVSQRT", way);
}

/* The way adam and adamw divide and take square roots on dev: CLPARITY_TRAIN_DIVSQRT's where
 * set (refused where the device cannot take it), else the device's own correctly rounded ones,
 * else double, else float. */
static int divsqrt_way(const cp_device *dev, enum train_divsqrt *way)
{
    int forced;
    int st = cp_train_divsqrt_env(&forced);
    if (st != CP_OK)
        return st;
    bool cr = (dev->fp32 & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0, f64 = fp64_full(dev);
    if (forced == TRAIN_DIVSQRT_DEVICE && !cr)
        return cp_err_set(CP_FAIL_USAGE,
                          "CLPARITY_TRAIN_DIVSQRT=device: this device does not report "
                          "CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT (correct-div-sqrt in 'clparity "
                          "devices'); double or float can");
    if (forced == TRAIN_DIVSQRT_DOUBLE && !f64)
        return cp_err_set(CP_FAIL_USAGE,
                          "CLPARITY_TRAIN_DIVSQRT=double: this device has no double precision "
                          "with correctly rounded / and sqrt (cl_khr_fp64 on a full-profile "
                          "device); float can");
    *way = forced >= 0 ? (enum train_divsqrt)forced
           : cr        ? TRAIN_DIVSQRT_DEVICE
           : f64       ? TRAIN_DIVSQRT_DOUBLE
                       : TRAIN_DIVSQRT_FLOAT;
    return CP_OK;
}

void train_divsqrt_options(enum train_divsqrt way, char *buf, size_t len)
{
    switch (way) {
    case TRAIN_DIVSQRT_DEVICE:
        snprintf(buf, len, " -cl-fp32-correctly-rounded-divide-sqrt");
        return;
    case TRAIN_DIVSQRT_DOUBLE:
        snprintf(buf, len, " -DTR_DIVSQRT_DOUBLE");
        return;
    case TRAIN_DIVSQRT_FLOAT:
        snprintf(buf, len, " -DTR_DIVSQRT_FLOAT%s",
                 cp_test_hook("divsqrt-no-correction")
                     ? " -DCP_DIVSQRT_SKEW -DCP_DIVSQRT_NO_CORRECTION"
                 : cp_test_hook("divsqrt-skew") ? " -DCP_DIVSQRT_SKEW"
                                                : "");
        return;
    }
    snprintf(buf, len, "%s", "");
}

static bool divides(const cp_optim *o)
{
    return o->kind == CP_OPTIM_ADAM || o->kind == CP_OPTIM_ADAMW;
}

int cp_train_check_device(const cp_device *dev, const cp_optim *o)
{
    if (dev->kind != CP_DEV_OPENCL || !divides(o))
        return CP_OK;
    enum train_divsqrt way = TRAIN_DIVSQRT_DEVICE;
    return divsqrt_way(dev, &way);
}

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
        st = cl_buffer(c, FMA_ZERO_CASES, i < 3 ? in[i] : NULL, &m[i], "fma check");
    for (cl_uint i = 0; st == CP_OK && i < 4; ++i)
        if ((rc = clSetKernelArg(k, i, sizeof m[i], &m[i])) != CL_SUCCESS)
            st = cp_err_cl(rc, "clSetKernelArg(cp_fma_cases)");
    size_t n = FMA_ZERO_CASES;
    if (st == CP_OK &&
        (rc = clEnqueueNDRangeKernel(c->q, k, 1, NULL, &n, NULL, 0, NULL, NULL)) != CL_SUCCESS)
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
    if (tr->c.relaxed || cp_own_probe_off() || cp_test_hook("fma-zero-nofix"))
        return CP_OK;
    const struct cp_probe_class cls = {false, false, false, -1};
    enum cp_probe_verdict v;
    char why[CP_PROBE_WHY];
    int st = cp_probe_cached(dev, -20, "fma-signed-zero", cls, fma_zero_run, &tr->c, &v, why,
                             sizeof why);
    *fix = st == CP_OK && v == CP_PROBE_FAIL;
    return st;
}

/* The step at which the test hooks train-plant-m, -v and -root move every m, v or sqrt(v). */
#define TRAIN_PLANT_STEP 2

/* train.cl's build options. adam and adamw divide and take square roots, which must be
 * correctly rounded to stay host:exact's twin: divsqrt_way() picks how. cl:relaxed builds with
 * fast math and native_divide and native_sqrt instead. */
static int cl_options(cp_trainer *tr, const cp_device *dev)
{
    static const char *const plants[] = {"train-plant-m", "train-plant-v", "train-plant-root"};
    char extra[128] = "";
    if (divides(&tr->opt) && tr->c.relaxed) {
        tr->div_sqrt = RELAXED_DIV_SQRT;
    } else if (divides(&tr->opt)) {
        enum train_divsqrt way = TRAIN_DIVSQRT_DEVICE;
        int st = divsqrt_way(dev, &way);
        if (st != CP_OK)
            return st;
        train_divsqrt_options(way, extra, sizeof extra);
        tr->div_sqrt = way_names[way];
        tr->div_way = (int)way;
        for (int i = 0; i < 3; ++i)
            if (!tr->c.clblast && cp_test_hook(plants[i]))
                tr->c.plant = i + 1;
    }
    char plant[32] = "";
    if (tr->c.plant)
        snprintf(plant, sizeof plant, " -DTR_PLANT=%d", tr->c.plant);
    bool fix;
    int st = fma_zero_fix(tr, dev, &fix);
    if (st != CP_OK)
        return st;
    snprintf(tr->build_options, sizeof tr->build_options, "-cl-std=CL1.2%s%s%s%s%s",
             tr->c.relaxed ? " " : "", tr->c.relaxed ? OWN_RELAXED_OPTIONS : "", extra, plant,
             fix ? " -DTR_FMA_ZERO_FIX" : "");
    return CP_OK;
}

static int cl_create(cp_trainer *tr, const cp_device *dev, const float *x, const float *t)
{
    struct train_cl *c = &tr->c;
    const cp_model *m = tr->m;
    cl_int rc;
    int st = cp_cl_open(dev, 0, &c->ctx, &c->q);
    if (st != CP_OK)
        return st;
    /* cl:cr: cr.cl's training kernels, every operation through the accumulator or the bits
     * (CR_NO_DENORM, no CR_F64): the same values on a device that flushes float denormals.
     * Plain SGD only (cp_trainer_create_optim refuses the rest). */
    if (c->cr)
        snprintf(tr->build_options, sizeof tr->build_options, "%s",
                 "-cl-std=CL1.2 -DCR_TRAIN -DCR_NO_DENORM");
    else if ((st = cl_options(tr, dev)) != CP_OK)
        return st;
    st = cp_program_build_ex(c->ctx, dev->device_id, c->cr ? "cr.cl" : "train.cl",
                             tr->build_options, &c->prog, NULL);
    if (st != CP_OK)
        return st;
    static const char *const names[] = {
        "tr_forward",  "tr_outgrad", "tr_dz",           "tr_dx",      "tr_update_w",
        "tr_update_b", "tr_fwd_epi", "tr_add",          "tr_axpy",    "tr_grad_w",
        "tr_grad_b",   "tr_opt_sgd", "tr_opt_momentum", "tr_opt_adam"};
    cl_kernel *ks[] = {&c->k_fwd, &c->k_outgrad, &c->k_dz,  &c->k_dx,   &c->k_upw,
                       &c->k_upb, &c->k_epi,     &c->k_add, &c->k_axpy, &c->k_gw,
                       &c->k_gb,  &c->k_sgd,     &c->k_mom, &c->k_adam};
    /* cr.cl has the first six: no CLBlast epilogues, no optimizers but plain SGD */
    for (size_t i = 0; i < (c->cr ? 6 : sizeof ks / sizeof ks[0]); ++i) {
        *ks[i] = clCreateKernel(c->prog, names[i], &rc);
        if (rc != CL_SUCCESS)
            return cp_err_set(CP_FAIL_RUNTIME, "clCreateKernel(%s) failed: %s (%d)", names[i],
                              cp_cl_error_name(rc), rc);
    }
    size_t B = (size_t)tr->batch, L = (size_t)m->n_layers;
    c->stride = B * (size_t)m->max_width;
    size_t nt = B * (size_t)m->out_width;
    c->y = malloc((nt ? nt : 1) * sizeof(float));
    c->t_host = malloc((nt ? nt : 1) * sizeof(float));
    if (!c->y || !c->t_host)
        return cp_err_set(CP_FAIL_RUNTIME, "cl:own training: out of memory");
    memcpy(c->t_host, t, nt * sizeof(float));
    if ((st = cl_buffer(c, m->n_params, m->params, &c->p, "weights")) != CP_OK ||
        (st = cl_buffer(c, (L + 1) * c->stride, NULL, &c->acts, "activations")) != CP_OK ||
        (st = cl_buffer(c, L * c->stride, NULL, &c->z, "pre-activations")) != CP_OK ||
        (st = cl_buffer(c, nt, t, &c->t, "target")) != CP_OK ||
        (st = cl_buffer(c, c->stride, NULL, &c->g, "gradient")) != CP_OK ||
        (st = cl_buffer(c, c->stride, NULL, &c->gn, "gradient")) != CP_OK ||
        (st = cl_buffer(c, c->stride, NULL, &c->dz, "dz")) != CP_OK)
        return st;
    if (tr->needs_grad) {
        /* the gradient, then the state: zeros (PyTorch's zeros_like; the momentum buffer is
         * set at the first step) */
        size_t np = m->n_params ? m->n_params : 1;
        float *zeros = calloc(np, sizeof *zeros);
        if (!zeros)
            return cp_err_set(CP_FAIL_RUNTIME, "training: out of memory");
        st = cl_buffer(c, m->n_params, zeros, &c->G, "gradient");
        for (size_t k = 0; st == CP_OK && k < train_state_count(tr->opt.kind); ++k)
            st = cl_buffer(c, m->n_params, zeros, &c->st[k], train_state_name(tr->opt.kind, k));
        free(zeros);
        if (st != CP_OK)
            return st;
    } else if (c->clblast) {
        size_t maxw = 0;
        for (size_t l = 0; l < L; ++l) {
            size_t nw = (size_t)m->layers[l].in * (size_t)m->layers[l].out;
            maxw = nw > maxw ? nw : maxw;
        }
        if ((st = cl_buffer(c, maxw, NULL, &c->gw, "weight gradient")) != CP_OK)
            return st;
    }
    rc = clEnqueueWriteBuffer(c->q, c->acts, CL_TRUE, 0, B * (size_t)m->in_width * sizeof(float), x,
                              0, NULL, NULL);
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clEnqueueWriteBuffer(input)");
    return CP_OK;
}

/* The forward from weights buffer p into acts/z. */
static int cl_forward(cp_trainer *tr, cl_mem p)
{
    struct train_cl *c = &tr->c;
    const cp_model *m = tr->m;
    for (int l = 0; l < m->n_layers; ++l) {
        const cp_layer *ly = &m->layers[l];
        cl_ulong x_off = (cl_ulong)l * c->stride, y_off = x_off + c->stride, z_off = x_off;
        cl_ulong w_off = ly->w_off, b_off = ly->b_off;
        cl_int in = ly->in, out = ly->out, hb = ly->has_bias, act = ly->act == CP_ACT_RELU,
               res = ly->residual;
        if (c->clblast) {
            cl_command_queue q = c->q;
            CLBlastStatusCode bs = CLBlastSgemm(
                CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeYes, (size_t)tr->batch,
                (size_t)out, (size_t)in, 1.0f, c->acts, (size_t)x_off, (size_t)in, p, (size_t)w_off,
                (size_t)in, 0.0f, c->z, (size_t)z_off, (size_t)out, &q, NULL);
            if (bs != CLBlastSuccess)
                return cp_err_set(CP_FAIL_RUNTIME,
                                  "CLBlastSgemm (forward, layer %d) failed: %s (%d)", l,
                                  cp_clblast_status_name(bs), (int)bs);
        }
        /* tr_fwd_epi (after CLBlast's GEMM) takes tr_forward's arguments but w_off. */
        cl_kernel k = c->clblast ? c->k_epi : c->k_fwd;
        cl_uint i = 0;
        SET(k, i++, c->acts);
        SET(k, i++, x_off);
        SET(k, i++, c->acts);
        SET(k, i++, y_off);
        SET(k, i++, c->z);
        SET(k, i++, z_off);
        SET(k, i++, p);
        if (!c->clblast)
            SET(k, i++, w_off);
        SET(k, i++, in);
        SET(k, i++, out);
        SET(k, i++, hb);
        SET(k, i++, b_off);
        SET(k, i++, act);
        SET(k, i++, res);
        int st = enqueue(c, k, c->clblast ? "tr_fwd_epi" : "tr_forward", 2, (size_t)out,
                         (size_t)tr->batch);
        if (st != CP_OK)
            return st;
    }
    return CP_OK;
}

static int cl_read_output(cp_trainer *tr, float *y)
{
    struct train_cl *c = &tr->c;
    size_t nt = (size_t)tr->batch * (size_t)tr->m->out_width;
    cl_int rc = clEnqueueReadBuffer(c->q, c->acts, CL_TRUE,
                                    (size_t)tr->m->n_layers * c->stride * sizeof(float),
                                    nt * sizeof(float), y, 0, NULL, NULL);
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clEnqueueReadBuffer(output)");
    return CP_OK;
}

/* The optimizer's update of every parameter from G, at step tr->step (clparity/train.h). */
static int cl_optim(cp_trainer *tr)
{
    struct train_cl *c = &tr->c;
    struct train_scalars s;
    train_scalars_at(&tr->opt, tr->step, &s);
    cl_int n = (cl_int)tr->m->n_params, decay_on = s.wd != 0.0, first = s.first,
           nesterov = tr->opt.nesterov, decoupled = tr->opt.kind == CP_OPTIM_ADAMW,
           plant = c->plant && tr->step == TRAIN_PLANT_STEP;
    float neg_lr = (float)s.neg_lr, wd = (float)s.wd, mom = (float)s.mom, decay = (float)s.decay,
          w1 = (float)s.w1, beta2 = (float)s.beta2, c2 = (float)s.c2, bc2_sqrt = (float)s.bc2_sqrt,
          eps = (float)s.eps, nss = (float)s.nss;
    cl_kernel k = NULL;
    const char *name = "";
    switch (tr->opt.kind) {
    case CP_OPTIM_SGD:
        k = c->k_sgd;
        name = "tr_opt_sgd";
        SET(c->k_sgd, 0, c->p);
        SET(c->k_sgd, 1, c->G);
        SET(c->k_sgd, 2, n);
        SET(c->k_sgd, 3, neg_lr);
        SET(c->k_sgd, 4, wd);
        break;
    case CP_OPTIM_MOMENTUM:
        k = c->k_mom;
        name = "tr_opt_momentum";
        SET(c->k_mom, 0, c->p);
        SET(c->k_mom, 1, c->G);
        SET(c->k_mom, 2, c->st[0]);
        SET(c->k_mom, 3, n);
        SET(c->k_mom, 4, neg_lr);
        SET(c->k_mom, 5, decay_on);
        SET(c->k_mom, 6, wd);
        SET(c->k_mom, 7, mom);
        SET(c->k_mom, 8, first);
        SET(c->k_mom, 9, nesterov);
        break;
    case CP_OPTIM_ADAM:
    case CP_OPTIM_ADAMW: {
        k = c->k_adam;
        name = "tr_opt_adam";
        cl_uint i = 0;
        SET(c->k_adam, i++, c->p);
        SET(c->k_adam, i++, c->G);
        SET(c->k_adam, i++, c->st[0]);
        SET(c->k_adam, i++, c->st[1]);
        SET(c->k_adam, i++, n);
        SET(c->k_adam, i++, decay_on);
        SET(c->k_adam, i++, decoupled);
        SET(c->k_adam, i++, wd);
        SET(c->k_adam, i++, decay);
        SET(c->k_adam, i++, w1);
        SET(c->k_adam, i++, beta2);
        SET(c->k_adam, i++, c2);
        SET(c->k_adam, i++, bc2_sqrt);
        SET(c->k_adam, i++, eps);
        SET(c->k_adam, i++, nss);
        SET(c->k_adam, i++, plant);
        break;
    }
    }
    return enqueue(c, k, name, 1, (size_t)n, 0);
}

static int cl_step(cp_trainer *tr, double *loss)
{
    struct train_cl *c = &tr->c;
    const cp_model *m = tr->m;
    int st = cl_forward(tr, c->p);
    if (st != CP_OK)
        return st;
    cl_int n = tr->batch * m->out_width;
    cl_ulong y_off = (cl_ulong)m->n_layers * c->stride;
    float s = 2.0f / (float)n;
    SET(c->k_outgrad, 0, c->acts);
    SET(c->k_outgrad, 1, y_off);
    SET(c->k_outgrad, 2, c->t);
    SET(c->k_outgrad, 3, c->g);
    SET(c->k_outgrad, 4, n);
    SET(c->k_outgrad, 5, s);
    if ((st = enqueue(c, c->k_outgrad, "tr_outgrad", 1, (size_t)n, 0)) != CP_OK)
        return st;
    float neg_lr = -tr->lr;
    cl_int batch = tr->batch;
    cl_mem g = c->g, gn = c->gn;
    for (int l = m->n_layers - 1; l >= 0; --l) {
        const cp_layer *ly = &m->layers[l];
        cl_int in = ly->in, out = ly->out, act = ly->act == CP_ACT_RELU, res = ly->residual;
        cl_int nz = batch * out;
        cl_ulong off = (cl_ulong)l * c->stride, w_off = ly->w_off, b_off = ly->b_off;
        SET(c->k_dz, 0, g);
        SET(c->k_dz, 1, c->z);
        SET(c->k_dz, 2, off);
        SET(c->k_dz, 3, c->dz);
        SET(c->k_dz, 4, nz);
        SET(c->k_dz, 5, act);
        if ((st = enqueue(c, c->k_dz, "tr_dz", 1, (size_t)nz, 0)) != CP_OK)
            return st;
        if (l > 0 && c->clblast) {
            cl_command_queue q = c->q;
            CLBlastStatusCode bs =
                CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo,
                             (size_t)batch, (size_t)in, (size_t)out, 1.0f, c->dz, 0, (size_t)out,
                             c->p, (size_t)w_off, (size_t)in, 0.0f, gn, 0, (size_t)in, &q, NULL);
            if (bs != CLBlastSuccess)
                return cp_err_set(CP_FAIL_RUNTIME, "CLBlastSgemm (dx, layer %d) failed: %s (%d)", l,
                                  cp_clblast_status_name(bs), (int)bs);
            if (res) {
                cl_int nx = batch * in;
                SET(c->k_add, 0, gn);
                SET(c->k_add, 1, g);
                SET(c->k_add, 2, nx);
                if ((st = enqueue(c, c->k_add, "tr_add", 1, (size_t)nx, 0)) != CP_OK)
                    return st;
            }
        } else if (l > 0) {
            SET(c->k_dx, 0, c->dz);
            SET(c->k_dx, 1, c->p);
            SET(c->k_dx, 2, w_off);
            SET(c->k_dx, 3, g);
            SET(c->k_dx, 4, gn);
            SET(c->k_dx, 5, in);
            SET(c->k_dx, 6, out);
            SET(c->k_dx, 7, res);
            if ((st = enqueue(c, c->k_dx, "tr_dx", 2, (size_t)in, (size_t)batch)) != CP_OK)
                return st;
        }
        /* plain SGD updates W and the bias in place (neither is read again in this step);
         * the other optimizers keep the whole gradient G for their update after the loop */
        if (c->clblast) {
            cl_command_queue q = c->q;
            CLBlastStatusCode bs =
                CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeYes, CLBlastTransposeNo,
                             (size_t)out, (size_t)in, (size_t)batch, 1.0f, c->dz, 0, (size_t)out,
                             c->acts, (size_t)off, (size_t)in, 0.0f, tr->needs_grad ? c->G : c->gw,
                             tr->needs_grad ? (size_t)w_off : 0, (size_t)in, &q, NULL);
            if (bs != CLBlastSuccess)
                return cp_err_set(CP_FAIL_RUNTIME, "CLBlastSgemm (gW, layer %d) failed: %s (%d)", l,
                                  cp_clblast_status_name(bs), (int)bs);
        }
        /* tr_grad_w and tr_grad_b take tr_update_w's and tr_update_b's arguments but −lr,
         * with G in place of the parameters */
        cl_kernel kw = tr->needs_grad ? c->k_gw : c->k_upw,
                  kb = tr->needs_grad ? c->k_gb : c->k_upb;
        cl_mem dst = tr->needs_grad ? c->G : c->p;
        if (c->clblast && !tr->needs_grad) {
            cl_int nw = in * out;
            SET(c->k_axpy, 0, c->p);
            SET(c->k_axpy, 1, w_off);
            SET(c->k_axpy, 2, c->gw);
            SET(c->k_axpy, 3, nw);
            SET(c->k_axpy, 4, neg_lr);
            if ((st = enqueue(c, c->k_axpy, "tr_axpy", 1, (size_t)nw, 0)) != CP_OK)
                return st;
        } else if (!c->clblast) {
            SET(kw, 0, c->dz);
            SET(kw, 1, c->acts);
            SET(kw, 2, off);
            SET(kw, 3, dst);
            SET(kw, 4, w_off);
            SET(kw, 5, in);
            SET(kw, 6, out);
            SET(kw, 7, batch);
            if (!tr->needs_grad)
                SET(kw, 8, neg_lr);
            if ((st = enqueue(c, kw, tr->needs_grad ? "tr_grad_w" : "tr_update_w", 2, (size_t)in,
                              (size_t)out)) != CP_OK)
                return st;
        }
        if (ly->has_bias) {
            SET(kb, 0, c->dz);
            SET(kb, 1, dst);
            SET(kb, 2, b_off);
            SET(kb, 3, out);
            SET(kb, 4, batch);
            if (!tr->needs_grad)
                SET(kb, 5, neg_lr);
            if ((st = enqueue(c, kb, tr->needs_grad ? "tr_grad_b" : "tr_update_b", 1, (size_t)out,
                              0)) != CP_OK)
                return st;
        }
        cl_mem tmp = g;
        g = gn;
        gn = tmp;
    }
    ++tr->step;
    if (tr->needs_grad && (st = cl_optim(tr)) != CP_OK)
        return st;
    /* The output was computed by this step's forward; reading it after the updates is safe:
     * the backward never writes the last layer's activations. */
    if ((st = cl_read_output(tr, c->y)) != CP_OK)
        return st;
    *loss = train_loss_f32(c->y, c->t_host, (size_t)n);
    return CP_OK;
}

/* The training kernels' probe: three SGD steps of the probe model (odd widths, biases, a
 * rectangular layer, no activation on one, residuals) on cl:own and on host:exact must leave
 * the same weights, bit for bit. */
static int train_probe_run(const cp_device *dev, void *ctx, struct cp_probe_class cls,
                           enum cp_probe_verdict *v, char *why, size_t why_len)
{
    (void)ctx;
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
    train_probing = true;
    int rc = cp_trainer_create("cl:own", dev, &m, batch, x, t, 0.01, &tc);
    train_probing = false;
    if (rc == CP_OK)
        rc = cp_trainer_create("host:exact", dev, &m, batch, x, t, 0.01, &th);
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
    cl_kernel k = clCreateKernel(tr->c.prog, "tr_divsqrt", &rc);
    if (rc != CL_SUCCESS)
        return cp_err_set(CP_FAIL_RUNTIME, "clCreateKernel(tr_divsqrt) failed: %s (%d)",
                          cp_cl_error_name(rc), rc);
    cp_ulp_stats sd, ss;
    int st = ulp_run(tr->c.ctx, tr->c.q, k, 1, ULP_REF_DIV, false, TRAIN_DIVSQRT_PROBE_N, 1337,
                     NULL, NULL, &sd);
    if (st == CP_OK)
        st = ulp_run(tr->c.ctx, tr->c.q, k, 0, ULP_REF_SQRT, false, TRAIN_DIVSQRT_PROBE_N, 1337,
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

/* cl:own's probes: the training kernels (three SGD steps), and adam and adamw's div/sqrt way
 * (one verdict per way, ids -10 - way). The first that fails gives the reason. */
static int cl_probe(cp_trainer *tr, const cp_device *dev)
{
    const struct cp_probe_class cls = {false, false, false, -1};
    enum cp_probe_verdict v;
    int st = cp_probe_cached(dev, -3, "train", cls, train_probe_run, NULL, &v, tr->probe_why,
                             sizeof tr->probe_why);
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

const char *cp_trainer_probe(const cp_trainer *tr, int *ok)
{
    *ok = tr->probe;
    return tr->probe_why;
}

void cp_optim_default(enum cp_optim_kind kind, double lr, cp_optim *o)
{
    *o = (cp_optim){.kind = kind,
                    .lr = lr,
                    .momentum = kind == CP_OPTIM_MOMENTUM ? 0.9 : 0.0,
                    .beta1 = 0.9,
                    .beta2 = 0.999,
                    .eps = 1e-8,
                    .weight_decay = kind == CP_OPTIM_ADAMW ? 1e-2 : 0.0};
}

size_t cp_optim_tensors(const cp_optim *o)
{
    return train_needs_grad(o) ? 1 + train_state_count(o->kind) : 0;
}

const char *cp_optim_name(enum cp_optim_kind kind)
{
    switch (kind) {
    case CP_OPTIM_SGD:
        return "sgd";
    case CP_OPTIM_MOMENTUM:
        return "momentum";
    case CP_OPTIM_ADAM:
        return "adam";
    case CP_OPTIM_ADAMW:
        return "adamw";
    }
    return "?";
}

/* PyTorch's own checks (torch.optim.SGD, Adam, AdamW), and ours: momentum > 0 for the
 * momentum optimizer (0 is plain SGD), eps > 0, every value finite. */
int cp_optim_check(const cp_optim *o)
{
    const char *name = cp_optim_name(o->kind);
    bool adam = o->kind == CP_OPTIM_ADAM || o->kind == CP_OPTIM_ADAMW;
    if (!(o->lr >= 0.0) || !isfinite(o->lr))
        return cp_err_set(CP_FAIL_USAGE, "lr %g: must be a finite number >= 0", o->lr);
    if (!(o->weight_decay >= 0.0) || !isfinite(o->weight_decay))
        return cp_err_set(CP_FAIL_USAGE, "weight_decay %g: must be a finite number >= 0",
                          o->weight_decay);
    if (o->kind == CP_OPTIM_MOMENTUM && (!(o->momentum > 0.0) || !isfinite(o->momentum)))
        return cp_err_set(CP_FAIL_USAGE,
                          "momentum %g: the momentum optimizer needs a finite momentum > 0 (0 is "
                          "plain SGD: --optimizer sgd)",
                          o->momentum);
    if (o->kind != CP_OPTIM_MOMENTUM && o->momentum != 0.0)
        return cp_err_set(CP_FAIL_USAGE, "momentum applies to the momentum optimizer, not %s",
                          name);
    if (o->nesterov && o->kind != CP_OPTIM_MOMENTUM)
        return cp_err_set(CP_FAIL_USAGE,
                          "nesterov needs momentum > 0: it applies to the momentum optimizer, "
                          "not %s",
                          name);
    if (adam && !(o->beta1 >= 0.0 && o->beta1 < 1.0))
        return cp_err_set(CP_FAIL_USAGE, "betas: beta1 %g is not in [0, 1)", o->beta1);
    if (adam && !(o->beta2 >= 0.0 && o->beta2 < 1.0))
        return cp_err_set(CP_FAIL_USAGE, "betas: beta2 %g is not in [0, 1)", o->beta2);
    if (adam && (!(o->eps > 0.0) || !isfinite(o->eps)))
        return cp_err_set(CP_FAIL_USAGE, "eps %g: must be a finite number > 0", o->eps);
    return CP_OK;
}

int cp_trainer_create(const char *engine, const cp_device *dev, const cp_model *m, int batch,
                      const float *x, const float *t, double lr, cp_trainer **out)
{
    cp_optim o;
    cp_optim_default(CP_OPTIM_SGD, lr, &o);
    return cp_trainer_create_optim(engine, dev, m, batch, x, t, &o, out);
}

int cp_trainer_create_optim(const char *engine, const cp_device *dev, const cp_model *m, int batch,
                            const float *x, const float *t, const cp_optim *o, cp_trainer **out)
{
    *out = NULL;
    int st = cp_optim_check(o);
    if (st != CP_OK)
        return st;
    cp_trainer *tr = calloc(1, sizeof *tr);
    if (!tr)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory for the trainer");
    tr->m = m;
    tr->batch = batch;
    tr->lr = (float)o->lr;
    tr->opt = *o;
    tr->needs_grad = train_needs_grad(o);
    tr->div_sqrt = "";
    tr->div_way = -1;
    tr->probe = -1;
    bool cr = strcmp(engine, "host:cr") == 0 || strcmp(engine, "cl:cr") == 0;
    if (cr && tr->needs_grad) {
        st = cp_err_set(CP_FAIL_USAGE,
                        "%s trains with plain SGD only (--optimizer sgd, no --weight-decay): "
                        "issue 23's contract covers the sums and the fused update, not %s",
                        engine, cp_optim_name(o->kind));
    } else if (strcmp(engine, "host:exact") == 0 || strcmp(engine, "host:cr") == 0) {
        tr->kind = cr ? TK_CR : TK_EXACT;
        st = train_host_create_f32(&tr->h, m, batch, x, t, o);
        if (st == CP_OK && cr)
            st = cr_check_inputs(m, engine);
    } else if (strcmp(engine, "host:f64") == 0) {
        tr->kind = TK_F64;
        st = train_host_create_f64(&tr->h, m, batch, x, t, o);
    } else if (strcmp(engine, "host:openblas") == 0) {
        tr->kind = TK_BLAS;
        st = train_host_create_f32(&tr->h, m, batch, x, t, o);
    } else if (strcmp(engine, "cl:own") == 0 || strcmp(engine, "cl:clblast") == 0 ||
               strcmp(engine, "cl:relaxed") == 0 || strcmp(engine, "cl:cr") == 0) {
        tr->kind = strcmp(engine, "cl:own") == 0       ? TK_CL
                   : strcmp(engine, "cl:clblast") == 0 ? TK_CLBLAST
                   : strcmp(engine, "cl:cr") == 0      ? TK_CL_CR
                                                       : TK_RELAXED;
        tr->c.clblast = tr->kind == TK_CLBLAST;
        tr->c.relaxed = tr->kind == TK_RELAXED;
        tr->c.cr = tr->kind == TK_CL_CR;
        st = tr->c.cr ? cr_check_inputs(m, engine) : CP_OK;
        if (st == CP_OK)
            st = cl_create(tr, dev, x, t);
        if (st == CP_OK && tr->kind == TK_CL && !train_probing && !cp_own_probe_off())
            st = cl_probe(tr, dev);
    } else {
        st = cp_err_set(CP_FAIL_USAGE, "train does not support the engine %s", engine);
    }
    if (st != CP_OK) {
        cp_trainer_destroy(tr);
        return st;
    }
    *out = tr;
    return CP_OK;
}

int cp_trainer_step(cp_trainer *tr, double *loss)
{
    switch (tr->kind) {
    case TK_EXACT:
        train_host_step_f32(&tr->h, loss);
        return CP_OK;
    case TK_F64:
        train_host_step_f64(&tr->h, loss);
        return CP_OK;
    case TK_BLAS:
        return train_blas_step(&tr->h, loss);
    case TK_CR:
        train_cr_step(&tr->h, loss);
        return CP_OK;
    case TK_CL:
    case TK_CLBLAST:
    case TK_RELAXED:
    case TK_CL_CR:
        return cl_step(tr, loss);
    }
    return cp_err_set(CP_FAIL_RUNTIME, "bad trainer");
}

enum cp_dtype cp_trainer_dtype(const cp_trainer *tr)
{
    return tr->kind == TK_F64 ? CP_F64 : CP_F32;
}

size_t cp_trainer_state_count(const cp_trainer *tr)
{
    return train_state_count(tr->opt.kind);
}

const char *cp_trainer_state_name(const cp_trainer *tr, size_t k)
{
    return train_state_name(tr->opt.kind, k);
}

int cp_trainer_state(cp_trainer *tr, size_t k, void *dst)
{
    size_t n = tr->m->n_params;
    if (k >= cp_trainer_state_count(tr))
        return cp_err_set(CP_FAIL_RUNTIME, "the %s optimizer has no state tensor %zu",
                          cp_optim_name(tr->opt.kind), k);
    if (!on_device(tr)) {
        memcpy(dst, tr->h.st[k], n * cp_dtype_size(cp_trainer_dtype(tr)));
        return CP_OK;
    }
    cl_int rc = clEnqueueReadBuffer(tr->c.q, tr->c.st[k], CL_TRUE, 0, n * sizeof(float), dst, 0,
                                    NULL, NULL);
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clEnqueueReadBuffer(optimizer state)");
    return CP_OK;
}

const char *cp_trainer_div_sqrt(const cp_trainer *tr)
{
    return tr->div_sqrt;
}

const char *cp_trainer_build_options(const cp_trainer *tr)
{
    return on_device(tr) ? tr->build_options : "";
}

int cp_trainer_weights(cp_trainer *tr, void *dst)
{
    size_t n = tr->m->n_params;
    if (!on_device(tr)) {
        memcpy(dst, tr->h.p, n * cp_dtype_size(cp_trainer_dtype(tr)));
        return CP_OK;
    }
    cl_int rc =
        clEnqueueReadBuffer(tr->c.q, tr->c.p, CL_TRUE, 0, n * sizeof(float), dst, 0, NULL, NULL);
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clEnqueueReadBuffer(weights)");
    return CP_OK;
}

int cp_trainer_poke_ulp(cp_trainer *tr, size_t i)
{
    if (i >= tr->m->n_params)
        return cp_err_set(CP_FAIL_RUNTIME, "test hook: weight %zu out of range", i);
    if (tr->kind == TK_F64) {
        double *p = tr->h.p;
        p[i] = nextafter(p[i], INFINITY);
        return CP_OK;
    }
    if (tr->kind == TK_EXACT || tr->kind == TK_BLAS || tr->kind == TK_CR) {
        float *p = tr->h.p;
        p[i] = nextafterf(p[i], INFINITY);
        return CP_OK;
    }
    float v;
    cl_int rc =
        clEnqueueReadBuffer(tr->c.q, tr->c.p, CL_TRUE, i * sizeof v, sizeof v, &v, 0, NULL, NULL);
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clEnqueueReadBuffer(test hook)");
    v = nextafterf(v, INFINITY);
    rc = clEnqueueWriteBuffer(tr->c.q, tr->c.p, CL_TRUE, i * sizeof v, sizeof v, &v, 0, NULL, NULL);
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clEnqueueWriteBuffer(test hook)");
    return CP_OK;
}

static int cl_roundtrip(cp_trainer *tr, float *y, int *ok)
{
    struct train_cl *c = &tr->c;
    const cp_model *m = tr->m;
    size_t n = m->n_params, nt = (size_t)tr->batch * (size_t)m->out_width;
    float *w = malloc((n ? n : 1) * sizeof *w);
    float *back = malloc((n ? n : 1) * sizeof *back);
    float *y1 = malloc((nt ? nt : 1) * sizeof *y1);
    cl_mem p2 = NULL;
    int st = CP_OK;
    if (!w || !back || !y1) {
        st = cp_err_set(CP_FAIL_RUNTIME, "round trip: out of memory");
        goto out;
    }
    if ((st = cp_trainer_weights(tr, w)) != CP_OK || (st = cl_forward(tr, c->p)) != CP_OK ||
        (st = cl_read_output(tr, y1)) != CP_OK)
        goto out;
    if ((st = cl_buffer(c, n, NULL, &p2, "round-trip weights")) != CP_OK)
        goto out;
    cl_int rc = clEnqueueWriteBuffer(c->q, p2, CL_TRUE, 0, n * sizeof(float), w, 0, NULL, NULL);
    if (rc != CL_SUCCESS) {
        st = cp_err_cl(rc, "clEnqueueWriteBuffer(round-trip weights)");
        goto out;
    }
    rc = clEnqueueReadBuffer(c->q, p2, CL_TRUE, 0, n * sizeof(float), back, 0, NULL, NULL);
    if (rc != CL_SUCCESS) {
        st = cp_err_cl(rc, "clEnqueueReadBuffer(round-trip weights)");
        goto out;
    }
    if ((st = cl_forward(tr, p2)) != CP_OK || (st = cl_read_output(tr, y)) != CP_OK)
        goto out;
    *ok = memcmp(w, back, n * sizeof(float)) == 0 && memcmp(y1, y, nt * sizeof(float)) == 0;
out:
    if (p2)
        clReleaseMemObject(p2);
    free(w);
    free(back);
    free(y1);
    return st;
}

int cp_trainer_roundtrip(cp_trainer *tr, void *y, int *ok)
{
    if (on_device(tr))
        return cl_roundtrip(tr, y, ok);
    const cp_model *m = tr->m;
    size_t es = cp_dtype_size(cp_trainer_dtype(tr));
    size_t n = m->n_params, nt = (size_t)tr->batch * (size_t)m->out_width;
    void *w = malloc((n ? n : 1) * es), *y1 = malloc((nt ? nt : 1) * es);
    if (!w || !y1) {
        free(w);
        free(y1);
        return cp_err_set(CP_FAIL_RUNTIME, "round trip: out of memory");
    }
    const char *yo = (const char *)tr->h.acts + (size_t)m->n_layers * tr->h.stride * es;
    memcpy(w, tr->h.p, n * es);
    if (tr->kind == TK_BLAS)
        train_blas_forward(&tr->h, tr->h.p);
    else if (tr->kind == TK_CR)
        train_cr_forward(&tr->h, tr->h.p);
    else if (tr->kind == TK_EXACT)
        train_host_forward_f32(&tr->h, tr->h.p);
    else
        train_host_forward_f64(&tr->h, tr->h.p);
    memcpy(y1, yo, nt * es);
    if (tr->kind == TK_BLAS)
        train_blas_forward(&tr->h, w);
    else if (tr->kind == TK_CR)
        train_cr_forward(&tr->h, w);
    else if (tr->kind == TK_EXACT)
        train_host_forward_f32(&tr->h, w);
    else
        train_host_forward_f64(&tr->h, w);
    memcpy(y, yo, nt * es);
    *ok = memcmp(y1, y, nt * es) == 0;
    free(w);
    free(y1);
    return CP_OK;
}

void cp_trainer_destroy(cp_trainer *tr)
{
    if (!tr)
        return;
    if (on_device(tr)) {
        struct train_cl *c = &tr->c;
        cl_mem *ms[] = {&c->p,  &c->acts, &c->z, &c->t,     &c->g,    &c->gn,
                        &c->dz, &c->gw,   &c->G, &c->st[0], &c->st[1]};
        for (size_t i = 0; i < sizeof ms / sizeof ms[0]; ++i)
            if (*ms[i])
                clReleaseMemObject(*ms[i]);
        cl_kernel ks[] = {c->k_fwd, c->k_outgrad, c->k_dz, c->k_dx, c->k_upw, c->k_upb, c->k_epi,
                          c->k_add, c->k_axpy,    c->k_gw, c->k_gb, c->k_sgd, c->k_mom, c->k_adam};
        for (size_t i = 0; i < sizeof ks / sizeof ks[0]; ++i)
            if (ks[i])
                clReleaseKernel(ks[i]);
        if (c->prog)
            clReleaseProgram(c->prog);
        if (c->q)
            clReleaseCommandQueue(c->q);
        if (c->ctx)
            clReleaseContext(c->ctx);
        free(c->y);
        free(c->t_host);
    } else {
        train_host_free(&tr->h);
    }
    free(tr);
}
