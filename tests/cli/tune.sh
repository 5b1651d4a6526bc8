#!/bin/sh
# clparity tune on PoCL: it times the candidates of cl:own and cl:cr, stores the fastest for the
# device, and cl:own and cl:cr then use it ("tuned" in their build options); CLPARITY_CACHE=off
# ignores the store, and CLPARITY_OWN_TUNE and CLPARITY_CR_TUNE override it. A cl:cr setting
# whose output is not host:cr's (test hook corrupt-cl-cr) fails tune, and nothing is stored.
# Usage: tune.sh CLPARITY PYTHON SCRATCH
set -u
clp=$1 py=$2 base=$3
rm -rf "$base" && mkdir -p "$base" || exit 1
export XDG_CACHE_HOME="$base/xdg"
# 2 compute units: at d=64 B=64 cl:own takes the vec path (the one `tune` tunes) there; with 8
# or more it would take cpu1 (engine_cl.c, cpu_choose_path), so the checks below would depend on
# the machine's cores.
export POCL_MAX_PTHREAD_COUNT=2
fail() { echo "FAIL: $*"; exit 1; }

"$clp" tune -d 0 --quick --runs 1 --warmup 0 --json "$base/tune.json" >"$base/out.txt" ||
    fail "tune failed"
cat "$base/out.txt"
grep -Eq '^0:0 +pthread-.* cl:own +vec +best: vw=(4|8|16),rb=(2|4|8|12|16),nv=(1|2|4),mc=[0-9]+$' "$base/out.txt" ||
    fail "no best line"
grep -Eq '^0:0 +pthread-.* cl:cr +cpu1 +best: vw=(4|8|16),rb=(1|2|4),ob=(2|4|8)$' "$base/out.txt" ||
    fail "no cl:cr best line"
grep -Eq '^stored for pthread-.* [(]cl:cr[)]: vw=(4|8|16),rb=(1|2|4),ob=(2|4|8)$' "$base/out.txt" ||
    fail "no cl:cr stored line"
"$py" - "$base/tune.json" "$XDG_CACHE_HOME/clparity/tune.json" <<'PY' || fail "JSON"
import json, sys
run = json.load(open(sys.argv[1]))
assert run["schema"] == 1 and "provenance" in run, run.keys()
dev = run["devices"][0]
c = [x for x in dev["candidates"] if x["engine"] == "cl:own"]
cr = [x for x in dev["candidates"] if x["engine"] == "cl:cr"]
assert len(c) + len(cr) == len(dev["candidates"]), dev["candidates"]
assert len(c) == 4 and all(x["same_bits"] and x["median_ms"] > 0 for x in c), c
best = min(c, key=lambda x: x["median_ms"])["params"]
assert dev["stored"] and best in dev["chosen"], (best, dev["chosen"])
# cl:cr: the cpu1 variant's 3 quick settings, each with host:cr's bits; the best stored, no path
assert len(cr) == 3 and all(x["path"] == "cpu1" and x["same_bits"] and x["median_ms"] > 0
                            for x in cr), cr
assert dev["chosen_cr"] == min(cr, key=lambda x: x["median_ms"])["params"], dev["chosen_cr"]
store = json.load(open(sys.argv[2]))
(key, entry), = store.items()
assert key == dev["device"] and entry["params"] == dev["chosen"], (key, entry)
assert entry["cr_params"] == dev["chosen_cr"], (entry, dev["chosen_cr"])
print("ok: stored", entry["params"], "and for cl:cr", entry["cr_params"])
with open(sys.argv[1] + ".cr", "w") as f:
    f.write(entry["cr_params"].replace(",", " ").replace("=", " ") + "\n")
PY
read -r _ vw _ rb _ ob <"$base/tune.json.cr"
store=$XDG_CACHE_HOME/clparity/tune.json
cp "$store" "$base/stored.json"
# The build options of ENGINE at d=64 L=2 B=BATCH: opts_of ENGINE BATCH.
opts_of() { "$clp" run -d 0 --engines "$1" --d-model 64 --layers 2 --batch "$2" --json - 2>/dev/null |
    "$py" -c 'import json,sys; print(json.load(sys.stdin)["provenance"]["kernel_build_options"])'; }
opts() { opts_of cl:own 64; }
o=$(opts)
echo "$o" | grep -q '\[vec, tuned: ' || fail "cl:own does not use the stored setting: $o"
o=$(CLPARITY_CACHE=off opts)
echo "$o" | grep -q '\[vec, default: ' || fail "CLPARITY_CACHE=off still reads the store: $o"
o=$(CLPARITY_OWN_TUNE=vw=4,rb=2 opts)
echo "$o" | grep -q '\[vec, CLPARITY_OWN_TUNE: .*-DCP_VW=4 -DCP_RB=2' || fail "override: $o"
o=$(CLPARITY_OWN_TUNE=nv=4,mc=32 opts)
echo "$o" | grep -q '\[vec, CLPARITY_OWN_TUNE: .*-DCP_NV=4' || fail "override nv: $o"
# cl:cr: the stored vw, rb and ob (at B=64 rb is not capped: the default there is 4).
cropts() { opts_of cl:cr "${1:-64}"; }
o=$(cropts)
echo "$o" | grep -q "\[cr cpu1, tuned: .*-DCR_OB=$ob .*-DCR_VW=$vw -DCR_RB=$rb " ||
    fail "cl:cr does not use the stored vw=$vw,rb=$rb,ob=$ob: $o"
o=$(CLPARITY_CACHE=off cropts)
echo "$o" | grep -q '\[cr cpu1, default: .*-DCR_OB=4 .*-DCR_VW=8 -DCR_RB=4 ' || fail "cl:cr: CLPARITY_CACHE=off still reads the store: $o"
o=$(CLPARITY_CR_TUNE=vw=8,rb=2 cropts)
echo "$o" | grep -q '\[cr cpu1, CLPARITY_CR_TUNE: .*-DCR_VW=8 -DCR_RB=2 ' || fail "cl:cr override: $o"
# A stored rb is the most rows per work-item: B=1 takes 1 (vw=8,rb=1,ob=8 was a candidate, so
# built).
setcr() { "$py" - "$store" "$1" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for e in j.values():
    e["cr_params"] = sys.argv[2]
json.dump(j, open(sys.argv[1], "w"))
PY
}
setcr vw=8,rb=4 && o=$(cropts 1)
echo "$o" | grep -q '\[cr cpu1, tuned: .*-DCR_OB=8 .*-DCR_VW=8 -DCR_RB=1 ' || fail "cl:cr: a stored rb at B=1: $o"
# A stored list that names the variant (tune never stores one) or does not parse is ignored.
setcr path=gemv,vw=8 && o=$(cropts)
echo "$o" | grep -q '\[cr cpu1, default: ' || fail "cl:cr: a stored path is used: $o"
setcr vw=5 && o=$(cropts)
echo "$o" | grep -q '\[cr cpu1, default: ' || fail "cl:cr: a stored vw=5 is used: $o"
cp "$base/stored.json" "$store"
# A planted bit in cl:cr's output (test hook corrupt-cl-cr): every cl:cr row says so, status 1,
# the store as it was.
CLPARITY_TEST_HOOK=corrupt-cl-cr "$clp" tune -d 0 --quick --runs 1 --warmup 0 >"$base/planted.txt" 2>&1
rc=$?
[ $rc = 1 ] && [ "$(grep -c 'cl:cr  cpu1 .*  OUTPUT DIFFERS from host:cr$' "$base/planted.txt")" = 3 ] &&
    grep -q "cl:cr setting's output differs from host:cr's: nothing stored" "$base/planted.txt" &&
    ! grep -q '^stored for' "$base/planted.txt" && cmp -s "$store" "$base/stored.json" ||
    { cat "$base/planted.txt"; fail "tune with a planted cl:cr bit: exit $rc"; }
# A damaged store is ignored, never fatal.
echo '{"broken' >"$XDG_CACHE_HOME/clparity/tune.json"
o=$(opts)
echo "$o" | grep -q '\[vec, default: ' || fail "a damaged store: $o"
o=$(cropts)
echo "$o" | grep -q '\[cr cpu1, default: ' || fail "cl:cr, a damaged store: $o"
# tune does not replace a store it cannot read (that would drop other devices' settings): status
# 3, the store named, the file as it was.
"$clp" tune -d 0 --quick --runs 1 --warmup 0 >"$base/damaged.txt" 2>&1
rc=$?
[ $rc = 3 ] && grep -q "cannot read the store .*tune.json" "$base/damaged.txt" &&
    [ "$(cat "$XDG_CACHE_HOME/clparity/tune.json")" = '{"broken' ] ||
    { cat "$base/damaged.txt"; fail "tune over a damaged store: exit $rc"; }
# --dry-run stores nothing.
rm -f "$XDG_CACHE_HOME/clparity/tune.json"
"$clp" tune -d 0 --quick --runs 1 --warmup 0 --dry-run >/dev/null || fail "dry run failed"
[ ! -e "$XDG_CACHE_HOME/clparity/tune.json" ] || fail "--dry-run stored a setting"
echo "ok"
