/* The isolation's state (isolate-impl.h says why and how), below everything that asks it: whether
 * this process is a setup child, whether this thread may compile now (program.c, own_probe.c),
 * the child's protocol lines for a probe's start and verdict, and the build-crash test hooks. The
 * driver sets the state: the parent's side in isolate_run.c (cp_isolate_create), the child's in
 * isolate_child.c (cp_isolate_child_main). */
#include "isolate-impl.h"

#include "testhook-impl.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

const char *cp_isolate_exe_path; /* cp_isolate_enable's; NULL: off */
bool cp_isolate_child_mode;      /* this process is a "__setup" child */
/* The parent's first attempt: programs and verdicts from the cache only. */
_Thread_local bool cp_isolate_cache_only;
_Thread_local bool cp_isolate_needs_child;
/* cp_isolate_create's depth on this thread: the probes' own engines are set up in-process */
_Thread_local int cp_isolate_depth;

bool cp_isolate_in_child(void)
{
    return cp_isolate_child_mode;
}

bool cp_isolate_setup_only(void)
{
    return cp_isolate_child_mode && cp_isolate_depth == 1;
}

bool cp_isolate_may_compile(const char *what)
{
    if (!cp_isolate_cache_only)
        return true;
    cp_isolate_needs_child = true;
    cp_err_set(CP_FAIL_RUNTIME, "%s is not in the program cache: it is built in a child", what);
    return false;
}

/* A probe's extra key (cl:cr's build options and launch groups) as one protocol word: "-" when
 * empty, its spaces as '\x1e' (no space for sscanf's %s); cp_isolate_extra_decode undoes it in
 * place. */
static void extra_encode(const char *extra, char *out, size_t len)
{
    snprintf(out, len, "%s", extra && extra[0] ? extra : "-");
    for (char *p = out; *p; ++p)
        if (*p == ' ' || *p == '\n' || *p == '\t')
            *p = '\x1e';
}

const char *cp_isolate_extra_decode(char *word)
{
    if (strcmp(word, "-") == 0)
        return "";
    for (char *p = word; *p; ++p)
        if (*p == '\x1e')
            *p = ' ';
    return word;
}

/* why on one line: the protocol's and the report's */
void cp_isolate_one_line(char *s)
{
    for (; *s; ++s)
        if (*s == '\n' || *s == '\r' || *s == '\t')
            *s = ' ';
}

void cp_isolate_probe_begin(int id, const char *name, const char *extra, struct cp_probe_class cls)
{
    if (!cp_isolate_child_mode)
        return;
    char x[CP_PROBE_KEY_EXTRA];
    extra_encode(extra, x, sizeof x);
    printf("probe %d %d %d %d %d %s %s\n", id, cls.wide, cls.big_batch, cls.square, cls.flags, name,
           x);
    fflush(stdout);
}

void cp_isolate_probe_end(int id, const char *name, const char *extra, struct cp_probe_class cls,
                          enum cp_probe_verdict v, const char *why)
{
    if (!cp_isolate_child_mode)
        return;
    char w[CP_PROBE_WHY], x[CP_PROBE_KEY_EXTRA];
    snprintf(w, sizeof w, "%s", why);
    cp_isolate_one_line(w);
    extra_encode(extra, x, sizeof x);
    printf("verdict %d %d %d %d %d %d %s %s %s\n", id, cls.wide, cls.big_batch, cls.square,
           cls.flags, (int)v, name, x, w);
    fflush(stdout);
}

void cp_isolate_test_crash(const char *path)
{
    static const struct {
        const char *hook;
        int sig; /* 0: hang */
    } kinds[] = {{"build-abort", SIGABRT}, {"build-segv", SIGSEGV}, {"build-hang", 0}};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; ++i) {
        char one[64], all[64];
        snprintf(one, sizeof one, "%s:%s", kinds[i].hook, path);
        snprintf(all, sizeof all, "%s:all", kinds[i].hook);
        if (!cp_test_hook(one) && !cp_test_hook(all))
            continue;
        /* what a compiler prints before it dies, for the report's stderr tail */
        fprintf(stderr, "clparity: test hook %s: the build of %s %s\n", kinds[i].hook, path,
                kinds[i].sig ? "crashes" : "hangs");
        fflush(stderr);
        if (!kinds[i].sig)
            for (;;)
                pause();
        /* the default action, whatever handler a library installed (LLVM's, in PoCL, catches
         * SIGABRT and SIGSEGV and returns from raise()) */
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, kinds[i].sig);
        pthread_sigmask(SIG_UNBLOCK, &set, NULL);
        signal(kinds[i].sig, SIG_DFL);
        raise(kinds[i].sig);
    }
}
