/* Which of cl:own's kernel paths runs: the default choice by the rule table, the fallbacks
 * where a probe rejects a path, and the chosen path's program. The tables themselves (paths,
 * rules, fallbacks) are own_path_table.c's. */
#include "clparity/env.h"
#include "cl-shared-impl.h"
#include "program-impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cp_probe_class own_probe_class(const cp_engine *e)
{
    const cp_model *m = e->model;
    int flags;
    struct cp_probe_class cls = {m->max_width > 128, e->max_batch > 16, own_cpu_uniform(m),
                                 own_uniform_model(m, &flags) ? flags : -1};
    return cls;
}

/* Test hook kernel-bit:<path>: that path's kernel flips one bit of one output; kernel-bit:all:
 * every path's. */
bool own_planted(const struct cl_state *s)
{
    char hook[32];
    snprintf(hook, sizeof hook, "kernel-bit:%s", own_paths[own_st(s)->path]->name);
    return cp_test_hook(hook) || cp_test_hook("kernel-bit:all");
}

/* Whether path p can run the engine's model on this device: CP_OK, or CP_FAIL_USAGE naming
 * what does not fit. */
static int path_fits(const cp_engine *e, const cp_device *dev, size_t max_wg, int p)
{
    char why[256];
    if (own_paths[p]->fits(e, dev, max_wg, why, sizeof why))
        return CP_OK;
    return cp_err_set(CP_FAIL_USAGE, "%s", why);
}

/* What cl_rule_first asks of a path: its fits(). */
struct fits_ctx {
    const cp_engine *e;
    const cp_device *dev;
    size_t max_wg;
};

static bool rule_fits(int path, const void *ctx)
{
    const struct fits_ctx *c = ctx;
    char why[256];
    return (size_t)path < own_n_paths &&
           own_paths[path]->fits(c->e, c->dev, c->max_wg, why, sizeof why);
}

int own_rule_path(const cp_engine *e, const cp_device *dev, size_t max_wg)
{
    int b = e->max_batch;
    struct cl_rule_input in = {.cpu = own_cpu_device(dev),
                               .cus = dev->compute_units,
                               .width = e->model->max_width,
                               .batch = b,
                               .blocks = (b + own_cpu_rows(b) - 1) / own_cpu_rows(b)};
    struct fits_ctx ctx = {e, dev, max_wg};
    return cl_rule_first(own_rules, own_n_rules, &in, rule_fits, &ctx);
}

int own_probe_order(const cp_device *dev, int first, int dflt, int order[OWN_PATHS_MAX + 2])
{
    /* the first choice, the device's own choice, then the paths after that in the list (all of
     * them where it is not in the list) */
    int n = 0;
    order[n++] = first;
    if (dflt != first)
        order[n++] = dflt;
    int after[OWN_PATHS_MAX];
    size_t n_after =
        cl_fallback_after(own_fallbacks, own_n_fallbacks, own_cpu_device(dev), dflt, after);
    for (size_t i = 0; i < n_after; ++i)
        if (after[i] != first)
            order[n++] = after[i];
    return n;
}

/* Which kernel cl:own uses: the forced path of a probe, else CLPARITY_OWN_KERNEL when set
 * (tests and tuning), else the first rule of own_rules[] that holds. The probe
 * (select_probed) may then take another. */
static int choose_path(cp_engine *e, const cp_device *dev, size_t max_wg, bool use_env, int forced,
                       int *path)
{
    if (forced >= 0) {
        *path = forced;
        return path_fits(e, dev, max_wg, forced);
    }
    const char *force = NULL;
    int st = use_env ? cp_env_get("CLPARITY_OWN_KERNEL", &force) : CP_OK;
    if (st != CP_OK)
        return st;
    if (force) {
        char names[160];
        size_t n = 0;
        for (int p = 0; (size_t)p < own_n_paths; ++p) {
            if (strcmp(force, own_paths[p]->name) == 0) {
                *path = p;
                return path_fits(e, dev, max_wg, p);
            }
            n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", p ? ", " : "",
                                  own_paths[p]->name);
        }
        return cp_err_set(CP_FAIL_USAGE, "CLPARITY_OWN_KERNEL: '%s' is not one of %s", force,
                          names);
    }
    *path = own_rule_path(e, dev, max_wg);
    if (*path >= 0)
        return CP_OK;
    return cp_err_set(CP_FAIL_RUNTIME, "cl:own: no rule of own_rules[] applies to this device");
}

/* Probes *path (cp_own_probe) and, where it fails, the fallbacks in turn; takes the first that
 * passes and records in e->paths which were rejected and why. Where none passes, the first
 * choice stays and the result is marked not exact (e->paths.exact = 0).
 *
 * cl:relaxed (s->relaxed) walks the same list, in the same order, with the relaxed probe
 * (cp_relaxed_probe: a bound, not bits) in place of the bit probe: it takes the path that
 * cl:own would take here unless fast math breaks that path's bound, and then the next, the
 * naive kernel last. A path that passes is "within its probe's bound" (exact stays -1, never
 * promised); where none passes, exact is 0: its outputs are not to be trusted. */
static int select_probed(cp_engine *e, const struct cl_state *s, const cp_device *dev,
                         size_t max_wg, int *path)
{
    if (cp_own_probe_off()) { /* CLPARITY_OWN_PROBE=off: unchecked, said so */
        e->paths.exact = -1;
        e->paths.probe_off = true;
        snprintf(e->paths.used, sizeof e->paths.used, "%s", own_paths[*path]->name);
        return CP_OK;
    }
    double t0 = cp_now();
    /* where the first choice was forced (CLPARITY_OWN_KERNEL), the device's own choice comes
     * next */
    int dflt;
    int st = choose_path(e, dev, max_wg, false, -1, &dflt);
    if (st != CP_OK)
        return st;
    cp_path_report *r = &e->paths;
    const cp_model *m = e->model;
    struct cp_probe_class cls = own_probe_class(e);
    int order[OWN_PATHS_MAX + 2];
    int n = own_probe_order(dev, *path, dflt, order);
    int max_in = 0;
    for (int l = 0; l < m->n_layers; ++l)
        max_in = m->layers[l].in > max_in ? m->layers[l].in : max_in;
    r->exact = 0;
    r->n_rejected = 0;
    for (int i = 0; i < n; ++i) {
        int p = order[i];
        if (i > 0 && path_fits(e, dev, max_wg, p) != CP_OK)
            continue; /* the first choice fits: choose_path checked it */
        enum cp_probe_verdict v = CP_PROBE_FAIL;
        char why[CP_PROBE_WHY - 32]; /* room for "does not apply: " */
        bool loop_rejects;           /* the loop check, with this model's widest layer */
        st = cp_own_loop_rule(dev, own_paths[p]->name, max_in, &loop_rejects, why, sizeof why);
        if (st == CP_OK && !loop_rejects)
            st = s->relaxed ? cp_relaxed_probe(dev, p, own_paths[p]->name, cls, &v, why, sizeof why)
                            : cp_own_probe(dev, p, own_paths[p]->name, cls, &v, why, sizeof why);
        if (st != CP_OK)
            return st;
        if (v == CP_PROBE_PASS) {
            *path = p;
            r->exact = s->relaxed ? -1 : 1;
            break;
        }
        /* a path that does not apply to the device (its launch refused) is listed too, so
         * that the report says why the first choice did not run */
        if (r->n_rejected < CP_PATHS_MAX) {
            snprintf(r->rejected[r->n_rejected].path, CP_PATH_NAME, "%s", own_paths[p]->name);
            snprintf(r->rejected[r->n_rejected].why, CP_PROBE_WHY, "%s%s",
                     v == CP_PROBE_NA ? "does not apply: " : "", why);
            ++r->n_rejected;
        }
    }
    if (r->exact == 0)
        *path = order[0];
    snprintf(r->used, sizeof r->used, "%s", own_paths[*path]->name);
    r->probe_s = cp_now() - t0;
    return CP_OK;
}

int own_path_setup(cp_engine *e, struct cl_state *s, const cp_device *dev, int forced)
{
    struct own_state *o = calloc(1, sizeof *o);
    if (!o)
        return cp_err_set(CP_FAIL_RUNTIME, "%s: out of memory", e->info->name);
    s->priv = o; /* freed by own_release, the naive path's release until a path is chosen */
    struct own_limits lim;
    cl_uint pref_vec;
    int st = own_device_info(dev->device_id, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof lim.max_wg,
                             &lim.max_wg, "clGetDeviceInfo(CL_DEVICE_MAX_WORK_GROUP_SIZE)");
    if (st == CP_OK)
        st = own_device_info(dev->device_id, CL_DEVICE_LOCAL_MEM_SIZE, sizeof lim.local_mem,
                             &lim.local_mem, "clGetDeviceInfo(CL_DEVICE_LOCAL_MEM_SIZE)");
    if (st == CP_OK)
        st =
            own_device_info(dev->device_id, CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, sizeof pref_vec,
                            &pref_vec, "clGetDeviceInfo(CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT)");
    /* the tune settings first: a bad CLPARITY_OWN_TUNE is the run's usage error, not a reason
     * for the probe to pass a path over */
    cp_own_tune tuned;
    enum cp_tune_source tsrc;
    if (st == CP_OK)
        st = cp_tune_get(dev, pref_vec, &tuned, &tsrc);
    if (st == CP_OK)
        st = choose_path(e, dev, lim.max_wg, true, forced, &own_st(s)->path);
    if (st == CP_OK && !s->probing)
        st = select_probed(e, s, dev, lim.max_wg, &own_st(s)->path);
    else if (st == CP_OK)
        snprintf(e->paths.used, sizeof e->paths.used, "%s", own_paths[own_st(s)->path]->name);
    const struct cl_path_ops *ops = own_paths[own_st(s)->path];
    s->ops = ops;
    if (st != CP_OK || !ops->options)
        return st; /* the naive path: block.cl, built by cl_create_common */

    char opts[384];
    st = ops->options(e, s, dev, &lim, &tuned, opts, sizeof opts);
    if (st != CP_OK)
        return st;
    /* Test hooks: kernel-bit:<path> plants one flipped bit of one output in that path's
     * kernel, the probe's build included (the probe must reject it); kernel-bit does so in the
     * reg and stream kernels after the probe (the comparison must see it). cl:relaxed takes
     * neither (its bits are never promised) but relaxed-wrong: a high bit of one output, its
     * probe's build included. */
    size_t n = strlen(opts);
    if (s->relaxed && cp_test_hook("relaxed-wrong"))
        snprintf(opts + n, sizeof opts - n, " %s %s %s", OWN_RELAXED_OPTIONS, ops->plant,
                 OWN_RELAXED_PLANT_MASK);
    else if (s->relaxed)
        snprintf(opts + n, sizeof opts - n, " %s", OWN_RELAXED_OPTIONS);
    else if (own_planted(s) ||
             (!s->probing && cp_test_hook("kernel-bit") && ops->plant_after_probe))
        snprintf(opts + n, sizeof opts - n, " %s", ops->plant);
    const char *names[2] = {own_st(s)->k_name, ops->kernel2};
    if ((st = cp_program_keep(opts, sizeof opts, names, 2)) != CP_OK)
        return st;
    e->build_cache.path = ops->name;
    st = cp_program_build_ex(s->ctx, dev->device_id, ops->file, opts, &own_st(s)->prog_path,
                             &e->build_cache);
    if (st != CP_OK)
        return st;
    cl_int rc;
    own_st(s)->k_path = clCreateKernel(own_st(s)->prog_path, own_st(s)->k_name, &rc);
    if (rc != CL_SUCCESS)
        return cp_err_set(CP_FAIL_RUNTIME, "clCreateKernel(%s) failed: %s (%d)", own_st(s)->k_name,
                          cp_cl_error_name(rc), rc);
    if (ops->kernel2) {
        own_st(s)->k_path4 = clCreateKernel(own_st(s)->prog_path, ops->kernel2, &rc);
        if (rc != CL_SUCCESS) {
            char what[96];
            snprintf(what, sizeof what, "clCreateKernel(%s)", ops->kernel2);
            return cp_err_cl(rc, what);
        }
    }
    static const char *const tune_src[] = {"default", "tuned", "CLPARITY_OWN_TUNE"};
    snprintf(e->build_options, sizeof e->build_options, "%s [%s%s, %s: %s]", "-cl-std=CL1.2",
             ops->name, s->relaxed ? " (relaxed)" : "", tune_src[tsrc], opts);
    return CP_OK;
}

size_t cp_own_path_count(void)
{
    return own_n_paths;
}

const char *cp_own_path_name(size_t i)
{
    return i < own_n_paths ? own_paths[i]->name : NULL;
}

int cp_own_probe_path(const cp_device *dev, size_t i, bool run, int *verdict, char *why, size_t len)
{
    if (dev->kind != CP_DEV_OPENCL || i >= own_n_paths)
        return cp_err_set(CP_FAIL_USAGE, "cl:own's paths are probed on OpenCL devices only");
    /* the reference model's class: 128 wide at most, batch 16 at most, square, ReLU and
     * residual (flags 6) */
    struct cp_probe_class cls = {false, false, true, 6};
    enum cp_probe_verdict v;
    int st = CP_OK;
    if (!cp_own_probe_kept(dev, (int)i, own_paths[i]->name, cls, &v, why, len)) {
        if (!run) {
            *verdict = -1;
            snprintf(why, len, "not probed yet");
            return CP_OK;
        }
        st = cp_own_probe(dev, (int)i, own_paths[i]->name, cls, &v, why, len);
    }
    if (st == CP_OK)
        *verdict = v == CP_PROBE_PASS ? 1 : v == CP_PROBE_FAIL ? 0 : -2;
    return st;
}
