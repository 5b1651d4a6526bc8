/* clparity compare's parts: tools/cmd_compare.c (one machine), which calls
 * tools/compare_mpi.c (--mpi: every rank of an mpirun job, one report on rank 0), and
 * tools/compare_out.c, the output both share. Never the other way round (tools/check_deps). */
#ifndef CLPARITY_COMPARE_CLI_H
#define CLPARITY_COMPARE_CLI_H

#include "run_job.h"

#include <stdio.h>

/* tools/compare_out.c: each selected OpenCL device's FP config and profile, one line each,
 * behind prefix. */
void compare_print_devices(FILE *f, const struct job *j, const char *prefix);
/* compare's keys after run's in --json: "expect", "equal_nan" and "comparison" (ctx is the
 * cp_comparison). */
bool compare_add_json(void *root, const struct job *j, void *ctx);
/* tools/compare_mpi.c: compare --mpi with these parsed options; every rank calls it and gets
 * the same status. */
int compare_mpi(struct job_opts *o);

#endif
