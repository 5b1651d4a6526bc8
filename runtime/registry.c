/* The engine registry (clparity/engine.h: cp_engine_count, cp_engine_at, cp_engine_find): one
 * entry an engine, its traits as data (each engine's ops, its training ops, its footprint).
 * The top of the engines: it names every engine's ops, and no engine calls it back (the engine
 * object itself is engine.c's, which reaches an engine through info->ops only). */
#include "engine-impl.h"
#include "train-impl.h"

#include <string.h>

/* The footprints (cp_engine_footprint): f holds the default when they are called, the weights
 * once in the engine's dtype and two activation buffers. */

/* cl:own and cl:relaxed (its kernels) keep the weights as uploaded (for the round-trip checks)
 * and a copy in their kernels' layout (transposed or blocked); their one-launch path transposes
 * every layer into one host buffer before the upload. */
static void footprint_own(const cp_model *m, int batch, cp_footprint *f)
{
    (void)batch;
    f->weights *= 2;
    f->staging += (unsigned long long)m->n_params * 4ULL;
}

static void footprint_clblast(const cp_model *m, int batch, cp_footprint *f)
{
    (void)m;
    (void)batch;
    f->buffers = 3;
}

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

/* cl:cr: the weights as stored, each output's weight norm and each row's sum of squares (its
 * split-k partial sums, CLPARITY_CR_TUNE=path=splitk, are checked when it is created). */
static void footprint_cl_cr(const cp_model *m, int batch, cp_footprint *f)
{
    f->weights += (unsigned long long)m->max_width * (unsigned long long)m->n_layers * 8ULL +
                  (unsigned long long)batch * 8ULL;
}

/* The registry: one entry an engine, its traits as fields. */
static const cp_engine_info engines[] = {
    {
        .name = "cl:own",
        .kind = CP_DEV_OPENCL,
        .dtype = CP_F32,
        .summary = "our .cl kernels: k ascending, explicit fma, FP_CONTRACT OFF (bitwise twin of "
                   "host:exact)",
        .twin = "host:exact",
        .in_sweep = true,
        .footprint = footprint_own,
        .ops = &cp_engine_ops_cl_own,
        .train = &train_ops_cl_own,
    },
    {
        .name = "cl:clblast",
        .kind = CP_DEV_OPENCL,
        .dtype = CP_F32,
        .summary = "CLBlast SGEMV at batch 1, SGEMM beyond, + our ReLU/residual epilogue kernel",
        .footprint = footprint_clblast,
        .ops = &cp_engine_ops_cl_clblast,
        .train = &train_ops_cl_clblast,
    },
    {
        .name = "cl:relaxed",
        .kind = CP_DEV_OPENCL,
        .dtype = CP_F32,
        .summary = "cl:own's kernel paths with a * b + c for fma, -cl-fast-relaxed-math "
                   "-cl-mad-enable: what exactness costs",
        .footprint = footprint_own,
        .ops = &cp_engine_ops_cl_relaxed,
        .train = &train_ops_cl_relaxed,
    },
    {
        .name = "host:openblas",
        .kind = CP_DEV_HOST,
        .dtype = CP_F32,
        .summary = "OpenBLAS cblas_sgemv at batch 1, cblas_sgemm beyond, "
                   "+ C epilogue",
        .in_sweep = true,
        .footprint = footprint_openblas,
        .ops = &cp_engine_ops_host_openblas,
        .train = &train_ops_host_openblas,
    },
    {
        .name = "host:exact",
        .kind = CP_DEV_HOST,
        .dtype = CP_F32,
        .summary = "plain C in cl:own's order with fmaf, -ffp-contract=off (the baseline)",
        .role = CP_ROLE_BASELINE,
        .footprint = footprint_exact,
        .ops = &cp_engine_ops_host_exact,
        .train = &train_ops_host_exact,
    },
    {
        /* the default footprint: the weights in double */
        .name = "host:f64",
        .kind = CP_DEV_HOST,
        .dtype = CP_F64,
        .summary = "double precision: the reference",
        .ops = &cp_engine_ops_host_f64,
        .train = &train_ops_host_f64,
    },
    {
        /* Only by name for now: the defaults' reports stay as they are until the report knows
         * it (issue 23, part 3). */
        .name = "host:cr",
        .kind = CP_DEV_HOST,
        .dtype = CP_F32,
        .summary = "correctly rounded: each output's exact sum rounded once (RN); the same bits "
                   "on every correct implementation",
        .by_name = true,
        .correctly_rounded = true,
        .role = CP_ROLE_CR_ANSWER,
        .footprint = footprint_host_cr,
        .ops = &cp_engine_ops_host_cr,
        .train = &train_ops_host_cr,
    },
    {
        .name = "cl:cr",
        .kind = CP_DEV_OPENCL,
        .dtype = CP_F32,
        .summary = "correctly rounded on the OpenCL device: host:cr's bits, any split",
        .by_name = true,
        .correctly_rounded = true,
        .twin = "host:cr",
        .footprint = footprint_cl_cr,
        .ops = &cp_engine_ops_cl_cr,
        .train = &train_ops_cl_cr,
    },
};

size_t cp_engine_count(void)
{
    return sizeof engines / sizeof engines[0];
}

const cp_engine_info *cp_engine_at(size_t i)
{
    return i < cp_engine_count() ? &engines[i] : NULL;
}

const cp_engine_info *cp_engine_find(const char *name)
{
    for (size_t i = 0; i < cp_engine_count(); ++i)
        if (strcmp(engines[i].name, name) == 0)
            return &engines[i];
    return NULL;
}

int cp_host_about_get(cp_host_about *a)
{
    memset(a, 0, sizeof *a);
    for (size_t i = 0; i < cp_engine_count(); ++i)
        if (engines[i].ops->about) {
            engines[i].ops->about(a);
            return CP_OK;
        }
    return cp_err_set(CP_FAIL_USAGE, "no engine says how the host is set up");
}
