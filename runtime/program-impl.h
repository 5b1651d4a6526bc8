/* Private: OpenCL programs from the embedded clkernels/ sources. */
#ifndef CLPARITY_PROGRAM_IMPL_H
#define CLPARITY_PROGRAM_IMPL_H

#include "clparity/error.h"

#include <stddef.h>

struct cp_kernel_source {
    const char *name; /* "block.cl" */
    const unsigned char *data;
    size_t len;
};

extern const struct cp_kernel_source cp_kernel_sources[];
extern const size_t cp_kernel_source_count;

/* Builds clkernels/<name> for one device. The source is the embedded copy, or
 * $CLPARITY_KERNEL_DIR/<name> when that variable is set. On a build failure the status is
 * CP_FAIL_RUNTIME and cp_program_log() holds the compiler's log. */
int cp_program_build(cl_context ctx, cl_device_id dev, const char *name, const char *options,
                     cl_program *out);

#endif
