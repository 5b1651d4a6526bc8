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

/* The label that clparity prints, "0:0 pthread-skylake-avx512-AMD EPYC" (cp_device_label),
 * also cut short in a table ("0:0 pthread-skylake-avx512-AMD E..."): *p, *d its index and
 * *name (name_len characters, without the "..." of a cut) what follows it. */
static bool parse_label(const char *s, long *p, long *d, const char **name, size_t *name_len)
{
    size_t idx = strcspn(s, " \t");
    if (!s[idx] || idx >= 32)
        return false;
    char head[32];
    memcpy(head, s, idx);
    head[idx] = '\0';
    if (!parse_index(head, p, d) || *d < 0)
        return false;
    *name = s + idx;
    while (isspace((unsigned char)**name))
        ++*name;
    *name_len = strlen(*name);
    static const char *const cuts[] = {"...", "\xe2\x80\xa6"}; /* "..." and "…" */
    for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; ++c) {
        size_t k = strlen(cuts[c]);
        if (*name_len >= k && strcmp(*name + *name_len - k, cuts[c]) == 0)
            *name_len -= k;
    }
    return *name_len > 0;
}

/* The type keywords, matched against CL_DEVICE_TYPE's bits ("upper" for messages), and every
 * keyword of a selector. */
static const struct {
    const char *word, *upper;
    cl_device_type bit;
} types[] = {{"gpu", "GPU", CL_DEVICE_TYPE_GPU},
             {"cpu", "CPU", CL_DEVICE_TYPE_CPU},
             {"accelerator", "accelerator", CL_DEVICE_TYPE_ACCELERATOR}};
static const char keywords[] = "all,host,gpu,cpu,accelerator";

/* One selector (no commas). Returns how many devices it matched. */
static size_t match_one(const cp_devlist *l, const char *sel, bool *chosen)
{
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
    const char *name;
    size_t name_len;
    if (parse_label(sel, &p, &d, &name, &name_len)) {
        /* The device at P:D, when the name is its own (or the start of it, where cut). */
        for (size_t i = 0; i < l->n; ++i)
            if (l->v[i].kind == CP_DEV_OPENCL && l->v[i].plat_idx == p && l->v[i].dev_idx == d &&
                strncasecmp(l->v[i].name, name, name_len) == 0) {
                chosen[i] = true;
                hits++;
            }
        return hits;
    }
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

static bool is_keyword(const char *sel)
{
    size_t n = strlen(sel);
    for (const char *c = keywords; *c;) {
        size_t wl = strcspn(c, ",");
        if (wl == n && strncasecmp(c, sel, n) == 0)
            return true;
        c += wl + (c[wl] == ',');
    }
    return false;
}

/* For a selector that matches nothing, in one line: what there is and the selectors that take
 * it ("no GPU: OpenCL shows 1 CPU device (0:0 pthread-...) and the host; use -d cpu, -d 0:0 or
 * -d host"). Where OpenCL shows no
 * device, the environment's note says why and what to do. */
static void describe_list(const cp_devlist *l, const char *sel, char *buf, size_t len)
{
    size_t ncl = 0, shown = 0;
    const cp_device *first = NULL;
    for (size_t i = 0; i < l->n; ++i) { /* first: the first device that is no simulator */
        if (l->v[i].kind != CP_DEV_OPENCL)
            continue;
        ncl++;
        if (!first || (first->simulator && !l->v[i].simulator))
            first = &l->v[i];
    }
    buf[0] = '\0';
    if (ncl == 0 && l->env_note[0]) {
        snprintf(buf, len, "%s", l->env_note);
        return;
    }
    size_t used = 0;
#define PUT(...) (used += (size_t)snprintf(buf + used, used < len ? len - used : 0, __VA_ARGS__))
    for (size_t t = 0; t < sizeof types / sizeof types[0]; ++t)
        if (strcasecmp(sel, types[t].word) == 0)
            PUT("no %s: ", types[t].upper);
    if (ncl == 0)
        PUT("OpenCL shows no device, only the host");
    else
        PUT("OpenCL shows %zu device%s (", ncl, ncl == 1 ? "" : "s");
    for (size_t i = 0; i < l->n && ncl; ++i) {
        const cp_device *v = &l->v[i];
        if (v->kind != CP_DEV_OPENCL)
            continue;
        if (shown == 3) {
            PUT("; and %zu more", ncl - shown);
            break;
        }
        char type[64];
        cp_device_type_str(v->type, type, sizeof type);
        PUT("%s%d:%d %s, %s", shown ? "; " : "", v->plat_idx, v->dev_idx, v->name,
            v->simulator ? "simulator" : type);
        shown++;
    }
    if (ncl)
        PUT(") and the host");
    /* The fix: the first device's index (a simulator's only when no other), a type it has, and
     * host. */
    const char *type_word = NULL;
    for (size_t t = 0; first && !first->simulator && t < sizeof types / sizeof types[0]; ++t)
        if (!type_word && (first->type & types[t].bit))
            type_word = types[t].word;
    if (first)
        PUT("; use -d %d:%d%s%s or -d host", first->plat_idx, first->dev_idx,
            type_word ? ", -d " : "", type_word ? type_word : "");
    else
        PUT("; use -d host");
    PUT(" ('clparity devices' lists them)");
    if (l->env_note[0])
        PUT("; %s", l->env_note);
#undef PUT
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
            char what[3072], near[96];
            describe_list(l, start, what, sizeof what);
            cp_nearest nr;
            cp_nearest_start(&nr, start, strlen(start));
            cp_nearest_offer_list(&nr, keywords);
            cp_nearest_hint(&nr, "", near, sizeof near);
            if (is_keyword(start)) /* "gpu" is no slip for "cpu" */
                near[0] = '\0';
            st = cp_err_set(CP_FAIL_USAGE, "device selector '%s' matches no device%s: %s", start,
                            near, what);
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
