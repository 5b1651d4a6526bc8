#include "job.h"

#include "cli.h"
#include "compare.h"
#include "labels.h"

#include "clparity/npy.h"
#include "clparity/report.h"
#include "clparity/select.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
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
    o->expect = -1; /* CMP_EXPECT_NONE */
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
            else if (cmp_parse_expect(optarg, &o->expect) != CP_OK)
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

static void fmt_bytes(unsigned long long b, char *buf, size_t len)
{
    if (b >= (1ULL << 30))
        snprintf(buf, len, "%.2f GiB", (double)b / (double)(1ULL << 30));
    else
        snprintf(buf, len, "%.1f MiB", (double)b / (double)(1ULL << 20));
}

/* Host memory: the model, the input, every result and the reference, plus the largest
 * engine's working set in host memory (engines run one at a time): a host engine's, or an
 * OpenCL engine's on a CPU device, whose buffers are host memory too. */
static int check_host_memory(struct job *j, size_t nres_f32, size_t nres_f64)
{
    const cp_model *m = &j->model;
    unsigned long long b = (unsigned long long)j->o.batch;
    unsigned long long need =
        (unsigned long long)m->n_params * 4ULL + b * (unsigned long long)m->in_width * 4ULL +
        b * (unsigned long long)m->out_width * (4ULL * nres_f32 + 8ULL * (nres_f64 + 1));
    unsigned long long eng_max = 0;
    for (size_t i = 0; i < j->nres; ++i) {
        unsigned long long tot =
            cp_engine_host_footprint(j->res[i].eng, j->res[i].dev, m, (int)j->o.batch);
        eng_max = tot > eng_max ? tot : eng_max;
    }
    /* The hidden reference (or baseline, never both at once) runs on a second thread while
     * the first result's engine is built: its working set comes on top. */
    if (j->nres > 0 && !j->o.no_reference)
        eng_max +=
            cp_engine_host_footprint(cp_engine_find("host:f64"), j->res[0].dev, m, (int)j->o.batch);
    need += eng_max;
    unsigned long long avail = cp_host_mem_available();
    if (avail && need > avail) {
        char a[32], n[32];
        fmt_bytes(need, n, sizeof n);
        fmt_bytes(avail, a, sizeof a);
        return cli_fail(j->cmd, CP_FAIL_USAGE,
                        "model too large for host memory: needs %s (%llu bytes) > MemAvailable "
                        "%s (%llu bytes)",
                        n, need, a, avail);
    }
    return CP_OK;
}

/* --model: the safetensors file, its architecture and its SHA-256. */
static int load_model_file(struct job *j)
{
    int st =
        cli_load_model(j->cmd, j->o.model, &j->o.arch, &j->model, &j->arch_from, j->model_sha256);
    if (st != CP_OK)
        return st;
    j->model.seed = j->o.seed;
    j->model.init_scale = 1.0f;
    return CP_OK;
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
    size_t want = o->model ? (size_t)j->model.in_width : (size_t)o->d;
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
    j->x = a.data; /* the job owns it now */
    return CP_OK;
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
    j->labels = malloc((a.count ? a.count : 1) * sizeof *j->labels);
    if (!j->labels) {
        cp_npy_free(&a);
        return cli_fail(j->cmd, CP_FAIL_RUNTIME, "out of memory for the labels");
    }
    for (size_t i = 0; i < a.count && st == CP_OK; ++i) {
        int64_t v = a.dtype == CP_I32 ? ((const int32_t *)a.data)[i] : ((const int64_t *)a.data)[i];
        if (v < 0 || v >= j->model.out_width)
            st = cli_fail(j->cmd, CP_FAIL_USAGE,
                          "--labels: %s: label %lld at row %zu is not a class of the model's %d "
                          "outputs",
                          o->labels, (long long)v, i, j->model.out_width);
        j->labels[i] = v;
    }
    cp_npy_free(&a);
    return st;
}

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
    int st = cli_select_devices(cmd, o->sels, o->nsel, &j->devs, &j->chosen);
    if (st != CP_OK)
        return st;
    j->use = calloc(cp_engine_count(), sizeof *j->use);
    if (!j->use)
        return cli_fail(cmd, CP_FAIL_RUNTIME, "out of memory");
    st = cli_select_engines(cmd, o->engines, &j->devs, j->chosen, j->use);
    if (st != CP_OK)
        return st;

    if (o->model) {
        st = load_model_file(j);
        if (st != CP_OK)
            return st;
    }
    st = load_input(j);
    if (st != CP_OK)
        return st;
    if (!o->model) {
        st = cp_model_builtin_shape(&j->model, (int)o->d, (int)o->layers, o->seed,
                                    (float)o->init_scale);
        if (st != CP_OK)
            return cli_fail(cmd, st, "%s", cp_err_msg());
    }
    if (o->labels) {
        st = load_labels(j);
        if (st != CP_OK)
            return st;
    }

    /* The results, in device order and then engine order. */
    size_t nf32 = 0, nf64 = 0;
    j->res = calloc(j->devs.n * cp_engine_count(), sizeof *j->res);
    if (!j->res)
        return cli_fail(cmd, CP_FAIL_RUNTIME, "out of memory");
    double macs = cp_model_macs(&j->model, (int)o->batch);
    for (size_t i = 0; i < j->devs.n; ++i) {
        const cp_device *dev = &j->devs.v[i];
        if (!j->chosen[i])
            continue;
        bool any = false;
        for (size_t e = 0; e < cp_engine_count(); ++e) {
            const cp_engine_info *info = cp_engine_at(e);
            if (!j->use[e] || info->kind != dev->kind)
                continue;
            st = cp_engine_check_memory(info, dev, &j->model, (int)o->batch);
            if (st != CP_OK)
                return cli_fail(cmd, st, "%s", cp_err_msg());
            struct job_result *r = &j->res[j->nres++];
            r->dev = dev;
            r->eng = info;
            any = true;
            if (info->dtype == CP_F64)
                nf64++;
            else
                nf32++;
        }
        double total = macs * (double)(o->runs + o->warmup);
        if (any && dev->simulator && !o->allow_slow && total > CP_SIMULATOR_MAC_LIMIT)
            return cli_fail(cmd, CP_FAIL_USAGE,
                            "%d:%d %s is a simulator: this run needs %.3g multiply-adds on it "
                            "(%.3g per forward x %ld runs), over its limit of %.3g; pass "
                            "--allow-slow, or use a smaller model or fewer --runs/--warmup",
                            dev->plat_idx, dev->dev_idx, dev->name, total, macs,
                            o->runs + o->warmup, CP_SIMULATOR_MAC_LIMIT);
    }
    st = check_host_memory(j, nf32, nf64);
    if (st != CP_OK)
        return st;
    if (o->out && j->nres != 1)
        return cli_fail(cmd, CP_FAIL_USAGE,
                        "--out writes one result, but this job has %zu (devices x engines); use "
                        "--save DIR for several, or narrow -d and --engines to one",
                        j->nres);
    if (o->out && cli_check_output_file(cmd, "--out", o->out) != CP_OK)
        return CP_FAIL_RUNTIME;

    /* Everything that could refuse the job has been checked: now the work. */
    st = o->model ? CP_OK : cp_model_builtin_generate(&j->model);
    if (st == CP_OK && !j->x)
        st = cp_model_input((int)o->batch, j->model.in_width, o->seed, &j->x);
    if (st != CP_OK)
        return cli_fail(cmd, st, "%s", cp_err_msg());
    return CP_OK;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static struct job_stats stats_of(double *v, size_t n)
{
    struct job_stats s = {0.0, 0.0, 0.0};
    if (!n)
        return s;
    qsort(v, n, sizeof *v, cmp_double);
    s.min = v[0];
    s.max = v[n - 1];
    s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    return s;
}

static double median_of(double *v, size_t n)
{
    return stats_of(v, n).median;
}

/* Batch invariance: each of the first rows alone against the same row in the batch.
 * Thread invariance: host:openblas on one thread against all of them. */
static int check_invariance(struct job *j, struct job_result *r, cp_engine *e)
{
    const cp_model *m = &j->model;
    size_t esz = cp_dtype_size(r->eng->dtype), out_bytes = (size_t)m->out_width * esz;
    int batch = (int)j->o.batch;
    unsigned char *y1 = malloc((size_t)batch * out_bytes);
    if (!y1)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory for the invariance check");
    cp_timing tm;
    int st = CP_OK;
    if (batch > 1) {
        long rows = batch < 32 ? batch : 32;
        r->batch_inv_equal = 0;
        for (long row = 0; row < rows && st == CP_OK; ++row) {
            st = cp_engine_forward(e, j->x + (size_t)row * (size_t)m->in_width, 1, y1, &tm);
            r->batch_inv_equal +=
                st == CP_OK &&
                memcmp(y1, (unsigned char *)r->y + (size_t)row * out_bytes, out_bytes) == 0;
        }
        r->batch_inv_checked = rows;
    }
    if (st == CP_OK && strcmp(r->eng->name, "host:openblas") == 0) {
        int all = cp_host_blas_threads(1);
        st = cp_engine_forward(e, j->x, batch, y1, &tm);
        cp_host_blas_threads(all);
        r->thread_inv = st == CP_OK && memcmp(y1, r->y, (size_t)batch * out_bytes) == 0;
    }
    free(y1);
    return st;
}

/* One device × engine: create, warm up, time, keep the last output, destroy. */
static int bg_join(struct job *j);

static int run_result(struct job *j, struct job_result *r)
{
    const cp_model *m = &j->model;
    int batch = (int)j->o.batch;
    size_t out_n = (size_t)batch * (size_t)m->out_width;
    size_t bytes = out_n * cp_dtype_size(r->eng->dtype);
    long total = j->o.warmup + j->o.runs;
    double *t = calloc((size_t)j->o.runs * 4, sizeof *t);
    r->y = malloc(bytes ? bytes : 1);
    if (!t || !r->y) {
        free(t);
        return cli_fail(j->cmd, CP_FAIL_RUNTIME, "out of memory for %s results", r->eng->name);
    }
    double *wall = t, *kern = t + j->o.runs, *h2d = t + 2 * j->o.runs, *d2h = t + 3 * j->o.runs;
    cp_engine *e = NULL;
    char label[300];
    cp_device_label(r->dev, label, sizeof label);
    int st = cp_engine_create(r->eng, r->dev, m, batch, &e);
    int bg_st = bg_join(j);
    if (st != CP_OK) {
        st = cli_fail(j->cmd, st, "%s on %s: %s", r->eng->name, label, cp_err_msg());
        cli_print_build_log();
        goto out;
    }
    if (bg_st != CP_OK) {
        st = bg_st;
        goto out;
    }
    r->build_s = cp_engine_build_seconds(e);
    r->upload_s = cp_engine_upload_seconds(e);
    r->build_cache = cp_engine_build_cache(e);
    snprintf(r->build_cache_note, sizeof r->build_cache_note, "%s", cp_engine_build_cache_note(e));
    if (cp_engine_build_options(e)[0])
        snprintf(j->build_options, sizeof j->build_options, "%s", cp_engine_build_options(e));
    r->deterministic = true;
    bool kernel_known = true;
    for (long i = 0; i < total; ++i) {
        cp_timing tm;
        st = cp_engine_forward(e, j->x, batch, r->y, &tm);
        if (st != CP_OK) {
            st = cli_fail(j->cmd, st, "%s on %s: %s", r->eng->name, label, cp_err_msg());
            goto out;
        }
        uint64_t h = cp_hash_fnv1a(r->y, bytes);
        if (i > 0 && h != r->hash)
            r->deterministic = false;
        r->hash = h;
        if (i < j->o.warmup)
            continue;
        long k = i - j->o.warmup;
        wall[k] = tm.wall_s;
        kern[k] = tm.kernel_s;
        h2d[k] = tm.h2d_s;
        d2h[k] = tm.d2h_s;
        if (tm.kernel_s < 0.0)
            kernel_known = false;
    }
    r->roundtrip = -1;
    r->batch_inv_checked = -1;
    r->thread_inv = -1;
    if (j->o.compare) {
        st = cp_engine_roundtrip(e, &r->roundtrip);
        if (st == CP_OK && j->o.invariance)
            st = check_invariance(j, r, e);
        if (st != CP_OK) {
            st = cli_fail(j->cmd, st, "%s on %s: %s", r->eng->name, label, cp_err_msg());
            goto out;
        }
    }
    r->wall = stats_of(wall, (size_t)j->o.runs);
    r->kernel_median = kernel_known ? median_of(kern, (size_t)j->o.runs) : -1.0;
    r->h2d_median = median_of(h2d, (size_t)j->o.runs);
    r->d2h_median = median_of(d2h, (size_t)j->o.runs);
out:
    cp_engine_destroy(e);
    free(t);
    return st;
}

static const cp_device *host_device(const struct job *j)
{
    for (size_t i = 0; i < j->devs.n; ++i)
        if (j->devs.v[i].kind == CP_DEV_HOST)
            return &j->devs.v[i];
    return NULL;
}

/* An engine the user did not list but the job needs: the reference or the baseline. */
static int run_hidden(struct job *j, const char *name, void **out)
{
    const cp_model *m = &j->model;
    const cp_engine_info *info = cp_engine_find(name);
    size_t n = (size_t)j->o.batch * (size_t)m->out_width;
    void *y = malloc(n * cp_dtype_size(info->dtype));
    cp_engine *e = NULL;
    cp_timing tm;
    if (!y)
        return cli_fail(j->cmd, CP_FAIL_RUNTIME, "out of memory for %s", name);
    int st = cp_engine_create(info, host_device(j), m, (int)j->o.batch, &e);
    if (st == CP_OK)
        st = cp_engine_forward(e, j->x, (int)j->o.batch, y, &tm);
    cp_engine_destroy(e);
    if (st != CP_OK) {
        free(y);
        return cli_fail(j->cmd, st, "%s: %s", name, cp_err_msg());
    }
    *out = y;
    return CP_OK;
}

struct bg_work {
    pthread_t thread;
    struct job *j;
    bool threaded; /* false: bg_main ran in the caller */
    bool want_ref, want_base, want_hashes;
    double *ref;
    float *base;
    int st;
};

/* The SHA-256 of the input and of the weights, as hex: the JSON's and index.json's. */
static void hash_inputs(const struct job *j, char in_hex[65], char w_hex[65])
{
    cli_sha256_hex(j->x, (size_t)j->o.batch * (size_t)j->model.in_width * sizeof(float), in_hex);
    cli_sha256_hex(j->model.params, j->model.n_params * sizeof(float), w_hex);
}

static void *bg_main(void *arg)
{
    struct bg_work *w = arg;
    struct job *j = w->j;
    w->st = CP_OK;
    if (w->want_ref)
        w->st = run_hidden(j, "host:f64", (void **)&w->ref);
    if (w->st == CP_OK && w->want_base)
        w->st = run_hidden(j, "host:exact", (void **)&w->base);
    if (w->want_hashes)
        hash_inputs(j, j->input_sha256, j->weights_sha256);
    return NULL;
}

/* Starts bg_main on a second thread; where no thread can be had, it runs here and now. */
static void bg_start(struct job *j)
{
    struct bg_work *w = calloc(1, sizeof *w);
    if (!w)
        return; /* job_execute computes what is missing itself */
    w->j = j;
    bool ref_listed = false, base_listed = false;
    for (size_t i = 0; i < j->nres; ++i) {
        ref_listed = ref_listed || j->res[i].eng->dtype == CP_F64;
        base_listed = base_listed || strcmp(j->res[i].eng->name, "host:exact") == 0;
    }
    w->want_ref = !ref_listed && !j->o.no_reference;
    w->want_base = j->o.compare && !base_listed && !j->o.no_reference;
    w->want_hashes = j->o.json || j->o.save; /* only the JSON and index.json show them */
    w->threaded = pthread_create(&w->thread, NULL, bg_main, w) == 0;
    if (!w->threaded)
        bg_main(w);
    j->bg = w;
}

/* Waits for bg_main and takes its outputs; CP_OK when there was none to wait for. */
static int bg_join(struct job *j)
{
    struct bg_work *w = j->bg;
    if (!w)
        return CP_OK;
    if (w->threaded)
        pthread_join(w->thread, NULL);
    j->bg = NULL;
    int st = w->st;
    if (w->ref)
        j->ref = w->ref;
    if (w->base)
        j->base = w->base;
    free(w);
    return st;
}

int job_execute(struct job *j)
{
    int st = CP_OK;
    bg_start(j);
    for (size_t i = 0; i < j->nres && st == CP_OK; ++i) {
        st = run_result(j, &j->res[i]);
        if (st == CP_OK && j->res[i].eng->dtype == CP_F64 && !j->ref)
            j->ref = j->res[i].y;
    }
    int bg_st = bg_join(j);
    if (st != CP_OK)
        return st;
    if (bg_st != CP_OK)
        return bg_st;
    if (!j->ref && j->o.no_reference)
        return CP_OK; /* no reference: no metrics, and the table says n/a */
    if (!j->ref) {
        /* host:f64 was not asked for as a result: it still is the reference. */
        st = run_hidden(j, "host:f64", (void **)&j->ref);
        if (st != CP_OK)
            return st;
    }
    for (size_t i = 0; i < j->nres && j->o.compare; ++i)
        if (strcmp(j->res[i].eng->name, "host:exact") == 0 && !j->base)
            j->base = j->res[i].y;
    if (j->o.compare && !j->base) {
        /* host:exact was not asked for: it still is the baseline. */
        st = run_hidden(j, "host:exact", (void **)&j->base);
        if (st != CP_OK)
            return st;
    }
    for (size_t i = 0; i < j->nres; ++i) {
        struct job_result *r = &j->res[i];
        if (r->eng->dtype != CP_F32)
            continue;
        st = cp_metrics_compute(r->y, j->ref, (size_t)j->o.batch, (size_t)j->model.out_width,
                                j->o.equal_nan, &r->m);
        if (st != CP_OK)
            return cli_fail(j->cmd, st, "%s", cp_err_msg());
    }
    return CP_OK;
}

static bool is_result(const struct job *j, const void *y)
{
    for (size_t i = 0; i < j->nres; ++i)
        if (j->res[i].y == y)
            return true;
    return false;
}

void job_free(struct job *j)
{
    if (j->ref && !is_result(j, j->ref))
        free(j->ref);
    if (j->base && !is_result(j, j->base))
        free(j->base);
    for (size_t i = 0; i < j->nres; ++i)
        free(j->res[i].y);
    free(j->res);
    free(j->x);
    free(j->labels);
    cp_model_free(&j->model);
    free(j->use);
    free(j->chosen);
    cp_devlist_free(&j->devs);
    free(j->o.sels);
    memset(j, 0, sizeof *j);
}

void job_result_file(const struct job_result *r, char *buf, size_t len)
{
    char tag[32], eng[64];
    cp_device_tag(r->dev, tag, sizeof tag);
    snprintf(eng, sizeof eng, "%s", r->eng->name);
    for (char *c = eng; *c; ++c)
        if (*c == ':')
            *c = '-';
    snprintf(buf, len, "%s.%s.npy", tag, eng);
}

static cJSON *model_json(const struct job *j)
{
    cJSON *m = cJSON_CreateObject();
    if (!m)
        return NULL;
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)j->o.seed);
    if (j->o.model) {
        /* A model file is recorded by path and SHA-256, not saved again. */
        char desc[1024];
        cp_model_describe(&j->model, desc, sizeof desc);
        cJSON_AddStringToObject(m, "arch", "file");
        cJSON_AddStringToObject(m, "file", j->o.model);
        cJSON_AddStringToObject(m, "model_sha256", j->model_sha256);
        cJSON_AddStringToObject(m, "layers_summary", desc);
        cJSON_AddStringToObject(m, "arch_from", j->arch_from);
        cJSON_AddNumberToObject(m, "in", j->model.in_width);
        cJSON_AddNumberToObject(m, "out", j->model.out_width);
        cJSON_AddNumberToObject(m, "layers", j->model.n_layers);
    } else {
        cJSON_AddStringToObject(m, "arch", "dumb");
        cJSON_AddNumberToObject(m, "d", j->model.d);
        cJSON_AddNumberToObject(m, "layers", j->model.n_layers);
        cJSON_AddNumberToObject(m, "init_scale", j->o.init_scale);
    }
    cJSON_AddNumberToObject(m, "batch", (double)j->o.batch);
    cJSON_AddStringToObject(m, "seed", seed); /* a string: a u64 does not fit a double */
    if (j->o.input)
        cJSON_AddStringToObject(m, "input", j->o.input);
    if (j->o.labels)
        cJSON_AddStringToObject(m, "labels", j->o.labels);
    const char *in_hex = j->input_sha256, *w_hex = j->weights_sha256;
    char in_buf[65], w_buf[65];
    if (!in_hex[0]) { /* not hashed while the engines ran */
        hash_inputs(j, in_buf, w_buf);
        in_hex = in_buf;
        w_hex = w_buf;
    }
    cJSON_AddStringToObject(m, "input_sha256", in_hex);
    cJSON_AddStringToObject(m, "weights_sha256", w_hex);
    return m;
}

void job_print_model(FILE *f, const struct job *j)
{
    char src[64];
    if (j->o.input)
        snprintf(src, sizeof src, "inputs from --input");
    else
        snprintf(src, sizeof src, "seed %llu", (unsigned long long)j->o.seed);
    if (!j->o.model) {
        fprintf(f,
                "model: %ld blocks y = x + relu(x·Wᵀ), d=%ld, batch %ld, %s, init-scale %g "
                "(%.4g multiply-adds per forward)\n",
                j->o.layers, j->o.d, j->o.batch, src, j->o.init_scale,
                cp_model_macs(&j->model, (int)j->o.batch));
        return;
    }
    char desc[1024];
    cp_model_describe(&j->model, desc, sizeof desc);
    fprintf(f, "model: %s (sha256 %.16s...), %d Linear layers: %s; architecture from %s\n",
            j->o.model, j->model_sha256, j->model.n_layers, desc, j->arch_from);
    fprintf(f, "       batch %ld, %s (%.4g multiply-adds per forward)\n", j->o.batch, src,
            cp_model_macs(&j->model, (int)j->o.batch));
}

int job_write_out(const struct job *j)
{
    if (!j->o.out || j->nres != 1)
        return CP_OK;
    const struct job_result *r = &j->res[0];
    size_t shape[2] = {(size_t)j->o.batch, (size_t)j->model.out_width};
    int st = cp_npy_write(j->o.out, r->eng->dtype, 2, shape, r->y);
    return st == CP_OK ? CP_OK : cli_fail(j->cmd, st, "--out: %s", cp_err_msg());
}

static cJSON *device_json(const cp_device *d)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    char buf[300];
    cp_device_tag(d, buf, sizeof buf);
    cJSON_AddStringToObject(o, "id", buf);
    cp_device_label(d, buf, sizeof buf);
    cJSON_AddStringToObject(o, "label", buf);
    cJSON_AddStringToObject(o, "name", d->name);
    cJSON_AddStringToObject(o, "platform", d->platform);
    cJSON_AddStringToObject(o, "driver", d->driver);
    if (d->kind == CP_DEV_OPENCL) {
        cp_fp_config_str(d->fp32, buf, sizeof buf);
        cJSON_AddStringToObject(o, "fp32_config", buf);
        cJSON_AddStringToObject(o, "profile", d->profile);
        cJSON_AddBoolToObject(o, "simulator", d->simulator);
    } else {
        cJSON_AddStringToObject(o, "blas_core", d->blas_core);
        cJSON_AddNumberToObject(o, "blas_threads", d->blas_threads);
    }
    return o;
}

static void add_num_or_null(cJSON *o, const char *key, double v)
{
    if (v < 0.0 || !isfinite(v))
        cJSON_AddNullToObject(o, key);
    else
        cJSON_AddNumberToObject(o, key, v);
}

static cJSON *result_json(const struct job *j, const struct job_result *r)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    char buf[128];
    cJSON_AddItemToObject(o, "device", device_json(r->dev));
    cJSON_AddStringToObject(o, "engine", r->eng->name);
    cJSON_AddStringToObject(o, "dtype", cp_dtype_descr(r->eng->dtype));
    snprintf(buf, sizeof buf, "%016llx", (unsigned long long)r->hash);
    cJSON_AddStringToObject(o, "hash", buf);
    cJSON_AddBoolToObject(o, "deterministic", r->deterministic);
    cJSON *t = cJSON_AddObjectToObject(o, "timing");
    if (t) {
        cJSON_AddNumberToObject(t, "wall_median_s", r->wall.median);
        cJSON_AddNumberToObject(t, "wall_min_s", r->wall.min);
        cJSON_AddNumberToObject(t, "wall_max_s", r->wall.max);
        add_num_or_null(t, "kernel_median_s", r->kernel_median);
        cJSON_AddNumberToObject(t, "h2d_median_s", r->h2d_median);
        cJSON_AddNumberToObject(t, "d2h_median_s", r->d2h_median);
        cJSON_AddNumberToObject(t, "build_s", r->build_s);
        if (cp_cache_state_name(r->build_cache))
            cJSON_AddStringToObject(t, "build_cache", cp_cache_state_name(r->build_cache));
        else
            cJSON_AddNullToObject(t, "build_cache"); /* host engines build no program */
        cJSON_AddNumberToObject(t, "upload_s", r->upload_s);
        cJSON_AddNumberToObject(t, "runs", (double)j->o.runs);
        cJSON_AddNumberToObject(t, "warmup", (double)j->o.warmup);
        double gflops = r->wall.median > 0.0
                            ? 2.0 * cp_model_macs(&j->model, (int)j->o.batch) / r->wall.median / 1e9
                            : -1.0;
        add_num_or_null(t, "gflops", gflops);
    }
    if (j->o.compare)
        return o; /* compare's metrics live in "comparison" */
    if (r->eng->dtype != CP_F32 || !j->ref) {
        cJSON_AddNullToObject(o, "metrics"); /* the reference itself */
        return o;
    }
    const cp_metrics *m = &r->m;
    cJSON *mj = cJSON_AddObjectToObject(o, "metrics");
    if (!mj)
        return o;
    cJSON_AddNumberToObject(mj, "compared", (double)m->compared);
    add_num_or_null(mj, "max_ulp", m->compared ? (double)m->max_ulp : -1.0);
    add_num_or_null(mj, "median_ulp", m->compared ? m->median_ulp : -1.0);
    add_num_or_null(mj, "max_abs", m->max_abs);
    add_num_or_null(mj, "max_rel", m->max_rel);
    add_num_or_null(mj, "rel_to_max", m->rel_to_max);
    add_num_or_null(mj, "norm_rel", m->norm_rel);
    cJSON_AddNumberToObject(mj, "bitwise", m->bitwise);
    cJSON_AddNumberToObject(mj, "argmax", m->argmax);
    cJSON_AddNumberToObject(mj, "nan", (double)m->nan);
    cJSON_AddNumberToObject(mj, "inf", (double)m->inf);
    cJSON_AddNumberToObject(mj, "nan_mismatch", (double)m->nan_mismatch);
    cJSON *w = cJSON_AddObjectToObject(mj, "worst");
    if (w) {
        cJSON_AddNumberToObject(w, "index", (double)m->worst);
        snprintf(buf, sizeof buf, "%a", (double)m->worst_a);
        cJSON_AddStringToObject(w, "value_hex", buf);
        snprintf(buf, sizeof buf, "%a", m->worst_r);
        cJSON_AddStringToObject(w, "reference_hex", buf);
        snprintf(buf, sizeof buf, "%.9g", (double)m->worst_a);
        cJSON_AddStringToObject(w, "value", buf);
        snprintf(buf, sizeof buf, "%.17g", m->worst_r);
        cJSON_AddStringToObject(w, "reference", buf);
    }
    return o;
}

void *job_json(const struct job *j)
{
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    cJSON_AddNumberToObject(root, "schema", 1);
    cJSON_AddItemToObject(root, "provenance", cp_provenance_json(j->build_options));
    cJSON_AddItemToObject(root, "model", model_json(j));
    if (j->ref)
        cJSON_AddStringToObject(root, "reference", "host:f64");
    else
        cJSON_AddNullToObject(root, "reference"); /* --no-reference */
    cJSON *arr = cJSON_AddArrayToObject(root, "results");
    for (size_t i = 0; arr && i < j->nres; ++i)
        cJSON_AddItemToArray(arr, result_json(j, &j->res[i]));
    if (j->labels)
        cJSON_AddItemToObject(root, "labels", labels_json(j));
    return root;
}

int job_save(const struct job *j)
{
    const char *dir = j->o.save;
    const cp_model *m = &j->model;
    char path[4096];
    size_t shape[3] = {(size_t)j->o.batch, (size_t)m->in_width, 0};
    snprintf(path, sizeof path, "%s/x.npy", dir);
    int st = cp_npy_write(path, CP_F32, 2, shape, j->x);
    if (st == CP_OK && !j->o.model) { /* a model file is recorded in index.json instead */
        size_t wshape[3] = {(size_t)m->n_layers, (size_t)m->d, (size_t)m->d};
        snprintf(path, sizeof path, "%s/weights.npy", dir);
        st = cp_npy_write(path, CP_F32, 3, wshape, m->params);
    }
    /* The reference (and compare's baseline) always, listed or not: diff needs them. */
    size_t yshape[2] = {(size_t)j->o.batch, (size_t)m->out_width};
    size_t out_n = (size_t)j->o.batch * (size_t)m->out_width;
    if (st == CP_OK && j->ref) {
        snprintf(path, sizeof path, "%s/reference.npy", dir);
        st = cp_npy_write(path, CP_F64, 2, yshape, j->ref);
    }
    if (st == CP_OK && j->base) {
        snprintf(path, sizeof path, "%s/baseline.npy", dir);
        st = cp_npy_write(path, CP_F32, 2, yshape, j->base);
    }
    cJSON *index = cJSON_CreateObject();
    cJSON *results = index ? cJSON_AddArrayToObject(index, "results") : NULL;
    if (!results)
        st = CP_FAIL_RUNTIME;
    for (size_t i = 0; st == CP_OK && i < j->nres; ++i) {
        const struct job_result *r = &j->res[i];
        char file[128], hash[32];
        job_result_file(r, file, sizeof file);
        snprintf(path, sizeof path, "%s/%s", dir, file);
        st = cp_npy_write(path, r->eng->dtype, 2, yshape, r->y);
        cJSON *o = cJSON_CreateObject();
        if (!o)
            break;
        cJSON_AddStringToObject(o, "file", file);
        char label[300];
        cp_device_label(r->dev, label, sizeof label);
        cJSON_AddStringToObject(o, "device", label);
        cJSON_AddStringToObject(o, "platform", r->dev->platform);
        cJSON_AddStringToObject(o, "driver", r->dev->driver);
        cJSON_AddStringToObject(o, "engine", r->eng->name);
        cJSON_AddStringToObject(o, "dtype", cp_dtype_descr(r->eng->dtype));
        snprintf(hash, sizeof hash, "%016llx", (unsigned long long)r->hash);
        cJSON_AddStringToObject(o, "hash", hash);
        cJSON_AddItemToArray(results, o);
    }
    if (st == CP_OK) {
        /* The keys of DESIGN.md's index.json; "results" moves to the end. */
        cJSON_DetachItemViaPointer(index, results);
        cJSON_AddNumberToObject(index, "schema", 1);
        cJSON_AddStringToObject(index, "version", cp_version());
        cJSON_AddItemToObject(index, "provenance", cp_provenance_json(j->build_options));
        cJSON_AddItemToObject(index, "model", model_json(j));
        char hash[32];
        if (j->ref) {
            snprintf(hash, sizeof hash, "%016llx",
                     (unsigned long long)cp_hash_fnv1a(j->ref, out_n * sizeof(double)));
            cJSON *ref = cJSON_AddObjectToObject(index, "reference");
            cJSON_AddStringToObject(ref, "file", "reference.npy");
            cJSON_AddStringToObject(ref, "engine", "host:f64");
            cJSON_AddStringToObject(ref, "hash", hash);
        }
        if (j->base) {
            snprintf(hash, sizeof hash, "%016llx",
                     (unsigned long long)cp_hash_fnv1a(j->base, out_n * sizeof(float)));
            cJSON *base = cJSON_AddObjectToObject(index, "baseline");
            cJSON_AddStringToObject(base, "file", "baseline.npy");
            cJSON_AddStringToObject(base, "engine", "host:exact");
            cJSON_AddStringToObject(base, "hash", hash);
        }
        cJSON_AddItemToObject(index, "results", results);
        snprintf(path, sizeof path, "%s/index.json", dir);
        st = cp_json_write(path, index);
    }
    cJSON_Delete(index);
    if (st != CP_OK)
        return cli_fail(j->cmd, st, "--save: %s", cp_err_msg()[0] ? cp_err_msg() : "out of memory");
    return CP_OK;
}
