/* clparity diff DIR DIR...: compares --save folders made on different machines, with every
 * metric of compare and the pairwise matrix. Folders of different models or inputs are
 * refused. */
#include "cli.h"
#include "cmds.h"
#include "opts.h"

#include "clparity/compare.h"
#include "clparity/npy.h"
#include "clparity/report.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct opt_use diff_uses[] = {
    {.id = OPT_EXPECT, .def = ""},
    {.id = OPT_EQUAL_NAN},
    {.id = OPT_JSON, .def = "the comparison"},
};

static void diff_help(void)
{
    printf("usage: clparity diff [OPTIONS] DIR [DIR...]\n"
           "\n"
           "Compares the results saved by `run --save` or `compare --save` in one or more\n"
           "folders, typically made on different machines: every result against the float64\n"
           "reference and the host:exact baseline (taken from the first folder that has them),\n"
           "with compare's rows, pairwise matrix, worst elements and verdicts. The folders must\n"
           "hold the same model and inputs: different SHA-256s are refused (status 2), and so\n"
           "is a result file whose bytes no longer match its recorded hash.\n"
           "\n");
    opts_help(stdout, diff_uses, sizeof diff_uses / sizeof *diff_uses);
}

struct folder {
    const char *dir;
    cJSON *index;
};

struct diff {
    struct folder *f;
    size_t nf;
    struct {
        cp_compare_item *v;
        size_t n;
        const double *ref;
        const float *base;
        bool equal_nan;
    } set; /* what cp_comparison_create takes */
    cp_comparison *cmp;
    void **owned; /* loaded arrays */
    size_t nowned;
    size_t rows, cols;
    int expect;       /* --expect */
    const char *json; /* --json */
};

static const char *get_str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int load_index(struct folder *f)
{
    char path[4096], *text = NULL;
    snprintf(path, sizeof path, "%s/index.json", f->dir);
    int st = cli_read_text("diff", path, &text);
    if (st != CP_OK)
        return st;
    f->index = cJSON_Parse(text);
    free(text);
    if (!f->index)
        return cli_fail("diff", CP_FAIL_USAGE, "%s: not valid JSON", path);
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(f->index, "schema");
    const cJSON *model = cJSON_GetObjectItemCaseSensitive(f->index, "model");
    const cJSON *results = cJSON_GetObjectItemCaseSensitive(f->index, "results");
    if (!cJSON_IsNumber(schema) || schema->valuedouble != 1.0 || !cJSON_IsObject(model) ||
        !cJSON_IsArray(results) || !get_str(model, "input_sha256"))
        return cli_fail("diff", CP_FAIL_USAGE,
                        "%s: not a clparity index (schema 1 with model and results)", path);
    return CP_OK;
}

/* The same model and inputs: the SHA-256s and shapes must agree with the first folder. */
static int check_same_model(const struct folder *a, const struct folder *b)
{
    const cJSON *ma = cJSON_GetObjectItemCaseSensitive(a->index, "model");
    const cJSON *mb = cJSON_GetObjectItemCaseSensitive(b->index, "model");
    static const char *const keys[] = {"input_sha256", "weights_sha256", "model_sha256"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; ++k) {
        const char *va = get_str(ma, keys[k]), *vb = get_str(mb, keys[k]);
        if (!va && !vb)
            continue;
        if (!va || !vb || strcmp(va, vb) != 0)
            return cli_fail("diff", CP_FAIL_USAGE,
                            "%s and %s hold different models or inputs: %s %s vs %s", a->dir,
                            b->dir, keys[k], va ? va : "(none)", vb ? vb : "(none)");
    }
    /* The built-in model has d; a --model file has in and out: a key neither has is
     * skipped, one that only one has differs. */
    static const char *const dims[] = {"d", "in", "out", "layers", "batch"};
    for (size_t k = 0; k < sizeof dims / sizeof dims[0]; ++k) {
        const cJSON *va = cJSON_GetObjectItemCaseSensitive(ma, dims[k]);
        const cJSON *vb = cJSON_GetObjectItemCaseSensitive(mb, dims[k]);
        if (!va && !vb)
            continue;
        if (!cJSON_IsNumber(va) || !cJSON_IsNumber(vb) || va->valuedouble != vb->valuedouble)
            return cli_fail("diff", CP_FAIL_USAGE, "%s and %s hold different models: %s differs",
                            a->dir, b->dir, dims[k]);
    }
    return CP_OK;
}

/* Loads DIR/file, checks dtype, shape and the recorded hash; keeps the data in d->owned. */
static int load_array(struct diff *d, const char *dir, const char *file, const char *hash,
                      enum cp_dtype want, void **out)
{
    char path[4096];
    if (!file || strchr(file, '/'))
        return cli_fail("diff", CP_FAIL_USAGE, "%s/index.json: bad file name", dir);
    snprintf(path, sizeof path, "%s/%s", dir, file);
    cp_npy a;
    int st = cp_npy_read(path, &a);
    if (st != CP_OK)
        return cli_fail("diff", st, "%s", cp_err_msg());
    if (a.dtype != want || a.ndim != 2 ||
        (d->rows && (a.shape[0] != d->rows || a.shape[1] != d->cols))) {
        cp_npy_free(&a);
        return cli_fail("diff", CP_FAIL_USAGE, "%s: dtype or shape differs from the others", path);
    }
    d->rows = a.shape[0];
    d->cols = a.shape[1];
    char got[32];
    snprintf(got, sizeof got, "%016llx",
             (unsigned long long)cp_hash_fnv1a(a.data, a.count * cp_dtype_size(a.dtype)));
    if (!hash || strcmp(got, hash) != 0) {
        cp_npy_free(&a);
        return cli_fail("diff", CP_FAIL_USAGE, "%s: contents hash %s, index.json says %s", path,
                        got, hash ? hash : "(none)");
    }
    void **owned = realloc(d->owned, (d->nowned + 1) * sizeof *owned);
    if (!owned) {
        cp_npy_free(&a);
        return cli_fail("diff", CP_FAIL_RUNTIME, "out of memory");
    }
    d->owned = owned;
    d->owned[d->nowned++] = a.data;
    *out = a.data;
    return CP_OK;
}

/* Folders are A, B, C... in the tables; the legend names them. */
static char folder_letter(size_t i)
{
    return (char)(i < 26 ? 'A' + i : '?');
}

static int set_opt(void *ctx, enum opt_id id, const struct opt_value *v)
{
    struct diff *d = ctx;
    if (id == OPT_EXPECT)
        return cp_expect_parse(v->s, &d->expect);
    if (id == OPT_EQUAL_NAN)
        d->set.equal_nan = true;
    else if (id == OPT_JSON)
        d->json = v->s;
    return CP_OK;
}

/* The folders, in the order given. */
static int add_folder(void *ctx, const char *dir)
{
    struct diff *d = ctx;
    d->f[d->nf++].dir = dir;
    return CP_OK;
}

static int load_all(struct diff *d)
{
    size_t total = 0;
    for (size_t i = 0; i < d->nf; ++i)
        total +=
            (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(d->f[i].index, "results"));
    d->set.v = calloc(total + 1, sizeof *d->set.v);
    if (!d->set.v)
        return cli_fail("diff", CP_FAIL_RUNTIME, "out of memory");
    for (size_t i = 0; i < d->nf; ++i) {
        const cJSON *r;
        cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(d->f[i].index, "results"))
        {
            const char *dtype = get_str(r, "dtype"), *engine = get_str(r, "engine");
            const char *device = get_str(r, "device");
            if (!dtype || !engine || !device)
                return cli_fail("diff", CP_FAIL_USAGE, "%s/index.json: a result lacks fields",
                                d->f[i].dir);
            enum cp_dtype t = strcmp(dtype, "<f8") == 0 ? CP_F64 : CP_F32;
            cp_compare_item *it = &d->set.v[d->set.n];
            void *y;
            int st = load_array(d, d->f[i].dir, get_str(r, "file"), get_str(r, "hash"), t, &y);
            if (st != CP_OK)
                return st;
            it->y = y;
            it->dtype = t;
            it->hash = strtoull(get_str(r, "hash"), NULL, 16);
            snprintf(it->label, sizeof it->label, "%c: %s", folder_letter(i), device);
            snprintf(it->engine, sizeof it->engine, "%s", engine);
            it->deterministic = it->roundtrip = it->thread_inv = -1;
            it->batch_inv_checked = -1;
            it->wall_median_s = -1.0;
            d->set.n++;
        }
        const cJSON *ref = cJSON_GetObjectItemCaseSensitive(d->f[i].index, "reference");
        if (!d->set.ref && ref) {
            void *y;
            int st =
                load_array(d, d->f[i].dir, get_str(ref, "file"), get_str(ref, "hash"), CP_F64, &y);
            if (st != CP_OK)
                return st;
            d->set.ref = y;
        }
        const cJSON *base = cJSON_GetObjectItemCaseSensitive(d->f[i].index, "baseline");
        if (!d->set.base && base) {
            void *y;
            int st = load_array(d, d->f[i].dir, get_str(base, "file"), get_str(base, "hash"),
                                CP_F32, &y);
            if (st != CP_OK)
                return st;
            d->set.base = y;
        }
    }
    /* Without a saved baseline, a host:exact result serves (same bits by definition). */
    for (size_t i = 0; i < d->set.n && !d->set.base; ++i)
        if (strcmp(d->set.v[i].engine, "host:exact") == 0)
            d->set.base = d->set.v[i].y;
    if (!d->set.ref)
        return cli_fail("diff", CP_FAIL_USAGE, "no folder holds the host:f64 reference");
    if (!d->set.base)
        return cli_fail("diff", CP_FAIL_USAGE,
                        "no folder holds the host:exact baseline (save with compare, or list "
                        "host:exact among the engines)");
    return CP_OK;
}

int cmd_diff(int argc, char **argv)
{
    struct diff d;
    memset(&d, 0, sizeof d);
    d.expect = CP_EXPECT_NONE;
    d.f = calloc((size_t)argc + 1, sizeof *d.f);
    if (!d.f)
        return cli_fail("diff", CP_FAIL_RUNTIME, "out of memory");
    bool handled;
    int st = opts_parse("diff", argc, argv, diff_uses, sizeof diff_uses / sizeof *diff_uses,
                        set_opt, add_folder, &d, diff_help, &handled);
    int expect = d.expect;
    const char *json_path = d.json;
    if (st != CP_OK || handled) {
        free(d.f);
        return st;
    }
    if (d.nf == 0) {
        free(d.f);
        return cli_fail("diff", CP_FAIL_USAGE, "no folder given (usage: clparity diff DIR...)");
    }
    if (d.nf > 26) {
        free(d.f);
        return cli_fail("diff", CP_FAIL_USAGE, "at most 26 folders at once");
    }
    /* --json against the folders, before any work: not one of their files. */
    struct cli_path paths[27] = {{"--json", json_path, CLI_OUT_FILE}};
    for (size_t i = 0; i < d.nf; ++i)
        paths[i + 1] = (struct cli_path){"folder", d.f[i].dir, CLI_IN_DIR};
    if ((st = cli_check_paths("diff", paths, d.nf + 1)) != CP_OK) {
        free(d.f);
        return st;
    }
    for (size_t i = 0; st == CP_OK && i < d.nf; ++i) {
        st = load_index(&d.f[i]);
        if (st == CP_OK && i > 0)
            st = check_same_model(&d.f[0], &d.f[i]);
    }
    if (st == CP_OK)
        st = load_all(&d);
    if (st == CP_OK && cp_comparison_create(d.set.v, d.set.n, d.rows, d.cols, d.set.ref, d.set.base,
                                            d.set.equal_nan, &d.cmp) != CP_OK)
        st = cli_fail("diff", CP_FAIL_RUNTIME, "%s", cp_err_msg());
    if (st != CP_OK)
        goto out;

    FILE *out = json_path && strcmp(json_path, "-") == 0 ? stderr : stdout;
    for (size_t i = 0; i < d.nf; ++i) {
        const cJSON *prov = cJSON_GetObjectItemCaseSensitive(d.f[i].index, "provenance");
        const char *cpu = get_str(prov, "host_cpu"), *date = get_str(prov, "date");
        const char *ver = get_str(d.f[i].index, "version");
        fprintf(out, "folder %c: %s (clparity %s, %s, %s)\n", folder_letter(i), d.f[i].dir,
                ver ? ver : "?", cpu ? cpu : "unknown CPU", date ? date : "no date");
    }
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(d.f[0].index, "model");
    fprintf(out, "model: input sha256 %s, %zu rows x %zu outputs\n", get_str(m, "input_sha256"),
            d.rows, d.cols);
    cp_comparison_print(d.cmp, out, false, expect);
    fflush(out);
    if (json_path) {
        cJSON *root = cJSON_CreateObject();
        cJSON *cmp = cp_comparison_json(d.cmp);
        cJSON *dirs = root ? cJSON_AddArrayToObject(root, "folders") : NULL;
        if (!root || !cmp || !dirs) {
            cJSON_Delete(root);
            cJSON_Delete(cmp);
            st = cli_fail("diff", CP_FAIL_RUNTIME, "out of memory building JSON");
            goto out;
        }
        cJSON_AddNumberToObject(root, "schema", 1);
        cJSON_AddStringToObject(root, "command", "diff");
        cJSON_AddItemToObject(root, "provenance", cp_provenance_json(""));
        for (size_t i = 0; i < d.nf; ++i)
            cJSON_AddItemToArray(dirs, cJSON_CreateString(d.f[i].dir));
        cJSON_AddItemToObject(root, "model", cJSON_Duplicate(m, 1));
        cJSON_AddStringToObject(root, "expect",
                                expect < 0 ? "none" : cp_preset_name((enum cp_preset)expect));
        cJSON_AddItemToObject(root, "comparison", cmp);
        st = cli_write_json("diff", "--json", json_path, root);
        if (st != CP_OK)
            goto out;
    }
    if (expect >= 0) {
        char names[4096];
        size_t fails = cp_comparison_failures(d.cmp, (enum cp_preset)expect, names, sizeof names);
        if (fails)
            st = cli_fail("diff", CP_FAIL_CHECK, "--expect %s failed for %zu result%s: %s",
                          cp_preset_name((enum cp_preset)expect), fails, fails > 1 ? "s" : "",
                          names);
    }
out:
    cp_comparison_destroy(d.cmp);
    free(d.set.v);
    for (size_t i = 0; i < d.nowned; ++i)
        free(d.owned[i]);
    free(d.owned);
    for (size_t i = 0; d.f && i < d.nf; ++i)
        cJSON_Delete(d.f[i].index);
    free(d.f);
    return st;
}
