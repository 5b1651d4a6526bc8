/* --labels: accuracy per device × engine, prediction agreement, and the inputs that flip. */
#ifndef CLPARITY_LABELS_H
#define CLPARITY_LABELS_H

#include "cli.h"
#include "job.h"

#include <stdio.h>

/* Prints the three parts; nothing without labels. */
int labels_print(FILE *f, const struct job *j);

/* {"file", "count", "accuracy": [{id, device, engine, correct, accuracy}], "agreement":
 * {"ids", "matrix"}, "flips": [{index, label, classes, margins}]} as cJSON; NULL without
 * labels or out of memory. */
void *labels_json(const struct job *j);

#endif
