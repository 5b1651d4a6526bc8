/* The options of run and compare, and the command line's side of a job: the files it reads
 * (--model, --input, --labels) and writes (--out, --save, --json). The job itself is the
 * library's (clparity/job.h). */
#include "job.h"

#include "cli.h"
#include "labels.h"

#include "clparity/compare.h"
#include "clparity/npy.h"
#include "clparity/report.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char job_model_help[] =
    "  -d SEL           devices: all, host, gpu, cpu, accelerator, P:D or P (clinfo's\n"
    "                   indices), or a substring of a platform, vendor or device name; a\n"
    "                   comma list or repeated -d. Default: $CLPARITY_DEVICES, else every\n"
    "                   non-simulator OpenCL device plus host\n"
    "  --engines LIST   comma list of engines (default: every engine that applies):\n"
    "                   cl:own, cl:clblast on OpenCL devices; host:openblas, host:exact,\n"
    "                   host:f64 on host\n"
    "  --d-model N      width d (default 128)\n"
    "  --layers N       number of blocks y = x + relu(x·Wᵀ) (default 128)\n"
    "  --batch N        rows in the batch (default 1)\n"
    "  --seed N         generator seed (default 1337)\n"
    "  --init-scale X   scale of PyTorch's default init bound 1/sqrt(d) (default 1.0);\n"
    "                   below 1 keeps deep models finite\n"
    "  --allow-slow     run on a simulator (Oclgrind) beyond its work limit\n"
    "  --model FILE     a safetensors file of Linear layers (weight [out, in], optional\n"
    "                   bias) instead of the built-in model; the architecture comes from\n"
    "                   the flags below, else the metadata clparity.arch (written by\n"
    "                   tools/export_torch.py), else the tensor names\n"
    "  --arch A         dumb (blocks.N.net.0.weight: relu and a residual in every block)\n"
    "                   or mlp (an nn.Sequential's N.weight/N.bias: relu between layers,\n"
    "                   none after the last)\n"
    "  --act A          relu or none: the activation of every hidden layer (and of the\n"
    "                   last one in the dumb model)\n"
    "  --residual R     on (every layer with in == out) or off\n"
    "  --input X.npy    float32 [batch, in]: the inputs (they set the batch)\n"
    "  --labels Y.npy   int32 or int64 class ids, one per input: accuracy per result,\n"
    "                   the prediction-agreement matrix and the inputs whose class flips\n"
    "  --out Y.npy      write the one result (exactly one device x engine) as .npy\n"
    "  --no-reference   (run) skip the host:f64 reference: no ULP or max_rel, for speed\n"
    "                   runs of models where float64 on one core would take minutes\n";

const char job_compare_help[] =
    "  --expect P       bitwise, torch, clblast or none (default none): exit 1 and name the\n"
    "                   results unless every result meets preset P, every run of each gave\n"
    "                   the same hash, and the weights' round trip was bit-exact\n"
    "  --equal-nan      count NaN against NaN as equal\n"
    "  --invariance     also check batch invariance (each of the first 32 rows alone, batch\n"
    "                   1, against the same row inside the batch) and thread invariance\n"
    "                   (host:openblas with 1 thread against all threads)\n";

void job_opts_defaults(struct job_opts *o)
{
    memset(o, 0, sizeof *o);
    o->d = 128;
    o->layers = 128;
    o->batch = 1;
    o->seed = 1337;
    o->init_scale = 1.0;
    o->runs = 10;
    o->warmup = 2;
    o->expect = CP_EXPECT_NONE;
    o->arch.act = -1;
    o->arch.residual = -1;
}

enum {
    OPT_ENGINES = 256,
    OPT_DMODEL,
    OPT_LAYERS,
    OPT_BATCH,
    OPT_SEED,
    OPT_INIT_SCALE,
    OPT_RUNS,
    OPT_WARMUP,
    OPT_JSON,
    OPT_SAVE,
    OPT_ALLOW_SLOW,
    OPT_VERSION,
    OPT_EXPECT,
    OPT_EQUAL_NAN,
    OPT_INVARIANCE,
    OPT_NO_REFERENCE,
    OPT_MODEL,
    OPT_INPUT,
    OPT_LABELS,
    OPT_OUT,
    OPT_ARCH,
    OPT_ACT,
    OPT_RESIDUAL,
};

int job_opts_parse(const char *cmd, int argc, char **argv, struct job_opts *o, void (*help)(void),
                   bool *handled)
{
    static const struct option opts[] = {
        {"device", required_argument, NULL, 'd'},
        {"engines", required_argument, NULL, OPT_ENGINES},
        {"d-model", required_argument, NULL, OPT_DMODEL},
        {"layers", required_argument, NULL, OPT_LAYERS},
        {"batch", required_argument, NULL, OPT_BATCH},
        {"seed", required_argument, NULL, OPT_SEED},
        {"init-scale", required_argument, NULL, OPT_INIT_SCALE},
        {"runs", required_argument, NULL, OPT_RUNS},
        {"warmup", required_argument, NULL, OPT_WARMUP},
        {"json", required_argument, NULL, OPT_JSON},
        {"save", required_argument, NULL, OPT_SAVE},
        {"allow-slow", no_argument, NULL, OPT_ALLOW_SLOW},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, OPT_VERSION},
        {"expect", required_argument, NULL, OPT_EXPECT},
        {"equal-nan", no_argument, NULL, OPT_EQUAL_NAN},
        {"invariance", no_argument, NULL, OPT_INVARIANCE},
        {"no-reference", no_argument, NULL, OPT_NO_REFERENCE},
        {"model", required_argument, NULL, OPT_MODEL},
        {"input", required_argument, NULL, OPT_INPUT},
        {"labels", required_argument, NULL, OPT_LABELS},
        {"out", required_argument, NULL, OPT_OUT},
        {"arch", required_argument, NULL, OPT_ARCH},
        {"act", required_argument, NULL, OPT_ACT},
        {"residual", required_argument, NULL, OPT_RESIDUAL},
        {NULL, 0, NULL, 0},
    };
    *handled = false;
    o->sels = calloc((size_t)argc, sizeof *o->sels);
    if (!o->sels)
        return cli_fail(cmd, CP_FAIL_RUNTIME, "out of memory");
    int c, st = CP_OK;
    opterr = 0;
    optind = 1;
    int li = -1;
    while (st == CP_OK && (c = getopt_long(argc, argv, ":d:h", opts, &li)) != -1) {
        switch (c) {
        case 'd':
            o->sels[o->nsel++] = optarg;
            break;
        case OPT_ENGINES:
            o->engines = optarg;
            break;
        case OPT_DMODEL:
            st = cli_parse_long(cmd, "--d-model", optarg, 1, 65536, &o->d);
            o->d_set = true;
            break;
        case OPT_LAYERS:
            st = cli_parse_long(cmd, "--layers", optarg, 1, 16777216, &o->layers);
            o->layers_set = true;
            break;
        case OPT_BATCH:
            st = cli_parse_long(cmd, "--batch", optarg, 1, 16777216, &o->batch);
            o->batch_set = true;
            break;
        case OPT_SEED:
            st = cli_parse_u64(cmd, "--seed", optarg, &o->seed);
            o->seed_set = true;
            break;
        case OPT_INIT_SCALE:
            st = cli_parse_double(cmd, "--init-scale", optarg, 0.0, 1e6, &o->init_scale);
            o->init_scale_set = true;
            break;
        case OPT_MODEL:
            o->model = optarg;
            break;
        case OPT_INPUT:
            o->input = optarg;
            break;
        case OPT_LABELS:
            o->labels = optarg;
            break;
        case OPT_OUT:
            o->out = optarg;
            break;
        case OPT_ARCH:
            if (strcmp(optarg, "dumb") == 0)
                o->arch.kind = CP_ARCH_DUMB;
            else if (strcmp(optarg, "mlp") == 0)
                o->arch.kind = CP_ARCH_MLP;
            else
                st = cli_fail(cmd, CP_FAIL_USAGE, "--arch: '%s' is not one of dumb, mlp", optarg);
            break;
        case OPT_ACT:
            if (strcmp(optarg, "relu") == 0)
                o->arch.act = CP_ACT_RELU;
            else if (strcmp(optarg, "none") == 0)
                o->arch.act = CP_ACT_NONE;
            else
                st = cli_fail(cmd, CP_FAIL_USAGE, "--act: '%s' is not one of relu, none", optarg);
            break;
        case OPT_RESIDUAL:
            if (strcmp(optarg, "on") == 0)
                o->arch.residual = 1;
            else if (strcmp(optarg, "off") == 0)
                o->arch.residual = 0;
            else
                st = cli_fail(cmd, CP_FAIL_USAGE, "--residual: '%s' is not one of on, off", optarg);
            break;
        case OPT_RUNS:
            st = cli_parse_long(cmd, "--runs", optarg, 1, 1000000, &o->runs);
            break;
        case OPT_WARMUP:
            st = cli_parse_long(cmd, "--warmup", optarg, 0, 1000000, &o->warmup);
            break;
        case OPT_JSON:
            o->json = optarg;
            break;
        case OPT_SAVE:
            o->save = optarg;
            break;
        case OPT_ALLOW_SLOW:
            o->allow_slow = true;
            break;
        case OPT_NO_REFERENCE:
            if (o->compare) {
                st = cli_fail(cmd, CP_FAIL_USAGE,
                              "--no-reference: compare always needs the host:f64 reference");
                break;
            }
            o->no_reference = true;
            break;
        case 'h':
            help();
            *handled = true;
            return CP_OK;
        case OPT_VERSION:
            cli_print_version();
            *handled = true;
            return CP_OK;
        case OPT_EXPECT:
        case OPT_EQUAL_NAN:
        case OPT_INVARIANCE:
            if (!o->compare) {
                st = cli_fail(cmd, CP_FAIL_USAGE, "unknown option '--%s' (it belongs to compare)",
                              opts[li].name);
                break;
            }
            if (c == OPT_EQUAL_NAN)
                o->equal_nan = true;
            else if (c == OPT_INVARIANCE)
                o->invariance = true;
            else if (cp_expect_parse(optarg, &o->expect) != CP_OK)
                st = cli_fail(cmd, CP_FAIL_USAGE,
                              "--expect: '%s' is not one of bitwise, torch, clblast, none", optarg);
            break;
        case ':':
            st = cli_fail(cmd, CP_FAIL_USAGE, "option %s needs a value", argv[optind - 1]);
            break;
        default:
            st = cli_fail(cmd, CP_FAIL_USAGE, "unknown option '%s'", argv[optind - 1]);
            break;
        }
    }
    if (st == CP_OK && optind < argc)
        st = cli_fail(cmd, CP_FAIL_USAGE, "unexpected argument '%s'", argv[optind]);
    if (st == CP_OK && !o->model &&
        (o->arch.kind != CP_ARCH_AUTO || o->arch.act >= 0 || o->arch.residual >= 0))
        st = cli_fail(cmd, CP_FAIL_USAGE,
                      "--arch, --act and --residual describe a --model file; the built-in "
                      "model is always relu with a residual");
    if (st == CP_OK && o->model && (o->d_set || o->layers_set || o->init_scale_set))
        st = cli_fail(cmd, CP_FAIL_USAGE,
                      "--%s: the --model file sets the model's shape and weights",
                      o->d_set        ? "d-model"
                      : o->layers_set ? "layers"
                                      : "init-scale");
    return st;
}

/* --input: float32 [batch, in]; it sets the batch. Without --model its width is d. */
static int load_input(struct job *j)
{
    struct job_opts *o = &j->o;
    if (!o->input)
        return CP_OK;
    cp_npy a;
    int st = cp_npy_read(o->input, &a);
    if (st != CP_OK)
        return cli_fail(j->cmd, st, "--input: %s", cp_err_msg());
    const char *why = NULL;
    if (a.dtype != CP_F32)
        why = "must be float32 (<f4)";
    else if (a.ndim != 2)
        why = "must be 2-D [batch, width]";
    else if (a.shape[0] == 0 || a.shape[0] > 16777216 || a.shape[1] == 0)
        why = "must have between 1 and 16777216 rows and a width of at least 1";
    if (why) {
        char shape[96] = "";
        for (int k = 0, n = 0; k < a.ndim && n < (int)sizeof shape; ++k)
            n += snprintf(shape + n, sizeof shape - (size_t)n, "%s%zu", k ? ", " : "", a.shape[k]);
        const char *descr = cp_dtype_descr(a.dtype);
        cp_npy_free(&a);
        return cli_fail(j->cmd, CP_FAIL_USAGE, "--input: %s: %s [%s]: it %s", o->input, descr,
                        shape, why);
    }
    size_t rows = a.shape[0], width = a.shape[1];
    size_t want = o->model ? (size_t)cp_job_model(j->cj)->in_width : (size_t)o->d;
    if (o->batch_set && (size_t)o->batch != rows)
        st = cli_fail(j->cmd, CP_FAIL_USAGE,
                      "--batch %ld conflicts with --input %s, which holds %zu rows", o->batch,
                      o->input, rows);
    else if ((o->model || o->d_set) && width != want)
        st = cli_fail(j->cmd, CP_FAIL_USAGE, "--input: %s has width %zu, but the %s takes %zu",
                      o->input, width, o->model ? "model" : "--d-model", want);
    else if (!o->model && width > 65536)
        st = cli_fail(j->cmd, CP_FAIL_USAGE, "--input: %s has width %zu, above --d-model's 65536",
                      o->input, width);
    if (st != CP_OK) {
        cp_npy_free(&a);
        return st;
    }
    o->batch = (long)rows;
    if (!o->model)
        o->d = (long)width;
    st = cp_job_set_input(j->cj, a.data, (long)rows, (long)width);
    cp_npy_free(&a);
    return st == CP_OK ? CP_OK : cli_fail(j->cmd, st, "--input: %s", cp_err_msg());
}

/* --labels: int32 or int64 class ids, one per input row, each a class of the model. */
static int load_labels(struct job *j)
{
    struct job_opts *o = &j->o;
    cp_npy a;
    int st = cp_npy_read(o->labels, &a);
    if (st != CP_OK)
        return cli_fail(j->cmd, st, "--labels: %s", cp_err_msg());
    if (a.dtype != CP_I32 && a.dtype != CP_I64)
        st = cli_fail(j->cmd, CP_FAIL_USAGE, "--labels: %s is %s; class ids must be int32 or int64",
                      o->labels, cp_dtype_descr(a.dtype));
    else if (a.ndim != 1 || a.shape[0] != (size_t)o->batch)
        st = cli_fail(j->cmd, CP_FAIL_USAGE,
                      "--labels: %s must be 1-D with one id per input (%ld), not %d-D with %zu "
                      "elements",
                      o->labels, o->batch, a.ndim, a.count);
    if (st != CP_OK) {
        cp_npy_free(&a);
        return st;
    }
    int out_width = o->model ? cp_job_model(j->cj)->out_width : (int)o->d;
    j->labels = malloc((a.count ? a.count : 1) * sizeof *j->labels);
    if (!j->labels) {
        cp_npy_free(&a);
        return cli_fail(j->cmd, CP_FAIL_RUNTIME, "out of memory for the labels");
    }
    for (size_t i = 0; i < a.count && st == CP_OK; ++i) {
        int64_t v = a.dtype == CP_I32 ? ((const int32_t *)a.data)[i] : ((const int64_t *)a.data)[i];
        if (v < 0 || v >= out_width)
            st = cli_fail(j->cmd, CP_FAIL_USAGE,
                          "--labels: %s: label %lld at row %zu is not a class of the model's %d "
                          "outputs",
                          o->labels, (long long)v, i, out_width);
        j->labels[i] = v;
    }
    cp_npy_free(&a);
    return st;
}

/* The library's reading of the options. */
static void lib_opts(const struct job_opts *o, cp_job_opts *c)
{
    cp_job_opts_default(c);
    c->selectors = (const char *const *)o->sels;
    c->n_selectors = o->nsel;
    c->engines = o->engines;
    c->d = o->d;
    c->layers = o->layers;
    c->batch = o->batch;
    c->seed = o->seed;
    c->init_scale = o->init_scale;
    c->runs = o->runs;
    c->warmup = o->warmup;
    c->compare = o->compare;
    c->equal_nan = o->equal_nan;
    c->invariance = o->invariance;
    c->allow_slow = o->allow_slow;
    c->no_reference = o->no_reference;
    c->hash_early = o->json || o->save; /* only the JSON and index.json show the hashes */
    c->model_file = o->model;
    c->input_file = o->input;
    c->labels_file = o->labels;
}

/* The order of the checks is the command line's: the output paths, the devices and engines,
 * the files, then what the library checks before any work. */
int job_prepare(struct job *j, const char *cmd, const struct job_opts *o)
{
    memset(j, 0, sizeof *j);
    j->cmd = cmd;
    j->o = *o;
    o = &j->o; /* --input may set the batch */
    if (o->save && cli_check_output_dir(cmd, o->save) != CP_OK)
        return CP_FAIL_RUNTIME;
    if (o->json && cli_check_output_file(cmd, "--json", o->json) != CP_OK)
        return CP_FAIL_RUNTIME;
    cp_job_opts c;
    lib_opts(o, &c);
    int st = cp_job_create(&c, &j->cj);
    if (st != CP_OK)
        return cli_fail(cmd, st, "%s", cp_err_msg());
    st = cp_job_select_devices(j->cj);
    if (st != CP_OK) {
        cli_fail(cmd, st, "%s", cp_err_msg());
        if (cp_job_devices(j->cj)) { /* a selector matched nothing */
            fprintf(stderr, "available devices:\n");
            cp_devlist_print(cp_job_devices(j->cj), stderr);
        }
        return st;
    }
    st = cp_job_select_engines(j->cj);
    if (st != CP_OK)
        return cli_fail(cmd, st, "%s", cp_err_msg());
    if (o->model) {
        cp_model m;
        const char *arch_from;
        char sha[65];
        st = cli_load_model(cmd, o->model, &o->arch, &m, &arch_from, sha);
        if (st != CP_OK)
            return st;
        st = cp_job_set_model(j->cj, &m, arch_from, sha);
        cp_model_free(&m);
        if (st != CP_OK)
            return cli_fail(cmd, st, "%s", cp_err_msg());
    }
    st = load_input(j);
    if (st == CP_OK && o->labels)
        st = load_labels(j);
    if (st != CP_OK)
        return st;
    st = cp_job_prepare(j->cj);
    if (st != CP_OK)
        return cli_fail(cmd, st, "%s", cp_err_msg());
    size_t nres = cp_job_result_count(j->cj);
    if (o->out && nres != 1)
        return cli_fail(cmd, CP_FAIL_USAGE,
                        "--out writes one result, but this job has %zu (devices x engines); use "
                        "--save DIR for several, or narrow -d and --engines to one",
                        nres);
    if (o->out && cli_check_output_file(cmd, "--out", o->out) != CP_OK)
        return CP_FAIL_RUNTIME;
    return CP_OK;
}

int job_execute(struct job *j)
{
    int st = cp_job_run(j->cj);
    if (st != CP_OK) {
        cli_fail(j->cmd, st, "%s", cp_err_msg());
        cli_print_build_log();
    }
    return st;
}

void job_free(struct job *j)
{
    cp_job_destroy(j->cj);
    free(j->labels);
    free(j->o.sels);
    memset(j, 0, sizeof *j);
}

int job_write_out(const struct job *j)
{
    if (!j->o.out || cp_job_result_count(j->cj) != 1)
        return CP_OK;
    int st = cp_job_write_output(j->cj, 0, j->o.out);
    return st == CP_OK ? CP_OK : cli_fail(j->cmd, st, "--out: %s", cp_err_msg());
}

int job_save(const struct job *j)
{
    int st = cp_job_save(j->cj, j->o.save);
    return st == CP_OK ? CP_OK : cli_fail(j->cmd, st, "%s", cp_err_msg());
}

void *job_json(const struct job *j)
{
    cJSON *root = cp_job_json(j->cj);
    struct labels_in lab = labels_of_job(j);
    if (root && j->labels)
        cJSON_AddItemToObject(root, "labels", labels_json(&lab));
    return root;
}
