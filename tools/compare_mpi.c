/* clparity compare --mpi: every rank of an mpirun job runs its own selected devices on rank
 * 0's model and input; rank 0 computes the float64 reference and the host:exact baseline
 * once, gathers every result with its provenance and prints compare's report over all of
 * them, rows labelled host/P:D. A rank that fails becomes a row of the ranks' table. */
#include "compare_cli.h"

#include "cli.h"
#include "run_job.h"
#include "mpi.h"
#include "progress.h"

#include "clparity/compare.h"
#include "clparity/npy.h"
#include "clparity/report.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CMD "compare"

/* ---- rank 0's model and input, to every rank ------------------------------------------- */

/* Rank 0: its status, then (CP_OK) the model, the input and their SHA-256s. */
static void put_data(struct wire *w, int st, const cp_job *cj)
{
    wire_put_u64(w, (uint64_t)st);
    if (st != CP_OK)
        return;
    const cp_model *m = cp_job_model(cj);
    const cp_job_opts *o = cp_job_get_opts(cj);
    size_t xn = (size_t)o->batch * (size_t)m->in_width;
    char sha_m[65], sha_x[65];
    cp_sha256_hex(m->params, m->n_params * sizeof *m->params, sha_m);
    cp_sha256_hex(cp_job_input(cj), xn * sizeof(float), sha_x);
    wire_put_model(w, m);
    wire_put_u64(w, (uint64_t)o->batch);
    wire_put_u64(w, (uint64_t)m->in_width);
    wire_put_bytes(w, cp_job_input(cj), xn * sizeof(float));
    wire_put_str(w, sha_m);
    wire_put_str(w, sha_x);
}

/* The other ranks: rank 0's data, each SHA-256 checked against the bytes that arrived. */
static int get_data(struct wire *w, struct job_given *g)
{
    int st = wire_get_model(w, &g->model);
    if (st != CP_OK)
        return cli_fail(CMD, st, "%s", cp_err_msg());
    g->rows = (long)wire_get_u64(w);
    g->width = (long)wire_get_u64(w);
    size_t nb;
    const void *x = wire_get_bytes(w, &nb);
    const char *want_m = wire_get_str(w), *want_x = wire_get_str(w);
    if (w->bad || g->rows < 1 || g->width < 1 ||
        nb != (size_t)g->rows * (size_t)g->width * sizeof(float) || !(g->x = malloc(nb)))
        return cli_fail(CMD, CP_FAIL_RUNTIME, "rank 0's input did not arrive whole");
    memcpy(g->x, x, nb);
    char sha_m[65], sha_x[65];
    cp_sha256_hex(g->model.params, g->model.n_params * sizeof(float), sha_m);
    cp_sha256_hex(g->x, nb, sha_x);
    if (strcmp(sha_m, want_m) != 0 || strcmp(sha_x, want_x) != 0)
        return cli_fail(CMD, CP_FAIL_RUNTIME, "the %s arrived with SHA-256 %s, but rank 0 sent %s",
                        strcmp(sha_m, want_m) ? "weights" : "input",
                        strcmp(sha_m, want_m) ? sha_m : sha_x,
                        strcmp(sha_m, want_m) ? want_m : want_x);
    return CP_OK;
}

/* ---- every rank's results, to rank 0 --------------------------------------------------- */

static void put_results(struct wire *w, int st, const struct job *j)
{
    char msg[512] = "";
    if (st != CP_OK)
        mpi_first_error(msg, sizeof msg);
    wire_put_u64(w, (uint64_t)st);
    wire_put_str(w, msg);
    wire_put_str(w, mpi_captured());
    const cp_devlist *devs = st == CP_OK ? cp_job_devices(j->cj) : NULL;
    const char *core = "";
    for (size_t i = 0; devs && i < devs->n; ++i)
        if (devs->v[i].kind == CP_DEV_HOST)
            core = devs->v[i].blas_core;
    wire_put_str(w, core);
    char *lines = NULL;
    size_t ll = 0;
    FILE *f = st == CP_OK ? open_memstream(&lines, &ll) : NULL;
    if (f) {
        compare_print_devices(f, j, "");
        fclose(f);
    }
    wire_put_str(w, lines ? lines : "");
    free(lines);
    size_t n = st == CP_OK ? cp_job_result_count(j->cj) : 0;
    wire_put_u64(w, n);
    for (size_t i = 0; i < n; ++i) {
        const cp_job_result *r = cp_job_result_at(j->cj, i);
        char label[300];
        cp_device_label(r->dev, label, sizeof label);
        wire_put_str(w, label);
        wire_put_str(w, r->dev->platform);
        wire_put_str(w, r->dev->driver);
        wire_put_str(w, r->eng->name);
        wire_put_u64(w, (uint64_t)r->eng->dtype);
        wire_put_u64(w, r->hash);
        wire_put_u64(w, r->deterministic);
        wire_put_u64(w, (uint64_t)(int64_t)r->roundtrip);
        wire_put_u64(w, !cp_device_exact_capable(r->dev));
        const double *wf[] = {&r->wall.median, &r->wall.min,      &r->wall.max,   &r->wall.mean,
                              &r->wall.sd,     &r->wall.p10,      &r->wall.p90,   &r->wall.ci_lo,
                              &r->wall.ci_hi,  &r->wall.ci_level, &r->wall.total, &r->wall.head};
        for (size_t k = 0; k < sizeof wf / sizeof *wf; ++k)
            wire_put_f64(w, *wf[k]);
        wire_put_u64(w, r->wall.n);
        wire_put_u64(w, (uint64_t)(int64_t)r->batch_inv_equal);
        wire_put_u64(w, (uint64_t)(int64_t)r->batch_inv_checked);
        wire_put_u64(w, (uint64_t)(int64_t)r->thread_inv);
        size_t bytes = (size_t)cp_job_get_opts(j->cj)->batch *
                       (size_t)cp_job_model(j->cj)->out_width * cp_dtype_size(r->eng->dtype);
        wire_put_bytes(w, r->y, bytes);
    }
}

/* One rank's results as rank 0 reads them. */
struct rank_out {
    int st;
    char label[256];
    const char *msg, *captured, *core, *devlines;
    size_t n;
    cp_compare_item *items;
    const char **platform, **driver, **devlabel; /* per item, for --save */
};

static int get_results(struct wire *w, int r, size_t out_n, struct rank_out *ro)
{
    mpi_rank_label(r, ro->label, sizeof ro->label);
    ro->st = (int)wire_get_u64(w);
    ro->msg = wire_get_str(w);
    ro->captured = wire_get_str(w);
    ro->core = wire_get_str(w);
    ro->devlines = wire_get_str(w);
    uint64_t n = wire_get_u64(w);
    if (w->bad || n > 1u << 20)
        return cli_fail(CMD, CP_FAIL_RUNTIME, "rank %d's results did not arrive whole", r);
    ro->n = (size_t)n;
    ro->items = calloc(ro->n + 1, sizeof *ro->items);
    ro->platform = calloc(ro->n + 1, sizeof *ro->platform);
    ro->driver = calloc(ro->n + 1, sizeof *ro->driver);
    ro->devlabel = calloc(ro->n + 1, sizeof *ro->devlabel);
    if (!ro->items || !ro->platform || !ro->driver || !ro->devlabel)
        return cli_fail(CMD, CP_FAIL_RUNTIME, "out of memory");
    for (size_t i = 0; i < ro->n; ++i) {
        cp_compare_item *it = &ro->items[i];
        ro->devlabel[i] = wire_get_str(w);
        ro->platform[i] = wire_get_str(w);
        ro->driver[i] = wire_get_str(w);
        snprintf(it->label, sizeof it->label, "%s/%s", ro->label, ro->devlabel[i]);
        snprintf(it->engine, sizeof it->engine, "%s", wire_get_str(w));
        it->dtype = (enum cp_dtype)wire_get_u64(w);
        it->hash = wire_get_u64(w);
        it->deterministic = (int)wire_get_u64(w);
        it->roundtrip = (int)(int64_t)wire_get_u64(w);
        it->inexact_device = wire_get_u64(w) != 0;
        double *wf[] = {&it->wall.median, &it->wall.min,      &it->wall.max,   &it->wall.mean,
                        &it->wall.sd,     &it->wall.p10,      &it->wall.p90,   &it->wall.ci_lo,
                        &it->wall.ci_hi,  &it->wall.ci_level, &it->wall.total, &it->wall.head};
        for (size_t k = 0; k < sizeof wf / sizeof *wf; ++k)
            *wf[k] = wire_get_f64(w);
        it->wall.n = (size_t)wire_get_u64(w);
        it->batch_inv_equal = (long)(int64_t)wire_get_u64(w);
        it->batch_inv_checked = (long)(int64_t)wire_get_u64(w);
        it->thread_inv = (int)(int64_t)wire_get_u64(w);
        size_t nb;
        it->y = wire_get_bytes(w, &nb);
        if (w->bad || (it->dtype != CP_F32 && it->dtype != CP_F64) ||
            nb != out_n * cp_dtype_size(it->dtype))
            return cli_fail(CMD, CP_FAIL_RUNTIME, "rank %d's results did not arrive whole", r);
    }
    return CP_OK;
}

static void rank_out_free(struct rank_out *v, int n)
{
    for (int r = 0; v && r < n; ++r) {
        free(v[r].items);
        free(v[r].platform);
        free(v[r].driver);
        free(v[r].devlabel);
    }
    free(v);
}

/* ---- rank 0's report -------------------------------------------------------------------- */

static void print_ranks(FILE *f, const struct rank_out *v, int n)
{
    struct mpi_rank_row *rows = calloc((size_t)n, sizeof *rows);
    for (int r = 0; rows && r < n; ++r)
        rows[r] = (struct mpi_rank_row){v[r].st, v[r].msg, v[r].core, v[r].n};
    if (rows)
        mpi_print_ranks(f, rows, n);
    free(rows);
    for (int r = 0; r < n; ++r) {
        const char *t = v[r].st == CP_OK ? v[r].devlines : "";
        while (*t) {
            size_t k = strcspn(t, "\n");
            fprintf(f, "%s: %.*s\n", v[r].label, (int)k, t);
            t += k + (t[k] == '\n');
        }
    }
}

struct mpi_json {
    cp_comparison *cmp;
    const struct rank_out *v;
    int n;
};

static bool add_json(void *root, const struct job *j, void *ctx)
{
    const struct mpi_json *c = ctx;
    if (!compare_add_json(root, j, c->cmp))
        return false;
    cJSON *ranks = cJSON_AddArrayToObject(root, "ranks");
    for (int r = 0; ranks && r < c->n; ++r) {
        cJSON *o = cJSON_CreateObject();
        if (!o || !cp_json_push(ranks, o))
            return false;
        cJSON_AddNumberToObject(o, "rank", r);
        cJSON_AddStringToObject(o, "host", c->v[r].label);
        cJSON_AddStringToObject(o, "version", mpi_rank_version(r));
        cJSON_AddStringToObject(o, "status", c->v[r].st == CP_OK ? "ok" : "failed");
        if (c->v[r].st != CP_OK)
            cJSON_AddStringToObject(o, "error", c->v[r].msg);
        cJSON_AddStringToObject(o, "blas_core", c->v[r].core);
        cJSON_AddNumberToObject(o, "results", (double)c->v[r].n);
    }
    return ranks != NULL;
}

/* --save: rank 0's folder (cp_job_save_files, in the temporary folder dir) gets the other
 * ranks' results, r<N>.<file>.npy, and their entries in index.json with the rank and host,
 * before it takes the place of --save's folder. */
struct save_ranks {
    const struct rank_out *v;
    int n;
};

static int save_remote(const struct job *j, const char *dir, void *ctx)
{
    const struct rank_out *v = ((const struct save_ranks *)ctx)->v;
    int n = ((const struct save_ranks *)ctx)->n;
    char path[4200];
    snprintf(path, sizeof path, "%s/index.json", dir);
    char *text = NULL;
    int st = cli_read_text(CMD, path, &text);
    if (st != CP_OK)
        return st;
    cJSON *index = cJSON_Parse(text);
    free(text);
    cJSON *results = index ? cJSON_GetObjectItemCaseSensitive(index, "results") : NULL;
    if (!cJSON_IsArray(results)) {
        cJSON_Delete(index);
        return cli_fail(CMD, CP_FAIL_RUNTIME, "%s: cannot read back what was just written", path);
    }
    size_t rows = (size_t)cp_job_get_opts(j->cj)->batch;
    size_t cols = (size_t)cp_job_model(j->cj)->out_width;
    for (int r = 0; r < n && st == CP_OK; ++r) {
        const struct rank_out *ro = &v[r];
        if (r == 0) { /* cp_job_save wrote them: add the rank and host */
            const cJSON *e;
            cJSON_ArrayForEach(e, results)
            {
                const cJSON *dev = cJSON_GetObjectItemCaseSensitive(e, "device");
                char label[600];
                snprintf(label, sizeof label, "%s/%s", ro->label,
                         cJSON_IsString(dev) ? dev->valuestring : "?");
                cJSON_ReplaceItemInObjectCaseSensitive((cJSON *)e, "device",
                                                       cJSON_CreateString(label));
                cJSON_AddNumberToObject((cJSON *)e, "rank", 0);
                cJSON_AddStringToObject((cJSON *)e, "host", ro->label);
            }
            continue;
        }
        for (size_t i = 0; i < ro->n && ro->st == CP_OK && st == CP_OK; ++i) {
            const cp_compare_item *it = &ro->items[i];
            char file[400], eng[40], hash[17];
            snprintf(eng, sizeof eng, "%s", it->engine);
            for (char *c = eng; *c; ++c)
                if (*c == ':')
                    *c = '-';
            snprintf(file, sizeof file, "r%d.i%zu.%s.npy", r, i, eng);
            snprintf(path, sizeof path, "%s/%s", dir, file);
            size_t shape[2] = {rows, cols};
            st = cp_npy_write(path, it->dtype, 2, shape, it->y);
            if (st != CP_OK) {
                st = cli_fail(CMD, st, "%s", cp_err_msg());
                break;
            }
            cJSON *o = cJSON_CreateObject();
            snprintf(hash, sizeof hash, "%016llx", (unsigned long long)it->hash);
            if (!o || !cp_json_push(results, o))
                st = cli_fail(CMD, CP_FAIL_RUNTIME, "out of memory");
            else {
                cJSON_AddStringToObject(o, "file", file);
                cJSON_AddStringToObject(o, "device", it->label);
                cJSON_AddStringToObject(o, "platform", ro->platform[i]);
                cJSON_AddStringToObject(o, "driver", ro->driver[i]);
                cJSON_AddStringToObject(o, "engine", it->engine);
                cJSON_AddStringToObject(o, "dtype", cp_dtype_descr(it->dtype));
                cJSON_AddStringToObject(o, "hash", hash);
                cJSON_AddNumberToObject(o, "rank", r);
                cJSON_AddStringToObject(o, "host", ro->label);
                /* What rank 0's own entries carry (cp_job_save), for diff. */
                if (it->deterministic >= 0)
                    cJSON_AddBoolToObject(o, "deterministic", it->deterministic == 1);
                if (it->roundtrip >= 0)
                    cJSON_AddBoolToObject(o, "roundtrip", it->roundtrip == 1);
                cJSON *t = it->wall.n ? cJSON_AddObjectToObject(o, "timing") : NULL;
                if (t) {
                    cp_stats_json_add(t, "wall", &it->wall, true);
                    cJSON_AddNumberToObject(t, "warmup", (double)cp_job_get_opts(j->cj)->warmup);
                }
            }
        }
    }
    if (st == CP_OK) {
        snprintf(path, sizeof path, "%s/index.json", dir);
        if (cp_json_write(path, index) != CP_OK)
            st = cli_fail(CMD, CP_FAIL_RUNTIME, "%s", cp_err_msg());
    }
    cJSON_Delete(index);
    return st;
}

/* Rank 0, after the gather: the report over every rank, the files and the exit status. */
static int report(struct job *j, struct wire *all, int n)
{
    struct rank_out *v = calloc((size_t)n, sizeof *v);
    if (!v)
        return cli_fail(CMD, CP_FAIL_RUNTIME, "out of memory");
    size_t out_n = (size_t)cp_job_get_opts(j->cj)->batch * (size_t)cp_job_model(j->cj)->out_width;
    int st = CP_OK, failed = CP_OK;
    for (int r = 0; r < n && st == CP_OK; ++r)
        st = get_results(&all[r], r, out_n, &v[r]);
    for (int r = 1; r < n && st == CP_OK; ++r)
        mpi_relay(v[r].label, v[r].captured);
    size_t total = 0;
    for (int r = 0; r < n && st == CP_OK; ++r)
        total += v[r].st == CP_OK ? v[r].n : 0;
    cp_compare_item *items = st == CP_OK ? calloc(total + 1, sizeof *items) : NULL;
    if (st == CP_OK && !items)
        st = cli_fail(CMD, CP_FAIL_RUNTIME, "out of memory");
    size_t k = 0;
    for (int r = 0; r < n && st == CP_OK; ++r)
        for (size_t i = 0; v[r].st == CP_OK && i < v[r].n; ++i)
            items[k++] = v[r].items[i];
    cp_comparison *cmp = NULL;
    if (st == CP_OK) {
        st = cp_comparison_create(items, total, (size_t)cp_job_get_opts(j->cj)->batch,
                                  (size_t)cp_job_model(j->cj)->out_width, cp_job_reference(j->cj),
                                  cp_job_baseline(j->cj), j->o.equal_nan, &cmp);
        if (st != CP_OK)
            st = cli_fail(CMD, st, "%s", cp_err_msg());
        else
            cp_comparison_set_cr(cmp, cp_job_cr(j->cj));
    }
    if (st == CP_OK) {
        /* The files first, as in cmd_compare: a run that cannot write them says no PASS. */
        struct mpi_json ctx = {cmp, v, n};
        struct save_ranks ranks = {v, n};
        j->save_more = save_remote; /* the other ranks' files, into the save before it lands */
        j->save_ctx = &ranks;
        st = job_write_files(j, add_json, &ctx);
        j->save_more = NULL;
        j->save_ctx = NULL;
    }
    if (st == CP_OK) {
        FILE *out = j->o.json && strcmp(j->o.json, "-") == 0 ? stderr : stdout;
        cp_job_print_model(j->cj, out);
        print_ranks(out, v, n);
        cp_comparison_print(cmp, out, true, j->o.expect);
        if ((st = cp_comparison_print_speed(cmp, out)) != CP_OK)
            st = cli_fail(CMD, st, "%s", cp_err_msg());
        cli_flush(out);
    }
    for (int r = 1; r < n && st == CP_OK; ++r)
        if (v[r].st != CP_OK) {
            cli_fail(CMD, v[r].st, "rank %d (%s) failed: %s", r, v[r].label, v[r].msg);
            failed = v[r].st > failed ? v[r].st : failed;
        }
    if (st == CP_OK && failed != CP_OK)
        st = failed;
    if (st == CP_OK && j->o.expect >= 0) {
        char names[4096];
        size_t fails =
            cp_comparison_failures(cmp, (enum cp_preset)j->o.expect, names, sizeof names);
        if (fails)
            st = cli_fail(CMD, CP_FAIL_CHECK, "--expect %s failed for %zu result%s: %s",
                          cp_preset_name((enum cp_preset)j->o.expect), fails, fails > 1 ? "s" : "",
                          names);
    }
    cp_comparison_destroy(cmp);
    free(items);
    rank_out_free(v, n);
    return st;
}

int compare_mpi(struct job_opts *o)
{
    const char *refuse = o->labels ? "labels" : o->out ? "out" : NULL;
    if (refuse) {
        free(o->sels);
        return cli_fail(CMD, CP_FAIL_USAGE,
                        "--%s is not available with --mpi (compare --save on each machine and "
                        "diff the folders instead)",
                        refuse);
    }
    struct job j;
    struct job_given given = {0};
    struct wire data = {0}, mine = {0}, *all = NULL;
    bool root = mpi_rank() == 0;
    int st = CP_OK;
    memset(&j, 0, sizeof j);
    if (root) {
        st = job_prepare(&j, CMD, o);
        if (st == CP_OK && (st = cp_job_generate(j.cj)) != CP_OK)
            st = cli_fail(CMD, st, "%s", cp_err_msg());
        put_data(&data, st, j.cj);
        if (data.bad)
            st = cli_fail(CMD, CP_FAIL_RUNTIME, "out of memory for the model");
    }
    int rc = mpi_bcast(&data);
    int root_st = (int)wire_get_u64(&data);
    if (rc != CP_OK || root_st != CP_OK) {
        /* Without rank 0's data no rank has anything to run: every rank ends with its status. */
        if (root)
            job_free(&j);
        else
            free(o->sels);
        wire_free(&data);
        return rc != CP_OK ? cli_fail(CMD, rc, "%s", cp_err_msg()) : root_st;
    }
    if (!root) {
        struct job_opts ro = *o;
        ro.json = ro.save = NULL;
        ro.given = &given;
        st = get_data(&data, &given);
        /* Test hook: this rank dies in the middle of the run, as a machine that goes down. */
        const char *hook = getenv("CLPARITY_TEST_HOOK");
        if (hook && strcmp(hook, "mpi-die") == 0)
            raise(SIGKILL);
        if (st == CP_OK)
            st = job_prepare(&j, CMD, &ro);
        else
            free(o->sels);
    }
    wire_free(&data);
    if (st == CP_OK)
        st = job_execute(&j);
    put_results(&mine, st, &j);
    if (root && mpi_size() > 1)
        progress_stage("%s --mpi, rank 0: waiting for the other %d ranks' results", CMD,
                       mpi_size() - 1);
    rc = mpi_gather(&mine, &all);
    progress_clear();
    wire_free(&mine);
    if (rc != CP_OK)
        st = cli_fail(CMD, rc, "%s", cp_err_msg());
    else if (root && st == CP_OK)
        st = report(&j, all, mpi_size());
    else if (root)
        for (int r = 1; r < mpi_size(); ++r) { /* rank 0 failed: no reference, no report */
            char label[256];
            mpi_rank_label(r, label, sizeof label);
            struct wire *w = &all[r];
            wire_get_u64(w);
            wire_get_str(w);
            mpi_relay(label, wire_get_str(w));
        }
    mpi_wires_free(all);
    cp_model_free(&given.model);
    free(given.x);
    if (j.cj || j.o.sels)
        job_free(&j);
    return st;
}
