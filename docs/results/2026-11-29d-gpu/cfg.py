#!/usr/bin/env python3
"""Times cl:own and cl:cr side by side in one process per configuration on the GPU (issue 34):
   cfg.py OUT_FILE D L B [NAME=TUNE ...]   (TUNE: a CLPARITY_CR_TUNE value, '-' for none; a NAME
   starting with 'old' runs with CLPARITY_KERNEL_DIR=oldk, the kernels of main 83c9ade (made by
   `mkdir oldk && git archive 83c9ade clkernels | tar x -C oldk --strip-components=1`), and one
   starting with 'old' or holding 'full' with CLPARITY_TEST_HOOK=cr-bound-in, the bound of any
   order, cr_err_scale(in), as main 83c9ade has it; run3.sh ran a binary that read
   CR_DEPTH_FULL=1 for it instead, before the hook had its name)
Prints a line per configuration: name, cl:own and cl:cr median wall ms, cl:cr kernel ms, own/cr,
cl:cr's hash and routine."""
import json, os, subprocess, sys, tempfile

out, d, L, B = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
dev = os.environ.get("DEV", "NVIDIA")
mt = os.environ.get("MINTIME", "0.3")
with open(out, "a") as f:
    for spec in sys.argv[5:]:
        name, tune = spec.split("=", 1)
        env = dict(os.environ)
        if tune != "-":
            env["CLPARITY_CR_TUNE"] = tune
        if name.startswith("old"):
            env["CLPARITY_KERNEL_DIR"] = os.path.abspath("oldk")
        if name.startswith("old") or "full" in name:  # the bound of any order (main 83c9ade's)
            env["CLPARITY_TEST_HOOK"] = "cr-bound-in"
        js = tempfile.mktemp(suffix=".json")
        cmd = [os.environ.get("CLP", "build/clparity"), "run", "-d", dev, "--engines", "cl:own,cl:cr", "--d-model", d,
               "--layers", L, "--batch", B, "--no-reference", "--min-time", mt, "--json", js]
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=240)
        if p.returncode != 0:
            f.write(f"d={d} L={L} B={B} {name:<14} {tune:<28} FAILED rc={p.returncode}: "
                    f"{(p.stderr or p.stdout)[-300:]}\n")
            f.flush()
            continue
        j = json.load(open(js))
        r = {x["engine"]: x for x in j["results"]}
        o, c = r["cl:own"]["timing"], r["cl:cr"]["timing"]
        f.write(f"d={d} L={L} B={B} {name:<14} {tune:<28} own {o['wall_median_s']*1e3:9.4f} "
                f"cr {c['wall_median_s']*1e3:9.4f} crk {c['kernel_median_s']*1e3:9.4f} "
                f"own/cr {o['wall_median_s']/c['wall_median_s']:6.3f} runs {c['runs']:3d} "
                f"hash {r['cl:cr']['hash']} {r['cl:cr']['routine']}\n")
        f.flush()
