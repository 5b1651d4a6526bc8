/* clparity tune: times cl:own's and cl:cr's tunable kernels with each candidate setting on each
 * selected OpenCL device, checks that every cl:own setting gives the same bits and every cl:cr
 * setting host:cr's, and stores the fastest per device, driver and platform version
 * (runtime/opencl/tune.c). */
#include "cli.h"
#include "cmds.h"
#include "opts.h"
#include "progress.h"

#include "clparity/cache.h"
#include "clparity/metrics.h"
#include "clparity/model.h"
#include "clparity/report.h"
#include "clparity/select.h"
#include "clparity/tune.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct opt_use tune_uses[] = {
    {.id = OPT_DEVICE,
     .help = "devices as in 'clparity devices' (default: CLPARITY_DEVICES or\n"
             "every non-simulator device); host is not tuned (host:cr runs there as\n"
             "cl:cr's reference)"},
    {.id = OPT_QUICK,
     .def = "smaller shapes and fewer candidates. Measured on a 2-core AMD\n"
            "EPYC with PoCL 3.1 (8 steps): 76 s the first time (each candidate's\n"
            "kernels built and probed), 0.3 s once they are cached; without\n"
            "--quick (20 steps): 175 s, then 16 s. The progress line counts the\n"
            "steps and says the time left"},
    {.id = OPT_RUNS, .def = "5; the median counts", .min = 1, .max = 1000},
    {.id = OPT_WARMUP, .def = "1", .min = 0, .max = 1000},
    {.id = OPT_DRY_RUN},
    {.id = OPT_JSON, .def = "every candidate's timing"},
};

static void tune_help(void)
{
    printf("usage: clparity tune [-d SELECTOR]... [--quick] [--runs N] [--warmup W]\n"
           "                     [--dry-run] [--json FILE]\n"
           "\n"
           "Times cl:own's and cl:cr's tunable kernels with every candidate setting on each\n"
           "selected OpenCL device and stores the fastest, per device, driver and platform\n"
           "version, in $XDG_CACHE_HOME/clparity/tune.json (or ~/.cache/clparity/tune.json).\n"
           "cl:own and cl:cr then use it on that device (their build options say 'tuned'). No\n"
           "cl:own setting changes the order of a sum: each candidate's output must equal the\n"
           "first one's bit for bit; each cl:cr candidate's must equal host:cr's (computed\n"
           "once per shape). Otherwise tune fails with status 1 and stores nothing.\n"
           "\n"
           "What is tuned for cl:own, by device type:\n"
           "  GPU   reg: weights per work-item per chunk (rc=16,32,64,128) and chunks in\n"
           "              registers (rd=2,3,4), 8 settings, and 2, 3 or 4 groups of\n"
           "              work-items taking the layers in turn (rg=2,3,4; rg=1 is the\n"
           "              chunked kernel), each timed as the sum over the reference model\n"
           "              d=128 L=128 B=1 and d=128 L=128 B=256\n"
           "              (--quick: d=128 L=16 B=1)\n"
           "        stream: outputs per tile, k per chunk, groups per compute unit, one launch\n"
           "              or a launch per layer (so, sk, sg: 0 = from the width; sp=1,0): 7\n"
           "              settings, each timed as the sum over d=1024 L=64, d=512 L=64,\n"
           "              d=2048 L=16 and d=4096 L=4, B=1 (--quick: 3 settings, d=1024 L=8)\n"
           "        tiled: tile depth, double buffering, x loads and x padding of the tiled GEMM\n"
           "              (bk=16,32; db=0,1; xl=0,1; xp=0,4) and whether the next tile waits in\n"
           "              registers (pf=1,0): 10 settings,\n"
           "              at d=2048 L=4 B=2048\n"
           "              (--quick: d=512 L=2 B=512)\n"
           "  CPU   vec: vector width, register tile (rb rows x nv vectors) and rows per\n"
           "              work-item (13 settings of vw=8,16, rb=2..12, nv=1,2,4, mc=32,128,512),\n"
           "              at d=1024 L=4 B=1024 (--quick: 4 of them at d=256 L=2 B=256)\n"
           "What is tuned for cl:cr (CLPARITY_CR_TUNE's names; each variant forced with path=,\n"
           "which is not stored: cl:cr's rules keep choosing the variant):\n"
           "  GPU   stream: work-items and outputs per work-group and work-groups per\n"
           "              compute unit (5 settings of wg=32,64,128, ob=1,2,4,8, sg=1,4, and\n"
           "              (by width), the settings that cl:cr takes by the layers' width),\n"
           "              timed as the sum over d=1024 L=16, d=128 L=32 and d=4096 L=4, B=1\n"
           "              (--quick: 3 settings, d=256 L=4 B=1)\n"
           "        gemm: the tiles' depth (tk=8,16,32), at d=512 L=2 B=512\n"
           "              (--quick: d=128 L=2 B=64)\n"
           "  CPU   cpu: outputs and rows per work-item (5 settings of vw=4,8,16, rb=1,2,4;\n"
           "              a stored rb is the most, fewer for smaller batches), at d=512 L=4\n"
           "              B=64 (--quick: 3 settings, d=128 L=2 B=16)\n"
           "A cl:cr setting that the device cannot take is shown as refused and skipped.\n"
           "Simulators are left out (their timings say nothing about hardware).\n"
           "Set only through CLPARITY_OWN_TUNE: rr (reg: batch rows per work-group) and gu\n"
           "(cpug on CPUs: panels narrow to 2 or 1 vectors until the widest layer gives every\n"
           "compute unit gu=1, 2 or 4 units). Set only through CLPARITY_CR_TUNE: path, split\n"
           "(splitk's ranges of k), exact and ftz.\n"
           "\n");
    opts_help(stdout, tune_uses, sizeof tune_uses / sizeof *tune_uses);
    printf("\n"
           "environment: CLPARITY_OWN_TUNE=\"rc=32,bk=16,vw=8,rb=4,nv=2,mc=128\" and\n"
           "CLPARITY_CR_TUNE=\"wg=128,ob=2\" (any subset) override the stored and default\n"
           "settings in every command (tune refuses to run while either is set);\n"
           "CLPARITY_CACHE=off ignores the stored ones. A store that cannot be read is used by\n"
           "no command and replaced by no tune (status 3): remove it to start a new one.\n"
           "\n"
           "exit status: 0 success, 1 a setting changed cl:own's output or a cl:cr setting's\n"
           "output differs from host:cr's, 2 usage error, 3 runtime or I/O error\n");
}

struct tune_opts {
    bool quick, dry_run;
    long runs, warmup;
    const char *json;
    FILE *tab;         /* the table: stdout, or stderr when --json - takes stdout */
    int dev_w, spec_w; /* the widths of the device name and setting columns */
};

/* The engines that tune times, in this order: cl:own (a candidate's output must equal its
 * first candidate's, bit for bit) and cl:cr (host:cr's, computed once per shape). */
enum tune_engine { TUNE_OWN, TUNE_CR, TUNE_N_ENGINES };
static const char *const engine_names[TUNE_N_ENGINES] = {"cl:own", "cl:cr"};

/* The progress line's count: every engine created (a candidate at a shape, host:cr's output at
 * a shape), of all devices, and the time left from the pace so far (issue 36). */
static struct {
    size_t done, total;
    double start;
} steps;

/* Runs info on dev at shape sh: warmup + runs forwards, the median wall time of the timed ones
 * and the output's hash. what: the progress line's text after the count. */
static int forward_hash(const cp_engine_info *info, const cp_device *dev, const cp_tune_shape *sh,
                        long runs, long warmup, const char *what, double *median, uint64_t *hash)
{
    cp_model m;
    float *x = NULL, *y = NULL;
    cp_engine *e = NULL;
    double *t = calloc((size_t)runs, sizeof *t);
    int st = cp_model_builtin(&m, sh->d, sh->layers, 1337, 1.0f);
    if (st != CP_OK) {
        free(t);
        return st;
    }
    if (!t)
        st = cp_err_set(CP_FAIL_RUNTIME, "out of memory");
    if (st == CP_OK)
        st = cp_model_input(sh->batch, sh->d, 1337, &x);
    size_t n_out = (size_t)sh->batch * (size_t)sh->d;
    if (st == CP_OK && !(y = malloc(n_out * sizeof *y)))
        st = cp_err_set(CP_FAIL_RUNTIME, "out of memory");
    if (st == CP_OK)
        st = cp_engine_check_memory(info, dev, &m, sh->batch);
    char count[64];
    progress_eta(count, sizeof count, &steps.start, steps.done, steps.total);
    progress_stage("tune: %s  %s  d=%d L=%d B=%d  build", count, what, sh->d, sh->layers,
                   sh->batch);
    if (st == CP_OK)
        st = cp_engine_create(info, dev, &m, sh->batch, &e);
    for (long r = 0; st == CP_OK && r < warmup + runs; ++r) {
        cp_timing tm;
        (r == 0 ? progress_stage
                : progress_show)("tune: %s  %s  d=%d L=%d B=%d  %s %ld/%ld", count, what, sh->d,
                                 sh->layers, sh->batch, r < warmup ? "warm-up" : "timed",
                                 r < warmup ? r + 1 : r - warmup + 1, r < warmup ? warmup : runs);
        st = cp_engine_forward(e, x, sh->batch, y, &tm);
        if (st == CP_OK && r >= warmup)
            t[r - warmup] = tm.wall_s;
    }
    if (st == CP_OK) {
        for (long i = 1; i < runs; ++i) /* insertion sort: a handful of values */
            for (long k = i; k > 0 && t[k] < t[k - 1]; --k) {
                double v = t[k];
                t[k] = t[k - 1];
                t[k - 1] = v;
            }
        *median = runs % 2 ? t[runs / 2] : 0.5 * (t[runs / 2 - 1] + t[runs / 2]);
        *hash = cp_hash_fnv1a(y, n_out * sizeof *y);
    }
    if (e)
        cp_engine_destroy(e);
    ++steps.done;
    cp_model_free(&m);
    free(x);
    free(y);
    free(t);
    return st;
}

/* Times engine eng on dev with the candidate spec of kernel path `path`: cl:own through
 * CLPARITY_OWN_KERNEL=path and CLPARITY_OWN_TUNE=spec, cl:cr through
 * CLPARITY_CR_TUNE=path=<path>,<spec>. The median wall time and the output's hash. */
static int time_candidate(const cp_device *dev, enum tune_engine eng, const char *path,
                          const char *spec, const cp_tune_shape *sh, const struct tune_opts *o,
                          const char *what, double *median, uint64_t *hash)
{
    if (eng == TUNE_OWN) {
        setenv("CLPARITY_OWN_KERNEL", path, 1);
        setenv("CLPARITY_OWN_TUNE", spec, 1);
    } else {
        char cr[512];
        snprintf(cr, sizeof cr, "path=%s%s%s", path, spec[0] ? "," : "", spec);
        setenv("CLPARITY_CR_TUNE", cr, 1);
    }
    int st = forward_hash(cp_engine_find(engine_names[eng]), dev, sh, o->runs, o->warmup, what,
                          median, hash);
    unsetenv("CLPARITY_OWN_KERNEL");
    unsetenv("CLPARITY_OWN_TUNE");
    unsetenv("CLPARITY_CR_TUNE");
    return st;
}

/* One tunable kernel: its path, its shape and its candidates; where `more` names further
 * shapes (d = 0 ends the list), a candidate's time is the sum over all of them, so that a
 * setting is kept for the range of widths that the path serves, not for one point. */
/* The label of cl:cr's settings by the width (the empty candidate). */
#define CR_BY_WIDTH "(by width)"

/* Sets spec's name=value items over the list in buf: "wg=64,ob=4" with "tk=16,ob=2" gives
 * "wg=64,ob=2,tk=16". */
static void spec_merge(char *buf, size_t len, const char *spec)
{
    char items[32][64];
    size_t n = 0;
    for (int pass = 0; pass < 2; ++pass)
        for (const char *s = pass ? spec : buf; *s;) {
            size_t il = strcspn(s, ","), nl = strcspn(s, "=");
            nl = nl < il ? nl : il;
            size_t i = 0;
            while (i < n && !(strncmp(items[i], s, nl) == 0 && items[i][nl] == '='))
                ++i;
            if (i < sizeof items / sizeof items[0] && il < sizeof items[0]) {
                memcpy(items[i], s, il);
                items[i][il] = '\0';
                n += i == n;
            }
            s += il + (s[il] != '\0');
        }
    size_t k = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && k < len; ++i)
        k += (size_t)snprintf(buf + k, len - k, "%s%s", i ? "," : "", items[i]);
}

#define TUNE_MAX_SHAPES 8
#define TUNE_MAX_TUNABLES 16 /* per engine and device type */

/* Times every candidate of tunable tu of engine eng on dev, prints a row each and adds them to
 * jc; *best_spec: the fastest candidate. For cl:cr, host (the host device) gives host:cr's
 * output, which each candidate must equal at every shape; for cl:own, the first candidate's.
 * A difference sets bit eng of *check. */
static int tune_one(const cp_device *dev, const cp_device *host, enum tune_engine eng,
                    const cp_tunable *tu, const struct tune_opts *o, cJSON *jc,
                    const char **best_spec, int *check)
{
    const cp_tune_shape *shapes[TUNE_MAX_SHAPES];
    size_t ns = 0;
    shapes[ns++] = o->quick ? &tu->quick : &tu->full;
    for (const cp_tune_shape *ms = o->quick ? NULL : tu->more; ms && ms->d; ++ms)
        if (ns < TUNE_MAX_SHAPES)
            shapes[ns++] = ms;
    const cp_tune_shape *sh = shapes[0];
    const char *const *c = o->quick ? tu->quick_cands : tu->cands;
    size_t nc = 0;
    while (c[nc])
        ++nc;
    double flops = 0.0;
    for (size_t j = 0; j < ns; ++j)
        flops += 2.0 * (double)shapes[j]->batch * (double)shapes[j]->d * (double)shapes[j]->d *
                 shapes[j]->layers;
    uint64_t ref[TUNE_MAX_SHAPES] = {0};
    int st = CP_OK;
    if (eng == TUNE_CR) /* host:cr's output at each shape, once */
        for (size_t j = 0; j < ns && st == CP_OK; ++j) {
            double unused;
            char what[512];
            snprintf(what, sizeof what, "%d:%d %.60s  cl:cr %s  host:cr's output", dev->plat_idx,
                     dev->dev_idx, dev->name, tu->path);
            st = forward_hash(cp_engine_find("host:cr"), host, shapes[j], 1, 0, what, &unused,
                              &ref[j]);
            if (st != CP_OK)
                return cli_fail("tune", st, "host:cr at d=%d L=%d B=%d: %s", shapes[j]->d,
                                shapes[j]->layers, shapes[j]->batch, cp_err_msg());
        }
    double best_t = 0.0;
    *best_spec = NULL;
    for (size_t k = 0; k < nc; ++k) {
        double med = 0.0;
        bool same = true;
        char what[512];
        const char *label = c[k][0] ? c[k] : CR_BY_WIDTH;
        snprintf(what, sizeof what, "%d:%d %.60s  %s %s %zu/%zu  %s", dev->plat_idx, dev->dev_idx,
                 dev->name, engine_names[eng], tu->path, k + 1, nc, label);
        for (size_t j = 0; j < ns && st == CP_OK; ++j) {
            double m = 0.0;
            uint64_t h = 0;
            st = time_candidate(dev, eng, tu->path, c[k], shapes[j], o, what, &m, &h);
            med += m;
            if (st == CP_OK && eng == TUNE_OWN && k == 0)
                ref[j] = h;
            same = same && (st != CP_OK || h == ref[j]);
        }
        if (st == CP_FAIL_USAGE && eng == TUNE_CR) {
            /* a setting this device cannot take (work-group or local memory too small, a loop
             * budget as llvmpipe's): skipped, as cl:cr would refuse it in any command */
            progress_clear();
            fprintf(o->tab, "%d:%-3d %-*.*s %-6s %-6s %-*s refused: %s\n", dev->plat_idx,
                    dev->dev_idx, o->dev_w, o->dev_w, dev->name, engine_names[eng], tu->path,
                    o->spec_w, label, cp_err_msg());
            cli_flush(o->tab);
            cJSON *jr = cJSON_CreateObject();
            cJSON_AddStringToObject(jr, "engine", engine_names[eng]);
            cJSON_AddStringToObject(jr, "path", tu->path);
            cJSON_AddStringToObject(jr, "params", c[k]);
            cJSON_AddStringToObject(jr, "refused", cp_err_msg());
            cp_json_push(jc, jr);
            st = CP_OK;
            continue;
        }
        if (st != CP_OK) {
            cli_fail("tune", st, "%s %s on %d:%d %s with %s: %s", engine_names[eng], tu->path,
                     dev->plat_idx, dev->dev_idx, dev->name, label, cp_err_msg());
            cli_print_build_log();
            return st;
        }
        if (!same)
            *check |= 1 << eng;
        progress_clear();
        char ms[32];
        cp_fmt_ms(med, ms, sizeof ms);
        fprintf(o->tab, "%d:%-3d %-*.*s %-6s %-6s %-*s %6zu %5d %5d %5d %12s %10.1f%s\n",
                dev->plat_idx, dev->dev_idx, o->dev_w, o->dev_w, dev->name, engine_names[eng],
                tu->path, o->spec_w, label, ns, sh->d, sh->layers, sh->batch, ms,
                flops / med * 1e-9,
                same             ? ""
                : eng == TUNE_CR ? "  OUTPUT DIFFERS from host:cr"
                                 : "  OUTPUT DIFFERS from the first setting");
        cli_flush(o->tab);
        cJSON *jr = cJSON_CreateObject();
        cJSON_AddStringToObject(jr, "engine", engine_names[eng]);
        cJSON_AddStringToObject(jr, "path", tu->path);
        cJSON_AddStringToObject(jr, "params", c[k]);
        cJSON_AddNumberToObject(jr, "d", sh->d);
        cJSON_AddNumberToObject(jr, "layers", sh->layers);
        cJSON_AddNumberToObject(jr, "batch", sh->batch);
        cJSON_AddNumberToObject(jr, "median_ms", med * 1e3);
        cJSON_AddNumberToObject(jr, "gflops", flops / med * 1e-9);
        cJSON_AddBoolToObject(jr, "same_bits", same);
        cp_json_push(jc, jr);
        if (!*best_spec || med < best_t) {
            best_t = med;
            *best_spec = c[k];
        }
    }
    fprintf(o->tab, "%d:%-3d %-*.*s %-6s %-6s best: %s\n", dev->plat_idx, dev->dev_idx, o->dev_w,
            o->dev_w, dev->name, engine_names[eng], tu->path,
            !*best_spec   ? "none (every setting refused: nothing stored for it)"
            : **best_spec ? *best_spec
                          : CR_BY_WIDTH " (nothing stored for it)");
    return CP_OK;
}

static int tune_device(const cp_device *dev, const cp_device *host, const struct tune_opts *o,
                       cJSON *jdev, int *check)
{
    char own_best[256] = ""; /* cl:own's tuned here, over the rest (cp_tune_own_spec) */
    char cr_spec[256] = "";  /* cl:cr's: only what is tuned here */
    int st;
    int mine = 0; /* this device's differences */
    cJSON *jc = cJSON_AddArrayToObject(jdev, "candidates");
    for (int eng = 0; eng < TUNE_N_ENGINES; ++eng) {
        const cp_tunable *tv[TUNE_MAX_TUNABLES];
        size_t nt = cp_tunables(cp_engine_find(engine_names[eng]), dev, tv, TUNE_MAX_TUNABLES);
        for (size_t i = 0; i < nt; ++i) {
            const char *best_spec = NULL;
            st = tune_one(dev, host, (enum tune_engine)eng, tv[i], o, jc, &best_spec, &mine);
            if (st != CP_OK)
                return st;
            if (best_spec)
                spec_merge(eng == TUNE_CR ? cr_spec : own_best,
                           eng == TUNE_CR ? sizeof cr_spec : sizeof own_best, best_spec);
        }
    }
    *check |= mine;
    char spec[256]; /* the settings not tuned here stay as they are */
    if ((st = cp_tune_own_spec(dev, own_best, spec, sizeof spec)) != CP_OK)
        return cli_fail("tune", st, "%s", cp_err_msg());
    cJSON_AddStringToObject(jdev, "chosen", spec);
    cJSON_AddStringToObject(jdev, "chosen_cr", cr_spec);
    if (*check) {
        cJSON_AddBoolToObject(jdev, "stored", false);
        return CP_OK;
    }
    if (!o->dry_run) {
        st = cp_tune_store_spec(dev, spec, cr_spec, cJSON_Duplicate(jc, 1));
        if (st != CP_OK)
            return cli_fail("tune", st, "%s", cp_err_msg());
        char key[800];
        cp_tune_key(dev, key, sizeof key);
        fprintf(o->tab, "stored for %s: %s\n", key, spec);
        fprintf(o->tab, "stored for %s (cl:cr): %s\n", key, cr_spec);
    }
    cJSON_AddBoolToObject(jdev, "stored", !o->dry_run);
    return CP_OK;
}

struct tune_args {
    struct tune_opts *o;
    char **sels;
    size_t nsel;
};

static int set_opt(void *ctx, enum opt_id id, const struct opt_value *v)
{
    struct tune_args *a = ctx;
    if (id == OPT_DEVICE)
        a->sels[a->nsel++] = (char *)v->s;
    else if (id == OPT_QUICK)
        a->o->quick = true;
    else if (id == OPT_RUNS)
        a->o->runs = v->l;
    else if (id == OPT_WARMUP)
        a->o->warmup = v->l;
    else if (id == OPT_DRY_RUN)
        a->o->dry_run = true;
    else if (id == OPT_JSON)
        a->o->json = v->s;
    return CP_OK;
}

int cmd_tune(int argc, char **argv)
{
    struct tune_opts o = {.runs = 5, .warmup = 1};
    char **sels = calloc((size_t)argc + 1, sizeof *sels);
    if (!sels)
        return cli_fail("tune", CP_FAIL_RUNTIME, "out of memory");
    struct tune_args a = {.o = &o, .sels = sels};
    bool handled;
    int st = opts_parse("tune", argc, argv, tune_uses, sizeof tune_uses / sizeof *tune_uses,
                        set_opt, NULL, &a, tune_help, &handled);
    size_t nsel = a.nsel;
    if (handled) {
        free(sels);
        return CP_OK;
    }
    if (st == CP_OK && (getenv("CLPARITY_OWN_TUNE") || getenv("CLPARITY_OWN_KERNEL")))
        st = cli_fail("tune", CP_FAIL_USAGE,
                      "CLPARITY_OWN_TUNE or CLPARITY_OWN_KERNEL is set: unset them to tune");
    if (st == CP_OK && getenv("CLPARITY_CR_TUNE"))
        st = cli_fail("tune", CP_FAIL_USAGE, "CLPARITY_CR_TUNE is set: unset it to tune");
    if (st == CP_OK && o.json)
        st = cli_check_output_file("tune", "--json", o.json);
    char store[4096];
    if (st == CP_OK && !o.dry_run && (st = cp_cache_dir(store, sizeof store)) != CP_OK)
        st = cli_fail("tune", st, "%s", cp_err_msg());
    if (st == CP_OK && !o.dry_run) /* the store is written at the end, after minutes of work */
        st = cli_check_store_dir("tune", "the tune store", store);
    if (st != CP_OK) {
        free(sels);
        return st;
    }
    cp_devlist devs = {0};
    bool *chosen = NULL;
    st = cli_select_devices("tune", sels, nsel, &devs, &chosen);
    free(sels);
    if (st != CP_OK)
        return st;
    size_t n = 0;
    const cp_device *host = NULL; /* host:cr's device: every list ends with it */
    for (size_t i = 0; i < devs.n; ++i) {
        if (chosen[i] && devs.v[i].kind == CP_DEV_OPENCL && !devs.v[i].simulator)
            ++n;
        if (devs.v[i].kind == CP_DEV_HOST)
            host = &devs.v[i];
    }
    if (n == 0) {
        st = cli_fail("tune", CP_FAIL_USAGE,
                      "no OpenCL device to tune among the selected ones (host and simulators "
                      "have nothing to tune)%s%s",
                      devs.env_note[0] ? ": " : "", devs.env_note);
        goto out;
    }
    if (!host) {
        st = cli_fail("tune", CP_FAIL_RUNTIME, "no host device for host:cr");
        goto out;
    }
    cp_select_warn(&devs);
    /* The columns fit the longest device name (up to 40 characters) and setting tuned here. */
    o.tab = o.json && strcmp(o.json, "-") == 0 ? stderr : stdout;
    o.dev_w = 0;
    o.spec_w = (int)strlen("setting");
    for (size_t i = 0; i < devs.n; ++i) {
        const cp_device *dev = &devs.v[i];
        if (!chosen[i] || dev->kind != CP_DEV_OPENCL || dev->simulator)
            continue;
        int w = (int)strlen(dev->name);
        o.dev_w = w > o.dev_w ? (w < 40 ? w : 40) : o.dev_w;
        for (int eng = 0; eng < TUNE_N_ENGINES; ++eng) {
            const cp_tunable *tv[TUNE_MAX_TUNABLES];
            size_t nt = cp_tunables(cp_engine_find(engine_names[eng]), dev, tv, TUNE_MAX_TUNABLES);
            for (size_t t = 0; t < nt; ++t) {
                size_t ns = 1, nc = 0; /* as tune_one counts them */
                for (const cp_tune_shape *ms = o.quick ? NULL : tv[t]->more; ms && ms->d; ++ms)
                    ns += ns < TUNE_MAX_SHAPES;
                for (const char *const *c = o.quick ? tv[t]->quick_cands : tv[t]->cands; *c;
                     ++c, ++nc)
                    if ((int)strlen(*c) > o.spec_w)
                        o.spec_w = (int)strlen(*c);
                steps.total += nc * ns + (eng == TUNE_CR ? ns : 0);
            }
        }
    }
    /* "shapes": how many shapes each time sums (tune --help names them); d, L, B: the first. */
    fprintf(o.tab, "%-*s %-6s %-6s %-*s %6s %5s %5s %5s %12s %10s\n", o.dev_w + 6, "device",
            "engine", "path", o.spec_w, "setting", "shapes", "d", "L", "B", "median ms", "GFLOP/s");
    cli_flush(o.tab);
    cJSON *root = cJSON_CreateObject(), *jdevs = cJSON_AddArrayToObject(root, "devices");
    int check = 0;
    for (size_t i = 0; i < devs.n && st == CP_OK; ++i) {
        const cp_device *dev = &devs.v[i];
        if (!chosen[i] || dev->kind != CP_DEV_OPENCL)
            continue;
        if (dev->simulator) {
            fprintf(stderr, "clparity tune: %d:%d %s is a simulator: skipped\n", dev->plat_idx,
                    dev->dev_idx, dev->name);
            continue;
        }
        cJSON *jd = cJSON_CreateObject();
        char key[800];
        cp_tune_key(dev, key, sizeof key);
        cJSON_AddStringToObject(jd, "device", key);
        if (!cp_json_push(jdevs, jd))
            jd = NULL; /* deleted: this device's results go nowhere, and the JSON is not written */
        st = tune_device(dev, host, &o, jd, &check);
    }
    if (st == CP_OK && o.json) {
        cJSON_AddNumberToObject(root, "schema", 1);
        cp_json_add(root, "provenance", cp_provenance_json(""));
        st = cp_json_write(o.json, root);
        if (st != CP_OK)
            cli_fail("tune", st, "%s", cp_err_msg());
    }
    cJSON_Delete(root);
    progress_clear();
    if (st == CP_OK && check)
        st =
            cli_fail("tune", 1,
                     "%s%s%s: nothing stored (this is a bug; please report it with "
                     "the table above)",
                     check & 1 << TUNE_OWN ? "a setting changed cl:own's output" : "",
                     check == (1 << TUNE_OWN | 1 << TUNE_CR) ? "; " : "",
                     check & 1 << TUNE_CR ? "a cl:cr setting's output differs from host:cr's" : "");
    if (st == CP_OK && o.dry_run) {
        char dir[4096];
        if (cp_cache_dir(dir, sizeof dir) == CP_OK)
            fprintf(o.tab, "dry run: nothing stored in %s/tune.json\n", dir);
        else
            fprintf(o.tab, "dry run: nothing stored\n");
    }
out:
    free(chosen);
    cp_devlist_free(&devs);
    return st;
}
