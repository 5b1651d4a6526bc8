/* Device selectors (DESIGN.md, Conventions): keywords, then P:D or P, then a label as
 * cp_device_label prints it ("0:0 NAME", or cut short: "0:0 NA..."; the device at P:D when its
 * name starts so), then a case-insensitive substring of platform, vendor or device name. */
#ifndef CLPARITY_SELECT_H
#define CLPARITY_SELECT_H

#include "clparity/export.h"
#include "clparity/device.h"

#include <stdbool.h>
#include <stddef.h>

CP_API_BEGIN

/* Marks chosen[i] for every device of l that the selectors match. sels holds the -d arguments,
 * each possibly a comma list. With nsel == 0 the default applies: env_default (the value of
 * CLPARITY_DEVICES) when set and not empty, else every non-simulator device plus host.
 * A selector that matches nothing is CP_FAIL_USAGE, and cp_err_msg() names it in one line,
 * with the nearest keyword for a slip, what OpenCL shows and the selectors that would take it
 * ("device selector 'gpu' matches no device: no GPU: OpenCL shows 1 device (0:0 NAME, CPU) and
 * the host; use -d 0:0, -d cpu or -d host ('clparity devices' lists them)"), then l->env_note
 * when that says something; where OpenCL shows no device, env_note alone ("...matches no
 * device: no OpenCL platform found (...)"). */
int cp_select(const cp_devlist *l, const char *const *sels, size_t nsel, const char *env_default,
              bool *chosen);

/* Parses an engine list (comma separated; NULL: every engine that applies to a selected
 * device, but those that run only by name, cp_engine_info.by_name) into a flag per registered
 * engine (use[cp_engine_count()]). An unknown engine, one that applies to no selected device, or an
 * empty list is CP_FAIL_USAGE, its message starting "--engines: " (an unknown one with the
 * nearest name, "(did you mean 'cl:own'?)"; an OpenCL engine with no OpenCL device adds
 * l->env_note). */
int cp_select_engines(const char *list, const cp_devlist *l, const bool *chosen, bool *use);

/* Prints env_note once a process to stderr ("clparity: warning: ..."), when it says something
 * and the last cp_select on this thread asked for OpenCL (the default, or a selector other
 * than host). cp_select_engines calls it on success; a command that selects no engines calls
 * it after cp_select. A selector or OpenCL engine that matches nothing carries env_note in its
 * error instead. */
void cp_select_warn(const cp_devlist *l);

/* Multiply-adds above which a run on a simulator is refused without --allow-slow. */
/* Oclgrind interprets at about 1 µs a multiply-add (measured on 2 cores: 25 M took 30 s),
 * so the limit keeps an accidental run under half a minute. */
#define CP_SIMULATOR_MAC_LIMIT 20e6

CP_API_END

#endif
