/* One table of the command line's options (name, argument, help text, validation), shared by
 * every command. A command names the subset it takes (struct opt_use, with its own default
 * or range where it differs); the parser and the generated --help both walk that list, so
 * the help cannot name an option the parser does not take, nor miss one. */
#ifndef CLPARITY_OPTS_H
#define CLPARITY_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum opt_id {
    OPT_DEVICE,
    OPT_ENGINES,
    OPT_VARY,
    OPT_GRID,
    OPT_QUICK,
    OPT_PARAMS,
    OPT_MODEL,
    OPT_DMODEL,
    OPT_LAYERS,
    OPT_BATCH,
    OPT_SEED,
    OPT_INIT_SCALE,
    OPT_STEPS,
    OPT_LR,
    OPT_OPTIMIZER,
    OPT_MOMENTUM,
    OPT_NESTEROV,
    OPT_BETAS,
    OPT_EPS,
    OPT_WEIGHT_DECAY,
    OPT_TARGET,
    OPT_EVERY,
    OPT_FUNCTIONS,
    OPT_SAMPLES,
    OPT_ARCH,
    OPT_ACT,
    OPT_RESIDUAL,
    OPT_INPUT,
    OPT_LABELS,
    OPT_OUT,
    OPT_EXPECT,
    OPT_EQUAL_NAN,
    OPT_INVARIANCE,
    OPT_NO_REFERENCE,
    OPT_NO_F64,
    OPT_ALLOW_SLOW,
    OPT_MPI,
    OPT_REMEASURE,
    OPT_DRY_RUN,
    OPT_PROBE,
    OPT_RUNS,
    OPT_MIN_TIME,
    OPT_ROUNDS,
    OPT_WARMUP,
    OPT_JSON,
    OPT_CSV,
    OPT_PLOT,
    OPT_SAVE,
    OPT_QUIET,
    OPT_VERSION,
    OPT_HELP,
    OPT_COUNT
};

enum opt_kind {
    OPT_FLAG,   /* no argument */
    OPT_STRING, /* any text */
    OPT_LONG,   /* an integer in [min, max] */
    OPT_U64,    /* a non-negative integer below 2^64 */
    OPT_DOUBLE, /* a finite number in [min, max] */
    OPT_CHOICE, /* one of the words of choices */
};

struct opt_def {
    const char *name; /* "d-model" */
    char letter;      /* 'd', or 0 */
    const char *arg;  /* "N"; NULL for a flag */
    enum opt_kind kind;
    double min, max;     /* OPT_LONG, OPT_DOUBLE */
    const char *choices; /* OPT_CHOICE: "relu,none" */
    const char *bad;     /* OPT_CHOICE: after "'X' ", default "is not one of <choices>" */
    const char *help;    /* lines joined by \n; "%s" stands for the default */
};

extern const struct opt_def opt_table[OPT_COUNT];

/* Where the parser stores a value itself, in the ctx of opts_parse: a field of the kind's type
 * (bool for a flag, const char * for a string, long, uint64_t, double, int for a choice's
 * index), and a bool set when the option is given. Stored +1, so that 0 means "not stored". */
#define OPT_AT(type, field) .at = offsetof(type, field) + 1
#define OPT_SEEN(type, field) .seen = offsetof(type, field) + 1

/* An option as a command takes it. */
struct opt_use {
    enum opt_id id;
    size_t at, seen;    /* OPT_AT, OPT_SEEN; 0: the set callback stores it */
    const char *def;    /* what %s in the help stands for (the command's default) */
    double min, max;    /* a range of its own for OPT_LONG; 0, 0: the table's */
    const char *help;   /* NULL: the table's text; else the command's own wording */
    const char *refuse; /* not taken: the message, with %s for the name (hidden in help) */
};

/* A parsed value: the text as given, and what the kind makes of it. */
struct opt_value {
    const char *s;
    long l;
    uint64_t u;
    double d;
    int choice; /* the index of the word in choices */
};

/* Parses argv with getopt_long over uses (OPT_QUIET, OPT_HELP and OPT_VERSION are always taken:
 * --quiet turns the progress line off (progress.h), help() prints the command's help, --version
 * the version, and *handled is set). Each option's value
 * is checked as its kind says, then stored at its OPT_AT field of ctx, or else handed to
 * set(ctx, id, value), which returns CP_OK or an exit status after printing. Arguments that are not
 * options go to operand(ctx, arg) when it is given, else they are an error. Returns CP_OK or the
 * first failure's status. */
int opts_parse(const char *cmd, int argc, char **argv, const struct opt_use *uses, size_t n,
               int (*set)(void *ctx, enum opt_id id, const struct opt_value *v),
               int (*operand)(void *ctx, const char *arg), void *ctx, void (*help)(void),
               bool *handled);

/* word as one of the comma list choices: *index its position, or status 2 after printing
 * "clparity CMD: WHAT: 'word' is not one of a, b, c", with " (did you mean 'b'?)" where one
 * choice is near, as a bad --option value is refused. */
int opts_word(const char *cmd, const char *what, const char *choices, const char *word, int *index);
/* " (did you mean 'b'?)" in buf where one word of the comma list choices is near given, else "". */
void opts_nearest_word(const char *given, const char *choices, char *buf, size_t len);
/* The same for the environment variable name: *index -1 when it is unset or empty. */
int opts_env_choice(const char *cmd, const char *name, const char *choices, int *index);

/* The options' part of a command's help: a line "  --name ARG" per option taken (help text
 * in the column beside it), then --quiet, --version and --help. */
void opts_help(FILE *f, const struct opt_use *uses, size_t n);

#endif
