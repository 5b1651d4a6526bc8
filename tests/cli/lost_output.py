#!/usr/bin/env python3
"""A report that cannot be written is an error (issue 32, "Lost output"): stdout is flushed
and closed at exit, gnulib's close_stdout (tools/main.c), and a failed write is status 3 with
one line on stderr naming stdout and the cause (errno's text). Usage: lost_output.py CLPARITY SHIM WORKDIR CASE, CASE one of:

full_run, full_devices, full_diff, full_help, full_version, full_run_help
        the command with stdout on /dev/full (skipped, 77, where there is none);
full_check
        compare --expect bitwise failing (CLPARITY_TEST_HOOK=corrupt-run: status 1) with its
        report on /dev/full: 3, which takes precedence over 1 (before: 1, the report lost);
disk_fsize
        run > out.txt on a disk that takes no byte more: RLIMIT_FSIZE 0 with SIGXFSZ ignored,
        so the kernel refuses every write to the file (EFBIG), no root or mount needed;
disk_shim
        the same with the fault shim (tests/faults/shim.c) failing clparity's first fflush
        with ENOSPC, as a full disk does: the buffer is lost and the stream's error flag set.
Before the fix each of these exited 0 with nothing on stderr (a 0-byte out.txt).
"""
import os
import resource
import signal
import subprocess
import sys

clp, shim, work, case = sys.argv[1], sys.argv[2], os.path.abspath(sys.argv[3]), sys.argv[4]
RUN = ["run", "-d", "host", "--engines", "host:exact", "--runs", "1", "--warmup", "0",
       "--d-model", "16", "--layers", "2"]
os.makedirs(work, exist_ok=True)


def check(args, stdout, cause, env=None, preexec=None):
    res = subprocess.run([clp, *args], stdout=stdout, stderr=subprocess.PIPE, text=True,
                         env={**os.environ, **(env or {})}, preexec_fn=preexec)
    print(f"$ clparity {' '.join(args)} -> {res.returncode}\n{res.stderr.rstrip()}")
    bad = []
    if res.returncode != 3:
        bad.append(f"exit {res.returncode}, want 3")
    want = f"clparity: cannot write the report to stdout: {cause}"
    lines = [l for l in res.stderr.splitlines() if "cannot write the report to stdout" in l]
    if res.stderr.splitlines()[-1:] != [want]:
        bad.append("the line about stdout is not stderr's last")
    if lines != [want]:
        bad.append(f"stderr's lines about stdout are {lines}, want [{want!r}]")
    return bad


def no_fsize():
    # Ignored, SIGXFSZ leaves write() failing with EFBIG instead of killing the process.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))


if case.startswith("full_"):
    if not os.path.exists("/dev/full"):
        print("skipped: no /dev/full")
        sys.exit(77)
    args = {"full_run": RUN, "full_devices": ["devices"], "full_diff": None,
            "full_help": ["--help"], "full_version": ["--version"],
            "full_run_help": ["run", "--help"],
            "full_check": ["compare", "-d", "host", "--engines", "host:exact", "--runs", "2",
                           "--warmup", "0", "--d-model", "16", "--layers", "2", "--expect",
                           "bitwise"]}[case]
    if args is None:
        save = os.path.join(work, "save")
        subprocess.run([clp, *RUN, "--save", save], check=True, stdout=subprocess.DEVNULL)
        args = ["diff", save, save]
    with open("/dev/full", "w") as full:
        hook = {"CLPARITY_TEST_HOOK": "corrupt-run"} if case == "full_check" else {}
        bad = check(args, full, "No space left on device", env=hook)
elif case in ("disk_fsize", "disk_shim"):
    out = os.path.join(work, "out.txt")
    with open(out, "w") as f:
        if case == "disk_fsize":
            bad = check(RUN, f, "File too large", preexec=no_fsize)
        else:
            env = {"LD_PRELOAD": shim, "CLPARITY_FAULT_CLASS": "fflush", "CLPARITY_FAULT_N": "1"}
            # An ASan build (the asan job) accepts the preloaded shim ahead of its runtime only
            # when told so, as tests/faults/run.py tells it.
            if os.environ.get("ASAN_OPTIONS"):
                env["ASAN_OPTIONS"] = os.environ["ASAN_OPTIONS"] + ":verify_asan_link_order=0"
            bad = check(RUN, f, "No space left on device", env=env)
    print(f"out.txt: {os.path.getsize(out)} bytes")
else:
    sys.exit(f"lost_output.py: unknown case '{case}'")
for b in bad:
    print(f"FAIL: {b}")
sys.exit(1 if bad else 0)
