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

/* Syncs tmp (from cp_atomic_tmp_name) to the disk, renames it to path and syncs the folder;
 * nothing when they are the same name. Returns 0, or errno after removing tmp. */
int cp_atomic_commit(const char *tmp, const char *path);

/* Removes tmp after a failed write, unless it is path itself. */
void cp_atomic_abort(const char *tmp, const char *path);

/* Writes len bytes to path through "<path>.tmp.<pid>", fsync() and rename(), so that a failure
 * or a crash leaves no partial file (a path that is not a regular file, such as /dev/null, is
 * written directly); "-" means stdout. CP_FAIL_RUNTIME names the path on failure. */
int cp_file_write_atomic(const char *path, const void *data, size_t len);

/* What a file that is not regular is, for messages, from its st_mode: "a FIFO", "a socket",
 * "a character device", "a block device", "a directory", else "not a regular file". */
const char *cp_file_kind(unsigned int mode);

/* Prints a cJSON value (formatted) and writes it with cp_file_write_atomic. */
int cp_json_write(const char *path, const void *json);

/* True once an allocation of cJSON has failed in this process: a document built since may lack
 * items (cJSON drops them silently), so cp_json_write refuses to write it (and so does the
 * CSV writer its provenance line). */
bool cp_json_incomplete(void);

/* ---- --save folders, written as a whole ------------------------------------------------------
 * cp_save_begin(DIR) makes the temporary sibling "DIR.tmp.<pid>" (first removing what killed
 * saves to DIR left: "DIR.tmp.<pid>" and "DIR.old.<pid>" of pids no longer running, and where
 * DIR itself is missing after a kill between the fallback's two renames, putting the old
 * folder back); the caller writes its files into cp_save_dir(); cp_save_commit() syncs every
 * file and the folder and puts it in DIR's place in one step (renameat2 RENAME_EXCHANGE, or
 * else DIR -> "DIR.old.<pid>", new -> DIR), so that DIR is at every instant the old folder
 * or the new one, whole; cp_save_abort() removes the temporary folder and leaves DIR as it
 * was. DIR may be missing, empty, or a folder holding index.json without subfolders (a
 * previous save): anything else is refused with CP_FAIL_USAGE, since it would be replaced as
 * a whole. Test hooks: "save-nonatomic" writes into DIR itself (the fault that the tests must
 * catch), "save-no-exchange" takes the two-rename fallback, "save-kill-between-renames" takes
 * it and kills the process between the renames. */
typedef struct cp_save cp_save;

/* CP_OK where DIR may be replaced by a save (see above); the error names it otherwise. */
int cp_save_check(const char *dir);
int cp_save_begin(const char *dir, cp_save **out);
const char *cp_save_dir(const cp_save *s);
/* Both free s. commit returns CP_OK or CP_FAIL_RUNTIME (DIR left as it was). abort returns
 * st, its message (cp_err_msg) extended with "DIR is left as it was". */
int cp_save_commit(cp_save *s);
int cp_save_abort(cp_save *s, int st);

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
