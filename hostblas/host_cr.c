/* host:cr: correctly rounded layers on the host, over host:exact's panels, units and pool
 * (exact.c, pool.c); the arithmetic and its proof are in cr.c. */
#include "host-impl.h"
#include "clparity/env.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <stdio.h>

/* host:cr reads host:exact's panels (exact_pack) through the same units and thread split; its
 * arithmetic, and the proof that every output is the correctly rounded sum, are in cr.c. */
_Static_assert(XP == CR_PANEL, "host:cr's units read host:exact's panels");

/* The fast path's kernel at host:exact's level (CLPARITY_HOST_ISA): the level's intrinsics
 * kernel (AVX-512 F, or AVX2 + FMA), or with generic the portable loop compiled for the level. */
enum cr_kernel cr_kernel_for(int isa, bool generic)
{
    if (isa == ISA_AVX512)
        return generic ? CR_KERNEL_C_AVX512 : CR_KERNEL_AVX512;
    if (isa == ISA_AVX2)
        return generic ? CR_KERNEL_C_AVX2 : CR_KERNEL_AVX2;
    return CR_KERNEL_C;
}

static void cr_run(cp_engine *e, int l, int r0, int r1, int p0, int p1)
{
    struct host_state *s = e->state;
    const cp_model *m = e->model;
    const cp_layer *L = &m->layers[l];
    const cr_layer_args a = {.in = L->in,
                             .out = L->out,
                             .act = L->act,
                             .residual = L->residual,
                             .w = m->params + L->w_off,
                             .bias = L->has_bias ? m->params + L->b_off : NULL,
                             .wp = s->packed + s->pack_off[l],
                             .wnorm = s->wnorm + (size_t)l * (size_t)m->max_width,
                             .scale = cr_err_scale(L->in),
                             .x = s->act[l % 2],
                             .xd = s->actd[l % 2],
                             .y = s->act[(l + 1) % 2],
                             .yd = s->actd[(l + 1) % 2]};
    long fallbacks = s->cr_unit(&a, r0, r1, p0, p1);
    if (fallbacks)
        atomic_fetch_add_explicit(&s->cr_fallbacks, fallbacks, memory_order_relaxed);
}

/* The scalar form (CLPARITY_HOST_CR=scalar): every output through the exact accumulator, one
 * row at a time, on one thread; else host:exact's units over the pool. */
static void cr_layer(cp_engine *e, int l, int batch, int id, int n)
{
    struct host_state *s = e->state;
    const cp_model *m = e->model;
    const cp_layer *L = &m->layers[l];
    if (!s->scalar) {
        host_units(e, l, batch, id, n, cr_run);
        return;
    }
    const float *x = s->act[l % 2];
    float *y = s->act[(l + 1) % 2];
    for (int b = 0; b < batch; ++b)
        cr_layer_row(x + (size_t)b * (size_t)L->in, m->params + L->w_off,
                     L->has_bias ? m->params + L->b_off : NULL, L->in, L->out, L->act, L->residual,
                     y + (size_t)b * (size_t)L->out);
}

static int cr_create(cp_engine *e, const cp_device *dev, const cp_model *m, int max_batch)
{
    (void)dev;
    int st = host_alloc(e, sizeof(float), false);
    if (st != CP_OK)
        return st;
    struct host_state *s = e->state;
    /* CLPARITY_HOST_CR: "auto" (the default: the certified fast path, the accumulator where
     * the certificate fails), "scalar" (the accumulator for every output) or "generic" (the
     * fast path's portable loop at the level, not its intrinsics kernel); for the tests. */
    static const char *const modes[] = {"auto", "scalar", "generic"};
    static const char *const stats[] = {"0", "1"};
    int mode, stat, isa;
    if ((st = host_env_word("CLPARITY_HOST_CR", modes, 3, &mode)) != CP_OK ||
        (st = host_env_word("CLPARITY_HOST_CR_STATS", stats, 2, &stat)) != CP_OK ||
        (st = exact_isa(&isa)) != CP_OK || (st = cr_check_inputs(m, "host:cr")) != CP_OK)
        return st;
    s->scalar = mode == 1;
    s->cr_stats = stat == 1;
    atomic_init(&s->cr_fallbacks, 0);
    static const char *const kernels[] = {[CR_KERNEL_C] = "baseline",
                                          [CR_KERNEL_C_AVX2] = "avx2 generic",
                                          [CR_KERNEL_C_AVX512] = "avx512 generic",
                                          [CR_KERNEL_AVX2] = "avx2",
                                          [CR_KERNEL_AVX512] = "avx512"};
    enum cr_kernel k = cr_kernel_for(isa, mode == 2);
    s->cr_unit = cr_unit_get(k);
    if (s->scalar)
        snprintf(e->routine, sizeof e->routine, "exact accumulator (scalar)");
    else
        snprintf(e->routine, sizeof e->routine, "f64 sums + exact fallback (%s)", kernels[k]);
    s->corrupt = cp_test_hook("corrupt-cr");
    if (s->scalar)
        return CP_OK;
    double t0 = cp_now();
    size_t act = (size_t)e->max_batch * (size_t)m->max_width;
    size_t nw = (size_t)m->n_layers * (size_t)m->max_width;
    s->actd[0] = malloc(act * sizeof(double));
    s->actd[1] = malloc(act * sizeof(double));
    s->wnorm = malloc((nw ? nw : 1) * sizeof(double));
    if (!s->actd[0] || !s->actd[1] || !s->wnorm)
        return cp_err_set(CP_FAIL_RUNTIME,
                          "host:cr: out of memory for the double activations and the weights' "
                          "norms (%zu bytes)",
                          (2 * act + nw) * sizeof(double));
    st = exact_pack(e, s);
    if (st != CP_OK)
        return st;
    for (int l = 0; l < m->n_layers; ++l) {
        const cp_layer *L = &m->layers[l];
        for (int o = 0; o < L->out; ++o)
            s->wnorm[(size_t)l * (size_t)m->max_width + (size_t)o] =
                cr_norm(m->params + L->w_off + (size_t)o * (size_t)L->in, L->in);
    }
    e->upload_s = cp_now() - t0;
    return exact_pool(e, s, max_batch);
}

/* The input in double (counted as its upload: the fast path reads doubles), then the layers. */
static int cr_forward(cp_engine *e, const float *x, int batch, void *y, cp_timing *t)
{
    struct host_state *s = e->state;
    const cp_model *m = e->model;
    double t0 = cp_now();
    if (!s->scalar)
        for (size_t i = 0; i < (size_t)batch * (size_t)m->in_width; ++i)
            s->actd[0][i] = (double)x[i];
    exact_plan(e, batch, s->max_threads);
    double t1 = cp_now();
    host_forward_f32(e, cr_layer, x, batch, y, t);
    t->h2d_s += t1 - t0;
    for (int l = 0; l < m->n_layers; ++l)
        s->cr_outputs += (long)batch * m->layers[l].out;
    return CP_OK;
}

/* With CLPARITY_HOST_CR_STATS=1, how often the certificate failed, on stderr (a debug count:
 * never in the report). */
static void cr_destroy(cp_engine *e)
{
    struct host_state *s = e->state;
    if (s->cr_stats) {
        long f = atomic_load(&s->cr_fallbacks);
        fprintf(stderr, "host:cr: %ld of %ld outputs took the exact fallback (%.3g%%)%s\n", f,
                s->cr_outputs, s->cr_outputs ? 100.0 * (double)f / (double)s->cr_outputs : 0.0,
                s->scalar ? " (scalar: every output)" : "");
    }
    host_destroy(e);
}

const struct cp_engine_ops cp_engine_ops_host_cr = {
    .create = cr_create, .forward = cr_forward, .destroy = cr_destroy};
