/* clparity: one binary, subcommands. */
#include "cli.h"
#include "cmds.h"
#include "env_table.h"
#include "progress.h"

#include "clparity/cache.h"
#include "clparity/device.h"
#include "clparity/engine.h"
#include "clparity/format.h"
#include "clparity/env.h"
#include "clparity/report.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"devices", cmd_devices, "list OpenCL platforms and devices (clinfo -l's shape) and host"},
    {"run", cmd_run, "run the model on the selected devices and engines; print one row per result"},
    {"compare", cmd_compare,
     "run every selected device x engine on the same inputs and compare them (the main job)"},
    {"diff", cmd_diff, "compare --save folders made on different machines"},
    {"cache", cmd_cache, "list or clear the program-binary cache"},
    {"tune", cmd_tune, "time cl:own's kernel settings per device and store the fastest"},
    {"peak", cmd_peak, "measure each device's fma throughput, bandwidth and launch latency"},
    {"sweep", cmd_sweep, "time the model over a grid of batch, width, depth or parameter budget"},
    {"train", cmd_train,
     "train with SGD, momentum, Adam or AdamW on every device x engine; track divergence"},
    {"ulp", cmd_ulp,
     "measure each device's sqrt, /, native_ and half_ variants in ULP against correct rounding"},
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: clparity COMMAND [OPTIONS]\n"
            "\n"
            "Runs one model on every OpenCL device (our .cl kernels, CLBlast) and on the host\n"
            "(OpenBLAS, an exact C twin of the kernels, a float64 reference), and reports speed\n"
            "and numerical equality side by side.\n"
            "\n"
            "commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i)
        fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n"
               "Run 'clparity COMMAND --help' for a command's options. Long work shows a\n"
               "progress line on stderr when it is a terminal; every command's --quiet turns\n"
               "it off.\n"
               "  --version   print the version and exit\n"
               "  -h, --help  print this help and exit\n"
               "\n"
               "exit status: 0 success, 1 a check failed, 2 usage or input error,\n"
               "             3 runtime error (OpenCL, allocation, I/O)\n");
}

/* gnulib's close_stdout, on main's way out, so that every command, --help and --version is
 * covered: the report is written to stdout through its buffer, and a write that fails (a full
 * disk, /dev/full, a closed pipe) sets the stream's error flag and loses that part of the
 * buffer; nothing else ever looks, so without this the run exits 0 with its report cut short
 * or empty. The flag says an earlier write failed; fflush writes what is left; fclose then
 * closes the descriptor, where NFS and other file systems report a write they could not
 * complete (EIO, EDQUOT). As gnulib's close_stream, an fclose that fails with EBADF when
 * nothing was left to write is stdout closed by the caller (>&-) on a command that wrote
 * nothing: not an error. A failure is status 3 (an I/O error), over a success and over a
 * failed check (1), as 3 takes precedence over 1 everywhere; any other status is kept.
 * stderr is flushed and checked but left open: ASan and LeakSanitizer write their reports
 * there after main returns (gnulib leaves it open under sanitizers for the same reason).
 * When it failed the status says so. */
static int close_stdout(int status)
{
    const char *hook = getenv("CLPARITY_TEST_HOOK");
    if (hook && strcmp(hook, "skip-stdout-check") == 0) /* the fault loop's planted defect */
        return status;
    bool failed = ferror(stdout) != 0;
    int e = 0;
    if (fflush(stdout) != 0) {
        failed = true;
        e = errno;
    }
    if (fclose(stdout) != 0 && (failed || errno != EBADF)) {
        e = e ? e : errno;
        failed = true;
    }
    if (failed) {
        /* The cause: this flush's, or a command's flush of its report (cli_flush); without
         * either, a write inside printf failed, and its errno is gone. */
        e = e ? e : cli_stdout_errno();
        fprintf(stderr, "clparity: cannot write the report to stdout: %s\n",
                e ? strerror(e) : "a write failed, and part of it is lost");
        status = status == CP_OK || status == CP_FAIL_CHECK ? CP_FAIL_RUNTIME : status;
    }
    if (fflush(stderr) != 0 || ferror(stderr)) {
        /* Likely lost too, but where the failure passed it names the cause. */
        fprintf(stderr, "clparity: cannot write to stderr\n");
        status = status == CP_OK || status == CP_FAIL_CHECK ? CP_FAIL_RUNTIME : status;
    }
    return status;
}

/* A first run (a cold program cache) is slow: clparity says why, once per process, on a
 * terminal (where the progress line shows; not with --quiet, nor to a pipe or a file), and
 * only where something is actually built (issue 36). */
static void cold_cache_notice(const cp_device *dev, const char *engine, void *ctx)
{
    static bool said;
    (void)ctx;
    if (said || !progress_enabled() || !cp_cache_enabled())
        return;
    said = true;
    char label[300], dir[4096];
    cp_device_label(dev, label, sizeof label);
    if (cp_cache_dir(dir, sizeof dir) != CP_OK)
        snprintf(dir, sizeof dir, "the program cache");
    progress_clear();
    fprintf(stderr,
            "clparity: first run of %s on %s: building its kernels and checking their bits "
            "(probes), once; cached in %s, later runs skip this\n",
            engine, label, dir);
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "clparity: no command given\n");
        usage(stderr);
        return CP_FAIL_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return CP_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        cli_print_version();
        return CP_OK;
    }
    /* Hidden: runtime/base/env.c's table, for docs/COMMANDS.md and its test (cli/env_table). */
    if (strcmp(argv[1], "--env-table") == 0)
        return env_print_table(argc > 2 ? argv[2] : "md");
    /* not in commands[] (nor in --help): the child that sets up an OpenCL engine for the
     * others (runtime/engine/isolate-impl.h), re-executed from this same binary */
    if (strcmp(argv[1], "__setup") == 0)
        return cp_isolate_child_main(argc - 1, argv + 1);
    /* CLPARITY_ISOLATE=off: builds and probes in this process, as the library does (a
     * compiler crash then ends the run): tools/bench --isolate measures what the child costs.
     * Its value is checked with every other variable (env_check) before any command. */
    int iso = -1;
    if (cp_env_word("CLPARITY_ISOLATE", &iso) == CP_OK && iso != 1)
        cp_isolate_enable("/proc/self/exe");
    cp_isolate_set_notice(cold_cache_notice, NULL);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i)
        if (strcmp(argv[1], commands[i].name) == 0) {
            /* Every CLPARITY_* variable, before any work (issue 32: one rule for bad values). */
            int st = env_check(commands[i].name, argc - 1, argv + 1);
            return st != CP_OK ? st : commands[i].fn(argc - 1, argv + 1);
        }
    /* One line: the nearest command, or the list of them (usage is one --help away). */
    cp_nearest nr;
    cp_nearest_start(&nr, argv[1], strlen(argv[1]));
    char names[256] = "", near[96];
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i) {
        cp_nearest_offer(&nr, commands[i].name, strlen(commands[i].name));
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
                 commands[i].name);
    }
    cp_nearest_hint(&nr, "", near, sizeof near);
    fprintf(stderr, "clparity: unknown command '%s'%s; the commands are %s ('clparity --help')\n",
            argv[1], near, names);
    return CP_FAIL_USAGE;
}

int main(int argc, char **argv)
{
    cp_provenance_set_argv(argc, argv);
    return close_stdout(dispatch(argc, argv));
}
