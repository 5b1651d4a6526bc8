/* Private: the name=value settings of the tune parameters (CLPARITY_OWN_TUNE, `clparity tune`'s
 * store, CLPARITY_CR_TUNE), parsed from a table of parameters (params.c). Base-level: env.c
 * checks CLPARITY_OWN_TUNE and CLPARITY_CR_TUNE with these, tune.c and cr_cl.c read them. */
#ifndef CLPARITY_PARAMS_IMPL_H
#define CLPARITY_PARAMS_IMPL_H

#include <stddef.h>

/* One parameter: its name, the int it sets (an offset into the settings' struct), and its
 * values: the n numbers of allowed, or, where words is set, the n words (words[i] sets i). */
struct cp_param {
    const char *name;
    size_t off;
    int n;
    int allowed[8];
    const char *const *words;
};

/* Parses "name=value,name=value" (any subset of params, in any order; later ones win) over the
 * struct at out. CP_FAIL_USAGE ("tuning '<spec>': ...") names an item that is not name=value,
 * an unknown name (with the list of names) or a value not allowed (with the allowed values);
 * then out is left as it was. */
int cp_params_parse(const char *spec, const struct cp_param *params, size_t n, void *out);

/* Whether spec parses as CLPARITY_CR_TUNE's settings (params.c; cl:cr reads them in cr_cl.c): CP_OK
 * or CP_FAIL_USAGE. Whether the device can take them is checked when cl:cr starts. */
int cp_cr_tune_check(const char *spec);

/* CLPARITY_CR_TUNE's settings. */
struct cr_tune {
    int path;  /* 0 auto (the rules), else 1 + enum cr_path */
    int wg;    /* work-items per group of gemv and splitk (a power of two) */
    int ob;    /* outputs per work-group of gemv and splitk */
    int split; /* splitk: ranges of k, each summed by its own work-groups */
    int tk;    /* gemm: the tiles' depth */
    int vw;    /* cpu: outputs per work-item (a double vector) */
    int rb;    /* cpu: rows per work-item */
    int exact; /* 1: every output through the exact accumulator (no double compiled) */
    int ftz;   /* 1: as if the device flushed float denormals (cr.cl's CR_NO_DENORM) */
    int sg;    /* stream: work-groups launched per compute unit */
};

/* CLPARITY_CR_TUNE's parameters (params.c), over a struct cr_tune. */
#define CR_N_PARAMS 10
extern const struct cp_param cr_params[CR_N_PARAMS];

#endif
