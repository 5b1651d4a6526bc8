/* clparity: one binary, subcommands. */
#include "cli.h"
#include "cmds.h"
#include "env_table.h"

#include "clparity/engine.h"
#include "clparity/env.h"
#include "clparity/report.h"

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

int main(int argc, char **argv)
{
    cp_provenance_set_argv(argc, argv);
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
    /* Hidden: runtime/env.c's table, for docs/COMMANDS.md and its test (cli/env_table). */
    if (strcmp(argv[1], "--env-table") == 0)
        return env_print_table(argc > 2 ? argv[2] : "md");
    /* not in commands[] (nor in --help): the child that sets up an OpenCL engine for the
     * others (runtime/isolate-impl.h), re-executed from this same binary */
    if (strcmp(argv[1], "__setup") == 0)
        return cp_isolate_child_main(argc - 1, argv + 1);
    /* CLPARITY_ISOLATE=off: builds and probes in this process, as the library does (a
     * compiler crash then ends the run): tools/bench --isolate measures what the child costs.
     * Its value is checked with every other variable (env_check) before any command. */
    int iso = -1;
    if (cp_env_word("CLPARITY_ISOLATE", &iso) == CP_OK && iso != 1)
        cp_isolate_enable("/proc/self/exe");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i)
        if (strcmp(argv[1], commands[i].name) == 0) {
            /* Every CLPARITY_* variable, before any work (issue 32: one rule for bad values). */
            int st = env_check(commands[i].name, argc - 1, argv + 1);
            return st != CP_OK ? st : commands[i].fn(argc - 1, argv + 1);
        }
    fprintf(stderr, "clparity: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return CP_FAIL_USAGE;
}
