/* clparity ulp: each selected OpenCL device's sqrt, / (as built by default and with
 * -cl-fp32-correctly-rounded-divide-sqrt), native_ and half_ variants and train's float way,
 * against the host's correctly rounded results over a fixed seeded sample (clparity/ulp.h). */
#include "cli.h"
#include "cmds.h"
#include "opts.h"
#include "perf.h"
#include "progress.h"

#include "clparity/report.h"
#include "clparity/select.h"
#include "clparity/ulp.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CMD "ulp"
/* On a simulator, more evaluations than this (inputs × functions) need --allow-slow: Oclgrind
 * ran 2^20 quotients of train's float way in about 18 s on this project's 2-core machine, and
 * its other rows in about 3 s each. */
#define ULP_SIMULATOR_LIMIT (1 << 20)
#define ULP_DEFAULT_SAMPLES 1048576

struct ulp_opts {
    char **sels;
    size_t nsel;
    const char *functions, *json;
    long samples;
    uint64_t seed;
    bool allow_slow;
};

#define UO(field) OPT_AT(struct ulp_opts, field)

/* The functions' names, once each, in table order: "sqrt,divide,..." (help: "sqrt, divide,
 * ...", a new line before a name that would pass the help's column 80). */
static void function_names(char *buf, size_t len, bool help)
{
    size_t k = 0, col = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < cp_ulp_case_count() && k < len; ++i) {
        const char *f = cp_ulp_case_at(i)->function;
        if (i > 0 && strcmp(f, cp_ulp_case_at(i - 1)->function) == 0)
            continue;
        const char *sep = !k ? "" : !help ? "," : col + strlen(f) + 2 > 60 ? ",\n" : ", ";
        col = strchr(sep, '\n') ? strlen(f) : col + strlen(sep) + strlen(f);
        k += (size_t)snprintf(buf + k, len - k, "%s%s", sep, f);
    }
}

static char names_help[512];

static const struct opt_use ulp_uses[] = {
    {.id = OPT_DEVICE},
    {.id = OPT_FUNCTIONS, UO(functions), .def = names_help},
    {.id = OPT_SAMPLES, UO(samples), .def = "1048576 = 2^20"},
    {.id = OPT_SEED, UO(seed)},
    {.id = OPT_ALLOW_SLOW,
     UO(allow_slow),
     .help = "run on a simulator (Oclgrind) beyond 2^20 evaluations (inputs x\n"
             "functions); --samples 65536 stays under it"},
    {.id = OPT_JSON, UO(json), .def = "every row with its worst input and the sample"},
};

static void ulp_help(void)
{
    printf(
        "usage: clparity ulp [-d SEL] [--functions LIST] [--samples N] [--seed N] [--json FILE]\n"
        "\n"
        "Measures how far each selected OpenCL device's square root, division and reciprocal\n"
        "are from the correctly rounded results, computed on the host (float / and sqrtf,\n"
        "rounded correctly by SSE, and 1.0f / x for the reciprocal). One row per function and\n"
        "build:\n"
        "  sqrt, divide       sqrt(x) and x / y as built by default (OpenCL allows 3 and 2.5\n"
        "                     ULP) and, where the device reports CL_FP_CORRECTLY_ROUNDED_\n"
        "                     DIVIDE_SQRT, built with -cl-fp32-correctly-rounded-divide-sqrt\n"
        "                     (build correctly-rounded; else n/a)\n"
        "  native_sqrt, native_divide, native_recip\n"
        "                     accuracy and range implementation-defined: every input\n"
        "  half_sqrt, half_divide, half_recip\n"
        "                     8192 ULP allowed, and only on their domain as measured here:\n"
        "                     normal inputs whose correct result is normal (no zeros,\n"
        "                     subnormals, infinities or NaN; sqrt: x > 0); the sample's next\n"
        "                     inputs replace the others, so each row still has N inputs\n"
        "  train_sqrt, train_divide\n"
        "                     clparity's own correctly rounded float / and sqrt (train's\n"
        "                     'float (fma correction)' way, clkernels/divsqrt.cl)\n"
        "The sample is fixed by the seed: first every special value (zeros, subnormals,\n"
        "FLT_MIN, powers of two and their neighbours, FLT_MAX, infinities, NaN; both signs),\n"
        "and for divide every pair of them, then inputs of the portable generator that aim at\n"
        "hard cases: any bits, any exponent, results near a rounding midpoint, subnormal\n"
        "inputs and results (near and on the midpoints of subnormals), results about FLT_MAX\n"
        "and past it, powers of two, exact quotients and squares, quotients about 1. Each\n"
        "function's rows see the same inputs.\n"
        "\n"
        "Columns: inputs measured; max and mean ULP (NumPy's nulp_diff, +0 equal to -0) over\n"
        "the results that are finite or the same infinity or NaN; non-finite: NaN against a\n"
        "number or an infinity against anything else, counted apart; bits differ: results\n"
        "that are not bit-identical to the correctly rounded one (NaN payloads are not\n"
        "compared). The host is the reference and is not measured; -d host alone is an error.\n"
        "\n"
        "A row promised correctly rounded (sqrt and divide built correctly-rounded, and\n"
        "train's rows) whose bits differ anywhere fails the check: exit status 1.\n"
        "\n");
    opts_help(stdout, ulp_uses, sizeof ulp_uses / sizeof *ulp_uses);
    printf("\n"
           "exit status: 0 success, 1 a promised correctly rounded row is not, 2 usage error\n"
           "(bad option or value, a selector that matches nothing, no OpenCL device, a\n"
           "simulator's work limit), 3 runtime error (an OpenCL call failed, a kernel build,\n"
           "I/O)\n");
}

static int set_opt(void *ctx, enum opt_id id, const struct opt_value *v)
{
    struct ulp_opts *o = ctx;
    if (id == OPT_DEVICE)
        o->sels[o->nsel++] = (char *)v->s;
    return CP_OK;
}

/* --functions: which rows run (every case of each named function). */
static int pick_functions(const char *list, bool *use)
{
    size_t nc = cp_ulp_case_count();
    if (!list) {
        for (size_t i = 0; i < nc; ++i)
            use[i] = true;
        return CP_OK;
    }
    char names[512];
    function_names(names, sizeof names, false);
    for (const char *c = list;;) {
        size_t n = strcspn(c, ",");
        char word[64];
        if (n == 0 || n >= sizeof word)
            return cli_fail(CMD, CP_FAIL_USAGE, "--functions: '%s' has an %s item", list,
                            n ? "overlong" : "empty");
        memcpy(word, c, n);
        word[n] = '\0';
        int idx;
        int st = opts_word(CMD, "--functions", names, word, &idx);
        if (st != CP_OK)
            return st;
        for (size_t i = 0; i < nc; ++i)
            if (strcmp(cp_ulp_case_at(i)->function, word) == 0)
                use[i] = true;
        if (!c[n])
            return CP_OK;
        c += n + 1;
    }
}

static void header(FILE *f)
{
    fprintf(f, "%-30s %-13s %-17s %10s %10s %12s %10s %11s\n", "device", "function", "build",
            "inputs", "max ULP", "mean ULP", "non-finite", "bits differ");
}

static void row(FILE *f, const char *label, const cp_ulp_case *c, const cp_ulp_stats *s)
{
    fprintf(f, "%-30.30s %-13s %-17s ", label, c->function, c->build);
    if (!s->available)
        fprintf(f, "n/a: %s\n", s->why);
    else
        fprintf(f, "%10zu %10llu %12.4g %10zu %11zu\n", s->n, (unsigned long long)s->max_ulp,
                s->mean_ulp, s->nonfinite, s->bits_differ);
}

/* "%a", or "nan" whatever NaN's sign and payload. */
static void hexf(char *buf, size_t len, float v)
{
    if (isnan(v))
        snprintf(buf, len, "nan");
    else
        snprintf(buf, len, "%a", (double)v);
}

static cJSON *row_json(const cp_ulp_case *c, const cp_ulp_stats *s, int check)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "function", c->function);
    cJSON_AddStringToObject(o, "build", c->build);
    cJSON_AddStringToObject(o, "build_options", cp_ulp_build_options(c->build));
    cJSON_AddStringToObject(o, "domain", c->domain);
    cJSON_AddBoolToObject(o, "exact_promised", c->exact);
    cJSON_AddBoolToObject(o, "available", s->available);
    if (!s->available) {
        cJSON_AddStringToObject(o, "why", s->why);
        return o;
    }
    cJSON_AddNumberToObject(o, "inputs", (double)s->n);
    cJSON_AddNumberToObject(o, "compared", (double)s->compared);
    cJSON_AddNumberToObject(o, "max_ulp", (double)s->max_ulp);
    cJSON_AddNumberToObject(o, "mean_ulp", s->mean_ulp);
    cJSON_AddNumberToObject(o, "nonfinite_mismatches", (double)s->nonfinite);
    cJSON_AddNumberToObject(o, "bits_differ", (double)s->bits_differ);
    if (s->have_worst) {
        cJSON *w = cJSON_AddObjectToObject(o, "worst");
        char buf[64];
        hexf(buf, sizeof buf, s->worst_x);
        cJSON_AddStringToObject(w, "x", buf);
        if (strstr(c->function, "divide")) {
            hexf(buf, sizeof buf, s->worst_y);
            cJSON_AddStringToObject(w, "y", buf);
        }
        hexf(buf, sizeof buf, s->worst_got);
        cJSON_AddStringToObject(w, "got", buf);
        hexf(buf, sizeof buf, s->worst_want);
        cJSON_AddStringToObject(w, "want", buf);
    } else {
        cJSON_AddNullToObject(o, "worst");
    }
    cJSON_AddNumberToObject(o, "seconds", s->seconds);
    if (check < 0)
        cJSON_AddNullToObject(o, "check");
    else
        cJSON_AddStringToObject(o, "check", check ? "ok" : "failed");
    return o;
}

struct progress_ctx {
    size_t k, nk;
    const char *label, *function, *build;
};

static void show_progress(void *ctx, size_t done, size_t total)
{
    const struct progress_ctx *p = ctx;
    progress_show("ulp: %zu/%zu  %s  %s (%s)  %zu/%zu", p->k, p->nk, p->label, p->function,
                  p->build, done, total);
}

/* Every selected case on one device: rows printed, JSON rows added, *failed set where a
 * promised correctly rounded row is not. */
static int measure_device(const cp_device *dev, const bool *use, const struct ulp_opts *o,
                          FILE *tab, cJSON *results, size_t *k, size_t nk, bool *failed)
{
    char label[300];
    cp_device_label(dev, label, sizeof label);
    cp_ulp_session *s = NULL;
    int st = cp_ulp_open(dev, &s);
    if (st != CP_OK)
        return cli_fail(CMD, st, "%s: %s", label, cp_err_msg());
    for (size_t i = 0; st == CP_OK && i < cp_ulp_case_count(); ++i) {
        if (!use[i])
            continue;
        const cp_ulp_case *c = cp_ulp_case_at(i);
        struct progress_ctx pc = {++*k, nk, label, c->function, c->build};
        progress_stage("ulp: %zu/%zu  %s  %s (%s)  build", pc.k, nk, label, c->function, c->build);
        cp_ulp_stats r;
        st = cp_ulp_measure(s, i, (size_t)o->samples, o->seed, show_progress, &pc, &r);
        progress_clear();
        if (st != CP_OK) {
            st = cli_fail(CMD, st, "%s: %s (%s): %s", label, c->function, c->build, cp_err_msg());
            cli_print_build_log();
            break;
        }
        row(tab, label, c, &r);
        cli_flush(tab);
        int check = c->exact && r.available ? r.bits_differ == 0 : -1;
        if (check == 0) {
            char x[64], y[64], got[64], want[64];
            hexf(x, sizeof x, r.worst_x);
            hexf(y, sizeof y, r.worst_y);
            hexf(got, sizeof got, r.worst_got);
            hexf(want, sizeof want, r.worst_want);
            cli_flush(tab);
            fprintf(stderr,
                    "ulp: %s: %s (%s) is promised correctly rounded, and %zu of %zu results "
                    "differ, e.g. %s%s%s%s gave %s, not %s\n",
                    label, c->function, c->build, r.bits_differ, r.n,
                    strstr(c->function, "divide") ? "" : "sqrt(", x,
                    strstr(c->function, "divide") ? " / " : ")",
                    strstr(c->function, "divide") ? y : "", got, want);
            *failed = true;
        }
        if (results) {
            cJSON *j = row_json(c, &r, check);
            if (!j || !cp_json_push(results, j)) { /* push deleted j */
                st = cli_fail(CMD, CP_FAIL_RUNTIME, "out of memory building JSON");
                break;
            }
        }
    }
    cp_ulp_close(s);
    return st;
}

int cmd_ulp(int argc, char **argv)
{
    function_names(names_help, sizeof names_help, true);
    struct ulp_opts o = {.samples = ULP_DEFAULT_SAMPLES, .seed = 1337};
    cp_devlist devs = {0};
    bool *chosen = NULL, *use = calloc(cp_ulp_case_count(), sizeof *use);
    cJSON *root = NULL, *darr = NULL;
    o.sels = calloc((size_t)argc + 1, sizeof *o.sels);
    int st = CP_OK;
    if (!o.sels || !use) {
        st = cli_fail(CMD, CP_FAIL_RUNTIME, "out of memory");
        goto out;
    }
    bool handled = false;
    st = opts_parse(CMD, argc, argv, ulp_uses, sizeof ulp_uses / sizeof *ulp_uses, set_opt, NULL,
                    &o, ulp_help, &handled);
    if (st != CP_OK || handled)
        goto out;
    if ((st = pick_functions(o.functions, use)) != CP_OK)
        goto out;
    const struct cli_path paths[] = {{"--json", o.json, CLI_OUT_FILE}};
    if ((st = cli_check_paths(CMD, paths, 1)) != CP_OK)
        goto out;
    if ((st = cli_select_devices(CMD, o.sels, o.nsel, &devs, &chosen)) != CP_OK)
        goto out;
    cp_select_warn(&devs);
    size_t ncases = 0, ndev = 0;
    for (size_t i = 0; i < cp_ulp_case_count(); ++i)
        ncases += use[i];
    for (size_t d = 0; d < devs.n; ++d) {
        const cp_device *dev = &devs.v[d];
        if (!chosen[d] || dev->kind != CP_DEV_OPENCL)
            continue;
        ++ndev;
        double evals = (double)o.samples * (double)ncases;
        if (dev->simulator && !o.allow_slow && evals > ULP_SIMULATOR_LIMIT) {
            st = cli_fail(CMD, CP_FAIL_USAGE,
                          "%d:%d %s is a simulator: %.3g evaluations (%ld inputs x %zu rows) "
                          "exceed its limit of %d; pass --allow-slow, or fewer --samples "
                          "(65536 stays under it for every function)",
                          dev->plat_idx, dev->dev_idx, dev->name, evals, o.samples, ncases,
                          ULP_SIMULATOR_LIMIT);
            goto out;
        }
    }
    if (ndev == 0) {
        st = cli_fail(CMD, CP_FAIL_USAGE,
                      "no OpenCL device selected: ulp measures OpenCL devices, and the host "
                      "computes the reference%s%s",
                      devs.env_note[0] ? "; " : "", devs.env_note);
        goto out;
    }
    if (o.json) {
        root = cJSON_CreateObject();
        darr = root ? cJSON_CreateArray() : NULL;
        cJSON *sample = root ? cJSON_AddObjectToObject(root, "sample") : NULL;
        if (!darr || !sample) {
            st = cli_fail(CMD, CP_FAIL_RUNTIME, "out of memory building JSON");
            goto out;
        }
        char seed[32];
        snprintf(seed, sizeof seed, "%llu", (unsigned long long)o.seed);
        cJSON_AddStringToObject(sample, "seed", seed);
        cJSON_AddNumberToObject(sample, "inputs", (double)o.samples);
        size_t div = 0;
        while (div < cp_ulp_case_count() && !strstr(cp_ulp_case_at(div)->function, "divide"))
            ++div;
        cJSON_AddNumberToObject(sample, "special_values", (double)cp_ulp_special_count(0));
        cJSON_AddNumberToObject(sample, "special_pairs", (double)cp_ulp_special_count(div));
        cJSON_AddNumberToObject(root, "schema", 1);
        cJSON_AddStringToObject(root, "command", CMD);
        cp_json_add(root, "provenance", cp_provenance_json("-cl-std=CL1.2"));
    }
    FILE *tab = o.json && strcmp(o.json, "-") == 0 ? stderr : stdout;
    header(tab);
    bool failed = false;
    size_t k = 0;
    for (size_t d = 0; d < devs.n; ++d) {
        const cp_device *dev = &devs.v[d];
        if (!chosen[d] || dev->kind != CP_DEV_OPENCL)
            continue;
        cJSON *results = NULL;
        if (darr) {
            /* each piece goes into darr's tree at once, so that the cleanup frees it */
            cJSON *dj = cJSON_CreateObject();
            /* push and add delete what they could not add */
            bool ok = dj && cp_json_push(darr, dj);
            ok = ok && cp_json_add(dj, "device", perf_device_json(dev));
            if (!ok || !(results = cJSON_AddArrayToObject(dj, "results"))) {
                st = cli_fail(CMD, CP_FAIL_RUNTIME, "out of memory building JSON");
                goto out;
            }
        }
        st = measure_device(dev, use, &o, tab, results, &k, ndev * ncases, &failed);
        if (st != CP_OK)
            goto out;
    }
    fprintf(tab,
            "builds: default (-cl-std=CL1.2); correctly-rounded (and "
            "-cl-fp32-correctly-rounded-divide-sqrt);\n"
            "  fma-correction (train's float way: train.cl -DTR_DIVSQRT_FLOAT). half_* rows: "
            "normal inputs\n"
            "  with a normal result only. Sample: seed %llu, %ld inputs per row.\n",
            (unsigned long long)o.seed, o.samples);
    cli_flush(tab);
    if (root) {
        cp_json_add(root, "devices", darr);
        darr = NULL;
        if ((st = cli_write_json(CMD, "--json", o.json, root)) != CP_OK) {
            root = NULL;
            goto out;
        }
        root = NULL;
    }
    if (failed)
        st = cli_fail(CMD, CP_FAIL_CHECK, "a row promised correctly rounded is not (above)");
out:
    progress_clear();
    cJSON_Delete(darr);
    cJSON_Delete(root);
    free(use);
    free(chosen);
    cp_devlist_free(&devs);
    free(o.sels);
    return st;
}
