/* clparity peak: each selected device's FP32 fma throughput, streaming bandwidth and launch
 * latency, measured once per device and driver and then read from the cache. */
#include "cli.h"
#include "cmds.h"
#include "opts.h"
#include "perf.h"
#include "progress.h"

#include "clparity/peak.h"
#include "clparity/report.h"
#include "clparity/select.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct opt_use peak_uses[] = {
    {.id = OPT_DEVICE},
    {.id = OPT_REMEASURE,
     .help = "measure even when the cache holds a result (and store the new one)"},
    {.id = OPT_JSON,
     .help = "write the results and provenance as JSON ('-' for stdout; the\n"
             "table then goes to stderr)"},
};

static void peak_help(void)
{
    printf("usage: clparity peak [-d SEL] [--remeasure] [--json FILE]\n"
           "\n"
           "Measures what each selected device can do at best, for sweep's %% of peak:\n"
           "  FMA GFLOP/s   FP32 fma throughput, 2 flops per fma: OpenCL devices run 8\n"
           "                independent fma chains per work-item (clkernels/peak.cl), float16\n"
           "                on CPU devices and float4 elsewhere; the host runs 8 chains of\n"
           "                AVX-512 (or AVX2+FMA, or plain fmaf) registers on one thread per\n"
           "                online CPU\n"
           "  triad GB/s    a = b + s*c over three 64 MiB arrays (less where the device's\n"
           "                max allocation is smaller), 12 bytes per element, 1 GB = 1e9 bytes;\n"
           "                OpenCL launches it back to back for about 20 ms per repetition\n"
           "  launch us     an empty kernel, enqueue + clFinish, median of 200 (n/a on host)\n"
           "Each is the median of at least 7 repetitions (after a warm-up), more (up to 21)\n"
           "while (p90 - p10) / median stays above 10 %%; the p10-p90 range is shown beside it\n"
           "and kept with it (min and max too, in --json). A spread above 20 %% is marked '~':\n"
           "the machine had other work. Other commands' %% of peak use the median. A simulator\n"
           "(Oclgrind) has no peak: n/a (simulator).\n"
           "\n"
           "Results are cached per device and driver (device name, vendor and version, driver\n"
           "version, platform name and version; host: CPU name and count) as one JSON file\n"
           "each, $XDG_CACHE_HOME/clparity/peak-<hash>.json (else ~/.cache/clparity). A\n"
           "missing, corrupt or foreign file means a new measurement, never an error, and so\n"
           "does an older clparity's entry without a spread (the source column says so).\n"
           "CLPARITY_CACHE=off neither reads nor writes it. 'clparity cache clear' leaves these\n"
           "files alone.\n"
           "\n");
    opts_help(stdout, peak_uses, sizeof peak_uses / sizeof *peak_uses);
    printf("\n"
           "exit status: 0 success, 2 usage error (bad option, a selector that matches\n"
           "nothing), 3 runtime error (an OpenCL call failed, I/O)\n");
}

void *perf_device_json(const cp_device *d)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    char buf[300];
    cp_device_tag(d, buf, sizeof buf);
    cJSON_AddStringToObject(o, "id", buf);
    cp_device_label(d, buf, sizeof buf);
    cJSON_AddStringToObject(o, "label", buf);
    cJSON_AddStringToObject(o, "kind", d->kind == CP_DEV_HOST ? "host" : "opencl");
    cJSON_AddStringToObject(o, "name", d->name);
    cJSON_AddStringToObject(o, "platform", d->platform);
    cJSON_AddStringToObject(o, "driver", d->driver);
    cJSON_AddBoolToObject(o, "simulator", d->kind == CP_DEV_OPENCL && d->simulator);
    return o;
}

void *perf_peak_json(const cp_peak *p)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddBoolToObject(o, "available", p->available);
    cp_json_add_num_or_null(o, "fma_gflops", p->available ? p->fma_gflops : -1.0);
    cp_json_add_num_or_null(o, "bandwidth_gbs", p->available ? p->bandwidth_gbs : -1.0);
    cp_json_add_num_or_null(o, "latency_us", p->available ? p->latency_us : -1.0);
    cJSON *spread = cJSON_AddObjectToObject(o, "spread");
    if (spread) {
        cp_json_add(spread, "fma_gflops", cp_peak_spread_json(&p->fma));
        cp_json_add(spread, "bandwidth_gbs", cp_peak_spread_json(&p->bandwidth));
        cp_json_add(spread, "latency_us", cp_peak_spread_json(&p->latency));
    }
    cJSON_AddBoolToObject(o, "noisy", p->available && p->noisy);
    if (p->available) {
        cJSON_AddStringToObject(o, "source", p->cached ? "cached" : "measured");
        cJSON_AddStringToObject(o, "measured_at", p->measured_at);
    } else {
        cJSON_AddStringToObject(o, "source", "simulator");
        cJSON_AddNullToObject(o, "measured_at");
    }
    cJSON_AddNumberToObject(o, "seconds", p->seconds);
    return o;
}

void perf_peak_header(FILE *out)
{
    fprintf(out, "%-30s %26s %23s %9s  %s\n", "device", "FMA GFLOP/s (p10-p90)",
            "triad GB/s (p10-p90)", "launch us", "source");
}

/* "31.5 (30.1-33.0)~": the median, the p10-p90 range, and '~' when the spread is large. */
static void peak_cell(char *buf, size_t len, double median, const cp_peak_spread *s)
{
    bool noisy = s->reps > 0 && median > 0.0 && (s->p90 - s->p10) / median > CP_PEAK_NOISY;
    if (s->reps > 0)
        snprintf(buf, len, "%.1f (%.1f-%.1f)%s", median, s->p10, s->p90, noisy ? "~" : "");
    else
        snprintf(buf, len, "%.1f", median);
}

void perf_peak_note(FILE *out, const cp_peak *peaks, size_t n)
{
    bool noisy = false;
    for (size_t i = 0; i < n; ++i)
        noisy |= peaks[i].available && peaks[i].noisy;
    if (noisy)
        fprintf(out,
                "~ (p90 - p10) / median above %.0f %%: the device had other work during the\n"
                "  measurement, or too few repetitions settled. %% of peak against it is\n"
                "  doubtful: run 'clparity peak --remeasure' on an idle machine.\n",
                100.0 * CP_PEAK_NOISY);
}

void perf_peak_row(FILE *out, const cp_device *d, const cp_peak *p)
{
    char label[300];
    cp_device_label(d, label, sizeof label);
    if (!p->available) {
        fprintf(out, "%-30.30s %26s\n", label, "n/a (simulator)");
        return;
    }
    char lat[32], fma[64], bw[64];
    if (p->latency_us >= 0.0)
        snprintf(lat, sizeof lat, "%.1f", p->latency_us);
    else
        snprintf(lat, sizeof lat, "n/a");
    peak_cell(fma, sizeof fma, p->fma_gflops, &p->fma);
    peak_cell(bw, sizeof bw, p->bandwidth_gbs, &p->bandwidth);
    fprintf(out, "%-30.30s %26s %23s %9s  ", label, fma, bw, lat);
    if (p->fma.reps > 0)
        fprintf(out, "%d reps, ", p->fma.reps);
    if (p->cached)
        fprintf(out, "cached, measured %s", p->measured_at);
    else
        fprintf(out, "measured in %.1f s", p->seconds);
    if (p->cache_note[0])
        fprintf(out, " (%s)", p->cache_note);
    fputc('\n', out);
}

struct peak_opts {
    char **sels;
    size_t nsel;
    bool remeasure;
    const char *json;
};

static int set_opt(void *ctx, enum opt_id id, const struct opt_value *v)
{
    struct peak_opts *o = ctx;
    if (id == OPT_DEVICE)
        o->sels[o->nsel++] = (char *)v->s;
    else if (id == OPT_REMEASURE)
        o->remeasure = true;
    else if (id == OPT_JSON)
        o->json = v->s;
    return CP_OK;
}

int cmd_peak(int argc, char **argv)
{
    char **sels = calloc((size_t)argc + 1, sizeof *sels);
    size_t nsel = 0;
    bool remeasure = false;
    const char *json = NULL;
    cp_devlist devs = {0};
    bool *chosen = NULL;
    cp_peak *peaks = NULL;
    cJSON *root = NULL;
    if (!sels)
        return cli_fail("peak", CP_FAIL_RUNTIME, "out of memory");
    struct peak_opts o = {.sels = sels};
    bool handled = false;
    int st = opts_parse("peak", argc, argv, peak_uses, sizeof peak_uses / sizeof *peak_uses,
                        set_opt, NULL, &o, peak_help, &handled);
    nsel = o.nsel;
    remeasure = o.remeasure;
    json = o.json;
    if (handled)
        goto out;
    if (st == CP_OK && json)
        st = cli_check_output_file("peak", "--json", json);
    if (st == CP_OK)
        st = cli_select_devices("peak", sels, nsel, &devs, &chosen);
    if (st != CP_OK)
        goto out;
    cp_select_warn(&devs);
    peaks = calloc(devs.n, sizeof *peaks);
    if (!peaks) {
        st = cli_fail("peak", CP_FAIL_RUNTIME, "out of memory");
        goto out;
    }
    FILE *tab = json && strcmp(json, "-") == 0 ? stderr : stdout;
    perf_peak_header(tab);
    size_t nchosen = 0, k = 0;
    for (size_t i = 0; i < devs.n; ++i)
        nchosen += chosen[i];
    for (size_t i = 0; i < devs.n; ++i) {
        if (!chosen[i])
            continue;
        char dl[300];
        cp_device_label(&devs.v[i], dl, sizeof dl);
        progress_stage("peak: %zu/%zu  %s  %s", ++k, nchosen, dl,
                       remeasure ? "measuring" : "the cached peak, or measuring it");
        st = cp_peak_get(&devs.v[i], remeasure, &peaks[i]);
        progress_clear();
        if (st != CP_OK) {
            char label[300];
            cp_device_label(&devs.v[i], label, sizeof label);
            st = cli_fail("peak", st, "%s: %s", label, cp_err_msg());
            cli_print_build_log();
            goto out;
        }
        perf_peak_row(tab, &devs.v[i], &peaks[i]);
        cli_flush(tab);
    }
    perf_peak_note(tab, peaks, devs.n);
    if (json) {
        root = cJSON_CreateObject();
        cJSON *arr = root ? cJSON_AddArrayToObject(root, "devices") : NULL;
        if (!arr) {
            st = cli_fail("peak", CP_FAIL_RUNTIME, "out of memory building JSON");
            goto out;
        }
        cJSON_AddNumberToObject(root, "schema", 1);
        cJSON_AddStringToObject(root, "command", "peak");
        cp_json_add(root, "provenance", cp_provenance_json("-cl-std=CL1.2"));
        for (size_t i = 0; i < devs.n; ++i) {
            if (!chosen[i])
                continue;
            cJSON *o = cJSON_CreateObject();
            if (!o)
                break;
            cp_json_add(o, "device", perf_device_json(&devs.v[i]));
            cp_json_add(o, "peak", perf_peak_json(&peaks[i]));
            cp_json_push(arr, o);
        }
        /* "devices" after the provenance, for a reader's eye. */
        cJSON_DetachItemViaPointer(root, arr);
        cp_json_add(root, "devices", arr);
        st = cp_json_write(json, root);
        if (st != CP_OK)
            cli_fail("peak", st, "--json: %s", cp_err_msg());
    }
out:
    cJSON_Delete(root);
    free(peaks);
    free(chosen);
    cp_devlist_free(&devs);
    free(sels);
    return st;
}
