/* clparity tune: times cl:own's tunable kernels with each candidate setting on each selected
 * OpenCL device, checks that every setting gives the same bits, and stores the fastest per
 * device, driver and platform version (runtime/tune.c). */
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
             "every non-simulator device); host is skipped"},
    {.id = OPT_QUICK, .def = "smaller shapes and fewer candidates"},
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
           "Times cl:own's tunable kernels with every candidate setting on each selected\n"
           "OpenCL device and stores the fastest, per device, driver and platform version, in\n"
           "$XDG_CACHE_HOME/clparity/tune.json (or ~/.cache/clparity/tune.json). cl:own then\n"
           "uses it on that device (its build options say 'tuned'). No setting changes the\n"
           "order of a sum: each candidate's output must equal the first one's bit for bit,\n"
           "or tune fails with status 1 and stores nothing.\n"
           "\n"
           "What is tuned, by device type:\n"
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
           "Simulators are left out (their timings say nothing about hardware).\n"
           "Set only through CLPARITY_OWN_TUNE: rr (reg: batch rows per work-group) and gu\n"
           "(cpug on CPUs: panels narrow to 2 or 1 vectors until the widest layer gives every\n"
           "compute unit gu=1, 2 or 4 units).\n"
           "\n");
    opts_help(stdout, tune_uses, sizeof tune_uses / sizeof *tune_uses);
    printf("\n"
           "environment: CLPARITY_OWN_TUNE=\"rc=32,bk=16,vw=8,rb=4,nv=2,mc=128\" (any subset)\n"
           "overrides the stored and default settings in every command; CLPARITY_CACHE=off\n"
           "ignores the stored ones. A store that cannot be read is used by no command and\n"
           "replaced by no tune (status 3): remove it to start a new one.\n"
           "\n"
           "exit status: 0 success, 1 a setting changed the output, 2 usage error,\n"
           "3 runtime or I/O error\n");
}

struct shape {
    int d, layers, batch;
};

struct tune_opts {
    bool quick, dry_run;
    long runs, warmup;
    const char *json;
    FILE *tab;         /* the table: stdout, or stderr when --json - takes stdout */
    int dev_w, spec_w; /* the widths of the device name and setting columns */
};

/* Times cl:own with CLPARITY_OWN_KERNEL=path and CLPARITY_OWN_TUNE=spec; the median wall time
 * and the output's hash. */
static int time_candidate(const cp_device *dev, const char *path, const char *spec,
                          const struct shape *sh, const struct tune_opts *o, const char *what,
                          double *median, uint64_t *hash)
{
    cp_model m;
    float *x = NULL, *y = NULL;
    cp_engine *e = NULL;
    double *t = calloc((size_t)o->runs, sizeof *t);
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
    setenv("CLPARITY_OWN_KERNEL", path, 1);
    setenv("CLPARITY_OWN_TUNE", spec, 1);
    const cp_engine_info *own = cp_engine_find("cl:own");
    if (st == CP_OK)
        st = cp_engine_check_memory(own, dev, &m, sh->batch);
    progress_stage("%s  d=%d L=%d B=%d  build", what, sh->d, sh->layers, sh->batch);
    if (st == CP_OK)
        st = cp_engine_create(own, dev, &m, sh->batch, &e);
    for (long r = 0; st == CP_OK && r < o->warmup + o->runs; ++r) {
        cp_timing tm;
        (r == 0 ? progress_stage : progress_show)(
            "%s  d=%d L=%d B=%d  %s %ld/%ld", what, sh->d, sh->layers, sh->batch,
            r < o->warmup ? "warm-up" : "timed", r < o->warmup ? r + 1 : r - o->warmup + 1,
            r < o->warmup ? o->warmup : o->runs);
        st = cp_engine_forward(e, x, sh->batch, y, &tm);
        if (st == CP_OK && r >= o->warmup)
            t[r - o->warmup] = tm.wall_s;
    }
    if (st == CP_OK) {
        for (long i = 1; i < o->runs; ++i) /* insertion sort: a handful of values */
            for (long k = i; k > 0 && t[k] < t[k - 1]; --k) {
                double v = t[k];
                t[k] = t[k - 1];
                t[k - 1] = v;
            }
        *median = o->runs % 2 ? t[o->runs / 2] : 0.5 * (t[o->runs / 2 - 1] + t[o->runs / 2]);
        *hash = cp_hash_fnv1a(y, n_out * sizeof *y);
    }
    unsetenv("CLPARITY_OWN_KERNEL");
    unsetenv("CLPARITY_OWN_TUNE");
    if (e)
        cp_engine_destroy(e);
    cp_model_free(&m);
    free(x);
    free(y);
    free(t);
    return st;
}

/* One tunable kernel: its path, its shape and its candidates; where `more` names further
 * shapes (d = 0 ends the list), a candidate's time is the sum over all of them, so that a
 * setting is kept for the range of widths that the path serves, not for one point. */
struct tunable {
    const char *path;
    struct shape full, quick;
    const char *const *cands, *const *quick_cands;
    const struct shape *more;
};

static const char *const reg_c[] = {"rc=16,rd=2,rg=1",  "rc=32,rd=2,rg=1", "rc=64,rd=2,rg=1",
                                    "rc=128,rd=2,rg=1", "rc=16,rd=4,rg=1", "rc=32,rd=3,rg=1",
                                    "rc=32,rd=4,rg=1",  "rc=64,rd=3,rg=1", "rc=64,rd=2,rg=2",
                                    "rc=64,rd=2,rg=3",  "rc=64,rd=2,rg=4", NULL};
static const char *const tiled_c[] = {"bk=16,db=0,xl=0,xp=0,pf=1",
                                      "bk=16,db=0,xl=0,xp=4,pf=1",
                                      "bk=32,db=0,xl=0,xp=0,pf=1",
                                      "bk=32,db=0,xl=0,xp=4,pf=1",
                                      "bk=16,db=1,xl=0,xp=0,pf=1",
                                      "bk=16,db=1,xl=0,xp=4,pf=1",
                                      "bk=16,db=0,xl=1,xp=0,pf=1",
                                      "bk=32,db=1,xl=0,xp=4,pf=1",
                                      "bk=16,db=0,xl=0,xp=4,pf=0",
                                      "bk=32,db=0,xl=0,xp=4,pf=0",
                                      NULL};
/* vec: register tiles of rb rows × nv vectors that fit 16 (vw=8, AVX2) or 32 (vw=16,
 * AVX-512) vector registers, then the rows per work-item around the best tiles. */
static const char *const vec_c[] = {"vw=8,rb=4,nv=1,mc=128",  "vw=8,rb=4,nv=2,mc=128",
                                    "vw=8,rb=8,nv=1,mc=128",  "vw=8,rb=2,nv=4,mc=128",
                                    "vw=16,rb=8,nv=1,mc=128", "vw=16,rb=4,nv=2,mc=128",
                                    "vw=16,rb=8,nv=2,mc=128", "vw=16,rb=12,nv=2,mc=128",
                                    "vw=16,rb=4,nv=4,mc=128", "vw=16,rb=8,nv=2,mc=32",
                                    "vw=16,rb=8,nv=2,mc=512", "vw=16,rb=4,nv=4,mc=32",
                                    "vw=16,rb=4,nv=4,mc=512", NULL};
static const char *const vec_q[] = {"vw=8,rb=4,nv=2,mc=128", "vw=16,rb=8,nv=1,mc=128",
                                    "vw=16,rb=8,nv=2,mc=128", "vw=16,rb=4,nv=4,mc=32", NULL};
/* stream: the width rule (0s) against fixed tiles, chunks and groups per compute unit, and a
 * launch per layer (sp=0). */
static const char *const stream_c[] = {"so=0,sk=0,sp=1,sg=0",    "so=16,sk=512,sp=1,sg=1",
                                       "so=16,sk=512,sp=1,sg=2", "so=8,sk=1024,sp=1,sg=1",
                                       "so=8,sk=1024,sp=1,sg=2", "so=32,sk=256,sp=1,sg=1",
                                       "so=0,sk=0,sp=0,sg=0",    NULL};
static const char *const stream_q[] = {"so=0,sk=0,sp=1,sg=0", "so=16,sk=512,sp=1,sg=2",
                                       "so=0,sk=0,sp=0,sg=0", NULL};
/* The reference model and B=256. A deep model (L=1024) was a third shape on 2026-11-25: its
 * time outweighed the others and picked rg=3 (sum 0.865 ms against rg=2's 0.881), which takes
 * the reference model alone from 0.097 to 0.162 ms (docs/PERFORMANCE.md). */
static const struct shape reg_more[] = {{128, 128, 256}, {0, 0, 0}};
static const struct shape stream_more[] = {{512, 64, 1}, {2048, 16, 1}, {4096, 4, 1}, {0, 0, 0}};
static const struct tunable gpu_tunables[] = {
    {"reg", {128, 128, 1}, {128, 16, 1}, reg_c, reg_c, reg_more},
    {"stream", {1024, 64, 1}, {1024, 8, 1}, stream_c, stream_q, stream_more},
    {"tiled", {2048, 4, 2048}, {512, 2, 512}, tiled_c, tiled_c, NULL},
};
static const struct tunable cpu_tunables[] = {
    {"vec", {1024, 4, 1024}, {256, 2, 256}, vec_c, vec_q, NULL},
};

static int tune_device(const cp_device *dev, const struct tune_opts *o, cJSON *jdev, int *check)
{
    bool gpu = !(dev->type & CL_DEVICE_TYPE_CPU);
    const struct tunable *tv = gpu ? gpu_tunables : cpu_tunables;
    size_t nt = gpu ? sizeof gpu_tunables / sizeof gpu_tunables[0]
                    : sizeof cpu_tunables / sizeof cpu_tunables[0];
    cp_own_tune best;
    int st = cp_tune_get(dev, 0, &best, NULL); /* the settings not tuned here stay as they are */
    if (st != CP_OK)
        return cli_fail("tune", st, "%s", cp_err_msg());
    cJSON *jc = cJSON_AddArrayToObject(jdev, "candidates");
    for (size_t i = 0; i < nt; ++i) {
        const struct tunable *tu = &tv[i];
        const struct shape *sh = o->quick ? &tu->quick : &tu->full;
        const char *const *c = o->quick ? tu->quick_cands : tu->cands;
        double flops = 2.0 * (double)sh->batch * (double)sh->d * (double)sh->d * sh->layers;
        for (const struct shape *ms = o->quick ? NULL : tu->more; ms && ms->d; ++ms)
            flops += 2.0 * (double)ms->batch * (double)ms->d * (double)ms->d * ms->layers;
        double best_t = 0.0;
        const char *best_spec = NULL;
        uint64_t first_hash = 0;
        for (size_t k = 0; c[k]; ++k) {
            double med = 0.0;
            uint64_t h = 0;
            size_t nc = 0;
            while (c[nc])
                ++nc;
            char what[512];
            snprintf(what, sizeof what, "tune: %d:%d %.60s  %s %zu/%zu  %s", dev->plat_idx,
                     dev->dev_idx, dev->name, tu->path, k + 1, nc, c[k]);
            st = time_candidate(dev, tu->path, c[k], sh, o, what, &med, &h);
            for (const struct shape *ms = o->quick ? NULL : tu->more; st == CP_OK && ms && ms->d;
                 ++ms) {
                double more_med = 0.0;
                uint64_t more_h = 0;
                st = time_candidate(dev, tu->path, c[k], ms, o, what, &more_med, &more_h);
                med += more_med;
            }
            if (st != CP_OK) {
                cli_fail("tune", st, "%s on %d:%d %s with %s: %s", tu->path, dev->plat_idx,
                         dev->dev_idx, dev->name, c[k], cp_err_msg());
                cli_print_build_log();
                return st;
            }
            bool same = k == 0 || h == first_hash;
            if (k == 0)
                first_hash = h;
            if (!same)
                *check = 1;
            int shapes = 1;
            for (const struct shape *ms = o->quick ? NULL : tu->more; ms && ms->d; ++ms)
                ++shapes;
            progress_clear();
            fprintf(o->tab, "%d:%-3d %-*.*s %-6s %-*s %6d %5d %5d %5d %12.3f %10.1f%s\n",
                    dev->plat_idx, dev->dev_idx, o->dev_w, o->dev_w, dev->name, tu->path, o->spec_w,
                    c[k], shapes, sh->d, sh->layers, sh->batch, med * 1e3, flops / med * 1e-9,
                    same ? "" : "  OUTPUT DIFFERS from the first setting");
            fflush(o->tab);
            cJSON *jr = cJSON_CreateObject();
            cJSON_AddStringToObject(jr, "path", tu->path);
            cJSON_AddStringToObject(jr, "params", c[k]);
            cJSON_AddNumberToObject(jr, "d", sh->d);
            cJSON_AddNumberToObject(jr, "layers", sh->layers);
            cJSON_AddNumberToObject(jr, "batch", sh->batch);
            cJSON_AddNumberToObject(jr, "median_ms", med * 1e3);
            cJSON_AddNumberToObject(jr, "gflops", flops / med * 1e-9);
            cJSON_AddBoolToObject(jr, "same_bits", same);
            cJSON_AddItemToArray(jc, jr);
            if (!best_spec || med < best_t) {
                best_t = med;
                best_spec = c[k];
            }
        }
        st = cp_tune_parse(best_spec, &best);
        if (st != CP_OK)
            return cli_fail("tune", st, "%s", cp_err_msg());
        fprintf(o->tab, "%d:%-3d %-*.*s %-6s best: %s\n", dev->plat_idx, dev->dev_idx, o->dev_w,
                o->dev_w, dev->name, tu->path, best_spec);
    }
    char spec[256];
    cp_tune_format(&best, spec, sizeof spec);
    cJSON_AddStringToObject(jdev, "chosen", spec);
    if (*check) {
        cJSON_AddBoolToObject(jdev, "stored", false);
        return CP_OK;
    }
    if (!o->dry_run) {
        st = cp_tune_store(dev, &best, cJSON_Duplicate(jc, 1));
        if (st != CP_OK)
            return cli_fail("tune", st, "%s", cp_err_msg());
        char key[800];
        cp_tune_key(dev, key, sizeof key);
        fprintf(o->tab, "stored for %s: %s\n", key, spec);
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
    if (st == CP_OK && o.json)
        st = cli_check_output_file("tune", "--json", o.json);
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
    for (size_t i = 0; i < devs.n; ++i)
        if (chosen[i] && devs.v[i].kind == CP_DEV_OPENCL && !devs.v[i].simulator)
            ++n;
    if (n == 0) {
        st = cli_fail("tune", CP_FAIL_USAGE,
                      "no OpenCL device to tune among the selected ones (host and simulators "
                      "have nothing to tune)%s%s",
                      devs.env_note[0] ? ": " : "", devs.env_note);
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
        bool gpu = !(dev->type & CL_DEVICE_TYPE_CPU);
        const struct tunable *tv = gpu ? gpu_tunables : cpu_tunables;
        size_t nt = gpu ? sizeof gpu_tunables / sizeof gpu_tunables[0]
                        : sizeof cpu_tunables / sizeof cpu_tunables[0];
        for (size_t t = 0; t < nt; ++t)
            for (const char *const *c = o.quick ? tv[t].quick_cands : tv[t].cands; *c; ++c)
                if ((int)strlen(*c) > o.spec_w)
                    o.spec_w = (int)strlen(*c);
    }
    /* "shapes": how many shapes each time sums (tune --help names them); d, L, B: the first. */
    fprintf(o.tab, "%-*s %-6s %-*s %6s %5s %5s %5s %12s %10s\n", o.dev_w + 6, "device", "path",
            o.spec_w, "setting", "shapes", "d", "L", "B", "median ms", "GFLOP/s");
    fflush(o.tab);
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
        cJSON_AddItemToArray(jdevs, jd);
        st = tune_device(dev, &o, jd, &check);
    }
    if (st == CP_OK && o.json) {
        cJSON_AddNumberToObject(root, "schema", 1);
        cJSON_AddItemToObject(root, "provenance", cp_provenance_json(""));
        st = cp_json_write(o.json, root);
        if (st != CP_OK)
            cli_fail("tune", st, "%s", cp_err_msg());
    }
    cJSON_Delete(root);
    progress_clear();
    if (st == CP_OK && check)
        st = cli_fail("tune", 1,
                      "a setting changed cl:own's output: nothing stored (this is a bug; "
                      "please report it with the table above)");
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
