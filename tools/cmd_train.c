/* clparity train: SGD (or momentum, Adam, AdamW) on the model with every selected device ×
 * training engine, step by step, and the divergence of their weights from host:exact (the
 * baseline) and host:f64. */
#include "cli.h"
#include "cmds.h"
#include "train_cli.h"
#include "csv.h"
#include "mpi.h"
#include "opts.h"
#include "progress.h"

#include "clparity/error.h"
#include "clparity/gen.h"
#include "clparity/metrics.h"
#include "clparity/model.h"
#include "clparity/npy.h"
#include "clparity/report.h"
#include "clparity/select.h"
#include "clparity/train.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TO(field) OPT_AT(struct opts, field)
#define TO_SHAPE OPT_SEEN(struct opts, shape_set)

static const struct opt_use train_uses[] = {
    {.id = OPT_DEVICE},
    {.id = OPT_ENGINES,
     TO(engines),
     .help = "cl:own, host:exact, host:f64, the correctly rounded cl:cr and\n"
             "host:cr (plain SGD only), the fast GEMMs cl:clblast and\n"
             "host:openblas, close to host:exact but not equal, and\n"
             "cl:relaxed (fast math: its weights may drift) (default: cl:own,\n"
             "host:exact and host:f64 where they apply)"},
    {.id = OPT_MODEL,
     TO(model),
     .help = "a .safetensors model instead (as in run: the post's blocks or an\n"
             "nn.Sequential MLP, biases included); the input (the\n"
             "generator's) and the target have its in and out widths"},
    {.id = OPT_DMODEL, TO(d), TO_SHAPE, .def = "32"},
    {.id = OPT_LAYERS, TO(layers), TO_SHAPE, .def = "4", .min = 1, .max = 100000},
    {.id = OPT_BATCH, TO(batch), .def = "1", .min = 1, .max = 1 << 20},
    {.id = OPT_SEED, TO(seed)},
    {.id = OPT_INIT_SCALE, TO(init_scale), TO_SHAPE},
    {.id = OPT_STEPS, TO(steps)},
    {.id = OPT_LR, TO(lr)},
    {.id = OPT_OPTIMIZER, TO(optimizer)},
    {.id = OPT_MOMENTUM, TO(momentum), OPT_SEEN(struct opts, momentum_set)},
    {.id = OPT_NESTEROV, TO(nesterov)},
    {.id = OPT_BETAS, OPT_SEEN(struct opts, betas_set)},
    {.id = OPT_EPS, TO(eps), OPT_SEEN(struct opts, eps_set)},
    {.id = OPT_WEIGHT_DECAY, TO(weight_decay), OPT_SEEN(struct opts, weight_decay_set)},
    {.id = OPT_TARGET},
    {.id = OPT_EVERY, TO(every)},
    {.id = OPT_PLOT,
     TO(plot),
     .def = "each float32 result's max abs weight difference to host:f64\n"
            "(solid) and to host:exact (dashed, where not 0) against the step,\n"
            "log scale"},
    {.id = OPT_ALLOW_SLOW, TO(allow_slow)},
    {.id = OPT_MPI, TO(mpi)},
    {.id = OPT_JSON, TO(json), .def = "every recorded step and the results"},
    {.id = OPT_CSV, TO(csv), .def = "the recorded steps"},
    {.id = OPT_SAVE,
     TO(save),
     .def = "x.npy, target.npy, the initial weights.npy, the final weights\n"
            "per result (<device>.<engine>.npy), the optimizer's state\n"
            "(<device>.<engine>.exp_avg.npy, ...) and index.json"},
};

static void train_help(void)
{
    printf(
        "usage: clparity train [OPTIONS]\n"
        "\n"
        "Trains the reference model (L blocks y = x + relu(x·Wᵀ), W [d, d]) with plain SGD, or\n"
        "--optimizer momentum, adam or adamw, on an MSE loss (mean over batch × width)\n"
        "against a fixed target, on every selected device × engine, and reports per recorded\n"
        "step the loss and how far each result's weights are from host:exact's (the baseline:\n"
        "max abs, max ULP, bitwise fraction) and from host:f64's. host:exact and host:f64\n"
        "always run: they are the references. cl:own keeps its weights (and the optimizer's\n"
        "state) on the device between steps and follows host:exact's order of operations, so\n"
        "any difference from it is a divergence (exit status 1). cl:cr rounds every sum of\n"
        "plain SGD's step once (docs/TRAINING.md): host:cr runs beside it, and any difference\n"
        "of its weights from host:cr's at a recorded step is a divergence. The optimizers follow\n"
        "PyTorch's single-tensor torch.optim.SGD, Adam and AdamW operation for operation, each\n"
        "rounded to float (docs/TRAINING.md gives the order); options of another optimizer than\n"
        "the one chosen are refused.\n"
        "\n");
    opts_help(stdout, train_uses, sizeof train_uses / sizeof *train_uses);
    printf(
        "\n"
        "After the last step each result's weights are read back, uploaded into fresh memory\n"
        "and run forward again: the output must be bit-identical (the round trip), and\n"
        "cl:own's must equal host:exact's, cl:cr's host:cr's.\n"
        "\n"
        "With adam or adamw, cl:own divides and takes square roots correctly rounded: the\n"
        "device's own where it reports them (-cl-fp32-correctly-rounded-divide-sqrt), else in\n"
        "double (cl_khr_fp64), else in float with an fma correction (docs/TRAINING.md gives\n"
        "the proof), each checked by a probe on the device. The report's div/sqrt lines say\n"
        "which way each device took; CLPARITY_TRAIN_DIVSQRT=device|double|float forces one\n"
        "(status 2 where the device cannot take it). cl:relaxed trains with fast math,\n"
        "native_divide and native_sqrt: its difference from host:exact is reported, never a\n"
        "failure.\n"
        "\n"
        "exit status: 0 success, 1 cl:own diverged from host:exact (weights at a recorded step,\n"
        "or the final optimizer state) or cl:cr from host:cr, a failed round trip, or a\n"
        "non-finite loss, 2 usage or input error, 3 runtime error\n");
}

/* --betas B1,B2: two numbers, each in [0, 1) as PyTorch's Adam requires. */
static int parse_betas(struct opts *o, const char *s)
{
    const char *comma = strchr(s, ',');
    char b1[64];
    if (!comma || (size_t)(comma - s) >= sizeof b1 || strchr(comma + 1, ','))
        return cli_fail(CMD, CP_FAIL_USAGE, "--betas: '%s' is not two numbers B1,B2", s);
    memcpy(b1, s, (size_t)(comma - s));
    b1[comma - s] = '\0';
    double *beta[2] = {&o->beta1, &o->beta2};
    const char *text[2] = {b1, comma + 1};
    for (int i = 0; i < 2; ++i) {
        char *end;
        errno = 0;
        double v = strtod(text[i], &end);
        if (end == text[i] || *end != '\0' || errno == ERANGE)
            return cli_fail(CMD, CP_FAIL_USAGE, "--betas: '%s': beta%d '%s' is not a number", s,
                            i + 1, text[i]);
        if (!(v >= 0.0 && v < 1.0))
            return cli_fail(CMD, CP_FAIL_USAGE, "--betas: '%s': beta%d %s is not in [0, 1)", s,
                            i + 1, text[i]);
        *beta[i] = v;
    }
    return CP_OK;
}

/* The optimizer of the options: PyTorch's defaults (cp_optim_default), then what was given.
 * An option of another optimizer is refused rather than ignored. */
static int parse_optim(struct opts *o)
{
    enum cp_optim_kind kind = (enum cp_optim_kind)o->optimizer;
    const char *name = cp_optim_name(kind);
    bool adam = kind == CP_OPTIM_ADAM || kind == CP_OPTIM_ADAMW;
    if (o->momentum_set && kind != CP_OPTIM_MOMENTUM)
        return cli_fail(CMD, CP_FAIL_USAGE, "--momentum applies to --optimizer momentum, not %s",
                        name);
    if (o->nesterov && kind != CP_OPTIM_MOMENTUM)
        return cli_fail(CMD, CP_FAIL_USAGE,
                        "--nesterov needs momentum > 0: it applies to --optimizer momentum, not %s",
                        name);
    if (o->betas_set && !adam)
        return cli_fail(CMD, CP_FAIL_USAGE, "--betas applies to --optimizer adam or adamw, not %s",
                        name);
    if (o->eps_set && !adam)
        return cli_fail(CMD, CP_FAIL_USAGE, "--eps applies to --optimizer adam or adamw, not %s",
                        name);
    if (o->momentum_set && !(o->momentum > 0.0))
        return cli_fail(CMD, CP_FAIL_USAGE,
                        "--momentum: %g must be > 0 (momentum 0 is plain SGD: --optimizer sgd)",
                        o->momentum);
    if (o->eps_set && !(o->eps > 0.0))
        return cli_fail(CMD, CP_FAIL_USAGE, "--eps: %g must be > 0", o->eps);
    cp_optim_default(kind, o->lr, &o->opt);
    o->opt.nesterov = o->nesterov;
    if (o->momentum_set)
        o->opt.momentum = o->momentum;
    if (o->betas_set) {
        o->opt.beta1 = o->beta1;
        o->opt.beta2 = o->beta2;
    }
    if (o->eps_set)
        o->opt.eps = o->eps;
    if (o->weight_decay_set)
        o->opt.weight_decay = o->weight_decay;
    if (cp_optim_check(&o->opt) != CP_OK) /* what the checks above let through */
        return cli_fail(CMD, CP_FAIL_USAGE, "--optimizer %s: %s", name, cp_err_msg());
    return CP_OK;
}

/* What the table cannot store itself: -d's list, --target's flag and --betas. */
static int set_opt(void *ctx, enum opt_id id, const struct opt_value *v)
{
    struct opts *o = ctx;
    if (id == OPT_BETAS) {
        return parse_betas(o, v->s);
    } else if (id == OPT_TARGET) {
        o->target_zeros = v->choice == 0;
    } else if (id == OPT_DEVICE) {
        char **sels = realloc(o->sels, (o->nsel + 1) * sizeof *sels);
        if (!sels)
            return cli_fail(CMD, CP_FAIL_RUNTIME, "out of memory");
        o->sels = sels;
        o->sels[o->nsel++] = (char *)v->s;
    }
    return CP_OK;
}

static int parse(int argc, char **argv, struct opts *o, bool *handled)
{
    int st = opts_parse(CMD, argc, argv, train_uses, sizeof train_uses / sizeof *train_uses,
                        set_opt, NULL, o, train_help, handled);
    if (st != CP_OK || *handled)
        return st;
    if (cli_check_plot(CMD, o->plot) != CP_OK)
        return CP_FAIL_USAGE;
    if (o->model && o->shape_set)
        return cli_fail(CMD, CP_FAIL_USAGE,
                        "--model sets the model's shape and weights: --d-model, --layers and "
                        "--init-scale do not apply");
    if (o->json && o->csv && strcmp(o->json, "-") == 0 && strcmp(o->csv, "-") == 0)
        return cli_fail(CMD, CP_FAIL_USAGE, "--json and --csv cannot both be '-'");
    int way;
    int st2 = opts_env_choice(CMD, "CLPARITY_TRAIN_DIVSQRT", CP_TRAIN_DIVSQRT_CHOICES, &way);
    return st2 != CP_OK ? st2 : parse_optim(o);
}

static const cp_device *host_device(const cp_devlist *l)
{
    for (size_t i = 0; i < l->n; ++i)
        if (l->v[i].kind == CP_DEV_HOST)
            return &l->v[i];
    return NULL;
}

static int add_result(struct train *T, const cp_device *dev, const char *engine)
{
    struct result *v = realloc(T->r, (T->nr + 1) * sizeof *v);
    if (!v)
        return cli_fail(CMD, CP_FAIL_RUNTIME, "out of memory");
    T->r = v;
    memset(&T->r[T->nr], 0, sizeof T->r[T->nr]);
    T->r[T->nr].dev = dev;
    T->r[T->nr].engine = engine;
    T->r[T->nr].forward_base = -1;
    T->r[T->nr].forward_cr = -1;
    T->r[T->nr].state_base = -1;
    T->r[T->nr].div_sqrt = "";
    T->nr++;
    return CP_OK;
}

void train_label(const struct result *r, char *buf, size_t len)
{
    if (r->label[0])
        snprintf(buf, len, "%s", r->label);
    else
        cp_device_label(r->dev, buf, len);
}

/* --model: the safetensors file, its architecture (from the tensor names or the file's
 * metadata: train has no --arch flags) and its SHA-256. */
static int load_model_file(struct train *T)
{
    cp_arch_opts arch = {CP_ARCH_AUTO, -1, -1};
    return cli_load_model(CMD, T->o.model, &arch, &T->m, &T->arch_from, T->model_sha256);
}

/* A correctly rounded engine (cl:cr, host:cr). */
static bool is_cr(const char *engine)
{
    return strcmp(engine, "cl:cr") == 0 || strcmp(engine, "host:cr") == 0;
}

/* Devices, engines, the simulator guard and the model: everything that can refuse the run. */
int train_prepare(struct train *T)
{
    const struct opts *o = &T->o;
    /* Every path against the others, before any work (rank 0's, under --mpi). */
    const struct cli_path paths[] = {
        {"--model", o->model, CLI_IN_FILE}, {"--plot", o->plot, CLI_OUT_FILE},
        {"--json", o->json, CLI_OUT_FILE},  {"--csv", o->csv, CLI_OUT_FILE},
        {"--save", o->save, CLI_OUT_DIR},
    };
    int st = T->given ? CP_OK : cli_check_paths(CMD, paths, sizeof paths / sizeof *paths);
    if (st == CP_OK && !T->given && o->save)
        st = cli_check_output_dir(CMD, o->save);
    if (st != CP_OK)
        return st;
    st = cli_select_devices(CMD, o->sels, o->nsel, &T->devs, &T->chosen);
    if (st != CP_OK)
        return st;
    size_t ne = cp_engine_count();
    bool *use = calloc(ne, sizeof *use);
    if (!use)
        return cli_fail(CMD, CP_FAIL_RUNTIME, "out of memory");
    st = cli_select_engines(CMD, o->engines, &T->devs, T->chosen, use);
    for (size_t i = 0; st == CP_OK && i < ne; ++i) {
        const cp_engine_info *e = cp_engine_at(i);
        bool exact = strcmp(e->name, "cl:own") == 0 || strcmp(e->name, "host:exact") == 0 ||
                     strcmp(e->name, "host:f64") == 0;
        /* Without --engines: the exact engines and the reference; the fast ones by name. */
        if (!use[i] || (cp_train_engine_supported(e->name) && (o->engines || exact)))
            continue;
        if (o->engines)
            st = cli_fail(CMD, CP_FAIL_USAGE,
                          "--engines: %s cannot train (train supports cl:own, host:exact, "
                          "host:f64, cl:cr, host:cr, cl:clblast, host:openblas, cl:relaxed)",
                          e->name);
        use[i] = false;
    }
    const cp_device *host = host_device(&T->devs);
    if (st == CP_OK && !host)
        st = cli_fail(CMD, CP_FAIL_RUNTIME, "no host device in the device list");
    /* The references first: host:exact is the baseline, host:f64 the float64 reference. */
    if (st == CP_OK && (st = add_result(T, host, "host:exact")) == CP_OK && !T->given)
        st = add_result(T, host, "host:f64");
    T->base = 0;
    T->ref = 1;
    T->cr = SIZE_MAX;
    bool any_cr = false;
    for (size_t i = 0; i < ne; ++i)
        any_cr |= use[i] && is_cr(cp_engine_at(i)->name);
    for (size_t i = 0; st == CP_OK && i < ne; ++i)
        if (use[i] && strcmp(cp_engine_at(i)->name, "host:openblas") == 0)
            st = add_result(T, host, "host:openblas");
    /* host:cr, listed or not, with any cl:cr: every cl:cr result must have its bits at every
     * recorded step (rank 0's, under --mpi, for every rank's) */
    if (st == CP_OK && any_cr && !T->given) {
        T->cr = T->nr;
        st = add_result(T, host, "host:cr");
    }
    for (size_t di = 0; st == CP_OK && di < T->devs.n; ++di) {
        const cp_device *dev = &T->devs.v[di];
        if (!T->chosen[di] || dev->kind == CP_DEV_HOST)
            continue;
        for (size_t i = 0; st == CP_OK && i < ne; ++i) {
            const cp_engine_info *e = cp_engine_at(i);
            if (use[i] && e->kind == CP_DEV_OPENCL)
                st = add_result(T, dev, e->name);
        }
    }
    free(use);
    if (st != CP_OK)
        return st;
    if (T->given) {
        /* rank 0's model, input and target are in place already */
    } else if (o->model) {
        if ((st = load_model_file(T)) != CP_OK)
            return st;
    } else if ((st = cp_model_builtin_shape(&T->m, (int)o->d, (int)o->layers, o->seed,
                                            (float)o->init_scale)) != CP_OK)
        return cli_fail(CMD, st, "%s", cp_err_msg());
    double macs = cp_train_step_macs(&T->m, (int)o->batch) * (double)o->steps;
    for (size_t i = 0; i < T->nr; ++i) {
        const cp_device *dev = T->r[i].dev;
        if (dev->simulator && !o->allow_slow && macs > CP_SIMULATOR_MAC_LIMIT)
            return cli_fail(CMD, CP_FAIL_USAGE,
                            "%d:%d %s is a simulator: this training needs %.3g multiply-adds on "
                            "it (limit %.3g); pass --allow-slow to run it anyway",
                            dev->plat_idx, dev->dev_idx, dev->name, macs, CP_SIMULATOR_MAC_LIMIT);
        if (cp_train_check_device(dev, &o->opt) != CP_OK) {
            char lb[300];
            train_label(&T->r[i], lb, sizeof lb);
            return cli_fail(CMD, CP_FAIL_USAGE, "%s on %s: %s", T->r[i].engine, lb, cp_err_msg());
        }
    }
    /* Memory, before any work: cl:own holds the weights, every layer's input and
     * pre-activation, the output, the target and three gradient rows on the device, and for
     * an optimizer other than plain SGD the whole gradient and its state (one or two tensors
     * of the weights' size); each result holds about as much on the host (host:f64 twice). */
    size_t stride = (size_t)o->batch * (size_t)T->m.max_width;
    size_t nt = (size_t)o->batch * (size_t)T->m.out_width;
    unsigned long long largest =
        4ull * (unsigned long long)(T->m.n_params > (T->m.n_layers + 1) * stride
                                        ? T->m.n_params
                                        : (T->m.n_layers + 1) * stride);
    unsigned long long per =
        4ull * ((unsigned long long)T->m.n_params * (1ull + cp_optim_tensors(&o->opt)) +
                (2ull * (unsigned long long)T->m.n_layers + 4ull) * stride + nt);
    unsigned long long host_total = 0;
    for (size_t i = 0; i < T->nr; ++i) {
        const cp_device *dev = T->r[i].dev;
        host_total += strcmp(T->r[i].engine, "host:f64") == 0 ? 2 * per : per;
        if (dev->kind != CP_DEV_OPENCL)
            continue;
        if (per > dev->global_mem || largest > dev->max_alloc)
            return cli_fail(CMD, CP_FAIL_USAGE,
                            "the training needs %.3g MiB on %d:%d %s (largest buffer %.3g MiB), "
                            "more than its %.3g MiB global memory or %.3g MiB max allocation",
                            (double)per / 1048576.0, dev->plat_idx, dev->dev_idx, dev->name,
                            (double)largest / 1048576.0, (double)dev->global_mem / 1048576.0,
                            (double)dev->max_alloc / 1048576.0);
    }
    unsigned long long avail = cp_host_mem_available();
    if (avail && host_total > avail)
        return cli_fail(CMD, CP_FAIL_USAGE,
                        "the training needs %.3g MiB of host memory, more than the %.3g MiB "
                        "available",
                        (double)host_total / 1048576.0, (double)avail / 1048576.0);
    if (T->given)
        return CP_OK;
    if (!o->model && (st = cp_model_builtin_generate(&T->m)) != CP_OK)
        return cli_fail(CMD, st, "%s", cp_err_msg());
    if ((st = cp_model_input((int)o->batch, T->m.in_width, o->seed, &T->x)) != CP_OK)
        return cli_fail(CMD, st, "%s", cp_err_msg());
    T->t = calloc(nt, sizeof *T->t);
    if (!T->t)
        return cli_fail(CMD, CP_FAIL_RUNTIME, "out of memory for the target");
    if (!o->target_zeros)
        cp_gen_fill_normal(T->t, nt, o->seed, CP_TENSOR_TARGET);
    return CP_OK;
}

static int add_rec(struct train *T, const struct rec *r)
{
    if (T->nrecs == T->caprecs) {
        size_t cap = T->caprecs ? 2 * T->caprecs : 64;
        struct rec *v = realloc(T->recs, cap * sizeof *v);
        if (!v)
            return cli_fail(CMD, CP_FAIL_RUNTIME, "out of memory");
        T->recs = v;
        T->caprecs = cap;
    }
    T->recs[T->nrecs++] = *r;
    return CP_OK;
}

/* Weight differences of result i against the baseline and the float64 reference. */
static void measure(const struct train *T, size_t i, struct rec *rc)
{
    const struct result *r = &T->r[i];
    const float *base = T->r[T->base].w;
    const double *ref = T->r[T->ref].w;
    size_t n = T->m.n_params, eq = 0;
    rc->base_abs = rc->f64_abs = 0.0;
    rc->base_ulp = rc->f64_ulp = 0;
    for (size_t k = 0; k < n; ++k) {
        double a =
            r->dtype == CP_F64 ? ((const double *)r->w)[k] : (double)((const float *)r->w)[k];
        float a32 = (float)a;
        double db = fabs(a - (double)base[k]), dr = fabs(a - ref[k]);
        if (db > rc->base_abs || isnan(db))
            rc->base_abs = db;
        if (dr > rc->f64_abs || isnan(dr))
            rc->f64_abs = dr;
        uint64_t ub = cp_ulp_dist(a32, base[k]), ur = cp_ulp_dist(a32, (float)ref[k]);
        if (ub > rc->base_ulp)
            rc->base_ulp = ub;
        if (ur > rc->f64_ulp)
            rc->f64_ulp = ur;
        if (r->dtype == CP_F32 && memcmp(&a32, &base[k], sizeof a32) == 0)
            ++eq;
        else if (r->dtype == CP_F64 && (double)base[k] == a)
            ++eq;
    }
    rc->base_bitwise = n ? (double)eq / (double)n : 1.0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* "train" or "train --mpi, rank 0": how the progress line starts. */
static void progress_who(const struct train *T, char *buf, size_t len)
{
    if (T->o.mpi)
        snprintf(buf, len, "%s --mpi, rank %d", CMD, mpi_rank());
    else
        snprintf(buf, len, "%s", CMD);
}

/* The trainers, and the buffers of their weights and round trips. */
int train_start(struct train *T)
{
    const struct opts *o = &T->o;
    char who[64];
    progress_who(T, who, sizeof who);
    for (size_t i = 0; i < T->nr; ++i) {
        struct result *r = &T->r[i];
        if (!r->dev)
            continue;
        char dl[300];
        cp_device_label(r->dev, dl, sizeof dl);
        progress_stage("%s: %zu/%zu  %s on %s  build", who, i + 1, T->nr, r->engine, dl);
        int st = cp_trainer_create_optim(r->engine, r->dev, &T->m, (int)o->batch, T->x, T->t,
                                         &o->opt, &r->tr);
        if (st != CP_OK) {
            char lb[300];
            train_label(r, lb, sizeof lb);
            cli_fail(CMD, st, "%s on %s: %s", r->engine, lb, cp_err_msg());
            cli_print_build_log();
            return st;
        }
        if (cp_trainer_build_options(r->tr)[0])
            snprintf(T->build_options, sizeof T->build_options, "%s",
                     cp_trainer_build_options(r->tr));
        int probe_ok;
        const char *why = cp_trainer_probe(r->tr, &probe_ok);
        if (probe_ok == 0) {
            char lb[300];
            train_label(r, lb, sizeof lb);
            progress_clear();
            fprintf(stderr,
                    "train: %s on %s: its training kernels FAILED their probe (%s): its results "
                    "are not promised to be host:exact's\n",
                    r->engine, lb, why);
            r->probe_failed = true;
        }
        r->dtype = cp_trainer_dtype(r->tr);
        r->div_sqrt = cp_trainer_div_sqrt(r->tr);
        size_t es = cp_dtype_size(r->dtype);
        size_t nt = (size_t)o->batch * (size_t)T->m.out_width;
        r->w = malloc((T->m.n_params ? T->m.n_params : 1) * es);
        r->y_rt = malloc((nt ? nt : 1) * es);
        if (!r->w || !r->y_rt)
            return cli_fail(CMD, CP_FAIL_RUNTIME, "out of memory");
    }
    progress_clear();
    return CP_OK;
}

int train_step(struct train *T, long step, bool *poked)
{
    bool hook =
        getenv("CLPARITY_TEST_HOOK") && strcmp(getenv("CLPARITY_TEST_HOOK"), "train-ulp") == 0;
    if (progress_enabled()) {
        /* The loss of the first local result: they differ in the last bits only, if at all. */
        char who[64];
        progress_who(T, who, sizeof who);
        const struct result *first = NULL;
        for (size_t i = 0; i < T->nr && !first; ++i)
            if (T->r[i].tr)
                first = &T->r[i];
        if (step == 1 || !first)
            progress_stage("%s: step %ld/%ld", who, step, T->o.steps);
        else
            progress_show("%s: step %ld/%ld  last loss %.6g (%s)", who, step, T->o.steps,
                          first->loss, first->engine);
    }
    for (size_t i = 0; i < T->nr; ++i) {
        struct result *r = &T->r[i];
        if (!r->tr)
            continue;
        char lb[300];
        train_label(r, lb, sizeof lb);
        double t0 = now_s();
        int st = cp_trainer_step(r->tr, &r->loss);
        if (step == 1)
            r->first_s = now_s() - t0;
        else
            r->step_s += now_s() - t0;
        if (st != CP_OK)
            return cli_fail(CMD, st, "%s on %s, step %ld: %s", r->engine, lb, step, cp_err_msg());
        if (!isfinite(r->loss)) /* named, not printed: printf gives NaN's sign ("-nan") */
            return cli_fail(CMD, CP_FAIL_CHECK,
                            "step %ld: the loss of %s on %s is not finite (%s); a smaller "
                            "--init-scale (or --lr) keeps training finite",
                            step, r->engine, lb,
                            isnan(r->loss) ? "nan"
                            : r->loss > 0  ? "+inf"
                                           : "-inf");
        /* Test hook: one weight of the first cl:own (or cl:cr) result moves one ULP, once. */
        if (hook && !*poked &&
            (strcmp(r->engine, "cl:own") == 0 || strcmp(r->engine, "cl:cr") == 0)) {
            if ((st = cp_trainer_poke_ulp(r->tr, 0)) != CP_OK)
                return cli_fail(CMD, st, "%s", cp_err_msg());
            *poked = true;
        }
    }
    return CP_OK;
}

bool train_recorded(const struct train *T, long step)
{
    return step % T->o.every == 0 || step == T->o.steps;
}

int train_read_weights(struct train *T)
{
    for (size_t i = 0; i < T->nr; ++i) {
        int st = T->r[i].tr ? cp_trainer_weights(T->r[i].tr, T->r[i].w) : CP_OK;
        if (st != CP_OK)
            return cli_fail(CMD, st, "%s", cp_err_msg());
    }
    return CP_OK;
}

int train_record(struct train *T, long step)
{
    for (size_t i = 0; i < T->nr; ++i) {
        if (!T->r[i].w)
            continue; /* a rank that failed */
        struct rec rc = {.step = step, .res = i, .loss = T->r[i].loss};
        measure(T, i, &rc);
        if (rc.base_ulp > T->r[i].max_ulp_base)
            T->r[i].max_ulp_base = rc.base_ulp;
        if (i != T->ref && !T->r[i].first_div && (rc.base_ulp || rc.base_bitwise < 1.0))
            T->r[i].first_div = step;
        if (T->cr != SIZE_MAX && i != T->cr && is_cr(T->r[i].engine) && !T->r[i].first_div_cr &&
            T->r[T->cr].w && memcmp(T->r[i].w, T->r[T->cr].w, T->m.n_params * sizeof(float)) != 0)
            T->r[i].first_div_cr = step;
        int st = add_rec(T, &rc);
        if (st != CP_OK)
            return st;
    }
    return CP_OK;
}

/* The optimizer state (momentum buffer, exp_avg, exp_avg_sq) of every local cl:own result
 * against host:exact's, bit for bit: a difference there may not have reached the weights
 * yet. */
static int compare_state(struct train *T)
{
    cp_trainer *base = T->r[T->base].tr;
    size_t ns = base ? cp_trainer_state_count(base) : 0, n = T->m.n_params ? T->m.n_params : 1;
    if (ns == 0)
        return CP_OK;
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    int st = a && b ? CP_OK : cli_fail(CMD, CP_FAIL_RUNTIME, "out of memory");
    for (size_t i = 0; st == CP_OK && i < T->nr; ++i) {
        struct result *r = &T->r[i];
        if (!r->tr || strcmp(r->engine, "cl:own") != 0)
            continue;
        r->state_base = 1;
        for (size_t k = 0; st == CP_OK && k < ns && r->state_base; ++k) {
            if ((st = cp_trainer_state(r->tr, k, a)) != CP_OK ||
                (st = cp_trainer_state(base, k, b)) != CP_OK) {
                st = cli_fail(CMD, st, "%s", cp_err_msg());
                break;
            }
            if (memcmp(a, b, T->m.n_params * sizeof *a) != 0) {
                r->state_base = 0;
                r->state_diff = cp_trainer_state_name(r->tr, k);
            }
        }
    }
    free(a);
    free(b);
    return st;
}

/* The round trip and the hash of every local result, and cl:own's forward against
 * host:exact's (every result with a round-trip output). */
int train_finish(struct train *T)
{
    size_t nt = (size_t)T->o.batch * (size_t)T->m.out_width;
    for (size_t i = 0; i < T->nr; ++i) {
        struct result *r = &T->r[i];
        if (!r->tr)
            continue;
        int st = cp_trainer_roundtrip(r->tr, r->y_rt, &r->roundtrip);
        if (st != CP_OK)
            return cli_fail(CMD, st, "%s", cp_err_msg());
        r->hash = cp_hash_fnv1a(r->w, T->m.n_params * cp_dtype_size(r->dtype));
    }
    for (size_t i = 0; i < T->nr && !T->given; ++i) {
        if (strcmp(T->r[i].engine, "cl:own") == 0 && T->r[i].y_rt)
            T->r[i].forward_base =
                memcmp(T->r[i].y_rt, T->r[T->base].y_rt, nt * sizeof(float)) == 0;
        if (strcmp(T->r[i].engine, "cl:cr") == 0 && T->r[i].y_rt && T->cr != SIZE_MAX)
            T->r[i].forward_cr = memcmp(T->r[i].y_rt, T->r[T->cr].y_rt, nt * sizeof(float)) == 0;
    }
    return T->given ? CP_OK : compare_state(T);
}

static int train_loop(struct train *T)
{
    int st = train_start(T);
    bool poked = false;
    for (long step = 1; st == CP_OK && step <= T->o.steps; ++step) {
        st = train_step(T, step, &poked);
        if (st == CP_OK && train_recorded(T, step) && (st = train_read_weights(T)) == CP_OK)
            st = train_record(T, step);
    }
    progress_clear();
    return st == CP_OK ? train_finish(T) : st;
}

void train_free(struct train *T)
{
    for (size_t i = 0; i < T->nr; ++i) {
        cp_trainer_destroy(T->r[i].tr);
        free(T->r[i].w);
        free(T->r[i].y_rt);
    }
    free(T->r);
    free(T->recs);
    free(T->x);
    free(T->t);
    cp_model_free(&T->m);
    free(T->chosen);
    cp_devlist_free(&T->devs);
    free(T->o.sels);
}

int train_verdict(const struct train *T)
{
    int st = CP_OK;
    bool json_out = T->o.json && strcmp(T->o.json, "-") == 0;
    bool csv_out = T->o.csv && strcmp(T->o.csv, "-") == 0;
    FILE *out = json_out || csv_out ? stderr : stdout;
    train_print_tables(out, T);
    cli_flush(out);
    if (T->o.save && (st = train_save(T)) != CP_OK)
        return st;
    if (T->o.json && (st = train_write_json(T)) != CP_OK)
        return st;
    if (T->o.csv && (st = train_write_csv(T)) != CP_OK)
        return st;
    if (T->o.plot && (st = train_write_plot(T)) != CP_OK)
        return st;
    for (size_t i = 0; i < T->nr; ++i) {
        const struct result *r = &T->r[i];
        char lb[300];
        train_label(r, lb, sizeof lb);
        bool exact = strcmp(r->engine, "cl:own") == 0 || strcmp(r->engine, "host:exact") == 0;
        if (r->probe_failed)
            st = cli_fail(CMD, CP_FAIL_CHECK,
                          "%s on %s: its training kernels failed their probe on this device",
                          r->engine, lb);
        if (exact && r->first_div) {
            st = cli_fail(CMD, CP_FAIL_CHECK,
                          "%s on %s diverged from host:exact at step %ld (max %llu ULP)", r->engine,
                          lb, r->first_div, (unsigned long long)r->max_ulp_base);
        }
        if (!r->roundtrip)
            st = cli_fail(CMD, CP_FAIL_CHECK,
                          "%s on %s: the final weights' round trip changed the forward output",
                          r->engine, lb);
        if (r->forward_base == 0)
            st = cli_fail(CMD, CP_FAIL_CHECK,
                          "%s on %s: the forward of the final weights differs from host:exact's",
                          r->engine, lb);
        if (r->first_div_cr)
            st = cli_fail(CMD, CP_FAIL_CHECK,
                          "%s on %s diverged from host:cr at step %ld (its weights are not "
                          "host:cr's bits)",
                          r->engine, lb, r->first_div_cr);
        if (r->forward_cr == 0)
            st = cli_fail(CMD, CP_FAIL_CHECK,
                          "%s on %s: the forward of the final weights differs from host:cr's",
                          r->engine, lb);
        if (r->state_base == 0)
            st = cli_fail(CMD, CP_FAIL_CHECK,
                          "%s on %s: its final optimizer state (%s) differs from host:exact's",
                          r->engine, lb, r->state_diff);
    }
    return st;
}

int cmd_train(int argc, char **argv)
{
    struct train T;
    memset(&T, 0, sizeof T);
    T.o.d = 32;
    T.o.layers = 4;
    T.o.batch = 1;
    T.o.seed = 1337;
    T.o.init_scale = 1.0;
    T.o.steps = 100;
    T.o.lr = 0.01;
    T.o.every = 1;
    T.o.target_zeros = true;
    bool handled = false;
    /* --mpi starts MPI before the parsing, so that only rank 0 prints what the parsing says */
    bool mpi = mpi_requested(argc, argv);
    int st = mpi ? mpi_begin(CMD) : CP_OK;
    if (st == CP_OK)
        st = parse(argc, argv, &T.o, &handled);
    if (st == CP_OK && !handled && mpi)
        st = train_mpi(&T);
    else if (st == CP_OK && !handled && (st = train_prepare(&T)) == CP_OK &&
             (st = train_loop(&T)) == CP_OK)
        st = train_verdict(&T);
    train_free(&T);
    return mpi ? mpi_end(st) : st;
}
