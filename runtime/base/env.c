/* The CLPARITY_* variables: one table, and the readers that check a value against it. A value
 * that the table does not accept is a usage error that names the variable, the value and what
 * is accepted: a silent default would run another experiment than the one asked for. */
#include "clparity/env.h"

#include "clparity/error.h"
#include "clparity/train.h"
#include "clparity/tune.h"
#include "params-impl.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

static int own_tune_check(const char *value)
{
    cp_own_tune scratch;
    memset(&scratch, 0, sizeof scratch);
    return cp_tune_parse(value, &scratch);
}

/* clang-format off */
static const cp_env_var table[] = {
    {"CLPARITY_DEVICES", CP_ENV_TEXT, NULL, 0, 0,
     "selectors as -d takes them (one that matches nothing is status 2 when devices are selected)",
     "every non-simulator device plus host", "the default selectors when no -d is given", false,
     NULL},
    {"CLPARITY_OWN_PROBE", CP_ENV_WORD, "on,off", 0, 0, NULL, "on",
     "off: cl:own's kernel paths, cl:relaxed and the training kernels are taken unprobed", false,
     NULL},
    {"CLPARITY_KERNEL_DIR", CP_ENV_FOLDER, NULL, 0, 0, "a folder of .cl files",
     "the embedded kernels", "read the .cl files from this folder instead of the embedded copies",
     false, NULL},
    {"CLPARITY_CACHE", CP_ENV_WORD, "on,off,1,0,yes,no,true,false", 0, 0, NULL, "on",
     "off, 0, no or false: the program, peak and tune caches are neither read nor written",
     false, NULL},
    {"CLPARITY_ISOLATE", CP_ENV_WORD, "on,off", 0, 0, NULL, "on",
     "off: cl:own, cl:relaxed and cl:cr build and probe in this process (a compiler crash then "
     "ends the run) instead of a child clparity", false, NULL},
    {"CLPARITY_SETUP_TIMEOUT", CP_ENV_INTEGER, NULL, 1, 86400, NULL, "900",
     "seconds a setup child may build and probe before its path is rejected", false, NULL},
    {"CLPARITY_CACHE_MAX_MB", CP_ENV_NUMBER, NULL, 0, 1099511627776.0, NULL, "256",
     "the program cache's size cap in MiB (fractions allowed; 0 stores nothing)", false, NULL},
    {"CLPARITY_OWN_KERNEL", CP_ENV_WORD, "naive,small,tiled,vec,pipe,reg,cpu,cpu1,stream,cpug", 0,
     0, NULL, "the first rule of own_rules[] that holds", "force cl:own's (and cl:relaxed's) kernel",
     false, NULL},
    {"CLPARITY_HOST_THREADS", CP_ENV_INTEGER, NULL, 1, 16, NULL, "the cores, at most 16",
     "the most threads that host:openblas, host:exact and host:cr share a layer over", false,
     NULL},
    {"CLPARITY_HOST_SPLIT", CP_ENV_WORD, "auto,pool,openblas", 0, 0, NULL, "auto",
     "who shares out host:openblas's layers: the rules, the pool or OpenBLAS's threads", false,
     NULL},
    {"CLPARITY_HOST_PIN", CP_ENV_WORD, "0,1", 0, 0, NULL, "1",
     "0: the host pool's threads are never pinned to CPUs", false, NULL},
    {"CLPARITY_HOST_ISA", CP_ENV_WORD, "avx512,avx2,baseline", 0, 0, NULL,
     "the widest this CPU has",
     "host:exact's and host:cr's instruction-set level, and that of host:openblas's training "
     "update (one this CPU lacks is status 2 when either starts)",
     false, NULL},
    {"CLPARITY_HOST_CR", CP_ENV_WORD, "auto,scalar,generic", 0, 0, NULL, "auto",
     "host:cr's form: the certified fast path, the exact accumulator, or the portable loop",
     false, NULL},
    {"CLPARITY_HOST_CR_STATS", CP_ENV_WORD, "0,1", 0, 0, NULL, "0",
     "1: host:cr prints on stderr how many outputs took the exact fallback", false, NULL},
    {"CLPARITY_HOST_EXACT", CP_ENV_WORD, "scalar,generic", 0, 0, NULL, "the level's intrinsics",
     "host:exact's reference loop or its portable vector loop", true, NULL},
    {"CLPARITY_CR_TUNE", CP_ENV_SETTINGS, NULL, 0, 0,
     "name=value,... of path, wg, ob, sg, split, tk, vw, rb, exact, ftz, method",
     "the rules and tune's",
     "cl:cr's kernel settings", false, cp_cr_tune_check},
    {"CLPARITY_TRAIN_DIVSQRT", CP_ENV_WORD, CP_TRAIN_DIVSQRT_CHOICES, 0, 0, NULL,
     "the first the device can", "how train's Adam and AdamW divide and take square roots", false,
     NULL},
    {"CLPARITY_TRAIN_KERNELS", CP_ENV_WORD, "auto,simple,tiled,tiled1,tiled4,tiled8,cpu,stream", 0, 0, NULL,
     "auto: cpu on PoCL, simple on other CPU devices, on the others stream where every product is small "
     "(16x16 blocks, few outputs and terms), else tiled",
     "cl:own's training kernels: simple, or tiled (16x16, 64x64 or 128x128 outputs per work-group "
     "by the grid's size; tiled1, tiled4, tiled8: always 16x16, 64x64, 128x128), or cpu (two launches "
     "a step, the forward's register tile), or stream (the tiled blocks, the whole step in one launch); "
     "the same bits",
     true, NULL},
    {"CLPARITY_OWN_TUNE", CP_ENV_SETTINGS, NULL, 0, 0,
     "name=value,... of the names `clparity tune --help` lists", "tune's, else the defaults",
     "cl:own's kernel settings", false, own_tune_check},
    {"CLPARITY_TEST_HOOK", CP_ENV_TEXT, NULL, 0, 0,
     "a hook's name (docs/COMMANDS.md); one no hook knows does nothing", "none",
     "plants a defect or a failure, to show that a check can fail", true, NULL},
    {"CLPARITY_LIBRARY", CP_ENV_TEXT, NULL, 0, 0,
     "a path to libclparity.so (read by tools/python/clparity.py, not by the binary)",
     "beside the module, else build/", "the library that the Python module loads", false, NULL},
    {"CLPARITY_TEST_RANK_ICDS", CP_ENV_TEXT, NULL, 0, 0,
     "':'-separated ICD folders, rank 0 first (read by tests/mpi/rank.sh, not by the binary)",
     "none", "each MPI rank's OCL_ICD_VENDORS in the MPI tests", true, NULL},
    {"CLPARITY_FAULT_CLASS", CP_ENV_TEXT, NULL, 0, 0,
     "a class of calls (read by tests/faults/shim.c, not by the binary)", "malloc",
     "which calls the fault shim counts and fails", true, NULL},
    {"CLPARITY_FAULT_N", CP_ENV_TEXT, NULL, 0, 0,
     "1, 2, ... (read by tests/faults/shim.c, not by the binary)", "0: count only",
     "the call of that class that the fault shim fails", true, NULL},
    {"CLPARITY_FAULT_REPORT", CP_ENV_TEXT, NULL, 0, 0,
     "a file (read by tests/faults/shim.c, not by the binary)", "none",
     "where the fault shim writes its counts at exit", true, NULL},
    {"CLPARITY_FAULT_TRACE", CP_ENV_TEXT, NULL, 0, 0,
     "1 (read by tests/faults/shim.c, not by the binary)", "none",
     "the failed call's address and stack on stderr", true, NULL},
    {"CLPARITY_FAULT_PLANT", CP_ENV_TEXT, NULL, 0, 0,
     "a planted bug's name (read by tests/faults/shim.c, not by the binary)", "none",
     "a planted bug that the fault loop must catch", true, NULL},
};
/* clang-format on */

#define N_VARS (sizeof table / sizeof *table)

const cp_env_var *cp_env_table(size_t *n)
{
    *n = N_VARS;
    return table;
}

static const cp_env_var *find(const char *name)
{
    for (size_t i = 0; i < N_VARS; ++i)
        if (strcmp(table[i].name, name) == 0)
            return &table[i];
    return NULL;
}

/* The position of word in v's list (case-insensitive), or -1. */
static int word_index(const cp_env_var *v, const char *word)
{
    size_t n = strlen(word);
    int i = 0;
    for (const char *c = v->words; *c; ++i) {
        size_t len = strcspn(c, ",");
        if (len == n && strncasecmp(c, word, n) == 0)
            return i;
        c += len + (c[len] == ',');
    }
    return -1;
}

void cp_env_accepted(const cp_env_var *v, bool markdown, char *buf, size_t len)
{
    const char *q = markdown ? "`" : "";
    size_t k = 0, total = 1, i = 0;
    buf[0] = '\0';
    switch (v->kind) {
    case CP_ENV_WORD:
        for (const char *c = v->words; *c; ++c)
            total += *c == ',';
        for (const char *c = v->words; *c && k < len; ++i) {
            size_t wl = strcspn(c, ",");
            k += (size_t)snprintf(buf + k, len - k, "%s%s%.*s%s",
                                  i == 0           ? ""
                                  : i + 1 == total ? " or "
                                                   : ", ",
                                  q, (int)wl, c, q);
            c += wl + (c[wl] == ',');
        }
        return;
    case CP_ENV_NUMBER:
    case CP_ENV_INTEGER:
        snprintf(buf, len, "%s from %.17g to %.17g",
                 v->kind == CP_ENV_NUMBER ? "a number" : "an integer", v->min, v->max);
        return;
    case CP_ENV_FOLDER:
    case CP_ENV_SETTINGS:
    case CP_ENV_TEXT:
        snprintf(buf, len, "%s", v->accept);
        return;
    }
}

static int check_one(const cp_env_var *v, const char *value)
{
    char accepted[256];
    switch (v->kind) {
    case CP_ENV_WORD:
        if (word_index(v, value) >= 0)
            return CP_OK;
        cp_env_accepted(v, false, accepted, sizeof accepted);
        return cp_err_set(CP_FAIL_USAGE, "%s: '%s' is not %s", v->name, value, accepted);
    case CP_ENV_NUMBER:
    case CP_ENV_INTEGER: {
        char *end;
        errno = 0;
        double d = v->kind == CP_ENV_NUMBER ? strtod(value, &end) : (double)strtol(value, &end, 10);
        if (end != value && *end == '\0' && errno != ERANGE && isfinite(d) && d >= v->min &&
            d <= v->max)
            return CP_OK;
        return cp_err_set(CP_FAIL_USAGE, "%s: '%s' is not %s%.17g to %.17g", v->name, value,
                          v->kind == CP_ENV_NUMBER ? "a number from " : "", v->min, v->max);
    }
    case CP_ENV_FOLDER: {
        struct stat sb;
        if (stat(value, &sb) != 0)
            return cp_err_set(CP_FAIL_USAGE, "%s: '%s': %s (it must be %s)", v->name, value,
                              strerror(errno), v->accept);
        if (!S_ISDIR(sb.st_mode))
            return cp_err_set(CP_FAIL_USAGE, "%s: '%s' is not a folder (it must be %s)", v->name,
                              value, v->accept);
        return CP_OK;
    }
    case CP_ENV_SETTINGS:
        if (v->check(value) == CP_OK)
            return CP_OK;
        snprintf(accepted, sizeof accepted, "%s", cp_err_msg());
        return cp_err_set(CP_FAIL_USAGE, "%s: %s", v->name, accepted);
    case CP_ENV_TEXT:
        return CP_OK;
    }
    return CP_OK;
}

int cp_env_get(const char *name, const char **value)
{
    *value = NULL;
    const cp_env_var *v = find(name);
    if (!v)
        return cp_err_set(CP_FAIL_RUNTIME, "%s is read but is not in runtime/base/env.c's table",
                          name);
    const char *s = getenv(name);
    if (!s || !s[0])
        return CP_OK;
    int st = check_one(v, s);
    if (st == CP_OK)
        *value = s;
    return st;
}

int cp_env_word(const char *name, int *index)
{
    const char *s;
    *index = -1;
    int st = cp_env_get(name, &s);
    if (st == CP_OK && s)
        *index = word_index(find(name), s);
    return st;
}

int cp_env_number(const char *name, double *v, bool *set)
{
    const char *s;
    *set = false;
    int st = cp_env_get(name, &s);
    if (st == CP_OK && s) {
        *v = strtod(s, NULL);
        *set = true;
    }
    return st;
}

int cp_env_check_all(const cp_env_var **bad)
{
    if (bad)
        *bad = NULL;
    for (size_t i = 0; i < N_VARS; ++i) {
        const char *s;
        int st = cp_env_get(table[i].name, &s);
        if (st != CP_OK) {
            if (bad)
                *bad = &table[i];
            return st;
        }
    }
    return CP_OK;
}
