/* Private: the trainer and its engines' training ops (runtime/train/train.c,
 * runtime/opencl/train_cl.c), and the host trainers (hostblas/train_host.c), one per element type.
 */
#ifndef CLPARITY_TRAIN_IMPL_H
#define CLPARITY_TRAIN_IMPL_H

#include "clparity/cache.h"
#include "clparity/engine.h"
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
/* The way adam and adamw divide and take square roots on dev (runtime/train/train_divsqrt.c):
 * CLPARITY_TRAIN_DIVSQRT's where set (CP_FAIL_USAGE where the device cannot take it), else the
 * device's own correctly rounded ones, else double, else float; and the report's name of a way
 * (cp_trainer_div_sqrt). */
int train_divsqrt_way(const cp_device *dev, enum train_divsqrt *way);
const char *train_divsqrt_name(enum train_divsqrt way);
/* Whether o divides and takes square roots: adam and adamw. */
bool train_divides(const cp_optim *o);

#include "train-optim-impl.h" /* the optimizers' state: train_state_count & co */

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
    void *gw;    /* plain SGD's one layer's weight gradient before the update, the largest layer's
                  * size (host:openblas, host:cr: train_host_alloc_gw) */
    void *st[2]; /* the optimizer's state tensors (train_state_count), n_params each */
    struct train_par *par; /* host:exact's and host:f64's threaded step (hostblas/train_par.c),
                            * NULL for the scalar loops */
    bool panels_fresh;     /* par's panels of W (wf, wt) hold p: set by its step, cleared by
                            * whatever else writes p or the panels (poke_ulp, a forward) */
    int isa; /* train_host_optim_'s level (TRAIN_ISA_*, below): the portable loop unless the
              * trainer sets another (host:openblas: CLPARITY_HOST_ISA's, as host:exact's) */
};

int train_host_create_f32(struct train_host *h, const cp_model *m, int batch, const float *x,
                          const float *t, const cp_optim *o);
int train_host_create_f64(struct train_host *h, const cp_model *m, int batch, const float *x,
                          const float *t, const cp_optim *o);
/* The optimizer's update of every parameter from h->grad, at step h->step (already counted),
 * in the order of clparity/train.h. */
void train_host_optim_f32(struct train_host *h);
void train_host_optim_f64(struct train_host *h);
/* The same compiled for an instruction-set level (hostblas/host-impl.h's ISA_AVX512, ISA_AVX2,
 * ISA_BASELINE, as TRAIN_ISA_*): the same bits at every level. */
enum { TRAIN_ISA_AVX512, TRAIN_ISA_AVX2, TRAIN_ISA_BASELINE };
void train_host_optim_isa_f32(struct train_host *h, size_t i0, size_t i1, int isa);
void train_host_optim_isa_f64(struct train_host *h, size_t i0, size_t i1, int isa);
/* The update of n parameters p from their gradients G and state st0, st1 (h->st[0], h->st[1]
 * at the same offset, NULL where o has none) with one step's scalars s, at a level: the
 * threaded step's, one span of a layer at a time. */
void train_host_optim_span_isa_f32(const cp_optim *o, const struct train_scalars *s, float *p,
                                   const float *G, float *st0, float *st1, size_t n, int isa);
void train_host_optim_span_isa_f64(const cp_optim *o, const struct train_scalars *s, double *p,
                                   const double *G, double *st0, double *st1, size_t n, int isa);
/* w[i] = fma(a, g[i], w[i]) for i < n (plain SGD's update in the backward), at a level. */
void train_host_axpy_isa_f32(float *w, const float *g, float a, size_t n, int isa);
void train_host_axpy_isa_f64(double *w, const double *g, double a, size_t n, int isa);
/* forward from params p into h->acts (and h->z); returns nothing: it cannot fail. */
void train_host_forward_f32(struct train_host *h, const void *p);
void train_host_forward_f64(struct train_host *h, const void *p);
void train_host_step_f32(struct train_host *h, double *loss);
void train_host_step_f64(struct train_host *h, double *loss);
void train_host_free(struct train_host *h);
/* h->gw for plain SGD (h->grad NULL; the other optimizers keep the whole gradient), es bytes an
 * element. */
int train_host_alloc_gw(struct train_host *h, size_t es);
/* host:exact's (f32) and host:f64's (f64) step and forward on the host pool with host:exact's
 * units (hostblas/train_par.c), the same bits as the scalar loops of train_host_tmpl.h.
 * train_par_create sets h->par after train_host_create_*: CLPARITY_HOST_EXACT=scalar leaves it
 * NULL (the scalar loops), CLPARITY_HOST_ISA picks the level as for host:exact's forward. */
int train_par_create(struct train_host *h, enum cp_dtype dtype);
void train_par_free(struct train_par *q);
void train_par_step_f32(struct train_host *h, double *loss);
void train_par_step_f64(struct train_host *h, double *loss);
void train_par_forward_f32(struct train_host *h, const void *p);
void train_par_forward_f64(struct train_host *h, const void *p);
/* host:cr's the same way with its fast path's units (the bits of train_cr_step): after
 * train_host_create_f32; CLPARITY_HOST_CR=scalar leaves h->par NULL (train_cr.c's loops). */
int train_par_create_cr(struct train_host *h);
void train_par_cr_step(struct train_host *h, double *loss);
void train_par_cr_forward(struct train_host *h, const void *p);

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

struct train_cl; /* runtime/opencl/train_cl.c: an OpenCL trainer's context, kernels and buffers */

/* A trainer (clparity/train.h): what every engine shares, and its engine's state. */
struct cp_trainer {
    const struct cp_train_ops *ops;
    const char *engine; /* its name, for messages */
    const cp_model *m;
    int batch;
    float lr;
    cp_optim opt;
    bool needs_grad; /* not the fused plain SGD update */
    long step;       /* steps done (cl:own, cl:clblast) */
    const char *div_sqrt;
    int div_way; /* enum train_divsqrt of adam and adamw on cl:own and cl:clblast; -1 none */
    struct train_host h;
    struct train_cl *c;
    char build_options[256];
    /* what the program cache did for its build (OpenCL engines; CP_CACHE_NONE: none built) */
    enum cp_cache_state build_cache;
    char build_cache_note[256];
    int probe; /* cl:own: 1 its kernels passed the training probe, 0 failed; -1 n/a */
    char probe_why[CP_PROBE_WHY];
};

/* An engine's training: its traits and its steps (cp_engine_info's .train). create fills the
 * engine's part of tr (tr->h or tr->c) from x and t; state and poke_ulp get a k and an i in
 * range; destroy releases what create made, also after a create that failed part way. warm
 * (NULL: nothing to warm) runs one step and puts the weights, the optimizer's state and the
 * step count back as create left them, bit for bit: a driver that finishes its kernels'
 * compilation at their first launch does it there, with the builds, not in the first step. */
struct cp_train_ops {
    cp_train_traits traits;
    enum cp_dtype dtype; /* of the weights */
    int (*create)(cp_trainer *tr, const cp_device *dev, const float *x, const float *t);
    int (*step)(cp_trainer *tr, double *loss);
    /* the current weights where the trainer keeps them, or read into its pinned staging
     * (cp_trainer_weights_view) */
    int (*view)(cp_trainer *tr, const void **out);
    int (*state)(cp_trainer *tr, size_t k, void *dst);
    int (*poke_ulp)(cp_trainer *tr, size_t i);
    int (*roundtrip)(cp_trainer *tr, void *y, int *ok);
    void (*destroy)(cp_trainer *tr);
    int (*warm)(cp_trainer *tr);
};

/* The engines' training ops, which runtime/engine/engine.c's table points to. */
extern const struct cp_train_ops train_ops_cl_own, train_ops_cl_clblast, train_ops_cl_relaxed,
    train_ops_cl_cr; /* runtime/opencl/train_cl.c */
extern const struct cp_train_ops train_ops_host_exact, train_ops_host_f64; /* train_exact.c */
extern const struct cp_train_ops train_ops_host_openblas;                  /* train_blas.c */
extern const struct cp_train_ops train_ops_host_cr;                        /* train_cr.c */

/* cp_trainer_create_optim for the engine of ops, named engine (runtime/train/train.c). */
int train_create(const struct cp_train_ops *ops, const char *engine, const cp_device *dev,
                 const cp_model *m, int batch, const float *x, const float *t, const cp_optim *o,
                 cp_trainer **out);

/* The host trainers' ops (hostblas/train_host.c): the weights, the state, the test hook's
 * poke and the release of tr->h; the round trip with the engine's forward. */
int train_host_view(cp_trainer *tr, const void **out);
int train_host_state(cp_trainer *tr, size_t k, void *dst);
int train_host_poke_ulp(cp_trainer *tr, size_t i);
int train_host_roundtrip(cp_trainer *tr, void *y, int *ok,
                         void (*forward)(struct train_host *h, const void *p));
void train_host_destroy(cp_trainer *tr);
/* The same for the trainers with h->par (host:exact, host:f64, host:cr): its state too. */
void train_par_destroy(cp_trainer *tr);

#endif
