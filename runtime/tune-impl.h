/* Private: the name=value lists of the tune settings (CLPARITY_OWN_TUNE, `clparity tune`'s
 * store, CLPARITY_CR_TUNE), parsed from a table of parameters. */
#ifndef CLPARITY_TUNE_IMPL_H
#define CLPARITY_TUNE_IMPL_H

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

/* Whether spec parses as CLPARITY_CR_TUNE's settings (cr_cl.c): CP_OK or CP_FAIL_USAGE. Whether
 * the device can take them is checked when cl:cr starts. */
int cp_cr_tune_check(const char *spec);

#endif
