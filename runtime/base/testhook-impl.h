/* Private: the tests' planted faults, CLPARITY_TEST_HOOK (docs/COMMANDS.md). */
#ifndef CLPARITY_TESTHOOK_IMPL_H
#define CLPARITY_TESTHOOK_IMPL_H

#include <stdbool.h>

/* True when CLPARITY_TEST_HOOK names this hook: the tests' way to plant a fault. */
bool cp_test_hook(const char *name);

/* Test hooks "fail-enqueue:N" and "fail-alloc:N": counts the calls of one kind ("enqueue",
 * "alloc") and is true for the Nth, whose OpenCL call the engine then reports as failed, as a
 * device that runs out of resources mid-run would. */
bool cp_test_fail(const char *what);

/* While on (the probe's own runs), cp_test_fail counts nothing and fails nothing, so that the
 * hooks fail-alloc:N and fail-enqueue:N name the Nth call of the run itself. */
void cp_test_suspend(bool on);

/* True when any CLPARITY_TEST_HOOK is set. */
bool cp_test_hook_active(void);

#endif
