#include "opts.h"

#include "cli.h"
#include "progress.h"

#include "clparity/format.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

/* clang-format off */
const struct opt_def opt_table[OPT_COUNT] = {
    [OPT_DEVICE] = {"device", 'd', "SEL", OPT_STRING, 0, 0, NULL, NULL,
        "devices: all, host, gpu, cpu, accelerator, P:D or P (clinfo's\n"
        "indices), or a substring of a platform, vendor or device name; a\n"
        "comma list or repeated -d. Default: $CLPARITY_DEVICES, else every\n"
        "non-simulator OpenCL device plus host"},
    [OPT_ENGINES] = {"engines", 0, "LIST", OPT_STRING, 0, 0, NULL, NULL,
        "comma list of engines (default: %s)"},
    [OPT_VARY] = {"vary", 0, "P", OPT_CHOICE, 0, 0, "batch,width,depth,params", NULL,
        "the varied parameter: batch, width, depth or params (required)"},
    [OPT_GRID] = {"grid", 0, "LIST", OPT_STRING, 0, 0, NULL, NULL,
        "comma list of the varied parameter's values (for params: of d;\n"
        "L = the budget / d², rounded down); sorted, duplicates dropped"},
    [OPT_QUICK] = {"quick", 0, NULL, OPT_FLAG, 0, 0, NULL, NULL, "%s"},
    [OPT_PARAMS] = {"params", 0, "N", OPT_LONG, 1, 1099511627776.0, NULL, NULL,
        "(params) the parameter budget (default 2^31; --quick 2^20)"},
    [OPT_MODEL] = {"model", 0, "FILE", OPT_STRING, 0, 0, NULL, NULL,
        "a safetensors file of Linear layers (weight [out, in], optional\n"
        "bias) instead of the built-in model%s"},
    [OPT_DMODEL] = {"d-model", 0, "N", OPT_LONG, 1, 65536, NULL, NULL,
        "width d (default %s)"},
    [OPT_LAYERS] = {"layers", 0, "N", OPT_LONG, 1, 16777216, NULL, NULL,
        "number of blocks y = x + relu(x·Wᵀ) (default %s)"},
    [OPT_BATCH] = {"batch", 0, "N", OPT_LONG, 1, 16777216, NULL, NULL,
        "rows in the batch (default %s)"},
    [OPT_SEED] = {"seed", 0, "N", OPT_U64, 0, 0, NULL, NULL, "generator seed (default 1337)"},
    [OPT_INIT_SCALE] = {"init-scale", 0, "X", OPT_DOUBLE, 0.0, 1e6, NULL, NULL,
        "scale of PyTorch's default init bound 1/sqrt(d) (default 1.0);\n"
        "below 1 keeps deep models finite"},
    [OPT_STEPS] = {"steps", 0, "N", OPT_LONG, 1, 100000000, NULL, NULL,
        "training steps (default 100)"},
    [OPT_LR] = {"lr", 0, "X", OPT_DOUBLE, 0.0, 1e6, NULL, NULL,
        "learning rate, rounded to float (default 0.01)"},
    [OPT_OPTIMIZER] = {"optimizer", 0, "O", OPT_CHOICE, 0, 0, "sgd,momentum,adam,adamw", NULL,
        "sgd (the default), momentum, adam or adamw: PyTorch's SGD, SGD\n"
        "with momentum, Adam and AdamW (foreach=False), operation for\n"
        "operation (docs/TRAINING.md); no amsgrad, no maximize"},
    [OPT_MOMENTUM] = {"momentum", 0, "X", OPT_DOUBLE, 0.0, 1e6, NULL, NULL,
        "(momentum) the momentum, > 0 (default 0.9; dampening is 0)"},
    [OPT_NESTEROV] = {"nesterov", 0, NULL, OPT_FLAG, 0, 0, NULL, NULL,
        "(momentum) Nesterov momentum"},
    [OPT_BETAS] = {"betas", 0, "B1,B2", OPT_STRING, 0, 0, NULL, NULL,
        "(adam, adamw) the moments' coefficients, each in [0, 1)\n"
        "(default 0.9,0.999)"},
    [OPT_EPS] = {"eps", 0, "X", OPT_DOUBLE, 0.0, 1e6, NULL, NULL,
        "(adam, adamw) added to the denominator, > 0 (default 1e-8)"},
    [OPT_WEIGHT_DECAY] = {"weight-decay", 0, "X", OPT_DOUBLE, 0.0, 1e6, NULL, NULL,
        "weight decay, >= 0: L2 added to the gradient (sgd, momentum,\n"
        "adam), or decoupled p *= 1 - lr*wd (adamw). Default 0; adamw 1e-2"},
    [OPT_TARGET] = {"target", 0, "T", OPT_CHOICE, 0, 0, "zeros,random", "is not zeros or random",
        "zeros (the default, as in the PyTorch example: the loss is\n"
        "the output's mean square), or random: standard normals from the\n"
        "generator's tensor id 2"},
    [OPT_EVERY] = {"every", 0, "K", OPT_LONG, 1, 100000000, NULL, NULL,
        "record every K-th step (and the last; default 1)"},
    [OPT_FUNCTIONS] = {"functions", 0, "LIST", OPT_STRING, 0, 0, NULL, NULL,
        "comma list of functions to measure (default: all of\n%s)"},
    [OPT_SAMPLES] = {"samples", 0, "N", OPT_LONG, 1, 1073741824, NULL, NULL,
        "inputs per function (default %s)"},
    [OPT_ARCH] = {"arch", 0, "A", OPT_CHOICE, 0, 0, "dumb,mlp", NULL,
        "dumb (blocks.N.net.0.weight: relu and a residual in every block)\n"
        "or mlp (an nn.Sequential's N.weight/N.bias: relu between layers,\n"
        "none after the last)"},
    [OPT_ACT] = {"act", 0, "A", OPT_CHOICE, 0, 0, "relu,none", NULL,
        "relu or none: the activation of every hidden layer (and of the\n"
        "last one in the dumb model)"},
    [OPT_RESIDUAL] = {"residual", 0, "R", OPT_CHOICE, 0, 0, "on,off", NULL,
        "on (every layer with in == out) or off"},
    [OPT_INPUT] = {"input", 0, "X.npy", OPT_STRING, 0, 0, NULL, NULL,
        "float32 [batch, in]: the inputs (they set the batch)"},
    [OPT_LABELS] = {"labels", 0, "Y.npy", OPT_STRING, 0, 0, NULL, NULL,
        "int32 or int64 class ids, one per input: accuracy per result,\n"
        "the prediction-agreement matrix and the inputs whose class flips"},
    [OPT_OUT] = {"out", 0, "Y.npy", OPT_STRING, 0, 0, NULL, NULL,
        "write the one result (exactly one device x engine) as .npy"},
    [OPT_EXPECT] = {"expect", 0, "P", OPT_CHOICE, 0, 0, "bitwise,torch,clblast,cr,none", NULL,
        "bitwise, torch, clblast, cr or none (default none): exit 1 and name\n"
        "the results unless every result meets preset P%s;\n"
        "cr judges only the cl:cr and host:cr results (bit-identical to\n"
        "host:cr; with --equal-nan any NaN equals any NaN), not the other\n"
        "engines, which are not expected to be correctly rounded, and is a\n"
        "usage error when there is no cl:cr or host:cr result"},
    [OPT_EQUAL_NAN] = {"equal-nan", 0, NULL, OPT_FLAG, 0, 0, NULL, NULL,
        "count NaN against NaN as equal"},
    [OPT_INVARIANCE] = {"invariance", 0, NULL, OPT_FLAG, 0, 0, NULL, NULL,
        "also check batch invariance (each of the first 32 rows alone, batch\n"
        "1, against the same row inside the batch) and thread invariance\n"
        "(host:openblas with 1 thread against all threads)"},
    [OPT_NO_REFERENCE] = {"no-reference", 0, NULL, OPT_FLAG, 0, 0, NULL, NULL,
        "skip the host:f64 reference: no ULP or max_rel, for speed runs of\n"
        "models where float64 on one core would take minutes"},
    [OPT_NO_F64] = {"no-f64", 0, NULL, OPT_FLAG, 0, 0, NULL, NULL,
        "skip the float64 reference host:f64 (no f64 columns), when only\n"
        "devices are compared: host:exact stays the baseline of the\n"
        "bitwise check"},
    [OPT_ALLOW_SLOW] = {"allow-slow", 0, NULL, OPT_FLAG, 0, 0, NULL, NULL,
        "run on a simulator (Oclgrind) beyond its work limit"},
    [OPT_MPI] = {"mpi", 0, NULL, OPT_FLAG, 0, 0, NULL, NULL,
        "run on every rank of mpirun, each on its own machine's devices;\n"
        "rank 0 makes or reads the model and input, sends them to every rank,\n"
        "computes the float64 reference once and prints one report\n"
        "(docs/COMMANDS.md, \"Across machines\"; needs a build with\n"
        "-DCLPARITY_MPI=ON)"},
    [OPT_REMEASURE] = {"remeasure", 0, NULL, OPT_FLAG, 0, 0, NULL, NULL,
        "measure again, replacing the cached result"},
    [OPT_DRY_RUN] = {"dry-run", 0, NULL, OPT_FLAG, 0, 0, NULL, NULL,
        "measure and print, but store nothing"},
    [OPT_PROBE] = {"probe", 0, NULL, OPT_FLAG, 0, 0, NULL, NULL,
        "probe cl:own's kernel paths that have no verdict kept yet"},
    [OPT_RUNS] = {"runs", 0, "N", OPT_LONG, 1, 1000000, NULL, NULL,
        "timed runs (default %s)"},
    [OPT_MIN_TIME] = {"min-time", 0, "S", OPT_DOUBLE, 0.0, 3600.0, NULL, NULL,
        "without --runs, time each result until at least 5 runs and S\n"
        "seconds of timed runs (default %s; at most 200 runs, and\n"
        "past 10 s, or S if longer, no more runs even below 5)"},
    [OPT_ROUNDS] = {"rounds", 0, "R", OPT_LONG, 1, 16, NULL, NULL,
        "run the whole grid R times over and pool each result's runs\n"
        "(default %s; with --runs N below R, N rounds): the rounds are\n"
        "replicates far apart in time, and a point whose two results change\n"
        "order from one round to another is within noise. Each round takes\n"
        "its share: N / R runs, or of the adaptive rule min-time / R, at\n"
        "least 5 / R runs rounded up, at most 200 / R, the 10 s limit / R.\n"
        "A result whose forward takes 1 s or more runs in the first round\n"
        "only"},
    [OPT_WARMUP] = {"warmup", 0, "W", OPT_LONG, 0, 1000000, NULL, NULL,
        "warm-up runs before them (default %s)"},
    [OPT_JSON] = {"json", 0, "FILE", OPT_STRING, 0, 0, NULL, NULL,
        "write %s as JSON ('-' for stdout)"},
    [OPT_CSV] = {"csv", 0, "FILE", OPT_STRING, 0, 0, NULL, NULL,
        "write %s as CSV ('-' for stdout)"},
    [OPT_PLOT] = {"plot", 0, "FILE", OPT_STRING, 0, 0, NULL, NULL,
        "draw %s\n"
        "through gnuplot: FILE.png or FILE.svg. Without gnuplot in PATH this\n"
        "is a usage error (status 2), reported before any work"},
    [OPT_SAVE] = {"save", 0, "DIR", OPT_STRING, 0, 0, NULL, NULL,
        "write %s"},
    [OPT_QUIET] = {"quiet", 0, NULL, OPT_FLAG, 0, 0, NULL, NULL,
        "no progress line on stderr (shown only when stderr is a terminal)"},
    [OPT_VERSION] = {"version", 0, NULL, OPT_FLAG, 0, 0, NULL, NULL,
        "print the version and exit"},
    [OPT_HELP] = {"help", 'h', NULL, OPT_FLAG, 0, 0, NULL, NULL, "print this help and exit"},
};
/* clang-format on */

static const struct opt_use always[] = {{.id = OPT_QUIET}, {.id = OPT_VERSION}, {.id = OPT_HELP}};

/* The choice's words as a phrase: "relu, none". */
static void choice_list(const char *choices, char *buf, size_t len)
{
    size_t k = 0;
    for (const char *c = choices; *c && k + 3 < len; ++c) {
        if (*c == ',') {
            buf[k++] = ',';
            buf[k++] = ' ';
        } else {
            buf[k++] = *c;
        }
    }
    buf[k] = '\0';
}

/* The index of word in the comma list, or -1. */
static int choice_index(const char *choices, const char *word)
{
    size_t n = strlen(word);
    int i = 0;
    for (const char *c = choices; *c; ++i) {
        const char *end = strchr(c, ',');
        size_t len = end ? (size_t)(end - c) : strlen(c);
        if (len == n && strncmp(c, word, n) == 0)
            return i;
        if (!end)
            break;
        c = end + 1;
    }
    return -1;
}

/* --engines LIST: names between single commas, each once. The engines themselves are checked
 * against the registry and the devices later; an empty item (",x", "x,,y", "x,") or a name
 * given twice is a slip that the selection would otherwise hide. (-d lists may repeat or
 * overlap, "-d gpu -d 0:0": a selection is the union of its selectors.) */
static int check_engine_list(const char *cmd, const char *list)
{
    size_t n = strlen(list);
    for (const char *c = list;; ++c) {
        const char *end = strchr(c, ',');
        size_t len = end ? (size_t)(end - c) : strlen(c);
        if (len == 0)
            return cli_fail(cmd, CP_FAIL_USAGE, "--engines: '%s' has an empty item%s", list,
                            n == 0 ? " (no engine at all)" : "");
        for (const char *p = list; p < c;) {
            const char *pe = strchr(p, ',');
            if ((size_t)(pe - p) == len && strncmp(p, c, len) == 0)
                return cli_fail(cmd, CP_FAIL_USAGE, "--engines: '%s' names %.*s twice", list,
                                (int)len, c);
            p = pe + 1;
        }
        if (!end)
            return CP_OK;
        c = end;
    }
}

/* The option of this command nearest to what was given ("--batchs", "--batchs=3"). */
static const char *nearest_option(const char *given, const struct opt_use *const *of, size_t total)
{
    while (*given == '-')
        ++given;
    cp_nearest nr;
    cp_nearest_start(&nr, given, strcspn(given, "="));
    for (size_t i = 0; i < total; ++i)
        if (!of[i]->refuse)
            cp_nearest_offer(&nr, opt_table[of[i]->id].name, strlen(opt_table[of[i]->id].name));
    size_t len;
    return cp_nearest_best(&nr, &len);
}

/* The word of a choice nearest to what was given ("adamm"): " (did you mean 'adam'?)" in buf,
 * or "". */
static void nearest_choice(const char *given, const char *choices, char *buf, size_t len)
{
    cp_nearest nr;
    cp_nearest_start(&nr, given, strlen(given));
    cp_nearest_offer_list(&nr, choices);
    cp_nearest_hint(&nr, "", buf, len);
}

void opts_nearest_word(const char *given, const char *choices, char *buf, size_t len)
{
    nearest_choice(given, choices, buf, len);
}

int opts_word(const char *cmd, const char *what, const char *choices, const char *word, int *index)
{
    *index = choice_index(choices, word);
    if (*index >= 0)
        return CP_OK;
    char words[256], near[96];
    choice_list(choices, words, sizeof words);
    nearest_choice(word, choices, near, sizeof near);
    return cli_fail(cmd, CP_FAIL_USAGE, "%s: '%s' is not one of %s%s", what, word, words, near);
}

int opts_env_choice(const char *cmd, const char *name, const char *choices, int *index)
{
    const char *v = getenv(name);
    *index = -1;
    return v && v[0] ? opts_word(cmd, name, choices, v, index) : CP_OK;
}

static int check_value(const char *cmd, const struct opt_use *u, const char *arg,
                       struct opt_value *v)
{
    const struct opt_def *d = &opt_table[u->id];
    char name[48];
    snprintf(name, sizeof name, "--%s", d->name);
    double min = u->min || u->max ? u->min : d->min, max = u->min || u->max ? u->max : d->max;
    memset(v, 0, sizeof *v);
    v->s = arg;
    switch (d->kind) {
    case OPT_FLAG:
        return CP_OK;
    case OPT_STRING:
        return u->id == OPT_ENGINES ? check_engine_list(cmd, arg) : CP_OK;
    case OPT_LONG:
        return cli_parse_long(cmd, name, arg, (long)min, (long)max, &v->l);
    case OPT_U64:
        return cli_parse_u64(cmd, name, arg, &v->u);
    case OPT_DOUBLE:
        return cli_parse_double(cmd, name, arg, min, max, &v->d);
    case OPT_CHOICE:
        if (d->bad && choice_index(d->choices, arg) < 0) {
            char near[96];
            nearest_choice(arg, d->choices, near, sizeof near);
            return cli_fail(cmd, CP_FAIL_USAGE, "%s: '%s' %s%s", name, arg, d->bad, near);
        }
        return opts_word(cmd, name, d->choices, arg, &v->choice);
    }
    return CP_OK;
}

static void store(void *ctx, const struct opt_use *u, const struct opt_value *v)
{
    void *at = (char *)ctx + u->at - 1;
    switch (opt_table[u->id].kind) {
    case OPT_FLAG:
        *(bool *)at = true;
        break;
    case OPT_STRING:
        *(const char **)at = v->s;
        break;
    case OPT_LONG:
        *(long *)at = v->l;
        break;
    case OPT_U64:
        *(uint64_t *)at = v->u;
        break;
    case OPT_DOUBLE:
        *(double *)at = v->d;
        break;
    case OPT_CHOICE:
        *(int *)at = v->choice;
        break;
    }
}

/* After getopt_long returned the long option name: the word as given ("--lay", "--lay=4")
 * when it was a prefix of name, else NULL. The word is the last one taken, or the one before
 * when the value was the next word. */
static const char *abbreviated(char **argv, const char *arg, const char *name)
{
    const char *w = argv[optind - 1];
    if (arg && arg == w && optind >= 2)
        w = argv[optind - 2];
    if (strncmp(w, "--", 2) != 0)
        return NULL;
    size_t len = strcspn(w + 2, "=");
    return len == strlen(name) && strncmp(w + 2, name, len) == 0 ? NULL : w;
}

int opts_parse(const char *cmd, int argc, char **argv, const struct opt_use *uses, size_t n,
               int (*set)(void *ctx, enum opt_id id, const struct opt_value *v),
               int (*operand)(void *ctx, const char *arg), void *ctx, void (*help)(void),
               bool *handled)
{
    size_t total = n + sizeof always / sizeof *always;
    struct option *lo = calloc(total + 1, sizeof *lo);
    const struct opt_use **of = calloc(total + 1, sizeof *of);
    char shorts[64] = ":";
    if (!lo || !of) {
        free(lo);
        free(of);
        return cli_fail(cmd, CP_FAIL_RUNTIME, "out of memory");
    }
    for (size_t i = 0; i < total; ++i) {
        of[i] = i < n ? &uses[i] : &always[i - n];
        const struct opt_def *d = &opt_table[of[i]->id];
        lo[i].name = d->name;
        lo[i].has_arg = d->arg ? required_argument : no_argument;
        lo[i].val = 256 + (int)i;
        if (d->letter && strlen(shorts) + 3 < sizeof shorts) {
            size_t k = strlen(shorts);
            shorts[k] = d->letter;
            shorts[k + 1] = d->arg ? ':' : '\0';
            shorts[k + 2] = '\0';
        }
    }
    *handled = false;
    int c, st = CP_OK;
    opterr = 0;
    optind = 1;
    while (st == CP_OK && (c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
        const struct opt_use *u = NULL;
        if (c >= 256 && (size_t)(c - 256) < total)
            u = of[c - 256];
        /* getopt_long takes any unique prefix ("--lay" for --layers, "--engine" for --engines):
         * a typo would then run. Only the exact name is taken. */
        const char *abbrev = u ? abbreviated(argv, optarg, lo[c - 256].name) : NULL;
        if (abbrev) {
            st = cli_fail(cmd, CP_FAIL_USAGE,
                          "unknown option '%.*s' (did you mean '--%s'? options are not "
                          "abbreviated)",
                          (int)strcspn(abbrev, "="), abbrev, lo[c - 256].name);
            break;
        }
        for (size_t i = 0; !u && c > 0 && c < 256 && i < total; ++i)
            if (opt_table[of[i]->id].letter == c)
                u = of[i];
        if (c == ':') {
            st = cli_fail(cmd, CP_FAIL_USAGE, "option %s needs a value", argv[optind - 1]);
        } else if (!u) {
            /* getopt leaves optopt at 0 for an unknown long option and names the short one. */
            const char *given = argv[optind - 1];
            const char *near = optopt == 0 && strncmp(given, "--", 2) == 0
                                   ? nearest_option(given, of, total)
                                   : NULL;
            if (near)
                st = cli_fail(cmd, CP_FAIL_USAGE, "unknown option '%.*s' (did you mean '--%s'?)",
                              (int)strcspn(given, "="), given, near);
            else
                st = cli_fail(cmd, CP_FAIL_USAGE, "unknown option '%s'", given);
        } else if (u->refuse) {
            char msg[256];
            snprintf(msg, sizeof msg, u->refuse, opt_table[u->id].name);
            st = cli_fail(cmd, CP_FAIL_USAGE, "%s", msg);
        } else if (u->id == OPT_QUIET) {
            progress_set_quiet(true);
        } else if (u->id == OPT_HELP || u->id == OPT_VERSION) {
            if (u->id == OPT_HELP)
                help();
            else
                cli_print_version();
            *handled = true;
            break;
        } else {
            struct opt_value v;
            st = check_value(cmd, u, optarg, &v);
            if (st == CP_OK && u->at)
                store(ctx, u, &v);
            else if (st == CP_OK)
                st = set(ctx, u->id, &v);
            if (st == CP_OK && u->seen)
                *(bool *)((char *)ctx + u->seen - 1) = true;
        }
    }
    for (; st == CP_OK && !*handled && optind < argc; ++optind)
        st = operand ? operand(ctx, argv[optind])
                     : cli_fail(cmd, CP_FAIL_USAGE, "unexpected argument '%s'", argv[optind]);
    free(lo);
    free(of);
    return st;
}

static void help_line(FILE *f, const struct opt_use *u)
{
    const struct opt_def *d = &opt_table[u->id];
    char head[64], text[1024];
    if (d->letter && d->arg)
        snprintf(head, sizeof head, "-%c %s", d->letter, d->arg);
    else if (d->letter)
        snprintf(head, sizeof head, "-%c, --%s", d->letter, d->name);
    else
        snprintf(head, sizeof head, "--%s%s%s", d->name, d->arg ? " " : "", d->arg ? d->arg : "");
    /* The help is a format with at most one %s, the command's default or wording. */
    snprintf(text, sizeof text, u->help ? u->help : d->help, u->def ? u->def : "");
    fprintf(f, "  %-16s ", head);
    if (strlen(head) > 16)
        fprintf(f, "\n  %-16s ", "");
    for (const char *t = text; *t; ++t) {
        fputc(*t, f);
        if (*t == '\n')
            fprintf(f, "  %-16s ", "");
    }
    fputc('\n', f);
}

void opts_help(FILE *f, const struct opt_use *uses, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        if (!uses[i].refuse)
            help_line(f, &uses[i]);
    for (size_t i = 0; i < sizeof always / sizeof *always; ++i)
        help_line(f, &always[i]);
}
