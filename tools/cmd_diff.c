/* clparity diff DIR DIR...: compares --save folders made on different machines, with every
 * metric of compare and the pairwise matrix. Folders of different models or inputs are
 * refused, and so is a folder whose files do not match its index.json. */
#include "cli.h"
#include "cmds.h"
#include "opts.h"

#include "clparity/compare.h"
#include "clparity/engine.h"
#include "clparity/npy.h"
#include "clparity/report.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

static const struct opt_use diff_uses[] = {
    {.id = OPT_EXPECT, .def = ""},
    {.id = OPT_EQUAL_NAN},
    {.id = OPT_JSON, .def = "the comparison"},
};

static void diff_help(void)
{
    printf("usage: clparity diff [OPTIONS] DIR DIR [DIR...]\n"
           "\n"
           "Compares the results saved by `run --save` or `compare --save` in two or more\n"
           "folders, typically made on different machines: every result against the float64\n"
           "reference and the host:exact baseline (taken from the first folder that has them),\n"
           "and, for =cr and crULP, host:cr's output (compare --save's cr.npy, or a host:cr\n"
           "result; n/a without), with compare's rows, pairwise matrix, worst elements and\n"
           "verdicts. The folders must hold the same model and inputs: different SHA-256s are\n"
           "refused (status 2). Every file is checked against its folder's index.json first:\n"
           "x.npy and weights.npy against their SHA-256s, each result, reference, baseline\n"
           "and cr.npy against its hash; a file that differs or is missing, an empty results\n"
           "list, or a bad or repeated file name is refused (status 2), naming the file. A\n"
           "result that failed in the saving run (index.json's \"errors\") is a row\n"
           "'error: <cause>' and fails every verdict.\n"
           "The det and rtrip columns show what the saving run recorded (\"deterministic\",\n"
           "\"roundtrip\" in index.json; rtrip is measured by compare only); n/a where a folder\n"
           "does not record it (saved by an older clparity, or by one run without warm-up).\n"
           "The saved timings (median ± half the p10-p90 spread, runs, mean ± sd, min, max and\n"
           "the median's interval) follow, and the speed verdict over them: which result ran\n"
           "fastest, and each other one's ratio ± its spread, or \"within noise\". Timings of\n"
           "different machines compare those machines, not only the engines.\n"
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
        const float *cr; /* host:cr's, or NULL (folders saved before it, or by run) */
        bool equal_nan;
    } set; /* what cp_comparison_create and cp_comparison_set_cr take */
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

/* A "\u0000" escape in the JSON text (not one whose backslash is itself escaped): a name
 * that C would cut short at the NUL. */
static bool has_nul_escape(const char *text)
{
    for (const char *p = strstr(text, "\\u0000"); p; p = strstr(p + 1, "\\u0000")) {
        size_t slashes = 0;
        for (const char *q = p; q > text && q[-1] == '\\'; --q)
            ++slashes;
        if (slashes % 2 == 0)
            return true;
    }
    return false;
}

/* A result's file name: a plain name in the folder, listed once (with reference.npy,
 * baseline.npy and cr.npy), never one of the folder's own files. */
static int check_file_names(const struct folder *f, const char *path)
{
    const cJSON *results = cJSON_GetObjectItemCaseSensitive(f->index, "results");
    int n = cJSON_GetArraySize(results);
    if (n == 0)
        return cli_fail("diff", CP_FAIL_USAGE,
                        "%s: no results listed: nothing to compare (an empty or incomplete save)",
                        path);
    const char **names = calloc((size_t)n + 3, sizeof *names);
    if (!names)
        return cli_fail("diff", CP_FAIL_RUNTIME, "out of memory");
    size_t k = 0;
    int st = CP_OK;
    static const char *const extra[] = {"reference", "baseline", "cr"};
    for (size_t e = 0; e < 3; ++e) {
        const char *file = get_str(cJSON_GetObjectItemCaseSensitive(f->index, extra[e]), "file");
        if (file)
            names[k++] = file;
    }
    const cJSON *r;
    cJSON_ArrayForEach(r, results)
    {
        const char *file = get_str(r, "file");
        if (!file) {
            st = cli_fail("diff", CP_FAIL_USAGE, "%s: a result has no \"file\"", path);
            break;
        }
        if (!file[0] || strchr(file, '/') || strcmp(file, ".") == 0 || strcmp(file, "..") == 0 ||
            strcmp(file, "x.npy") == 0 || strcmp(file, "weights.npy") == 0 ||
            strcmp(file, "index.json") == 0) {
            st = cli_fail("diff", CP_FAIL_USAGE, "%s: bad result file name '%s'", path, file);
            break;
        }
        for (size_t i = 0; i < k && st == CP_OK; ++i)
            if (strcmp(names[i], file) == 0)
                st = cli_fail("diff", CP_FAIL_USAGE, "%s: the file %s is listed twice", path, file);
        if (st != CP_OK)
            break;
        names[k++] = file;
    }
    free(names);
    return st;
}

static int load_index(struct folder *f)
{
    char path[4096], *text = NULL;
    snprintf(path, sizeof path, "%s/index.json", f->dir);
    int st = cli_read_text("diff", path, &text);
    if (st != CP_OK)
        return st;
    struct stat sb;
    if (stat(path, &sb) == 0 && (off_t)strlen(text) < sb.st_size) {
        free(text);
        return cli_fail("diff", CP_FAIL_USAGE, "%s: holds a NUL byte", path);
    }
    if (has_nul_escape(text)) {
        free(text);
        return cli_fail("diff", CP_FAIL_USAGE,
                        "%s: a name holds a NUL character (\\u0000): bad file name", path);
    }
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
    return check_file_names(f, path);
}

/* Reads DIR/file, listed in index.json: a missing file is an input problem (status 2). */
static int read_listed(const char *path, cp_npy *a)
{
    struct stat sb;
    if (stat(path, &sb) != 0 && errno == ENOENT)
        return cli_fail("diff", CP_FAIL_USAGE, "%s: missing from the saved folder", path);
    int st = cp_npy_read(path, a);
    return st == CP_OK ? CP_OK : cli_fail("diff", st, "%s", cp_err_msg());
}

/* DIR/file's data (the array, not the .npy header) against the SHA-256 in index.json. */
static int check_sha256(const char *dir, const char *file, const char *want)
{
    char path[4096], got[65];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    cp_npy a;
    int st = read_listed(path, &a);
    if (st != CP_OK)
        return st;
    cp_sha256_hex(a.data, a.count * cp_dtype_size(a.dtype), got);
    cp_npy_free(&a);
    if (strcmp(got, want) != 0)
        return cli_fail("diff", CP_FAIL_USAGE,
                        "%s: contents SHA-256 %s, index.json says %s (the file changed since "
                        "the save)",
                        path, got, want);
    return CP_OK;
}

/* The folder's own inputs: x.npy against input_sha256 and, for the built-in model (whose
 * weights the folder holds), weights.npy against weights_sha256. */
static int check_inputs(const struct folder *f)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(f->index, "model");
    int st = check_sha256(f->dir, "x.npy", get_str(m, "input_sha256"));
    const char *arch = get_str(m, "arch"), *w = get_str(m, "weights_sha256");
    if (st == CP_OK && arch && strcmp(arch, "dumb") == 0 && w)
        st = check_sha256(f->dir, "weights.npy", w);
    return st;
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
    if (!file || !file[0] || strchr(file, '/'))
        return cli_fail("diff", CP_FAIL_USAGE, "%s/index.json: bad file name '%s'", dir,
                        file ? file : "(none)");
    snprintf(path, sizeof path, "%s/%s", dir, file);
    cp_npy a;
    int st = read_listed(path, &a);
    if (st != CP_OK)
        return st;
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

/* A check recorded in a result of index.json: true or false, or -1 when it is absent (a
 * folder saved before the checks were recorded, or a run that did not measure it). */
static int saved_check(const char *dir, const cJSON *r, const char *key, int *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, key);
    if (!v) {
        *out = -1;
        return CP_OK;
    }
    if (!cJSON_IsBool(v))
        return cli_fail("diff", CP_FAIL_USAGE,
                        "%s/index.json: a result's \"%s\" is not true or false", dir, key);
    *out = cJSON_IsTrue(v) ? 1 : 0;
    return CP_OK;
}

/* Whether the engine a folder names (a registered one, else none) plays role r in compare. */
static bool plays(const char *engine, enum cp_engine_role r)
{
    const cp_engine_info *info = cp_engine_find(engine);
    return info && info->role == r;
}

static int load_all(struct diff *d)
{
    size_t total = 0;
    for (size_t i = 0; i < d->nf; ++i)
        total +=
            (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(d->f[i].index, "results")) +
            (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(d->f[i].index, "errors"));
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
            /* The checks the saving run recorded (older folders have none: n/a). */
            st = saved_check(d->f[i].dir, r, "deterministic", &it->deterministic);
            if (st == CP_OK)
                st = saved_check(d->f[i].dir, r, "roundtrip", &it->roundtrip);
            if (st != CP_OK)
                return st;
            /* The saved timings (folders saved before they were recorded have none: n/a). */
            const cJSON *tj = cJSON_GetObjectItemCaseSensitive(r, "timing");
            if (!cJSON_IsObject(tj) || !cp_stats_from_json(tj, "wall", &it->wall))
                memset(&it->wall, 0, sizeof it->wall);
            d->set.n++;
        }
        /* The results that failed in the saving run (index.json's "errors"): rows that say so,
         * and every verdict fails over them. Their strings live as long as the index. */
        cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(d->f[i].index, "errors"))
        {
            const char *engine = get_str(r, "engine"), *device = get_str(r, "device");
            const char *error = get_str(r, "error");
            if (!engine || !device || !error || !error[0])
                return cli_fail("diff", CP_FAIL_USAGE, "%s/index.json: an error lacks fields",
                                d->f[i].dir);
            cp_compare_item *it = &d->set.v[d->set.n++];
            it->dtype = CP_F32;
            it->error = error;
            snprintf(it->label, sizeof it->label, "%c: %s", folder_letter(i), device);
            snprintf(it->engine, sizeof it->engine, "%s", engine);
            it->deterministic = it->roundtrip = it->thread_inv = -1;
            it->batch_inv_equal = it->batch_inv_checked = -1;
        }
        /* Every folder's reference and baseline are checked; the first ones serve. */
        const cJSON *ref = cJSON_GetObjectItemCaseSensitive(d->f[i].index, "reference");
        if (ref) {
            void *y;
            int st =
                load_array(d, d->f[i].dir, get_str(ref, "file"), get_str(ref, "hash"), CP_F64, &y);
            if (st != CP_OK)
                return st;
            if (!d->set.ref)
                d->set.ref = y;
        }
        const cJSON *base = cJSON_GetObjectItemCaseSensitive(d->f[i].index, "baseline");
        if (base) {
            void *y;
            int st = load_array(d, d->f[i].dir, get_str(base, "file"), get_str(base, "hash"),
                                CP_F32, &y);
            if (st != CP_OK)
                return st;
            if (!d->set.base)
                d->set.base = y;
        }
        const cJSON *cr = cJSON_GetObjectItemCaseSensitive(d->f[i].index, "cr");
        if (cr) {
            void *y;
            int st =
                load_array(d, d->f[i].dir, get_str(cr, "file"), get_str(cr, "hash"), CP_F32, &y);
            if (st != CP_OK)
                return st;
            if (!d->set.cr)
                d->set.cr = y;
        }
    }
    /* Without a saved host:cr, a host:cr result serves; with neither, =cr is n/a. */
    for (size_t i = 0; i < d->set.n && !d->set.cr; ++i)
        if (plays(d->set.v[i].engine, CP_ROLE_CR_ANSWER) && d->set.v[i].y)
            d->set.cr = d->set.v[i].y;
    /* Without a saved baseline, a host:exact result serves (same bits by definition). */
    for (size_t i = 0; i < d->set.n && !d->set.base; ++i)
        if (plays(d->set.v[i].engine, CP_ROLE_BASELINE) && d->set.v[i].y)
            d->set.base = d->set.v[i].y;
    if (!d->set.ref)
        return cli_fail("diff", CP_FAIL_USAGE, "no folder holds the host:f64 reference");
    if (!d->set.base)
        return cli_fail("diff", CP_FAIL_USAGE,
                        "no folder holds the host:exact baseline (save with compare, or list "
                        "host:exact among the engines)");
    return CP_OK;
}

/* --expect cr needs what it judges, a correctly rounded result, and what it judges it by,
 * host:cr's output: without either it would pass over nothing (status 2, as compare). */
static int check_expect_cr(const struct diff *d)
{
    bool any = false;
    for (size_t i = 0; i < d->set.n; ++i)
        any = any || cp_engine_correctly_rounded(d->set.v[i].engine);
    if (!any)
        return cli_fail("diff", CP_FAIL_USAGE,
                        "--expect cr judges the correctly rounded results (cl:cr, host:cr) "
                        "against host:cr, and no folder holds one");
    if (!d->set.cr)
        return cli_fail("diff", CP_FAIL_USAGE,
                        "--expect cr: no folder holds host:cr's output to judge by (cr.npy, "
                        "written by compare --save, or a host:cr result)");
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
    if (d.nf < 2) {
        free(d.f);
        return cli_fail("diff", CP_FAIL_USAGE,
                        "%s (usage: clparity diff DIR DIR...): diff compares the results of two "
                        "or more --save folders; one folder's own comparison is what compare "
                        "printed when it saved it",
                        d.nf == 0 ? "no folder given" : "only one folder given");
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
        if (st == CP_OK)
            st = check_inputs(&d.f[i]);
    }
    if (st == CP_OK)
        st = load_all(&d);
    if (st == CP_OK && expect == CP_PRESET_CR)
        st = check_expect_cr(&d);
    if (st == CP_OK && cp_comparison_create(d.set.v, d.set.n, d.rows, d.cols, d.set.ref, d.set.base,
                                            d.set.equal_nan, &d.cmp) != CP_OK)
        st = cli_fail("diff", CP_FAIL_RUNTIME, "%s", cp_err_msg());
    if (st == CP_OK)
        cp_comparison_set_cr(d.cmp, d.set.cr);
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
    bool timed = false;
    for (size_t i = 0; i < d.set.n; ++i)
        timed = timed || d.set.v[i].wall.n > 0;
    cp_comparison_print(d.cmp, out, timed, expect);
    if (timed && (st = cp_comparison_print_speed(d.cmp, out)) != CP_OK) {
        st = cli_fail("diff", st, "%s", cp_err_msg()); /* the saved timings and their verdict */
        goto out;
    }
    cli_flush(out);
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
        cp_json_add(root, "provenance", cp_provenance_json(""));
        for (size_t i = 0; i < d.nf; ++i)
            cp_json_push(dirs, cJSON_CreateString(d.f[i].dir));
        cp_json_add(root, "model", cJSON_Duplicate(m, 1));
        cJSON_AddStringToObject(root, "expect",
                                expect < 0 ? "none" : cp_preset_name((enum cp_preset)expect));
        cp_json_add(root, "comparison", cmp);
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
