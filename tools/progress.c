#include "progress.h"

#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static bool quiet;
static int tty = -1;                    /* -1: not asked yet */
static bool relayed;                    /* progress_via_parent found mpirun's terminal */
static int relay_cols;                  /* that terminal's width, 0 when unknown */
static bool shown;                      /* a line is on the terminal */
static bool at_exit_set;                /* progress_clear registered with atexit */
static double last_s;                   /* when the last line was written */
static volatile sig_atomic_t on_screen; /* shown, for the signal handler */

#define PROGRESS_INTERVAL_S 0.1

/* Ctrl-C (or SIGTERM, SIGHUP) while a line is shown: erase it, then give the signal to the
 * handler that was there before, as if this one had never been: LLVM's (loaded with PoCL;
 * it removes its files and re-raises), a command's own (sweep's finishes the result), or the
 * default action, which ends the process as a shell expects. write() is async-signal-safe;
 * the signal raised again is delivered when this handler returns. */
static const int fatal_sigs[] = {SIGINT, SIGTERM, SIGHUP};
#define N_FATAL (sizeof fatal_sigs / sizeof fatal_sigs[0])
static struct sigaction before[N_FATAL];

static void on_fatal_signal(int sig)
{
    if (on_screen) {
        ssize_t w = write(STDERR_FILENO, "\r\033[K", 4);
        (void)w;
        on_screen = 0;
    }
    for (size_t i = 0; i < N_FATAL; ++i)
        if (fatal_sigs[i] == sig)
            sigaction(sig, &before[i], NULL);
    raise(sig);
}

static void catch_fatal_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < N_FATAL; ++i)
        if (sigaction(fatal_sigs[i], NULL, &before[i]) == 0 && before[i].sa_handler != SIG_IGN)
            sigaction(fatal_sigs[i], &sa, NULL);
}

void progress_set_quiet(bool q)
{
    quiet = q;
}

void progress_via_parent(void)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/fd/2", (long)getppid());
    int fd = open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return;
    if (isatty(fd)) {
        struct winsize ws;
        relayed = true;
        tty = 1;
        if (ioctl(fd, TIOCGWINSZ, &ws) == 0)
            relay_cols = ws.ws_col;
    }
    close(fd);
}

bool progress_enabled(void)
{
    if (tty < 0) {
        /* Test hook (tests/cli/progress.sh planted): progress on whatever stderr is. */
        const char *hook = getenv("CLPARITY_TEST_HOOK");
        tty = isatty(STDERR_FILENO) || (hook && strcmp(hook, "progress-always") == 0) ? 1 : 0;
    }
    return !quiet && tty == 1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The terminal's width less one (a line that fills the last column wraps, and "\r" then
 * returns to its second half only); 79 when the terminal does not say. */
static size_t width(void)
{
    struct winsize ws;
    if (relayed)
        return relay_cols > 1 ? (size_t)relay_cols - 1 : 79;
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1)
        return (size_t)ws.ws_col - 1;
    return 79;
}

static void show(bool force, const char *fmt, va_list ap)
{
    if (!progress_enabled())
        return;
    double t = now_s();
    if (!force && shown && t - last_s < PROGRESS_INTERVAL_S)
        return;
    char line[512];
    vsnprintf(line, sizeof line, fmt, ap);
    size_t n = strcspn(line, "\r\n"), w = width();
    if (n > w) {
        n = w;
        while (n > 0 && ((unsigned char)line[n] & 0xC0) == 0x80)
            --n; /* not inside a UTF-8 character */
    }
    if (!at_exit_set) {
        atexit(progress_clear);
        catch_fatal_signals();
        at_exit_set = true;
    }
    fprintf(stderr, "\r\033[K%.*s", (int)n, line);
    fflush(stderr);
    shown = true;
    on_screen = 1;
    last_s = t;
}

void progress_eta(char *buf, size_t len, double *start, size_t done, size_t total)
{
    double t = now_s();
    size_t at = done < total ? done + 1 : total; /* the step under way */
    if (done == 0 || *start <= 0.0) {
        if (*start <= 0.0)
            *start = t;
        snprintf(buf, len, "%zu/%zu", at, total);
        return;
    }
    double left = (t - *start) / (double)done * (double)(total > done ? total - done : 0);
    if (left < 1.0)
        snprintf(buf, len, "%zu/%zu, under 1 s left", at, total);
    else if (left < 90.0)
        snprintf(buf, len, "%zu/%zu, about %.0f s left", at, total, left);
    else
        snprintf(buf, len, "%zu/%zu, about %.0f min left", at, total, left / 60.0);
}

void progress_show(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    show(false, fmt, ap);
    va_end(ap);
}

void progress_stage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    show(true, fmt, ap);
    va_end(ap);
}

void progress_clear(void)
{
    if (!shown)
        return;
    on_screen = 0;
    fprintf(stderr, "\r\033[K");
    fflush(stderr);
    shown = false;
    /* mpirun copies stderr and stdout each on its own: a moment for the erasure to reach the
     * terminal before what rank 0 prints next on stdout, which it would otherwise erase. */
    if (relayed)
        nanosleep(&(struct timespec){0, 50 * 1000 * 1000}, NULL);
}
