#!/usr/bin/env python3
"""cl:own / cl:cr on PoCL, side by side: ROUNDS rounds of one clparity process with both engines
(the order alternating), the ratio per round (wall and kernel medians); also cl:cr forced to its
old per-layer path cpu in its own process each round. Usage: pc_bench.py CLP OUTDIR ROUNDS RUNS"""
import json, os, statistics as st, subprocess, sys
clp, out, rounds, runs = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
os.makedirs(out, exist_ok=True)
shapes = {"ref d=128 L=128 B=1": [], "d=512 L=8 B=64": ["--d-model", "512", "--layers", "8", "--batch", "64"]}
rows = []
SETTINGS = ("", "path=cpu", "path=cpu1,rb=8,ob=2")
for name, args in shapes.items():
    for r in range(rounds):
        for setting in SETTINGS:
            if name.startswith("ref") and "rb=8" in setting:
                continue
            eng = "cl:own,cl:cr" if r % 2 == 0 else "cl:cr,cl:own"
            j = os.path.join(out, f"{name.split()[0]}_{r}_{setting or 'default'}.json".replace("=", ""))
            env = dict(os.environ, CLPARITY_CR_TUNE=setting)
            subprocess.run([clp, "run", "-d", "portable", "--engines", eng, "--runs", runs, "--json", j] + args,
                           env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            res = {x["engine"]: x for x in json.load(open(j))["results"]}
            o, c = res["cl:own"], res["cl:cr"]
            assert o["timing"]["runs"] and c["hash"], j
            rows.append(dict(shape=name, round=r, cr=setting or "default", own_path=o["routine"], cr_routine=c["routine"],
                             own_ms=o["timing"]["wall_median_s"] * 1e3, cr_ms=c["timing"]["wall_median_s"] * 1e3,
                             own_min=o["timing"]["wall_min_s"] * 1e3, cr_min=c["timing"]["wall_min_s"] * 1e3,
                             own_k=o["timing"]["kernel_median_s"] * 1e3, cr_k=c["timing"]["kernel_median_s"] * 1e3,
                             cr_hash=c["hash"]))
with open(os.path.join(out, "rounds.tsv"), "w") as f:
    keys = list(rows[0])
    f.write("\t".join(keys) + "\n")
    for x in rows:
        f.write("\t".join(f"{x[k]:.4f}" if isinstance(x[k], float) else str(x[k]) for k in keys) + "\n")
for name in shapes:
    for setting in [s or "default" for s in SETTINGS]:
        xs = [x for x in rows if x["shape"] == name and x["cr"] == setting]
        if not xs:
            continue
        hs = {x["cr_hash"] for x in xs}
        med = lambda k: st.median(x[k] for x in xs)
        print(f"{name:22s} cl:cr {setting:19s} ({xs[0]['cr_routine'][:22]}; own {xs[0]['own_path']}): "
              f"own {med('own_ms'):.3f} cr {med('cr_ms'):.3f} ms, own/cr wall {st.median(x['own_ms']/x['cr_ms'] for x in xs):.3f} "
              f"(min {st.median(x['own_min']/x['cr_min'] for x in xs):.3f}), kernel own {med('own_k'):.3f} cr {med('cr_k'):.3f} "
              f"own/cr {st.median(x['own_k']/x['cr_k'] for x in xs):.3f}; hashes {len(hs)}")
