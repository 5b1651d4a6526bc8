/* The parent's side of an OpenCL engine's setup (its kernel builds and probes) in a child
 * process: isolate-impl.h says why and how. The child is clparity itself, re-executed with the
 * hidden subcommand
 * "__setup": an OpenCL implementation's threads do not survive fork(), so a process that has
 * initialised one is never forked.
 *
 * The parent writes the child's stdin to a file first (the model's layers, the verdicts
 * already known: paths that crashed in an earlier child), so that neither side can block on
 * the other; the child's stdout is a pipe of lines, each flushed before the next step:
 *
 *   probe ID WIDE BIG SQUARE FLAGS NAME              a probe (or the build after it) begins
 *   verdict ID WIDE BIG SQUARE FLAGS V NAME WHY...   its verdict (V: 0 pass, 1 fail, 2 n/a)
 *   note TEXT                                        the program cache's note (a bad entry
 *                                                    replaced), for the parent's builds: line
 *   done STATUS                                      the setup ended with STATUS (CP_OK ...)
 *
 * and its stderr a file, whose last lines name the crash. */
#include "isolate-run-impl.h"
#include "isolate-impl.h"

#include "clparity/env.h"
#include "engine-impl.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Children one engine's setup may take: each crash rejects one path, and no engine has more
 * paths than this. */
#define ROUNDS_MAX 24
#define TIMEOUT_DEFAULT_S 900

/* A probe the child announced: the path it was probing or building. */
struct announced {
    bool any;
    int id;
    struct cp_probe_class cls;
    char name[64];
    char extra[CP_PROBE_KEY_EXTRA]; /* as the protocol carries it (extra_encode) */
};

/* What one child did: exited with status (ended), died by signal sig, or ran past the
 * timeout. */
struct child_end {
    bool ended, timed_out;
    bool done;      /* it said "done": its setup ended, whatever happens at its exit */
    char note[256]; /* what the program cache did that was unusual (cp_build_cache's note) */
    int status, sig;
    double secs;
    struct announced last;
    char tail[240]; /* its stderr's last lines, " | " between them */
};

static int setup_timeout(int *secs)
{
    double v;
    bool set = false;
    int st = cp_env_number("CLPARITY_SETUP_TIMEOUT", &v, &set);
    *secs = set ? (int)v : TIMEOUT_DEFAULT_S;
    return st;
}

static const char *signal_name(int sig)
{
    static const struct {
        int sig;
        const char *name;
    } names[] = {{SIGABRT, "SIGABRT"}, {SIGSEGV, "SIGSEGV"}, {SIGBUS, "SIGBUS"},
                 {SIGILL, "SIGILL"},   {SIGFPE, "SIGFPE"},   {SIGTRAP, "SIGTRAP"},
                 {SIGKILL, "SIGKILL"}, {SIGTERM, "SIGTERM"}, {SIGSYS, "SIGSYS"}};
    for (size_t i = 0; i < sizeof names / sizeof *names; ++i)
        if (names[i].sig == sig)
            return names[i].name;
    return "a signal";
}

/* A signal that a crashing compiler raises: a path rejected for it stays rejected in the
 * cache. SIGKILL (the OOM killer, a user) and a timeout on a loaded machine may not recur. */
static bool crash_signal(int sig)
{
    return sig == SIGABRT || sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE ||
           sig == SIGTRAP;
}

/* The last two non-blank lines of the child's stderr (fd, a file), each cut to 110 bytes. */
static void stderr_tail(int fd, char *out, size_t len)
{
    char buf[4096];
    out[0] = '\0';
    off_t size = lseek(fd, 0, SEEK_END);
    off_t from = size > (off_t)sizeof buf - 1 ? size - (off_t)sizeof buf + 1 : 0;
    ssize_t n = size > 0 ? pread(fd, buf, (size_t)(size - from), from) : 0;
    if (n <= 0)
        return;
    buf[n] = '\0';
    const char *lines[2] = {NULL, NULL};
    size_t lens[2] = {0, 0};
    for (char *end = buf + n; end > buf && !lines[0];) {
        char *nl = end;
        while (nl > buf && nl[-1] != '\n')
            --nl;
        size_t l = (size_t)(end - nl);
        while (l && (nl[l - 1] == '\n' || nl[l - 1] == ' ' || nl[l - 1] == '\r'))
            --l;
        if (l) {
            int k = lines[1] ? 0 : 1;
            lines[k] = nl;
            lens[k] = l > 110 ? 110 : l;
        }
        end = nl > buf ? nl - 1 : buf;
        if (nl == buf)
            break;
    }
    size_t at = 0;
    for (int k = 0; k < 2; ++k)
        if (lines[k] && at < len)
            at += (size_t)snprintf(out + at, len - at, "%s%.*s", at ? " | " : "", (int)lens[k],
                                   lines[k]);
    cp_isolate_one_line(out);
}

/* The child's stdin: the model's shapes and the verdicts known so far. */
static int write_input(FILE *f, const cp_model *m, const char *verdicts)
{
    fprintf(f, "model %d %zu\n", m->n_layers, m->n_params);
    for (int l = 0; l < m->n_layers; ++l) {
        const cp_layer *L = &m->layers[l];
        fprintf(f, "%d %d %zu %zu %d %d %d\n", L->in, L->out, L->w_off, L->b_off, L->has_bias,
                (int)L->act, L->residual);
    }
    fputs(verdicts, f);
    if (fflush(f) != 0 || ferror(f) || fseek(f, 0, SEEK_SET) != 0)
        return cp_err_set(CP_FAIL_RUNTIME, "cannot write the setup child's input: %s",
                          strerror(errno));
    return CP_OK;
}

/* One line of the child's stdout: announcements and verdicts. */
static void parse_line(char *line, const cp_device *dev, struct child_end *c)
{
    int id, wide, big, square, flags, v, at = 0;
    char name[64], extra[CP_PROBE_KEY_EXTRA];
    if (strncmp(line, "done ", 5) == 0) {
        c->done = true;
    } else if (strncmp(line, "note ", 5) == 0) {
        snprintf(c->note, sizeof c->note, "%s", line + 5);
    } else if (sscanf(line, "probe %d %d %d %d %d %63s %511s", &id, &wide, &big, &square, &flags,
                      name, extra) == 7) {
        c->last = (struct announced){true, id, {wide != 0, big != 0, square != 0, flags}, "", ""};
        snprintf(c->last.name, sizeof c->last.name, "%s", name);
        snprintf(c->last.extra, sizeof c->last.extra, "%s", extra);
    } else if (sscanf(line, "verdict %d %d %d %d %d %d %63s %511s %n", &id, &wide, &big, &square,
                      &flags, &v, name, extra, &at) >= 8 &&
               at > 0 && v >= CP_PROBE_PASS && v <= CP_PROBE_NA) {
        /* kept for the in-process setup that follows (the child stored it in the cache too) */
        struct cp_probe_class cls = {wide != 0, big != 0, square != 0, flags};
        cp_probe_record(dev, id, name, cp_isolate_extra_decode(extra), cls,
                        (enum cp_probe_verdict)v, line + at, false);
    }
}

static double now_s(void)
{
    return cp_now();
}

/* The child's environment: this one without tests/faults/shim.c's CLPARITY_FAULT_* (the fault
 * loop counts and fails the calls of the parent, which reports what the user sees; the child
 * would fail its own Nth call too, and write the shim's report over the parent's). The
 * strings are environ's; the array is malloc'd. */
static char **child_env(void)
{
    size_t n = 0;
    while (environ[n])
        ++n;
    char **env = calloc(n + 1, sizeof *env);
    if (!env)
        return NULL;
    for (size_t i = 0, k = 0; i < n; ++i)
        if (strncmp(environ[i], "CLPARITY_FAULT_", 15) != 0)
            env[k++] = environ[i];
    return env;
}

/* Runs one child for engine on dev with model m; fills *c. An error only where the child could
 * not be started (then the setup runs in-process, unprotected, as the library's does). */
static int run_child(const cp_engine *e, const cp_device *dev, const char *verdicts, int timeout_s,
                     struct child_end *c)
{
    memset(c, 0, sizeof *c);
    double t0 = now_s();
    FILE *in = tmpfile();
    FILE *err = tmpfile();
    int out[2] = {-1, -1};
    int st = in && err ? CP_OK
                       : cp_err_set(CP_FAIL_RUNTIME, "setup child: tmpfile: %s", strerror(errno));
    if (st == CP_OK)
        st = write_input(in, e->model, verdicts);
    if (st == CP_OK && pipe(out) != 0)
        st = cp_err_set(CP_FAIL_RUNTIME, "setup child: pipe: %s", strerror(errno));
    /* none of these reaches another thread's child (the file actions give this one its own
     * copies): a pipe's write end held there would keep this read from its end of file */
    int fds[4] = {out[0], out[1], in ? fileno(in) : -1, err ? fileno(err) : -1};
    for (int i = 0; st == CP_OK && i < 4; ++i)
        (void)fcntl(fds[i], F_SETFD, FD_CLOEXEC);
    pid_t pid = -1;
    if (st == CP_OK) {
        char sel[32], batch[16];
        snprintf(sel, sizeof sel, "%d:%d", dev->plat_idx, dev->dev_idx);
        snprintf(batch, sizeof batch, "%d", e->max_batch);
        char *argv[] = {"clparity", "__setup", sel, (char *)e->info->name, batch, NULL};
        posix_spawn_file_actions_t fa;
        int rc = posix_spawn_file_actions_init(&fa);
        if (rc == 0) {
            if ((rc = posix_spawn_file_actions_adddup2(&fa, fileno(in), STDIN_FILENO)) == 0 &&
                (rc = posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO)) == 0 &&
                (rc = posix_spawn_file_actions_adddup2(&fa, fileno(err), STDERR_FILENO)) == 0) {
                char **env = child_env();
                rc = env ? posix_spawn(&pid, cp_isolate_exe_path, &fa, NULL, argv, env) : ENOMEM;
                free(env);
            }
            posix_spawn_file_actions_destroy(&fa);
        }
        if (rc != 0)
            st = cp_err_set(CP_FAIL_RUNTIME, "setup child: cannot run %s: %s", cp_isolate_exe_path,
                            strerror(rc));
    }
    if (out[1] >= 0)
        close(out[1]);
    /* its stdout, line by line, until it closes or the time is up */
    char buf[8192];
    size_t have = 0;
    double deadline = t0 + timeout_s;
    while (st == CP_OK) {
        int left_ms = (int)((deadline - now_s()) * 1000.0);
        if (left_ms <= 0) {
            c->timed_out = true;
            kill(pid, SIGKILL);
            break;
        }
        struct pollfd pfd = {out[0], POLLIN, 0};
        int pr = poll(&pfd, 1, left_ms);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr <= 0)
            continue; /* the deadline check above ends it */
        ssize_t n = read(out[0], buf + have, sizeof buf - 1 - have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        have += (size_t)n;
        buf[have] = '\0';
        char *nl, *line = buf;
        while ((nl = strchr(line, '\n'))) {
            *nl = '\0';
            parse_line(line, dev, c);
            line = nl + 1;
        }
        have = (size_t)(buf + have - line);
        memmove(buf, line, have);
        if (have == sizeof buf - 1)
            have = 0; /* a line longer than any the child writes: not ours */
    }
    if (pid > 0) {
        int ws = 0;
        pid_t w;
        while ((w = waitpid(pid, &ws, 0)) < 0 && errno == EINTR)
            ;
        if (w < 0) { /* not ours to wait for (SIGCHLD ignored): its stdout says how it went */
            c->ended = c->done;
            c->status = CP_FAIL_RUNTIME;
        } else if (WIFSIGNALED(ws) && !c->timed_out)
            c->sig = WTERMSIG(ws);
        else if (WIFEXITED(ws)) {
            c->ended = true;
            c->status = WEXITSTATUS(ws);
        }
        stderr_tail(fileno(err), c->tail, sizeof c->tail);
    }
    if (out[0] >= 0)
        close(out[0]);
    if (in)
        fclose(in);
    if (err)
        fclose(err);
    c->secs = now_s() - t0;
    return st;
}

/* Sets up e on dev in children until one ends (with a status, whatever it is); each crash
 * rejects the path that the child was probing or building. *secs: the children's wall time.
 * An error: the setup crashed with no path to blame, or no child could be started
 * (*unprotected: then the caller sets up in-process). */
static int setup_in_children(const cp_engine *e, const cp_device *dev, double *secs,
                             bool *unprotected, char *note, size_t note_len)
{
    int timeout_s;
    int st = setup_timeout(&timeout_s);
    if (st != CP_OK)
        return st;
    char *verdicts = NULL; /* the crashes so far, as the child reads them */
    size_t vlen = 0;
    FILE *vf = open_memstream(&verdicts, &vlen);
    if (!vf)
        return cp_err_set(CP_FAIL_RUNTIME, "setup child: out of memory");
    char crashed[256] = ""; /* the paths rejected so far, for the engine's error */
    *secs = 0.0;
    for (int round = 0; round < ROUNDS_MAX; ++round) {
        if (fflush(vf) != 0) {
            st = cp_err_set(CP_FAIL_RUNTIME, "setup child: out of memory");
            break;
        }
        struct child_end c;
        st = run_child(e, dev, verdicts, timeout_s, &c);
        *secs += c.secs;
        if (st != CP_OK) {
            *unprotected = true;
            break;
        }
        /* the in-process setup repeats what it did, from the cache; a driver that dies at
         * the child's exit (after "done") spoiled no path */
        if (c.ended || c.done) {
            snprintf(note, note_len, "%s", c.note);
            break;
        }
        char what[64], why[CP_PROBE_WHY];
        if (c.timed_out)
            snprintf(what, sizeof what, "did not finish in %d s (CLPARITY_SETUP_TIMEOUT)",
                     timeout_s);
        else
            snprintf(what, sizeof what, "crashed (%s)", signal_name(c.sig));
        if (!c.last.any) {
            size_t n = strlen(crashed);
            /* the last crash of all: the first choice, built once every path was rejected */
            st = cp_err_set(CP_FAIL_RUNTIME,
                            "the OpenCL compiler %s setting up %s%s%s%s; its stderr ended: %s",
                            what, e->info->name, n ? ", on every kernel path (" : "", crashed,
                            n ? ")" : "", c.tail[0] ? c.tail : "(nothing)");
            break;
        }
        snprintf(why, sizeof why,
                 "the OpenCL compiler %.56s building or probing it; its stderr ended: %.220s", what,
                 c.tail[0] ? c.tail : "(nothing)");
        char extra[CP_PROBE_KEY_EXTRA];
        snprintf(extra, sizeof extra, "%s", c.last.extra);
        cp_probe_record(dev, c.last.id, c.last.name, cp_isolate_extra_decode(extra), c.last.cls,
                        CP_PROBE_FAIL, why, !c.timed_out && crash_signal(c.sig));
        fprintf(vf, "verdict %d %d %d %d %d %d %s %s %s\n", c.last.id, c.last.cls.wide,
                c.last.cls.big_batch, c.last.cls.square, c.last.cls.flags, (int)CP_PROBE_FAIL,
                c.last.name, c.last.extra, why);
        size_t n = strlen(crashed);
        snprintf(crashed + n, sizeof crashed - n, "%s%s", n ? ", " : "", c.last.name);
        if (round + 1 == ROUNDS_MAX)
            st = cp_err_set(CP_FAIL_RUNTIME, "the OpenCL compiler crashed %d times setting up %s",
                            ROUNDS_MAX, e->info->name);
    }
    fclose(vf);
    free(verdicts);
    return st;
}

/* Undoes a create() that failed or was tried from the cache only, for the next try. */
static void reset_engine(cp_engine *e)
{
    if (e->state)
        e->ops->destroy(e);
    e->state = NULL;
    e->build_s = e->upload_s = 0.0;
    e->build_options[0] = '\0';
    memset(&e->build_cache, 0, sizeof e->build_cache);
    memset(&e->paths, 0, sizeof e->paths);
    e->paths.exact = -1;
    e->routine[0] = '\0';
}

static cp_isolate_notice_fn notice_fn;
static void *notice_ctx;

void cp_isolate_set_notice(cp_isolate_notice_fn fn, void *ctx)
{
    notice_fn = fn;
    notice_ctx = ctx;
}

/* Public (clparity/engine.h): the engine object reaches the driver through its hook only, so
 * that engine.c never calls up into it. */
void cp_isolate_enable(const char *exe)
{
    cp_isolate_exe_path = exe;
    cp_engine_set_isolation(exe ? cp_isolate_create : NULL);
}

int cp_isolate_create(cp_engine *e, const cp_device *dev, const cp_model *m, int max_batch,
                      int (*create)(cp_engine *e, const cp_device *dev, const cp_model *m,
                                    int max_batch))
{
    if (cp_isolate_child_mode) { /* depth 1: the engine it sets up; deeper: its probes' engines */
        ++cp_isolate_depth;
        int st = create(e, dev, m, max_batch);
        --cp_isolate_depth;
        return st;
    }
    if (!cp_isolate_exe_path || cp_isolate_depth > 0)
        return create(e, dev, m, max_batch);
    ++cp_isolate_depth;
    /* a warm cache: every program and verdict there, nothing compiled, no child */
    cp_isolate_cache_only = true;
    cp_isolate_needs_child = false;
    int st = create(e, dev, m, max_batch);
    cp_isolate_cache_only = false;
    if (!cp_isolate_needs_child) {
        --cp_isolate_depth;
        return st;
    }
    cp_isolate_needs_child = false;
    reset_engine(e);
    if (notice_fn) /* something to build: the cache was cold */
        notice_fn(dev, e->info->name, notice_ctx);
    double secs = 0.0;
    bool unprotected = false;
    char note[sizeof e->build_cache.note] = "";
    st = setup_in_children(e, dev, &secs, &unprotected, note, sizeof note);
    if (st == CP_OK || unprotected) {
        if (unprotected) { /* said once: the run goes on as without the isolation */
            static bool said;
            if (!said)
                fprintf(stderr, "clparity: warning: %s; kernel builds run in this process\n",
                        cp_err_msg());
            said = true;
        }
        st = create(e, dev, m, max_batch);
        e->build_s += secs;
        e->paths.in_child = !unprotected;
        /* built by the child, loaded here: a miss for this run, as without the isolation */
        if (e->build_cache.state == CP_CACHE_HIT && !unprotected) {
            e->build_cache.state = CP_CACHE_MISS;
            memcpy(e->build_cache.note, note, sizeof note);
        }
    }
    --cp_isolate_depth;
    return st;
}
