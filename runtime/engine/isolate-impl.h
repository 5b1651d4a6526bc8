/* Private: the setup of an OpenCL engine (kernel builds and probes) in a child process, where a
 * crash inside the OpenCL implementation costs one kernel path, not the run (isolate.c).
 *
 * The parent first creates the engine in-process with the compiler off: where every verdict
 * and every program is already in the program cache (a warm cache: programs are stored only
 * after their probe passed), nothing is compiled or probed and no child runs. Otherwise the
 * engine's setup is re-run by the clparity executable itself (a hidden subcommand, never a
 * fork of a process whose OpenCL implementation has threads), which builds, probes and warms
 * the cache and reports each probe by pipe. A child that dies by a signal, or that outlives
 * CLPARITY_SETUP_TIMEOUT, rejects the path it was probing or building (or, with none, fails
 * the engine on that device); the next child goes on without it. Then the parent creates the
 * engine in-process, from the cache. */
#ifndef CLPARITY_ISOLATE_IMPL_H
#define CLPARITY_ISOLATE_IMPL_H

#include "own-impl.h"

#include "clparity/device.h"
#include "clparity/engine.h"

#include <stdbool.h>

/* Whether this thread may compile or run a probe now. False during the parent's first,
 * cache-only attempt: the caller then fails with the reason set here, and the parent runs the
 * child instead. */
bool cp_isolate_may_compile(const char *what);

/* In a setup child: the driver's messages are left on stderr (the parent reads its tail after
 * a crash). */
bool cp_isolate_in_child(void);
/* In a setup child, creating the engine it is for (not a probe's): the builds and probes are
 * all it needs (no weights uploaded). */
bool cp_isolate_setup_only(void);

/* Keeps verdict v of probe (id, name, extra, cls) on dev for this process and, where persist,
 * in the program cache (own_probe.c): the parent's record of a path whose probe or build
 * crashed. extra is cp_probe_cached_ex's key beyond the class (cl:cr's variant settings), NULL
 * or "" for none. */
void cp_probe_record(const cp_device *dev, int id, const char *name, const char *extra,
                     struct cp_probe_class cls, enum cp_probe_verdict v, const char *why,
                     bool persist);

/* In the child: a probe of (id, name, extra, cls) is about to run, or gave verdict v. */
void cp_isolate_probe_begin(int id, const char *name, const char *extra, struct cp_probe_class cls);
void cp_isolate_probe_end(int id, const char *name, const char *extra, struct cp_probe_class cls,
                          enum cp_probe_verdict v, const char *why);

/* Test hooks build-abort:<path>, build-segv:<path> and build-hang:<path> (<path> a kernel path's
 * name, "cr:<variant>" for cl:cr's, or "all"): the build of that path's program raises SIGABRT
 * or SIGSEGV, or never returns, as a compiler that crashes or hangs does. */
void cp_isolate_test_crash(const char *path);

/* The state (isolate.c) that the driver sets: the parent's side (isolate_run.c) and the
 * child's (isolate_child.c); the functions above read it. */
extern const char *cp_isolate_exe_path; /* cp_isolate_enable's; NULL: off */
extern bool cp_isolate_child_mode;      /* this process is a "__setup" child */
/* The parent's first attempt: programs and verdicts from the cache only. */
extern _Thread_local bool cp_isolate_cache_only;
extern _Thread_local bool cp_isolate_needs_child;
/* cp_isolate_create's depth on this thread: the probes' own engines are set up in-process */
extern _Thread_local int cp_isolate_depth;

/* The protocol's word for a probe's extra key back as the key (in place; "-" is ""). */
const char *cp_isolate_extra_decode(char *word);
/* why on one line (in place): the protocol's and the report's */
void cp_isolate_one_line(char *s);

#endif
