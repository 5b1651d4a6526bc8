/* Provenance and output files: every JSON and CSV file says where its numbers came from. */
#ifndef CLPARITY_REPORT_H
#define CLPARITY_REPORT_H

#include <stddef.h>

const char *cp_version(void);  /* "0.1.0" */
const char *cp_git_hash(void); /* the commit the binary was built from */

/* Remembers the command line for provenance. */
void cp_provenance_set_argv(int argc, char *const *argv);

/* A cJSON object: version, git hash, command line, date (UTC), host CPU, the ICD list, the
 * relevant environment (OCL_ICD_VENDORS, POCL_*, OPENBLAS_*, CLPARITY_*) and the kernel
 * build options. Returned as void * to keep cJSON out of this header; NULL when out of
 * memory. */
void *cp_provenance_json(const char *build_options);

/* Writes len bytes to path through "<path>.tmp.<pid>" and rename(), so that a failure leaves
 * no partial file; "-" means stdout. CP_FAIL_RUNTIME names the path on failure. */
int cp_file_write_atomic(const char *path, const void *data, size_t len);

/* Prints a cJSON value (formatted) and writes it with cp_file_write_atomic. */
int cp_json_write(const char *path, const void *json);

#endif
