/* clparity compare's parts: tools/cmd_compare.c (one machine) and tools/compare_mpi.c
 * (--mpi: every rank of an mpirun job, one report on rank 0). */
#ifndef CLPARITY_COMPARE_CLI_H
#define CLPARITY_COMPARE_CLI_H

#include "run_job.h"

#include <stdio.h>

/* Each selected OpenCL device's FP config and profile, one line each, behind prefix. */
void compare_print_devices(FILE *f, const struct job *j, const char *prefix);
/* compare's keys after run's in --json: "expect", "equal_nan" and "comparison" (ctx is the
 * cp_comparison). */
bool compare_add_json(void *root, const struct job *j, void *ctx);
/* compare --mpi with these parsed options; every rank calls it and gets the same status. */
int compare_mpi(struct job_opts *o);

#endif
