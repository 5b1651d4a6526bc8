#!/usr/bin/env python3
"""The vendors job's cases and verdicts (tools/ci/vendors.sh runs it after `source
build/vendors/env.sh`). Usage: vendors.py BUILD_DIR OUT_DIR [--jobs N] [--only ROW,...] [--cases REGEX]

Every implementation row (PoCL pthread, PoCL basic, Intel's CPU runtime, rusticl, Oclgrind)
runs every case:
  - cl:own against host:exact under --expect bitwise, with the default path choice and with
    each path forced (CLPARITY_OWN_KERNEL), at each shape of SHAPES: the built-in model
    (residual, no bias) at d = 1, 3, 67, 257, 1023 and B = 1, 5, 17, 64; a uniform model with
    biases (tests/make_uniform_bias.py); a rectangular MLP with biases and no residual
    (widths 1 -> 67 -> 1023 -> 3 -> 257 -> 67) at B = 1, 5, 17, 64; the digits model on its
    450 test rows. Oclgrind interprets: it runs the smaller OCLGRIND shapes instead;
  - `train` for 20 steps (cl:own against host:exact, tests/check_train.py --exact-equal), on
    the digits model and on the built-in model, with SGD and Adam; and for 100 steps of Adam,
    AdamW and momentum at d=16 (issue 24); Adam with the step in one launch forced
    (CLPARITY_TRAIN_KERNELS=stream, TRAIN_ENV; not on rusticl, TRAIN_ROWS), every recorded step bit-identical, Adam's div/sqrt
    way the row's own (DIVSQRT_WAY) and said in the report; the final weights must also be the
    same bits on every row;
  - cl:cr (issue 23) against host:cr: the same bits (the hash) under CR_SETTINGS (the default
    choice, each variant forced with its own work-group, split or tile settings, and the
    float32-only method forced, method=f32 and its one-launch layout method=f32,path=stream,
    issue 34) at
    CR_SHAPES (d = 67 and 1023, B = 5 and 17, the rectangular
    model with biases) on CR_ROWS (not pocl-basic: PoCL's compiler as pocl-pthread); Oclgrind
    the small ones: tools/ci/oclgrind.sh and ctest's
    cr/check_cl_oclgrind cover it with every check on), and tests/check_cr.py --quick (the
    exact rounding from Python's Fraction, the special cases) on CR_CHECK_ROWS, Intel's and
    rusticl (PoCL's ctest runs all its cases), and cl:cr's training (CR_TRAINS: 10 steps of Adam
    and Nesterov momentum through tests/cli/cr_train_optim.sh, host:cr's bits at every step and
    the independent reference's) on CR_ROWS. A setting
    that clparity refuses for the device with exit status 2 and a CLPARITY_CR_TUNE message
    (llvmpipe's loop budget, a work-group or local memory too small) is n/a;
  - one `compare -d all`, which must hold a result of every row (or PoCL 3.0's refusal).
conda-forge's PoCL 3.0 (row pocl30, issue 32) runs the default choice, cl:cr's default and
ACCEPT (issue 32's acceptance compare, cold then warm); each case there is ok, or "refused" with
the compiler's reason (REFUSALS), never a crash.
A forced path passes when the run exits 0 and used that path, or when the path was rejected
by cl:own's probe (own_path.rejected) and tests/vendor/quirks.txt lists (row, path) with a
reason. It is "n/a" when clparity refuses the forced path for the shape with exit status 2 and
a CLPARITY_OWN_KERNEL message (e.g. a one-launch path whose layer does not fit a work-group).
Anything else, or a row missing, fails. Prints the matrix; writes matrix.json and matrix.md."""
import argparse
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests"))
from make_uniform_bias import write_safetensors  # noqa: E402  (the tests' writer)

ROWS = [  # key, label, platform name, device name, driver version (regular expressions)
    ("pocl-pthread", "PoCL pthread", r"^Portable Computing Language$", r"^pthread-", r"^(?!3\.0)"),
    ("pocl-basic", "PoCL basic", r"^Portable Computing Language$", r"^basic-", r"^(?!3\.0)"),
    ("intel-cpu", "Intel CPU", r"^Intel\(R\) OpenCL$", r"", r""),
    ("rusticl", "rusticl", r"^rusticl$", r"^llvmpipe", r""),
    ("oclgrind", "Oclgrind", r"^Oclgrind$", r"", r""),
    ("pocl30", "PoCL 3.0 (conda-forge)", r"^Portable Computing Language$", r"^pthread-", r"^3\.0"),
]
PATHS = ["naive", "small", "pipe", "reg", "stream", "tiled", "vec", "cpu", "cpu1", "cpug"]
KERNELS = ["default"] + PATHS
ORDER = ["pocl-pthread", "oclgrind", "pocl-basic", "intel-cpu", "rusticl", "pocl30"]  # the longest first
RECT = [1, 67, 1023, 3, 257, 67]  # the rectangular MLP's widths: in, then each layer's out

# name: the shape's arguments ("@file" names a model of the job's models folder).
SHAPES = {
    "d1_L3_B1": ["--d-model", "1", "--layers", "3", "--batch", "1"],
    "d3_L5_B5": ["--d-model", "3", "--layers", "5", "--batch", "5"],
    "d67_L4_B17": ["--d-model", "67", "--layers", "4", "--batch", "17"],
    "d257_L2_B64": ["--d-model", "257", "--layers", "2", "--batch", "64"],
    "d1023_L2_B5": ["--d-model", "1023", "--layers", "2", "--batch", "5"],
    "bias67_L3_B64": ["@ubias67.safetensors", "@ubias67_x64.npy"],
    "rect_B1": ["@rect.safetensors", "@rect_x1.npy"],
    "rect_B5": ["@rect.safetensors", "@rect_x5.npy"],
    "rect_B17": ["@rect.safetensors", "@rect_x17.npy"],
    "rect_B64": ["@rect.safetensors", "@rect_x64.npy"],
    "digits_B450": ["@digits.safetensors", "@digits_x.npy"],
}
# Oclgrind interprets every work-item (about 0.1-1 us per multiply-add, more where a kernel
# computes padding): it runs smaller shapes under the same names, at most about 2 M
# multiply-adds per forward as the model counts them: the batches of 64 become 17, d = 257 one
# layer at B = 5, d = 1023 one layer at B = 1, digits its first 17 rows.
OCLGRIND = {
    "d67_L4_B17": ["--d-model", "67", "--layers", "2", "--batch", "17"],
    "d257_L2_B64": ["--d-model", "257", "--layers", "1", "--batch", "5"],
    "d1023_L2_B5": ["--d-model", "1023", "--layers", "1", "--batch", "1"],
    "bias67_L3_B64": ["@ubias67.safetensors", "@ubias67_x17.npy"],
    "rect_B64": ["@rect.safetensors", "@rect_x17.npy"],
    "digits_B450": ["@digits.safetensors", "@digits_x17.npy"],
}
# Two paths do far more work per multiply-add on Oclgrind, measured there: tiled computes
# whole tiles of 128 x 128 outputs (d = 257 at B = 5: 25 M fma with the padding, 7 minutes),
# pipe runs 1024 work-items per row block (the rectangular model at B = 17: 7 minutes). Their
# wide shapes become RECT_SIM (widths up to 131: two tile columns, the second partial), and
# tiled's d = 257 and 1023 become d = 131.
RECT_SIM = [1, 67, 131, 3, 67]
OCLGRIND_PATH = {
    "tiled": {
        "d257_L2_B64": ["--d-model", "131", "--layers", "1", "--batch", "5"],
        "d1023_L2_B5": ["--d-model", "131", "--layers", "1", "--batch", "1"],
        "rect_B1": ["@rect_sim.safetensors", "@rect_sim_x1.npy"],
        "rect_B5": ["@rect_sim.safetensors", "@rect_sim_x5.npy"],
        "rect_B17": ["@rect_sim.safetensors", "@rect_sim_x17.npy"],
        "rect_B64": ["@rect_sim.safetensors", "@rect_sim_x17.npy"],
    },
    "pipe": {
        "rect_B1": ["@rect_sim.safetensors", "@rect_sim_x1.npy"],
        "rect_B17": ["@rect_sim.safetensors", "@rect_sim_x5.npy"],
    },
}
TRAINS = {  # name: arguments of `clparity train` (20 steps unless they say --steps)
    "train_digits_B5": ["@digits.safetensors", "--batch", "5", "--lr", "0.005"],
    "train_d67_L3_B5": ["--d-model", "67", "--layers", "3", "--batch", "5"],
    # Adam divides and takes square roots: each row's own correctly rounded way (PoCL: the
    # device's, Intel and Oclgrind: double, rusticl: float with an fma correction), the same bits
    "train_adam_d67_L3_B5": ["--d-model", "67", "--layers", "3", "--batch", "5", "--optimizer", "adam"],
    # Issue 24's acceptance 1: 100 steps of Adam, AdamW and momentum, cl:own bit-identical to
    # host:exact at every one of them (the JSON's step records) and in the final state, on a
    # model small enough for Oclgrind (d=16 L=2 B=5: a few seconds per run there)
    "train_adam_d16_L2_B5_s100": ["--d-model", "16", "--layers", "2", "--batch", "5", "--optimizer", "adam",
                                  "--steps", "100"],
    "train_adamw_d16_L2_B5_s100": ["--d-model", "16", "--layers", "2", "--batch", "5", "--optimizer", "adamw",
                                   "--steps", "100"],
    "train_momentum_d16_L2_B5_s100": ["--d-model", "16", "--layers", "2", "--batch", "5", "--optimizer",
                                      "momentum", "--steps", "100"],
    # Issue 35's step in one launch (clkernels/train_stream.cl), forced: `auto` takes it on GPUs
    # and Oclgrind (every TRAINS case there), not on CPU devices
    "train_stream_adam_d19_L2_B5": ["--d-model", "19", "--layers", "2", "--batch", "5", "--optimizer", "adam"],
    # The tiled kernels, forced (auto never takes them on these rows): whole tiles loaded as
    # float4 quads (the forward's and dx's tiles at d=64 B=16); --init-scale 0.5: at 1 this model's
    # float64 training is too ill-conditioned for check_train.py's comparisons (host:f64 1.3e-12
    # from NumPy's, over its 1e-12), while cl:own stays host:exact's bits
    "train_tiled1_adam_d64_L3_B16": ["--d-model", "64", "--layers", "3", "--batch", "16", "--optimizer",
                                     "adam", "--steps", "5", "--init-scale", "0.5"],
}
# A case's environment beyond the row's, and the rows that run it where not every row does:
# rusticl's llvmpipe runs at most 32 work-items per group, not the step's 16x16 blocks (clparity
# says so and exits 3, as for the tiled kernels).
TRAIN_ENV = {"train_stream_adam_d19_L2_B5": {"CLPARITY_TRAIN_KERNELS": "stream"},
             "train_tiled1_adam_d64_L3_B16": {"CLPARITY_TRAIN_KERNELS": "tiled1"}}
TRAIN_ROWS = {"train_stream_adam_d19_L2_B5": ("pocl-pthread", "pocl-basic", "intel-cpu", "oclgrind"),
              "train_tiled1_adam_d64_L3_B16": ("pocl-pthread", "pocl-basic", "intel-cpu", "oclgrind")}
TRAIN_LEFT_OUT = ("llvmpipe runs at most 32 work-items per group, not the 16x16 blocks of the step in one "
                  "launch or the tiled kernels (clparity exits 3)")
# The div/sqrt way (the report's `div/sqrt:` line, the JSON's div_sqrt) that each row's cl:own
# must take for Adam and AdamW, on its own: where the device reports correctly rounded / and
# sqrt, that; else double where it has fp64; else float with the fma correction (rusticl).
DIVSQRT_WAY = {
    "pocl-pthread": "device (-cl-fp32-correctly-rounded-divide-sqrt)",
    "pocl-basic": "device (-cl-fp32-correctly-rounded-divide-sqrt)",
    "intel-cpu": "double",
    "rusticl": "float (fma correction)",
    "oclgrind": "double",
}
ALL_ARGS = ["--d-model", "67", "--layers", "2", "--batch", "5"]  # compare -d all
# cl:cr: CLPARITY_CR_TUNE per case name, and the shapes (Oclgrind: the first two only).
CR_SETTINGS = {
    "default": "",
    "gemv": "path=gemv,wg=16,ob=2",
    "splitk": "path=splitk,split=3,wg=32,ob=4",
    "gemm": "path=gemm,tk=8",
    "cpu": "path=cpu,vw=8,rb=2",
    "stream": "path=stream,wg=16,ob=2,sg=2",
    "cpu1": "path=cpu1,vw=8,rb=2,ob=4",
    # the float32-only method (issue 34), forced on every implementation (rusticl's default), by
    # the rules (f32-item on CPUs) and in its one-launch layout (f32-stream, the rule on GPUs at
    # small batches; llvmpipe refuses it for its loop budget: n/a)
    "f32": "method=f32",
    "f32-stream": "method=f32,path=stream",
    # and in gemm's tiles (f32-gemm: the rule on GPUs past B=256 at layers up to 1024 wide)
    "f32-gemm": "method=f32,path=gemm,rm=1",
}  # the exact accumulator alone: check_cr.py's ties and special values take it on Intel's, and
#   rusticl (no fp64) runs it for every output; ctest's PoCL matrix forces it in each variant
# d = 1 and B = 64: PoCL's ctest matrix (cr/cl_matrix_pocl) has them
CR_SHAPES = ["d67_L4_B17", "d1023_L2_B5", "rect_B5"]
# pocl-basic has no cl:cr case: its kernels are PoCL's compiler's, as pocl-pthread's are
CR_ROWS = ("pocl-pthread", "intel-cpu", "rusticl", "oclgrind")
# cl:cr's training (issue 34, "Also 1"), 10 steps on each of CR_ROWS: train's own check against
# host:cr at every step and of the final state and forward, then tests/check_cr_train.py's
# independent reference on the JSON and the saved folder (tests/cli/cr_train_optim.sh, expect
# ok). Adam with L2 decay on the built-in model, Nesterov momentum on the digits model (biases,
# a rectangular layer): the trainer's certified double sums where the row has fp64, its float
# operations where they are IEEE's, the accumulator elsewhere.
CR_TRAINS = {
    "cr:train_adam_d13_L3_B5": ["--optimizer", "adam", "--weight-decay", "0.01", "--d-model", "13",
                                "--layers", "3", "--batch", "5"],
    "cr:train_nesterov_digits_B5": ["@digits.safetensors", "--optimizer", "momentum", "--nesterov",
                                    "--batch", "5", "--lr", "0.005"],
}
# tests/check_cr.py --quick on these rows: PoCL's ctest (cr/check_cl_pocl) runs all its cases,
# with the compiler that both PoCL rows share, and Oclgrind's (cr/check_cl_oclgrind) with every
# check on.
CR_CHECK_ROWS = ("intel-cpu", "rusticl")
CR_OCLGRIND = {"d1_L3_B1": None, "d67_L4_B17": ["--d-model", "67", "--layers", "1", "--batch", "5"]}


def make_models(root, models):
    """The job's model files: the rectangular MLP (an nn.Sequential's names: biases, relu
    between the layers, none after the last, no residual), its inputs, the uniform model with
    biases from tests/make_uniform_bias.py, and the digits fixture with a 17-row input."""
    os.makedirs(models, exist_ok=True)
    for name, widths, seed, batches in (("rect", RECT, 20, (1, 5, 17, 64)), ("rect_sim", RECT_SIM, 21, (1, 5, 17))):
        rng = np.random.default_rng(seed)
        t = {}
        for i, (n_in, n_out) in enumerate(zip(widths, widths[1:])):
            t[f"{2 * i}.weight"] = (rng.standard_normal((n_out, n_in)) / np.sqrt(n_in)).astype(np.float32)
            t[f"{2 * i}.bias"] = (rng.standard_normal(n_out) * 0.1).astype(np.float32)
        write_safetensors(os.path.join(models, f"{name}.safetensors"), t)
        for b in batches:
            np.save(os.path.join(models, f"{name}_x{b}.npy"), rng.standard_normal((b, widths[0])).astype(np.float32))
    subprocess.run([sys.executable, os.path.join(root, "tests", "make_uniform_bias.py"),
                    os.path.join(models, "ubias67.safetensors"), os.path.join(models, "ubias67_x64.npy"),
                    "67", "3", "64"], check=True)
    np.save(os.path.join(models, "ubias67_x17.npy"), np.load(os.path.join(models, "ubias67_x64.npy"))[:17])
    fx = os.path.join(root, "tests", "fixtures")
    for f in ("digits.safetensors", "digits_x.npy"):
        with open(os.path.join(fx, f), "rb") as src, open(os.path.join(models, f), "wb") as dst:
            dst.write(src.read())
    np.save(os.path.join(models, "digits_x17.npy"), np.load(os.path.join(fx, "digits_x.npy"))[:17])


def shape_args(args, models):
    """["@m.safetensors", "@x.npy", ...] -> --model/--input paths; other words stay."""
    out = []
    for a in args:
        if a.startswith("@"):
            p = os.path.join(models, a[1:])
            out += ["--model" if a.endswith(".safetensors") else "--input", p]
        else:
            out.append(a)
    return out


def find_rows(clp, env):
    """Each row's selector (P:D) and versions from `clparity devices --json`."""
    r = subprocess.run([clp, "devices", "--json", "-"], env=env, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"vendors: clparity devices failed ({r.returncode}): {r.stderr.strip()}")
    devs = [d for d in json.loads(r.stdout)["devices"] if d.get("kind") == "opencl"]
    found, order = {}, [f"{d['platform_index']}:{d['device_index']} {d['platform']} / {d['name']}"
                        for d in devs]
    for key, label, plat, dev, drv in ROWS:
        hits = [d for d in devs if re.search(plat, d["platform"]) and re.search(dev, d["name"])
                and re.search(drv, d["driver_version"])]
        if len(hits) == 1:
            d = hits[0]
            found[key] = {"sel": f"{d['platform_index']}:{d['device_index']}", "name": d["name"],
                          "version": d["version"], "driver": d["driver_version"],
                          "simulator": d.get("simulator", False)}
        elif hits:
            found[key] = {"error": f"{len(hits)} devices match"}
    return found, order


def load_quirks(path):
    """tests/vendor/quirks.txt: `ROW PATH REASON...` per line, # comments."""
    quirks = {}
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                row, path, *why = line.split(None, 2)
                quirks[(row, path)] = why[0] if why else ""
    return quirks


def used_path(res, prov):
    """(used, rejected, exact) of a cl:own result: its own_path where present (cl:own's
    probe), else the path named in the build options ("-cl-std=CL1.2 [reg, default: ...]";
    without brackets the naive kernel)."""
    op = res.get("own_path")
    if isinstance(op, dict):
        rej = {r.get("path"): r.get("why", "") for r in op.get("rejected") or []}
        return op.get("used"), rej, op.get("exact")
    m = re.search(r"\[([a-z0-9]+), ", prov.get("kernel_build_options", ""))
    return (m.group(1) if m else "naive"), {}, None


def launch_refused(why):
    """Whether the probe rejected a path because the device refused its launch (an n/a)."""
    return why.startswith("does not apply:")


def first_lines(text, n=3):
    return " | ".join(line for line in text.strip().splitlines()[:n])


# conda-forge's PoCL 3.0 (issue 32): its LLVM 14 does not know newer CPUs. On a Zen 5 EPYC every
# build fails cleanly ("error: unknown target CPU 'generic'"); on an AVX-512 EPYC it aborted or
# segfaulted inside LLVM, which clparity's setup child turns into a rejected path. Its cases are
# the default choice at every shape, cl:cr's default choice and the acceptance compare (ACCEPT),
# each run on a cold cache and again on the warm one; each ends exact, or refused with its
# reason (REFUSALS: a failed result whose cause names the compiler), never with a crash. The
# training cases are left out: `train` builds its kernels in-process (docs/VENDORS.md).
REFUSE_ROWS = ("pocl30",)
REFUSALS = [
    (r"error: unknown target CPU '([^']*)'", "the compiler does not know this CPU (LLVM: unknown target CPU '{0}')"),
    (r"the OpenCL compiler (crashed \([A-Z]+\)|did not finish in [0-9]+ s)", "the OpenCL compiler {0} on every kernel path"),
]
ACCEPT = {"default": [], "d1": ["--d-model", "1"], "d67": ["--d-model", "67"], "d257": ["--d-model", "257"]}
# The setup child's time limit there: PoCL 3.0's segfault came after 298 s of a build.
POCL30_ENV = {"CLPARITY_SETUP_TIMEOUT": "120"}


def refusal(row, text):
    """The reason a REFUSE_ROWS row refuses a case (a cause in its failed result), else None."""
    if row not in REFUSE_ROWS:
        return None
    for pat, fmt in REFUSALS:
        m = re.search(pat, text)
        if m:
            return fmt.format(*m.groups())
    return None


def row_env(ctx, row, extra=None):
    env = dict(ctx["env"], **(extra or {}))
    if row in REFUSE_ROWS:
        env.update(POCL30_ENV)
    return env


def run_accept(ctx, row, shape):
    """run_accept_once on a cold cache, then again on that cache: each must pass."""
    vs = [run_accept_once(ctx, row, shape, rnd) for rnd in ("cold", "warm")]
    bad = [(rnd, v) for rnd, v in zip(("cold", "warm"), vs) if v["verdict"] == "FAIL"]
    v = dict(vs[0], s=vs[0]["s"] + vs[1]["s"], cpu=vs[0]["cpu"] + vs[1]["cpu"])
    if bad:
        return dict(v, verdict="FAIL", why=f"{bad[0][0]}: {bad[0][1]['why']}", log=bad[0][1]["log"])
    if vs[0]["verdict"] != vs[1]["verdict"] or vs[0].get("why") != vs[1].get("why"):
        return dict(v, verdict="FAIL", why=f"cold {vs[0]['verdict']} ({vs[0].get('why', '')}), warm "
                    f"{vs[1]['verdict']} ({vs[1].get('why', '')})")
    return v


def run_accept_once(ctx, row, shape, round_):
    """Issue 32's acceptance 3: compare -d <row> -d <PoCL 3.1> -d host --engines
    cl:own,cl:cr,host:exact,host:cr --expect cr: exit 0, or 3 with every failed result the row's
    own refusal; PoCL 3.1's and the host's results there, every cl:own equal to host:exact and
    every cl:cr to host:cr. round_ "cold" (the first run on the job's cache) or "warm"."""
    info = ctx["rows"][row]
    base = f"{row}.accept.{shape}.{round_}"
    jpath = os.path.join(ctx["out"], "runs", base + ".json")
    p31 = ctx["found"].get("pocl-pthread")  # PoCL 3.1 beside it, in a partial run (--only) too
    p31 = p31 if p31 and "error" not in p31 else None
    sels = ["-d", info["sel"]] + (["-d", p31["sel"]] if p31 else [])
    cmd = [ctx["clp"], "compare"] + sels + ["-d", "host", "--engines", "cl:own,cl:cr,host:exact,host:cr",
                                          "--expect", "cr", "--runs", "1", "--warmup", "0",
                                          "--json", jpath] + ACCEPT[shape]
    # a cache of the shape's own (ours and PoCL's): cold for its first run, warm for its second
    cache = os.path.join(ctx["out"], "accept-cache", shape)
    r = run(cmd, row_env(ctx, row, {"XDG_CACHE_HOME": cache}), os.path.join(ctx["out"], "runs", base),
            timeout=1800)
    v = {"s": r["s"], "cpu": r["cpu"], "log": r["log"]}
    if r["rc"] not in (0, 3):
        return dict(v, verdict="FAIL", why=f"exit {r['rc']}: {first_lines(r['err'])}")
    try:
        with open(jpath) as f:
            res = json.load(f)["results"]
    except (OSError, KeyError, ValueError) as e:
        return dict(v, verdict="FAIL", why=f"unreadable {jpath}: {e}")
    def mine(x):
        return x["device"]["name"] == info["name"] and x["device"].get("driver") == info["driver"]

    failed = [x for x in res if "error" in x]
    why = [refusal(row, x["error"]) if mine(x) else None for x in failed]
    if None in why or (r["rc"] == 3) != bool(failed):
        return dict(v, verdict="FAIL", why=f"exit {r['rc']}; failed: " +
                    "; ".join(f"{x['device']['name']} {x['engine']}: {x['error'][:120]}" for x in failed))
    ran = [x for x in res if "error" not in x]
    host = [x for x in ran if x["engine"].startswith("host:")]
    want = {"cl:own": [x["hash"] for x in ran if x["engine"] == "host:exact"],
            "cl:cr": [x["hash"] for x in ran if x["engine"] == "host:cr"]}
    bad = [f"{x['device']['name']} {x['engine']}" for x in ran if x["engine"] in want and [x["hash"]] != want[x["engine"]]]
    others = {x["device"]["name"] for x in ran if not mine(x)}
    if bad or len(host) != 2 or (p31 and p31["name"] not in others):
        return dict(v, verdict="FAIL", why=f"not exact: {', '.join(bad)}" if bad else
                    "PoCL 3.1's or the host's results are missing")
    v["used"] = ", ".join(sorted(set(why))) or "exact"
    if why:
        return dict(v, verdict="refused", why=why[0])
    return dict(v, verdict="ok")


def accept_cases(row):
    if row not in REFUSE_ROWS:
        return []
    return [(f"accept:{sh}", run_accept, (sh,)) for sh in ACCEPT]


def run_compare(ctx, row, kernel, shape):
    info = ctx["rows"][row]
    args = SHAPES[shape]
    if row == "oclgrind":
        args = OCLGRIND_PATH.get(kernel, {}).get(shape) or OCLGRIND.get(shape) or args
    base = f"{row}.{kernel}.{shape}"
    jpath = os.path.join(ctx["out"], "runs", base + ".json")
    cmd = [ctx["clp"], "compare", "-d", info["sel"], "-d", "host", "--engines", "cl:own,host:exact",
           "--expect", "bitwise", "--runs", "1", "--warmup", "0", "--json", jpath]
    cmd += shape_args(args, ctx["models"])
    if info["simulator"]:
        cmd.append("--allow-slow")
    env = row_env(ctx, row)
    if kernel != "default":
        env["CLPARITY_OWN_KERNEL"] = kernel
    return check_compare(ctx, row, kernel, run(cmd, env, os.path.join(ctx["out"], "runs", base), timeout=1800), jpath)


def run(cmd, env, base, timeout=600):
    """Runs cmd with its output in files; its exit status (or "timeout"), output, seconds and
    CPU seconds (its own and its children's, from wait4)."""
    t0 = time.time()
    with open(base + ".stdout", "w") as fo, open(base + ".stderr", "w") as fe:
        p = subprocess.Popen(cmd, env=env, stdout=fo, stderr=fe)
        timer = threading.Timer(timeout, p.kill)
        timer.start()
        _, status, ru = os.wait4(p.pid, 0)
        timer.cancel()
        rc = p.returncode = os.waitstatus_to_exitcode(status)
    if rc == -signal.SIGKILL and time.time() - t0 >= timeout:
        rc = "timeout"
    with open(base + ".stdout") as fo, open(base + ".stderr") as fe:
        out, err = fo.read(), fe.read()
    with open(base + ".log", "w") as f:
        f.write(f"$ {' '.join(cmd)}\n# exit {rc}\n{out}\n--- stderr\n{err}")
    os.remove(base + ".stdout")
    os.remove(base + ".stderr")
    return {"rc": rc, "out": out, "err": err, "s": time.time() - t0, "cpu": ru.ru_utime + ru.ru_stime,
            "log": base + ".log"}


def check_compare(ctx, row, kernel, r, jpath):
    v = {"s": r["s"], "cpu": r["cpu"], "log": r["log"]}
    if r["rc"] == 2 and kernel != "default":
        m = re.search(r"CLPARITY_OWN_KERNEL=" + kernel + r"(?:: | )(.*)", r["err"])
        if m:
            return dict(v, verdict="n/a", why=m.group(1).strip())
    # A forced path whose launch the device refuses at this shape (CL_OUT_OF_RESOURCES: its
    # local tiles, say; Oclgrind's small at width 67) is not applicable there: the error is
    # named and nothing wrong is printed. The default choice must always run.
    if r["rc"] == 3 and kernel != "default" and "CL_OUT_OF_RESOURCES" in r["err"]:
        return dict(v, verdict="n/a", why="the device refuses the launch: CL_OUT_OF_RESOURCES")
    if r["rc"] == 3 and refusal(row, r["err"]):
        return dict(v, verdict="refused", why=refusal(row, r["err"]))
    if r["rc"] != 0:
        return dict(v, verdict="FAIL", why=f"exit {r['rc']}: {first_lines(r['err'])}")
    try:
        with open(jpath) as f:
            doc = json.load(f)
        own = [x for x in doc["results"] if x["engine"] == "cl:own"]
        prov = doc["provenance"]
    except (OSError, KeyError, ValueError) as e:
        return dict(v, verdict="FAIL", why=f"unreadable {jpath}: {e}")
    if len(own) != 1 or own[0]["device"]["name"] != ctx["rows"][row]["name"]:
        return dict(v, verdict="FAIL", why=f"{len(own)} cl:own results, not one on {ctx['rows'][row]['name']}")
    used, rejected, exact = used_path(own[0], prov)
    v["used"] = used
    if rejected:
        v["rejected"] = rejected
    if exact is False:
        return dict(v, verdict="FAIL", why=f"own_path says {used} is not exact")
    if kernel == "default" or used == kernel:
        return dict(v, verdict="ok")
    # The probe found the forced path's launch refused (its probe model is wider than this
    # shape: Oclgrind's small from width 31): not applicable there, as an exit 3 with
    # CL_OUT_OF_RESOURCES is above; another path gave the bits.
    if kernel in rejected and launch_refused(rejected[kernel]):
        return dict(v, verdict="n/a", why="the probe: " + rejected[kernel])
    if kernel in rejected:
        q = ctx["quirks"].get((row, kernel))
        if q is not None:
            return dict(v, verdict="quirk", why=f"rejected ({rejected[kernel]}); quirks.txt: {q}")
        return dict(v, verdict="FAIL", why=f"rejected ({rejected[kernel]}), not listed in quirks.txt")
    return dict(v, verdict="FAIL", why=f"used {used}, not the forced {kernel}, and did not reject it")


def run_cr(ctx, row, setting, shape):
    """cl:cr beside host:cr: exit 0 and the same hash; the forced variant named in the
    routine."""
    info = ctx["rows"][row]
    args = SHAPES[shape]
    if row == "oclgrind":
        args = CR_OCLGRIND.get(shape) or args
    base = f"{row}.cr.{setting}.{shape}"
    jpath = os.path.join(ctx["out"], "runs", base + ".json")
    cmd = [ctx["clp"], "compare", "-d", info["sel"], "-d", "host", "--engines", "cl:cr,host:cr",
           "--runs", "1", "--warmup", "0", "--json", jpath] + shape_args(args, ctx["models"])
    if info["simulator"]:
        cmd.append("--allow-slow")
    env = row_env(ctx, row, {"CLPARITY_CR_TUNE": CR_SETTINGS[setting]})
    r = run(cmd, env, os.path.join(ctx["out"], "runs", base), timeout=1800)
    v = {"s": r["s"], "cpu": r["cpu"], "log": r["log"]}
    if r["rc"] == 3 and refusal(row, r["err"]):
        return dict(v, verdict="refused", why=refusal(row, r["err"]))
    if r["rc"] == 2 and "CLPARITY_CR_TUNE" in r["err"] and setting != "default":
        return dict(v, verdict="n/a", why=first_lines(r["err"], 1))
    if r["rc"] != 0:
        return dict(v, verdict="FAIL", why=f"exit {r['rc']}: {first_lines(r['err'])}")
    try:
        with open(jpath) as f:
            res = {x["engine"]: x for x in json.load(f)["results"]}
        cl, host = res["cl:cr"], res["host:cr"]
    except (OSError, KeyError, ValueError) as e:
        return dict(v, verdict="FAIL", why=f"unreadable {jpath}: {e}")
    v["used"] = cl.get("routine", "")
    if cl["hash"] != host["hash"]:
        return dict(v, verdict="FAIL", why=f"cl:cr's hash {cl['hash']} is not host:cr's {host['hash']}")
    m = re.match(r"path=([a-z0-9-]+)", CR_SETTINGS[setting])
    if m and not re.match(rf"[a-z_]+\.cl {m.group(1)}:", v["used"]):  # cr.cl or cr_cpu.cl
        return dict(v, verdict="FAIL", why=f"ran {v['used']!r}, not the forced {m.group(1)}")
    # the float32 method's variants: by the rules f32 (gemv's layout), f32-stream (GPUs, small
    # batches), f32-gemm (GPUs, large batches) or f32-item (CPUs); path=stream forces
    # f32-stream, path=gemm f32-gemm
    want = {"method=f32": r"cr_f32\.cl f32(-item|-stream|-gemm)?:",
            "method=f32,path=stream": r"cr_f32\.cl f32-stream:",
            "method=f32,path=gemm,rm=1": r"cr_f32\.cl f32-gemm:"}.get(CR_SETTINGS[setting])
    if want and not re.match(want, v["used"]):
        return dict(v, verdict="FAIL", why=f"ran {v['used']!r}, not the forced float32 method")
    return dict(v, verdict="ok")


def run_check_cr(ctx, row):
    """tests/check_cr.py --quick: cl:cr against the exact rounding of Python's Fraction (the
    full 265 cases run on PoCL in ctest, cr/check_cl_pocl)."""
    base = os.path.join(ctx["out"], "runs", f"{row}.check_cr")
    r = run([sys.executable, os.path.join(ctx["root"], "tests", "check_cr.py"), ctx["clp"], base + ".d",
             "--engines", "cl:cr", "-d", ctx["rows"][row]["sel"], "--quick"], ctx["env"], base, timeout=1800)
    v = {"s": r["s"], "cpu": r["cpu"], "log": r["log"]}
    if r["rc"] != 0:
        return dict(v, verdict="FAIL", why=f"check_cr.py: exit {r['rc']}: {first_lines(r['out'] + r['err'], 4)}")
    return dict(v, verdict="ok")


def cr_cases(row):
    """(case name, fn, args) of cl:cr's cases on a row."""
    if row in REFUSE_ROWS:
        return [(f"cr:default/{sh}", run_cr, ("default", sh)) for sh in CR_SHAPES]
    if row not in CR_ROWS:
        return []
    shapes = list(CR_OCLGRIND) if row == "oclgrind" else CR_SHAPES
    out = [(f"cr:{k}/{sh}", run_cr, (k, sh)) for k in CR_SETTINGS for sh in shapes]
    out += [(name, run_cr_train, (name,)) for name in CR_TRAINS]
    if row in CR_CHECK_ROWS:
        out.append(("cr:check_cr.py", run_check_cr, ()))
    return out


def cr_all_names():
    """Every cl:cr case name of any row, in order."""
    names = []
    for row in CR_ROWS:
        names += [n for n, *_ in cr_cases(row) if n not in names]
    return names


def cr_left_out(row):
    """Why a row has no case of a cl:cr case name that other rows have."""
    if row in REFUSE_ROWS:
        return "PoCL 3.0 runs cl:cr's default choice only"
    if row == "oclgrind":
        return ("Oclgrind runs cl:cr's small shapes only (tools/ci/oclgrind.sh and ctest "
                "cr/check_cl_oclgrind check it with every check on)")
    if row not in CR_ROWS:
        return "pocl-pthread runs cl:cr's cases with the same compiler (PoCL's)"
    return "ctest's cr/check_cl_pocl runs check_cr.py's every case with PoCL's compiler"


def run_cr_train(ctx, row, name):
    """cl:cr's training beside host:cr, and both against the independent reference
    (tests/cli/cr_train_optim.sh ... ok: exit 0)."""
    info = ctx["rows"][row]
    base = os.path.join(ctx["out"], "runs", f"{row}.{name.replace(':', '_')}")
    args = ["--steps", "10", "--target", "random"] + shape_args(CR_TRAINS[name], ctx["models"])
    if info["simulator"]:
        args.append("--allow-slow")
    cmd = ["bash", os.path.join(ctx["root"], "tests", "cli", "cr_train_optim.sh"), ctx["clp"],
           sys.executable, ctx["root"], base, info["sel"], "ok", "--"] + args
    r = run(cmd, ctx["env"], base + ".check", timeout=1800)
    v = {"s": r["s"], "cpu": r["cpu"], "log": r["log"]}
    if r["rc"] != 0:
        return dict(v, verdict="FAIL", why=f"exit {r['rc']}: {first_lines(r['out'] + r['err'], 6)}")
    return dict(v, verdict="ok")


def run_train(ctx, row, name):
    info = ctx["rows"][row]
    base = f"{row}.{name}"
    save = os.path.join(ctx["out"], "runs", base)
    args = TRAINS[name]
    cmd = [ctx["clp"], "train", "-d", info["sel"], "-d", "host", "--engines", "cl:own,host:exact",
           "--target", "random", "--save", save, "--json", save + ".json"]
    if "--steps" not in args:
        cmd += ["--steps", "20"]
    cmd += shape_args(args, ctx["models"])
    if info["simulator"]:
        cmd.append("--allow-slow")
    r = run(cmd, dict(ctx["env"], **TRAIN_ENV.get(name, {})), save)
    v = {"s": r["s"], "cpu": r["cpu"], "log": r["log"]}
    if r["rc"] != 0:
        return dict(v, verdict="FAIL", why=f"exit {r['rc']}: {first_lines(r['err'])}")
    # Every recorded step of cl:own bit-identical to host:exact's; Adam's and AdamW's div/sqrt
    # way the row's own, said in the report and in the JSON.
    steps = int(args[args.index("--steps") + 1]) if "--steps" in args else 20
    try:
        with open(save + ".json") as f:
            doc = json.load(f)
        own = [x for x in doc["steps"] if x["engine"] == "cl:own"]
        res = [x for x in doc["results"] if x["engine"] == "cl:own"]
    except (OSError, KeyError, ValueError) as e:
        return dict(v, verdict="FAIL", why=f"{save}.json: {e}")
    bad = [x["step"] for x in own if x["base_max_ulp"] != 0 or x["base_bitwise"] != 1]
    if len(own) != steps or bad or len(res) != 1:
        return dict(v, verdict="FAIL", why=f"cl:own: {len(own)} of {steps} steps recorded, differing from "
                    f"host:exact at steps {bad[:5]}, {len(res)} results")
    optim = args[args.index("--optimizer") + 1] if "--optimizer" in args else "sgd"
    if optim in ("adam", "adamw"):
        want = DIVSQRT_WAY[row]
        line = f"div/sqrt: {info['sel']} {info['name']} cl:own: {want}"
        if res[0].get("div_sqrt") != want or not any(x.startswith(line) for x in (r["out"] + r["err"]).splitlines()):
            return dict(v, verdict="FAIL", why=f"div/sqrt way {res[0].get('div_sqrt')!r}, not {want!r}, "
                        f"or no line '{line}' in the report")
    c = run([sys.executable, os.path.join(ctx["root"], "tests", "check_train.py"), save, "--exact-equal"],
            ctx["env"], save + ".check")
    if c["rc"] != 0:
        return dict(v, verdict="FAIL", why=f"check_train.py: exit {c['rc']}: {first_lines(c['out'] + c['err'], 6)}")
    with open(os.path.join(save, "index.json")) as f:
        idx = json.load(f)
    files = [x["file"] for x in idx["results"] if x["engine"] == "cl:own"]
    if len(files) != 1:
        return dict(v, verdict="FAIL", why=f"{len(files)} cl:own results in {save}/index.json")
    with open(os.path.join(save, files[0]), "rb") as f:
        v["weights_sha256"] = hashlib.sha256(f.read()).hexdigest()
    return dict(v, verdict="ok")


def run_all(ctx):
    """compare -d all: one result of every row's device."""
    base = os.path.join(ctx["out"], "runs", "all")
    cmd = [ctx["clp"], "compare", "-d", "all", "--engines", "cl:own,host:exact", "--expect", "bitwise",
           "--runs", "1", "--warmup", "0", "--allow-slow", "--json", base + ".json"] + ALL_ARGS
    r = run(cmd, ctx["env"], base)
    v = {"s": r["s"], "cpu": r["cpu"], "log": r["log"]}
    try:
        with open(base + ".json") as f:
            names = {x["device"]["name"] for x in json.load(f)["results"] if x["engine"] == "cl:own"}
    except (OSError, KeyError, ValueError):
        names = set()
    try:
        with open(base + ".json") as f:
            failed = [x for x in json.load(f)["results"] if "error" in x]
    except (OSError, KeyError, ValueError):
        failed = []
    # a REFUSE_ROWS row's refusal: every failed result is of its implementation (its platform
    # and driver: PoCL 3.0's basic device too, which POCL_DEVICES gives it) with the reason
    # named; the others ran
    def refused_by(k, x):
        _, _, plat, _, drv = next(r for r in ROWS if r[0] == k)
        return (re.search(plat, x["device"].get("platform", "")) and
                re.search(drv, x["device"].get("driver", "")) and refusal(k, x["error"]))
    refused = {k for k in REFUSE_ROWS if k in ctx["rows"] and failed and all(refused_by(k, x) for x in failed)}
    missing = [k for k in ctx["rows"] if ctx["rows"][k]["name"] not in names and k not in refused]
    if r["rc"] != 0 and not (r["rc"] == 3 and refused):
        return dict(v, verdict="FAIL", why=f"exit {r['rc']}: {first_lines(r['err'])}")
    if missing:
        return dict(v, verdict="FAIL", why=f"no result of {', '.join(missing)}")
    return dict(v, verdict="ok")


def shapes_of(kernel):
    """The shapes a kernel choice runs. The paths whose build options depend on the widths
    (small, pipe, reg: the widest layer; stream: the batch) take a compile per shape, 20-50 s
    each on PoCL: they run the shapes that cover every width (the rectangular model holds
    1, 67, 1023, 3 and 257) and every batch once, the rest run all of SHAPES."""
    if kernel in ("small", "pipe", "reg", "stream"):
        return ["d3_L5_B5", "bias67_L3_B64", "rect_B1", "rect_B17", "digits_B450"]
    return list(SHAPES)


def run_lanes(queues, jobs):
    """Runs each row's tasks in order, `jobs` rows at a time: one row's runs follow each other,
    so that each build is cached before the next run of its options (two runs of one row at
    once would both miss). A lane without a row left takes tasks from the end of the longest
    queue."""
    lock = threading.Lock()
    pending = sorted(queues, key=lambda k: ORDER.index(k))
    left = {k: list(v) for k, v in queues.items()}
    res = {}

    def lane():
        mine = None
        while True:
            with lock:
                if mine is None or not left[mine]:  # the next row with tasks (--cases may empty one)
                    mine = None
                    while pending and mine is None:
                        k = pending.pop(0)
                        mine = k if left[k] else None
                if mine is not None:
                    name, fn, args = left[mine].pop(0)
                    row = mine
                else:
                    rest = [k for k in left if left[k]]
                    if not rest:
                        return
                    row = max(rest, key=lambda k: len(left[k]))
                    name, fn, args = left[row].pop()
            res[(row, name)] = fn(*args)

    threads = [threading.Thread(target=lane) for _ in range(jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return res


def cell(v, notes):
    if v is None:
        return "MISSING"
    if v["verdict"] == "ok":
        return "ok" + (f" {v['used']}" if v.get("show_used") else "") + ("*" if v.get("rejected") else "")
    key = v.get("why", "")
    if key not in notes:
        notes[key] = len(notes) + 1
    return f"{v['verdict']}[{notes[key]}]"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("out")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", help="comma list of rows (a partial run: missing rows then fail)")
    ap.add_argument("--cases", help="a regular expression: only the cases it finds (a partial run, "
                    "by hand; no compare -d all)")
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = os.path.abspath(a.out)
    os.makedirs(os.path.join(out, "runs"), exist_ok=True)
    ctx = {"root": root, "out": out, "clp": os.path.abspath(os.path.join(a.build, "clparity")),
           "models": os.path.join(out, "models"), "env": dict(os.environ),
           "quirks": load_quirks(os.path.join(root, "tests", "vendor", "quirks.txt"))}
    for k in [k for k in ctx["env"] if k.startswith("CLPARITY_")]:
        del ctx["env"][k]
    make_models(root, ctx["models"])
    found, order = find_rows(ctx["clp"], ctx["env"])
    print("vendors: OpenCL devices in ocl-icd's order:")
    for o in order:
        print(f"  {o}")
    only = a.only.split(",") if a.only else [k for k, *_ in ROWS]
    ctx["found"] = found
    ctx["rows"] = {k: found[k] for k, *_ in ROWS if k in only and k in found and "error" not in found[k]}
    print("vendors: rows")
    for key, label, *_ in ROWS:
        f = found.get(key)
        if f and "error" not in f:
            print(f"  {key:13s} {f['sel']:4s} {f['name']} | {f['version']} | driver {f['driver']}")
        else:
            print(f"  {key:13s} MISSING ({f['error'] if f else 'no such device: run tools/setup.sh --vendors and source build/vendors/env.sh'})")

    t0, load0 = time.time(), os.getloadavg()[0]
    queues = {row: [(name, run_train, (ctx, row, name)) for name in TRAINS
                    if row not in REFUSE_ROWS and row in TRAIN_ROWS.get(name, (row,))] +
              [(f"{k}/{sh}", run_compare, (ctx, row, k, sh)) for k in KERNELS for sh in shapes_of(k)
               if k == "default" or row not in REFUSE_ROWS] +
              [(name, fn, (ctx, row) + args) for name, fn, args in cr_cases(row)]
              for row in ctx["rows"]}
    for row in queues:  # first: its cold runs on caches of their own
        queues[row][:0] = [(name, fn, (ctx, row) + args) for name, fn, args in accept_cases(row)]
    if a.cases:
        queues = {row: [t for t in q if re.search(a.cases, t[0])] for row, q in queues.items()}
    res = run_lanes(queues, a.jobs)
    # cl:cr's cases that a row leaves out (Oclgrind's large shapes, check_cr.py on PoCL and
    # Oclgrind): n/a, covered elsewhere (cr_left_out).
    all_cr = set(cr_all_names())
    for row in ctx["rows"]:
        mine = {name for name, *_ in cr_cases(row)}
        for name in all_cr - mine:
            if a.cases and not re.search(a.cases, name):
                continue
            res[(row, name)] = {"verdict": "n/a", "s": 0.0, "cpu": 0.0, "why": cr_left_out(row)}
    # Training cases that a row leaves out (TRAIN_ROWS): n/a, with the reason
    for row in ctx["rows"]:
        for name, rows in TRAIN_ROWS.items():
            if row not in rows and row not in REFUSE_ROWS and not (a.cases and not re.search(a.cases, name)):
                res[(row, name)] = {"verdict": "n/a", "s": 0.0, "cpu": 0.0, "why": TRAIN_LEFT_OUT}
    # PoCL 3.0's left-out cases, and its acceptance cases on the other rows: n/a
    acc = [name for row in REFUSE_ROWS for name, *_ in accept_cases(row)]
    for row in ctx["rows"]:
        left = ([name for name in TRAINS] + [f"{k}/{sh}" for k in KERNELS if k != "default"
                                             for sh in shapes_of(k)]) if row in REFUSE_ROWS else acc
        for name in left:
            if not (a.cases and not re.search(a.cases, name)) and (row, name) not in res:
                res[(row, name)] = {"verdict": "n/a", "s": 0.0, "cpu": 0.0, "why":
                                    "PoCL 3.0 runs the default choice, cl:cr's and the acceptance compare "
                                    "(docs/VENDORS.md)" if row in REFUSE_ROWS else "PoCL 3.0's case"}
    if ctx["rows"] and not a.cases:
        res[("-d all", "compare -d all")] = run_all(ctx)
    wall = time.time() - t0
    cpu = sum(v.get("cpu", 0.0) for v in res.values())

    # The trained weights: the same bits on every row (each equals host:exact's already).
    for name in TRAINS:
        shas = {row: res[(row, name)].get("weights_sha256") for row in ctx["rows"]
                if (row, name) in res and res[(row, name)]["verdict"] == "ok"}
        if len(set(shas.values())) > 1:
            for row in shas:
                res[(row, name)] = dict(res[(row, name)], verdict="FAIL",
                                        why="trained weights differ between rows: " +
                                        ", ".join(f"{r} {s[:12]}" for r, s in shas.items()))

    cases = [f"{k}/{sh}" for k in KERNELS for sh in shapes_of(k)] + list(TRAINS)
    cases += cr_all_names()
    cases += [name for row in REFUSE_ROWS for name, *_ in accept_cases(row)]
    if a.cases:
        cases = [c for c in cases if re.search(a.cases, c)]
    keys = [k for k, *_ in ROWS]
    notes, lines = {}, []
    width = max(len(c) for c in cases) + 1
    head = f"{'case':{width}s}" + "".join(f"{k:>14s}" for k in keys)
    lines.append(head)
    failed = 0
    for c in cases:
        cells = []
        for k in keys:
            v = res.get((k, c))
            if v and c.startswith("default/") and v["verdict"] == "ok":
                v = dict(v, show_used=True)
            cells.append(cell(v, notes))
            failed += v is None or v["verdict"] not in ("ok", "n/a", "quirk", "refused")
        lines.append(f"{c:{width}s}" + "".join(f"{x:>14s}" for x in cells))
    if not a.cases:
        va = res.get(("-d all", "compare -d all"))
        lines.append(f"{'compare -d all':{width}s}{cell(va, notes):>14s} (one run, every row)")
        failed += va is None or va["verdict"] != "ok"
    print("\nvendors: the matrix (ok; default: ok and the path it took; *: the probe rejected a "
          "path on the way, listed below; n/a, quirk and FAIL: see the notes)")
    print("\n".join(lines))
    if notes:
        print("\nnotes:")
        for why, n in notes.items():
            where = [f"{k}:{c}" for (k, c), v in res.items() if v.get("why", "") == why and v["verdict"] != "ok"]
            print(f"  [{n}] {why}\n      ({len(where)}: {', '.join(where[:6])}{' ...' if len(where) > 6 else ''})")
    # What cl:own's probe rejected anywhere (the default choice included), with the reasons.
    rejections = {}
    for (k, c), v in res.items():
        for path, why in (v.get("rejected") or {}).items():
            rejections.setdefault((k, path, why), []).append(c)
    if rejections:
        print("\nvendors: paths that cl:own's probe rejected:")
        for (k, path, why), where in sorted(rejections.items()):
            listed = ("listed in quirks.txt" if (k, path) in ctx["quirks"]
                      else "n/a: its launch refused" if launch_refused(why)
                      else "NOT in quirks.txt")
            print(f"  {k} {path} ({listed}): {why} ({len(where)} runs: {', '.join(where[:4])}"
                  f"{' ...' if len(where) > 4 else ''})")
    counts = {}
    for v in res.values():
        counts[v["verdict"]] = counts.get(v["verdict"], 0) + 1
    missing = [k for k in keys if k not in ctx["rows"]]
    print(f"\nvendors: {len(res)} runs in {wall:.0f} s ({cpu:.0f} CPU s) with {a.jobs} at a time: " +
          ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) +
          (f"; rows missing: {', '.join(missing)}" if missing else "") +
          f" (load average {load0:.1f} at the start, {os.getloadavg()[0]:.1f} at the end, {os.cpu_count()} CPUs)")
    for row in ctx["rows"]:
        mine = [v for (k, _), v in res.items() if k == row]
        print(f"vendors: {row}: {len(mine)} runs, {sum(v['s'] for v in mine):.0f} s, "
              f"{sum(v.get('cpu', 0) for v in mine):.0f} CPU s")
    slow = sorted(res.items(), key=lambda kv: -kv[1]["s"])[:5]
    print("vendors: the longest runs: " + ", ".join(f"{k}:{c} {v['s']:.0f} s" for (k, c), v in slow))
    with open(os.path.join(out, "matrix.json"), "w") as f:
        json.dump({"rows": {k: found.get(k) for k in keys}, "order": order, "wall_s": wall,
                   "results": [dict(v, row=k, case=c) for (k, c), v in res.items()]}, f, indent=1)
    with open(os.path.join(out, "matrix.md"), "w") as f:
        f.write("| case | " + " | ".join(keys) + " |\n|---|" + "---|" * len(keys) + "\n")
        for line, c in zip(lines[1:], cases):
            f.write(f"| {c} | " + " | ".join(cell(res.get((k, c)), notes) for k in keys) + " |\n")
        f.write("\n" + "\n".join(f"[{n}] {why}" for why, n in notes.items()) + "\n")
    ok = not failed and not missing
    print("vendors: PASS" if ok else f"vendors: FAIL ({failed} cases failed or missing"
          f"{', rows missing: ' + ', '.join(missing) if missing else ''})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
