#!/usr/bin/env python3
"""Malformed --model, --input and --labels files, and conflicting options, through the
clparity binary: each must exit with status 2, and the first line of stderr must name the
file (or option) and the problem. Run under the ASan + UBSan build too, where any sanitizer
report changes the exit status (and a leak is reported by LeakSanitizer), so the same
checks also prove "no crash, no leak".

usage: bad_inputs.py CLPARITY WORKDIR
"""
import json
import os
import struct
import subprocess
import sys

import numpy as np


def st_file(path, header, data=b""):
    """A safetensors file from a header (a dict, or raw bytes) and data bytes."""
    h = header if isinstance(header, bytes) else json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + data)
    return path


def t(dtype, shape, begin, end):
    return {"dtype": dtype, "shape": shape, "data_offsets": [begin, end]}


def main(clp, work):
    os.makedirs(work, exist_ok=True)
    p = lambda name: os.path.join(work, name)  # noqa: E731
    mlp = {"0.weight": t("F32", [2, 3], 0, 24), "0.bias": t("F32", [2], 24, 32)}
    good = st_file(p("good.safetensors"), mlp, bytes(32))
    x3 = p("x3.npy")
    np.save(x3, np.zeros((4, 3), np.float32))

    with open(good, "rb") as f:
        raw = f.read()
    with open(p("truncated.safetensors"), "wb") as f:
        f.write(raw[:5])
    with open(p("cut.safetensors"), "wb") as f:
        f.write(raw[:-4])
    with open(p("beyond.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", 1 << 40) + raw[8:])

    cases = [
        # (name, args, substrings of the first stderr line)
        ("truncated", ["--model", p("truncated.safetensors")],
         ["truncated.safetensors: truncated"]),
        ("data_cut", ["--model", p("cut.safetensors")],
         ["cut.safetensors: tensor", "out of range"]),
        ("header_beyond_file", ["--model", p("beyond.safetensors")],
         ["beyond.safetensors: header length 1099511627776 goes beyond the file"]),
        ("bad_json", ["--model", st_file(p("json.safetensors"), b'{"0.weight": {"dtype"')],
         ["json.safetensors: bad JSON header"]),
        ("unknown_dtype", ["--model", st_file(p("dtype.safetensors"),
                                              {"0.weight": t("Q7", [1, 1], 0, 4)}, bytes(4))],
         ["dtype.safetensors: tensor '0.weight' has an unknown dtype 'Q7'"]),
        ("not_f32", ["--model", st_file(p("f16.safetensors"),
                                        {"0.weight": t("F16", [2, 2], 0, 8)}, bytes(8))],
         ["f16.safetensors: tensor '0.weight' is F16, where F32 is needed"]),
        ("offsets_out_of_range", ["--model", st_file(p("range.safetensors"),
                                                     {"0.weight": t("F32", [4, 4], 0, 64)},
                                                     bytes(16))],
         ["range.safetensors: tensor '0.weight': data_offsets [0, 64] out of range"]),
        ("offsets_overlap", ["--model", st_file(p("overlap.safetensors"),
                                                {"0.weight": t("F32", [2, 2], 0, 16),
                                                 "0.bias": t("F32", [2], 8, 16)}, bytes(16))],
         ["overlap.safetensors: tensors '0.weight' and '0.bias' overlap"]),
        ("offsets_above_2_53", ["--model", st_file(p("big.safetensors"),
                                                   b'{"0.weight": {"dtype": "F32", "shape": [1, 1],'
                                                   b' "data_offsets": [9007199254740993, '
                                                   b'9007199254740997]}}', bytes(4))],
         ["big.safetensors: tensor '0.weight': data_offsets are not integers in [0, 2^53)"]),
        ("shape_size_mismatch", ["--model", st_file(p("size.safetensors"),
                                                    {"0.weight": t("F32", [2, 2], 0, 12)},
                                                    bytes(12))],
         ["size.safetensors: tensor '0.weight': shape and size disagree"]),
        ("absurd_dimensions", ["--model", st_file(p("absurd.safetensors"),
                                                  {"0.weight": t("F32", [1 << 40, 1 << 40], 0,
                                                                 4)}, bytes(4))],
         ["absurd.safetensors: tensor '0.weight': absurd dimensions"]),
        ("no_architecture", ["--model", st_file(p("arch.safetensors"),
                                                {"w": t("F32", [1, 1], 0, 4)}, bytes(4))],
         ["arch.safetensors: cannot tell the architecture"]),
        ("missing_model", ["--model", p("nonexistent.safetensors")],
         ["nonexistent.safetensors: cannot open"]),
        # npy inputs and labels
        ("input_fortran", ["--model", good, "--input", p("fortran.npy")],
         ["fortran.npy: not C-ordered"]),
        ("input_f64", ["--model", good, "--input", p("x64.npy")],
         ["--input: ", "x64.npy: <f8 [4, 3]: it must be float32"]),
        ("input_truncated", ["--model", good, "--input", p("xcut.npy")],
         ["xcut.npy: truncated"]),
        ("input_width", ["--model", good, "--input", p("x5.npy")],
         ["--input: ", "x5.npy has width 5, but the model takes 3"]),
        ("input_width_d_model", ["--d-model", "4", "--input", x3],
         ["x3.npy has width 3, but the --d-model takes 4"]),
        ("input_batch_conflict", ["--model", good, "--input", x3, "--batch", "7"],
         ["--batch 7 conflicts with --input", "x3.npy, which holds 4 rows"]),
        ("labels_float", ["--model", good, "--input", x3, "--labels", p("yf.npy")],
         ["--labels: ", "yf.npy is <f4; class ids must be int32 or int64"]),
        ("labels_count", ["--model", good, "--input", x3, "--labels", p("y5.npy")],
         ["y5.npy must be 1-D with one id per input (4)"]),
        ("labels_range", ["--model", good, "--input", x3, "--labels", p("ybig.npy")],
         ["ybig.npy: label 2 at row 1 is not a class of the model's 2 outputs"]),
        # options
        ("out_needs_one_result", ["--model", good, "--engines", "host:exact,host:f64",
                                  "--out", p("y.npy")],
         ["--out writes one result, but this job has 2", "--save"]),
        ("arch_without_model", ["--arch", "mlp"], ["--arch, --act and --residual describe"]),
        ("arch_bad", ["--model", good, "--arch", "cnn"], ["--arch: 'cnn' is not one of"]),
        ("d_model_with_model", ["--model", good, "--d-model", "8"],
         ["--d-model: the --model file sets"]),
    ]
    a = np.asfortranarray(np.arange(12, dtype=np.float32).reshape(4, 3))
    np.save(p("fortran.npy"), a)
    np.save(p("x64.npy"), np.zeros((4, 3), np.float64))
    np.save(p("x5.npy"), np.zeros((4, 5), np.float32))
    np.save(p("xcut_full.npy"), np.zeros((4, 3), np.float32))
    with open(p("xcut_full.npy"), "rb") as f:
        raw = f.read()
    with open(p("xcut.npy"), "wb") as f:
        f.write(raw[:-5])
    np.save(p("yf.npy"), np.zeros(4, np.float32))
    np.save(p("y5.npy"), np.zeros(5, np.int64))
    np.save(p("ybig.npy"), np.array([0, 2, 1, 0], np.int32))

    failures = []
    for name, args, want in cases:
        for cmd in ("run", "compare"):
            full = [clp, cmd, "-d", "host", "--runs", "1", "--warmup", "0"] + args
            r = subprocess.run(full, capture_output=True, text=True)
            first = r.stderr.splitlines()[0] if r.stderr else ""
            ok = r.returncode == 2 and all(w in first for w in want)
            print(f"{'ok  ' if ok else 'FAIL'} {cmd} {name}: status {r.returncode}: {first}")
            if not ok:
                failures.append(f"{cmd} {name}: status {r.returncode}, stderr:\n{r.stderr}")
    # The good file runs, and --out writes the one result.
    r = subprocess.run([clp, "run", "-d", "host", "--engines", "host:exact", "--model", good,
                        "--input", x3, "--out", p("y.npy"), "--runs", "1", "--warmup", "0"],
                       capture_output=True, text=True)
    if r.returncode != 0 or np.load(p("y.npy")).shape != (4, 2):
        failures.append(f"the good file: status {r.returncode}: {r.stderr}")
    if failures:
        print("\n".join(failures))
        sys.exit(1)
    print(f"all {len(cases)} cases refused with status 2 and a message naming the problem")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
