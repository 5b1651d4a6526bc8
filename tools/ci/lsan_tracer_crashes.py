#!/usr/bin/env python3
"""Usage: lsan_tracer_crashes.py LastTest.log

Reads ctest's log of the last run and prints, as one anchored ctest regular expression, the
failed tests whose only problem is that LeakSanitizer's tracer crashed ("LeakSanitizer has
encountered a fatal error", after "Tracer caught signal 11"): the thread that stops the world
to scan for leaks at exit can fault on PoCL's worker threads. That is a failure of the tool,
not a finding, so .ci/run's asan job runs those tests again (up to three times, each time only
those that crashed so). Exits 1, printing nothing, when any failed test failed otherwise (a
sanitizer report, a wrong result): that failure stands."""
import os
import re
import sys

log = open(sys.argv[1], encoding="utf-8", errors="replace").read()
parts = re.split(r"^\d+/\d+ Testing: (.+)$", log, flags=re.M)
# The failed tests are those that ctest lists in LastTestsFailed.log beside the log ("206:name"
# lines). A passed test's body says "Test Passed." or, for a test passed by its
# PASS_REGULAR_EXPRESSION, "Test Pass Reason:"; without the list, those two mark the passed.
failed_list = os.path.join(os.path.dirname(sys.argv[1]), "LastTestsFailed.log")
failed = None
if os.path.exists(failed_list):
    failed = {line.split(":", 1)[1].strip() for line in open(failed_list) if ":" in line}
crashed, other = [], []
for name, body in zip(parts[1::2], parts[2::2]):
    if failed is not None:
        if name.strip() not in failed:
            continue
    elif "Test Passed." in body or "Test Pass Reason:" in body:
        continue
    tracer = ("LeakSanitizer has encountered a fatal error" in body
              or "Tracer caught signal" in body)
    report = re.search(r"ERROR: (AddressSanitizer|LeakSanitizer: detected)|runtime error:", body)
    (crashed if tracer and not report else other).append(name.strip())
for n in crashed:
    print(f"asan: LeakSanitizer's tracer crashed in {n}: running it again", file=sys.stderr)
for n in other:
    print(f"asan: {n} failed", file=sys.stderr)
if other or not crashed:
    sys.exit(1)
print("^(" + "|".join(re.escape(n) for n in crashed) + ")$")
