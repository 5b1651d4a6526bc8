/* Training: plain SGD on the model with an MSE loss, on the host (host:exact in float with
 * fmaf, host:f64 in double) and on OpenCL devices (cl:own, clkernels/train.cl, the weights
 * kept on the device between steps). The exact engines use one fixed order of operations, so
 * that their weights are bit-identical at every step on every conforming device.
 *
 * One step, for rows b < B of the input x and the target t, N = B · out_width:
 * - forward, keeping every layer's input a_l and pre-activation z_l:
 *     z[b][o] = fma(a[b][k], W[o][k], acc) over k ascending from 0, then + bias[o];
 *     a'[b][o] = (residual ? a[b][o] : 0) + act(z[b][o])   (ReLU (v <= 0) ? 0 : v);
 * - loss = Σ_i ((double)y_i − (double)t_i)² / N, in double, i ascending (reported only);
 * - output gradient g = s · (y − t) with s = 2 / N, each operation rounded in the engine's
 *   type (float: s = 2.0f / (float)N);
 * - backward, layers last to first, with the pre-update W:
 *     dz = act ? (z > 0 ? g : 0) : g       (ReLU' is 0 at z == 0 and for NaN, as PyTorch);
 *     dx[b][k] = fma(dz[b][o], W[o][k], acc) over o ascending from 0, then + g[b][k] once
 *                when the layer has a residual;   (not computed for the first layer)
 *     gW[o][k] = fma(dz[b][o], a[b][k], acc) over b ascending from 0;
 *     gb[o] = acc + dz[b][o] over b ascending from 0;
 *     W = fma(−lr, gW, W), bias = fma(−lr, gb, bias), with lr rounded to float first
 *     (host:f64 uses that float's value in double).
 * That fused update is plain SGD (--optimizer sgd, weight decay 0), unchanged. Every other
 * optimizer keeps the whole gradient G (gW and gb, in the parameters' layout) and then updates
 * every parameter i in order with the single-tensor (foreach=False) formulas of PyTorch's
 * torch/optim/sgd.py and adam.py, operation for operation, each rounded in the engine's type
 * (float, or double for host:f64). Scalars that PyTorch computes in Python are computed in
 * double and rounded to float (host:f64: kept) where they meet a tensor: f(x) below. ATen's
 * CPU kernels fix what each tensor operation rounds: add(other, alpha) is fma(other, alpha,
 * self) (ufunc/add.h), lerp with |weight| < 0.5 is fma(weight, end − start, start) and else
 * fma(weight − 1, end − start, end) (cpu/LerpKernel.cpp), addcmul is self + (value·t1)·t2 and
 * addcdiv self + (value·t1) / t2 (cpu/PointwiseOpsKernel.cpp), a tensor / a Python number a
 * true division. t is the step (1, 2, …), lr the float lr's value as a double, wd the weight
 * decay; the hyperparameters are the doubles given.
 *   sgd (wd > 0):  g = fma(p, f(wd), G);  p = fma(g, f(−lr), p)
 *   momentum (mu > 0; dampening 0, so add_(g, alpha = 1 − 0) is b + g):
 *       g = G, then g = fma(p, f(wd), g) when wd ≠ 0;
 *       b = g at t = 1 (PyTorch's clone), else b = b · f(mu), then b = b + g;
 *       g = nesterov ? fma(b, f(mu), g) : b;  p = fma(g, f(−lr), p)
 *   adam, adamw:
 *       g = G; adam with wd ≠ 0: g = fma(p, f(wd), g);
 *              adamw with wd ≠ 0: p = p · f(1 − lr·wd)          (decoupled, before the moments)
 *       w = f(1 − beta1);  m = |w| < 0.5 ? fma(w, g − m, m) : fma(w − 1, g − m, g)   (lerp)
 *       v = v · f(beta2);  v = v + (f(1 − beta2) · g) · g                          (addcmul)
 *       bc1 = 1 − beta1^t, bc2 = 1 − beta2^t, step_size = lr / bc1, bc2_sqrt = sqrt(bc2),
 *       all in double (beta^t by double-double square-and-multiply, within about 2^-100
 *       before its last rounding: the correctly rounded power but for near-ties; never
 *       libm's pow);
 *       denom = sqrt(v) / f(bc2_sqrt) + f(eps);  p = p + (f(−step_size) · m) / denom  (addcdiv)
 *   with m and v starting at 0 (zeros_like) and b at PyTorch's first-step clone; amsgrad and
 *   maximize are not supported. / and sqrt must be correctly rounded, and cl:own takes the
 *   first of three ways that the device can (cp_trainer_div_sqrt names it; the environment's
 *   CLPARITY_TRAIN_DIVSQRT=device|double|float forces one, for tests):
 *   - device: built with -cl-fp32-correctly-rounded-divide-sqrt, where the device reports
 *     CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT;
 *   - double: computed in double (cl_khr_fp64 on a full-profile device, where / and sqrt are
 *     correctly rounded) and rounded to float, which gives the correctly rounded float (double
 *     rounding is innocuous for / and sqrt at 53 ≥ 2·24 + 2 bits, Figueroa);
 *   - float: in float, the device's / or sqrt corrected with exactly signed fma residuals
 *     (clkernels/divsqrt.cl, its proof there and in docs/TRAINING.md), for a device with
 *     neither (Mesa's rusticl on llvmpipe).
 *   cl:own's kernels then run a probe of the way (train.cl's tr_divsqrt against the host on
 *   clparity ulp's special values and hard cases, kept like the training probe's verdict): a
 *   device that does not deliver fails it. cl:relaxed trains with the same kernels built with
 *   fast math (-cl-fast-relaxed-math -cl-mad-enable, a * b + c in the sums, native_divide and
 *   native_sqrt in the update): its weights may drift, and nothing about them is promised.
 * The correctly rounded engines (host:cr, hostblas/train_cr.c; cl:cr, clkernels/cr.cl's
 * CR_TRAIN kernels) take the steps of every optimizer with every sum exact and rounded once
 * (RN, the contract of docs/ENGINES.md's "host:cr and cl:cr", in any order):
 * z = RN(Σ_k a·W + bias), then act and RN(a[b][o] + act(z));
 * dx = RN(Σ_o dz·W[o][k] + (residual ? g[b][k] : nothing));
 * gW = RN(Σ_b dz·a); gb = RN(Σ_b dz); g, dz and the optimizers' updates as above, each one
 * correctly rounded float operation (cl:cr's through its accumulator, on the bits; its / and
 * sqrt the float way, whatever the device: docs/TRAINING.md). */
#ifndef CLPARITY_TRAIN_H
#define CLPARITY_TRAIN_H

#include "clparity/export.h"
#include "clparity/device.h"
#include "clparity/model.h"
#include "clparity/npy.h"

#include <stdbool.h>
#include <stddef.h>

CP_API_BEGIN

typedef struct cp_trainer cp_trainer; /* opaque */

/* Whether train supports this engine name ("cl:own", "cl:clblast", "cl:relaxed", "cl:cr",
 * "host:exact", "host:f64", "host:cr", "host:openblas"): whether its cp_engine_info has training
 * ops (clparity/engine.h, .train). */
bool cp_train_engine_supported(const char *engine);

/* The part an engine's results play in a training run. */
enum cp_train_role {
    CP_TRAIN_PLAIN,     /* measured, never the measure */
    CP_TRAIN_BASELINE,  /* host:exact: every result's weights are measured against its own */
    CP_TRAIN_REFERENCE, /* host:f64: the float64 reference */
    CP_TRAIN_CR_BASE,   /* host:cr: runs beside every correctly rounded engine, its twin */
};

/* An engine's training traits, data of its training ops (cp_train_traits_of). */
typedef struct cp_train_traits {
    enum cp_train_role role;
    /* The result whose bits it must have at every recorded step, whose forward of the final
     * weights it must give (and, for CP_TRAIN_BASELINE, whose optimizer state): cl:own
     * CP_TRAIN_BASELINE, cl:cr CP_TRAIN_CR_BASE; CP_TRAIN_PLAIN: none. */
    enum cp_train_role twin;
    bool by_default; /* trained without --engines naming it: cl:own, host:exact, host:f64 */
    bool cr;         /* correctly rounded (cl:cr, host:cr) */
    bool drifts;     /* fast math (cl:relaxed): its weights may drift; reported, never checked */
} cp_train_traits;

struct cp_train_ops; /* runtime/train/train-impl.h */
/* The traits of training ops (cp_engine_info's .train); NULL for NULL (not trainable). */
const cp_train_traits *cp_train_traits_of(const struct cp_train_ops *ops);

enum cp_optim_kind { CP_OPTIM_SGD, CP_OPTIM_MOMENTUM, CP_OPTIM_ADAM, CP_OPTIM_ADAMW };

/* An optimizer and its hyperparameters, as PyTorch names them (above). */
typedef struct cp_optim {
    enum cp_optim_kind kind;
    double lr;           /* used as (float)lr's value, as plain SGD does */
    double momentum;     /* momentum: > 0 */
    bool nesterov;       /* momentum only */
    double beta1, beta2; /* adam, adamw: each in [0, 1) */
    double eps;          /* adam, adamw: > 0 */
    double weight_decay; /* >= 0 */
} cp_optim;

/* kind's defaults, PyTorch's: momentum 0.9 (PyTorch's SGD has 0, which is plain SGD: our
 * `momentum` needs one), nesterov off, betas (0.9, 0.999), eps 1e-8, weight decay 0, and 1e-2
 * for adamw; lr as given. */
void cp_optim_default(enum cp_optim_kind kind, double lr, cp_optim *o);
/* How many tensors of the parameters' size o keeps beside the weights: 0 for plain SGD
 * without weight decay, else the gradient and the state (sgd 1, momentum 2, adam and adamw 3). */
size_t cp_optim_tensors(const cp_optim *o);
/* "sgd", "momentum", "adam", "adamw". */
const char *cp_optim_name(enum cp_optim_kind kind);
/* CP_OK, or CP_FAIL_USAGE with cp_err_msg() naming the bad value as the PyTorch parameter
 * (lr, momentum, betas, eps, weight_decay, nesterov). */
int cp_optim_check(const cp_optim *o);

/* CLPARITY_TRAIN_DIVSQRT's values, in order: the way of / and sqrt that adam and adamw take on
 * an OpenCL device when the variable forces one. */
#define CP_TRAIN_DIVSQRT_CHOICES "device,double,float"
/* CLPARITY_TRAIN_DIVSQRT: *way is -1 when it is unset or empty, else its index in
 * CP_TRAIN_DIVSQRT_CHOICES; another value is CP_FAIL_USAGE with cp_err_msg() naming it. */
int cp_train_divsqrt_env(int *way);

/* CP_OK, or CP_FAIL_USAGE with the reason when cl:own cannot run o on dev (adam and adamw with
 * CLPARITY_TRAIN_DIVSQRT naming another value or a way the device cannot take); before any
 * work. Without the variable every OpenCL device has a way. */
int cp_train_check_device(const cp_device *dev, const cp_optim *o);

/* Copies the model's weights (host:f64 widens them) and uploads them for cl:own. x and t
 * are batch × in_width and batch × out_width floats; they are copied. lr is used as
 * (float)lr. Errors: CP_FAIL_RUNTIME (OpenCL, allocation) with cp_err_msg() set. Plain SGD. */
int cp_trainer_create(const char *engine, const cp_device *dev, const cp_model *m, int batch,
                      const float *x, const float *t, double lr, cp_trainer **out);
/* The same with optimizer o (checked as cp_optim_check does; cp_train_check_device's refusals
 * are CP_FAIL_USAGE here too). engine may also be "cl:relaxed". */
int cp_trainer_create_optim(const char *engine, const cp_device *dev, const cp_model *m, int batch,
                            const float *x, const float *t, const cp_optim *o, cp_trainer **out);
/* One step as above; *loss is the loss of this step's forward (before the update). */
int cp_trainer_step(cp_trainer *tr, double *loss);
/* CP_F32, or CP_F64 for host:f64. */
enum cp_dtype cp_trainer_dtype(const cp_trainer *tr);
/* The current weights: m->n_params elements of the trainer's dtype (read from the device
 * for cl:own). */
int cp_trainer_weights(cp_trainer *tr, void *dst);
/* The same without a copy: *out points to the weights where the host trainers keep them, or
 * where an OpenCL trainer has just read them (its pinned host buffer). Read only, and valid
 * until the trainer's next call (`train` measures every step's weights through it). */
int cp_trainer_weights_view(cp_trainer *tr, const void **out);
/* The test hook: weight i moves one ULP up (on the device for cl:own). */
int cp_trainer_poke_ulp(cp_trainer *tr, size_t i);
/* The round trip of the final weights: read back, uploaded into fresh memory (a new buffer
 * for cl:own), and the forward run from there; y (batch × out_width of the dtype) gets that
 * output and *ok is 1 when it is bit-identical to the forward from the weights in place. */
int cp_trainer_roundtrip(cp_trainer *tr, void *y, int *ok);
/* The optimizer's state tensors, each n_params elements of the trainer's dtype in the
 * parameters' layout: none for sgd, "momentum_buffer" for momentum, "exp_avg" and
 * "exp_avg_sq" for adam and adamw (PyTorch's state keys). Before the first step they are 0. */
size_t cp_trainer_state_count(const cp_trainer *tr);
const char *cp_trainer_state_name(const cp_trainer *tr, size_t k);
int cp_trainer_state(cp_trainer *tr, size_t k, void *dst);
/* How the update divides and takes square roots (adam, adamw on OpenCL): "device
 * (-cl-fp32-correctly-rounded-divide-sqrt)", "double" or "float (fma correction)", and for
 * cl:relaxed "native (native_divide, native_sqrt; fast math)"; "" where it does neither (host
 * engines, sgd, momentum). */
const char *cp_trainer_div_sqrt(const cp_trainer *tr);
/* The build options of cl:own's program ("" for host engines). */
const char *cp_trainer_build_options(const cp_trainer *tr);
/* cl:own's training probe on its device (three SGD steps of a small model against host:exact,
 * bit for bit, and for adam and adamw the div/sqrt way's probe; kept in the program cache): *ok
 * 1 passed, 0 failed, -1 not an engine that is probed; returns the reason. */
const char *cp_trainer_probe(const cp_trainer *tr, int *ok);
void cp_trainer_destroy(cp_trainer *tr);

/* Multiply-adds of one training step (forward, dx and gW), for the simulator guard. */
double cp_train_step_macs(const cp_model *m, int batch);

CP_API_END

#endif
