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
 * The correctly rounded engines (host:cr, hostblas/train_cr.c; cl:cr, clkernels/cr.cl's
 * CR_TRAIN kernels) take the same steps with every sum exact and rounded once (RN, issue 23's
 * contract, in any order): z = RN(Σ_k a·W + bias), then act and RN(a[b][o] + act(z));
 * dx = RN(Σ_o dz·W[o][k] + (residual ? g[b][k] : nothing)); gW = RN(Σ_b dz·a);
 * gb = RN(Σ_b dz); g, dz and the updates as above (each one correctly rounded operation). */
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

/* Whether train supports this engine name ("cl:own", "host:exact", "host:f64", "cl:cr",
 * "host:cr", "cl:clblast", "host:openblas"). */
bool cp_train_engine_supported(const char *engine);

/* Copies the model's weights (host:f64 widens them) and uploads them for cl:own. x and t
 * are batch × in_width and batch × out_width floats; they are copied. lr is used as
 * (float)lr. Errors: CP_FAIL_RUNTIME (OpenCL, allocation) with cp_err_msg() set. */
int cp_trainer_create(const char *engine, const cp_device *dev, const cp_model *m, int batch,
                      const float *x, const float *t, double lr, cp_trainer **out);
/* One step as above; *loss is the loss of this step's forward (before the update). */
int cp_trainer_step(cp_trainer *tr, double *loss);
/* CP_F32, or CP_F64 for host:f64. */
enum cp_dtype cp_trainer_dtype(const cp_trainer *tr);
/* The current weights: m->n_params elements of the trainer's dtype (read from the device
 * for cl:own). */
int cp_trainer_weights(cp_trainer *tr, void *dst);
/* The test hook: weight i moves one ULP up (on the device for cl:own). */
int cp_trainer_poke_ulp(cp_trainer *tr, size_t i);
/* The round trip of the final weights: read back, uploaded into fresh memory (a new buffer
 * for cl:own), and the forward run from there; y (batch × out_width of the dtype) gets that
 * output and *ok is 1 when it is bit-identical to the forward from the weights in place. */
int cp_trainer_roundtrip(cp_trainer *tr, void *y, int *ok);
/* The build options of cl:own's program ("" for host engines). */
const char *cp_trainer_build_options(const cp_trainer *tr);
/* cl:own's training probe on its device (three SGD steps of a small model against host:exact,
 * bit for bit, kept in the program cache): *ok 1 passed, 0 failed, -1 not an engine that is
 * probed; returns the reason. */
const char *cp_trainer_probe(const cp_trainer *tr, int *ok);
void cp_trainer_destroy(cp_trainer *tr);

/* Multiply-adds of one training step (forward, dx and gW), for the simulator guard. */
double cp_train_step_macs(const cp_model *m, int batch);

CP_API_END

#endif
