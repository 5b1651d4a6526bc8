/* host:exact's and host:f64's training on the host pool (issue 35): train_par_tmpl.h, once for
 * float with host:exact's units at its instruction-set level, once for double with the same
 * tile in double (exact_tile_f64). The bits are the scalar loops' (train_host_tmpl.h,
 * CLPARITY_HOST_EXACT=scalar): each sum is one FMA chain in their order. Also host:cr's step
 * with its fast path's units, and host:exact's and host:f64's ops. Built, like every file, with
 * -ffp-contract=off. */
#include "host-impl.h"
#include "train-impl.h"

#include "hostblas/cr.h"

#include "clparity/env.h"
#include "clparity/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Multiply-adds of the largest layer per thread, at least, before a step is shared out (as
 * host:exact's forward's EXACT_MACS_PER_THREAD). */
#define PAR_MACS_PER_THREAD (1 << 14)
/* Panels per unit of a step's products at most (exact.c's EXACT_CHUNK); the parts in which a
 * thread takes its own share of a product; the most threads of a step (the pool's,
 * POOL_MAX_THREADS) (par_share). */
#define PAR_CHUNK 8
#define PAR_PARTS 4
#define PAR_MAX_THREADS 16

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
    void *wt_next;              /* the next step's wt, written by the update (host:exact, f64) */
    void *xp;                   /* every layer's input in panels of its columns (batch × in) */
    size_t *wf_off, *wt_off, *xp_off;
    void *dz[2], *dzt[2]; /* a layer's dz [batch, out] and dzᵀ, and the layer below's */
    void *gblk;           /* each thread's block of dW (8 rows × max_width) before its update */
    bool optim;           /* host:exact, host:f64: an optimizer other than plain SGD, applied to
                           * each block of dW (the step keeps no h->grad) */
    void *gb;             /* one layer's bias gradient before the update */
    bool *lanes;   /* per layer: host:exact's forward in the batch's lanes (exact_fwd_lanes512);
                    * NULL where no layer is */
    bool dx_lanes; /* and those layers' input gradient (exact_dx_lanes512): par_dx_lane */
    void *xTl[3];  /* its inputs transposed [in, batch] (the step's element type): layer 0's in
                    * xTl[2] (packed once), layer l's in xTl[l % 2] (written by layer l − 1's
                    * forward) */
    /* host:cr (train_par_create_cr): the fast path's unit and operands */
    cr_unit_fn cr_unit;
    float *wT;           /* every layer's Wᵀ, row-major [in, out] (wt_off's layers, unpadded) */
    size_t *wT_off;      /* n_layers + 1 */
    float *xT;           /* every layer's input transposed, [in, batch] */
    double *wn_f, *wn_t; /* norms of W's rows and of its columns, max_width a layer */
    double *xn;          /* norms of each layer's input's columns, max_width a layer */
    double *xd[2];       /* the forward's input rows in double: layer l reads xd[l % 2] */
    double *xd0;         /* layer 0's input in double (the same at every step) */
    double *dzd[2];      /* dz in double */
    double *dztd[2];     /* dzᵀ in double */
    double *yd;          /* the units' double outputs, unused: max(batch · width, in · out) */
    struct {
        atomic_long v;
        char pad[64 - sizeof(atomic_long)];
    } take[4][PAR_MAX_THREADS]; /* the units taken of each thread's share: par_share */
};

/* n bytes at a 64-byte boundary (wt and wt_next: par_stream_row's lines), NULL when out of
 * memory; free() frees it. */
static void *par_alloc64(size_t n)
{
    return aligned_alloc(64, (n + 63) / 64 * 64);
}

static int par_panels(int n)
{
    return (n + XP - 1) / XP;
}

void train_par_free(struct train_par *q)
{
    if (!q)
        return;
    host_pool_unshare(q->pool);
    free(q->wf);
    free(q->wt);
    free(q->wt_next);
    free(q->xp);
    free(q->wf_off);
    free(q->wt_off);
    free(q->xp_off);
    free(q->dz[0]);
    free(q->dz[1]);
    free(q->dzt[0]);
    free(q->dzt[1]);
    free(q->gblk);
    free(q->gb);
    for (int i = 0; i < 3; ++i)
        free(q->xTl[i]);
    free(q->lanes);
    free(q->wT);
    free(q->wT_off);
    free(q->xT);
    free(q->wn_f);
    free(q->wn_t);
    free(q->xn);
    for (int i = 0; i < 2; ++i) {
        free(q->xd[i]);
        free(q->dzd[i]);
        free(q->dztd[i]);
    }
    free(q->yd);
    free(q->xd0);
    free(q);
}

/* Whether the update writes wt_next's whole panel rows with non-temporal stores (the AVX-512
 * level): no read of the line before it is written, and wt_next, read by the next step's dx
 * only, does not push the step's operands out of the cache. par_stream_row stores one (64 or
 * 128 bytes, 64-byte aligned); par_stream_fence orders them before the phase's barrier. */
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
static bool par_streams(const struct train_par *q)
{
    return q->isa == ISA_AVX512;
}

__attribute__((target("avx512f"))) static void par_stream_row(void *d, const void *s, size_t bytes)
{
    for (size_t i = 0; i < bytes; i += 64)
        _mm512_stream_si512((__m512i *)((char *)d + i), _mm512_loadu_si512((const char *)s + i));
}

static void par_stream_fence(void)
{
    _mm_sfence();
}
#else
static bool par_streams(const struct train_par *q)
{
    (void)q;
    return false;
}

static void par_stream_row(void *d, const void *s, size_t bytes)
{
    memcpy(d, s, bytes);
}

static void par_stream_fence(void) {}
#endif

/* The 4 × 4 transposition of the update's panel writes in vectors, where the compiler has
 * __builtin_shufflevector (GCC 12, Clang); else element by element. */
#if defined(__has_builtin)
#if __has_builtin(__builtin_shufflevector)
#define PAR_SHUFFLE 1
#endif
#endif

/* One product of a step shared out over n threads: its units (blocks of rblk rows × chunks of
 * `chunk` panels, the chunk halved while there are fewer units than threads) in exact_share's
 * split, each thread's share taken by it in PAR_PARTS parts, and then the units left in the
 * others' shares one at a time, so that a thread slowed down (by another process, or by memory
 * that its neighbours load) is helped by the others at the end, while each thread still
 * computes, as a rule, the rows that it wrote in the phase before. Every unit is computed whole by
 * whichever thread takes it (each output one FMA chain, each weight's update its own): the
 * bits do not depend on who takes what. On the H200 machine's 16 cores the static shares left
 * the slowest thread's work 30-40 % above the mean at d=1024 L=16 B=64; spreading every unit
 * from one counter lost the rows' locality (the 2-core machine, d=128 L=128 B=64: 8.3 ms a step
 * against 6.5).
 * The step's products are numbered in their order, sh (every thread calls par_share at the
 * same points, two at most between barriers); product sh takes its units through the counters
 * take[sh % 4], of which each thread zeroes its own at product sh - 2 (in an earlier phase than
 * sh, and a later one than sh - 4, the last to use them); products 0 and 1 find theirs zeroed
 * by par_share_start. */
static void par_share(struct train_par *q, int sh, int id, int n, int rows, int rblk, int panels,
                      int chunk, void (*run)(void *arg, int r0, int r1, int p0, int p1), void *arg)
{
    atomic_store_explicit(&q->take[(sh + 2) % 4][id].v, 0, memory_order_relaxed);
    long rb = (rows + rblk - 1) / rblk;
    chunk = chunk < panels ? chunk : panels;
    while (chunk > 1 && rb * ((panels + chunk - 1) / chunk) < n)
        chunk /= 2;
    long units = rb * ((panels + chunk - 1) / chunk);
    for (int i = 0; i < n; ++i) { /* its own share first, then the others' from the next */
        int j = (id + i) % n;
        long u0 = units * j / n, len = units * (j + 1) / n - u0;
        long part = i == 0 ? (len + PAR_PARTS - 1) / PAR_PARTS : 1;
        for (;;) {
            long k = atomic_fetch_add_explicit(&q->take[sh % 4][j].v, part, memory_order_relaxed);
            if (k >= len)
                break;
            exact_run_units(u0 + k, u0 + (k + part < len ? k + part : len), rb, rblk, chunk, rows,
                            panels, run, arg);
        }
    }
}

/* Before a step's or a forward's task: its first two products' counters at 0. */
static void par_share_start(struct train_par *q)
{
    for (int i = 0; i < PAR_MAX_THREADS; ++i) {
        atomic_store_explicit(&q->take[0][i].v, 0, memory_order_relaxed);
        atomic_store_explicit(&q->take[1][i].v, 0, memory_order_relaxed);
    }
}

/* Whether layer l's forward runs in the batch's lanes. */
static bool par_lane(const struct train_par *q, int l)
{
    return q->lanes && q->lanes[l];
}

/* The most threads with which a lanes layer's input gradient runs in the lanes too: with 2, its
 * step took the same time or less than with Wᵀ's panels (the CI machine's 2 cores: 4-6 % less
 * at d=1024 L=16 B=64, the same at d=512 L=8; the H200 machine's at 2 threads the same), with 16
 * on the H200 machine 2-5 % more (the barrier before the update, and W's columns against
 * panels read in order; docs/PERFORMANCE.md, 2026-12-01). */
#define PAR_DX_LANES_MAX_THREADS 2

/* Whether layer l's input gradient runs in the batch's lanes. */
static bool par_dx_lane(const struct train_par *q, int l)
{
    return q->dx_lanes && par_lane(q, l);
}

/* Whether layer l keeps panels of Wᵀ for its input gradient (wt, wt_next): host:exact and
 * host:f64 keep none for layer 0 (no input gradient) nor for a layer whose input gradient runs
 * in the batch's lanes (dx reads W in place); host:cr keeps every layer's. */
static bool par_wt(const struct train_par *q, int l)
{
    return q->wt_off[l + 1] > q->wt_off[l];
}

/* Rows a unit of layer l's forward: 8 with the panels' tile; in the batch's lanes the most of 64,
 * 32 and 16 that still gives every thread a unit (n threads, a layer of `panels`). */
static int par_fwd_rows(const struct train_par *q, int l, int batch, int panels, int n)
{
    if (!par_lane(q, l))
        return 8;
    int rows = 64;
    while (rows > 16 && (long)((batch + rows - 1) / rows) * panels < n)
        rows /= 2;
    return rows;
}

#define T float
#define FMA fmaf
#define SFX f32
#if defined(__x86_64__) && defined(__GNUC__)
#define PAR_FWD_LANES exact_fwd_lanes512
#define PAR_DX_LANES exact_dx_lanes512
#endif
#define UNIT unit_f32
#include "train_par_tmpl.h"
#undef T
#undef FMA
#undef SFX
#undef UNIT
#undef PAR_FWD_LANES
#undef PAR_DX_LANES

#define T double
#define FMA fma
#define SFX f64
#if defined(__x86_64__) && defined(__GNUC__)
#define PAR_FWD_LANES exact_fwd_lanes512_f64
#define PAR_DX_LANES exact_dx_lanes512_f64
#endif
#define UNIT unit_f64
#include "train_par_tmpl.h"
#undef T
#undef FMA
#undef SFX
#undef UNIT
#undef PAR_FWD_LANES
#undef PAR_DX_LANES

/* The state that host:exact's, host:f64's and host:cr's steps share (mode 1: the portable
 * loops at the level). */
static int par_create(struct train_host *h, enum cp_dtype dtype, int mode, int isa)
{
    int st;
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
    for (size_t l = 0; l < L; ++l) {
        const cp_layer *ly = &m->layers[l];
        size_t in = (size_t)ly->in, out = (size_t)ly->out;
        q->wf_off[l + 1] = q->wf_off[l] + (size_t)par_panels(ly->out) * XP * in;
        q->xp_off[l + 1] = q->xp_off[l] + (size_t)par_panels(ly->in) * XP * B;
        double lm = (double)B * (double)in * (double)out;
        macs = lm > macs ? lm : macs;
    }
    size_t nd = B * (size_t)m->max_width + 1;
    q->wf = malloc((q->wf_off[L] + 1) * es);
    q->xp = calloc(q->xp_off[L] + 1, es); /* the padding stays 0 */
    for (int i = 0; i < 2; ++i) {         /* dzᵀ at 64 bytes: dx writes whole lines (batch 16k) */
        q->dz[i] = malloc(nd * es);
        q->dzt[i] = par_alloc64(nd * es);
    }
    q->gb = malloc(((size_t)m->max_width + 1) * es);
    if (!q->wf || !q->xp || !q->dz[0] || !q->dz[1] || !q->dzt[0] || !q->dzt[1] || !q->gb)
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
    st = host_pool_shared(n, &q->pool);
    q->threads = n < host_pool_size(q->pool) ? n : host_pool_size(q->pool);
    q->threads = q->threads < PAR_MAX_THREADS ? q->threads : PAR_MAX_THREADS;
    return st;
}

/* The panels of Wᵀ (wt, and for host:exact and host:f64 wt_next, zero padded as par_pack_cols
 * writes them): every layer's for host:cr (all), else those of the layers whose input gradient
 * reads them (par_wt: not layer 0, none in the batch's lanes). */
static int par_wt_create(struct train_host *h, size_t es, bool all)
{
    struct train_par *q = h->par;
    const cp_model *m = h->m;
    for (int l = 0; l < m->n_layers; ++l) {
        const cp_layer *ly = &m->layers[l];
        bool need = all || (l > 0 && !par_dx_lane(q, l));
        q->wt_off[l + 1] =
            q->wt_off[l] + (need ? (size_t)par_panels(ly->in) * XP * (size_t)ly->out : 0);
    }
    size_t n = q->wt_off[m->n_layers] + 1;
    q->wt = par_alloc64(n * es);
    q->wt_next = all ? NULL : par_alloc64(n * es);
    if (!q->wt || (!all && !q->wt_next))
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory for the host trainer");
    if (!all)
        memset(q->wt_next, 0, n * es);
    return CP_OK;
}

/* The narrowest layer (inputs and outputs) whose forward runs in the batch's lanes: on the H200
 * machine's Xeon, host:exact's step was 9-15 % faster with them at d=512 and 1024, and 15-25 %
 * slower at d=128 and 256 on 16 threads (docs/PERFORMANCE.md, 2026-12-01). */
#define PAR_LANES_MIN_WIDTH 512

/* host:exact's and host:f64's forward in the batch's lanes where it applies: the AVX-512
 * level's own kernels (not CLPARITY_HOST_EXACT=generic), a batch of 16 rows or a multiple,
 * layers of PAR_LANES_MIN_WIDTH inputs and outputs or more; their transposed inputs, layer 0's
 * packed once. */
static int par_lanes_create(struct train_host *h, enum cp_dtype dtype, int mode, int isa)
{
    struct train_par *q = h->par;
    const cp_model *m = h->m;
    size_t B = (size_t)h->batch, in = (size_t)m->layers[0].in;
    size_t es = cp_dtype_size(dtype);
    if ((dtype != CP_F32 && dtype != CP_F64) || isa != ISA_AVX512 || mode == 1 || B % 16 != 0)
        return CP_OK;
#if defined(__x86_64__) && defined(__GNUC__)
    bool any = false;
    for (int l = 0; l < m->n_layers; ++l)
        any |= m->layers[l].in >= PAR_LANES_MIN_WIDTH && m->layers[l].out >= PAR_LANES_MIN_WIDTH;
    if (!any)
        return CP_OK;
    q->lanes = calloc((size_t)m->n_layers, sizeof *q->lanes);
    for (int i = 0; q->lanes && i < 3; ++i)
        q->xTl[i] = malloc((B * (size_t)m->max_width + 1) * es);
    if (!q->lanes || !q->xTl[0] || !q->xTl[1] || !q->xTl[2])
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory for the host trainer");
    for (int l = 0; l < m->n_layers; ++l)
        q->lanes[l] =
            m->layers[l].in >= PAR_LANES_MIN_WIDTH && m->layers[l].out >= PAR_LANES_MIN_WIDTH;
    q->dx_lanes = q->threads <= PAR_DX_LANES_MAX_THREADS;
    const char *x = h->acts;
    for (size_t b = 0; b < B; ++b)
        for (size_t k = 0; k < in; ++k)
            memcpy((char *)q->xTl[2] + (k * B + b) * es, x + (b * in + k) * es, es);
#else
    (void)in;
    (void)es;
    (void)m;
#endif
    return CP_OK;
}

int train_par_create(struct train_host *h, enum cp_dtype dtype)
{
    static const char *const modes[] = {"scalar", "generic"};
    int mode, isa;
    int st = host_env_word("CLPARITY_HOST_EXACT", modes, 2, &mode);
    if (st != CP_OK || mode == 0)
        return st;
    if ((st = exact_isa(&isa)) != CP_OK || (st = par_create(h, dtype, mode, isa)) != CP_OK)
        return st;
    struct train_par *q = h->par;
    size_t es = cp_dtype_size(dtype);
    if ((st = par_lanes_create(h, dtype, mode, isa)) != CP_OK ||
        (st = par_wt_create(h, es, false)) != CP_OK)
        return st;
    q->gblk = malloc((size_t)q->threads * 8 * (size_t)h->m->max_width * es);
    q->optim = h->grad != NULL;
    free(h->grad); /* the update takes each block of dW from gblk */
    h->grad = NULL;
    return q->gblk ? CP_OK : cp_err_set(CP_FAIL_RUNTIME, "out of memory for the host trainer");
}

/* ---- host:cr's step on the pool ------------------------------------------------------------
 * The structure of host:exact's (train_par_tmpl.h), with host:cr's fast-path units
 * (hostblas/cr_fast.c) for the three products: each output RN(exact sum), certified from a
 * double sum or, where the certificate fails, the exact accumulator (cr_dot), so that the bits
 * are train_cr.c's scalar loops' whatever the order of the double sums. The input gradient's
 * residual term is inside the exact sum: it is the units' bias, one row at a time. */

static void cr_args(cr_layer_args *a, int in, int out, const float *w, const float *bias,
                    const float *wp, const double *wnorm, const float *x, const double *xd,
                    float *y, double *yd)
{
    *a = (cr_layer_args){.in = in,
                         .out = out,
                         .act = CP_ACT_NONE,
                         .w = w,
                         .bias = bias,
                         .wp = wp,
                         .wnorm = wnorm,
                         .scale = cr_err_scale(in),
                         .x = x,
                         .xd = xd,
                         .y = y,
                         .yd = yd};
}

/* Thread id of n's share of the panels of every W and Wᵀ, Wᵀ itself and the norms. */
static void cr_pack(struct par_task_f32 *t, int id, int n)
{
    const cp_model *m = t->h->m;
    struct train_par *q = t->h->par;
    size_t mw = (size_t)m->max_width;
    long total = 0;
    for (int l = 0; l < m->n_layers; ++l)
        total += par_panels(m->layers[l].out) + par_panels(m->layers[l].in);
    long i0 = total * id / n, i1 = total * (id + 1) / n, i = 0;
    for (int l = 0; l < m->n_layers && i < i1; ++l) {
        const cp_layer *ly = &m->layers[l];
        size_t in = (size_t)ly->in, out = (size_t)ly->out;
        const float *w = t->p + ly->w_off;
        float *wT = q->wT + q->wT_off[l];
        for (int j = 0; j < par_panels(ly->out); ++j, ++i) {
            if (i < i0 || i >= i1)
                continue;
            par_pack_rows_f32((float *)q->wf + q->wf_off[l], w, ly->in, ly->out, j);
            for (size_t o = (size_t)j * XP; o < out && o < (size_t)(j + 1) * XP; ++o)
                q->wn_f[(size_t)l * mw + o] = cr_norm(w + o * in, ly->in);
        }
        for (int j = 0; j < par_panels(ly->in); ++j, ++i) {
            if (i < i0 || i >= i1)
                continue;
            par_pack_cols_f32((float *)q->wt + q->wt_off[l], w, ly->in, ly->out, j);
            size_t k1 = (size_t)(j + 1) * XP < in ? (size_t)(j + 1) * XP : in;
            for (size_t o = 0; o < out; ++o)
                for (size_t k = (size_t)j * XP; k < k1; ++k)
                    wT[k * out + o] = w[o * in + k];
            for (size_t k = (size_t)j * XP; k < k1; ++k)
                q->wn_t[(size_t)l * mw + k] = cr_norm(wT + k * out, ly->out);
        }
    }
}

/* The forward's units of layer t->l (z), then y, the next layer's input in double, transposed
 * and in panels. */
static void cr_fwd_run(void *arg, int r0, int r1, int p0, int p1)
{
    struct par_task_f32 *t = arg;
    struct train_host *h = t->h;
    struct train_par *q = h->par;
    const cp_model *m = h->m;
    const cp_layer *ly = &m->layers[t->l];
    size_t in = (size_t)ly->in, out = (size_t)ly->out, B = (size_t)h->batch;
    const float *x = (const float *)h->acts + (size_t)t->l * h->stride;
    float *y = (float *)h->acts + (size_t)(t->l + 1) * h->stride;
    float *z = (float *)h->z + (size_t)t->l * h->stride;
    cr_layer_args a;
    cr_args(&a, ly->in, ly->out, t->p + ly->w_off, ly->has_bias ? t->p + ly->b_off : NULL,
            (const float *)q->wf + q->wf_off[t->l], q->wn_f + (size_t)t->l * (size_t)m->max_width,
            x, t->l == 0 ? q->xd0 : q->xd[t->l % 2], z, q->yd);
    q->cr_unit(&a, r0, r1, p0, p1);
    bool next = t->l + 1 < m->n_layers;
    float *xp = next ? (float *)q->xp + q->xp_off[t->l + 1] : NULL;
    float *xT = next ? q->xT + q->xp_off[t->l + 1] : NULL; /* [in, batch] fits in xp's room */
    double *xd = q->xd[(t->l + 1) % 2];
    size_t o1 = (size_t)p1 * XP < out ? (size_t)p1 * XP : out;
    for (size_t b = (size_t)r0; b < (size_t)r1; ++b)
        for (size_t o = (size_t)p0 * XP; o < o1; ++o) {
            float v = cr_epilogue(z[b * out + o], ly->act, ly->residual,
                                  ly->residual ? x[b * in + o] : 0.0f);
            y[b * out + o] = v;
            if (!next)
                continue;
            xd[b * out + o] = (double)v;
            xT[o * B + b] = v;
            xp[((o / XP) * B + b) * XP + o % XP] = v;
        }
}

static void cr_dz(struct train_host *h, int l, int cur, size_t b, size_t k, float gk)
{
    struct train_par *q = h->par;
    const cp_layer *ly = &h->m->layers[l];
    size_t out = (size_t)ly->out, B = (size_t)h->batch;
    const float *z = (const float *)h->z + (size_t)l * h->stride;
    float d = ly->act == CP_ACT_RELU ? (z[b * out + k] > 0.0f ? gk : 0.0f) : gk;
    ((float *)q->dz[cur])[b * out + k] = d;
    ((float *)q->dzt[cur])[k * B + b] = d;
    q->dzd[cur][b * out + k] = (double)d;
    q->dztd[cur][k * B + b] = (double)d;
}

/* dx's units of layer t->l into gn: RN(Σ_o dz·W + g) with g, the residual, as the bias of each
 * row; then the layer below's dz. */
static void cr_dx_run(void *arg, int r0, int r1, int p0, int p1)
{
    struct par_task_f32 *t = arg;
    struct train_host *h = t->h;
    struct train_par *q = h->par;
    const cp_layer *ly = &h->m->layers[t->l];
    size_t in = (size_t)ly->in, out = (size_t)ly->out;
    cr_layer_args a;
    cr_args(&a, ly->out, ly->in, q->wT + q->wT_off[t->l], NULL,
            (const float *)q->wt + q->wt_off[t->l],
            q->wn_t + (size_t)t->l * (size_t)h->m->max_width, q->dz[t->cur], q->dzd[t->cur], t->gn,
            q->yd);
    if (ly->residual)
        for (int b = r0; b < r1; ++b) {
            a.bias = t->g + (size_t)b * out;
            q->cr_unit(&a, b, b + 1, p0, p1);
        }
    else
        q->cr_unit(&a, r0, r1, p0, p1);
    size_t k1 = (size_t)p1 * XP < in ? (size_t)p1 * XP : in;
    for (size_t b = (size_t)r0; b < (size_t)r1; ++b)
        for (size_t k = (size_t)p0 * XP; k < k1; ++k)
            cr_dz(h, t->l - 1, 1 - t->cur, b, k, t->gn[b * in + k]);
}

/* dW's units of layer t->l: RN(Σ_b dz·x), into the gradient or (plain SGD) h->gw and the
 * update. */
static void cr_dw_run(void *arg, int r0, int r1, int p0, int p1)
{
    struct par_task_f32 *t = arg;
    struct train_host *h = t->h;
    struct train_par *q = h->par;
    const cp_layer *ly = &h->m->layers[t->l];
    size_t in = (size_t)ly->in;
    float *G = h->grad, *w = (float *)h->p + ly->w_off;
    float *gw = G ? G + ly->w_off : h->gw;
    cr_layer_args a;
    cr_args(&a, h->batch, ly->in, q->xT + q->xp_off[t->l], NULL,
            (const float *)q->xp + q->xp_off[t->l], q->xn + (size_t)t->l * (size_t)h->m->max_width,
            q->dzt[t->cur], q->dztd[t->cur], gw, q->yd);
    q->cr_unit(&a, r0, r1, p0, p1);
    if (G)
        return;
    size_t k0 = (size_t)p0 * XP, k1 = (size_t)p1 * XP < in ? (size_t)p1 * XP : in;
    for (size_t o = (size_t)r0; o < (size_t)r1; ++o)
        train_host_axpy_isa_f32(w + o * in + k0, gw + o * in + k0, (float)(-h->lr), k1 - k0,
                                q->isa);
}

static void cr_task_run(void *arg, struct host_pool *pool, int id, int n)
{
    struct par_task_f32 *t0 = arg, task = *t0;
    struct par_task_f32 *t = &task;
    struct train_host *h = t->h;
    struct train_par *q = h->par;
    const cp_model *m = h->m;
    int B = h->batch, L = m->n_layers;
    size_t mw = (size_t)m->max_width;
    cr_pack(t, id, n);
    host_pool_sync(pool, n);
    for (t->l = 0; t->l < L; ++t->l) {
        const cp_layer *ly = &m->layers[t->l];
        size_t in = (size_t)ly->in;
        if (t->backward) /* the norms of this layer's input's columns, for its dW */
            for (size_t k = in * (size_t)id / (size_t)n; k < in * (size_t)(id + 1) / (size_t)n; ++k)
                q->xn[(size_t)t->l * mw + k] = cr_norm(q->xT + q->xp_off[t->l] + k * (size_t)B, B);
        exact_share(B, par_panels(ly->out), id, n, cr_fwd_run, t);
        host_pool_sync(pool, n);
    }
    if (!t->backward)
        return;
    t->g = h->g;
    t->gn = h->gn;
    t->cur = 0;
    if (id == 0) {
        size_t nt = (size_t)B * (size_t)m->out_width, out = (size_t)m->out_width;
        const float *y = (const float *)h->acts + (size_t)L * h->stride, *tt = h->t;
        *t->loss = train_loss_f32(y, tt, nt);
        float s = 2.0f / (float)nt;
        for (size_t i = 0; i < nt; ++i)
            t->g[i] = s * (y[i] - tt[i]);
        for (size_t b = 0; b < (size_t)B; ++b)
            for (size_t o = 0; o < out; ++o)
                cr_dz(h, L - 1, 0, b, o, t->g[b * out + o]);
    }
    host_pool_sync(pool, n);
    for (t->l = L - 1; t->l >= 0; --t->l) {
        const cp_layer *ly = &m->layers[t->l];
        if (t->l > 0)
            exact_share(B, par_panels(ly->in), id, n, cr_dx_run, t);
        exact_share(ly->out, par_panels(ly->in), id, n, cr_dw_run, t);
        if (ly->has_bias) {
            const float *dz = q->dz[t->cur];
            float *G = h->grad, *p = h->p, neg_lr = (float)(-h->lr);
            size_t out = (size_t)ly->out;
            for (size_t o = out * (size_t)id / (size_t)n; o < out * (size_t)(id + 1) / (size_t)n;
                 ++o) {
                cr_acc a;
                cr_acc_init(&a);
                for (size_t b = 0; b < (size_t)B; ++b)
                    cr_acc_add(&a, dz[b * out + o]);
                if (G)
                    G[ly->b_off + o] = cr_acc_round(&a);
                else
                    p[ly->b_off + o] = fmaf(neg_lr, cr_acc_round(&a), p[ly->b_off + o]);
            }
        }
        host_pool_sync(pool, n);
        float *tmp = t->g;
        t->g = t->gn;
        t->gn = tmp;
        t->cur = 1 - t->cur;
    }
    if (h->grad) {
        size_t np = m->n_params;
        train_host_optim_isa_f32(h, np * (size_t)id / (size_t)n, np * (size_t)(id + 1) / (size_t)n,
                                 q->isa);
    }
}

void train_par_cr_forward(struct train_host *h, const void *p)
{
    struct par_task_f32 t = {.h = h, .p = p};
    host_pool_task(h->par->pool, h->par->threads, cr_task_run, &t);
}

void train_par_cr_step(struct train_host *h, double *loss)
{
    struct par_task_f32 t = {.h = h, .p = h->p, .backward = true, .loss = loss};
    ++h->step;
    host_pool_task(h->par->pool, h->par->threads, cr_task_run, &t);
}

int train_par_create_cr(struct train_host *h)
{
    static const char *const modes[] = {"auto", "scalar", "generic"};
    int mode, isa;
    int st = host_env_word("CLPARITY_HOST_CR", modes, 3, &mode);
    if (st != CP_OK || mode == 1)
        return st;
    if ((st = exact_isa(&isa)) != CP_OK || (st = par_create(h, CP_F32, 0, isa)) != CP_OK ||
        (st = par_wt_create(h, sizeof(float), true)) != CP_OK ||
        (st = train_host_alloc_gw(h, sizeof(float))) != CP_OK)
        return st;
    struct train_par *q = h->par;
    const cp_model *m = h->m;
    size_t L = (size_t)m->n_layers, B = (size_t)h->batch, mw = (size_t)m->max_width;
    q->cr_unit = cr_unit_get(cr_kernel_for(isa, mode == 2));
    q->wT_off = calloc(L + 1, sizeof *q->wT_off);
    if (!q->wT_off)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory for the host trainer");
    for (size_t l = 0; l < L; ++l)
        q->wT_off[l + 1] = q->wT_off[l] + (size_t)m->layers[l].in * (size_t)m->layers[l].out;
    const size_t wmax = cp_model_max_weights(m);
    size_t nd = B * mw + 1;
    q->wT = malloc((q->wT_off[L] + 1) * sizeof *q->wT);
    q->xT = calloc(q->xp_off[L] + 1, sizeof *q->xT);
    q->wn_f = malloc((L * mw + 1) * sizeof(double));
    q->wn_t = malloc((L * mw + 1) * sizeof(double));
    q->xn = malloc((L * mw + 1) * sizeof(double));
    for (int i = 0; i < 2; ++i) {
        q->xd[i] = malloc(nd * sizeof(double));
        q->dzd[i] = malloc(nd * sizeof(double));
        q->dztd[i] = malloc(nd * sizeof(double));
    }
    q->yd = malloc((wmax > nd ? wmax : nd) * sizeof(double));
    q->xd0 = malloc(nd * sizeof(double));
    if (!q->xd0 || !q->wT || !q->xT || !q->wn_f || !q->wn_t || !q->xn || !q->xd[0] || !q->xd[1] ||
        !q->dzd[0] || !q->dzd[1] || !q->dztd[0] || !q->dztd[1] || !q->yd)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory for the host trainer");
    const float *x = h->acts; /* layer 0's input: in double and transposed, once */
    size_t in = (size_t)m->layers[0].in;
    for (size_t b = 0; b < B; ++b)
        for (size_t k = 0; k < in; ++k) {
            q->xd0[b * in + k] = (double)x[b * in + k];
            q->xT[k * B + b] = x[b * in + k];
        }
    return CP_OK;
}

void train_par_destroy(cp_trainer *tr)
{
    train_par_free(tr->h.par);
    tr->h.par = NULL;
    train_host_destroy(tr);
}
