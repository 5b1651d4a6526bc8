/* clparity train --mpi: every rank of an mpirun job trains its own selected devices from rank
 * 0's model, input and target; at each recorded step rank 0 gathers every rank's weights and
 * measures them against its host:exact and host:f64 (computed once, there), so that the
 * per-step divergence of every device on every machine is one table. */
#include "cli.h"
#include "mpi.h"
#include "progress.h"
#include "train_cli.h"

#include "clparity/engine.h"
#include "clparity/error.h"
#include "clparity/report.h"
#include "clparity/train_run.h"

#include <stdlib.h>
#include <string.h>

/* Rank 0's status, then (CP_OK) its model, input and target with their SHA-256s. */
static void put_data(struct wire *w, int st, const struct train *T)
{
    wire_put_u64(w, (uint64_t)st);
    if (st != CP_OK)
        return;
    size_t nx = (size_t)T->R.batch * (size_t)T->R.m.in_width * sizeof(float);
    size_t nt = (size_t)T->R.batch * (size_t)T->R.m.out_width * sizeof(float);
    char sha[65];
    wire_put_model(w, &T->R.m);
    wire_put_bytes(w, T->R.x, nx);
    wire_put_bytes(w, T->R.t, nt);
    cp_sha256_hex(w->p, w->len, sha);
    wire_put_str(w, sha);
}

/* The other ranks: rank 0's data in T, its SHA-256 checked against the bytes that arrived. */
static int get_data(struct wire *w, struct train *T)
{
    char sha[65];
    int st = wire_get_model(w, &T->R.m);
    if (st != CP_OK)
        return cli_fail(CMD, st, "%s", cp_err_msg());
    size_t nx, nt;
    const void *x = wire_get_bytes(w, &nx), *t = wire_get_bytes(w, &nt);
    size_t end = w->pos;
    cp_sha256_hex(w->p, end, sha);
    const char *want = wire_get_str(w);
    if (w->bad || nx != (size_t)T->R.batch * (size_t)T->R.m.in_width * sizeof(float) ||
        nt != (size_t)T->R.batch * (size_t)T->R.m.out_width * sizeof(float) ||
        !(T->R.x = malloc(nx)) || !(T->R.t = malloc(nt)))
        return cli_fail(CMD, CP_FAIL_RUNTIME, "rank 0's data did not arrive whole");
    if (strcmp(sha, want) != 0)
        return cli_fail(CMD, CP_FAIL_RUNTIME,
                        "rank 0's model, input and target arrived with SHA-256 %s, but it sent %s",
                        sha, want);
    memcpy(T->R.x, x, nx);
    memcpy(T->R.t, t, nt);
    T->R.given = true;
    return CP_OK;
}

/* What rank 0 knows of each rank. */
struct rank_state {
    int st;
    char msg[512];
    char core[64];
    size_t first, n; /* its results in T->R.r */
};

/* Each rank's status and first error line; rank 0 marks ranks that failed since. */
static void put_status(struct wire *w, int st)
{
    char msg[512] = "";
    if (st != CP_OK)
        mpi_first_error(msg, sizeof msg);
    wire_put_u64(w, (uint64_t)st);
    wire_put_str(w, msg);
}

/* A rank whose bytes were cut short counts as failed. */
static void mark_bad(struct rank_state *rs)
{
    if (rs->st == CP_OK) {
        rs->st = CP_FAIL_RUNTIME;
        snprintf(rs->msg, sizeof rs->msg, "its data did not arrive whole");
    }
}

static bool get_status(struct wire *w, struct rank_state *rs)
{
    int st = (int)wire_get_u64(w);
    const char *msg = wire_get_str(w);
    if (w->bad)
        mark_bad(rs);
    else if (st != CP_OK && rs->st == CP_OK) {
        rs->st = st;
        snprintf(rs->msg, sizeof rs->msg, "%s", msg);
    }
    return rs->st == CP_OK;
}

/* After the trainers: each rank's results (label, file tag, engine, dtype, platform, driver)
 * and its OpenBLAS core. */
static void put_results(struct wire *w, int st, const struct train *T)
{
    put_status(w, st);
    const char *core = "";
    for (size_t i = 0; i < T->R.devs.n; ++i)
        if (T->R.devs.v[i].kind == CP_DEV_HOST)
            core = T->R.devs.v[i].blas_core;
    wire_put_str(w, core);
    wire_put_u64(w, st == CP_OK ? T->R.nr : 0);
    for (size_t i = 0; st == CP_OK && i < T->R.nr; ++i) {
        const cp_train_result *r = &T->R.r[i];
        char label[300], tag[48];
        cp_train_result_label(r, label, sizeof label);
        cp_device_tag(r->dev, tag, sizeof tag);
        wire_put_str(w, label);
        wire_put_str(w, tag);
        wire_put_str(w, r->engine);
        wire_put_u64(w, (uint64_t)r->dtype);
        wire_put_str(w, r->dev->kind == CP_DEV_HOST ? "host" : r->dev->platform);
        wire_put_str(w, r->dev->kind == CP_DEV_HOST ? "" : r->dev->driver);
    }
}

/* Rank 0: another rank's results join T->R.r, with buffers for their weights. */
static int add_remote(struct train *T, struct wire *w, int rank, struct rank_state *rs)
{
    snprintf(rs->core, sizeof rs->core, "%s", wire_get_str(w));
    uint64_t n = wire_get_u64(w);
    if (w->bad || n > 4096)
        return cli_fail(CMD, CP_FAIL_RUNTIME, "rank %d's results did not arrive whole", rank);
    cp_train_result *v = realloc(T->R.r, (T->R.nr + (size_t)n + 1) * sizeof *v);
    if (!v)
        return cli_fail(CMD, CP_FAIL_RUNTIME, "out of memory");
    T->R.r = v;
    rs->first = T->R.nr;
    rs->n = (size_t)n;
    char host[256];
    mpi_rank_label(rank, host, sizeof host);
    size_t nt = (size_t)T->R.batch * (size_t)T->R.m.out_width;
    for (size_t i = 0; i < rs->n; ++i) {
        cp_train_result *r = &T->R.r[T->R.nr++];
        memset(r, 0, sizeof *r);
        r->rank = rank;
        r->forward_base = -1;
        r->forward_cr = -1;
        r->state_base = -1;
        r->roundtrip = 1;
        snprintf(r->label, sizeof r->label, "%.90s/%.200s", host, wire_get_str(w));
        snprintf(r->tag, sizeof r->tag, "r%d.%s", rank, wire_get_str(w));
        const cp_engine_info *e = cp_engine_find(wire_get_str(w));
        r->dtype = (enum cp_dtype)wire_get_u64(w);
        snprintf(r->platform, sizeof r->platform, "%s", wire_get_str(w));
        snprintf(r->driver, sizeof r->driver, "%s", wire_get_str(w));
        if (w->bad || !e || !e->train || (r->dtype != CP_F32 && r->dtype != CP_F64))
            return cli_fail(CMD, CP_FAIL_RUNTIME, "rank %d's results did not arrive whole", rank);
        r->engine = e->name;
        r->traits = cp_train_traits_of(e->train);
        size_t es = cp_dtype_size(r->dtype);
        r->w = r->w_buf = malloc((T->R.m.n_params ? T->R.m.n_params : 1) * es);
        r->y_rt = malloc((nt ? nt : 1) * es);
        if (!r->w || !r->y_rt)
            return cli_fail(CMD, CP_FAIL_RUNTIME, "out of memory");
    }
    return CP_OK;
}

/* A rank that failed: its results leave the measurements (no weights). */
static void drop_results(struct train *T, const struct rank_state *rs)
{
    for (size_t i = rs->first; i < rs->first + rs->n; ++i) {
        free(T->R.r[i].w_buf);
        free(T->R.r[i].y_rt);
        T->R.r[i].w = T->R.r[i].w_buf = T->R.r[i].y_rt = NULL;
    }
}

/* At a recorded step: each local result's loss and weights. */
static void put_weights(struct wire *w, int st, const struct train *T)
{
    put_status(w, st);
    for (size_t i = 0; st == CP_OK && i < T->R.nr; ++i) {
        wire_put_f64(w, T->R.r[i].loss);
        wire_put_bytes(w, T->R.r[i].w, T->R.m.n_params * cp_dtype_size(T->R.r[i].dtype));
    }
}

static void get_weights(struct train *T, struct wire *w, int rank, struct rank_state *rs)
{
    (void)rank;
    if (!get_status(w, rs))
        return;
    for (size_t i = rs->first; i < rs->first + rs->n; ++i) {
        cp_train_result *r = &T->R.r[i];
        r->loss = wire_get_f64(w);
        size_t nb;
        const void *p = wire_get_bytes(w, &nb);
        if (p && nb == T->R.m.n_params * cp_dtype_size(r->dtype))
            memcpy(r->w_buf, p, nb);
        else
            w->bad = true;
    }
    if (w->bad)
        mark_bad(rs);
}

/* After the last step: each local result's round trip, hash, times and round-trip output. */
static void put_final(struct wire *w, int st, const struct train *T)
{
    put_status(w, st);
    wire_put_str(w, mpi_captured()); /* rank 0 relays what this rank wrote to stderr */
    size_t nt = (size_t)T->R.batch * (size_t)T->R.m.out_width;
    for (size_t i = 0; st == CP_OK && i < T->R.nr; ++i) {
        const cp_train_result *r = &T->R.r[i];
        wire_put_u64(w, (uint64_t)r->roundtrip);
        wire_put_u64(w, r->hash);
        wire_put_f64(w, r->first_s);
        wire_put_f64(w, r->step_s);
        wire_put_bytes(w, r->y_rt, nt * cp_dtype_size(r->dtype));
    }
}

static void get_final(struct train *T, struct wire *w, int rank, struct rank_state *rs)
{
    bool ok = get_status(w, rs);
    char label[256];
    mpi_rank_label(rank, label, sizeof label);
    mpi_relay(label, wire_get_str(w));
    if (!ok)
        return;
    size_t nt = (size_t)T->R.batch * (size_t)T->R.m.out_width;
    for (size_t i = rs->first; i < rs->first + rs->n; ++i) {
        cp_train_result *r = &T->R.r[i];
        r->roundtrip = (int)wire_get_u64(w);
        r->hash = wire_get_u64(w);
        r->first_s = wire_get_f64(w);
        r->step_s = wire_get_f64(w);
        size_t nb;
        const void *p = wire_get_bytes(w, &nb);
        if (p && nb == nt * cp_dtype_size(r->dtype))
            memcpy(r->y_rt, p, nb);
        else
            w->bad = true;
        if (!w->bad && r->traits->twin == CP_TRAIN_BASELINE)
            r->forward_base = cp_train_run_twin_forward(&T->R, i, CP_TRAIN_BASELINE);
        if (!w->bad && r->traits->twin == CP_TRAIN_CR_BASE && T->R.cr != SIZE_MAX)
            r->forward_cr = cp_train_run_twin_forward(&T->R, i, CP_TRAIN_CR_BASE);
    }
    if (w->bad)
        mark_bad(rs);
}

/* Every rank's wire of one round to rank 0, which reads each with get (rank 0 too). */
static int exchange(struct train *T, struct wire *mine, struct rank_state *rs,
                    void (*get)(struct train *, struct wire *, int, struct rank_state *))
{
    struct wire *all = NULL;
    int rc = mpi_gather(mine, &all);
    wire_free(mine);
    if (rc != CP_OK)
        return cli_fail(CMD, rc, "%s", cp_err_msg());
    for (int r = 1; all && r < mpi_size(); ++r) {
        get(T, &all[r], r, &rs[r]);
        if (rs[r].st != CP_OK)
            drop_results(T, &rs[r]);
    }
    mpi_wires_free(all);
    return CP_OK;
}

/* Rank 0's reading of the first round: which results each rank runs. */
static void get_described(struct train *T, struct wire *w, int rank, struct rank_state *rs)
{
    if (get_status(w, rs) && add_remote(T, w, rank, rs) != CP_OK)
        mark_bad(rs);
}

int train_mpi(struct train *T)
{
    bool root = mpi_rank() == 0;
    int n = mpi_size();
    struct rank_state *rs = calloc((size_t)n, sizeof *rs);
    struct wire data = {0}, mine = {0};
    if (!rs)
        return cli_fail(CMD, CP_FAIL_RUNTIME, "out of memory");
    int st = CP_OK;
    if (root) {
        st = train_prepare(T);
        put_data(&data, st, T);
    }
    int rc = mpi_bcast(&data);
    int root_st = rc != CP_OK ? rc : (int)wire_get_u64(&data);
    if (root_st != CP_OK) { /* nothing to train anywhere: every rank ends with its status */
        wire_free(&data);
        free(rs);
        return rc != CP_OK ? cli_fail(CMD, rc, "%s", cp_err_msg()) : root_st;
    }
    if (!root && (st = get_data(&data, T)) == CP_OK)
        st = train_prepare(T);
    wire_free(&data);
    if (st == CP_OK)
        st = train_start(T);
    for (int r = 0; r < n; ++r)
        rs[r].st = CP_OK;
    rs[0].n = T->R.nr;
    put_results(&mine, st, T);
    rc = exchange(T, &mine, rs, get_described);
    if (root && st == CP_OK) {
        for (size_t i = 0; i < T->R.devs.n; ++i)
            if (T->R.devs.v[i].kind == CP_DEV_HOST)
                snprintf(rs[0].core, sizeof rs[0].core, "%s", T->R.devs.v[i].blas_core);
        char host[256], dev[300];
        mpi_rank_label(0, host, sizeof host);
        for (size_t i = 0; i < rs[0].n; ++i) { /* rank 0's own rows: "host#0/1:0 ..." too */
            cp_device_label(T->R.r[i].dev, dev, sizeof dev);
            snprintf(T->R.r[i].label, sizeof T->R.r[i].label, "%.90s/%.200s", host, dev);
        }
    }
    bool poked = false;
    for (long step = 1; rc == CP_OK && step <= T->R.steps; ++step) {
        if (st == CP_OK)
            st = train_failed(cp_train_run_step(&T->R, step, &poked));
        if (!cp_train_run_recorded(&T->R, step))
            continue;
        if (st == CP_OK)
            st = train_failed(cp_train_run_read_weights(&T->R));
        put_weights(&mine, st, T);
        rc = exchange(T, &mine, rs, get_weights);
        if (rc == CP_OK && root && st == CP_OK)
            st = train_failed(cp_train_run_record(&T->R, step));
    }
    progress_clear();
    if (rc == CP_OK && st == CP_OK)
        st = train_failed(cp_train_run_finish(&T->R));
    if (rc == CP_OK) {
        put_final(&mine, st, T);
        rc = exchange(T, &mine, rs, get_final);
    }
    if (rc != CP_OK)
        st = rc;
    if (root && st == CP_OK) {
        struct mpi_rank_row *rows = calloc((size_t)n, sizeof *rows);
        for (int r = 0; rows && r < n; ++r)
            rows[r] = (struct mpi_rank_row){rs[r].st, rs[r].msg, rs[r].core, rs[r].n};
        bool to_stderr =
            (T->o.json && strcmp(T->o.json, "-") == 0) || (T->o.csv && strcmp(T->o.csv, "-") == 0);
        if (rows)
            mpi_print_ranks(to_stderr ? stderr : stdout, rows, n);
        free(rows);
        st = train_verdict(T);
        int failed = CP_OK;
        for (int r = 1; r < n; ++r)
            if (rs[r].st != CP_OK) {
                char label[256];
                mpi_rank_label(r, label, sizeof label);
                cli_fail(CMD, rs[r].st, "rank %d (%s) failed: %s", r, label, rs[r].msg);
                failed = rs[r].st > failed ? rs[r].st : failed;
            }
        if (failed != CP_OK && (st == CP_OK || st == CP_FAIL_CHECK))
            st = failed;
    }
    free(rs);
    return st;
}
