#!/usr/bin/env python3
"""Every example output in README.md and docs/*.md, made by the current binary.

    tools/doc_examples.py --update [NAME...]   run the examples and rewrite their blocks
    tools/doc_examples.py --check  [NAME...]   run them and fail on a stale block (ctest
                                               docs/examples); also checks the links
    tools/doc_examples.py --links              only the links (no binary needed)
    tools/doc_examples.py --list               the examples, where they are, their commands

Options: --build DIR (default build), --keep (leave the scratch folder, for debugging),
--vendorlib (only the examples whose block shows a vendor library: host:openblas, cl:clblast
or OpenBLAS itself; those that OPENBLAS_CORETYPE can change, which CI's coretypes job checks
under each core type the CPU can run).

A fenced block in README.md or docs/*.md is one of these, named by the HTML comment on the
line before it:
  <!-- example: NAME machine=KEY -->   the output of EXAMPLES[NAME]'s command, made by
                                       --update; KEY is the machine it was made on
  <!-- include: PATH -->               the file PATH (from the repository root), verbatim
  <!-- recorded: PATH -->              an excerpt of a measurement kept in PATH (a machine
                                       we cannot run here, e.g. the H100): every line of the
                                       block but "..." must be a line of PATH, in order
or it has a language (```sh for commands to type, ```c, ```python, ```cmake, ```json): a
block with neither is an error, so that no output can be pasted by hand.

--check compares each example's fresh output with its block modulo what varies from run to
run: times (every column whose header names a unit of time or speed, and every number of a
table's row from its first such column on, which a wide value pushes out of its column; every
"1.2 s", "0.3 ms"), dates, the version's git hash, the scratch folder, the free memory, and the
program cache's hit or miss. Everything else (hashes of outputs, ULPs, max_abs, verdicts,
the lines and columns themselves) must be equal: the runs are deterministic. On a machine
other than the one that made the block (another CPU, OpenBLAS core or thread count: KEY),
the numbers of engines that reorder sums differ by design, so there only the structure is
compared and a note says so: masked are every number (every word with a digit), the device
and CPU names of both machines' keys (also cut to a table's column) and any PoCL device name
("pthread-..."/"cpu-...": LLVM's CPU name and the host's, up to the ":" or the column gap
after it, e.g. pthread-haswell-AMD EPYC against pthread-skylake-avx512-AMD EPYC), the CPU's
vendor (GenuineIntel, AuthenticAMD), the OpenBLAS cores of both keys (Zen, Haswell...), host:exact's ISA level, its description in
parentheses ("avx2 (AVX2 + FMA)" against "avx512 (AVX-512 F)") and the list of the CPU's
levels, cl:own's kernel path (its probe picks one per machine), and on the lines of a vendor
library's result (host:openblas, cl:clblast) the words that say whether it is batch- or
thread-invariant: whether OpenBLAS's or CLBlast's sums come out the same alone and in a batch,
on 1 thread and on all, is the library's business and changes with its kernel (at d=256,
OpenBLAS's Zen kernel gives "1 thread vs all DIFFER", its SkylakeX one
"bit-identical"). cl:own's and host:exact's words, which clparity promises, are compared. Every other word, every
line and its order, and the tables' headers are still compared; --check first tries this on
lines of an AVX2 and an AVX-512 machine (SELFTEST: equal, and a word put in shows). Examples
run on PoCL alone (OCL_ICD_VENDORS=BUILD/icd/pocl) with their own cache folder in
BUILD/doc-examples.

When an output format changes, `tools/doc_examples.py --update` regenerates every block in
one command; review the diff (git diff README.md docs/) and commit it. When a new output
carries a timing that the rules below do not know, add its pattern to VOLATILE.
"""

import argparse
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = ["README.md"] + sorted(
    os.path.join("docs", f) for f in os.listdir(os.path.join(ROOT, "docs")) if f.endswith(".md"))

# NAME -> what runs. cmd: a shell command run in the repository root, with $CLP the binary and
# $OUT a scratch folder (shown as "out"); show: the command line printed after "$ " (default:
# cmd with $CLP written build/clparity); keep: regexes, only the lines that match one are
# shown (default all); stop: a regex, the output is cut before the first line matching it and
# "..." put in its place; stderr: also capture stderr (after stdout); env: added variables;
# status: the exit status expected (shown after the output; default 0, not shown);
# mask: (regex, replacement) pairs for what varies in this example only, besides VOLATILE.
EXAMPLES = {
    "compare-default": dict(
        cmd="$CLP compare"),
    "compare-init-scale": dict(
        cmd="$CLP compare --init-scale 0.5 --engines cl:own,host:openblas",
        keep=[r"^model:", r"^id ", r"^R\d  .*(cl|host):", r"^worst", r"^  R\d  ", r"^  torch"]),
    "devices": dict(
        cmd="$CLP devices", stop=r"^cl:own kernel paths"),
    "env-no-platform": dict(
        cmd="OCL_ICD_VENDORS=$OUT/empty $CLP run --d-model 8 --layers 2 --runs 1 --warmup 0 2>&1",
        show="OCL_ICD_VENDORS=/tmp/empty build/clparity run --d-model 8 --layers 2 --runs 1 --warmup 0",
        setup="mkdir -p $OUT/empty"),
    "env-bad-cache": dict(
        setup="touch $OUT/afile",
        cmd="XDG_CACHE_HOME=$OUT/afile/sub $CLP run --engines cl:own 2>&1",
        show="XDG_CACHE_HOME=/tmp/afile/sub build/clparity run --engines cl:own      # /tmp/afile: a plain file",
        status=2),
    "run-small": dict(
        cmd="$CLP run --d-model 64 --layers 8 --batch 4 --save $OUT/run"),
    "compare-small": dict(
        cmd="$CLP compare --d-model 64 --layers 8 --batch 5 --runs 3 --warmup 1"),
    "compare-invariance": dict(
        cmd="$CLP compare --d-model 256 --layers 8 --batch 64 --runs 2 --warmup 1 --invariance "
            "--engines cl:own,host:openblas,host:exact",
        keep=[r"^invariance", r"^  R\d.*(batch|threads):"]),
    "diff": dict(
        setup="$CLP compare --engines cl:own,host:exact --d-model 64 --layers 8 --batch 4 "
              "--runs 2 --save $OUT/a >/dev/null && "
              "$CLP compare -d host --engines host:exact --d-model 64 --layers 8 --batch 4 "
              "--runs 2 --save $OUT/b >/dev/null",
        cmd="$CLP diff $OUT/a $OUT/b"),
    "peak": dict(
        cmd="$CLP peak --remeasure"),
    "sweep-width": dict(
        cmd="$CLP sweep --vary width --grid 16,64,256 --layers 2 --runs 3 --warmup 1",
        stop=r"^crossovers"),
    "train": dict(
        cmd="$CLP train --steps 100 --d-model 32 --layers 4 --batch 4 --init-scale 0.5 "
            "--every 50 --target random"),
    "train-adam": dict(
        cmd="$CLP train --optimizer adam --steps 100 --d-model 16 --layers 2 --batch 5 "
            "--every 50 --target random"),
    "train-relaxed": dict(
        cmd="$CLP train --optimizer adam --engines cl:own,cl:relaxed,host:exact,host:f64 "
            "--steps 100 --d-model 16 --layers 2 --batch 5 --every 50 --target random"),
    "ulp": dict(
        cmd="$CLP ulp"),
    "digits": dict(
        cmd="$CLP compare --model tests/fixtures/digits.safetensors "
            "--input tests/fixtures/digits_x.npy --labels tests/fixtures/digits_y.npy "
            "--runs 1 --warmup 0"),
    "cache-list": dict(
        setup="XDG_CACHE_HOME=$OUT/c POCL_CACHE_DIR=$BUILD/doc-examples/cache/pocl "
              "CLPARITY_OWN_PROBE=off $CLP run --engines cl:own --d-model 8 --layers 2 "
              "--runs 1 --warmup 0 >/dev/null",
        cmd="XDG_CACHE_HOME=$OUT/c $CLP cache list && XDG_CACHE_HOME=$OUT/c $CLP cache clear",
        show="build/clparity cache list && build/clparity cache clear",
        mask=[(r"\b[0-9a-f]{64}\.bin", "<sha256>.bin"), (r"\d+(\.\d+)? (B|KiB|MiB)\b", "<size>"),
              (r"\(\d+ bytes\)", "(<n> bytes)")]),
    "c-example": dict(
        cmd="$BUILD/compare_example pocl,host",
        show="build/compare_example pocl,host"),
    "python-example": dict(
        cmd="CLPARITY_LIBRARY=$BUILD/libclparity.so.0 PYTHONPATH=tools/python "
            "/usr/bin/python3 tools/python/example.py",
        show="PYTHONPATH=tools/python python3 tools/python/example.py"),
}

# What varies from run to run, masked on both sides before comparing.
VOLATILE = [
    (re.compile(r"clparity \d+\.\d+\.\d+ \([0-9a-f]+(-dirty)?\)"), "clparity <version>"),
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"), "<date>"),
    (re.compile(r"\(cache (hit|miss|off)[^)]*\)"), "(cache <state>)"),
    # on a cold cache the kernels are built and probed in a setup child, whose probe time is
    # inside the build time (ENGINES.md, "A compiler that crashes costs one path")
    (re.compile(r"\(built and probed in a setup child\)"), "(probes 0.000 s)"),
    # a number followed by a unit of time: 0.003 s, 1.9 s, 23 ms, 3.8 us
    (re.compile(r"(?<![\w.])[-+]?\d+(\.\d+)?(e[-+]?\d+)? ?(s|ms|us|µs)\b"), "<t>"),
    # PoCL sizes its device's global memory and largest allocation from the host's memory:
    # 7.46 GiB / 2.00 GiB in one run, 8.96 GiB / 4.00 GiB in another on the same 2-core VM
    (re.compile(r"(Memory available|Max clock|Global memory|Max allocation)\s+.*"), r"\1 <varies>"),
    # a peak: the machine's load decides it (clparity peak, sweep's peak: lines)
    (re.compile(r"\d+(\.\d+)? (GFLOP/s|TFLOP/s|GB/s)"), "<speed>"),
    (re.compile(r"\((cached|measured)[^)]*\)"), "(<peak source>)"),
    # peak's spread and its repetitions (they go on until the spread settles)
    (re.compile(r"\(p10-p90 [\d.]+-[\d.]+\)"), "(p10-p90 <range>)"),
    (re.compile(r"\b\d+ reps\b"), "<n> reps"),
    # a speed ratio or a verdict on which is faster: timing, never deterministic
    (re.compile(r".*\b(times faster|times slower|within (the )?noise|beats)\b.*"), "<speed>"),
]
# Lines outside tables that only speak of speed or its noise (which engine was fastest, by how
# much, a spread too large, a % of peak above 100): dropped before comparing, since whether
# they appear at all depends on the machine's load.
# The speed verdict's first line ("R5 host:exact on host ran") names the fastest result: the
# load decides which, when two are close.
DROP = re.compile(r"fastest|faster|slower|\bnoise\b|\bspread\b|suspect|% of peak|above 100|"
                  r"\sran$|^~ |^  measurement, or too few|^  doubtful: run 'clparity peak|"
                  # the rest of sweep's note on a % of peak above 100 (sweep_print_pct_note)
                  r"^  median of its repetitions\) was measured|^  repetitions, so these "
                  r"percentages|^  --remeasure' on an idle machine|"
                  # and its line on the cached peak that the results exceeded, dropped
                  r"^  The cached peak of .* is dropped|^  again\.$|^  The cached peak of .* could not")
# A column whose header names one of these holds timings (or speeds, or spread).
TIME_COLUMN = re.compile(r"(\bms\b|\bruns\b|\bus\b|µs|GFLOP|GB/s|peak|±|\bsd\b|spread|\bCI\b|\bp\d\d\b|"
                         r"\bmean\b|\bmedian\b|\bmin\b|\bmax\b(?! ULP)|1st|/step|time)")


# a table cell that is a number: 12, 0.0213~, 1.5e-05, 12.3%, [0.0326,
NUMBER_TOKEN = re.compile(r"[\[(]?[-+]?\d+(\.\d+)?(e[-+]?\d+)?[~%,\])]*")


def header_time_spans(line):
    """Character spans of the columns of a table header whose label is a time (labels are
    separated by two or more spaces)."""
    m = re.match(r"^result\s+(runs\b)", line)
    if m:  # the timing table: every column after the result's name is a timing
        return [(m.start(1), 10**6)]
    spans, labels = [], list(re.finditer(r"\S+(?: \S+)*", line))
    for m in labels:
        if TIME_COLUMN.search(m.group(0)) and not re.search(r"ULP|max_|rel", m.group(0)):
            spans.append((m.start(), m.end()))
    # a last column of times runs to the end of its rows (the timing table's "median CI":
    # "[0.0326, 0.0577] 50%" is wider than its label, and its coverage follows the runs)
    if spans and labels and spans[-1][0] == labels[-1].start():
        spans[-1] = (spans[-1][0], 10**6)
    return spans


def is_header(line):
    if re.match(r"^result\s+runs\s", line):  # the timing table of run, compare and diff
        return True
    return bool(re.search(r"\b(ms|GFLOP/s)\b|ms/step", line)) and not re.match(r"^\s*(R\d|\d)", line)


def mask_tables(lines):
    """Masks the time columns of every table; returns the lines and, per line, whether it is
    a table's header or row."""
    out, in_table, spans, in_builds = [], [], None, False
    for line in lines:
        # "builds:" and "ran:" and their indented continuation lines: never a table's header,
        # though their times may now be printed in ms ("7.883 ms (cache hit)")
        if line.startswith(("builds:", "ran:")):
            in_builds = True
        elif in_builds and not line.startswith(" "):
            in_builds = False
        if not in_builds and is_header(line):
            spans = header_time_spans(line)
            out.append(line)
            in_table.append(True)
            continue
        # "builds:" and "ran:" follow run's and compare's first table with no blank line
        # between: they (and their indented continuation lines) end it, since their words
        # would otherwise fall under its time columns wherever a device name's length puts them
        if line.startswith(("builds:", "ran:")):
            spans = None
        # "~ R1 ...": a spread's note, there or not as the load decides (DROP removes it)
        # and peak's three-line note on a spread over 20 %
        if spans and line.strip() and not line.startswith(
                ("verdicts", "note", "~ ", "  measurement, or too few", "  doubtful:")):
            chars = list(line)
            for m in reversed(list(re.finditer(r"\S+", line))):
                # a number past the first time column is a measurement too: a value wider
                # than its column pushes the rest of its row right, out of their spans (seen:
                # sweep's GFLOP/s column, under load)
                if any(m.start() < e and m.end() > s for s, e in spans) or (
                        m.start() >= spans[0][0] and NUMBER_TOKEN.fullmatch(m.group(0))):
                    chars[m.start():m.end()] = "<t>"
            # a time a result does not have ("n/a": host engines have no kernel time) moves
            # with its row's wider numbers, out of its column's span: a time too
            out.append(re.sub(r"(?<!\S)n/a(?!\S)", "<t>", "".join(chars)))
            in_table.append(True)
            continue
        if not line.strip():
            spans = None
        out.append(line)
        in_table.append(False)
    return out, in_table


# What names the machine, masked on a machine other than the recording one (structure mode).
# A PoCL CPU device's name: its LLVM CPU name, then the host CPU's ("pthread-haswell-AMD EPYC",
# "pthread-skylake-avx512-AMD EPYC", PoCL 4's "cpu-..."), and the HSTR of its Version line
# ("pthread-x86_64-pc-linux-gnu-haswell"): the whole name up to the ":" after it, a column gap
# (two spaces), the engine of a one-space column (" cl:own") or the line's end, so that its
# length and its hyphens do not matter. A name cut to a table's column ("0:0 pthread-skylake-
# avx512-AMD sqrt") is masked before, by machine_rx's prefixes of the keys' names.
POCL_NAME = re.compile(r"(?<![\w-])(?:pthread|cpu|basic|tbb)-\S.*?(?=:|\s\s|\s(?:cl|host):|$)")
# host:exact's instruction-set levels (hostblas/exact.c's isa_words), the description that
# devices prints after the level ("avx2 (AVX2 + FMA)", "avx512 (AVX-512 F)") and the list of
# the CPU's levels ("avx512, avx2, baseline" against "avx2, baseline"): one <isa> each.
ISA_WORD = r"(?:avx512|avx2|baseline)"
ISA_DESC = re.compile(r"\b(" + ISA_WORD + r") \((?:AVX[^)]*|no vector FMA[^)]*)\)")
ISA_LIST = re.compile(r"\b" + ISA_WORD + r"(?:, " + ISA_WORD + r")*\b")
# The x86 CPU vendors' CPUID names, as PoCL reports a CPU device's vendor (an AMD EPYC and an
# Intel Xeon make the same structure).
CPU_VENDOR = re.compile(r"\b(?:GenuineIntel|AuthenticAMD)\b")
# A vendor library's result (compare's invariance lines) and its verdict words there.
VENDOR_ENGINE = re.compile(r"\b(?:host:openblas|cl:clblast)\b")
VENDOR_VERDICT = [(re.compile(r"\bvs all (?:bit-identical \(invariant\)|DIFFER\b)"),
                   "vs all <vendor's>"),
                  (re.compile(r"\((?:invariant|VARIES)\)"), "(<vendor's>)")]
# The examples whose output a vendor library makes or names (--vendorlib).
VENDOR_TEXT = re.compile(r"host:openblas|cl:clblast|OpenBLAS")


def machine_rx(keys):
    """(regex, replacement) pairs for the names in machine keys (see machine_key): the
    device and host CPU names, and their prefixes of 8 or more characters (the tables cut names
    to their columns), longest first, as <device>; the hosts' OpenBLAS cores ("Zen",
    "Haswell", "SkylakeX", in "core Zen," and the OpenBLAS config line) as <blas core>."""
    names, cores = set(), set()
    for key in keys:
        for part in (key or "").split(","):
            fields = part.split("/")
            name = fields[0].strip()
            if len(name) >= 3 and not name.startswith("cpus "):
                names.update(name[:k] for k in range(min(8, len(name)), len(name) + 1))
            if len(fields) == 4 and fields[1] not in ("", "None", "null"):  # the host's
                cores.add(fields[1])
    out = []
    if names:
        longest = sorted(names, key=len, reverse=True)
        out.append((re.compile("|".join(re.escape(n) for n in longest)), "<device> "))
    if cores:
        out.append((re.compile(r"\b(?:" + "|".join(re.escape(c) for c in sorted(cores)) + r")\b"),
                    "<blas core>"))
    return out


def normalize(lines, structure=False, mask=(), machine=()):
    lines, in_table = mask_tables(lines)
    res = []
    for line, tab in zip(lines, in_table):
        if not tab and DROP.search(line):
            continue
        for rx, rep in list(VOLATILE) + [(re.compile(r), p) for r, p in mask]:
            line = rx.sub(rep, line)
        if structure:
            if re.search(r"Mismatched elements", line):
                continue
            for rx, rep in machine:
                line = rx.sub(rep, line)
            line = POCL_NAME.sub("<device>", line)
            line = CPU_VENDOR.sub("<cpu vendor>", line)  # devices' Vendor line of a CPU
            line = ISA_DESC.sub(r"\1 (<isa description>)", line)
            line = ISA_LIST.sub("<isa>", line)
            if VENDOR_ENGINE.search(line):
                for rx, rep in VENDOR_VERDICT:
                    line = rx.sub(rep, line)
            # cl:own's kernel path (builds: "kernel path cpu1,", ran: "path cpu1"): its probe
            # picks it on each machine
            line = re.sub(r"\b(kernel )?path (?!<)\S+", r"\1path <path>", line)
            line = re.sub(r"\S*\d\S*", "<n>", line)
            line = re.sub(r"bitwise .*", "bitwise <verdict>", line)
        res.append(re.sub(r"\s+", " ", line).strip())
    return res


# The structure comparison on both kinds of CI machine (AVX2 and AVX-512 AMD EPYC), whichever
# runs the test: a block made on one must match the output of the other, and a changed word
# must still show. Run by --check before the examples (microseconds).
SELFTEST_KEYS = ["pthread-haswell-AMD EPYC/2/3.1+debian,AMD EPYC/Zen/2/avx2,cpus 2",
                 "pthread-skylake-avx512-AMD EPYC/2/3.1+debian,AMD EPYC/Haswell/2/avx512,cpus 2"]
SELFTEST = [
    ["device                               engine          median ms     min ms     max ms",
     "0:0 pthread-haswell-AMD EPYC         cl:own             0.036~      0.028      0.065",
     "builds: cl:own on 0:0 pthread-haswell-AMD EPYC: 0.003 s (cache hit); kernel path cpu1, "
     "passed its probe (probes 0.001 s)",
     "        cl:clblast on 0:0 pthread-haswell-AMD EPYC: 0.002 s (cache hit)",
     "ran:    cl:own on 0:0 pthread-haswell-AMD EPYC: path cpu1",
     "        host:exact on host: C fmaf chains (avx2)",
     "0:0 pthread-haswell-AMD EPYC   sqrt          default              1048576          0",
     " `-- Device host: OpenBLAS 0.3.21, core Zen, 2 threads",
     "       OpenBLAS config  OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH NO_AFFINITY Zen "
     "MAX_THREADS=64",
     "       host:exact ISA   avx2 (AVX2 + FMA): the widest of this CPU's avx2, baseline "
     "(CLPARITY_HOST_ISA forces one)",
     "  R1  0:0 pthread-haswell-AMD EPYC     cl:own        batch: 32/32 rows bit-identical alone "
     "and in the batch (invariant)",
     "  R2  host                             host:openblas batch: 0/32 rows bit-identical alone "
     "and in the batch (VARIES); threads: 1 thread vs all DIFFER",
     "  R3  0:0 pthread-haswell-AMD EPYC     cl:clblast    batch: 32/32 rows bit-identical alone "
     "and in the batch (invariant)"],
    ["device                               engine          median ms     min ms     max ms",
     "0:0 pthread-skylake-avx512-AMD EPYC  cl:own             0.045       0.031      0.070",
     "builds: cl:own on 0:0 pthread-skylake-avx512-AMD EPYC: 0.002 s (cache hit); kernel path "
     "vec, passed its probe (probes 0.000 s)",
     "        cl:clblast on 0:0 pthread-skylake-avx512-AMD EPYC: 0.001 s (cache hit)",
     "ran:    cl:own on 0:0 pthread-skylake-avx512-AMD EPYC: path vec",
     "        host:exact on host: C fmaf chains (avx512)",
     "0:0 pthread-skylake-avx512-AMD sqrt          default              1048576          0",
     " `-- Device host: OpenBLAS 0.3.21, core Haswell, 2 threads",
     "       OpenBLAS config  OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH NO_AFFINITY Haswell "
     "MAX_THREADS=64",
     "       host:exact ISA   avx512 (AVX-512 F): the widest of this CPU's avx512, avx2, baseline "
     "(CLPARITY_HOST_ISA forces one)",
     "  R1  0:0 pthread-skylake-avx512-AMD EPYC cl:own     batch: 32/32 rows bit-identical alone "
     "and in the batch (invariant)",
     "  R2  host                             host:openblas batch: 32/32 rows bit-identical alone "
     "and in the batch (invariant); threads: 1 thread vs all bit-identical (invariant)",
     "  R3  0:0 pthread-skylake-avx512-AMD EPYC cl:clblast batch: 0/32 rows bit-identical alone "
     "and in the batch (VARIES)"]]


def selftest():
    mrx = machine_rx(SELFTEST_KEYS)
    a, b = (normalize(lines, True, (), mrx) for lines in SELFTEST)
    if a != b:
        return ["doc_examples: self-test: the AVX2 and AVX-512 machines' outputs differ in "
                "structure:\n" + "\n".join(difflib.unified_diff(a, b, lineterm="", n=0))]
    for k, line in enumerate(SELFTEST[1]):  # a word put after the first: must show
        changed = re.sub(r"^(\s*\S+)", r"\1 zz", line)
        # and the verdict of an engine that promises its bits (cl:own), unlike a vendor's
        if "cl:own " in line and "(invariant)" in line:
            changed = line.replace("(invariant)", "(VARIES)")
        if normalize(SELFTEST[1][:k] + [changed] + SELFTEST[1][k + 1:], True, (), mrx) == b:
            return [f"doc_examples: self-test: a changed word goes unseen in:\n    {changed}"]
    return []


# ---- the markdown --------------------------------------------------------------------------

MARK = re.compile(r"^<!-- (example|include|recorded): (\S+)(?: machine=(.*?))? -->\s*$")
FENCE = re.compile(r"^(```+)(.*)$")


class Block:
    def __init__(self, path, kind, arg, machine, mark_line, start, end, lang):
        self.path, self.kind, self.arg, self.machine = path, kind, arg, machine
        self.mark_line, self.start, self.end, self.lang = mark_line, start, end, lang


def scan(path):
    """The fenced blocks of a markdown file: (blocks, errors). start/end are the indices of
    the fence lines."""
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        text = f.read().split("\n")
    blocks, errors, i, pending = [], [], 0, None
    while i < len(text):
        m = MARK.match(text[i])
        if m:
            pending = (m, i)
            i += 1
            continue
        f = FENCE.match(text[i])
        if f:
            j = i + 1
            while j < len(text) and not text[j].startswith(f.group(1)):
                j += 1
            lang = f.group(2).strip()
            if pending and pending[1] == i - 1:
                pm = pending[0]
                blocks.append(Block(path, pm.group(1), pm.group(2), pm.group(3), i - 1, i, j, lang))
            elif not lang:
                errors.append(f"{path}:{i + 1}: a fenced block with no language and no "
                              f"<!-- example/include/recorded --> mark")
            pending = None
            i = j + 1
            continue
        if pending and pending[1] < i and text[i].strip():
            errors.append(f"{path}:{pending[1] + 1}: a mark not followed by a fenced block")
            pending = None
        i += 1
    return text, blocks, errors


# ---- running -------------------------------------------------------------------------------

def machine_key(env, clp):
    """What the numbers of the engines that reorder sums depend on: the OpenCL devices, the
    host's CPU, its OpenBLAS core and threads, host:exact's instruction set, the CPU count."""
    p = subprocess.run([clp, "devices", "--json", "-"], env=env, capture_output=True, text=True)
    try:
        devs = json.loads(p.stdout)["devices"]
    except (ValueError, KeyError):
        return "unknown"
    parts = []
    for d in devs:
        if d.get("kind") == "host":
            parts.append(f"{d.get('name')}/{d.get('blas_core')}/{d.get('blas_threads')}/"
                         f"{d.get('exact_isa')}")
        else:
            parts.append(f"{d.get('name')}/{d.get('compute_units')}/{d.get('driver_version')}")
    return ",".join(parts) + f",cpus {os.cpu_count()}"


def run_example(name, ex, env, clp, build, out):
    sub = dict(env, CLP=clp, OUT=out, BUILD=build)
    sub.update(ex.get("env", {}))
    if ex.get("setup"):
        p = subprocess.run(ex["setup"], shell=True, cwd=ROOT, env=sub, capture_output=True,
                           text=True)
        if p.returncode != 0:
            raise RuntimeError(f"example {name}: setup failed ({p.returncode}): {ex['setup']}\n"
                               f"{p.stdout}{p.stderr}")
    p = subprocess.run(ex["cmd"], shell=True, cwd=ROOT, env=sub, capture_output=True, text=True)
    text = p.stdout + (p.stderr if ex.get("stderr") else "")
    if p.returncode != ex.get("status", 0):
        raise RuntimeError(f"example {name}: exit status {p.returncode}: {ex['cmd']}\n"
                           f"{p.stdout}{p.stderr}")
    text = text.replace(out + "/empty", "/tmp/empty").replace(out + "/afile", "/tmp/afile")
    text = text.replace(out, "out").replace(ROOT + "/", "").replace(ROOT, ".")
    lines = text.rstrip("\n").split("\n")
    if ex.get("keep"):
        lines = [ln for ln in lines if any(re.search(k, ln) for k in ex["keep"])]
    if ex.get("stop"):
        for k, ln in enumerate(lines):
            if re.search(ex["stop"], ln):
                lines = lines[:k] + ["..."]
                break
    show = ex.get("show") or ex["cmd"].replace("$CLP", "build/clparity").replace("$OUT", "out")
    tail = ["$ echo $?", str(p.returncode)] if "status" in ex else []
    return ["$ " + show] + [ln.rstrip() for ln in lines] + tail


def check_recorded(b, body):
    path = os.path.join(ROOT, b.arg)
    if not os.path.exists(path):
        return [f"{b.path}:{b.mark_line + 1}: recorded: {b.arg} does not exist"]
    with open(path, encoding="utf-8", errors="replace") as f:
        src = [ln.rstrip() for ln in f.read().split("\n")]
    k = 0
    for ln in body:
        if ln.strip() == "...":
            continue
        while k < len(src) and src[k] != ln.rstrip():
            k += 1
        if k == len(src):
            return [f"{b.path}:{b.mark_line + 1}: recorded block: this line is not in {b.arg} "
                    f"(in order):\n    {ln}"]
        k += 1
    return []


# ---- links ---------------------------------------------------------------------------------

def slug(heading):
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(path):
    seen, out = {}, set()
    in_code = False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("```"):
                in_code = not in_code
            if in_code:
                continue
            m = re.match(r"^#+\s+(.*)", line)
            if m:
                s = slug(m.group(1))
                n = seen.get(s, 0)
                out.add(s if n == 0 else f"{s}-{n}")
                seen[s] = n + 1
    return out


def check_links():
    errors = []
    for doc in DOCS:
        text, _, _ = scan(doc)
        in_code = False
        for i, line in enumerate(text):
            if line.startswith("```"):
                in_code = not in_code
            if in_code:
                continue
            for m in re.finditer(r"\]\(([^)\s]+)\)", line):
                target = m.group(1)
                if re.match(r"^[a-z]+:", target):
                    continue
                file, _, anchor = target.partition("#")
                full = os.path.normpath(os.path.join(ROOT, os.path.dirname(doc), file)) if file \
                    else os.path.join(ROOT, doc)
                if not os.path.exists(full):
                    errors.append(f"{doc}:{i + 1}: link to {target}: {file} does not exist")
                elif anchor and full.endswith(".md") and anchor not in anchors(full):
                    errors.append(f"{doc}:{i + 1}: link to {target}: no heading #{anchor} in "
                                  f"{os.path.relpath(full, ROOT)}")
    return errors


# ---- main ----------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--update", action="store_true")
    g.add_argument("--check", action="store_true")
    g.add_argument("--links", action="store_true")
    g.add_argument("--list", action="store_true")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--vendorlib", action="store_true")
    ap.add_argument("names", nargs="*")
    a = ap.parse_args()

    errors = []
    scanned = {doc: scan(doc) for doc in DOCS}
    for doc, (_, blocks, errs) in scanned.items():
        errors += errs
        for b in blocks:
            if b.kind == "example" and b.arg not in EXAMPLES:
                errors.append(f"{doc}:{b.mark_line + 1}: unknown example '{b.arg}' "
                              f"(EXAMPLES in {os.path.relpath(__file__, ROOT)})")
    used = {b.arg for _, bl, _ in scanned.values() for b in bl if b.kind == "example"}
    # --vendorlib: the examples whose recorded block a vendor library made or names
    vendor = {b.arg for _, (text, bl, _) in scanned.items() for b in bl if b.kind == "example"
              and VENDOR_TEXT.search("\n".join(text[b.start + 1:b.end]))}
    for name in EXAMPLES:
        if name not in used:
            errors.append(f"example '{name}' is in EXAMPLES but in no document")

    if a.list:
        for doc, (_, blocks, _) in scanned.items():
            for b in blocks:
                what = EXAMPLES.get(b.arg, {}).get("cmd", "") if b.kind == "example" else ""
                print(f"{doc}:{b.start + 1}: {b.kind} {b.arg} {what}")
        return 0

    errors += check_links()
    if a.check:
        errors += selftest()
    if a.links:
        for e in errors:
            print(e, file=sys.stderr)
        return 1 if errors else 0

    build = os.path.abspath(a.build)
    clp = os.path.join(build, "clparity")
    if not os.access(clp, os.X_OK):
        print(f"doc_examples: {clp}: no built binary (build first)", file=sys.stderr)
        return 2
    icd = os.path.join(build, "icd", "pocl")
    if not os.path.isdir(icd) or not any(f.endswith(".icd") for f in os.listdir(icd)):
        print(f"doc_examples: skipped: no PoCL .icd file in {icd} (the examples run on PoCL)",
              file=sys.stderr)
        return 77
    env = dict(os.environ)
    for k in list(env):
        if k.startswith(("CLPARITY_", "POCL_", "OPENBLAS_")) or k == "OCL_ICD_VENDORS":
            del env[k]
    home = os.path.join(build, "doc-examples")
    os.makedirs(home, exist_ok=True)
    env.update(OCL_ICD_VENDORS=os.path.join(build, "icd", "pocl"),
               XDG_CACHE_HOME=os.path.join(home, "cache"), LC_ALL="C", TZ="UTC")
    if "OPENBLAS_CORETYPE" in os.environ:  # the machine's own setting (see docs/PERFORMANCE.md)
        env["OPENBLAS_CORETYPE"] = os.environ["OPENBLAS_CORETYPE"]
    key = machine_key(env, clp)

    out = tempfile.mkdtemp(prefix="doc-examples-", dir=home)
    fresh, t0 = {}, time.time()
    try:
        for name, ex in EXAMPLES.items():
            if (a.names and name not in a.names) or (a.vendorlib and name not in vendor):
                continue
            t = time.time()
            os.makedirs(os.path.join(out, name))
            fresh[name] = run_example(name, ex, env, clp, build, os.path.join(out, name))
            print(f"doc_examples: {name}: {time.time() - t:.1f} s", file=sys.stderr)
    except RuntimeError as e:
        print(f"doc_examples: {e}", file=sys.stderr)
        return 3
    finally:
        if not a.keep:
            shutil.rmtree(out, ignore_errors=True)

    notes = set()
    for doc, (text, blocks, _) in scanned.items():
        changed = False
        for b in reversed(blocks):
            body = text[b.start + 1:b.end]
            if b.kind == "include":
                path = os.path.join(ROOT, b.arg)
                if not os.path.exists(path):
                    errors.append(f"{doc}:{b.mark_line + 1}: include: {b.arg} does not exist")
                    continue
                with open(path, encoding="utf-8") as f:
                    want = f.read().rstrip("\n").split("\n")
                if body != want:
                    if a.update:
                        text[b.start + 1:b.end] = want
                        changed = True
                    else:
                        errors.append(f"{doc}:{b.start + 1}: include of {b.arg} differs from the "
                                      f"file:\n" + "\n".join(difflib.unified_diff(
                                          body, want, "block", b.arg, lineterm="", n=1)))
                continue
            if b.kind == "recorded":
                errors += check_recorded(b, body)
                continue
            if b.arg not in fresh:
                continue
            new = fresh[b.arg]
            if a.update:
                text[b.start + 1:b.end] = new
                text[b.mark_line] = f"<!-- example: {b.arg} machine={key} -->"
                changed = True
                continue
            structure = b.machine != key
            if structure:
                notes.add(f"note: {doc}: examples made on machine={b.machine}; this is "
                          f"machine={key}: only their structure is compared (numbers and what "
                          f"names the machine masked: see --help)")
            m = EXAMPLES[b.arg].get("mask", ())
            mrx = machine_rx([b.machine, key]) if structure else ()
            old_n, new_n = normalize(body, structure, m, mrx), normalize(new, structure, m, mrx)
            if old_n != new_n:
                errors.append(
                    f"{doc}:{b.start + 1}: example '{b.arg}' is stale (command: "
                    f"{EXAMPLES[b.arg]['cmd']}); the normalized difference, block -> now:\n"
                    + "\n".join(difflib.unified_diff(old_n, new_n, "in " + doc, "now", lineterm="",
                                                     n=1))
                    + "\n  regenerate with: tools/doc_examples.py --update")
        if changed:
            with open(os.path.join(ROOT, doc), "w", encoding="utf-8") as f:
                f.write("\n".join(text))
            print(f"doc_examples: rewrote {doc}", file=sys.stderr)
    for n in sorted(notes):
        print(n, file=sys.stderr)
    for e in errors:
        print(e, file=sys.stderr)
    print(f"doc_examples: {len(fresh)} examples in {time.time() - t0:.0f} s, "
          f"{len(errors)} problem(s)", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
