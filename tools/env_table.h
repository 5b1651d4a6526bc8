/* The command's side of runtime/base/env.c's table of CLPARITY_* variables: the check before any
 * command runs, and the table as docs/COMMANDS.md lists it. */
#ifndef CLPARITY_ENV_TABLE_H
#define CLPARITY_ENV_TABLE_H

/* Every CLPARITY_* variable that is set, checked before the command cmd does any work: CP_OK,
 * or status 2 after one line naming the variable, the value, what is accepted and the nearest
 * word where one is near. Skipped when argv asks for --help or --version. */
int env_check(const char *cmd, int argc, char **argv);

/* `clparity --env-table [md|tsv]` (not in the usage: for docs/COMMANDS.md and its test): the
 * table as Markdown rows, or one tab-separated line per variable (name, kind, words, min, max,
 * test_only) for the tests that try garbage in each. */
int env_print_table(const char *format);

#endif
