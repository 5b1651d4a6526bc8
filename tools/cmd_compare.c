/* clparity compare: the same weights and inputs on every selected device × engine, against
 * the float64 reference and the host:exact baseline; rows, pairwise matrix, worst elements,
 * verdicts, and --expect's exit status. */
#include "cli.h"
#include "cmds.h"
#include "compare_cli.h"
#include "run_job.h"
#include "labels.h"
#include "mpi.h"

#include "clparity/compare.h"
#include "clparity/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void compare_help(void)
{
    printf("usage: clparity compare [OPTIONS]\n"
           "\n"
           "Runs the same weights and inputs on every selected device × engine and compares\n"
           "every result with the float64 reference (host:f64), the baseline host:exact\n"
           "(the bitwise twin of cl:own) and host:cr (the correctly rounded answer), all\n"
           "three always computed. It prints:\n"
           "  1. one row per result: max and median ULP, max_abs, max_rel, rel_to_max,\n"
           "     norm_rel, the fractions bit-equal to ref32, to the baseline and to host:cr\n"
           "     (=cr) and the max ULP against host:cr (crULP), argmax agreement, NaN/Inf\n"
           "     counts, determinism (every run the same hash) and the\n"
           "     weights' round trip (write, read back, map, copy: bit-exact);\n"
           "  2. the pairwise matrix: bit-equal fraction and max ULP between results;\n"
           "  3. the worst element of each result, in %%a and in decimal;\n"
           "  4. a verdict for each preset (torch, clblast, bitwise, cr) with mismatch counts\n"
           "     (cr judges only the cl:cr and host:cr results, against host:cr: n/a\n"
           "     without one);\n"
           "  5. with --labels: accuracy per result, the prediction-agreement matrix, and\n"
           "     the inputs whose predicted class flips between two results, with margins;\n"
           "  6. each result's timing (runs, median ± spread, mean ± sd, min, max, the\n"
           "     median's interval; '~' marks a spread over 20 %% of the median, and a note\n"
           "     names the cause to suspect) and the speed verdict (as run's).\n"
           "Each OpenCL device's FP config and profile are printed first; cl:* results on a\n"
           "device without denormals or with the EMBEDDED profile are marked '!'.\n"
           "\n");
    struct job_opts o = {.compare = true};
    job_opts_help(&o);
    printf("\n"
           "exit status: 0 success (or --expect met), 1 --expect not met (stderr names the\n"
           "results) or a result whose kernel probe failed on every path, 2 usage or input\n"
           "error, 3 runtime error (a result whose engine failed is a row 'error: <cause>',\n"
           "fails every verdict, and the others are kept and written; 3 over 1)\n");
}

int cmd_compare(int argc, char **argv)
{
    struct job_opts o;
    struct job j;
    bool handled;
    job_opts_defaults(&o);
    o.compare = true;
    /* --mpi starts MPI before the parsing, so that only rank 0 prints what the parsing says */
    bool mpi = mpi_requested(argc, argv);
    int st = mpi ? mpi_begin("compare") : CP_OK;
    if (st == CP_OK)
        st = job_opts_parse("compare", argc, argv, &o, compare_help, &handled);
    if (st == CP_OK && !handled && mpi)
        return mpi_end(compare_mpi(&o)); /* it frees o.sels */
    if (st != CP_OK || handled || mpi) {
        free(o.sels);
        return mpi ? mpi_end(st) : st;
    }
    cp_comparison *cmp = NULL;
    st = job_prepare(&j, "compare", &o);
    if (st == CP_OK)
        st = job_execute(&j);
    if (st != CP_OK)
        goto out;
    st = cp_comparison_from_job(j.cj, &cmp);
    if (st != CP_OK) {
        st = cli_fail("compare", st, "%s", cp_err_msg());
        goto out;
    }

    /* The files first: a run that cannot write them fails (status 3) before its report says
     * PASS, so that no verdict is shown as valid by a run that failed. */
    st = job_write_files(&j, compare_add_json, cmp);
    if (st == CP_OK)
        st = job_write_tables(&j, cmp);
    if (st != CP_OK)
        goto out;
    FILE *out = (j.o.json && strcmp(j.o.json, "-") == 0) || (j.o.csv && strcmp(j.o.csv, "-") == 0)
                    ? stderr
                    : stdout;
    cp_job_print_model(j.cj, out);
    compare_print_devices(out, &j, "");
    cp_comparison_print(cmp, out, true, j.o.expect);
    job_print_builds(out, &j);
    struct labels_in lab = labels_of_job(&j);
    st = labels_print(out, &lab);
    int speed = cp_comparison_print_speed(cmp, out);
    if (st == CP_OK && speed != CP_OK)
        st = cli_fail("compare", speed, "%s", cp_err_msg());
    cli_flush(out);
    if (st != CP_OK)
        goto out;
    if (j.o.expect >= 0) {
        char names[4096];
        size_t fails = cp_comparison_failures(cmp, (enum cp_preset)j.o.expect, names, sizeof names);
        if (fails)
            st = cli_fail("compare", CP_FAIL_CHECK, "--expect %s failed for %zu result%s: %s",
                          cp_preset_name((enum cp_preset)j.o.expect), fails, fails > 1 ? "s" : "",
                          names);
    }
    st = job_failed_status(&j, job_probe_status(&j, st));
out:
    cp_comparison_destroy(cmp);
    job_free(&j);
    return st;
}
