/* Shared pieces of the command line: value parsing, device and engine selection. Every
 * error prints one first line on stderr that names the problem, and returns the exit status
 * of DESIGN.md. */
#ifndef CLPARITY_CLI_H
#define CLPARITY_CLI_H

#include "clparity/device.h"
#include "clparity/engine.h"
#include "clparity/model.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Prints "clparity <cmd>: <message>" on stderr and returns status. */
int cli_fail(const char *cmd, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Integers in [min, max]: anything else (empty, trailing text, out of range) is status 2. */
int cli_parse_long(const char *cmd, const char *opt, const char *s, long min, long max, long *out);
int cli_parse_u64(const char *cmd, const char *opt, const char *s, uint64_t *out);
int cli_parse_double(const char *cmd, const char *opt, const char *s, double min, double max,
                     double *out);

/* Enumerates devices and applies the -d selectors (or the default). On a selector that
 * matches nothing, the first stderr line names it and the device list follows. */
int cli_select_devices(const char *cmd, char **sels, size_t nsel, cp_devlist *devs, bool **chosen);

/* Parses --engines (NULL: every engine that applies to a selected device) into a flag per
 * registered engine. An unknown engine, or one that applies to no selected device, is 2. */
int cli_select_engines(const char *cmd, const char *list, const cp_devlist *devs,
                       const bool *chosen, bool *use);

/* The --runs, --warmup, --json, --save, --version and --help lines shared by commands. */
extern const char cli_common_help[];

/* Checks before any work that --save DIR can be made (its parent folder written: nothing is
 * made here) or, where it exists, that it is a writable clparity save folder (cp_save_check),
 * and that
 * an output FILE ('-': stdout, always fine) is not a directory or another file that is not
 * regular (a FIFO, a device, a socket) and that its folder exists and can be written. Status 2
 * (a bad value, refused before any work) on failure, after printing the problem. */
int cli_check_output_dir(const char *cmd, const char *dir);
int cli_check_output_file(const char *cmd, const char *opt, const char *path);

/* Checks before any work that the folder dir of a store that the command writes at its end
 * (tune's settings under XDG_CACHE_HOME/clparity), made with its parents where missing, can be
 * made: the nearest part of it that exists is a folder this process may write. Status 2 after
 * "clparity CMD: WHAT: cannot create DIR: ..." otherwise. */
int cli_check_store_dir(const char *cmd, const char *what, const char *dir);

/* The paths of one command, checked together before any work (cli_check_paths). */
enum cli_path_kind {
    CLI_IN_FILE,     /* a file the command reads (--model, --input...) */
    CLI_IN_DIR,      /* a folder the command reads (diff's operands) */
    CLI_OUT_FILE,    /* a file it writes (--json, --out...; '-' is stdout) */
    CLI_OUT_DIR,     /* a folder it writes (--save) */
    CLI_OUT_SIDECAR, /* --csv's FILE.json, added by cli_check_paths itself (checked with --csv) */
};
struct cli_path {
    const char *opt;  /* "--json"; for a folder operand, what to call it */
    const char *path; /* NULL: not given, skipped */
    enum cli_path_kind kind;
};
/* Every path alone (an input that exists must be a regular file, an output as
 * cli_check_output_file says, an output folder a writable folder or creatable), then each
 * against the others (--csv FILE's sidecar FILE.json too): an output may not be an input of the run
 * (same device and inode, or the same resolved name for files not yet made), nor another output,
 * nor lie inside an output folder; no input may lie inside an output folder; an output inside a
 * folder read may not be one of its files. Status 2 after a message naming both options and the
 * path. */
int cli_check_paths(const char *cmd, const struct cli_path *paths, size_t n);

void cli_print_version(void);

/* A whole text file, NUL-terminated (malloc'd). On failure prints "clparity CMD: ..." and
 * returns the status: CP_FAIL_USAGE when it cannot be opened, else CP_FAIL_RUNTIME. */
int cli_read_text(const char *cmd, const char *path, char **out);
/* Writes a cJSON object (root, deleted here; NULL: out of memory) to path atomically. On
 * failure prints "clparity CMD: OPT: <problem>" (without "OPT: " when opt is NULL) and
 * returns the status. */
int cli_write_json(const char *cmd, const char *opt, const char *path, void *root);

/* After a failed kernel build: the compiler's log on stderr, when there is one. */
void cli_print_build_log(void);

/* fflush for a command's report: when f is stdout and the flush fails, its errno is kept for
 * clparity's exit check (tools/main.c), which fails the run and names the cause. */
void cli_flush(FILE *f);
/* That errno, 0 when no flush of stdout through cli_flush failed. */
int cli_stdout_errno(void);

/* Whether an executable gnuplot is in PATH (for --plot). */
bool cli_gnuplot_in_path(void);

/* --plot FILE's checks before any work: FILE ends in .png or .svg, and gnuplot is in PATH.
 * CP_OK when plot is NULL or passes; else the usage failure, printed for cmd. */
int cli_check_plot(const char *cmd, const char *plot);
/* Whether s ends with suffix (and is longer than it). */
bool cli_ends_with(const char *s, const char *suffix);

/* Writes v in gnuplot's double quotes, with quotes and backslashes escaped. */
void cli_gp_quoted(FILE *f, const char *v);

/* A plot being drawn: gnuplot writes path's temporary name (cp_atomic_tmp_name), renamed into
 * place when gnuplot succeeded. */
struct cli_plot {
    FILE *gp; /* gnuplot's standard input: the caller's commands after the terminal's */
    char *tmp;
    const char *path;
};
/* Starts gnuplot with the terminal for path (SVG for .svg, else PNG; 1000 x 650, sans 10, no
 * enhanced text) and its output set. On failure prints "clparity CMD: --plot: ..." and
 * returns the status. */
int cli_plot_open(const char *cmd, const char *path, struct cli_plot *p);
/* Closes the output, waits for gnuplot and renames its file into place (removed when gnuplot
 * failed). Returns the status, printing the problem. */
int cli_plot_close(const char *cmd, struct cli_plot *p);

/* --model FILE: reads the safetensors file into m (architecture from arch, the flags, or as
 * cp_model_from_safetensors finds it: *arch_from says where) and its SHA-256 into sha.
 * On failure prints "clparity CMD: ..." and returns the status. */
int cli_load_model(const char *cmd, const char *path, const cp_arch_opts *arch, cp_model *m,
                   const char **arch_from, char sha[65]);

#endif
