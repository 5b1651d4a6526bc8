/* Private: the host trainers (hostblas/train_host.c), one per element type. */
#ifndef CLPARITY_TRAIN_IMPL_H
#define CLPARITY_TRAIN_IMPL_H

#include "clparity/model.h"

#include <stddef.h>

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
};

int train_host_create_f32(struct train_host *h, const cp_model *m, int batch, const float *x,
                          const float *t, double lr);
int train_host_create_f64(struct train_host *h, const cp_model *m, int batch, const float *x,
                          const float *t, double lr);
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
