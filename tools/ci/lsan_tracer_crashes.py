#!/usr/bin/env python3
"""Usage: lsan_tracer_crashes.py LastTest.log

Reads ctest's log of the last run and prints, as one anchored ctest regular expression, the
failed tests whose only problem is that LeakSanitizer's tracer crashed ("LeakSanitizer has
encountered a fatal error", after "Tracer caught signal 11"): the thread that stops the world
to scan for leaks at exit can fault on PoCL's worker threads. That is a failure of the tool,
not a finding, so .ci/run's asan job runs those tests again (up to three times, each time only
those that crashed so). Exits 1, printing nothing, when any failed test failed otherwise (a
sanitizer report, a wrong result): that failure stands."""
import re
import sys

log = open(sys.argv[1], encoding="utf-8", errors="replace").read()
parts = re.split(r"^\d+/\d+ Testing: (.+)$", log, flags=re.M)
crashed, other = [], []
for name, body in zip(parts[1::2], parts[2::2]):
    if "Test Passed." in body:
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
