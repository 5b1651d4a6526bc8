/* The subcommands: each parses its own options and returns an exit status. */
#ifndef CLPARITY_CMDS_H
#define CLPARITY_CMDS_H

int cmd_devices(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_cache(int argc, char **argv);
int cmd_tune(int argc, char **argv);
int cmd_peak(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_train(int argc, char **argv);
int cmd_ulp(int argc, char **argv);

#endif
