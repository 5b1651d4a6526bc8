/* clparity train: SGD (or momentum, Adam, AdamW) on the model with every selected device ×
 * training engine, step by step, and the divergence of their weights from host:exact (the
 * baseline) and host:f64. */
#include "cli.h"
#include "cmds.h"
#include "train_cli.h"
#include "mpi.h"
#include "opts.h"
#include "progress.h"

#include "clparity/error.h"
#include "clparity/model.h"
#include "clparity/train.h"
#include "clparity/train_run.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>

#define TO(field) OPT_AT(struct opts, field)
#define TO_SHAPE OPT_SEEN(struct opts, shape_set)

static const struct opt_use train_uses[] = {
    {.id = OPT_DEVICE},
    {.id = OPT_ENGINES,
     TO(engines),
     .help = "cl:own, host:exact, host:f64, the correctly rounded cl:cr and\n"
             "host:cr (every optimizer), the fast GEMMs cl:clblast and\n"
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
    {.id = OPT_EVERY,
     TO(every),
     OPT_SEEN(struct opts, every_set),
     .help = "record every K-th step (and the last), and print each of them\n"
             "(default: every step is recorded and checked, and about ten are\n"
             "printed, evenly spaced, with the first divergence if any)"},
    {.id = OPT_NO_F64, TO(no_f64)},
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
    printf("usage: clparity train [OPTIONS]\n"
           "\n"
           "Trains the reference model (L blocks y = x + relu(x·Wᵀ), W [d, d]) with plain SGD, or\n"
           "--optimizer momentum, adam or adamw, on an MSE loss (mean over batch × width)\n"
           "against a fixed target, on every selected device × engine, and reports per recorded\n"
           "step the loss and how far each result's weights are from host:exact's (the baseline:\n"
           "max abs, max ULP, bitwise fraction) and from host:f64's. host:exact and host:f64\n"
           "always run: they are the references. cl:own keeps its weights (and the optimizer's\n"
           "state) on the device between steps and follows host:exact's order of operations, so\n"
           "any difference from it is a divergence (exit status 1). cl:cr rounds every sum of\n"
           "the step once, with every optimizer (docs/TRAINING.md): host:cr runs beside it, and\n"
           "any difference of its weights from host:cr's at a recorded step is a divergence. The\n"
           "optimizers follow PyTorch's single-tensor torch.optim.SGD, Adam and AdamW operation\n"
           "for operation, each rounded to float (docs/TRAINING.md gives the order); options of\n"
           "another optimizer than the one chosen are refused.\n"
           "\n");
    opts_help(stdout, train_uses, sizeof train_uses / sizeof *train_uses);
    printf(
        "\n"
        "Every step is recorded and checked; about ten are printed (--every K prints every\n"
        "K-th). The first step's time leaves out the builds: each OpenCL result's setup (its\n"
        "program, its probes and a warm-up step, after which the weights and state are put\n"
        "back) is on a builds: line, as in run. On a terminal a progress line shows the step,\n"
        "the steps per second and the time left.\n"
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
    if (o->no_f64 && o->plot)
        return cli_fail(CMD, CP_FAIL_USAGE,
                        "--plot draws each result's distance to host:f64, which --no-f64 skips");
    if (o->json && o->csv && strcmp(o->json, "-") == 0 && strcmp(o->csv, "-") == 0)
        return cli_fail(CMD, CP_FAIL_USAGE, "--json and --csv cannot both be '-'");
    int way;
    int st2 = opts_env_choice(CMD, "CLPARITY_TRAIN_DIVSQRT", CP_TRAIN_DIVSQRT_CHOICES, &way);
    return st2 != CP_OK ? st2 : parse_optim(o);
}

/* The training on this process's devices: the trainers, the steps with their records, then
 * the round trips. */
static int train_loop(struct train *T)
{
    int st = train_start(T);
    bool poked = false;
    for (long step = 1; st == CP_OK && step <= T->R.steps; ++step) {
        st = train_failed(cp_train_run_step(&T->R, step, &poked));
        if (st == CP_OK && cp_train_run_recorded(&T->R, step) &&
            (st = train_failed(cp_train_run_read_weights(&T->R))) == CP_OK)
            st = train_failed(cp_train_run_record(&T->R, step));
    }
    progress_clear();
    return st == CP_OK ? train_failed(cp_train_run_finish(&T->R)) : st;
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
    train_setup(&T);
    if (st == CP_OK && !handled && mpi)
        st = train_mpi(&T);
    else if (st == CP_OK && !handled && (st = train_prepare(&T)) == CP_OK &&
             (st = train_loop(&T)) == CP_OK)
        st = train_verdict(&T);
    train_free(&T);
    return mpi ? mpi_end(st) : st;
}
