/* The one progress line of every command (run, compare, train, tune, peak, sweep, and rank 0
 * of --mpi): long work says on stderr what it is doing, as a single line rewritten in place
 * ("\r", then erase to the end of the line), at most 10 times a second, cut to the terminal's
 * width, and erased before anything else is printed and at the end, so that the report is
 * clean. Nothing is written unless stderr is a terminal and --quiet was not given: a pipe or
 * a file never gets any of it, and nothing of it ever goes to stdout. */
#ifndef CLPARITY_TOOLS_PROGRESS_H
#define CLPARITY_TOOLS_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

/* --quiet (every command): no progress at all. */
void progress_set_quiet(bool quiet);
/* Rank 0 of --mpi (mpi_begin): its stderr is mpirun's pipe, which mpirun copies to its own
 * stderr as it comes, partial lines included. The line is shown when mpirun's stderr (the
 * parent process's, read through /proc) is a terminal; the other ranks show none. */
void progress_via_parent(void);
/* Whether progress is shown: stderr (or mpirun's, for rank 0 of --mpi) is a terminal, and not
 * --quiet. */
bool progress_enabled(void);
/* Shows the line, unless one was shown less than 0.1 s ago (a count that moves fast). */
void progress_show(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Shows the line now: a new stage (a build, a device), which may last. */
void progress_stage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A count with an estimate of the time left, for a line's prefix: "3/17, about 45 s left"
 * (or "1/17" before anything is done): the time since *start (set on the first call, done 0)
 * spread over the done steps. */
void progress_eta(char *buf, size_t len, double *start, size_t done, size_t total);
/* Erases the line when one is shown; call before printing anything else on the terminal
 * (cli_fail does). */
void progress_clear(void);

#endif
