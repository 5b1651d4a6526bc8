/* Private: the host trainers (hostblas/train_host.c), one per element type. */
#ifndef CLPARITY_TRAIN_IMPL_H
#define CLPARITY_TRAIN_IMPL_H

#include "clparity/model.h"
#include "clparity/train.h"

#include <stdbool.h>
#include <stddef.h>

/* One step's scalars of the optimizer (clparity/train.h), in double as PyTorch computes them
 * in Python; the float engines round each to float where it meets a tensor. */
struct train_scalars {
    double neg_lr;   /* −lr */
    double wd;       /* weight decay */
    double mom;      /* momentum */
    double w1;       /* 1 − beta1: lerp's weight */
    double beta2;    /* beta2 */
    double c2;       /* 1 − beta2: addcmul's value */
    double bc2_sqrt; /* sqrt(1 − beta2^t) */
    double nss;      /* −lr / (1 − beta1^t): addcdiv's value */
    double decay;    /* adamw: 1 − lr·wd */
    double eps;
    bool first; /* t == 1 */
};

/* The scalars of step t (1, 2, …) of o, with lr the float lr's value. */
void train_scalars_at(const cp_optim *o, long t, struct train_scalars *s);
/* b^n for n >= 0: the correctly rounded double of the exact power (double-double square and
 * multiply, about 2^-100 relative before the last rounding), without libm's pow. */
double train_pow_n(double b, long n);
/* The ways cl:own divides and takes square roots in adam and adamw's update, in the order of
 * CP_TRAIN_DIVSQRT_CHOICES (CLPARITY_TRAIN_DIVSQRT). */
enum train_divsqrt { TRAIN_DIVSQRT_DEVICE, TRAIN_DIVSQRT_DOUBLE, TRAIN_DIVSQRT_FLOAT };
/* train.cl's build options for a way, each after a space: -cl-fp32-correctly-rounded-divide-sqrt,
 * -DTR_DIVSQRT_DOUBLE, or -DTR_DIVSQRT_FLOAT with the defines of the test hooks divsqrt-skew
 * (each first guess up to 3 ULP off: the correction must still give the bits) and
 * divsqrt-no-correction (that and no correction: the planted error). */
void train_divsqrt_options(enum train_divsqrt way, char *buf, size_t len);

/* The number of state tensors of kind (0, 1 or 2) and their PyTorch names. */
size_t train_state_count(enum cp_optim_kind kind);
const char *train_state_name(enum cp_optim_kind kind, size_t k);
/* Whether the step needs the whole gradient and the optimizer's update rather than the fused
 * plain SGD update W = fma(−lr, gW, W). */
bool train_needs_grad(const cp_optim *o);

/* The host trainer's state; the arrays hold elements of float (host:exact) or double
 * (host:f64). */
struct train_host {
    const cp_model *m;
    int batch;
    size_t stride; /* batch × max_width: one layer's activations */
    void *p;       /* n_params */
    void *acts;    /* (n_layers + 1) × stride: every layer's input, then the output */
    void *z;       /* n_layers × stride: pre-activations */
    void *g, *gn, *dz;
    void *t; /* batch × out_width */
    double lr;
    cp_optim opt;
    long step;   /* steps done */
    void *grad;  /* n_params: the gradient, for the optimizers other than plain SGD */
    void *st[2]; /* the optimizer's state tensors (train_state_count), n_params each */
};

int train_host_create_f32(struct train_host *h, const cp_model *m, int batch, const float *x,
                          const float *t, const cp_optim *o);
int train_host_create_f64(struct train_host *h, const cp_model *m, int batch, const float *x,
                          const float *t, const cp_optim *o);
/* The optimizer's update of every parameter from h->grad, at step h->step (already counted),
 * in the order of clparity/train.h. */
void train_host_optim_f32(struct train_host *h);
void train_host_optim_f64(struct train_host *h);
/* forward from params p into h->acts (and h->z); returns nothing: it cannot fail. */
void train_host_forward_f32(struct train_host *h, const void *p);
void train_host_forward_f64(struct train_host *h, const void *p);
void train_host_step_f32(struct train_host *h, double *loss);
void train_host_step_f64(struct train_host *h, double *loss);
void train_host_free(struct train_host *h);

/* host:openblas: the float trainer with cblas_sgemm for the products (hostblas/train_blas.c);
 * its state comes from train_host_create_f32. */
void train_blas_forward(struct train_host *h, const void *p);
int train_blas_step(struct train_host *h, double *loss);

/* host:cr: the float trainer with every sum correctly rounded (hostblas/train_cr.c); its state
 * comes from train_host_create_f32. */
void train_cr_forward(struct train_host *h, const void *p);
void train_cr_step(struct train_host *h, double *loss);

/* The loss of DESIGN: Σ ((double)y − (double)t)² / n, i ascending. */
double train_loss_f32(const float *y, const float *t, size_t n);
double train_loss_f64(const double *y, const double *t, size_t n);

#endif
