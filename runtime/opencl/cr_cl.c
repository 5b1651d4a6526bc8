/* cl:cr: correctly rounded layers on the OpenCL device (issue 23, part 2; docs/ENGINES.md,
 * "host:cr and cl:cr"). Every output is RN(sum_k x[k]·W[o][k] + b[o]), then the activation and
 * the residual: host:cr's bits on every device, whatever the kernel variant, its work-group
 * size, the split of k or the tune settings. clkernels/cr.cl is hostblas/cr.c's method in OpenCL
 * C (its first comment says why any split is covered); this file picks the variant (its rows
 * of the paths' type, cr_cl_run.c, and an ordered rule table of the rule type of cl:own's
 * own_path.c) and builds it with cl:own's strict options; cr_cl_run.c uploads the weights' row
 * norms and launches the layers. engine_cl.c shares with cl:own the context, the weights as
 * stored (which cr.cl reads in place), the activations, the forward's frame and the round trip.
 *
 * Each device takes one of two arithmetics: where it has cl_khr_fp64, the certified double sums
 * with the exact accumulator where the certificate fails; without (Mesa rusticl on llvmpipe),
 * the float32-only certified sums (clkernels/cr_f32.cl: variant f32-item on CPUs, f32
 * elsewhere) with the same fallback, or
 * with exact=1 the exact integer accumulator for every output. method=f32 forces the float32
 * method anywhere. The routine string says which. */
#include "cr-cl-run-impl.h"
#include "own-impl.h"
#include "program-impl.h"
#include "tune-impl.h"
#include "clparity/env.h"
#include "hostblas/cr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(CR_CL_DIGITS == CR_DIGITS, "cr.cl's accumulator is cr.c's");

/* ---- the choice --------------------------------------------------------------------------- */

/* The widest layers that the rules give tiles, and for which cr_width_defaults sets its own. */
enum { CR_TILES_WIDTH = 128 };

/* The default variant: the first rule whose conditions hold (cl_rule_first, cl-shared-impl.h:
 * the rule type of cl:own's own_rules[]; a limit of 0 is none). */
static const struct cl_rule cr_rules[] = {
    /* PoCL where the weights fit one buffer: cpu1, the whole model in one launch (PoCL's cost
     * per launch was most of cpu's time at the reference model; docs/PERFORMANCE.md) */
    {.needs_f64 = true, .kind = CL_RULE_CPU, .one_buffer = true, .path = CR_CPU1},
    /* PoCL: work-items of double vectors over packed panels, no local memory. Measured on the
     * 2-core EPYC (PoCL 3.1, 2026-11-26, ms per forward, loaded machine): d=128 L=128 B=1 cpu
     * 2.0 (vw=16, rb=1) against gemv's 6.7; d=512 L=8 B=64 cpu 25-47 (vw=16, rb=4) against
     * gemv's 190, gemm's 178 and splitk's 237 */
    {.needs_f64 = true, .kind = CL_RULE_CPU, .path = CR_CPU},
    /* GPUs at small batches: every layer in one launch (a launch per layer costs 13 us a layer
     * on the H100, docs/PERFORMANCE.md), up to B=64 (H100, d=1024 L=32 B=32: 2.07 ms against
     * gemm's 17.95, whose 32 x 32 tiles leave most of the GPU idle at small batches) */
    {.needs_f64 = true, .kind = CL_RULE_OTHER, .b_max = 64, .one_buffer = true, .path = CR_STREAM},
    /* GPUs at B=65..2048 and layers up to 128 wide: gemm's tiles with every layer in one launch
     * (H200, d=128 L=128, ms per forward: B=256 1.13-1.14 against gemm's 1.65-1.99, a launch per
     * layer, on 2026-11-29; with cr_width_defaults' settings of 2026-11-30 B=512 1.28 against
     * 1.65, B=1024 1.75 against 2.19, B=2048 2.45 against 2.83; docs/PERFORMANCE.md) */
    {.needs_f64 = true,
     .kind = CL_RULE_OTHER,
     .w_max = CR_TILES_WIDTH,
     .b_over = 64,
     .b_max = 2048,
     .one_buffer = true,
     .path = CR_TILES},
    /* elsewhere the tiled GEMM for large batches where its double sums run (past B=64, or past
     * B=16 where the weights span several buffers): it reads each weight once per 32 rows,
     * gemv once per row */
    {.needs_f64 = true, .kind = CL_RULE_OTHER, .b_over = 16, .path = CR_GEMM},
    /* without fp64: the float32-only certified method (cr_f32.cl), on CPUs a work-item per
     * output and row (no barrier: llvmpipe runs such work-items as SIMD lanes), elsewhere a
     * work-group per row and block of outputs as gemv's; rusticl on llvmpipe, 2-core EPYC,
     * 2026-11-28: docs/PERFORMANCE.md (cl:cr without fp64) */
    {.no_f64 = true, .kind = CL_RULE_CPU, .path = CR_F32_ITEM},
    /* on GPUs at B up to 4 and layers up to 2048 wide, every layer in one launch as stream
     * (H200, method=f32 forced, 2026-11-30, ms per forward, f32-stream against f32: d=128 L=128
     * B=1 0.33 against 2.05, d=1024 L=128 B=1 0.98 against 2.05, d=2048 L=64 B=1 1.01 against
     * 1.42; but d=4096 L=32 B=1 2.64 against 1.64 and d=512 L=8 B=64 0.64 against 0.32:
     * docs/PERFORMANCE.md, "The float32-only method in one launch") */
    {.no_f64 = true,
     .kind = CL_RULE_OTHER,
     .w_max = 2048,
     .b_max = 4,
     .one_buffer = true,
     .path = CR_F32_STREAM},
    /* on GPUs past B=256 with layers up to 1024 wide, gemm's tiles (H200, method=f32 forced,
     * 2026-11-30, ms per forward, f32-gemm against f32: d=128 L=128 B=2048 5.4 against 22.8,
     * B=512 3.8 against 6.5, d=64 L=128 B=512 3.5 against 3.6, d=256 L=64 B=512 2.7 against
     * 6.6, d=512 L=16 B=2048 5.8 against 14.4, d=1024 L=16 B=1024 11.9 against 19.2; but
     * d=128 L=128 B=256 4.3 against 3.8: docs/PERFORMANCE.md) */
    {.no_f64 = true, .kind = CL_RULE_OTHER, .w_max = 1024, .b_over = 256, .path = CR_F32_GEMM},
    {.no_f64 = true, .kind = CL_RULE_ANY, .path = CR_F32},
    /* else a work-group per row and block of outputs: every device, with or without fp64
     * (without, its exact sums are shared by the group's work-items, as cpu's and gemm's are
     * not) */
    {.kind = CL_RULE_ANY, .path = CR_GEMV},
};

int cr_rule_variant(const struct cl_rule_input *in)
{
    return cl_rule_first(cr_rules, sizeof cr_rules / sizeof *cr_rules, in, NULL, NULL);
}

const char *cr_variant_name(int v)
{
    return v >= 0 && v < CR_N_PATHS ? cr_paths[v].name : NULL;
}

static bool cr_has_extension(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return true;
    return false;
}

int cr_cl_device_f64(const cp_device *dev, bool *f64)
{
    size_t len = 0;
    cl_int rc = clGetDeviceInfo(dev->device_id, CL_DEVICE_EXTENSIONS, 0, NULL, &len);
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clGetDeviceInfo(CL_DEVICE_EXTENSIONS)");
    char *ext = calloc(len + 1, 1);
    if (!ext)
        return cp_err_set(CP_FAIL_RUNTIME, "cl:cr: out of memory");
    rc = clGetDeviceInfo(dev->device_id, CL_DEVICE_EXTENSIONS, len, ext, NULL);
    *f64 = rc == CL_SUCCESS && cr_has_extension(ext, "cl_khr_fp64");
    free(ext);
    return rc == CL_SUCCESS ? CP_OK : cp_err_cl(rc, "clGetDeviceInfo(CL_DEVICE_EXTENSIONS)");
}

/* Where the settings came from (the build options' words). */
static const char *const cr_tune_src[] = {"default", "tuned", "CLPARITY_CR_TUNE"};

/* The settings for an engine of max_batch rows on dev: the defaults (rows per work-item left
 * unset: cr_width_defaults sets them by the variant, the widest layer, the batch and the
 * device), then what `clparity tune` stored for the device
 * (cp_tune_cr_stored; a list that does not parse, or names path, exact or ftz, is ignored; a
 * stored rb is the most rows per work-item, fewer for smaller batches), then CLPARITY_CR_TUNE.
 * *src: the last that applied (cr_tune_src). wg_set: whether CLPARITY_CR_TUNE names wg (a
 * stored or default wg is halved where the device needs it, a named one must fit). */
int cr_tune_env(struct cr_tune *t, bool *set)
{
    const char *env;
    int st = cp_env_get("CLPARITY_CR_TUNE", &env);
    *set = false;
    if (st != CP_OK || !env)
        return st;
    if (cp_params_parse(env, cr_params, CR_N_PARAMS, t) != CP_OK)
        return cp_err_set(CP_FAIL_USAGE, "CLPARITY_CR_TUNE: %s", cp_err_msg());
    *set = true;
    return CP_OK;
}

static int cr_tune_get(const cp_device *dev, struct cr_tune *t, int max_batch, bool *wg_set,
                       int *src)
{
    const size_t n = sizeof cr_params / sizeof *cr_params;
    *t = (struct cr_tune){.path = 0,
                          .wg = -1,
                          .ob = -1,
                          .split = 4,
                          .tk = 16,
                          .vw = -1,
                          .rb = -1,
                          .sg = -1,
                          .rm = -1};
    *src = 0;
    char spec[256];
    struct cr_tune stored = *t;
    stored.path = stored.exact = stored.ftz = stored.method = -1; /* set by the list: ignored */
    if (cp_tune_cr_stored(dev, spec, sizeof spec) &&
        cp_params_parse(spec, cr_params, n, &stored) == CP_OK && stored.path < 0 &&
        stored.exact < 0 && stored.ftz < 0 && stored.method < 0) {
        stored.path = t->path;
        stored.exact = t->exact;
        stored.ftz = t->ftz;
        stored.method = t->method;
        *t = stored;
        if (t->rb > own_cpu_rows(max_batch))
            t->rb = own_cpu_rows(max_batch);
        *src = 1;
    }
    int wg = t->wg;
    t->wg = -1;
    bool set;
    int st = cr_tune_env(t, &set);
    if (st != CP_OK)
        return st;
    if (set)
        *src = 2;
    *wg_set = t->wg > 0;
    if (!*wg_set)
        t->wg = wg;
    return CP_OK; /* rb, where neither stored nor set: cr_width_defaults */
}

/* The settings left to the variant and the width (-1: neither stored nor in CLPARITY_CR_TUNE):
 * ob 4 for gemv and splitk; stream's work-items, outputs per group and groups per compute unit
 * by the widest layer, the best measured on the H100 (docs/PERFORMANCE.md, 2026-11-26: d=128
 * L=128 B=1 0.30 ms with wg=32,ob=1,sg=1 against 0.39 with 64,4,4; d=256 0.38 with 64,1,4;
 * d=512 0.54 with 128,2,4; d=1024 and 2048 1.32 and 2.62 with 128,4,4; d=4096 0.88 with
 * 128,8,4 against 1.26 with 64,4,4). */
static void cr_width_defaults(struct cr_tune *t, enum cr_path path, int width, int max_batch,
                              cl_uint dvec, int cus)
{
    static const struct {
        int width, wg, ob, sg;
    } shapes[] = {
        {128, 32, 1, 1}, {256, 64, 1, 4}, {512, 128, 2, 4}, {2048, 128, 4, 4}, {0, 128, 8, 4}};
    size_t i = 0;
    while (shapes[i].width && width > shapes[i].width)
        ++i;
    bool stream = path == CR_STREAM || path == CR_F32_STREAM;
    if (t->wg <= 0 && stream)
        t->wg = shapes[i].wg;
    if (t->vw < 0) /* cpu: outputs per work-item; cpu1: lanes of k, a double8 */
        t->vw = path == CR_CPU1 ? 8 : 16;
    /* rows per work-item: own_cpu_rows' (4 from B=4); cpu1 8 where the layers are 512 wide or
     * more, the device's double vectors 8 wide (AVX-512: 32 double8 accumulators, its 32
     * registers) and the batch a block of 8 rows for every compute unit (its work-items are the
     * row blocks): 15-20 % faster on the CI machine's 2 cores (PoCL 3.1, Intel's CPU runtime),
     * the same on the H200 machine's 16 (PoCL 5), slower at d=128 (docs/PERFORMANCE.md) */
    if (t->rb < 0)
        t->rb =
            path == CR_CPU1 && width >= 512 && dvec >= 8 && max_batch >= 16 && max_batch >= 8 * cus
                ? 8
                : own_cpu_rows(max_batch);
    if (t->ob < 0 && path == CR_CPU1) /* 16 accumulators of 4 rows, 8 of fewer */
        t->ob = t->rb >= 4 ? 4 : 8;
    if (t->ob < 0)
        t->ob = stream ? shapes[i].ob : 4;
    /* tiles up to 128 wide (where the rules take it): many tiles in flight, with one row and
     * output per work-item and 4 groups per compute unit up to B=256, 2 × 2 and 8 groups past it
     * (H200, 2026-11-30, ms per forward, against rm=2 sg=1: d=128 L=128 B=65 0.78 against 1.07,
     * B=128 0.85 against 1.11, B=256 1.09 against 1.21, d=64 L=128 B=256 0.60 against 0.78;
     * against gemm's launch per layer: B=512 1.28 against 1.65, B=2048 2.45 against 2.83;
     * docs/PERFORMANCE.md) */
    const bool narrow_tiles = cr_path_tiles(path) && width <= CR_TILES_WIDTH,
               few = max_batch <= 256;
    if (t->sg < 0)
        t->sg = narrow_tiles ? (few ? 4 : 8) : shapes[i].sg;
    /* gemm's and tiles' rows and outputs per work-item: 2 below 1024 wide (more tiles for the
     * compute units), else 4 (H200, docs/PERFORMANCE.md: d=128 B=2048 3.35 ms with 2 against
     * 4.61 with 4; d=4096 B=4096 200 ms with 4 against 207 with 8) */
    if (t->rm < 0 && path == CR_F32_GEMM) /* (H200, 2026-11-30: d=128 L=128 B=2048 5.39 ms with 1
                                           * against 5.42 with 2; d=256 L=64 B=512 2.72 and 2.96;
                                           * d=512 L=16 B=2048 6.11 and 5.83) */
        t->rm = width <= 256 ? 1 : 2;
    if (t->rm < 0)
        t->rm = narrow_tiles && few ? 1 : width < 1024 ? 2 : 4;
}

static size_t cr_group_local_bytes(const struct cr_cl *c)
{
    size_t loc[3];
    cr_group_locals(c, loc);
    return loc[0] + loc[1] + loc[2] + 64; /* + cr.cl's own few __local ints */
}

/* The work-group size: CLPARITY_CR_TUNE's, which must fit the device, or the stored one or 64,
 * halved until it fits the device's work-groups and local memory. */
static int cr_choose_wg(struct cr_cl *c, bool wg_set, size_t max_wg, cl_ulong local_mem)
{
    if (c->tune.wg <= 0)
        c->tune.wg = 64;
    for (;;) {
        bool fits = (size_t)c->tune.wg <= max_wg && cr_group_local_bytes(c) <= local_mem;
        if (fits)
            return CP_OK;
        if (wg_set || c->tune.wg == 16)
            return cp_err_set(CP_FAIL_USAGE,
                              "cl:cr: work-groups of %d (ob=%d) need %zu bytes of local memory "
                              "and CL_DEVICE_MAX_WORK_GROUP_SIZE >= %d; this device has %llu "
                              "bytes and %zu: set a smaller wg or ob in CLPARITY_CR_TUNE",
                              c->tune.wg, c->tune.ob, cr_group_local_bytes(c), c->tune.wg,
                              (unsigned long long)local_mem, max_wg);
        c->tune.wg /= 2;
    }
}

/* team's work-group: split work-items (CLPARITY_CR_TUNE's split) for each of a power of two of
 * outputs at once, as many as the widest layer has, within 1024 work-items, the device's
 * work-groups and its local memory (the widest input as a double and a uint, and a double per
 * work-item and per split); wg in CLPARITY_CR_TUNE is not taken. The weights loaded ahead: as
 * many as a work-item reads of the widest layer's first pass, 32 at most. */
static int cr_team_wg(struct cr_cl *c, int width, size_t max_wg, cl_ulong local_mem)
{
    int tpo = c->tune.split, slots = 1;
    while (slots < width && (size_t)(2 * slots * tpo) <= (max_wg < 1024 ? max_wg : 1024))
        slots *= 2;
    c->tune.wg = slots * tpo;
    c->pf = (width + tpo - 1) / tpo < 32 ? (width + tpo - 1) / tpo : 32;
    size_t need = (size_t)width * (sizeof(cl_double) + sizeof(cl_uint)) +
                  (size_t)(c->tune.wg + tpo) * sizeof(cl_double) + 64;
    if ((size_t)c->tune.wg > max_wg || need > local_mem)
        return cp_err_set(CP_FAIL_USAGE,
                          "cl:cr: path team needs work-groups of %d and %zu bytes of local "
                          "memory for a width of %d; this device has %zu and %llu bytes: set "
                          "path=stream or a smaller split in CLPARITY_CR_TUNE",
                          c->tune.wg, need, width, max_wg, (unsigned long long)local_mem);
    return CP_OK;
}

/* Where the device stops a work-item's loops early (cl:own's loop check, clkernels/probe.cl:
 * Mesa llvmpipe after 65535 iterations in all), the variant's bound for the widest layer must
 * stay below that budget, with a factor 2 to spare. */
static int cr_check_loops(const cp_engine *e, const struct cr_cl *c, const cp_device *dev)
{
    if (cp_own_probe_off()) /* CLPARITY_OWN_PROBE=off: no device check at all, as for cl:own */
        return CP_OK;
    long ran;
    int st = cp_own_loop_check(dev, &ran);
    if (st != CP_OK || ran >= CP_LOOP_CHECK_N)
        return st;
    const cp_model *m = e->model;
    if (cr_paths[c->path].enqueue_model) /* the whole model in one launch */
        return cp_err_set(CP_FAIL_USAGE,
                          "cl:cr: %s stops a work-item's loops after %ld iterations in all (as "
                          "Mesa llvmpipe does), and path %s runs every layer in one "
                          "work-item's loops: set path=gemv in CLPARITY_CR_TUNE",
                          dev->name, ran, cr_paths[c->path].name);
    for (int l = 0; l < m->n_layers; ++l) {
        long need = cr_paths[c->path].loop_need(c, m->layers[l].in);
        if (2 * need >= ran)
            return cp_err_set(CP_FAIL_USAGE,
                              "cl:cr: %s stops a work-item's loops after %ld iterations in all "
                              "(as Mesa llvmpipe does), and path %s (wg=%d) may need %ld for "
                              "layer %d (%d inputs): set a larger wg in CLPARITY_CR_TUNE, or "
                              "path=gemv",
                              dev->name, ran, cr_paths[c->path].name, c->tune.wg, need, l,
                              m->layers[l].in);
    }
    return CP_OK;
}

/* What the variant holds beyond cl:cr's footprint (cp_engine_footprint, checked before the
 * run): split-k's partial sums for the engine's largest batch, cpu's packed copy of the
 * weights; a usage error where the device cannot hold it. */
static int cr_check_memory(const cp_engine *e, struct cr_cl *c, const cp_device *dev)
{
    const cp_model *m = e->model;
    unsigned long long extra = 0, largest_extra = 0, total, largest;
    const char *what = NULL, *hint = NULL;
    if (c->path == CR_SPLITK) {
        size_t n = (size_t)e->max_batch * (size_t)m->max_width * (size_t)c->tune.split;
        c->part_bytes = n * (c->f64 ? sizeof(cl_double) : CR_CL_DIGITS * sizeof(cl_long));
        c->pflags_bytes = c->f64 ? 0 : n * sizeof(cl_uint);
        extra = c->part_bytes + c->pflags_bytes;
        largest_extra = c->part_bytes;
        what = "split-k partial sums";
        hint = "set a smaller split in CLPARITY_CR_TUNE";
    } else if (c->path == CR_CPU) {
        for (int l = 0; l < m->n_layers; ++l) {
            const cp_layer *L = &m->layers[l];
            unsigned long long b =
                own_layer_t_size(L, (int)own_round_up((size_t)L->out, (size_t)c->tune.vw)) *
                sizeof(float);
            extra += b;
            largest_extra = b > largest_extra ? b : largest_extra;
        }
        what = "packed weights";
        hint = "set path=gemv in CLPARITY_CR_TUNE";
    } else if (c->path == CR_F32_GEMM) {
        extra = largest_extra =
            ((unsigned long long)m->n_layers +
             2 * (unsigned long long)e->max_batch * (unsigned long long)m->max_width) *
            sizeof(cl_uint);
        what = "list of outputs to sum exactly";
        hint = "set path=gemv in CLPARITY_CR_TUNE";
    } else if (c->path == CR_CPU1 && c->f64) {
        extra = largest_extra =
            (unsigned long long)e->max_batch * (unsigned long long)m->max_width * sizeof(cl_double);
        what = "inputs as doubles";
        hint = "set path=cpu in CLPARITY_CR_TUNE";
    }
    if (!what)
        return CP_OK;
    cp_engine_footprint(e->info, m, e->max_batch, &total, &largest);
    total += extra;
    if (largest_extra > dev->max_alloc || total > dev->global_mem)
        return cp_err_set(CP_FAIL_USAGE,
                          "model too large for %s: cl:cr's %s (path %s, batch %d) need %llu "
                          "bytes in one buffer and %llu in all > CL_DEVICE_MAX_MEM_ALLOC_SIZE %llu "
                          "or CL_DEVICE_GLOBAL_MEM_SIZE %llu: %s",
                          dev->name, what, cr_paths[c->path].name, e->max_batch, largest_extra,
                          total, (unsigned long long)dev->max_alloc,
                          (unsigned long long)dev->global_mem, hint);
    return CP_OK;
}

/* Test hook corrupt-cl-cr:<name>[+<name>...]: those variants flip the bit in every build,
 * their probes' included, so that the probe must reject them. */
static bool cr_hook_names(const char *name)
{
    const char *h = getenv("CLPARITY_TEST_HOOK");
    const char *pre = "corrupt-cl-cr:";
    if (!h || strncmp(h, pre, strlen(pre)) != 0)
        return false;
    size_t n = strlen(name);
    for (const char *p = h + strlen(pre); *p;) {
        size_t len = strcspn(p, "+");
        if (len == n && strncmp(p, name, n) == 0)
            return true;
        p += len + (p[len] == '+');
    }
    return false;
}

/* cr.cl's build options for c's settings. */
static void cr_options(const struct cr_cl *c, const cp_device *dev, char *opts, size_t len)
{
    bool grid = c->path == CR_STREAM || cr_path_tiles(c->path) ||
                c->path == CR_F32_STREAM; /* grid_sync.cl's barrier */
    char team[48] = "";
    if (c->path == CR_TEAM)
        snprintf(team, sizeof team, " -DCR_TEAM -DCR_TPO=%d -DCR_PF=%d", c->tune.split, c->pf);
    else if (cr_path_tiled(c->path)) /* the tiles' size, the host's too */
        snprintf(team, sizeof team, " -DCR_RM=%d", c->tune.rm);
    snprintf(opts, len,
             "-cl-std=CL1.2 -DCR_WG=%d -DCR_OB=%d -DCR_TK=%d -DCR_VW=%d -DCR_RB=%d%s%s%s%s%s%s%s%s",
             c->tune.wg, c->tune.ob, c->tune.tk, c->tune.vw, c->tune.rb, c->f64 ? " -DCR_F64" : "",
             c->ftz ? " -DCR_NO_DENORM" : "", c->planted ? " -DCP_PLANT_BIT" : "",
             grid ? " -DCR_STREAM" : "", grid ? own_spin_bound_options(dev) : "", team,
             cr_hook_names("second") ? " -DCR_CERT2_ONLY" : "",
             cr_hook_names("fallback") ? " -DCR_F32_FALLBACK" : "");
}

/* Builds cr.cl with the options of c's settings (into opts) and makes the variant's kernels.
 * *short_of is 0 where each kernel takes the variant's work-group on this device, else the
 * most that one of them takes (a kernel's own limit may be below the device's: llvmpipe's is
 * 32 for cr_gemv); *kname names it. */
static int cr_build(cp_engine *e, struct cl_state *s, const cp_device *dev, char *opts, size_t len,
                    size_t *short_of, const char **kname)
{
    struct cr_cl *c = cr_state(s);
    const struct cl_path_ops *ops = &cr_paths[c->path];
    *short_of = 0;
    cr_options(c, dev, opts, len);
    const char *names[2] = {ops->kernel, ops->kernel2};
    int st = cp_program_keep(opts, len, names, 2);
    if (st != CP_OK)
        return st;
    char label[CP_PATH_NAME + 4];
    snprintf(label, sizeof label, "cr:%s", ops->name);
    e->build_cache.path = label;
    st = cp_program_build_ex(s->ctx, dev->device_id, ops->file, opts, &c->prog, &e->build_cache);
    e->build_cache.path = NULL;
    if (st != CP_OK)
        return st;
    for (int i = 0; i < 2; ++i) {
        if (!names[i])
            continue;
        cl_int rc;
        c->k[i] = clCreateKernel(c->prog, names[i], &rc);
        if (rc != CL_SUCCESS)
            return cp_err_set(CP_FAIL_RUNTIME, "clCreateKernel(%s) failed: %s (%d)", names[i],
                              cp_cl_error_name(rc), rc);
        size_t most;
        rc = clGetKernelWorkGroupInfo(c->k[i], dev->device_id, CL_KERNEL_WORK_GROUP_SIZE,
                                      sizeof most, &most, NULL);
        if (rc != CL_SUCCESS)
            return cp_err_cl(rc, "clGetKernelWorkGroupInfo(CL_KERNEL_WORK_GROUP_SIZE)");
        bool tiled = cr_path_tiled(c->path) && i == 0;
        size_t want = tiled ? (size_t)CR_CL_GEMM_LX * CR_CL_GEMM_LY
                      : c->path == CR_CPU || c->path == CR_CPU1 || c->path == CR_F32_ITEM
                          ? 1
                          : (size_t)c->tune.wg;
        if (most < want && !*short_of) {
            *short_of = most;
            *kname = names[i];
        }
    }
    return CP_OK;
}

/* What every variant's setup reads of the device and the settings, once. */
struct cr_env {
    struct cr_tune tune; /* the defaults, the stored settings, CLPARITY_CR_TUNE */
    bool wg_set;         /* CLPARITY_CR_TUNE names wg */
    int src;             /* cr_tune_src */
    bool has_f64;        /* cl_khr_fp64 */
    size_t max_wg;
    cl_ulong local_mem;
    cl_uint dvec;    /* CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE (cpu1's rows: cr_width_defaults) */
    bool one_buffer; /* the weights fit one buffer (stream reads them from one) */
};

/* One candidate: a variant and its arithmetic (f64 false: the exact integer accumulator; paths
 * f32 and f32-item are their own arithmetic, the float32-only method, with f64 false). */
struct cr_choice {
    enum cr_path path;
    bool f64;
};

/* "gemv", or "gemv-exact" for the exact integer accumulator, or "f32", "f32-item": the variant's
 * name in the report, the probe's key and test hook corrupt-cl-cr:<names>. */
static void cr_choice_name(struct cr_choice ch, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s", cr_paths[ch.path].name,
             ch.f64 || cr_path_f32(ch.path) ? "" : "-exact");
}

/* Whether the rules and fallbacks take dev as a CPU (own_cpu_device: PoCL). The token gpu in
 * test hook corrupt-cl-cr:<names> makes them take it as a GPU, so that the tests walk the
 * GPUs' list (stream, gemm, gemv, gemv-exact) on PoCL; the token as-cpu takes any device as a
 * CPU (tools/ci/oclgrind.sh: the CPUs' variants on Oclgrind). */
static bool cr_cpu_device(const cp_device *dev)
{
    return (own_cpu_device(dev) || cr_hook_names("as-cpu")) && !cr_hook_names("gpu");
}

/* The settings a probe's engine takes (cr_probe_make): the variant and settings of the engine
 * being set up, so that the probe builds and runs the same program. */
struct cr_forced {
    struct cr_choice ch;
    struct cr_tune tune;
};
static _Thread_local const struct cr_forced *cr_forced;

/* Sets c up for variant ch: its settings, the device's limits, and with build the build and
 * the loop budget; a usage error names what does not fit. f: a probe's engine (the settings of
 * the engine being set up, before its build). Without build, c->opts holds the options the build
 * would start from: the key of the variant's probe, whose engine then builds (the first build
 * of a variant happens in its probe, as cl:own's). */
static int cr_configure(cp_engine *e, struct cl_state *s, const cp_device *dev,
                        const struct cr_env *env, struct cr_choice ch, const struct cr_forced *f,
                        bool build)
{
    const cp_model *m = e->model;
    struct cr_cl *c = cr_state(s);
    cr_release_program(c);
    c->tune = f ? f->tune : env->tune;
    c->path = ch.path;
    s->ops = &cr_paths[c->path];
    c->f64 = ch.f64;
    c->ftz = !(dev->fp32 & CL_FP_DENORM) || c->tune.ftz;
    char name[CP_PATH_NAME];
    cr_choice_name(ch, name, sizeof name);
    /* corrupt-cl-cr (or the token plant in corrupt-cl-cr:<names>) plants after the probe (the
     * comparisons must see it); corrupt-cl-cr:<name> in the probe's build too */
    c->planted =
        cr_hook_names(name) || (!f && (cp_test_hook("corrupt-cl-cr") || cr_hook_names("plant")));
    bool wg_set = env->wg_set;
    const struct cl_path_ops *ops = &cr_paths[c->path];
    if (ops->enqueue_model && !env->one_buffer)
        return cp_err_set(CP_FAIL_USAGE,
                          "cl:cr: path %s reads the whole model from one buffer, and its %zu "
                          "weights exceed %s's CL_DEVICE_MAX_MEM_ALLOC_SIZE %llu: set path=gemv "
                          "in CLPARITY_CR_TUNE",
                          ops->name, m->n_params, dev->name, (unsigned long long)dev->max_alloc);
    cr_width_defaults(&c->tune, c->path, m->max_width, e->max_batch, env->dvec,
                      (int)dev->compute_units); /* a probe's: kept */
    if (c->path == CR_CPU1 && c->tune.ob < 2)   /* cr_cpu.cl certifies a vector of outputs */
        return cp_err_set(CP_FAIL_USAGE, "cl:cr: path cpu1 takes ob=2, 4 or 8, not %d", c->tune.ob);
    c->groups = (size_t)dev->compute_units * (size_t)c->tune.sg;
    int st;
    if (c->path == CR_TEAM)
        st = cr_team_wg(c, m->max_width, env->max_wg, env->local_mem);
    else
        st = cr_choose_wg(c, wg_set, env->max_wg, env->local_mem);
    if (st == CP_OK && cr_path_tiled(c->path)) {
        /* cr.cl's xs, ws (tk × (CR_TM + 1) doubles each, or uints in the float32 method's),
         * xq, and the group's Sum2 scratch and slots (3 doubles or longs and an int per
         * work-item) */
        size_t tile, xq, wi = CR_CL_GEMM_LX * CR_CL_GEMM_LY;
        cr_tile_locals(c, &tile, &xq);
        size_t need = 2 * tile + xq + 3 * wi * sizeof(cl_double) + wi * sizeof(cl_int) + 64;
        if (need > env->local_mem)
            return cp_err_set(CP_FAIL_USAGE,
                              "cl:cr: path %s with tk=%d rm=%d needs %zu bytes of local memory; "
                              "this device has %llu: set a smaller tk or rm in CLPARITY_CR_TUNE",
                              ops->name, c->tune.tk, c->tune.rm, need,
                              (unsigned long long)env->local_mem);
    }
    if (st != CP_OK || (st = cr_check_memory(e, c, dev)) != CP_OK)
        return st;
    if (!build) {
        cr_options(c, dev, c->opts, sizeof c->opts);
        return CP_OK;
    }
    /* Where a kernel takes fewer work-items than the default work-group, the largest power of
     * two it takes (16 at least); a work-group set in CLPARITY_CR_TUNE, or gemm's 8 × 8 work-items,
     * must fit as it is. */
    for (;;) {
        size_t short_of;
        const char *kname = "";
        if ((st = cr_build(e, s, dev, c->opts, sizeof c->opts, &short_of, &kname)) != CP_OK)
            return st;
        if (!short_of)
            break;
        bool gemm = cr_path_tiled(c->path);
        if (wg_set || gemm || short_of < 16)
            return cp_err_set(CP_FAIL_USAGE,
                              "cl:cr: %s runs work-groups of at most %zu on this device, fewer "
                              "than its %d: %s",
                              kname, short_of, gemm ? CR_CL_GEMM_LX * CR_CL_GEMM_LY : c->tune.wg,
                              gemm ? "set path=gemv in CLPARITY_CR_TUNE"
                                   : "set a smaller wg in CLPARITY_CR_TUNE");
        cr_release_program(c);
        while ((size_t)c->tune.wg > short_of)
            c->tune.wg /= 2;
    }
    if ((st = cr_check_loops(e, c, dev)) != CP_OK)
        return st;
    snprintf(e->build_options, sizeof e->build_options, "-cl-std=CL1.2 [cr %s, %s: %s]", ops->name,
             cr_tune_src[env->src], c->opts);
    snprintf(e->routine, sizeof e->routine, "%s %s: %s%s", ops->file, ops->name,
             c->f64                 ? "float64 certified + exact fallback"
             : cr_path_f32(c->path) ? "float32 certified + exact fallback"
             : c->tune.exact        ? "exact integer accumulator (exact=1)"
             : env->has_f64         ? "exact integer accumulator (probe fallback)"
                                    : "exact integer accumulator (no cl_khr_fp64)",
             c->ftz ? ", no float denormals" : "");
    snprintf(e->paths.used, sizeof e->paths.used, "%s", name);
    return CP_OK;
}

/* The probe's engine: cl:cr with the variant and settings of make_ctx (a struct cr_forced). */
static int cr_probe_make(const cp_device *dev, const void *make_ctx, const cp_model *m, int batch,
                         cp_engine **out)
{
    const struct cr_forced *f = make_ctx;
    cr_forced = f;
    int st = cp_cl_create_probing(cp_cl_probe_engine(CP_PROBE_CL_CR), dev, m, batch,
                                  (int)f->ch.path, out);
    cr_forced = NULL;
    return st;
}

/* The probe of the variant c is set up for (cp_cr_probe), keyed by its build options and its
 * launch's groups (stream). */
static int cr_probe_configured(const cp_device *dev, const struct cr_cl *c,
                               enum cp_probe_verdict *v, char *why, size_t why_len)
{
    struct cr_forced f = {{c->path, c->f64}, c->tune};
    char name[CP_PATH_NAME + 8], key[CP_PROBE_KEY_EXTRA - 32];
    char vname[CP_PATH_NAME];
    cr_choice_name(f.ch, vname, sizeof vname);
    snprintf(name, sizeof name, "cr:%s", vname);
    snprintf(key, sizeof key, "%s sg=%d", c->opts, c->tune.sg);
    return cp_cr_probe(dev, CP_PROBE_ID_CR(c->path, !c->f64), name, key, cr_probe_make, &f, v, why,
                       why_len);
}

/* Where the first choice fails its probe, the next of its device's list that applies and
 * passes is taken, down to gemv with the exact integer accumulator (no double compiled: the
 * form that leans on the least, and on llvmpipe the only one). */
static const struct cl_fallback cr_fallbacks[] = {
    {CL_RULE_CPU, {CR_CPU1, CR_CPU, CR_GEMV}, 3},
    {CL_RULE_OTHER, {CR_STREAM, CR_GEMM, CR_GEMV}, 3},
};

/* The candidates after the first choice: the double variants after it in the device's list,
 * then the exact accumulator. */
static size_t cr_candidates(const cp_device *dev, struct cr_choice first, struct cr_choice *out)
{
    size_t n = 0;
    out[n++] = first;
    int after[OWN_PATHS_MAX];
    size_t n_after =
        first.f64 ? cl_fallback_after(cr_fallbacks, sizeof cr_fallbacks / sizeof *cr_fallbacks,
                                      cr_cpu_device(dev), (int)first.path, after)
                  : 0;
    for (size_t i = 0; i < n_after; ++i)
        out[n++] = (struct cr_choice){(enum cr_path)after[i], true};
    if (cr_path_f32(first.path) && first.path != CR_F32 && first.path != CR_F32_ITEM)
        out[n++] = (struct cr_choice){CR_F32, false}; /* then its layout a launch per layer */
    if (first.f64 || first.path != CR_GEMV)
        out[n++] = (struct cr_choice){CR_GEMV, false};
    return n;
}

/* Probes the first choice and, where it fails, the candidates after it; sets up the first that
 * passes and records in e->paths which were rejected and why. Where none passes, the first
 * choice is set up and the result marked (e->paths.exact = 0): `run` and `compare` then say
 * so and exit 1. A variant forced by CLPARITY_CR_TUNE (path= or exact=1) is the only
 * candidate: its failed probe is the result's error (a row 'error: ...' with the reason, exit
 * status 3, the other results kept), never a silent change of variant nor a wrong number. */
static int cr_select_probed(cp_engine *e, struct cl_state *s, const cp_device *dev,
                            const struct cr_env *env, struct cr_choice first)
{
    cp_path_report *r = &e->paths;
    struct cr_choice cand[CR_N_PATHS + 2];
    bool forced = env->tune.path || env->tune.exact || env->tune.method;
    size_t n = forced ? 1 : cr_candidates(dev, first, cand);
    cand[0] = first;
    r->exact = 0;
    r->n_rejected = 0;
    int st = CP_OK;
    for (size_t i = 0; i < n; ++i) {
        char name[CP_PATH_NAME], why[CP_PROBE_WHY - 32]; /* room for "does not apply: " */
        cr_choice_name(cand[i], name, sizeof name);
        enum cp_probe_verdict v = CP_PROBE_NA;
        st = cr_configure(e, s, dev, env, cand[i], NULL, false);
        if (st == CP_FAIL_USAGE && i > 0) /* the first choice's misfit is the run's error */
            snprintf(why, sizeof why, "%s", cp_err_msg());
        else if (st != CP_OK)
            return st;
        else {
            /* the probe's time, its engine's build included (the variant's first build, as
             * cl:own's paths'); the build after it hits the program cache */
            double t0 = cp_now();
            st = cr_probe_configured(dev, cr_state(s), &v, why, sizeof why);
            r->probe_s += cp_now() - t0;
            if (st != CP_OK)
                return st;
        }
        if (v == CP_PROBE_PASS) {
            r->exact = 1;
            return cr_configure(e, s, dev, env, cand[i], NULL, true);
        }
        if (forced && v == CP_PROBE_NA) /* it does not fit the device: a usage error, as ever */
            return cp_err_set(CP_FAIL_USAGE, "%s", why);
        if (forced)
            return cp_err_set(CP_FAIL_RUNTIME, /* this result fails, the others go on */
                              "cl:cr: variant %s, forced by CLPARITY_CR_TUNE, failed its probe on "
                              "%s: %s",
                              name, dev->name, why);
        if (r->n_rejected < CP_PATHS_MAX) {
            snprintf(r->rejected[r->n_rejected].path, CP_PATH_NAME, "%s", name);
            snprintf(r->rejected[r->n_rejected].why, CP_PROBE_WHY, "%s%s",
                     v == CP_PROBE_NA ? "does not apply: " : "", why);
            ++r->n_rejected;
        }
    }
    return cr_configure(e, s, dev, env, first, NULL, true); /* none passed: marked, exact 0 */
}

int cr_cl_setup(cp_engine *e, struct cl_state *s, const cp_device *dev)
{
    const cp_model *m = e->model;
    struct cr_cl *c = calloc(1, sizeof *c);
    if (!c)
        return cp_err_set(CP_FAIL_RUNTIME, "cl:cr: out of memory");
    s->priv = c;
    s->ops = &cr_paths[CR_GEMV]; /* its release frees c, whichever variant follows */
    struct cr_env env = {0};
    int st = cr_check_inputs(m, "cl:cr");
    if (st == CP_OK)
        st = cr_tune_get(dev, &env.tune, e->max_batch, &env.wg_set, &env.src);
    if (st == CP_OK)
        st = cr_cl_device_f64(dev, &env.has_f64);
    if (st == CP_OK)
        st = own_device_info(dev->device_id, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof env.max_wg,
                             &env.max_wg, "clGetDeviceInfo(CL_DEVICE_MAX_WORK_GROUP_SIZE)");
    if (st == CP_OK)
        st = own_device_info(dev->device_id, CL_DEVICE_LOCAL_MEM_SIZE, sizeof env.local_mem,
                             &env.local_mem, "clGetDeviceInfo(CL_DEVICE_LOCAL_MEM_SIZE)");
    if (st == CP_OK)
        st = own_device_info(dev->device_id, CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE, sizeof env.dvec,
                             &env.dvec, "clGetDeviceInfo(CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE)");
    if (st != CP_OK)
        return st;
    env.one_buffer = (cl_ulong)m->n_params * sizeof(float) <= dev->max_alloc;
    if (s->probing && cr_forced) /* a probe's engine: the variant and settings given */
        return cr_configure(e, s, dev, &env, cr_forced->ch, cr_forced, true);
    struct cr_choice first = {CR_GEMV, env.has_f64 && !env.tune.exact && !env.tune.method};
    if (env.tune.method) { /* method=f32: the float32-only method, its own variants */
        /* its layouts: the double method's path names its twin */
        static const struct {
            enum cr_path path, f32;
        } twins[] = {{CR_GEMV, CR_F32},
                     {CR_STREAM, CR_F32_STREAM},
                     {CR_GEMM, CR_F32_GEMM},
                     {CR_TILES, CR_F32_TILES}};
        enum cr_path forced = (enum cr_path)(env.tune.path - 1);
        size_t i = 0;
        while (env.tune.path && i < sizeof twins / sizeof *twins && twins[i].path != forced)
            ++i;
        if (i == sizeof twins / sizeof *twins || env.tune.exact)
            return cp_err_set(CP_FAIL_USAGE,
                              "CLPARITY_CR_TUNE: method=f32 has its own variants (f32, f32-stream, "
                              "f32-gemm, f32-tiles or f32-item): it takes path=gemv (f32), "
                              "path=stream (f32-stream), path=gemm (f32-gemm) or path=tiles "
                              "(f32-tiles), never another path or exact=1");
        if (env.tune.path)
            first.path = twins[i].f32;
    } else if (env.tune.path) {
        first.path = (enum cr_path)(env.tune.path - 1);
    }
    if (!env.tune.path) { /* the rules (method=f32: f64 false, they choose its layout) */
        struct cl_rule_input in = {.cpu = cr_cpu_device(dev),
                                   .cus = dev->compute_units,
                                   .width = m->max_width,
                                   .batch = e->max_batch,
                                   .f64 = first.f64,
                                   .one_buffer = env.one_buffer};
        first.path = (enum cr_path)cr_rule_variant(&in);
        if (env.tune.exact && cr_path_f32(first.path)) /* exact=1: the accumulator everywhere */
            first.path = CR_GEMV;
    }
    if (cp_own_probe_off()) { /* CLPARITY_OWN_PROBE=off: unchecked, said so */
        e->paths.probe_off = true;
        return cr_configure(e, s, dev, &env, first, NULL, true);
    }
    return cr_select_probed(e, s, dev, &env, first);
}
