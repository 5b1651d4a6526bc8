/* Provenance and output files: every JSON and CSV file says where its numbers came from. */
#ifndef CLPARITY_REPORT_H
#define CLPARITY_REPORT_H

#include "clparity/export.h"
#include "clparity/format.h" /* cp_fmt_bytes, which the reports' users print sizes with */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

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

/* ---- replacing only what clparity wrote (runtime/files/owned.c)
 * ------------------------------------ CP_OK where path may be written: NULL, "-", missing, not a
 * regular file (a FIFO, a device: written, never replaced), empty, or a file that clparity wrote:
 * JSON whose "provenance" names clparity_version (the peak cache: at its top level; or the tune
 * store, an object of
 * {"params": ...} entries), CSV whose first line is "# provenance: {...clparity_version...}",
 * a plot with clparity's mark (cp_plot_mark), or a .npy whose header and length are those that
 * cp_npy_write gives its array (the format has no room for a mark: an array that NumPy wrote
 * the same way passes too). Anything else is CP_FAIL_USAGE, one line naming opt (may be NULL),
 * path and why. The writers call it at write time; the commands before any work. Test hook
 * "guard-off" turns this and the folder check off (the fault loop's planted defect). */
int cp_output_check(const char *opt, const char *path);

/* Puts clparity's mark into a plot that gnuplot wrote (PNG: a tEXt chunk "Software" =
 * "clparity <version>" after IHDR; SVG: "<!-- clparity <version> -->" after the XML
 * declaration), so that a later run can tell that it may replace it. */
int cp_plot_mark(const char *path);

/* The name to write before renaming to path: "<dir>/.<name>.clparity-tmp.<pid>" (first
 * removing such files beside path of pids no longer running: what killed writers left, and
 * nothing else), or a copy of path itself
 * where path names something other than a regular file (/dev/null, a FIFO, /dev/stdout),
 * which a rename() would replace. NULL when out of memory; free() it. */
char *cp_atomic_tmp_name(const char *path);

/* Syncs tmp (from cp_atomic_tmp_name) to the disk, renames it to path and syncs the folder;
 * nothing when they are the same name. Returns 0, or errno after removing tmp. */
int cp_atomic_commit(const char *tmp, const char *path);

/* Removes tmp after a failed write, unless it is path itself. */
void cp_atomic_abort(const char *tmp, const char *path);

/* Writes len bytes to path through its temporary name, fsync() and rename(), so that a failure
 * or a crash leaves no partial file (a path that is not a regular file, such as /dev/null, is
 * written directly); "-" means stdout. CP_FAIL_RUNTIME names the path on failure;
 * CP_FAIL_USAGE when path is a file that clparity did not write (cp_output_check). */
int cp_file_write_atomic(const char *path, const void *data, size_t len);

/* What a file that is not regular is, for messages, from its st_mode: "a FIFO", "a socket",
 * "a character device", "a block device", "a directory", else "not a regular file". */
const char *cp_file_kind(unsigned int mode);

/* A cJSON value as text (formatted or compact; free it with cJSON_free), NULL when out of
 * memory: as cJSON prints it, but every number that cJSON would print off by an ulp or two (it
 * keeps 15 digits where they read back within DBL_EPSILON) with the fewest digits that read
 * back as the same double. */
char *cp_json_print(const void *json, bool formatted);
/* Prints a cJSON value (formatted, cp_json_print) and writes it with cp_file_write_atomic. */
int cp_json_write(const char *path, const void *json);
/* json (a cJSON object, or NULL for JSON's null) as compact text in *out (malloc'd: free it
 * with cp_free), for bindings; json is deleted either way. CP_FAIL_RUNTIME when out of
 * memory. */
int cp_json_text(void *json, char **out);

/* True once an allocation of cJSON has failed in this process: a document built since may lack
 * items (cJSON drops them silently), so cp_json_write refuses to write it (and so does the
 * CSV writer its provenance line). */
bool cp_json_incomplete(void);

/* ---- --save folders, written as a whole ------------------------------------------------------
 * cp_save_begin(DIR) makes the temporary sibling ".DIR.clparity-tmp.<pid>" (first removing what
 * killed saves to DIR left: ".DIR.clparity-tmp.<pid>" and ".DIR.clparity-old.<pid>" of pids no
 * longer running, and where
 * DIR itself is missing after a kill between the fallback's two renames, putting the old
 * folder back); the caller writes its files into cp_save_dir(); cp_save_commit() syncs every
 * file and the folder and puts it in DIR's place in one step (renameat2 RENAME_EXCHANGE, or
 * else DIR -> ".DIR.clparity-old.<pid>", new -> DIR), so that DIR is at every instant the
 * old folder or the new one, whole; cp_save_abort() removes the temporary folder and leaves DIR
 * as it was. cp_save_commit adds "files" to the new index.json: every other file of the folder
 * with the FNV-1a 64 of its bytes. DIR may be missing, empty, or a save of clparity's: its
 * index.json (schema 1, version, provenance) lists under "files" every other file in DIR, each
 * with its hash as it is now. Anything else (a file not listed or changed, a subfolder, a save
 * of a clparity before these lists) is refused with CP_FAIL_USAGE naming the first such file
 * (by name order), since it would be replaced as a whole: by cp_save_check, cp_save_begin and
 * again by cp_save_commit just before the swap. Test hooks: "save-nonatomic" writes into DIR
 * itself (the fault that the tests must catch), "save-no-exchange" takes the two-rename
 * fallback, "save-kill-between-renames" takes it and kills the process between the renames,
 * "save-late-file" puts a file "late.txt" into DIR just before cp_save_commit checks DIR again
 * (the check at write time must refuse it). */
typedef struct cp_save cp_save;

/* CP_OK where DIR may be replaced by a save (see above); the error names it otherwise. */
int cp_save_check(const char *dir);
int cp_save_begin(const char *dir, cp_save **out);
const char *cp_save_dir(const cp_save *s);
/* Both free s. commit returns CP_OK, CP_FAIL_USAGE (DIR changed and is no save of clparity's
 * any more) or CP_FAIL_RUNTIME (DIR left as it was either way). abort returns
 * st, its message (cp_err_msg) extended with "DIR is left as it was". */
int cp_save_commit(cp_save *s);
int cp_save_abort(cp_save *s, int st);

/* ---- small helpers that every report shares ------------------------------------------------ */

/* Adds key: v to a cJSON object, or key: null when v is negative or not finite (unknown). */
void cp_json_add_num_or_null(void *obj, const char *key, double v);

/* cJSON_AddItemToObject(obj, key, item), deleting item when it cannot be added (no obj, or no
 * memory for the key's copy): cJSON leaves it to the caller, so a document built in one
 * expression, add(obj, key, make()), leaked it. The failed allocation still counts
 * (cp_json_incomplete), and the document is not written. */
bool cp_json_add(void *obj, const char *key, void *item);
/* The same for an array: cJSON_AddItemToArray(arr, item), deleting item when arr is NULL (an
 * array whose creation failed). Every item added to a report goes through one of these two. */
bool cp_json_push(void *arr, void *item);
/* cp_json_add, or key: null where item is NULL (nothing to say: no speed verdict, say). */
void cp_json_add_or_null(void *obj, const char *key, void *item);

/* ---- timing statistics (docs/PERFORMANCE.md, "How times are measured") ----------------------
 * The statistics of n timed runs, in seconds: n may be 0 (every field zero). The interval for
 * the median is distribution-free: the order statistics [x(l), x(n+1-l)] with the largest l
 * whose binomial coverage 1 - 2·P(Bin(n, 1/2) < l) is at least 95 %; below 6 runs none reaches
 * 95 % and it is [min, max], its coverage (1 - 2^(1-n)) in ci_level. p10 and p90 interpolate
 * linearly between order statistics (NumPy's default). */
typedef struct cp_stats {
    double median, min, max;
    double mean, sd;     /* sd: the sample standard deviation (n - 1); 0 for one run */
    double p10, p90;     /* the spread: (p90 - p10) / median is the relative spread */
    double ci_lo, ci_hi; /* the interval for the median */
    double ci_level;     /* its coverage: >= 0.95 from 6 runs on */
    double total;        /* the measured time: the sum of the runs */
    double head;         /* the mean of the first runs in the order they ran (the first fifth,
                            at least one): a cold cache shows as a slow head */
    size_t n;            /* runs */
} cp_stats;
/* The statistics of v[0..n) (v is sorted in place). */
cp_stats cp_stats_of(double *v, size_t n);

/* How many runs: --runs N fixes the count (fixed > 0). Otherwise the count adapts: at least
 * CP_RUNS_MIN runs and at least min_time seconds of measured (timed) time, at most
 * CP_RUNS_MAX runs; the CP_RUNS_MIN floor is waived once the measured time reaches
 * CP_RUNS_TIME_LIMIT (or min_time, if larger), so that one slow forward does not run five
 * times over. True while run k + 1 (0-based k runs done, measured seconds so far) is due. */
#define CP_RUNS_MIN 5
#define CP_RUNS_MAX 200
#define CP_MIN_TIME 0.2
#define CP_RUNS_TIME_LIMIT 10.0
bool cp_runs_more(long fixed, double min_time, size_t k, double measured);
/* The most runs that cp_runs_more allows: fixed, or CP_RUNS_MAX. */
size_t cp_runs_cap(long fixed);

/* ---- rounds: replicates spread over time (sweep --rounds) -----------------------------------
 * A result measured in `rounds` blocks of runs at different times (a sweep runs its whole grid
 * once per round) pools the blocks' runs; each block takes the round's share of the rule
 * above: of --runs N, N / rounds (the first N % rounds blocks one more); adaptive, at least
 * ceil(CP_RUNS_MIN / rounds) runs and min_time / rounds seconds, at most
 * CP_RUNS_MAX / rounds runs, and no more runs past the time limit / rounds. So the pooled
 * result keeps the rule of one block (at least CP_RUNS_MIN runs and min_time, at most
 * CP_RUNS_MAX, the time limit), and rounds == 1 is cp_runs_more. True while run k + 1 of
 * block `round` (0-based) is due. */
#define CP_ROUNDS_MAX 16
bool cp_runs_more_round(long fixed, double min_time, size_t rounds, size_t round, size_t k,
                        double measured);
/* The most runs that cp_runs_more_round allows in one block of `round`. */
size_t cp_runs_cap_round(long fixed, size_t rounds, size_t round);
/* Whether the medians of two results' rounds (ma[0..na), mb[0..nb)) leave the order of their
 * results in doubt: true when both have two rounds or more and the ranges [min, max] of their
 * round medians overlap, i.e. some round of the slower one was as fast as some round of the
 * faster one. False with fewer than two rounds on either side (nothing to tell). */
bool cp_rounds_overlap(const double *ma, size_t na, const double *mb, size_t nb);

/* A large spread is (p90 - p10) / median > CP_NOISY_SPREAD. */
#define CP_NOISY_SPREAD 0.2
/* Why a spread is large, the cause to suspect: */
enum cp_noise {
    CP_NOISE_NONE,     /* the spread is small */
    CP_NOISE_FEW_RUNS, /* fewer than CP_NOISE_FEW runs: too few runs to tell */
    CP_NOISE_COLD,     /* the first runs were the slow ones (head at or above p90, and over
                          the median by more than CP_NOISY_SPREAD): a cold cache */
    CP_NOISE_LOAD,     /* otherwise: other load on the machine */
};
#define CP_NOISE_FEW 10
enum cp_noise cp_stats_noise(const cp_stats *s);
/* "too few runs", "a cold cache (the first runs were slower)", "other load on the machine";
 * NULL for CP_NOISE_NONE. */
const char *cp_noise_cause(enum cp_noise c);
/* The relative spread (p90 - p10) / median; 0 when the median is 0. */
double cp_stats_spread(const cp_stats *s);
/* A robust standard deviation: (p90 - p10) / 2.5631, which equals the standard deviation for a
 * normal distribution and is not inflated by a few outliers (the ratio's ± uses it). */
double cp_stats_robust_sd(const cp_stats *s);

/* Adds the statistics to a cJSON object under prefix ("wall"): wall_median_s, wall_mean_s,
 * wall_sd_s, wall_min_s, wall_max_s, wall_p10_s, wall_p90_s, wall_ci_low_s, wall_ci_high_s,
 * wall_ci_level, and with all: runs, measured_s, spread (relative), noisy (bool) and
 * noise_cause (string or null). Reads them back with cp_stats_from_json (a missing key is 0;
 * false when the median is missing). */
void cp_stats_json_add(void *obj, const char *prefix, const cp_stats *s, bool all);
bool cp_stats_from_json(const void *obj, const char *prefix, cp_stats *s);

/* "~" for a result whose spread is large (cp_stats_noise), else "". */
const char *cp_stats_mark(const cp_stats *s);
/* The timing table of run, compare and diff: per timed result (names[i]: "cl:own on 1:0 ...";
 * results with no runs are left out) its runs, median ± half the p10-p90 spread, mean ± sd,
 * min, max and the interval for the median; then a note per result marked "~" naming the cause
 * to suspect, then the speed verdict (cp_speed_print). */
void cp_timing_print(FILE *f, const cp_stats *const *s, const char *const *names, size_t n);

/* ---- the speed verdict (hyperfine's summary) ----------------------------------------------
 * Against the fastest of n results (the smallest median), each other result's ratio
 * median_other / median_fastest, with ratio_sd = ratio · sqrt(ra² + rb²), where r is each
 * one's robust standard deviation (cp_stats_robust_sd) over its median: hyperfine propagates
 * the standard deviations of the means the same way. A ratio is within noise when either
 * result has fewer than CP_NOISE_FEW runs (too few to tell), when the two intervals for the
 * median overlap, or when ratio - 1 <= ratio_sd. */
typedef struct cp_speed {
    double ratio, ratio_sd;
    bool within_noise;
} cp_speed;
cp_speed cp_speed_of(const cp_stats *fastest, const cp_stats *other);
bool cp_speed_within_noise(const cp_stats *a, const cp_stats *b);
/* The index of the fastest of n results (those with n runs == 0 are skipped); n if none. */
size_t cp_speed_fastest(const cp_stats *const *s, size_t n);
/* Prints the verdict: "speed: ..." and one line per other result; names[i] is "cl:own on 1:0
 * pthread-..." (results without runs are left out). Nothing with fewer than 2 timed results. */
void cp_speed_print(FILE *f, const cp_stats *const *s, const char *const *names, size_t n);
/* The verdict as a cJSON object (void *): {"basis": "median wall time", "fastest": i,
 * "fastest_name", "others": [{"index", "name", "ratio", "ratio_sd", "within_noise", "text"}]};
 * NULL with fewer than 2 timed results or out of memory. */
void *cp_speed_json(const cp_stats *const *s, const char *const *names, size_t n);

/* The SHA-256 of len bytes as 64 hex digits ("" if OpenSSL fails). */
void cp_sha256_hex(const void *data, size_t len, char out[65]);

CP_API_END

#endif
