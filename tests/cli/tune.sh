#!/bin/sh
# clparity tune on PoCL: it times the candidates, stores the fastest for the device, and
# cl:own then uses it ("tuned" in its build options); CLPARITY_CACHE=off ignores the store,
# and CLPARITY_OWN_TUNE overrides it. Usage: tune.sh CLPARITY PYTHON SCRATCH
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
grep -Eq '^0:0 +pthread-.* vec +best: vw=(4|8|16),rb=(2|4|8|12|16),nv=(1|2|4),mc=[0-9]+$' "$base/out.txt" ||
    fail "no best line"
"$py" - "$base/tune.json" "$XDG_CACHE_HOME/clparity/tune.json" <<'PY' || fail "JSON"
import json, sys
run = json.load(open(sys.argv[1]))
assert run["schema"] == 1 and "provenance" in run, run.keys()
dev = run["devices"][0]
c = dev["candidates"]
assert len(c) == 4 and all(x["same_bits"] and x["median_ms"] > 0 for x in c), c
best = min(c, key=lambda x: x["median_ms"])["params"]
assert dev["stored"] and best in dev["chosen"], (best, dev["chosen"])
store = json.load(open(sys.argv[2]))
(key, entry), = store.items()
assert key == dev["device"] and entry["params"] == dev["chosen"], (key, entry)
print("ok: stored", entry["params"])
PY
opts() { "$clp" run -d 0 --engines cl:own --d-model 64 --layers 2 --batch 64 --json - 2>/dev/null |
    "$py" -c 'import json,sys; print(json.load(sys.stdin)["provenance"]["kernel_build_options"])'; }
o=$(opts)
echo "$o" | grep -q '\[vec, tuned: ' || fail "cl:own does not use the stored setting: $o"
o=$(CLPARITY_CACHE=off opts)
echo "$o" | grep -q '\[vec, default: ' || fail "CLPARITY_CACHE=off still reads the store: $o"
o=$(CLPARITY_OWN_TUNE=vw=4,rb=2 opts)
echo "$o" | grep -q '\[vec, CLPARITY_OWN_TUNE: .*-DCP_VW=4 -DCP_RB=2' || fail "override: $o"
o=$(CLPARITY_OWN_TUNE=nv=4,mc=32 opts)
echo "$o" | grep -q '\[vec, CLPARITY_OWN_TUNE: .*-DCP_NV=4' || fail "override nv: $o"
# A damaged store is ignored, never fatal.
echo '{"broken' >"$XDG_CACHE_HOME/clparity/tune.json"
o=$(opts)
echo "$o" | grep -q '\[vec, default: ' || fail "a damaged store: $o"
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
