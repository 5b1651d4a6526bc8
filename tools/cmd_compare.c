/* clparity compare: the same weights and inputs on every selected device × engine, against
 * the float64 reference and the host:exact baseline; rows, pairwise matrix, worst elements,
 * verdicts, and --expect's exit status. */
#include "cli.h"
#include "cmds.h"
#include "compare.h"
#include "job.h"
#include "labels.h"

#include "clparity/report.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void compare_help(void)
{
    printf("usage: clparity compare [OPTIONS]\n"
           "\n"
           "Runs the same weights and inputs on every selected device × engine and compares\n"
           "every result with the float64 reference (host:f64, always computed) and with the\n"
           "baseline host:exact (always computed: the bitwise twin of cl:own). It prints:\n"
           "  1. one row per result: max and median ULP, max_abs, max_rel, rel_to_max,\n"
           "     norm_rel, the fractions bit-equal to ref32 and to the baseline, argmax\n"
           "     agreement, NaN/Inf counts, determinism (every run the same hash) and the\n"
           "     weights' round trip (write, read back, map, copy: bit-exact);\n"
           "  2. the pairwise matrix: bit-equal fraction and max ULP between results;\n"
           "  3. the worst element of each result, in %%a and in decimal;\n"
           "  4. a verdict for each preset (torch, clblast, bitwise) with mismatch counts;\n"
           "  5. with --labels: accuracy per result, the prediction-agreement matrix, and\n"
           "     the inputs whose predicted class flips between two results, with margins.\n"
           "Each OpenCL device's FP config and profile are printed first; cl:* results on a\n"
           "device without denormals or with the EMBEDDED profile are marked '!'.\n"
           "\n"
           "%s%s%s"
           "\n"
           "exit status: 0 success (or --expect met), 1 --expect not met (stderr names the\n"
           "results), 2 usage or input error, 3 runtime error\n",
           job_model_help, job_compare_help, cli_common_help);
}

static void print_devices(FILE *f, const struct job *j)
{
    for (size_t i = 0; i < j->devs.n; ++i) {
        const cp_device *d = &j->devs.v[i];
        if (!j->chosen[i] || d->kind != CP_DEV_OPENCL)
            continue;
        char fp[256];
        cp_fp_config_str(d->fp32, fp, sizeof fp);
        fprintf(f, "device %d:%d %s (%s, driver %s): %s, fp32: %s%s\n", d->plat_idx, d->dev_idx,
                d->name, d->platform, d->driver, d->profile, fp,
                cp_device_exact_capable(d) ? "" : "  ! exactness not guaranteed");
    }
}

int cmd_compare(int argc, char **argv)
{
    struct job_opts o;
    struct job j;
    bool handled;
    job_opts_defaults(&o);
    o.compare = true;
    int st = job_opts_parse("compare", argc, argv, &o, compare_help, &handled);
    if (st != CP_OK || handled) {
        free(o.sels);
        return st;
    }
    struct cmp_set set = {0};
    st = job_prepare(&j, "compare", &o);
    if (st == CP_OK)
        st = job_execute(&j);
    if (st != CP_OK)
        goto out;

    set.v = calloc(j.nres, sizeof *set.v);
    if (!set.v) {
        st = cli_fail("compare", CP_FAIL_RUNTIME, "out of memory");
        goto out;
    }
    set.n = j.nres;
    set.rows = (size_t)j.o.batch;
    set.cols = (size_t)j.model.out_width;
    set.ref = j.ref;
    set.base = j.base;
    set.equal_nan = j.o.equal_nan;
    for (size_t i = 0; i < j.nres; ++i) {
        const struct job_result *r = &j.res[i];
        struct cmp_item *it = &set.v[i];
        cp_device_label(r->dev, it->label, sizeof it->label);
        snprintf(it->engine, sizeof it->engine, "%s", r->eng->name);
        it->dtype = r->eng->dtype;
        it->y = r->y;
        it->hash = r->hash;
        it->deterministic = r->deterministic;
        it->roundtrip = r->roundtrip;
        it->inexact_device = !cp_device_exact_capable(r->dev);
        it->wall_median_s = r->wall.median;
        it->batch_inv_equal = r->batch_inv_equal;
        it->batch_inv_checked = r->batch_inv_checked;
        it->thread_inv = r->thread_inv;
    }
    st = cmp_compute(&set);
    if (st != CP_OK) {
        st = cli_fail("compare", st, "%s", cp_err_msg());
        goto out;
    }

    FILE *out = j.o.json && strcmp(j.o.json, "-") == 0 ? stderr : stdout;
    job_print_model(out, &j);
    print_devices(out, &j);
    cmp_print(out, &set, true);
    st = labels_print(out, &j);
    fflush(out);
    if (st != CP_OK)
        goto out;

    if (j.o.out) {
        st = job_write_out(&j);
        if (st != CP_OK)
            goto out;
    }
    if (j.o.save) {
        st = job_save(&j);
        if (st != CP_OK)
            goto out;
    }
    if (j.o.json) {
        cJSON *root = job_json(&j);
        cJSON *cmp = cmp_json(&set);
        if (!root || !cmp) {
            cJSON_Delete(root);
            cJSON_Delete(cmp);
            st = cli_fail("compare", CP_FAIL_RUNTIME, "out of memory building JSON");
            goto out;
        }
        cJSON_AddStringToObject(root, "command", "compare");
        cJSON_AddStringToObject(
            root, "expect", j.o.expect < 0 ? "none" : cp_preset_name((enum cp_preset)j.o.expect));
        cJSON_AddBoolToObject(root, "equal_nan", j.o.equal_nan);
        cJSON_AddItemToObject(root, "comparison", cmp);
        st = cp_json_write(j.o.json, root);
        cJSON_Delete(root);
        if (st != CP_OK) {
            cli_fail("compare", st, "--json: %s", cp_err_msg());
            goto out;
        }
    }
    if (j.o.expect >= 0) {
        char names[4096];
        size_t fails = cmp_failures(&set, (enum cp_preset)j.o.expect, names, sizeof names);
        if (fails)
            st = cli_fail("compare", CP_FAIL_CHECK, "--expect %s failed for %zu result%s: %s",
                          cp_preset_name((enum cp_preset)j.o.expect), fails, fails > 1 ? "s" : "",
                          names);
    }
out:
    cmp_free(&set);
    free(set.v);
    job_free(&j);
    return st;
}
