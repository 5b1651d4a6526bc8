/* The host trainers: host:exact (float, fmaf) is cl:own's training twin bit for bit, and
 * host:f64 (double, fma) is the reference. Built, like every file, with -ffp-contract=off. */
#include "train-impl.h"

#include "clparity/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double train_loss_f32(const float *y, const float *t, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; ++i) {
        double d = (double)y[i] - (double)t[i];
        s = s + d * d;
    }
    return s / (double)n;
}

double train_loss_f64(const double *y, const double *t, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; ++i) {
        double d = y[i] - t[i];
        s = s + d * d;
    }
    return s / (double)n;
}

void train_host_free(struct train_host *h)
{
    free(h->p);
    free(h->acts);
    free(h->z);
    free(h->g);
    free(h->gn);
    free(h->dz);
    free(h->t);
    memset(h, 0, sizeof *h);
}

#define T float
#define FMA fmaf
#define SFX f32
#include "train_host_tmpl.h"
#undef T
#undef FMA
#undef SFX

#define T double
#define FMA fma
#define SFX f64
#include "train_host_tmpl.h"
#undef T
#undef FMA
#undef SFX
