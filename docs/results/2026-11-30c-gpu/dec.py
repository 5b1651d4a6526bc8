#!/usr/bin/env python3
"""Times cl:own and cl:cr side by side in one `clparity run` per configuration (issue 34):
   dec.py OUT_FILE D L B [NAME=KDIR:TUNE ...]
KDIR: a kernel folder for CLPARITY_KERNEL_DIR ('-': the binary's own); TUNE: CLPARITY_CR_TUNE
('-': none). Every run has CLPARITY_OWN_PROBE=off, so that mkvar.py's timing-only cuts (wrong
outputs) are not refused by the probe. Prints a line per configuration: name, cl:own and cl:cr
median wall ms, cl:cr kernel ms, own/cr, cl:cr's hash and routine."""
import json, os, subprocess, sys, tempfile

out, d, L, B = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
dev = os.environ.get("DEV", "NVIDIA")
mt = os.environ.get("MINTIME", "0.3")
with open(out, "a") as f:
    for spec in sys.argv[5:]:
        name, rest = spec.split("=", 1)
        kdir, tune = rest.split(":", 1)
        env = dict(os.environ, CLPARITY_OWN_PROBE="off")
        if tune != "-":
            env["CLPARITY_CR_TUNE"] = tune
        if kdir != "-":
            env["CLPARITY_KERNEL_DIR"] = os.path.abspath(kdir)
        js = tempfile.mktemp(suffix=".json")
        cmd = [os.environ.get("CLP", "build/clparity"), "run", "-d", dev, "--engines", "cl:own,cl:cr",
               "--d-model", d, "--layers", L, "--batch", B, "--no-reference", "--min-time", mt,
               "--json", js]
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=240)
        if p.returncode != 0:
            f.write(f"d={d} L={L} B={B} {name:<16} {tune:<20} FAILED rc={p.returncode}: "
                    f"{(p.stderr or p.stdout)[-300:]}\n")
            f.flush()
            continue
        j = json.load(open(js))
        r = {x["engine"]: x for x in j["results"]}
        o, c = r["cl:own"]["timing"], r["cl:cr"]["timing"]
        f.write(f"d={d} L={L} B={B} {name:<16} {tune:<20} own {o['wall_median_s']*1e3:9.4f} "
                f"cr {c['wall_median_s']*1e3:9.4f} crk {c['kernel_median_s']*1e3:9.4f} "
                f"own/cr {o['wall_median_s']/c['wall_median_s']:6.3f} runs {c['runs']:3d} "
                f"hash {r['cl:cr']['hash']} {r['cl:cr']['routine']}\n")
        f.flush()
