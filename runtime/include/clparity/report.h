/* Provenance and output files: every JSON and CSV file says where its numbers came from. */
#ifndef CLPARITY_REPORT_H
#define CLPARITY_REPORT_H

#include "clparity/export.h"

#include <stdbool.h>
#include <stddef.h>

CP_API_BEGIN

const char *cp_version(void);  /* "0.1.0" */
const char *cp_git_hash(void); /* the commit the binary was built from */

/* Remembers the command line for provenance. */
void cp_provenance_set_argv(int argc, char *const *argv);

/* A cJSON object: version, git hash, command line, date (UTC), host CPU, the ICD list, the
 * relevant environment (OCL_ICD_VENDORS, POCL_*, OPENBLAS_*, CLPARITY_*) and the kernel
 * build options. Returned as void * to keep cJSON out of this header; NULL when out of
 * memory. */
void *cp_provenance_json(const char *build_options);

/* The name to write before renaming to path: "<path>.tmp.<pid>", or a copy of path itself
 * where path names something other than a regular file (/dev/null, a FIFO, /dev/stdout),
 * which a rename() would replace. NULL when out of memory; free() it. */
char *cp_atomic_tmp_name(const char *path);

/* Renames tmp (from cp_atomic_tmp_name) to path; nothing when they are the same name.
 * Returns 0, or errno after removing tmp. */
int cp_atomic_commit(const char *tmp, const char *path);

/* Removes tmp after a failed write, unless it is path itself. */
void cp_atomic_abort(const char *tmp, const char *path);

/* Writes len bytes to path through "<path>.tmp.<pid>" and rename(), so that a failure leaves
 * no partial file (a path that is not a regular file, such as /dev/null, is written
 * directly); "-" means stdout. CP_FAIL_RUNTIME names the path on failure. */
int cp_file_write_atomic(const char *path, const void *data, size_t len);

/* Prints a cJSON value (formatted) and writes it with cp_file_write_atomic. */
int cp_json_write(const char *path, const void *json);

/* ---- small helpers that every report shares ------------------------------------------------ */

/* Adds key: v to a cJSON object, or key: null when v is negative or not finite (unknown). */
void cp_json_add_num_or_null(void *obj, const char *key, double v);

/* "1.50 GiB" at or above 1 GiB, else "12.5 MiB". With small, below 1 MiB: "3.0 KiB", and
 * below 1 KiB: "512 B". */
void cp_fmt_bytes(unsigned long long b, bool small, char *buf, size_t len);

/* Median, min and max of n values (n may be 0: all zero); v is sorted in place. */
typedef struct cp_stats {
    double median, min, max;
} cp_stats;
cp_stats cp_stats_of(double *v, size_t n);

/* The SHA-256 of len bytes as 64 hex digits ("" if OpenSSL fails). */
void cp_sha256_hex(const void *data, size_t len, char out[65]);

CP_API_END

#endif
