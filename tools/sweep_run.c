/* clparity sweep: running the series at each point, and refusing what does not fit. */
#include "cli.h"
#include "perf.h"
#include "progress.h"
#include "sweep.h"

#include "clparity/select.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

volatile sig_atomic_t sweep_stop_signal;

/* ---- measuring ---------------------------------------------------------------------------- */

/* Whether one result of a point can run: the device's memory (cp_engine_check_memory, with
 * the sizes from cp_engine_footprint for the short reason), the host's MemAvailable for the
 * model that every engine reads from, and a simulator's work limit. */
static bool refuse(struct sweep *s, const cp_model *m, const struct point *p,
                   const struct series *se, struct row *r)
{
    unsigned long long total, largest;
    cp_engine_footprint(se->eng, m, (int)p->batch, &total, &largest);
    char need[32], have[32];
    const cp_device *dev = se->dev;
    if (cp_engine_check_memory(se->eng, dev, m, (int)p->batch) != CP_OK) {
        snprintf(r->detail, sizeof r->detail, "%s", cp_err_msg());
        bool alloc = largest > dev->max_alloc;
        cp_fmt_bytes(alloc ? largest : total, true, need, sizeof need);
        cp_fmt_bytes(alloc ? dev->max_alloc : dev->global_mem, true, have, sizeof have);
        snprintf(r->reason, sizeof r->reason, "%s > %s (%s)", need, have,
                 alloc ? "CL_DEVICE_MAX_MEM_ALLOC_SIZE" : "CL_DEVICE_GLOBAL_MEM_SIZE");
        return true;
    }
    /* The model, the input and the output on the host, and what the engine holds there
     * besides (a CPU device's buffers are host memory too). */
    unsigned long long b = (unsigned long long)p->batch;
    unsigned long long host_need = (unsigned long long)m->n_params * 4ULL +
                                   b * (unsigned long long)m->in_width * 4ULL +
                                   b * (unsigned long long)m->out_width * 8ULL +
                                   cp_engine_host_footprint(se->eng, dev, m, (int)p->batch);
    unsigned long long avail = cp_host_mem_available();
    if (avail && host_need > avail) {
        cp_fmt_bytes(host_need, true, need, sizeof need);
        cp_fmt_bytes(avail, true, have, sizeof have);
        snprintf(r->reason, sizeof r->reason, "%s > %s (host MemAvailable)", need, have);
        snprintf(r->detail, sizeof r->detail,
                 "model too large for host memory: needs %s (%llu bytes) > MemAvailable %s "
                 "(%llu bytes)",
                 need, host_need, have, avail);
        return true;
    }
    long runs = s->o.runs > 0 ? s->o.runs : CP_RUNS_MIN; /* adaptive: its floor */
    double work = r->macs * (double)(runs + s->o.warmup);
    if (dev->kind == CP_DEV_OPENCL && dev->simulator && !s->o.allow_slow &&
        work > CP_SIMULATOR_MAC_LIMIT) {
        snprintf(r->reason, sizeof r->reason, "%.3g multiply-adds > %.3g (simulator limit)", work,
                 CP_SIMULATOR_MAC_LIMIT);
        snprintf(r->detail, sizeof r->detail,
                 "%s is a simulator: %.3g multiply-adds (%.3g per forward x %ld runs) over its "
                 "limit of %.3g; pass --allow-slow",
                 dev->name, work, r->macs, runs + s->o.warmup, CP_SIMULATOR_MAC_LIMIT);
        return true;
    }
    return false;
}

static void progress(const struct sweep *s, size_t round, size_t done, const struct point *p,
                     const struct series *se)
{
    if (!progress_enabled())
        return;
    size_t total = s->npts * s->nser * s->rounds, width = 24;
    size_t filled = total ? done * width / total : width;
    char bar[32], label[300], rd[32] = "";
    for (size_t i = 0; i < width; ++i)
        bar[i] = i < filled ? '#' : '.';
    bar[width] = '\0';
    cp_device_label(se->dev, label, sizeof label);
    if (s->rounds > 1)
        snprintf(rd, sizeof rd, "round %zu/%zu  ", round + 1, s->rounds);
    progress_stage("[%s] %zu/%zu  %sd=%ld L=%ld B=%ld  %s on %.40s", bar, done, total, rd, p->d,
                   p->layers, p->batch, se->eng->name, label);
}

/* The statistics of the runs a row has (its rounds pooled); frees them. */
static void row_finish(struct sweep *s, struct row *r)
{
    if (!r->t)
        return;
    double *wall = r->t, *e2e = r->t + r->cap, *kern = r->t + 2 * r->cap;
    r->wall = cp_stats_of(wall, r->k);
    r->e2e = cp_stats_of(e2e, r->k);
    r->kernel_median = r->kernel_known ? cp_stats_of(kern, r->k).median : -1.0;
    r->gflops = r->wall.median > 0.0 ? 2.0 * r->macs / r->wall.median / 1e9 : -1.0;
    const cp_peak *pk = &s->peaks[s->ser[r->series].dev_index];
    r->pct_peak = pk->available && pk->fma_gflops > 0.0 && r->gflops >= 0.0
                      ? 100.0 * r->gflops / pk->fma_gflops
                      : -1.0;
    r->pct_peak_suspect = r->pct_peak > 100.0;
    free(r->t);
    r->t = NULL;
}

/* Runs one round of a result: its warm-up and its block of timed runs, added to the row's
 * runs. A failure is the row's, not the sweep's. False when a signal stopped it before the
 * block's last run: the block is then dropped. */
static bool run_row(struct sweep *s, const cp_model *m, const float *x, const struct point *p,
                    const struct series *se, struct row *r, size_t round)
{
    size_t n = (size_t)p->batch * (size_t)m->out_width;
    if (!r->t) { /* the first round: room for every round's runs */
        r->cap = 0;
        for (size_t i = 0; i < s->rounds; ++i)
            r->cap += cp_runs_cap_round(s->o.runs, s->rounds, i);
        r->t = calloc(3 * r->cap, sizeof *r->t);
        r->k = 0;
        r->kernel_known = true;
    }
    void *y = malloc(n * cp_dtype_size(se->eng->dtype));
    double *blk = malloc(cp_runs_cap_round(s->o.runs, s->rounds, round) * sizeof *blk);
    cp_engine *e = NULL;
    bool finished = true;
    size_t k0 = r->k, kb = 0;
    double measured = 0.0;
    if (!y || !r->t || !blk) {
        r->status = ROW_ERROR;
        snprintf(r->reason, sizeof r->reason, "out of memory for the output");
        s->status = CP_FAIL_RUNTIME; /* an error row, as a failed forward's below */
        goto out;
    }
    double *wall = r->t, *e2e = r->t + r->cap, *kern = r->t + 2 * r->cap;
    int st = cp_engine_create(se->eng, se->dev, m, (int)p->batch, &e);
    if (st == CP_OK && cp_engine_build_options(e)[0])
        snprintf(s->build_options, sizeof s->build_options, "%s", cp_engine_build_options(e));
    for (long i = 0; st == CP_OK && !sweep_stop_signal &&
                     (i < s->o.warmup ||
                      cp_runs_more_round(s->o.runs, s->o.min_time, s->rounds, round, kb, measured));
         ++i) {
        cp_timing tm;
        st = cp_engine_forward(e, x, (int)p->batch, y, &tm);
        if (st != CP_OK || i < s->o.warmup)
            continue;
        size_t k = k0 + kb;
        wall[k] = tm.wall_s;
        blk[kb] = tm.wall_s;
        measured += tm.wall_s;
        /* The three intervals are back to back: from the input's upload to the output's
         * read, without the profiling queries that follow them. */
        e2e[k] = tm.h2d_s + tm.wall_s + tm.d2h_s;
        kern[k] = tm.kernel_s;
        if (tm.kernel_s < 0.0)
            r->kernel_known = false;
        kb++;
    }
    if (st != CP_OK) {
        r->status = ROW_ERROR;
        snprintf(r->reason, sizeof r->reason, "%s", cp_err_msg());
        s->status = CP_FAIL_RUNTIME;
        free(r->t);
        r->t = NULL;
        goto out;
    }
    if (sweep_stop_signal) {
        finished = false; /* an unfinished block: not kept */
        goto out;
    }
    r->k = k0 + kb;
    r->round_runs[r->nround] = kb;
    r->round_median[r->nround++] = cp_stats_of(blk, kb).median;
out:
    cp_engine_destroy(e);
    free(y);
    free(blk);
    return finished;
}

static void print_row(struct sweep *s, struct row *r)
{
    progress_clear();
    sweep_print_row(s, r);
    cli_flush(s->out);
    r->printed = true;
}

/* Round 0: the point's rows, each refused or not. */
static void make_rows(struct sweep *s, size_t pi, const cp_model *m)
{
    const struct point *p = &s->pts[pi];
    for (size_t k = 0; k < s->nser; ++k) {
        struct row *r = &s->rows[s->nrows++];
        *r = (struct row){.point = pi,
                          .series = k,
                          .status = ROW_OK,
                          .kernel_median = -1.0,
                          .pct_peak = -1.0,
                          .gflops = -1.0};
        r->macs = cp_model_macs(m, (int)p->batch);
        if (refuse(s, m, p, &s->ser[k], r))
            r->status = ROW_REFUSED;
    }
}

/* The rows of point pi: [*first, *end). */
static void point_rows(const struct sweep *s, size_t pi, size_t *first, size_t *end)
{
    *first = *end = s->nrows;
    for (size_t i = 0; i < s->nrows; ++i)
        if (s->rows[i].point == pi) {
            *first = i < *first ? i : *first;
            *end = i + 1;
        }
}

/* Round 0: the point's model and input, made once. They are kept for the later rounds while
 * every point kept so far fits SWEEP_KEEP_BYTES (and a quarter of MemAvailable); a point
 * beyond it runs all its rounds at once (kept[pi].consecutive). False: out of host memory,
 * every result of the point fails. */
static bool make_model(struct sweep *s, size_t pi, size_t first, size_t end)
{
    struct kept *kp = &s->kept[pi];
    const struct point *p = &s->pts[pi];
    int st = cp_model_builtin_generate(&kp->m);
    if (st == CP_OK)
        st = cp_model_input((int)p->batch, kp->m.in_width, s->o.seed, &kp->x);
    if (st != CP_OK) {
        for (size_t i = first; i < end; ++i)
            if (s->rows[i].status == ROW_OK) {
                s->rows[i].status = ROW_ERROR;
                snprintf(s->rows[i].reason, sizeof s->rows[i].reason, "%s", cp_err_msg());
            }
        s->status = CP_FAIL_RUNTIME;
        return false;
    }
    unsigned long long bytes =
        (unsigned long long)kp->m.n_params * 4ULL +
        (unsigned long long)p->batch * (unsigned long long)kp->m.in_width * 4ULL;
    unsigned long long avail = cp_host_mem_available(), budget = SWEEP_KEEP_BYTES;
    if (avail && avail / 4 < budget)
        budget = avail / 4;
    const char *hook = getenv("CLPARITY_TEST_HOOK"); /* tests: a small budget */
    if (hook && strncmp(hook, "sweep-keep:", 11) == 0)
        budget = strtoull(hook + 11, NULL, 10);
    kp->consecutive = s->rounds > 1 && s->kept_bytes + bytes > budget;
    if (!kp->consecutive)
        s->kept_bytes += bytes;
    return true;
}

static void drop_model(struct sweep *s, size_t pi)
{
    struct kept *kp = &s->kept[pi];
    if (!kp->made)
        return;
    free(kp->x);
    kp->x = NULL;
    cp_model_free(&kp->m);
    kp->made = false;
}

/* One round's block of every runnable row of the point; the last round sets the statistics. */
static bool run_round(struct sweep *s, size_t round, size_t pi, size_t first, size_t end,
                      size_t *done)
{
    const struct point *p = &s->pts[pi];
    struct kept *kp = &s->kept[pi];
    for (size_t i = first; i < end; ++i) {
        struct row *r = &s->rows[i];
        if (sweep_stop_signal)
            return false;
        /* A forward of a second or more spans the slow changes that rounds catch: such a
         * result keeps its first round's runs (SWEEP_LONG_FORWARD). */
        bool more = round == 0 || (r->nround && r->round_median[0] < SWEEP_LONG_FORWARD);
        if (r->status == ROW_OK && kp->made && more) {
            progress(s, round, *done, p, &s->ser[r->series]);
            if (!run_row(s, &kp->m, kp->x, p, &s->ser[r->series], r, round))
                return false; /* interrupted in the middle of this block: sweep_finish_rows */
        }
        if (round + 1 == s->rounds && r->status == ROW_OK)
            row_finish(s, r);
        (*done)++;
    }
    return true;
}

void sweep_run_point(struct sweep *s, size_t round, size_t pi, size_t *done)
{
    const struct point *p = &s->pts[pi];
    struct kept *kp = &s->kept[pi];
    size_t first, end;
    if (round == 0) {
        int st = cp_model_builtin_shape(&kp->m, (int)p->d, (int)p->layers, s->o.seed,
                                        (float)s->o.init_scale);
        if (st != CP_OK) {
            /* Only a shape beyond int range gets here; every result of the point says why. */
            for (size_t k = 0; k < s->nser; ++k) {
                struct row *r = &s->rows[s->nrows++];
                *r = (struct row){.point = pi, .series = k, .status = ROW_REFUSED};
                snprintf(r->reason, sizeof r->reason, "%s", cp_err_msg());
            }
        } else {
            make_rows(s, pi, &kp->m);
            point_rows(s, pi, &first, &end);
            bool any = false;
            for (size_t i = first; i < end; ++i)
                any = any || s->rows[i].status == ROW_OK;
            kp->made = any && make_model(s, pi, first, end);
            if (!kp->made)
                cp_model_free(&kp->m);
        }
    }
    point_rows(s, pi, &first, &end);
    bool ok = true;
    if (round == 0 && kp->consecutive) /* every round now, on the model made for them */
        for (size_t r = 0; r < s->rounds && ok; ++r)
            ok = run_round(s, r, pi, first, end, done);
    else if (!kp->consecutive)
        ok = run_round(s, round, pi, first, end, done);
    if (round + 1 == s->rounds || (kp->consecutive && ok))
        drop_model(s, pi);
    if (round + 1 == s->rounds && ok) /* the table in grid order */
        for (size_t i = first; i < end; ++i)
            print_row(s, &s->rows[i]);
}

void sweep_finish_rows(struct sweep *s)
{
    size_t keep = 0;
    for (size_t i = 0; i < s->nrows; ++i) {
        struct row *r = &s->rows[i];
        if (r->status == ROW_OK && r->nround == 0) { /* no finished block: not a row */
            free(r->t);
            r->t = NULL;
            continue;
        }
        if (r->status == ROW_OK)
            row_finish(s, r);
        if (!r->printed)
            print_row(s, r);
        s->rows[keep++] = *r;
    }
    s->nrows = keep;
}

void sweep_free_rows(struct sweep *s)
{
    for (size_t i = 0; s->kept && i < s->npts; ++i)
        drop_model(s, i);
    free(s->kept);
    s->kept = NULL;
    for (size_t i = 0; s->rows && i < s->nrows; ++i) {
        free(s->rows[i].t);
        s->rows[i].t = NULL;
    }
}
