#!/usr/bin/env python3
"""The build options of cl:own's run (the --json provenance's kernel_build_options) against what
the test meant to build, printing both on failure.

Usage:
  check_built.py JSON --regex REGEX
      the options must match REGEX (re.search).
  check_built.py JSON --cpug D B
      cp_cpu_grid (CLPARITY_OWN_KERNEL=cpug) at max width D and batch B: the vector width
      CP_VW and the vectors per work-item CP_NV must be those that runtime/opencl/tune.c and
      cpug_shape (runtime/opencl/engine_cl.c) give on the device the test ran on, platform 0 device 0
      of this environment. Its preferred float vector width and compute units are read with
      `clinfo --raw`, so that the same test holds on 8- and 16-wide devices and on any
      POCL_MAX_PTHREAD_COUNT; vw= and gu= in CLPARITY_OWN_TUNE apply as in the runtime.
  check_built.py --cpug-coverage CUS "D L B GU"...
      no device: the shapes of the exact/cpug16_* tests, run through the same rule at CUS
      compute units for both vector widths (8: AVX2; 16: AVX-512), must give CP_NV 4, 2 and 1
      at gu=1, and at each gu > 1 some shape narrower than gu=1 gives (the narrowing is what
      they test), whatever the width of the machine that runs them.
Exit status 0 when the options are as expected, 1 otherwise."""
import json
import os
import re
import subprocess
import sys


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def tune_env():
    """CLPARITY_OWN_TUNE's name=value pairs (the runtime rejects malformed ones first)."""
    spec = os.environ.get("CLPARITY_OWN_TUNE", "")
    return dict(p.split("=", 1) for p in spec.split(",") if "=" in p)


def default_vw(pref_vec):
    """runtime/opencl/tune.c, cp_tune_get: vw from the device's preferred float vector width."""
    return 16 if pref_vec >= 16 else 8


def cpu_rows(batch):
    """runtime/opencl/engine_cl.c, cpu_rows: rows per work-item."""
    return 4 if batch >= 4 else 2 if batch >= 2 else 1


def cpug_nv(max_width, batch, vw, cus, gu):
    """runtime/opencl/engine_cl.c, cpug_shape: 4 vectors per work-item where the widest layer gives
    every compute unit gu units (panels of vw * nv outputs x row blocks), else 2, else 1."""
    rb = cpu_rows(batch)
    blocks = (batch + rb - 1) // rb
    for nv in (4, 2, 1):
        nr = vw * nv
        units = (max_width + nr - 1) // nr * blocks
        if units >= gu * cus:
            break
    return nv


def clinfo_prop(name):
    argv = ["clinfo", "--raw", "-d", "0:0", "--prop", name]
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    except OSError as e:
        fail(f"cannot run clinfo: {e}")
    m = re.search(r"^\S+\s+" + name + r"\s+(\d+)\s*$", p.stdout, re.M)
    if not m:
        fail(f"no {name} in the output of {' '.join(argv)}:\n{p.stdout}{p.stderr}")
    return int(m.group(1))


def stored_tune():
    """The store `clparity tune` writes, if the run could have read one."""
    if os.environ.get("CLPARITY_CACHE", "").lower() in ("off", "0", "no", "false"):
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.environ.get("HOME", ""), ".cache")
    path = os.path.join(base, "clparity", "tune.json")
    return path if os.path.exists(path) else None


def check_cpug(opts, d, b):
    tune = tune_env()
    pref = clinfo_prop("CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT")
    cus = clinfo_prop("CL_DEVICE_MAX_COMPUTE_UNITS")
    gu = int(tune.get("gu", 1))
    if "vw" in tune:
        vw, why_vw = int(tune["vw"]), "vw from CLPARITY_OWN_TUNE"
    else:
        store = stored_tune()
        if store:
            fail(f"a stored tune setting ({store}) may set vw: this check assumes the "
                 f"device's default; run with an empty XDG_CACHE_HOME")
        vw, why_vw = default_vw(pref), f"preferred float vector width {pref}"
    nv = cpug_nv(d, b, vw, cus, gu)
    want = {"VW": vw, "NV": nv, "RB": cpu_rows(b)}
    got = {k: re.search(rf"-DCP_{k}=(\d+)", opts) for k in want}
    print(f"device 0:0: {why_vw}, {cus} compute units; d={d} B={b} gu={gu}: "
          f"expect CP_VW={vw} CP_NV={nv} CP_RB={want['RB']}")
    print(f"built: {opts}")
    bad = [f"CP_{k}={got[k].group(1) if got[k] else 'missing'} (expected {v})"
           for k, v in want.items() if not got[k] or int(got[k].group(1)) != v]
    if "[cpug," not in opts or "-DCP_GRID" not in opts:
        bad.append("not cp_cpu_grid's build ([cpug, ... -DCP_GRID)")
    if bad:
        fail("; ".join(bad))
    print("ok")


def coverage(cus, shapes):
    ok = True
    for vw in (8, 16):
        at = {}
        for s in shapes:
            d, _, b, gu = (int(x) for x in s.split())
            at.setdefault(gu, []).append((s, cpug_nv(d, b, vw, cus, gu), cpug_nv(d, b, vw, cus, 1)))
        for gu, rows in sorted(at.items()):
            print(f"vw={vw} gu={gu}: " + ", ".join(f"[{s}] CP_NV={nv}" for s, nv, _ in rows))
        got1 = {nv for _, nv, _ in at.get(1, [])}
        if got1 != {1, 2, 4}:
            print(f"FAIL: vw={vw}: the gu=1 shapes give CP_NV {sorted(got1)}, not 1, 2 and 4")
            ok = False
        for gu in (2, 4):
            if not any(nv < nv1 for _, nv, nv1 in at.get(gu, [])):
                print(f"FAIL: vw={vw}: no gu={gu} shape narrows CP_NV below gu=1's")
                ok = False
    if not ok:
        sys.exit(1)
    print("ok")


def main():
    a = sys.argv[1:]
    if len(a) >= 2 and a[0] == "--cpug-coverage":
        coverage(int(a[1]), a[2:])
        return
    if len(a) < 3:
        fail(__doc__)
    try:
        with open(a[0]) as f:
            opts = json.load(f)["provenance"]["kernel_build_options"]
    except (OSError, ValueError, KeyError) as e:
        fail(f"{a[0]}: no kernel_build_options ({e})")
    if a[1] == "--regex" and len(a) == 3:
        if not re.search(a[2], opts):
            fail(f"the build options do not match /{a[2]}/: {opts}")
        print(f"ok: /{a[2]}/ in {opts}")
    elif a[1] == "--cpug" and len(a) == 4:
        check_cpug(opts, int(a[2]), int(a[3]))
    else:
        fail(__doc__)


if __name__ == "__main__":
    main()
