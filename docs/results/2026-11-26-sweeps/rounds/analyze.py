import json, sys
out, n = sys.argv[1], int(sys.argv[2])
summ = []
for i in range(1, n + 1):
    d = json.load(open(f"{out}/s{i}.json"))
    c = d["crossovers"][0]
    med = {(r["engine"], r["point"]["batch"]): r["timing"]["wall_median_s"] for r in d["results"] if r["status"] == "ok"}
    rm = {(r["engine"], r["point"]["batch"]): r["timing"]["round_medians_s"] for r in d["results"] if r["status"] == "ok"}
    win = {}
    for x in d["sweep"]["grid"]:
        if x in c["within_noise"]:
            win[x] = "="
        else:
            a, b = med[(c["a"]["engine"], x)], med[(c["b"]["engine"], x)]
            win[x] = "O" if a < b else "B"   # O: cl:own, B: host:openblas
    cr = tuple((x["at"], c[x["faster"]]["engine"]) for x in c["crossings"])
    summ.append((cr, win))
    ob = ["%.3f" % (v * 1e3) for v in rm[("host:openblas", 1)]]
    co = ["%.3f" % (v * 1e3) for v in rm[("cl:own", 1)]]
    print(i, "crossings:", cr or "none", " per point:", "".join(win[x] for x in d["sweep"]["grid"]), " B=1 own", co, "oblas", ob)
agree = sum(summ[i][0] == summ[i + 1][0] for i in range(n - 1))
contra = 0
for i in range(n):
    for j in range(i + 1, n):
        for x in summ[i][1]:
            a, b = summ[i][1][x], summ[j][1].get(x)
            if a != "=" and b not in (None, "=") and a != b:
                contra += 1
print(f"back-to-back pairs with the same crossings: {agree} of {n - 1}; contradictions (a point called O by one sweep, B by another): {contra}")
