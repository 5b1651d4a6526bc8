/* What `clparity compare -d SEL --d-model 64 --layers 8 --batch 4 --runs 3` does, through
 * libclparity: every selected device × engine on the same weights and inputs, each result
 * against the float64 reference and the host:exact baseline, the pairwise matrix and the
 * verdicts. Usage: compare_example [SELECTORS], e.g. "pocl,host" (default: as clparity). */
#include <clparity/clparity.h>

#include <stdio.h>

int main(int argc, char **argv)
{
    cp_job_opts o;
    cp_job_opts_default(&o); /* d 128, 128 layers, batch 1, seed 1337, 10 runs */
    o.d = 64;
    o.layers = 8;
    o.batch = 4;
    o.runs = 3;
    o.compare = true; /* also the host:exact baseline and the weights' round trip */
    o.selectors = (const char *const *)&argv[1]; /* -d: "all", "host", "pocl,host", "0:0" */
    o.n_selectors = argc > 1;

    cp_job *job = NULL;
    cp_comparison *cmp = NULL;
    int st = cp_job_create(&o, &job);
    if (st == CP_OK)
        st = cp_job_run(job); /* selects, checks memory, runs every result and host:f64 */
    if (st == CP_OK)
        st = cp_comparison_from_job(job, &cmp);
    if (st == CP_OK)
        cp_comparison_print(cmp, stdout, false, CP_EXPECT_NONE);
    else
        fprintf(stderr, "compare_example: %s\n", cp_err_msg());
    cp_comparison_destroy(cmp);
    cp_job_destroy(job);
    return st; /* CP_OK, CP_FAIL_USAGE (2) or CP_FAIL_RUNTIME (3) */
}
