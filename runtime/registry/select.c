#include "clparity/select.h"

#include "clparity/engine.h"
#include "clparity/format.h"

#include <ctype.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Whether the last cp_select on this thread asked for OpenCL: the default, or a selector other
 * than "host". Only then is what env_note says worth a warning. */
static _Thread_local bool asked_opencl;

static bool contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; ++hay)
        if (strncasecmp(hay, needle, n) == 0)
            return true;
    return false;
}

/* "P" or "P:D" with decimal digits only. */
static bool parse_index(const char *s, long *p, long *d)
{
    const char *c = s;
    if (!isdigit((unsigned char)*c))
        return false;
    errno = 0;
    char *end;
    *p = strtol(c, &end, 10);
    if (errno)
        return false;
    *d = -1;
    if (*end == '\0')
        return true;
    if (*end != ':' || !isdigit((unsigned char)end[1]))
        return false;
    *d = strtol(end + 1, &end, 10);
    return errno == 0 && *end == '\0';
}

/* One selector (no commas). Returns how many devices it matched. */
static size_t match_one(const cp_devlist *l, const char *sel, bool *chosen)
{
    static const struct {
        const char *word;
        cl_device_type bit;
    } types[] = {{"gpu", CL_DEVICE_TYPE_GPU},
                 {"cpu", CL_DEVICE_TYPE_CPU},
                 {"accelerator", CL_DEVICE_TYPE_ACCELERATOR}};
    size_t hits = 0;
    if (strcasecmp(sel, "all") == 0) {
        for (size_t i = 0; i < l->n; ++i, ++hits)
            chosen[i] = true;
        return hits;
    }
    if (strcasecmp(sel, "host") == 0) {
        for (size_t i = 0; i < l->n; ++i)
            if (l->v[i].kind == CP_DEV_HOST) {
                chosen[i] = true;
                hits++;
            }
        return hits;
    }
    for (size_t t = 0; t < sizeof types / sizeof types[0]; ++t) {
        if (strcasecmp(sel, types[t].word) != 0)
            continue;
        /* A simulator claims every type at once, so a type keyword passes it over. */
        for (size_t i = 0; i < l->n; ++i)
            if (l->v[i].kind == CP_DEV_OPENCL && !l->v[i].simulator &&
                (l->v[i].type & types[t].bit)) {
                chosen[i] = true;
                hits++;
            }
        return hits;
    }
    long p, d;
    if (parse_index(sel, &p, &d)) {
        for (size_t i = 0; i < l->n; ++i)
            if (l->v[i].kind == CP_DEV_OPENCL && l->v[i].plat_idx == p &&
                (d < 0 || l->v[i].dev_idx == d)) {
                chosen[i] = true;
                hits++;
            }
        return hits;
    }
    for (size_t i = 0; i < l->n; ++i) {
        const cp_device *v = &l->v[i];
        if (v->kind == CP_DEV_OPENCL &&
            (contains_ci(v->platform, sel) || contains_ci(v->platform_vendor, sel) ||
             contains_ci(v->vendor, sel) || contains_ci(v->name, sel))) {
            chosen[i] = true;
            hits++;
        }
    }
    return hits;
}

static int select_list(const cp_devlist *l, const char *list, bool *chosen)
{
    size_t len = strlen(list);
    char *copy = malloc(len + 1);
    if (!copy)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory parsing selectors");
    memcpy(copy, list, len + 1);
    int st = CP_OK;
    char *start = copy;
    for (;;) {
        char *comma = strchr(start, ',');
        if (comma)
            *comma = '\0';
        /* Leading and trailing blanks are the shell's or the user's slip, not part of a name. */
        while (isspace((unsigned char)*start))
            start++;
        size_t n = strlen(start);
        while (n && isspace((unsigned char)start[n - 1]))
            start[--n] = '\0';
        if (n == 0) {
            st = cp_err_set(CP_FAIL_USAGE, "empty device selector in '%s'", list);
            break;
        }
        if (strcasecmp(start, "host") != 0)
            asked_opencl = true;
        if (match_one(l, start, chosen) == 0) {
            st = cp_err_set(CP_FAIL_USAGE, "device selector '%s' matches no device%s%s", start,
                            l->env_note[0] ? ": " : "", l->env_note);
            break;
        }
        if (!comma)
            break;
        start = comma + 1;
    }
    free(copy);
    return st;
}

int cp_select(const cp_devlist *l, const char *const *sels, size_t nsel, const char *env_default,
              bool *chosen)
{
    for (size_t i = 0; i < l->n; ++i)
        chosen[i] = false;
    asked_opencl = false;
    if (nsel == 0 && env_default && env_default[0]) {
        int st = select_list(l, env_default, chosen);
        if (st != CP_OK) {
            char why[512];
            snprintf(why, sizeof why, "%s", cp_err_msg());
            return cp_err_set(st, "CLPARITY_DEVICES: %s", why);
        }
        return CP_OK;
    }
    if (nsel == 0) {
        asked_opencl = true;
        for (size_t i = 0; i < l->n; ++i)
            chosen[i] = !l->v[i].simulator;
        return CP_OK;
    }
    for (size_t s = 0; s < nsel; ++s) {
        int st = select_list(l, sels[s], chosen);
        if (st != CP_OK)
            return st;
    }
    return CP_OK;
}

static bool engine_applies(const cp_engine_info *info, const cp_devlist *devs, const bool *chosen)
{
    for (size_t i = 0; i < devs->n; ++i)
        if (chosen[i] && devs->v[i].kind == info->kind)
            return true;
    return false;
}

int cp_select_engines(const char *list, const cp_devlist *devs, const bool *chosen, bool *use)
{
    size_t n = cp_engine_count();
    for (size_t i = 0; i < n; ++i)
        use[i] = list == NULL && !cp_engine_at(i)->by_name &&
                 engine_applies(cp_engine_at(i), devs, chosen);
    if (list == NULL) {
        cp_select_warn(devs);
        return CP_OK;
    }
    char *copy = strdup(list);
    if (!copy)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory");
    int st = CP_OK;
    char *save = NULL;
    bool any = false;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        const cp_engine_info *info = cp_engine_find(tok);
        if (!info) {
            char known[512] = "", near[128];
            cp_nearest nr;
            cp_nearest_start(&nr, tok, strlen(tok));
            for (size_t i = 0; i < n; ++i) {
                snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "",
                         cp_engine_at(i)->name);
                cp_nearest_offer(&nr, cp_engine_at(i)->name, strlen(cp_engine_at(i)->name));
            }
            cp_nearest_hint(&nr, "", near, sizeof near);
            st = cp_err_set(CP_FAIL_USAGE, "--engines: unknown engine '%s'%s (known: %s)", tok,
                            near, known);
            goto out;
        }
        if (!engine_applies(info, devs, chosen)) {
            /* No OpenCL device, where one was asked for: the environment may say why. */
            bool why = info->kind == CP_DEV_OPENCL && asked_opencl && devs->env_note[0];
            st = cp_err_set(CP_FAIL_USAGE,
                            "--engines: %s applies to no selected device (it runs on %s)%s%s",
                            info->name, info->kind == CP_DEV_HOST ? "host" : "OpenCL devices",
                            why ? ": " : "", why ? devs->env_note : "");
            goto out;
        }
        for (size_t i = 0; i < n; ++i) /* the registry lists its entries, not one array */
            use[i] = use[i] || cp_engine_at(i) == info;
        any = true;
    }
    if (!any)
        st = cp_err_set(CP_FAIL_USAGE, "--engines: empty engine list");
out:
    free(copy);
    if (st == CP_OK)
        cp_select_warn(devs);
    return st;
}

void cp_select_warn(const cp_devlist *l)
{
    static bool warned;
    if (warned || !asked_opencl || !l->env_note[0])
        return;
    warned = true;
    fprintf(stderr, "clparity: warning: %s\n", l->env_note);
}
