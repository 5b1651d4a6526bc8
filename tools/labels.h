/* --labels: accuracy per device × engine, prediction agreement, and the inputs that flip. */
#ifndef CLPARITY_LABELS_H
#define CLPARITY_LABELS_H

#include "cli.h"
#include "run_job.h"

#include <stdio.h>

/* The results and the labels they are judged by. */
struct labels_in {
    const char *cmd;       /* for messages */
    const char *file;      /* --labels */
    const int64_t *labels; /* rows class ids; NULL: no labels, nothing to report */
    size_t rows, cols;
    const cp_job_result *res; /* nres results */
    size_t nres;
    const double *ref; /* the host:f64 reference, shown too when it is not among them */
};
struct labels_in labels_of_job(const struct job *j);

/* Prints the three parts; nothing without labels. */
int labels_print(FILE *f, const struct labels_in *j);

/* {"file", "count", "accuracy": [{id, device, engine, correct, accuracy}], "agreement":
 * {"ids", "matrix"}, "flips": [{index, label, classes, margins}]} as cJSON; NULL without
 * labels or out of memory. */
void *labels_json(const struct labels_in *j);

#endif
