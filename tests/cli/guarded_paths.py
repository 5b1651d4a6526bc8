#!/usr/bin/env python3
"""Guarded paths (issue 21): every output of every command is checked before any work against
the run's inputs and its other outputs, and files that are not regular (a FIFO, a socket, a
device) are refused as inputs and as outputs without blocking. Each case must exit with the
status given, the first stderr line must hold the substrings given, nothing may be printed on
stdout (no work began), and the files named must be left as they were. Also: --engines lists
with empty items or duplicates, train's non-finite loss never printed "-nan".

usage: guarded_paths.py CLPARITY WORKDIR
"""
import os
import shutil
import socket
import stat
import struct
import subprocess
import sys

TIMEOUT = 60  # a FIFO opened for reading without a writer used to block forever


def npy_f32(path, rows, cols):
    """A C-ordered <f4 .npy of zeros, written by hand (no numpy needed)."""
    hdr = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }" % (rows, cols)
    pad = 64 - (10 + len(hdr) + 1) % 64
    hdr = hdr + " " * pad + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr.encode())
        f.write(bytes(4 * rows * cols))
    return path


def snapshot(path):
    """What must not change: the kind of file, and a regular file's bytes."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISREG(st.st_mode):
        with open(path, "rb") as f:
            return ("file", f.read())
    return (stat.S_IFMT(st.st_mode), st.st_ino)


def main(clp, work):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    os.chdir(work)
    small = ["-d", "host", "--engines", "host:exact", "--d-model", "8", "--layers", "2",
             "--runs", "1", "--warmup", "0"]
    npy_f32("xin.npy", 2, 8)
    os.link("xin.npy", "xin_link.npy")
    with open("FILE", "w") as f:
        f.write("a plain file, not a folder\n")
    os.mkfifo("fifo")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind("sock")
    os.makedirs("E")
    npy_f32("E/x.npy", 2, 8)
    # Two --save folders for diff.
    for d in ("A", "B"):
        r = subprocess.run([clp, "run"] + small + ["--save", d], capture_output=True, text=True)
        if r.returncode != 0:
            print(f"FAIL: setting up folder {d}: {r.stderr}")
            sys.exit(1)
    os.mkdir("Bf")
    for name in os.listdir("B"):
        shutil.copy(os.path.join("B", name), os.path.join("Bf", name))
    os.remove("Bf/host.host-exact.npy")
    os.mkfifo("Bf/host.host-exact.npy")
    os.mkdir("Bi")
    for name in os.listdir("B"):
        if name != "index.json":
            shutil.copy(os.path.join("B", name), os.path.join("Bi", name))
    os.mkfifo("Bi/index.json")

    cases = [
        # (name, argv after clparity, status, substrings of stderr's first line, files kept,
        #  paths that must not exist afterwards)
        ("json_in_save_folder", ["run"] + small + ["--json", "D/index.json", "--save", "D"], 2,
         ["--json D/index.json is inside --save D"], [], ["D"]),
        ("json_in_existing_save_folder",
         ["run"] + small + ["--json", "A/index.json", "--save", "A"], 2,
         ["--json A/index.json is inside --save A"], ["A/index.json"], []),
        ("json_is_out", ["run"] + small + ["--json", "x.json", "--out", "x.json"], 2,
         ["--json x.json and --out x.json are the same file"], [], ["x.json"]),
        ("json_is_out_by_another_name",
         ["run"] + small + ["--json", os.path.join(work, "y.json"), "--out", "./y.json"], 2,
         ["are the same file"], [], ["y.json"]),
        ("out_is_input", ["run"] + small + ["--input", "xin.npy", "--out", "xin.npy"], 2,
         ["--out xin.npy is also --input xin.npy: the run would overwrite its input"],
         ["xin.npy"], []),
        ("out_is_input_hard_link",
         ["run"] + small + ["--input", "xin.npy", "--out", "xin_link.npy"], 2,
         ["--out xin_link.npy is also --input xin.npy"], ["xin.npy", "xin_link.npy"], []),
        ("json_is_input", ["compare"] + small + ["--input", "xin.npy", "--json", "xin.npy"], 2,
         ["--json xin.npy is also --input xin.npy"], ["xin.npy"], []),
        ("input_in_save_folder", ["run"] + small + ["--input", "E/x.npy", "--save", "E"], 2,
         ["--input E/x.npy is inside --save E"], ["E/x.npy"], []),
        ("save_is_a_file", ["run"] + small + ["--save", "FILE"], 2,
         ["--save: FILE exists and is not a directory"], ["FILE"], []),
        ("save_parent_missing", ["run"] + small + ["--save", "nowhere/S"], 2,
         ["--save: cannot create nowhere/S"], [], ["nowhere"]),
        ("train_json_is_csv",
         ["train", "-d", "host", "--steps", "2", "--d-model", "8", "--json", "t.x", "--csv", "t.x"],
         2, ["--csv t.x and --json t.x are the same file"], [], ["t.x"]),
        ("train_json_in_save",
         ["train", "-d", "host", "--steps", "2", "--d-model", "8", "--save", "T", "--json",
          "T/t.json"], 2, ["--json T/t.json is inside --save T"], [], ["T"]),
        ("sweep_json_is_csv",
         ["sweep", "--vary", "batch", "--quick", "-d", "host", "--json", "s.x", "--csv", "s.x"],
         2, ["--csv s.x and --json s.x are the same file"], [], ["s.x"]),
        ("diff_json_is_index", ["diff", "A", "B", "--json", "A/index.json"], 2,
         ["--json A/index.json is inside A, a folder that this command reads"],
         ["A/index.json"], []),
        # files that are not regular, as inputs: refused at once, never opened for reading
        ("fifo_model", ["run", "-d", "host", "--model", "fifo"], 2,
         ["--model: fifo is not a regular file (a FIFO)"], ["fifo"], []),
        ("fifo_input", ["run"] + small + ["--input", "fifo"], 2,
         ["--input: fifo is not a regular file (a FIFO)"], ["fifo"], []),
        ("fifo_labels", ["compare"] + small + ["--labels", "fifo"], 2,
         ["--labels: fifo is not a regular file (a FIFO)"], ["fifo"], []),
        ("fifo_train_model", ["train", "-d", "host", "--steps", "1", "--model", "fifo"], 2,
         ["--model: fifo is not a regular file (a FIFO)"], ["fifo"], []),
        ("socket_input", ["run"] + small + ["--input", "sock"], 2,
         ["--input: sock is not a regular file (a socket)"], ["sock"], []),
        ("dev_zero_model", ["run", "-d", "host", "--model", "/dev/zero"], 2,
         ["--model: /dev/zero is not a regular file (a character device)"], [], []),
        ("diff_fifo_result", ["diff", "A", "Bf"], 2,
         ["Bf/host.host-exact.npy: not a regular file (a FIFO)"], [], []),
        ("diff_fifo_index", ["diff", "A", "Bi"], 2,
         ["Bi/index.json: not a regular file (a FIFO)"], [], []),
        # ...and as outputs ('-' is stdout, the one exception)
        ("fifo_json", ["run"] + small + ["--json", "fifo"], 2,
         ["--json: fifo is not a regular file (a FIFO)"], ["fifo"], []),
        ("dev_null_out", ["run"] + small + ["--out", "/dev/null"], 2,
         ["--out: /dev/null is not a regular file (a character device)"], ["/dev/null"], []),
        ("fifo_train_csv", ["train", "-d", "host", "--steps", "1", "--csv", "fifo"], 2,
         ["--csv: fifo is not a regular file (a FIFO)"], ["fifo"], []),
        ("fifo_sweep_json", ["sweep", "--vary", "batch", "--quick", "-d", "host", "--json",
                             "fifo"], 2, ["--json: fifo is not a regular file (a FIFO)"],
         ["fifo"], []),
        ("socket_devices_json", ["devices", "--json", "sock"], 2,
         ["--json: sock is not a regular file (a socket)"], ["sock"], []),
        ("fifo_diff_json", ["diff", "A", "B", "--json", "fifo"], 2,
         ["--json: fifo is not a regular file (a FIFO)"], ["fifo"], []),
        # --engines: empty items and duplicates
        ("engines_empty_and_duplicate", ["run", "-d", "host", "--engines", ",cl:own,,cl:own"], 2,
         ["--engines: ',cl:own,,cl:own' has an empty item"], [], []),
        ("engines_trailing_comma", ["run", "-d", "host", "--engines", "host:exact,"], 2,
         ["--engines: 'host:exact,' has an empty item"], [], []),
        ("engines_duplicate", ["train", "-d", "host", "--engines", "host:exact,host:exact"], 2,
         ["--engines: 'host:exact,host:exact' names host:exact twice"], [], []),
        ("engines_duplicate_sweep", ["sweep", "--vary", "batch", "--quick", "-d", "host",
                                     "--engines", "host:exact,host:f64,host:exact"], 2,
         ["names host:exact twice"], [], []),
    ]
    failures = []
    for name, args, status, want, kept, absent in cases:
        before = {p: snapshot(p) for p in kept}
        try:
            r = subprocess.run([clp] + args, capture_output=True, text=True, timeout=TIMEOUT)
            rc, out, err = r.returncode, r.stdout, r.stderr
        except subprocess.TimeoutExpired:
            rc, out, err = "timeout", "", f"still running after {TIMEOUT} s\n"
        first = err.splitlines()[0] if err else ""
        why = []
        if rc != status:
            why.append(f"status {rc}, expected {status}")
        if not all(w in first for w in want):
            why.append(f"first stderr line lacks {want}")
        if out:
            why.append("work began: stdout is not empty")
        for p in kept:
            if snapshot(p) != before[p]:
                why.append(f"{p} changed")
        for p in absent:
            if os.path.lexists(p):
                why.append(f"{p} was made")
        print(f"{'ok  ' if not why else 'FAIL'} {name}: status {rc}: {first}")
        if why:
            failures.append(f"{name}: {'; '.join(why)}\nstdout: {out[-500:]}\nstderr: {err}")

    # Duplicate -d selectors stay allowed: a selection is the union of its selectors.
    r = subprocess.run([clp, "run", "-d", "host,host", "-d", "host", "--engines", "host:exact",
                        "--d-model", "8", "--layers", "2", "--runs", "1", "--warmup", "0"],
                       capture_output=True, text=True, timeout=TIMEOUT)
    rows = [ln for ln in r.stdout.splitlines() if ln.startswith("host ")]
    print(f"{'ok  ' if r.returncode == 0 and len(rows) == 1 else 'FAIL'} -d host,host -d host: "
          f"status {r.returncode}, {len(rows)} row(s)")
    if r.returncode != 0 or len(rows) != 1:
        failures.append(f"-d host,host: status {r.returncode}, rows {rows}: {r.stderr}")

    # train: a non-finite loss is status 1, named "nan" (printf would say "-nan").
    r = subprocess.run([clp, "train", "-d", "host", "--init-scale", "1000000", "--layers", "30",
                        "--steps", "5", "--d-model", "16"], capture_output=True, text=True,
                       timeout=TIMEOUT)
    ok = (r.returncode == 1 and "is not finite (nan)" in r.stderr and "-nan" not in r.stderr
          and "-nan" not in r.stdout)
    print(f"{'ok  ' if ok else 'FAIL'} train_nonfinite_nan: status {r.returncode}: "
          f"{r.stderr.splitlines()[0] if r.stderr else ''}")
    if not ok:
        failures.append(f"train_nonfinite_nan: status {r.returncode}\n{r.stderr}")

    sock.close()
    if failures:
        print("\n".join(failures))
        sys.exit(1)
    print(f"all {len(cases) + 2} cases as expected")


if __name__ == "__main__":
    main(sys.argv[1], os.path.abspath(sys.argv[2]))
