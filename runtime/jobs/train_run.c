/* Training by engine name (clparity/train.h): each engine's training ops from the registry
 * (cp_engine_info's .train); and the training run (clparity/train_run.h), which `clparity
 * train` (tools/cmd_train.c) and train --mpi (tools/train_mpi.c) run. */
#include "clparity/engine.h"
#include "clparity/gen.h"
#include "clparity/metrics.h"
#include "clparity/select.h"
#include "clparity/train.h"
#include "clparity/train_run.h"

#include "hostblas/pool.h"
#include "metrics-impl.h"
#include "train-impl.h"

#include "clparity/error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The training ops of the engine named engine; NULL where it has none. */
static const struct cp_train_ops *train_ops_named(const char *engine)
{
    const cp_engine_info *e = cp_engine_find(engine);
    return e ? e->train : NULL;
}

bool cp_train_engine_supported(const char *engine)
{
    return train_ops_named(engine) != NULL;
}

int cp_trainer_create(const char *engine, const cp_device *dev, const cp_model *m, int batch,
                      const float *x, const float *t, double lr, cp_trainer **out)
{
    cp_optim o;
    cp_optim_default(CP_OPTIM_SGD, lr, &o);
    return cp_trainer_create_optim(engine, dev, m, batch, x, t, &o, out);
}

int cp_trainer_create_optim(const char *engine, const cp_device *dev, const cp_model *m, int batch,
                            const float *x, const float *t, const cp_optim *o, cp_trainer **out)
{
    *out = NULL;
    int st = cp_optim_check(o);
    if (st != CP_OK)
        return st;
    const struct cp_train_ops *ops = train_ops_named(engine);
    if (!ops)
        return cp_err_set(CP_FAIL_USAGE, "train does not support the engine %s", engine);
    /* the registry's name: it outlives the trainer, where engine may not */
    return train_create(ops, cp_engine_find(engine)->name, dev, m, batch, x, t, o, out);
}

/* The run (clparity/train_run.h). */

static const cp_device *host_device(const cp_devlist *l)
{
    for (size_t i = 0; i < l->n; ++i)
        if (l->v[i].kind == CP_DEV_HOST)
            return &l->v[i];
    return NULL;
}

static int add_result(cp_train_run *R, const cp_device *dev, const cp_engine_info *e)
{
    cp_train_result *v = realloc(R->r, (R->nr + 1) * sizeof *v);
    if (!v)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory");
    R->r = v;
    memset(&R->r[R->nr], 0, sizeof R->r[R->nr]);
    R->r[R->nr].dev = dev;
    R->r[R->nr].engine = e->name;
    R->r[R->nr].traits = cp_train_traits_of(e->train);
    R->r[R->nr].forward_base = -1;
    R->r[R->nr].forward_cr = -1;
    R->r[R->nr].state_base = -1;
    R->r[R->nr].div_sqrt = "";
    R->nr++;
    return CP_OK;
}

void cp_train_result_label(const cp_train_result *r, char *buf, size_t len)
{
    if (r->label[0])
        snprintf(buf, len, "%s", r->label);
    else
        cp_device_label(r->dev, buf, len);
}

/* The engine whose training plays role (host:exact, host:f64, host:cr). */
static const cp_engine_info *engine_of_role(enum cp_train_role role)
{
    for (size_t i = 0; i < cp_engine_count(); ++i) {
        const cp_train_traits *tt = cp_train_traits_of(cp_engine_at(i)->train);
        if (tt && tt->role == role)
            return cp_engine_at(i);
    }
    return NULL;
}

int cp_train_run_plan(cp_train_run *R, const bool *use, bool by_name)
{
    size_t ne = cp_engine_count();
    const cp_device *host = host_device(&R->devs);
    const cp_engine_info *base = engine_of_role(CP_TRAIN_BASELINE),
                         *ref = engine_of_role(CP_TRAIN_REFERENCE),
                         *crb = engine_of_role(CP_TRAIN_CR_BASE);
    if (!host)
        return cp_err_set(CP_FAIL_RUNTIME, "no host device in the device list");
    if (!base || !ref || !crb)
        return cp_err_set(CP_FAIL_RUNTIME, "the engine registry lacks a training reference");
    /* Without --engines: the exact engines and the reference; the fast ones by name. */
    bool *on = calloc(ne ? ne : 1, sizeof *on);
    if (!on)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory");
    for (size_t i = 0; i < ne; ++i) {
        const cp_train_traits *tt = cp_train_traits_of(cp_engine_at(i)->train);
        on[i] = use[i] && tt && (by_name || tt->by_default);
    }
    /* The references first: host:exact is the baseline, host:f64 the float64 reference. */
    int st = add_result(R, host, base);
    if (st == CP_OK && !R->given && !R->no_f64)
        st = add_result(R, host, ref);
    R->base = 0;
    R->ref = R->no_f64 ? SIZE_MAX : 1;
    R->cr = SIZE_MAX;
    bool any_cr = false;
    for (size_t i = 0; i < ne; ++i)
        any_cr |= on[i] && cp_train_traits_of(cp_engine_at(i)->train)->cr;
    /* the other host engines (host:openblas) */
    for (size_t i = 0; st == CP_OK && i < ne; ++i) {
        const cp_engine_info *e = cp_engine_at(i);
        if (on[i] && e->kind == CP_DEV_HOST && cp_train_traits_of(e->train)->role == CP_TRAIN_PLAIN)
            st = add_result(R, host, e);
    }
    /* host:cr, listed or not, with any cl:cr: every cl:cr result must have its bits at every
     * recorded step (rank 0's, under --mpi, for every rank's) */
    if (st == CP_OK && any_cr && !R->given) {
        R->cr = R->nr;
        st = add_result(R, host, crb);
    }
    for (size_t di = 0; st == CP_OK && di < R->devs.n; ++di) {
        const cp_device *dev = &R->devs.v[di];
        if (!R->chosen[di] || dev->kind == CP_DEV_HOST)
            continue;
        for (size_t i = 0; st == CP_OK && i < ne; ++i) {
            const cp_engine_info *e = cp_engine_at(i);
            if (on[i] && e->kind == CP_DEV_OPENCL)
                st = add_result(R, dev, e);
        }
    }
    free(on);
    return st;
}

int cp_train_run_check(cp_train_run *R)
{
    double macs = cp_train_step_macs(&R->m, (int)R->batch) * (double)R->steps;
    for (size_t i = 0; i < R->nr; ++i) {
        const cp_device *dev = R->r[i].dev;
        if (dev->simulator && !R->allow_slow && macs > CP_SIMULATOR_MAC_LIMIT)
            return cp_err_set(CP_FAIL_USAGE,
                              "%d:%d %s is a simulator: this training needs %.3g multiply-adds on "
                              "it (limit %.3g); pass --allow-slow to run it anyway",
                              dev->plat_idx, dev->dev_idx, dev->name, macs, CP_SIMULATOR_MAC_LIMIT);
        if (cp_train_check_device(dev, &R->opt) != CP_OK) {
            char lb[300];
            cp_train_result_label(&R->r[i], lb, sizeof lb);
            return cp_err_set(CP_FAIL_USAGE, "%s on %s: %s", R->r[i].engine, lb, cp_err_msg());
        }
    }
    /* Memory, before any work: cl:own holds the weights, every layer's input and
     * pre-activation, the output, the target and three gradient rows on the device, and for
     * an optimizer other than plain SGD the whole gradient and its state (one or two tensors
     * of the weights' size); each result holds about as much on the host (host:f64 twice). */
    size_t stride = (size_t)R->batch * (size_t)R->m.max_width;
    size_t nt = (size_t)R->batch * (size_t)R->m.out_width;
    unsigned long long largest =
        4ull * (unsigned long long)(R->m.n_params > (R->m.n_layers + 1) * stride
                                        ? R->m.n_params
                                        : (R->m.n_layers + 1) * stride);
    unsigned long long per =
        4ull * ((unsigned long long)R->m.n_params * (1ull + cp_optim_tensors(&R->opt)) +
                (2ull * (unsigned long long)R->m.n_layers + 4ull) * stride + nt);
    unsigned long long host_total = 0;
    for (size_t i = 0; i < R->nr; ++i) {
        const cp_device *dev = R->r[i].dev;
        host_total += cp_engine_find(R->r[i].engine)->dtype == CP_F64 ? 2 * per : per;
        if (dev->kind != CP_DEV_OPENCL)
            continue;
        if (per > dev->global_mem || largest > dev->max_alloc)
            return cp_err_set(CP_FAIL_USAGE,
                              "the training needs %.3g MiB on %d:%d %s (largest buffer %.3g MiB), "
                              "more than its %.3g MiB global memory or %.3g MiB max allocation",
                              (double)per / 1048576.0, dev->plat_idx, dev->dev_idx, dev->name,
                              (double)largest / 1048576.0, (double)dev->global_mem / 1048576.0,
                              (double)dev->max_alloc / 1048576.0);
    }
    unsigned long long avail = cp_host_mem_available();
    if (avail && host_total > avail)
        return cp_err_set(CP_FAIL_USAGE,
                          "the training needs %.3g MiB of host memory, more than the %.3g MiB "
                          "available",
                          (double)host_total / 1048576.0, (double)avail / 1048576.0);
    return CP_OK;
}

int cp_train_run_generate(cp_train_run *R, bool loaded)
{
    if (R->given)
        return CP_OK;
    int st;
    if (!loaded && (st = cp_model_builtin_generate(&R->m)) != CP_OK)
        return st;
    if ((st = cp_model_input((int)R->batch, R->m.in_width, R->seed, &R->x)) != CP_OK)
        return st;
    size_t nt = (size_t)R->batch * (size_t)R->m.out_width;
    R->t = calloc(nt, sizeof *R->t);
    if (!R->t)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory for the target");
    if (!R->target_zeros)
        cp_gen_fill_normal(R->t, nt, R->seed, CP_TENSOR_TARGET);
    return CP_OK;
}

static int add_rec(cp_train_run *R, const cp_train_rec *r)
{
    if (R->nrecs == R->caprecs) {
        size_t cap = R->caprecs ? 2 * R->caprecs : 64;
        cp_train_rec *v = realloc(R->recs, cap * sizeof *v);
        if (!v)
            return cp_err_set(CP_FAIL_RUNTIME, "out of memory");
        R->recs = v;
        R->caprecs = cap;
    }
    R->recs[R->nrecs++] = *r;
    return CP_OK;
}

/* The measurements' threads: one per MEASURE_PER_THREAD weights, at most the host's threads
 * (CLPARITY_HOST_THREADS, else the cores) and MEASURE_MAX_THREADS. */
#define MEASURE_PER_THREAD 65536
#define MEASURE_MAX_THREADS 16

/* Weight differences of result i against the baseline and the float64 reference over weights
 * [k0, k1): the max abs difference (NaN where any difference is NaN), the max ULP and the count
 * of bit-equal weights. */
struct measure_part {
    double babs, rabs;
    bool bnan, rnan;
    uint64_t bulp, rulp;
    size_t eq;
};

static void measure_range(const cp_train_run *R, size_t i, size_t k0, size_t k1,
                          struct measure_part *out)
{
    const cp_train_result *r = &R->r[i];
    const float *base = R->r[R->base].w;
    const double *ref = R->ref == SIZE_MAX ? NULL : R->r[R->ref].w;
    const bool f64 = r->dtype == CP_F64;
    const float *w32 = r->w;
    const double *w64 = r->w;
    size_t eq = 0;
    double babs = 0.0, rabs = 0.0;
    bool bnan = false, rnan = false;
    uint64_t bulp = 0, rulp = 0;
    for (size_t k = k0; k < k1; ++k) {
        double a = f64 ? w64[k] : (double)w32[k];
        float a32 = (float)a;
        double db = fabs(a - (double)base[k]);
        bnan |= isnan(db);
        babs = db > babs ? db : babs;
        uint64_t ub = cp_ulp_dist_inl(a32, base[k]);
        bulp = ub > bulp ? ub : bulp;
        if (ref) {
            double dr = fabs(a - ref[k]);
            rnan |= isnan(dr);
            rabs = dr > rabs ? dr : rabs;
            uint64_t ur = cp_ulp_dist_inl(a32, (float)ref[k]);
            rulp = ur > rulp ? ur : rulp;
        }
        eq += f64 ? (double)base[k] == a : memcmp(&a32, &base[k], sizeof a32) == 0;
    }
    *out = (struct measure_part){babs, rabs, bnan, rnan, bulp, rulp, eq};
}

/* The baseline's (into *pb) and the float64 reference's (*pr) measurements over [k0, k1) in one
 * pass: each against the other has the same differences (|b - r|, and the ULP distance of b and
 * r rounded to float), and each against itself 0, NaN where a weight is NaN, as measure_range
 * gives them. Two passes of measure_range read both twice (on the H200 machine's 16 cores
 * train's records took 4.3 ms of each step at d=128 L=128 B=64). */
static void measure_pair_range(const cp_train_run *R, size_t k0, size_t k1, struct measure_part *pb,
                               struct measure_part *pr)
{
    const float *base = R->r[R->base].w;
    const double *ref = R->r[R->ref].w;
    double dmax = 0.0;
    bool dnan = false, bnan = false, rnan = false;
    uint64_t umax = 0;
    size_t eq = 0;
    for (size_t k = k0; k < k1; ++k) {
        double d = fabs((double)base[k] - ref[k]);
        dnan |= isnan(d);
        dmax = d > dmax ? d : dmax;
        uint64_t u = cp_ulp_dist_inl(base[k], (float)ref[k]);
        umax = u > umax ? u : umax;
        bnan |= isnan(base[k]);
        rnan |= isnan(ref[k]);
        eq += (double)base[k] == ref[k];
    }
    *pb = (struct measure_part){0.0, dmax, bnan, dnan, 0, umax, k1 - k0};
    *pr = (struct measure_part){dmax, 0.0, dnan, rnan, umax, 0, eq};
}

/* measure's share of thread id of n: a contiguous range of the weights (pair: the baseline's
 * and the reference's, into part and part2) */
struct measure_task {
    const cp_train_run *R;
    size_t i;
    bool pair;
    struct measure_part part[MEASURE_MAX_THREADS], part2[MEASURE_MAX_THREADS];
};

static void measure_task_run(void *arg, struct host_pool *p, int id, int n)
{
    (void)p;
    struct measure_task *t = arg;
    size_t np = t->R->m.n_params;
    size_t k0 = np * (size_t)id / (size_t)n, k1 = np * (size_t)(id + 1) / (size_t)n;
    if (t->pair)
        measure_pair_range(t->R, k0, k1, &t->part[id], &t->part2[id]);
    else
        measure_range(t->R, t->i, k0, k1, &t->part[id]);
}

/* A record's measurements from the threads' parts. */
static void measure_fill(const cp_train_run *R, const struct measure_part *part, int nt,
                         cp_train_rec *rc)
{
    struct measure_part all = {0};
    for (int id = 0; id < nt; ++id) {
        const struct measure_part *q = &part[id];
        all.babs = q->babs > all.babs ? q->babs : all.babs;
        all.rabs = q->rabs > all.rabs ? q->rabs : all.rabs;
        all.bnan |= q->bnan;
        all.rnan |= q->rnan;
        all.bulp = q->bulp > all.bulp ? q->bulp : all.bulp;
        all.rulp = q->rulp > all.rulp ? q->rulp : all.rulp;
        all.eq += q->eq;
    }
    size_t n = R->m.n_params;
    bool ref = R->ref != SIZE_MAX;
    rc->base_abs = all.bnan ? NAN : all.babs;
    rc->f64_abs = !ref || all.rnan ? NAN : all.rabs; /* --no-f64: nothing against float64 */
    rc->base_ulp = all.bulp;
    rc->f64_ulp = all.rulp;
    rc->base_bitwise = n ? (double)all.eq / (double)n : 1.0;
}

/* Result i's measurements (the fields of a record but its step, result and loss), and with
 * rc_ref (i the baseline) the float64 reference's in the same pass. Run for every recorded step
 * and result (every step by default): one pass, the ULP distance inlined, split over the pool's
 * threads where the model has MEASURE_PER_THREAD weights a thread or more; the parts' maxima
 * and counts make the same numbers in any split. */
static void measure(cp_train_run *R, size_t i, cp_train_rec *rc, cp_train_rec *rc_ref)
{
    size_t n = R->m.n_params;
    if (!R->pool_made) {
        R->pool_made = true; /* one try: without a pool, one thread measures */
        R->pool_n = 1;
        int threads = 1;
        if (host_max_threads(&threads) == CP_OK) {
            size_t want = n / MEASURE_PER_THREAD;
            threads = want < (size_t)threads ? (want < 1 ? 1 : (int)want) : threads;
            threads = threads > MEASURE_MAX_THREADS ? MEASURE_MAX_THREADS : threads;
            if (host_pool_shared(threads, &R->pool) != CP_OK)
                R->pool = NULL;
            R->pool_n = threads < host_pool_size(R->pool) ? threads : host_pool_size(R->pool);
        }
    }
    struct measure_task t = {.R = R, .i = i, .pair = rc_ref != NULL};
    int nt = R->pool_n; /* 1 without a pool; at most MEASURE_MAX_THREADS parts */
    host_pool_task(R->pool, nt, measure_task_run, &t);
    measure_fill(R, t.part, nt, rc);
    if (rc_ref)
        measure_fill(R, t.part2, nt, rc_ref);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void progress(const cp_train_run *R, enum cp_train_event_kind kind, size_t i, long step,
                     const char *why)
{
    if (R->progress)
        R->progress(R, kind, i, step, why, R->progress_ctx);
}

int cp_train_run_start(cp_train_run *R)
{
    for (size_t i = 0; i < R->nr; ++i) {
        cp_train_result *r = &R->r[i];
        if (!r->dev)
            continue;
        progress(R, CP_TRAIN_EV_BUILD, i, 0, NULL);
        double t0 = now_s();
        int st = cp_trainer_create_optim(r->engine, r->dev, &R->m, (int)R->batch, R->x, R->t,
                                         &R->opt, &r->tr);
        bool warming = st == CP_OK && r->tr->ops->warm;
        if (warming && (st = r->tr->ops->warm(r->tr)) != CP_OK) {
            char lb[300];
            cp_train_result_label(r, lb, sizeof lb);
            return cp_err_set(st, "%s on %s, warm-up step: %s", r->engine, lb, cp_err_msg());
        }
        r->build_s = now_s() - t0;
        if (st == CP_OK) {
            r->build_cache = r->tr->build_cache;
            snprintf(r->build_cache_note, sizeof r->build_cache_note, "%s",
                     r->tr->build_cache_note);
        }
        if (st != CP_OK) {
            char lb[300];
            cp_train_result_label(r, lb, sizeof lb);
            return cp_err_set(st, "%s on %s: %s", r->engine, lb, cp_err_msg());
        }
        if (cp_trainer_build_options(r->tr)[0])
            snprintf(R->build_options, sizeof R->build_options, "%s",
                     cp_trainer_build_options(r->tr));
        int probe_ok;
        const char *why = cp_trainer_probe(r->tr, &probe_ok);
        if (probe_ok == 0) {
            progress(R, CP_TRAIN_EV_PROBE_FAILED, i, 0, why);
            r->probe_failed = true;
        }
        r->dtype = cp_trainer_dtype(r->tr);
        r->div_sqrt = cp_trainer_div_sqrt(r->tr);
        size_t es = cp_dtype_size(r->dtype);
        size_t nt = (size_t)R->batch * (size_t)R->m.out_width;
        r->y_rt = malloc((nt ? nt : 1) * es);
        if (!r->y_rt)
            return cp_err_set(CP_FAIL_RUNTIME, "out of memory");
        if ((st = cp_trainer_weights_view(r->tr, &r->w)) != CP_OK) /* the initial weights */
            return st;
    }
    return CP_OK;
}

int cp_train_run_step(cp_train_run *R, long step, bool *poked)
{
    /* train-ulp: after step 1; train-ulp-at:N after step N (a divergence that a sample of the
     * steps would not show) */
    const char *th = getenv("CLPARITY_TEST_HOOK");
    bool hook = th && (strcmp(th, "train-ulp") == 0 ||
                       (strncmp(th, "train-ulp-at:", 13) == 0 && atol(th + 13) == step));
    progress(R, CP_TRAIN_EV_STEP, 0, step, NULL);
    for (size_t i = 0; i < R->nr; ++i) {
        cp_train_result *r = &R->r[i];
        if (!r->tr)
            continue;
        char lb[300];
        cp_train_result_label(r, lb, sizeof lb);
        double t0 = now_s();
        int st = cp_trainer_step(r->tr, &r->loss);
        if (step == 1)
            r->first_s = now_s() - t0;
        else
            r->step_s += now_s() - t0;
        if (st != CP_OK)
            return cp_err_set(st, "%s on %s, step %ld: %s", r->engine, lb, step, cp_err_msg());
        if (!isfinite(r->loss)) /* named, not printed: printf gives NaN's sign ("-nan") */
            return cp_err_set(CP_FAIL_CHECK,
                              "step %ld: the loss of %s on %s is not finite (%s); a smaller "
                              "--init-scale (or --lr) keeps training finite",
                              step, r->engine, lb,
                              isnan(r->loss) ? "nan"
                              : r->loss > 0  ? "+inf"
                                             : "-inf");
        /* Test hook: one weight of the first result with a twin (cl:own, cl:cr) moves one
         * ULP, once (train-ulp: at step 1; train-ulp-at:N at step N). */
        if (hook && !*poked && r->traits->twin != CP_TRAIN_PLAIN) {
            if ((st = cp_trainer_poke_ulp(r->tr, 0)) != CP_OK)
                return st;
            *poked = true;
        }
    }
    return CP_OK;
}

bool cp_train_run_recorded(const cp_train_run *R, long step)
{
    return step % R->every == 0 || step == R->steps;
}

/* Each local result's weights where its trainer keeps them, or has just read them (no copy:
 * on the H200 machine, copying and reading into malloc'd memory took 5.4 ms of each step of
 * train at d=128 L=128 B=64, a sixth of the run). */
int cp_train_run_read_weights(cp_train_run *R)
{
    for (size_t i = 0; i < R->nr; ++i) {
        int st = R->r[i].tr ? cp_trainer_weights_view(R->r[i].tr, &R->r[i].w) : CP_OK;
        if (st != CP_OK)
            return st;
    }
    return CP_OK;
}

int cp_train_run_record(cp_train_run *R, long step)
{
    /* The baseline's own measurements serve every float32 result bit-identical to it (cl:own
     * as a rule): its differences to itself are 0 (NaN where a weight is NaN), and those to
     * host:f64 are the baseline's. */
    cp_train_rec brc = {0}, rrc = {0};
    const float *base = R->r[R->base].w;
    size_t nb = R->m.n_params * sizeof(float);
    bool pair = base && R->ref != SIZE_MAX && R->r[R->ref].w && R->r[R->ref].dtype == CP_F64;
    if (base)
        measure(R, R->base, &brc, pair ? &rrc : NULL);
    for (size_t i = 0; i < R->nr; ++i) {
        if (!R->r[i].w)
            continue; /* a rank that failed */
        bool same =
            base && R->r[i].dtype == CP_F32 && (i == R->base || memcmp(R->r[i].w, base, nb) == 0);
        cp_train_rec rc = brc;
        if (pair && i == R->ref)
            rc = rrc;
        else if (!same)
            measure(R, i, &rc, NULL);
        rc.step = step;
        rc.res = i;
        rc.loss = R->r[i].loss;
        if (rc.base_ulp > R->r[i].max_ulp_base)
            R->r[i].max_ulp_base = rc.base_ulp;
        if (i != R->ref && !R->r[i].first_div && (rc.base_ulp || rc.base_bitwise < 1.0))
            R->r[i].first_div = step;
        if (R->cr != SIZE_MAX && i != R->cr && R->r[i].traits->cr && !R->r[i].first_div_cr &&
            R->r[R->cr].w && memcmp(R->r[i].w, R->r[R->cr].w, R->m.n_params * sizeof(float)) != 0)
            R->r[i].first_div_cr = step;
        int st = add_rec(R, &rc);
        if (st != CP_OK)
            return st;
    }
    return CP_OK;
}

/* The optimizer state (momentum buffer, exp_avg, exp_avg_sq) of every local result with a twin
 * against its twin's (cl:own against host:exact, cl:cr against host:cr), bit for bit: a
 * difference there may not have reached the weights yet. */
static int compare_state(cp_train_run *R)
{
    cp_trainer *any = R->r[R->base].tr;
    size_t ns = any ? cp_trainer_state_count(any) : 0, n = R->m.n_params ? R->m.n_params : 1;
    if (ns == 0)
        return CP_OK;
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    int st = a && b ? CP_OK : cp_err_set(CP_FAIL_RUNTIME, "out of memory");
    for (size_t i = 0; st == CP_OK && i < R->nr; ++i) {
        cp_train_result *r = &R->r[i];
        size_t t = r->traits->twin == CP_TRAIN_BASELINE  ? R->base
                   : r->traits->twin == CP_TRAIN_CR_BASE ? R->cr
                                                         : SIZE_MAX;
        if (!r->tr || t == SIZE_MAX || !R->r[t].tr)
            continue;
        r->state_base = 1;
        for (size_t k = 0; st == CP_OK && k < ns && r->state_base; ++k) {
            if ((st = cp_trainer_state(r->tr, k, a)) != CP_OK ||
                (st = cp_trainer_state(R->r[t].tr, k, b)) != CP_OK)
                break;
            if (memcmp(a, b, R->m.n_params * sizeof *a) != 0) {
                r->state_base = 0;
                r->state_diff = cp_trainer_state_name(r->tr, k);
            }
        }
    }
    free(a);
    free(b);
    return st;
}

/* Whether result i's round-trip output equals its twin's: 1, 0, or -1 (no twin here). */
int cp_train_run_twin_forward(const cp_train_run *R, size_t i, enum cp_train_role twin)
{
    size_t nt = (size_t)R->batch * (size_t)R->m.out_width;
    size_t t = twin == CP_TRAIN_BASELINE ? R->base : twin == CP_TRAIN_CR_BASE ? R->cr : SIZE_MAX;
    if (t == SIZE_MAX || R->r[i].traits->twin != twin)
        return -1;
    return memcmp(R->r[i].y_rt, R->r[t].y_rt, nt * sizeof(float)) == 0;
}

int cp_train_run_finish(cp_train_run *R)
{
    for (size_t i = 0; i < R->nr; ++i) {
        cp_train_result *r = &R->r[i];
        if (!r->tr)
            continue;
        int st = cp_trainer_roundtrip(r->tr, r->y_rt, &r->roundtrip);
        if (st != CP_OK)
            return st;
        r->hash = cp_hash_fnv1a(r->w, R->m.n_params * cp_dtype_size(r->dtype));
    }
    for (size_t i = 0; i < R->nr && !R->given; ++i) {
        if (!R->r[i].y_rt)
            continue;
        if (R->r[i].traits->twin == CP_TRAIN_BASELINE)
            R->r[i].forward_base = cp_train_run_twin_forward(R, i, CP_TRAIN_BASELINE);
        if (R->r[i].traits->twin == CP_TRAIN_CR_BASE && R->cr != SIZE_MAX)
            R->r[i].forward_cr = cp_train_run_twin_forward(R, i, CP_TRAIN_CR_BASE);
    }
    return R->given ? CP_OK : compare_state(R);
}

void cp_train_run_free(cp_train_run *R)
{
    host_pool_unshare(R->pool);
    R->pool = NULL;
    for (size_t i = 0; i < R->nr; ++i) {
        cp_trainer_destroy(R->r[i].tr);
        free(R->r[i].w_buf);
        free(R->r[i].y_rt);
    }
    free(R->r);
    free(R->recs);
    free(R->x);
    free(R->t);
    cp_model_free(&R->m);
    free(R->chosen);
    cp_devlist_free(&R->devs);
}
