/* The setup child (isolate-impl.h): clparity re-executed with the hidden subcommand "__setup"
 * (tools/main.c), which reads the model and the verdicts already known from stdin and creates
 * the engine through the registry, so that its builds and probes run here; isolate.c prints
 * their lines. */
#include "isolate-impl.h"
#include "isolate-run-impl.h"

#include "clparity/env.h"
#include "engine-impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static int read_model(FILE *in, cp_model *m)
{
    int n = 0;
    size_t n_params = 0;
    memset(m, 0, sizeof *m);
    if (fscanf(in, "model %d %zu\n", &n, &n_params) != 2 || n < 1 || n > (1 << 24))
        return cp_err_set(CP_FAIL_USAGE, "__setup: no model on stdin");
    m->layers = calloc((size_t)n, sizeof *m->layers);
    /* zeros: the setup reads the shapes, never the weights; the pages are never touched */
    m->params = calloc(n_params ? n_params : 1, sizeof *m->params);
    if (!m->layers || !m->params)
        return cp_err_set(CP_FAIL_RUNTIME, "__setup: out of memory for the model");
    for (int l = 0; l < n; ++l) {
        cp_layer *L = &m->layers[l];
        int bias, act, res;
        if (fscanf(in, "%d %d %zu %zu %d %d %d\n", &L->in, &L->out, &L->w_off, &L->b_off, &bias,
                   &act, &res) != 7)
            return cp_err_set(CP_FAIL_USAGE, "__setup: layer %d unreadable", l);
        L->has_bias = bias != 0;
        L->act = (enum cp_act)act;
        L->residual = res != 0;
        m->max_width = L->in > m->max_width ? L->in : m->max_width;
        m->max_width = L->out > m->max_width ? L->out : m->max_width;
    }
    m->n_layers = n;
    m->n_params = n_params;
    m->in_width = m->layers[0].in;
    m->out_width = m->layers[n - 1].out;
    m->d = m->in_width;
    return CP_OK;
}

/* "verdict ..." lines: the parent's records (paths that crashed in an earlier child) */
static void read_verdicts(FILE *in, const cp_device *dev)
{
    char line[CP_PROBE_WHY + CP_PROBE_KEY_EXTRA + 128];
    while (fgets(line, sizeof line, in)) {
        int id, wide, big, square, flags, v, at = 0;
        char name[64], extra[CP_PROBE_KEY_EXTRA];
        line[strcspn(line, "\n")] = '\0';
        if (sscanf(line, "verdict %d %d %d %d %d %d %63s %511s %n", &id, &wide, &big, &square,
                   &flags, &v, name, extra, &at) < 8 ||
            at == 0)
            continue;
        struct cp_probe_class cls = {wide != 0, big != 0, square != 0, flags};
        cp_probe_record(dev, id, name, cp_isolate_extra_decode(extra), cls,
                        (enum cp_probe_verdict)v, line + at, false);
    }
}

int cp_isolate_child_main(int argc, char **argv)
{
    /* a compiler that aborts here leaves no core file behind: the parent reports it */
    struct rlimit none = {0, 0};
    (void)setrlimit(RLIMIT_CORE, &none);
    cp_isolate_child_mode = true;
    cp_engine_set_isolation(cp_isolate_create); /* counts the depth: the probes' own engines */
    cp_test_suspend(true); /* fail-alloc:N and the like count the parent's calls */
    int p, d, batch;
    if (argc != 4 || sscanf(argv[1], "%d:%d", &p, &d) != 2 || sscanf(argv[3], "%d", &batch) != 1 ||
        !cp_engine_find(argv[2])) {
        fprintf(stderr, "clparity __setup: internal subcommand: __setup P:D ENGINE BATCH\n");
        return CP_FAIL_USAGE;
    }
    cp_model m;
    int st = read_model(stdin, &m);
    cp_devlist devs = {0};
    const cp_device *dev = NULL;
    if (st == CP_OK)
        st = cp_devlist_enumerate(&devs);
    for (size_t i = 0; st == CP_OK && i < devs.n; ++i)
        if (devs.v[i].kind == CP_DEV_OPENCL && devs.v[i].plat_idx == p && devs.v[i].dev_idx == d)
            dev = &devs.v[i];
    if (st == CP_OK && !dev)
        st = cp_err_set(CP_FAIL_USAGE, "__setup: no device %d:%d", p, d);
    cp_engine *e = NULL;
    if (st == CP_OK) {
        read_verdicts(stdin, dev);
        st = cp_engine_create(cp_engine_find(argv[2]), dev, &m, batch, &e);
    }
    if (st != CP_OK)
        fprintf(stderr, "clparity __setup: %s\n", cp_err_msg());
    else if (e->build_cache.note[0]) /* a bad entry replaced: the parent's builds: line says so */
        printf("note %s\n", e->build_cache.note);
    printf("done %d\n", st);
    fflush(stdout);
    cp_engine_destroy(e);
    cp_model_free(&m);
    cp_devlist_free(&devs);
    return st;
}
