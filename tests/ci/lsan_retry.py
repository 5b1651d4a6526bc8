#!/usr/bin/env python3
"""Usage: lsan_retry.py TOOL DIR

tools/ci/lsan_tracer_crashes.py (the asan job's retry of tests whose LeakSanitizer tracer
crashed at exit) on planted ctest logs in DIR: a test whose own output, or the stderr tail that a
wrapper script prints (tools/ci/same_results.sh), shows only the tracer's crash is named for a
second try; one with a sanitizer report, or one that failed with no word of why, stands (exit 1).
The CI run of 1469237 failed for want of the second: same_results printed no stderr."""
import os
import subprocess
import sys

tool, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
TRACER = ("Tracer caught signal 11: addr=0x2000007f8 pc=0x7f82f1ee80f0\n"
          "==9661==LeakSanitizer has encountered a fatal error.\n")
WRAPPED = ("  old train_sgd: train --steps 10 (exit 86, 10 s)\n"
           "  old train_sgd: the end of its stderr (x/old/train_sgd.err):\n"
           "    | Tracer caught signal 11: addr=0x2000007f8\n"
           "    | ==1==LeakSanitizer has encountered a fatal error.\n"
           "same_results: FAILED to run: old/train_sgd (exit 86)\n")
REPORT = "==77==ERROR: AddressSanitizer: heap-use-after-free on address 0x6020\n"
SILENT = "same_results: FAILED to run: old/train_sgd (exit 86)\n"


def run(name, tests):
    """tests: (name, body, passed). Returns (exit status, stdout)."""
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    log, failed = "", ""
    for i, (t, body, passed) in enumerate(tests, 1):
        log += f"{i}/{len(tests)} Testing: {t}\n{i}/{len(tests)} Test: {t}\nOutput:\n{body}"
        log += "Test Passed.\n" if passed else "Test Failed.\n"
        if not passed:
            failed += f"{i}:{t}\n"
    open(os.path.join(d, "LastTest.log"), "w").write(log)
    open(os.path.join(d, "LastTestsFailed.log"), "w").write(failed)
    p = subprocess.run([sys.executable, tool, os.path.join(d, "LastTest.log")],
                       capture_output=True, text=True)
    return p.returncode, p.stdout.strip()


bad = []


def expect(name, tests, rc, stdout):
    got = run(name, tests)
    if got != (rc, stdout):
        bad.append(f"{name}: got exit {got[0]} printing {got[1]!r}; "
                   f"expected exit {rc} printing {stdout!r}")
    print(f"{name}: exit {got[0]} {got[1]!r}")


ok = ("a/passes", "fine\n", True)
expect("direct", [ok, ("train/optim", TRACER, False)], 0, r"^(train/optim)$")
expect("wrapped", [ok, ("cli/same_results", WRAPPED, False), ("train/optim", TRACER, False)],
       0, r"^(cli/same_results|train/optim)$")
expect("report", [("train/optim", TRACER, False), ("b/uaf", REPORT + TRACER, False)], 1, "")
expect("silent", [("train/optim", TRACER, False), ("cli/same_results", SILENT, False)], 1, "")
expect("none", [ok], 1, "")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
