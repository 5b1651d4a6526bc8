/* host:exact's and host:f64's training on the host pool (issue 35): train_par_tmpl.h, once for
 * float with host:exact's units at its instruction-set level, once for double with the same
 * tile in double (exact_tile_f64). The bits are the scalar loops' (train_host_tmpl.h,
 * CLPARITY_HOST_EXACT=scalar): each sum is one FMA chain in their order. Built, like every
 * file, with -ffp-contract=off. */
#include "host-impl.h"
#include "train-impl.h"

#include "clparity/env.h"
#include "clparity/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Multiply-adds of the largest layer per thread, at least, before a step is shared out (as
 * host:exact's forward's EXACT_MACS_PER_THREAD). */
#define PAR_MACS_PER_THREAD (1 << 14)

_Static_assert((int)TRAIN_ISA_AVX512 == (int)ISA_AVX512 && (int)TRAIN_ISA_AVX2 == (int)ISA_AVX2 &&
                   (int)TRAIN_ISA_BASELINE == (int)ISA_BASELINE,
               "train-impl.h's levels are host-impl.h's");

struct train_par {
    struct host_pool *pool;
    int threads;                /* of each step: the pool's, or 1 */
    exact_unit_fn unit_f32;     /* host:exact's unit at its level */
    exact_unit_f64_fn unit_f64; /* the double unit at that level */
    int isa;                    /* the level (CLPARITY_HOST_ISA): the optimizer's too */
    void *wf, *wt;              /* every layer's W in panels of its rows, and of its columns */
    void *xp;                   /* every layer's input in panels of its columns (batch × in) */
    size_t *wf_off, *wt_off, *xp_off;
    void *dz[2], *dzt[2]; /* a layer's dz [batch, out] and dzᵀ, and the layer below's */
    void *gtmp;           /* plain SGD: one layer's dW before the update */
};

static int par_panels(int n)
{
    return (n + XP - 1) / XP;
}

void train_par_free(struct train_par *q)
{
    if (!q)
        return;
    host_pool_free(q->pool);
    free(q->wf);
    free(q->wt);
    free(q->xp);
    free(q->wf_off);
    free(q->wt_off);
    free(q->xp_off);
    free(q->dz[0]);
    free(q->dz[1]);
    free(q->dzt[0]);
    free(q->dzt[1]);
    free(q->gtmp);
    free(q);
}

#define T float
#define FMA fmaf
#define SFX f32
#define UNIT unit_f32
#include "train_par_tmpl.h"
#undef T
#undef FMA
#undef SFX
#undef UNIT

#define T double
#define FMA fma
#define SFX f64
#define UNIT unit_f64
#include "train_par_tmpl.h"
#undef T
#undef FMA
#undef SFX
#undef UNIT

int train_par_create(struct train_host *h, enum cp_dtype dtype)
{
    static const char *const modes[] = {"scalar", "generic"};
    int mode, isa;
    int st = host_env_word("CLPARITY_HOST_EXACT", modes, 2, &mode);
    if (st != CP_OK || mode == 0)
        return st;
    st = exact_isa(&isa);
    if (st != CP_OK)
        return st;
    const cp_model *m = h->m;
    size_t es = cp_dtype_size(dtype), L = (size_t)m->n_layers, B = (size_t)h->batch;
    struct train_par *q = calloc(1, sizeof *q);
    if (!q)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory for the host trainer");
    h->par = q;
    q->unit_f32 = exact_unit_for(isa, mode == 1);
    q->unit_f64 = exact_unit_f64_for(isa, mode == 1);
    q->isa = isa;
    q->wf_off = calloc(L + 1, sizeof *q->wf_off);
    q->wt_off = calloc(L + 1, sizeof *q->wt_off);
    q->xp_off = calloc(L + 1, sizeof *q->xp_off);
    if (!q->wf_off || !q->wt_off || !q->xp_off)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory for the host trainer");
    double macs = 0.0;
    size_t wmax = 1;
    for (size_t l = 0; l < L; ++l) {
        const cp_layer *ly = &m->layers[l];
        size_t in = (size_t)ly->in, out = (size_t)ly->out;
        q->wf_off[l + 1] = q->wf_off[l] + (size_t)par_panels(ly->out) * XP * in;
        q->wt_off[l + 1] = q->wt_off[l] + (size_t)par_panels(ly->in) * XP * out;
        q->xp_off[l + 1] = q->xp_off[l] + (size_t)par_panels(ly->in) * XP * B;
        double lm = (double)B * (double)in * (double)out;
        macs = lm > macs ? lm : macs;
        wmax = in * out > wmax ? in * out : wmax;
    }
    size_t nd = B * (size_t)m->max_width + 1;
    q->wf = malloc((q->wf_off[L] + 1) * es);
    q->wt = malloc((q->wt_off[L] + 1) * es);
    q->xp = calloc(q->xp_off[L] + 1, es); /* the padding stays 0 */
    for (int i = 0; i < 2; ++i) {
        q->dz[i] = malloc(nd * es);
        q->dzt[i] = malloc(nd * es);
    }
    q->gtmp = h->grad ? NULL : malloc(wmax * es);
    if (!q->wf || !q->wt || !q->xp || !q->dz[0] || !q->dz[1] || !q->dzt[0] || !q->dzt[1] ||
        (!h->grad && !q->gtmp))
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory for the host trainer");
    if (dtype == CP_F64)
        train_par_pack_input_f64(h);
    else
        train_par_pack_input_f32(h);
    int n;
    st = host_max_threads(&n);
    if (st != CP_OK)
        return st;
    double want = macs / PAR_MACS_PER_THREAD;
    n = want < (double)n ? (want < 1.0 ? 1 : (int)want) : n;
    st = host_pool_new(n, &q->pool);
    q->threads = host_pool_size(q->pool);
    return st;
}
