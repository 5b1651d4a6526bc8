/* clparity run: the model on every selected device × engine, one row per result. */
#include "cli.h"
#include "cmds.h"
#include "run_job.h"
#include "labels.h"

#include "clparity/report.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void run_help(void)
{
    printf("usage: clparity run [OPTIONS]\n"
           "\n"
           "Runs the reference model, L blocks y = x + relu(x·Wᵀ) with W [d, d] (PyTorch's\n"
           "default init from clparity's portable generator, standard normal inputs), or a\n"
           "--model file on --input, on every selected device × engine, and prints one row per "
           "result: median wall time, the\n"
           "output's FNV-1a hash, the max ULP distance and max_rel against the host:f64\n"
           "reference, and the count of NaN/Inf outputs ('~' after the median: a spread over\n"
           "20 %% of it). Then each result's timing (runs, median ± half the p10-p90 spread,\n"
           "mean ± sd, min, max, the median's 95 %% interval), a note naming the cause to\n"
           "suspect for each '~', and the speed verdict: the fastest result, and how many\n"
           "times faster it ran than each other one (± from the spreads), or \"within noise\".\n"
           "\n");
    struct job_opts o = {.compare = false};
    job_opts_help(&o);
    printf("\n"
           "exit status: 0 success, 1 a result whose kernel probe failed on every path (its\n"
           "numbers are not promised: builds: says why), 2 usage or input error (including a\n"
           "model too large for a device or for host memory, refused before any work), 3\n"
           "runtime error (a result whose engine failed is a row 'error: <cause>'; the\n"
           "others are kept and written)\n");
}

static void print_row(FILE *out, const cp_job_result *r)
{
    char label[300];
    cp_device_label(r->dev, label, sizeof label);
    if (r->error[0]) {
        fprintf(out, "%-36.36s %-14s error: %s\n", label, r->eng->name, r->error);
        return;
    }
    char med[32], mn[32], mx[32];
    cp_fmt_ms(r->wall.median, med, sizeof med);
    cp_fmt_ms(r->wall.min, mn, sizeof mn);
    cp_fmt_ms(r->wall.max, mx, sizeof mx);
    fprintf(out, "%-36.36s %-14s %9s%1s %10s %10s  %016llx", label, r->eng->name, med,
            cp_stats_mark(&r->wall), mn, mx, (unsigned long long)r->hash);
    if (r->eng->dtype != CP_F32) {
        fprintf(out, " %8s %10s %9s\n", "ref", "ref", "-");
        return;
    }
    if (r->m.compared == 0) { /* every pair holds a NaN: there is no distance to show */
        fprintf(out, " %8s %10s %4zu/%-4zu\n", "n/a", "n/a", r->m.nan, r->m.inf);
        return;
    }
    char ulp[32];
    snprintf(ulp, sizeof ulp, "%llu%s", (unsigned long long)r->m.max_ulp,
             r->m.nan_mismatch ? "*" : "");
    fprintf(out, " %8s %10.3g %4zu/%-4zu\n", ulp, r->m.max_rel, r->m.nan, r->m.inf);
}

int cmd_run(int argc, char **argv)
{
    struct job_opts o;
    struct job j;
    bool handled;
    job_opts_defaults(&o);
    int st = job_opts_parse("run", argc, argv, &o, run_help, &handled);
    if (st != CP_OK || handled) {
        free(o.sels);
        return st;
    }
    st = job_prepare(&j, "run", &o);
    if (st == CP_OK)
        st = job_execute(&j);
    if (st != CP_OK)
        goto out;

    /* The table goes to stderr when the JSON or the CSV takes stdout. */
    FILE *out = (j.o.json && strcmp(j.o.json, "-") == 0) || (j.o.csv && strcmp(j.o.csv, "-") == 0)
                    ? stderr
                    : stdout;
    cp_job_print_model(j.cj, out);
    char runs[160];
    job_runs_text(&j.o, runs, sizeof runs);
    fprintf(out, "timing: %s; %s\n", runs,
            cp_job_reference(j.cj)
                ? "ULP and max_rel against host:f64 (ULP against its float32 rounding)"
                : "no reference (--no-reference): no ULP or max_rel");
    fprintf(out, "%-36s %-14s %10s %10s %10s  %-16s %8s %10s %9s\n", "device", "engine",
            "median ms", "min ms", "max ms", "hash", "max ULP", "max_rel", "NaN/Inf");
    size_t nonfinite = 0;
    for (size_t i = 0; i < cp_job_result_count(j.cj); ++i) {
        const cp_job_result *r = cp_job_result_at(j.cj, i);
        print_row(out, r);
        nonfinite += r->m.nan + r->m.inf;
    }
    job_print_builds(out, &j);
    if (nonfinite)
        fprintf(out,
                "note: %zu non-finite outputs. A NaN against a number is a mismatch, left out "
                "of max ULP (marked *; n/a when no pair is left). A smaller --init-scale keeps "
                "deep models finite.\n",
                nonfinite);
    struct labels_in lab = labels_of_job(&j);
    st = labels_print(out, &lab);
    int speed = job_print_speed(out, &j);
    st = st != CP_OK ? st : speed;
    cli_flush(out);
    if (st != CP_OK)
        goto out;

    st = job_write_files(&j, NULL, NULL);
    if (st == CP_OK)
        st = job_write_tables(&j, NULL);
    if (st == CP_OK)
        st = job_failed_status(&j, job_probe_status(&j, st));
out:
    job_free(&j);
    return st;
}
