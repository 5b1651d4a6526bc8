/* Private: OpenCL programs from the embedded clkernels/ sources. */
#ifndef CLPARITY_PROGRAM_IMPL_H
#define CLPARITY_PROGRAM_IMPL_H

#include "clparity/cache.h"
#include "clparity/device.h"
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
 * CP_FAIL_RUNTIME and cp_program_log() holds the compiler's log. The program cache is
 * consulted as in cp_program_build_ex. */
int cp_program_build(cl_context ctx, cl_device_id dev, const char *name, const char *options,
                     cl_program *out);

/* What the program cache did for a build. note is "" for a plain hit or miss, or says what
 * was unusual: a bad entry that was replaced, a binary that the driver refused, or why the
 * new entry was not stored (an unwritable folder). */
struct cp_build_cache {
    enum cp_cache_state state;
    char note[256];
    /* Set by the caller: the kernel path being built, for the test hooks build-abort:<path>,
     * build-segv:<path> and build-hang:<path> (isolate-impl.h); NULL: none (the loop check's
     * probe.cl). */
    const char *path;
};

/* cp_program_build, consulting the program cache (cache-impl.h) unless CLPARITY_CACHE is off:
 * a valid entry for this source, options, device and driver gives the program from its
 * binary; otherwise the source is built and its binary stored. bc may be NULL. */
int cp_program_build_ex(cl_context ctx, cl_device_id dev, const char *name, const char *options,
                        cl_program *out, struct cp_build_cache *bc);

/* Appends to options (a string of len bytes) the build options that keep only the kernels
 * named in names[0..n) (NULL entries skipped) in a program of clkernels/:
 * " -DCP_KERNELS -DCP_K_<name>...". Each kernel there that a variant may leave out stands in
 * `#if !defined(CP_KERNELS) || defined(CP_K_<name>)` (cr.cl's kernels named by macros: their
 * CR_*_KEEP, defined with the name; no variadic macros, which OpenCL C 1.2 forbids: NVIDIA's
 * compiler refuses them). A driver may compile every kernel of a program, launched or not:
 * PoCL does when the program's binary is asked for, as the program cache does after each
 * build, and that was most of a first build there (docs/PERFORMANCE.md, "First builds on
 * PoCL"). CP_FAIL_RUNTIME, naming the kernel, where the options do not fit. */
int cp_program_keep(char *options, size_t len, const char *const *names, size_t n);

/* While held (on this thread), the programs that cp_program_build_ex builds from source are
 * kept aside instead of entering the program cache; cp_program_cache_release then stores them
 * (keep: the probe they were built for passed) or drops them. Probes hold the cache, so that
 * the cache records a build only after its probe passed. Holds nest. */
void cp_program_cache_hold(bool on);
void cp_program_cache_release(bool keep);

/* The source that cp_program_build compiles for clkernels/<name> (embedded, or from
 * $CLPARITY_KERNEL_DIR), with its #include lines expanded: the bytes the program cache's key
 * hashes. *text is malloc'd (the caller frees it). */
int cp_program_source(const char *name, char **text, size_t *len);

/* A context on dev alone and one in-order queue on it with the given properties (0, or
 * CL_QUEUE_PROFILING_ENABLE). On failure the call is named; what was created is left in
 * *ctx / *q for the caller's cleanup, which releases it as usual. */
int cp_cl_open(const cp_device *dev, cl_command_queue_properties props, cl_context *ctx,
               cl_command_queue *q);

#endif
