/* The host engines' registry entries (clparity/engine.h's cp_engine_info; listed by
 * runtime/registry/registry.c): each one's traits as data, its ops (exact.c, host_cr.c, blas.c),
 * its training (train_host.c, train_blas.c, train_cr.c) and what it holds (its footprint). */
#include "host-impl.h"
#include "train-impl.h"

/* The footprints (cp_engine_footprint): f holds the default when they are called, the weights
 * once in the engine's dtype and two activation buffers. */

/* host:openblas reads the model's float weights in place. */
static void footprint_openblas(const cp_model *m, int batch, cp_footprint *f)
{
    (void)m;
    (void)batch;
    f->weights = 0;
    f->buffers = 3;
}

/* host:exact keeps the weights packed in panels of 16 outputs (padded: at most 15 rows more a
 * layer). */
static void footprint_exact(const cp_model *m, int batch, cp_footprint *f)
{
    (void)batch;
    f->weights +=
        15ULL * (unsigned long long)m->max_width * (unsigned long long)m->n_layers * sizeof(float);
}

/* host:cr: host:exact's panels, and each output's weight norm and the activations in double. */
static void footprint_host_cr(const cp_model *m, int batch, cp_footprint *f)
{
    footprint_exact(m, batch, f);
    f->weights += (unsigned long long)m->max_width * (unsigned long long)m->n_layers * 8ULL;
    f->buffers += 4;
}

const cp_engine_info cp_engine_host_openblas = {
    .name = "host:openblas",
    .kind = CP_DEV_HOST,
    .dtype = CP_F32,
    .summary = "OpenBLAS cblas_sgemv at batch 1, cblas_sgemm beyond, "
               "+ C epilogue",
    .in_sweep = true,
    .footprint = footprint_openblas,
    .ops = &cp_engine_ops_host_openblas,
    .train = &train_ops_host_openblas,
};

const cp_engine_info cp_engine_host_exact = {
    .name = "host:exact",
    .kind = CP_DEV_HOST,
    .dtype = CP_F32,
    .summary = "plain C in cl:own's order with fmaf, -ffp-contract=off (the baseline)",
    .role = CP_ROLE_BASELINE,
    .footprint = footprint_exact,
    .ops = &cp_engine_ops_host_exact,
    .train = &train_ops_host_exact,
};

const cp_engine_info cp_engine_host_f64 = {
    /* the default footprint: the weights in double */
    .name = "host:f64",
    .kind = CP_DEV_HOST,
    .dtype = CP_F64,
    .summary = "double precision: the reference",
    .ops = &cp_engine_ops_host_f64,
    .train = &train_ops_host_f64,
};

const cp_engine_info cp_engine_host_cr = {
    /* In the defaults since issue 34's B=1 and PoCL floors were met (2026-11-29): the default
     * report answers which engine gives the best float32 answer (=cr, crULP). */
    .name = "host:cr",
    .kind = CP_DEV_HOST,
    .dtype = CP_F32,
    .summary = "correctly rounded: each output's exact sum rounded once (RN); the same bits "
               "on every correct implementation",
    .correctly_rounded = true,
    .role = CP_ROLE_CR_ANSWER,
    .footprint = footprint_host_cr,
    .ops = &cp_engine_ops_host_cr,
    .train = &train_ops_host_cr,
};
