/* The CLPARITY_* environment variables: one table of them all (name, what is accepted, the
 * default, a line on what it does), and the readers that check a value against it. Garbage in
 * a variable is a usage error (CP_FAIL_USAGE, cp_err_msg() naming the variable, the value and
 * what is accepted), never a silent default. docs/COMMANDS.md's list is checked against this
 * table (`clparity --env-table`, test cli/env_table). */
#ifndef CLPARITY_ENV_H
#define CLPARITY_ENV_H

#include "clparity/export.h"
#include <stdbool.h>
#include <stddef.h>

CP_API_BEGIN

enum cp_env_kind {
    CP_ENV_WORD,     /* one of the comma list words */
    CP_ENV_NUMBER,   /* a finite number in [min, max] */
    CP_ENV_INTEGER,  /* an integer in [min, max] */
    CP_ENV_FOLDER,   /* a folder that exists */
    CP_ENV_SETTINGS, /* name=value,...: checked by check */
    CP_ENV_TEXT,     /* checked where it is used (a selector, a test hook), or not read here */
};

typedef struct cp_env_var {
    const char *name; /* "CLPARITY_CACHE_MAX_MB" */
    enum cp_env_kind kind;
    const char *words;  /* CP_ENV_WORD: "off,on"; the first word of a synonym is the one shown */
    double min, max;    /* CP_ENV_NUMBER, CP_ENV_INTEGER */
    const char *accept; /* what is accepted, in words, for the error and the docs */
    const char *def;    /* the default, in words */
    const char *meaning;
    bool test_only;
    int (*check)(const char *value); /* CP_ENV_SETTINGS: CP_OK or CP_FAIL_USAGE with a message */
} cp_env_var;

/* The table, in the order docs/COMMANDS.md lists it. */
const cp_env_var *cp_env_table(size_t *n);

/* What v accepts, in words: "on or off" (markdown: "`on` or `off`"), "an integer from 1 to
 * 16", or the table's text. */
void cp_env_accepted(const cp_env_var *v, bool markdown, char *buf, size_t len);

/* The value of name, checked against the table: *value NULL where it is unset or empty.
 * CP_FAIL_USAGE on garbage; CP_FAIL_RUNTIME when name is not in the table (a reader that the
 * table misses: a bug, caught by the tests). */
int cp_env_get(const char *name, const char **value);
/* A CP_ENV_WORD variable: *index its word's position in the table's list, -1 when unset. */
int cp_env_word(const char *name, int *index);
/* A CP_ENV_NUMBER or CP_ENV_INTEGER variable: *set false (and *v untouched) when unset. */
int cp_env_number(const char *name, double *v, bool *set);

/* Checks every variable of the table that is set, before any work: the first bad one's
 * status (CP_FAIL_USAGE) with its message and *bad its entry (bad may be NULL), else CP_OK. */
int cp_env_check_all(const cp_env_var **bad);

CP_API_END

#endif
