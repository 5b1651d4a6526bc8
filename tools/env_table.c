#include "env_table.h"

#include "cli.h"
#include "opts.h"

#include "clparity/env.h"
#include "clparity/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int env_check(const char *cmd, int argc, char **argv)
{
    for (int i = 1; i < argc; ++i)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0 ||
            strcmp(argv[i], "--version") == 0)
            return CP_OK;
    const cp_env_var *bad;
    int st = cp_env_check_all(&bad);
    if (st == CP_OK)
        return CP_OK;
    char near[96] = "";
    if (bad && bad->kind == CP_ENV_WORD && getenv(bad->name))
        opts_nearest_word(getenv(bad->name), bad->words, near, sizeof near);
    return cli_fail(cmd, st, "%s%s", cp_err_msg(), near);
}

static const char *const kind_names[] = {
    [CP_ENV_WORD] = "word",     [CP_ENV_NUMBER] = "number",     [CP_ENV_INTEGER] = "integer",
    [CP_ENV_FOLDER] = "folder", [CP_ENV_SETTINGS] = "settings", [CP_ENV_TEXT] = "text",
};

int env_print_table(const char *format)
{
    size_t n;
    const cp_env_var *t = cp_env_table(&n);
    bool tsv = strcmp(format, "tsv") == 0;
    if (!tsv && strcmp(format, "md") != 0)
        return cli_fail("--env-table", CP_FAIL_USAGE, "'%s' is not md or tsv", format);
    if (!tsv) {
        printf("| variable | accepted | default | what it does |\n");
        printf("|---|---|---|---|\n");
    }
    for (size_t i = 0; i < n; ++i) {
        const cp_env_var *v = &t[i];
        if (tsv) {
            printf("%s\t%s\t%s\t%.17g\t%.17g\t%d\n", v->name, kind_names[v->kind],
                   v->words ? v->words : "", v->min, v->max, v->test_only);
            continue;
        }
        char acc[512];
        cp_env_accepted(v, true, acc, sizeof acc);
        printf("| `%s` | %s | %s | %s%s |\n", v->name, acc, v->def,
               v->test_only ? "tests only: " : "", v->meaning);
    }
    return fflush(stdout) == 0 && !ferror(stdout) ? CP_OK : CP_FAIL_RUNTIME;
}
