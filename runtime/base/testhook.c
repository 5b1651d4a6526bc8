/* The tests' planted faults (CLPARITY_TEST_HOOK): read by every layer, the files' and the
 * engines' alike, so they sit in the base and call nothing above it. */
#include "testhook-impl.h"

#include <stdlib.h>
#include <string.h>

bool cp_test_hook(const char *name)
{
    const char *h = getenv("CLPARITY_TEST_HOOK");
    return h && strcmp(h, name) == 0;
}

/* "fail-<what>:N" (N >= 1, default 1): the Nth call of that kind in this process fails. The
 * counters are per process: the commands run one engine at a time on one thread. */
static _Thread_local bool test_suspended;

void cp_test_suspend(bool on)
{
    test_suspended = on;
}

bool cp_test_fail(const char *what)
{
    static long enqueues, allocs;
    if (test_suspended)
        return false;
    long *count = strcmp(what, "enqueue") == 0 ? &enqueues
                  : strcmp(what, "alloc") == 0 ? &allocs
                                               : NULL;
    if (!count)
        return false;
    ++*count;
    const char *h = getenv("CLPARITY_TEST_HOOK");
    size_t n = strlen(what);
    if (!h || strncmp(h, "fail-", 5) != 0 || strncmp(h + 5, what, n) != 0)
        return false;
    const char *rest = h + 5 + n;
    long want = 1;
    if (rest[0] == ':') {
        char *end;
        want = strtol(rest + 1, &end, 10);
        if (end == rest + 1 || *end != '\0')
            return false;
    } else if (rest[0] != '\0') {
        return false;
    }
    return *count == want;
}

bool cp_test_hook_active(void)
{
    const char *h = getenv("CLPARITY_TEST_HOOK");
    return h && h[0];
}
