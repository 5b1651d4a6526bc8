/* The ranks of compare --mpi and train --mpi (tools/mpi.h): the byte buffers they exchange,
 * MPI's start and end, the version check, and the capture of other ranks' output. */
#include "mpi.h"
#include "progress.h"

#include "cli.h"

#include "clparity/error.h"
#include "clparity/report.h"

#include <limits.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef CLPARITY_MPI
#include <mpi.h>
#include <unistd.h>
#endif

/* ---- wire ------------------------------------------------------------------------------ */

static void put(struct wire *w, const void *p, size_t n)
{
    if (w->bad)
        return;
    if (w->len + n > w->cap) {
        size_t cap = w->cap ? w->cap : 4096;
        while (cap < w->len + n)
            cap *= 2;
        unsigned char *np = realloc(w->p, cap);
        if (!np) {
            w->bad = true;
            return;
        }
        w->p = np;
        w->cap = cap;
    }
    if (n)
        memcpy(w->p + w->len, p, n);
    w->len += n;
}

void wire_put_u64(struct wire *w, uint64_t v)
{
    put(w, &v, sizeof v);
}

void wire_put_f64(struct wire *w, double v)
{
    put(w, &v, sizeof v);
}

void wire_put_bytes(struct wire *w, const void *p, size_t n)
{
    wire_put_u64(w, n);
    put(w, p, n);
}

void wire_put_str(struct wire *w, const char *s)
{
    wire_put_bytes(w, s ? s : "", strlen(s ? s : "") + 1);
}

static const void *get(struct wire *w, size_t n)
{
    if (w->bad || n > w->len - w->pos) {
        w->bad = true;
        return NULL;
    }
    const void *p = w->p + w->pos;
    w->pos += n;
    return p;
}

uint64_t wire_get_u64(struct wire *w)
{
    uint64_t v = 0;
    const void *p = get(w, sizeof v);
    if (p)
        memcpy(&v, p, sizeof v);
    return v;
}

double wire_get_f64(struct wire *w)
{
    double v = 0.0;
    const void *p = get(w, sizeof v);
    if (p)
        memcpy(&v, p, sizeof v);
    return v;
}

const void *wire_get_bytes(struct wire *w, size_t *n)
{
    uint64_t len = wire_get_u64(w);
    const void *p = w->bad ? NULL : get(w, (size_t)len);
    *n = p ? (size_t)len : 0;
    return p;
}

const char *wire_get_str(struct wire *w)
{
    size_t n;
    const char *s = wire_get_bytes(w, &n);
    if (!s || n == 0 || s[n - 1] != '\0') {
        w->bad = true;
        return "";
    }
    return s;
}

void wire_free(struct wire *w)
{
    free(w->p);
    memset(w, 0, sizeof *w);
}

void mpi_wires_free(struct wire *all)
{
    if (!all)
        return;
    for (int r = 0; r < mpi_size(); ++r)
        wire_free(&all[r]);
    free(all);
}

void wire_put_model(struct wire *w, const cp_model *m)
{
    wire_put_u64(w, (uint64_t)m->n_layers);
    for (int l = 0; l < m->n_layers; ++l) {
        const cp_layer *L = &m->layers[l];
        wire_put_u64(w, (uint64_t)L->in);
        wire_put_u64(w, (uint64_t)L->out);
        wire_put_u64(w, L->w_off);
        wire_put_u64(w, L->has_bias);
        wire_put_u64(w, L->b_off);
        wire_put_u64(w, (uint64_t)L->act);
        wire_put_u64(w, L->residual);
    }
    wire_put_bytes(w, m->params, m->n_params * sizeof *m->params);
    wire_put_u64(w, (uint64_t)m->in_width);
    wire_put_u64(w, (uint64_t)m->out_width);
    wire_put_u64(w, (uint64_t)m->max_width);
    wire_put_u64(w, (uint64_t)m->d);
    wire_put_u64(w, m->seed);
    wire_put_f64(w, (double)m->init_scale);
}

/* The model as put_model wrote it, each layer inside the weights. */
int wire_get_model(struct wire *w, cp_model *m)
{
    memset(m, 0, sizeof *m);
    uint64_t nl = wire_get_u64(w);
    if (w->bad || nl == 0 || nl > INT_MAX || !(m->layers = calloc((size_t)nl, sizeof *m->layers)))
        return cp_err_set(CP_FAIL_RUNTIME, "rank 0's model did not arrive whole");
    m->n_layers = (int)nl;
    for (int l = 0; l < m->n_layers; ++l) {
        cp_layer *L = &m->layers[l];
        L->in = (int)wire_get_u64(w);
        L->out = (int)wire_get_u64(w);
        L->w_off = (size_t)wire_get_u64(w);
        L->has_bias = wire_get_u64(w) != 0;
        L->b_off = (size_t)wire_get_u64(w);
        L->act = wire_get_u64(w) ? CP_ACT_RELU : CP_ACT_NONE;
        L->residual = wire_get_u64(w) != 0;
    }
    size_t nb;
    const void *p = wire_get_bytes(w, &nb);
    m->n_params = nb / sizeof *m->params;
    m->params = malloc(nb ? nb : 1);
    if (m->params && p)
        memcpy(m->params, p, nb);
    m->in_width = (int)wire_get_u64(w);
    m->out_width = (int)wire_get_u64(w);
    m->max_width = (int)wire_get_u64(w);
    m->d = (int)wire_get_u64(w);
    m->seed = wire_get_u64(w);
    m->init_scale = (float)wire_get_f64(w);
    bool inside = m->params != NULL;
    for (int l = 0; l < m->n_layers && inside; ++l) {
        const cp_layer *L = &m->layers[l];
        inside = L->in > 0 && L->out > 0 &&
                 L->w_off + (size_t)L->in * (size_t)L->out <= m->n_params &&
                 (!L->has_bias || L->b_off + (size_t)L->out <= m->n_params);
    }
    if (w->bad || !inside) {
        cp_model_free(m);
        return cp_err_set(CP_FAIL_RUNTIME, "rank 0's model did not arrive whole");
    }
    return CP_OK;
}

bool mpi_requested(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; ++i)
        if (strcmp(argv[i], "--mpi") == 0)
            return true;
    return false;
}

void mpi_first_error(char *buf, size_t len)
{
    const char *t = mpi_rank() == 0 ? cp_err_msg() : mpi_captured();
    size_t n = strcspn(t, "\n");
    snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), t);
    if (!buf[0])
        snprintf(buf, len, "failed without a message");
}

void mpi_print_ranks(FILE *f, const struct mpi_rank_row *v, int n)
{
    int hosts = mpi_hosts();
    fprintf(f, "\nranks (mpirun, %d rank%s on %d host%s):\n", n, n > 1 ? "s" : "", hosts,
            hosts > 1 ? "s" : "");
    for (int r = 0; r < n; ++r) {
        char label[256];
        mpi_rank_label(r, label, sizeof label);
        if (v[r].st != CP_OK)
            fprintf(f, "  rank %d %-24s failed: %s\n", r, label, v[r].msg);
        else
            fprintf(f, "  rank %d %-24s clparity %s, OpenBLAS %s, %zu result%s\n", r, label,
                    mpi_rank_version(r), v[r].core && v[r].core[0] ? v[r].core : "n/a", v[r].n,
                    v[r].n == 1 ? "" : "s");
    }
    fprintf(f,
            "timing: the ranks ran at the same time, each timing its own devices; the times "
            "compare\n        devices, never the machines' clocks%s\n",
            hosts < n ? " (ranks on one host shared its cores and memory)" : "");
}

void mpi_relay(const char *label, const char *text)
{
    while (text && *text) {
        const char *nl = strchr(text, '\n');
        int n = nl ? (int)(nl - text) : (int)strlen(text);
        fprintf(stderr, "[%s] %.*s\n", label, n, text);
        text += n + (nl ? 1 : 0);
    }
}

#ifdef CLPARITY_MPI

static struct {
    bool on;
    int rank, size;
    char host[MPI_MAX_PROCESSOR_NAME];
    char **hosts, **versions; /* rank 0: every rank's */
    FILE *err;                /* ranks > 0: the captured standard error */
    char *captured;
} M;

int mpi_rank(void)
{
    return M.rank;
}

int mpi_size(void)
{
    return M.on ? M.size : 1;
}

/* A failed MPI call: MPI's own words for it. */
static int mpi_fail(const char *what, int rc)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
        snprintf(msg, sizeof msg, "MPI error %d", rc);
    return cp_err_set(CP_FAIL_RUNTIME, "%s failed: %s", what, msg);
}

/* Ranks > 0 print nothing: standard output to /dev/null, standard error to a file. */
static void capture_output(void)
{
    cli_flush(stdout);
    fflush(stderr);
    FILE *null = fopen("/dev/null", "w");
    if (null) {
        dup2(fileno(null), STDOUT_FILENO);
        fclose(null);
    }
    M.err = tmpfile();
    if (M.err)
        dup2(fileno(M.err), STDERR_FILENO);
}

const char *mpi_captured(void)
{
    if (!M.err)
        return "";
    fflush(stderr);
    long n = ftell(M.err) >= 0 ? lseek(fileno(M.err), 0, SEEK_END) : 0;
    free(M.captured);
    M.captured = calloc((size_t)(n > 0 ? n : 0) + 1, 1);
    if (!M.captured)
        return "";
    if (n > 0 && pread(fileno(M.err), M.captured, (size_t)n, 0) != n)
        M.captured[0] = '\0';
    return M.captured;
}

int mpi_bcast(struct wire *w)
{
    uint64_t len = M.rank == 0 ? w->len : 0;
    int rc = MPI_Bcast(&len, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS)
        return mpi_fail("MPI_Bcast", rc);
    if (M.rank != 0) {
        wire_free(w);
        w->p = malloc(len ? (size_t)len : 1);
        if (!w->p) /* MPI aborts the job where one rank leaves a collective early */
            MPI_Abort(MPI_COMM_WORLD, CP_FAIL_RUNTIME);
        w->len = w->cap = (size_t)len;
    }
    const uint64_t chunk = 1u << 30; /* MPI counts are int */
    for (uint64_t off = 0; off < len; off += chunk) {
        int n = (int)(len - off < chunk ? len - off : chunk);
        rc = MPI_Bcast(w->p + off, n, MPI_BYTE, 0, MPI_COMM_WORLD);
        if (rc != MPI_SUCCESS)
            return mpi_fail("MPI_Bcast", rc);
    }
    return CP_OK;
}

/* Every rank's bytes to rank 0 with MPI_Gatherv, in rounds of at most 2^30 bytes in all (its
 * counts and displacements are int). */
int mpi_gather(const struct wire *mine, struct wire **all)
{
    *all = NULL;
    int n = M.size;
    uint64_t len = mine->len, *lens = NULL;
    int *counts = NULL, *displs = NULL;
    unsigned char *stage = NULL;
    struct wire *v = NULL;
    if (M.rank == 0) {
        lens = calloc((size_t)n, sizeof *lens);
        counts = calloc((size_t)n, sizeof *counts);
        displs = calloc((size_t)n, sizeof *displs);
        v = calloc((size_t)n, sizeof *v);
        if (!lens || !counts || !displs || !v)
            MPI_Abort(MPI_COMM_WORLD, CP_FAIL_RUNTIME);
    }
    int rc = MPI_Gather(&len, 1, MPI_UINT64_T, lens, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS)
        return mpi_fail("MPI_Gather", rc);
    uint64_t longest = len;
    rc = MPI_Allreduce(&len, &longest, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS)
        return mpi_fail("MPI_Allreduce", rc);
    uint64_t chunk = (1u << 30) / (uint64_t)n;
    if (M.rank == 0) {
        for (int r = 0; r < n; ++r) {
            v[r].p = malloc(lens[r] ? (size_t)lens[r] : 1);
            v[r].len = v[r].cap = (size_t)lens[r];
            if (!v[r].p)
                MPI_Abort(MPI_COMM_WORLD, CP_FAIL_RUNTIME);
        }
        stage = malloc((size_t)chunk * (size_t)n);
        if (!stage)
            MPI_Abort(MPI_COMM_WORLD, CP_FAIL_RUNTIME);
    }
    for (uint64_t off = 0; off < longest || off == 0; off += chunk) {
        int mine_n = (int)(off < len ? (len - off < chunk ? len - off : chunk) : 0);
        if (M.rank == 0)
            for (int r = 0, at = 0; r < n; ++r) {
                counts[r] =
                    (int)(off < lens[r] ? (lens[r] - off < chunk ? lens[r] - off : chunk) : 0);
                displs[r] = at;
                at += counts[r];
            }
        rc = MPI_Gatherv(mine->p ? mine->p + off : NULL, mine_n, MPI_BYTE, stage, counts, displs,
                         MPI_BYTE, 0, MPI_COMM_WORLD);
        if (rc != MPI_SUCCESS)
            return mpi_fail("MPI_Gatherv", rc);
        if (M.rank == 0)
            for (int r = 0; r < n; ++r)
                if (counts[r])
                    memcpy(v[r].p + off, stage + displs[r], (size_t)counts[r]);
        if (longest == 0)
            break;
    }
    free(stage);
    free(lens);
    free(counts);
    free(displs);
    *all = v;
    return CP_OK;
}

static int hosts_sharing(int r)
{
    int k = 0;
    for (int i = 0; i < M.size; ++i)
        k += strcmp(M.hosts[i], M.hosts[r]) == 0;
    return k;
}

void mpi_rank_label(int r, char *buf, size_t len)
{
    if (!M.hosts || r < 0 || r >= M.size)
        snprintf(buf, len, "%s#%d", M.host, r);
    else if (hosts_sharing(r) > 1)
        snprintf(buf, len, "%s#%d", M.hosts[r], r);
    else
        snprintf(buf, len, "%s", M.hosts[r]);
}

const char *mpi_rank_version(int r)
{
    return M.versions && r >= 0 && r < M.size ? M.versions[r] : "";
}

int mpi_hosts(void)
{
    int k = 0;
    for (int r = 0; M.hosts && r < M.size; ++r) {
        bool first = true;
        for (int i = 0; i < r && first; ++i)
            first = strcmp(M.hosts[i], M.hosts[r]) != 0;
        k += first;
    }
    return k;
}

int mpi_begin(const char *cmd)
{
    int rc = MPI_Init(NULL, NULL);
    if (rc != MPI_SUCCESS)
        return cli_fail(cmd, CP_FAIL_RUNTIME, "--mpi: %s",
                        (mpi_fail("MPI_Init", rc), cp_err_msg()));
    M.on = true;
    MPI_Comm_rank(MPI_COMM_WORLD, &M.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &M.size);
    int hl = 0;
    if (MPI_Get_processor_name(M.host, &hl) != MPI_SUCCESS || hl <= 0)
        snprintf(M.host, sizeof M.host, "rank%d", M.rank);
    if (M.rank != 0)
        capture_output();
    else
        progress_via_parent(); /* rank 0's progress line reaches mpirun's terminal */
    /* The version check: every rank's host name and "version (git hash)" to rank 0. */
    char version[160];
    snprintf(version, sizeof version, "%s (%s)", cp_version(), cp_git_hash());
    const char *hook = getenv("CLPARITY_TEST_HOOK");
    if (hook && strcmp(hook, "mpi-version") == 0) /* test hook: this rank claims another */
        snprintf(version, sizeof version, "0.0.0-test (0000000)");
    struct wire w = {0}, *all = NULL;
    wire_put_str(&w, M.host);
    wire_put_str(&w, version);
    int st = w.bad ? cp_err_set(CP_FAIL_RUNTIME, "out of memory") : mpi_gather(&w, &all);
    wire_free(&w);
    uint64_t verdict = (uint64_t)st;
    if (st == CP_OK && M.rank == 0) {
        M.hosts = calloc((size_t)M.size, sizeof *M.hosts);
        M.versions = calloc((size_t)M.size, sizeof *M.versions);
        for (int r = 0; r < M.size && M.hosts && M.versions; ++r) {
            M.hosts[r] = strdup(wire_get_str(&all[r]));
            M.versions[r] = strdup(wire_get_str(&all[r]));
        }
        for (int r = 0; r < M.size && verdict == CP_OK; ++r) {
            if (!M.hosts || !M.versions || !M.hosts[r] || !M.versions[r] || all[r].bad) {
                verdict = cli_fail(cmd, CP_FAIL_RUNTIME, "--mpi: out of memory");
            } else if (strcmp(M.versions[r], M.versions[0]) != 0) {
                char a[300], b[300];
                mpi_rank_label(0, a, sizeof a);
                mpi_rank_label(r, b, sizeof b);
                verdict = cli_fail(cmd, CP_FAIL_USAGE,
                                   "--mpi: the ranks run different clparity versions: rank 0 (%s) "
                                   "runs %s, rank %d (%s) runs %s; install the same build on "
                                   "every machine",
                                   a, M.versions[0], r, b, M.versions[r]);
            }
        }
    } else if (st != CP_OK) {
        cli_fail(cmd, st, "--mpi: %s", cp_err_msg());
    }
    mpi_wires_free(all);
    rc = MPI_Bcast(&verdict, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    return rc == MPI_SUCCESS ? (int)verdict : CP_FAIL_RUNTIME;
}

int mpi_end(int st)
{
    if (!M.on)
        return st;
    uint64_t agreed = (uint64_t)st;
    MPI_Bcast(&agreed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    for (int r = 0; r < M.size && M.hosts; ++r) {
        free(M.hosts[r]);
        free(M.versions ? M.versions[r] : NULL);
    }
    free(M.hosts);
    free(M.versions);
    free(M.captured);
    if (M.err)
        fclose(M.err);
    memset(&M, 0, sizeof M);
    return (int)agreed;
}

#else /* built without MPI */

int mpi_begin(const char *cmd)
{
    return cli_fail(cmd, CP_FAIL_USAGE,
                    "--mpi: this clparity was built without MPI; configure it with "
                    "-DCLPARITY_MPI=ON (Debian: libopenmpi-dev; tools/setup.sh does both)");
}

int mpi_end(int st)
{
    return st;
}

int mpi_rank(void)
{
    return 0;
}

int mpi_size(void)
{
    return 1;
}

void mpi_rank_label(int r, char *buf, size_t len)
{
    snprintf(buf, len, "rank%d", r);
}

const char *mpi_rank_version(int r)
{
    (void)r;
    return "";
}

int mpi_hosts(void)
{
    return 1;
}

int mpi_bcast(struct wire *w)
{
    (void)w;
    return CP_OK;
}

int mpi_gather(const struct wire *mine, struct wire **all)
{
    (void)mine;
    *all = NULL;
    return cp_err_set(CP_FAIL_USAGE, "built without MPI");
}

const char *mpi_captured(void)
{
    return "";
}

#endif
