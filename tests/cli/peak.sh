#!/usr/bin/env bash
# Usage: peak.sh CLPARITY PYTHON OUTDIR SCENARIO [SCHEMA]
# Command-line tests of `clparity peak`, each with its own cache folder (XDG_CACHE_HOME=OUTDIR):
#   cache      values positive and finite; the second call reads the cache (fast, equal values);
#              --remeasure measures again; a corrupt or foreign file is measured again and
#              replaced; CLPARITY_CACHE=off writes nothing
#   simulator  Oclgrind: n/a (simulator), no numbers, no cache file
set -u
clp=$1 py=$2 out=$3 scenario=$4 schema=${5:-}
rm -rf "$out"
mkdir -p "$out"
export XDG_CACHE_HOME=$out

die() {
    echo "FAIL: $*"
    exit 1
}

# peak_json FILE EXPECT: checks FILE's devices; EXPECT is the source every available peak has.
peak_json() {
    $py - "$1" "$2" <<'PY' || exit 1
import json, math, sys
doc = json.load(open(sys.argv[1]))
want = sys.argv[2]
assert doc["schema"] == 1 and doc["command"] == "peak" and "provenance" in doc, doc.keys()
kinds = [d["device"]["kind"] for d in doc["devices"]]
assert "host" in kinds and "opencl" in kinds, kinds
for d in doc["devices"]:
    p = d["peak"]
    assert p["available"] and p["source"] == want, (d["device"]["label"], p)
    for k in ("fma_gflops", "bandwidth_gbs"):
        # JSON has one number type: a rate measured as 257.000 is written 257, an int here
        assert isinstance(p[k], (int, float)) and not isinstance(p[k], bool), (k, p)
        assert math.isfinite(p[k]) and p[k] > 0, (k, p)
    if d["device"]["kind"] == "host":
        assert p["latency_us"] is None, p
    else:
        assert math.isfinite(p["latency_us"]) and p["latency_us"] > 0, p
print("ok:", [(d["device"]["label"], d["peak"]["fma_gflops"], d["peak"]["source"]) for d in doc["devices"]])
PY
}

# same_values A B: the numbers of two runs are equal (a cache hit gives what was stored).
same_values() {
    $py - "$1" "$2" <<'PY' || exit 1
import json, sys
a, b = (json.load(open(f))["devices"] for f in sys.argv[1:3])
key = lambda d: [(x["device"]["label"], x["peak"]["fma_gflops"], x["peak"]["bandwidth_gbs"],
                  x["peak"]["latency_us"], x["peak"]["measured_at"]) for x in d]
assert key(a) == key(b), (key(a), key(b))
assert all(x["peak"]["seconds"] < 0.5 for x in b), [x["peak"]["seconds"] for x in b]
print("ok: the cached values equal the measured ones")
PY
}

case $scenario in
cache)
    "$clp" peak -d 0 -d host --json "$out/first.json" || die "first peak failed"
    peak_json "$out/first.json" measured
    if [ -n "$schema" ]; then
        $py "$(dirname "$0")/../validate_json.py" "$schema" "$out/first.json" || die "schema"
    fi
    files=$(ls "$out"/clparity/peak-*.json | wc -l)
    [ "$files" = 2 ] || die "expected 2 cache files, found $files"
    start=$(date +%s%N)
    "$clp" peak -d 0 -d host --json "$out/second.json" | tee "$out/second.txt" || die "second"
    took_ms=$((($(date +%s%N) - start) / 1000000))
    echo "second call: $took_ms ms (the whole process)"
    [ $took_ms -lt 1000 ] || die "a cache hit took $took_ms ms"
    peak_json "$out/second.json" cached
    same_values "$out/first.json" "$out/second.json"
    grep -q 'cached, measured' "$out/second.txt" || die "the table does not say cached"

    "$clp" peak -d host --remeasure --json "$out/re.json" >/dev/null || die "--remeasure failed"
    $py -c 'import json,sys; p=json.load(open(sys.argv[1]))["devices"][0]["peak"]; assert p["source"]=="measured", p' "$out/re.json" || die "--remeasure did not measure"

    # Corrupt files: garbage, truncated JSON, another device's key, a negative number.
    n=0
    for bad in 'garbage' '{"schema": 1, "key": "method' '{"schema":1,"key":"someone else","fma_gflops":1,"bandwidth_gbs":1,"latency_us":1}' 'NEG'; do
        n=$((n + 1))
        for f in "$out"/clparity/peak-*.json; do
            if [ "$bad" = NEG ]; then
                sed -i 's/"fma_gflops":[^,]*/"fma_gflops":\t-5/' "$f"
            else
                printf '%s' "$bad" >"$f"
            fi
        done
        "$clp" peak -d 0 -d host --json "$out/bad$n.json" >"$out/bad$n.txt" 2>&1 || {
            cat "$out/bad$n.txt"
            die "a corrupt cache file ($n) made peak fail"
        }
        cat "$out/bad$n.txt"
        peak_json "$out/bad$n.json" measured
        grep -q 'bad entry replaced' "$out/bad$n.txt" || die "the table does not say the entry was replaced ($n)"
        for f in "$out"/clparity/peak-*.json; do
            $py -c 'import json,sys; json.load(open(sys.argv[1]))' "$f" || die "$f was not rewritten"
        done
    done

    # Off: nothing read, nothing written.
    rm -rf "$out/clparity"
    CLPARITY_CACHE=off "$clp" peak -d host --json "$out/off.json" >/dev/null || die "off failed"
    ! ls "$out"/clparity/peak-*.json 2>/dev/null || die "CLPARITY_CACHE=off wrote a file"
    $py -c 'import json,sys; p=json.load(open(sys.argv[1]))["devices"][0]["peak"]; assert p["source"]=="measured", p' "$out/off.json" || die
    find "$out" \( -name '*.tmp.*' -o -name '*.clparity-tmp.*' \) | grep -q . && die "temporary files left behind"
    ;;
simulator)
    "$clp" peak -d oclgrind --json "$out/sim.json" | tee "$out/sim.txt" || die "peak failed"
    grep -Eq '^0:0 Oclgrind.* n/a \(simulator\)' "$out/sim.txt" || die "no n/a (simulator) row"
    $py -c 'import json,sys; p=json.load(open(sys.argv[1]))["devices"][0]["peak"]; assert p["available"] is False and p["fma_gflops"] is None and p["source"]=="simulator", p' "$out/sim.json" || die "simulator JSON"
    ! ls "$out"/clparity/peak-*.json 2>/dev/null || die "a simulator's peak was cached"
    if [ -n "$schema" ]; then
        $py "$(dirname "$0")/../validate_json.py" "$schema" "$out/sim.json" || die "schema"
    fi
    ;;
*)
    die "unknown scenario $scenario"
    ;;
esac
echo "ok: peak $scenario"
