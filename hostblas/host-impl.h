/* Private: what the host engines share (hostblas/pool.c, exact.c, host_cr.c, blas.c): their
 * state, the thread pool that shares out each layer, and host:exact's panels, units and
 * instruction-set levels, which host:cr reads too. Every file of the host engines is built with
 * -ffp-contract=off: host:exact's bitwise equality with cl:own depends on every multiply-add
 * being an explicit fmaf. */
#ifndef CLPARITY_HOST_IMPL_H
#define CLPARITY_HOST_IMPL_H

#include "engine-impl.h"
#include "hostblas/cr.h"
#include "hostblas/pool.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

struct host_pool;

/* host:exact's unit of work at one instruction-set level (EXACT_UNIT, exact_unit_for). */
typedef void (*exact_unit_fn)(const cp_layer *L, const float *p, const float *wp, const float *x,
                              float *y, int r0, int r1, int p0, int p1);
/* The same unit in double (host:f64's training). */
typedef void (*exact_unit_f64_fn)(const cp_layer *L, const double *p, const double *wp,
                                  const double *x, double *y, int r0, int r1, int p0, int p1);

struct host_state {
    void *act[2];       /* ping-pong activations, max_batch × max_width */
    void *tmp;          /* GEMM output before the epilogue (host:openblas) */
    double *params;     /* host:f64: the weights in double */
    float *packed;      /* host:exact: every layer's weights in panels (exact_pack) */
    size_t *pack_off;   /* host:exact: each layer's offset into packed */
    int *threads;       /* threads per layer in the current forward */
    int max_threads;    /* the pool's threads, 1 without a pool */
    bool scalar;        /* host:exact: CLPARITY_HOST_EXACT=scalar, the reference loop */
    exact_unit_fn unit; /* host:exact: exact_unit_for its level (CLPARITY_HOST_ISA) */
    bool corrupt;       /* test hook corrupt-exact / corrupt-pool / corrupt-cr (host_corrupt) */
    int split;          /* host:openblas: CLPARITY_HOST_SPLIT, SPLIT_AUTO, _POOL or _OPENBLAS */
    struct host_pool *pool;
    /* host:cr (besides packed, pack_off, scalar and corrupt, as host:exact's) */
    double *actd[2];          /* the activations in double: the fast path's input */
    double *wnorm;            /* |W_o|_2 of every layer's outputs, max_width a layer */
    cr_unit_fn cr_unit;       /* the fast path's unit at its level */
    bool cr_stats;            /* CLPARITY_HOST_CR_STATS=1: count the fallbacks */
    atomic_long cr_fallbacks; /* outputs that took the exact accumulator */
    long cr_outputs;          /* outputs computed */
};

/* host:exact's panels: each layer's weights packed as Wp[o / XP][k][o % XP], out padded to a
 * multiple of XP with zeros, so that XP adjacent outputs are one vector load at each k. */
#define XP 16

/* host:exact's instruction-set levels, widest first: the names of CLPARITY_HOST_ISA. */
enum { ISA_AVX512, ISA_AVX2, ISA_BASELINE, ISA_N };

/* A layer's share for thread id of n (the pool's unit of work, pool.c). */
typedef void (*pool_layer_fn)(cp_engine *e, int l, int batch, int id, int n);

/* A run of units of layer l in one chunk: rows [r0, r1) × panels [p0, p1). */
typedef void (*unit_run_fn)(cp_engine *e, int l, int r0, int r1, int p0, int p1);

/* pool.c: the settings, the state, the pool and the forward that runs on it. */
int host_env_word(const char *name, const char *const *words, int n, int *choice);
int host_alloc(cp_engine *e, size_t esz, bool need_tmp);
void host_destroy(cp_engine *e);
int layer_threads(const cp_layer *L, int batch, double macs_per_thread, long units, int max);
int pool_pin_wanted(bool *pin);
int host_pool_create(cp_engine *e, struct host_state *s, int n);
void host_forward_f32(cp_engine *e, pool_layer_fn fn, const float *x, int batch, void *y,
                      cp_timing *t);
void host_corrupt(const cp_engine *e, int l, int id, int n, float *out);
/* The pool outside an engine (host:exact's and host:f64's training, train's measurements):
 * hostblas/pool.h. */

/* exact.c: host:exact's levels, units, panels and thread plan, shared with host:cr. */
bool isa_has(int isa);
int exact_isa(int *isa);
exact_unit_fn exact_unit_for(int isa, bool generic);
exact_unit_f64_fn exact_unit_f64_for(int isa, bool generic);
/* Thread id of n's share of a product of rows × panels (units of 8 rows × EXACT_CHUNK panels,
 * chunk major, as host_units): each run of units in one chunk is one call run(arg, r0, r1, p0,
 * p1). */
void exact_share(int rows, int panels, int id, int n,
                 void (*run)(void *arg, int r0, int r1, int p0, int p1), void *arg);
/* Units [u0, u1) of a product of rows × panels cut into rb blocks of rblk rows × chunks of
 * `chunk` panels, in exact_share's order (the blocks of a chunk in turn): each run of blocks in
 * one chunk is one call, so a tall run reads its panels once for all of its rows. */
void exact_run_units(long u0, long u1, long rb, int rblk, int chunk, int rows, int panels,
                     void (*run)(void *arg, int r0, int r1, int p0, int p1), void *arg);
#if defined(__x86_64__) && defined(__GNUC__)
/* host:exact's forward product with the batch in the AVX-512 lanes, W read in place and xt the
 * input transposed [in, batch]: z = x·Wᵀ (+ bias) for rows [r0, r1) (a multiple of 16) and
 * outputs [o0, o1), each output one fma chain over k ascending, as every host:exact tile's. */
void exact_fwd_lanes512(const float *w, const float *bias, const float *xt, float *z, int batch,
                        int in, int out, int r0, int r1, int o0, int o1);
/* The input gradient in the same lanes: dx = dz·W for rows [r0, r1) and W's columns [k0, k1),
 * dzt = dzᵀ [out, batch], each output one fma chain from 0 over W's rows ascending. */
void exact_dx_lanes512(const float *w, const float *dzt, float *dx, int batch, int in, int out,
                       int r0, int r1, int k0, int k1);
/* The same two in double (host:f64's step), 8 rows a vector. */
void exact_fwd_lanes512_f64(const double *w, const double *bias, const double *xt, double *z,
                            int batch, int in, int out, int r0, int r1, int o0, int o1);
void exact_dx_lanes512_f64(const double *w, const double *dzt, double *dx, int batch, int in,
                           int out, int r0, int r1, int k0, int k1);
#endif
void host_units(cp_engine *e, int l, int batch, int id, int n, unit_run_fn run);
int exact_pack(cp_engine *e, struct host_state *s);
void exact_plan(cp_engine *e, int batch, int max);
int exact_pool(cp_engine *e, struct host_state *s, int max_batch);

/* host_cr.c: host:cr's fast-path unit at level isa (generic: the portable loop). */
enum cr_kernel cr_kernel_for(int isa, bool generic);

#endif
