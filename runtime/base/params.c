/* The name=value settings of the tune parameters: the parser, cl:own's table (CLPARITY_OWN_TUNE,
 * `clparity tune`'s store; the fields of cp_own_tune) and cl:cr's (CLPARITY_CR_TUNE; struct
 * cr_tune). Pure string parsing, base-level: env.c checks the variables with it, below the
 * engines that read the settings (tune.c, cr_cl.c). */
#include "params-impl.h"
#include "clparity/error.h"
#include "clparity/format.h"
#include "clparity/tune.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct cp_param fields[] = {
    {"rc", offsetof(cp_own_tune, reg_rc), 4, {16, 32, 64, 128}, NULL},
    {"rd", offsetof(cp_own_tune, reg_rd), 3, {2, 3, 4}, NULL},
    {"bk", offsetof(cp_own_tune, tiled_bk), 2, {16, 32}, NULL},
    {"db", offsetof(cp_own_tune, tiled_db), 2, {0, 1}, NULL},
    {"xl", offsetof(cp_own_tune, tiled_xl), 2, {0, 1}, NULL},
    {"xp", offsetof(cp_own_tune, tiled_xp), 2, {0, 4}, NULL},
    {"pf", offsetof(cp_own_tune, tiled_pf), 2, {0, 1}, NULL},
    {"vw", offsetof(cp_own_tune, vec_w), 3, {4, 8, 16}, NULL},
    {"rb", offsetof(cp_own_tune, vec_rb), 5, {2, 4, 8, 12, 16}, NULL},
    {"nv", offsetof(cp_own_tune, vec_nv), 3, {1, 2, 4}, NULL},
    {"mc", offsetof(cp_own_tune, vec_mc), 7, {16, 32, 64, 128, 256, 512, 1024}, NULL},
    {"rr", offsetof(cp_own_tune, reg_rr), 5, {1, 2, 4, 8, 16}, NULL},
    {"so", offsetof(cp_own_tune, str_no), 6, {0, 4, 8, 16, 32, 64}, NULL},
    {"sk", offsetof(cp_own_tune, str_kc), 7, {0, 32, 64, 128, 256, 512, 1024}, NULL},
    {"sp", offsetof(cp_own_tune, str_sp), 2, {0, 1}, NULL},
    {"sg", offsetof(cp_own_tune, str_sg), 5, {0, 1, 2, 4, 8}, NULL},
    {"rg", offsetof(cp_own_tune, reg_rg), 4, {1, 2, 3, 4}, NULL},
    {"gu", offsetof(cp_own_tune, cpu_gu), 3, {1, 2, 4}, NULL},
};
#define N_FIELDS (sizeof fields / sizeof fields[0])

static int *param_field(void *out, const struct cp_param *p)
{
    return (int *)((char *)out + p->off);
}

/* p's values as a list ("1, 2, 4" or "auto, gemv"); the value v as p stores it, or false. */
static void param_values(const struct cp_param *p, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int a = 0; a < p->n && n < len; ++a) {
        if (p->words)
            n += (size_t)snprintf(buf + n, len - n, "%s%s", a ? ", " : "", p->words[a]);
        else
            n += (size_t)snprintf(buf + n, len - n, "%s%d", a ? ", " : "", p->allowed[a]);
    }
}

static bool param_value(const struct cp_param *p, const char *v, size_t len, int *out)
{
    if (p->words) {
        for (int a = 0; a < p->n; ++a)
            if (strlen(p->words[a]) == len && strncmp(v, p->words[a], len) == 0) {
                *out = a;
                return true;
            }
        return false;
    }
    char *num_end;
    errno = 0;
    long x = strtol(v, &num_end, 10);
    if (num_end != v + len || len == 0 || errno)
        return false;
    for (int a = 0; a < p->n; ++a)
        if (p->allowed[a] == x) {
            *out = (int)x;
            return true;
        }
    return false;
}

int cp_params_parse(const char *spec, const struct cp_param *params, size_t n, void *out)
{
    /* every value is checked before any is stored: a bad list leaves *out as it was */
    int values[32];
    size_t which[32], count = 0;
    const char *s = spec;
    while (*s) {
        const char *eq = strchr(s, '=');
        const char *end = strchr(s, ',');
        if (!end)
            end = s + strlen(s);
        if (!eq || eq > end)
            return cp_err_set(CP_FAIL_USAGE, "tuning '%s': '%.*s' is not name=value", spec,
                              (int)(end - s), s);
        size_t i = 0;
        while (i < n && !((size_t)(eq - s) == strlen(params[i].name) &&
                          strncmp(s, params[i].name, (size_t)(eq - s)) == 0))
            ++i;
        if (i == n) {
            char names[256], near[96];
            size_t len = 0;
            names[0] = '\0';
            cp_nearest nr;
            cp_nearest_start(&nr, s, (size_t)(eq - s));
            for (size_t k = 0; k < n && len < sizeof names; ++k) {
                len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", k ? ", " : "",
                                        params[k].name);
                cp_nearest_offer(&nr, params[k].name, strlen(params[k].name));
            }
            cp_nearest_hint(&nr, "", near, sizeof near);
            return cp_err_set(CP_FAIL_USAGE, "tuning '%s': unknown parameter '%.*s'%s (%s)", spec,
                              (int)(eq - s), s, near, names);
        }
        int v;
        if (!param_value(&params[i], eq + 1, (size_t)(end - eq - 1), &v)) {
            char list[128];
            param_values(&params[i], list, sizeof list);
            return cp_err_set(CP_FAIL_USAGE, "tuning '%s': %s must be one of %s", spec,
                              params[i].name, list);
        }
        if (count == sizeof values / sizeof values[0])
            return cp_err_set(CP_FAIL_USAGE, "tuning '%s': more than %zu settings", spec, count);
        values[count] = v;
        which[count++] = i;
        s = *end ? end + 1 : end;
    }
    for (size_t k = 0; k < count; ++k)
        *param_field(out, &params[which[k]]) = values[k];
    return CP_OK;
}

int cp_tune_parse(const char *spec, cp_own_tune *t)
{
    return cp_params_parse(spec, fields, N_FIELDS, t);
}

static const char *const cr_path_words[] = {"auto",   "gemv", "splitk", "gemm", "cpu",
                                            "stream", "cpu1", "team",   "tiles"};
/* method=auto: the device's (double where it has cl_khr_fp64, else float32); f32: the float32-only
 * method forced */
static const char *const cr_method_words[] = {"auto", "f32"};
const struct cp_param cr_params[] = {
    {"path",
     offsetof(struct cr_tune, path),
     (int)(sizeof cr_path_words / sizeof *cr_path_words),
     {0},
     cr_path_words},
    {"wg", offsetof(struct cr_tune, wg), 4, {16, 32, 64, 128}, NULL},
    {"ob", offsetof(struct cr_tune, ob), 4, {1, 2, 4, 8}, NULL},
    {"split", offsetof(struct cr_tune, split), 7, {1, 2, 3, 4, 5, 8, 16}, NULL},
    {"tk", offsetof(struct cr_tune, tk), 5, {8, 16, 32, 64, 128}, NULL},
    {"vw", offsetof(struct cr_tune, vw), 3, {4, 8, 16}, NULL},
    {"rb", offsetof(struct cr_tune, rb), 4, {1, 2, 4, 8}, NULL},
    {"exact", offsetof(struct cr_tune, exact), 2, {0, 1}, NULL},
    {"ftz", offsetof(struct cr_tune, ftz), 2, {0, 1}, NULL},
    {"sg", offsetof(struct cr_tune, sg), 5, {1, 2, 4, 8, 16}, NULL},
    {"method", offsetof(struct cr_tune, method), 2, {0}, cr_method_words},
    {"rm", offsetof(struct cr_tune, rm), 4, {1, 2, 4, 8}, NULL},
};

int cp_cr_tune_check(const char *spec)
{
    struct cr_tune scratch;
    memset(&scratch, 0, sizeof scratch);
    return cp_params_parse(spec, cr_params, sizeof cr_params / sizeof *cr_params, &scratch);
}
