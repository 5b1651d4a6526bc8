#!/usr/bin/env bash
# Usage: parallel.sh CLPARITY PYTHON DIR [N]
# N processes (default 8) of `run --engines cl:own` on a small model start at once, released
# together by a FIFO, on one empty program-cache folder (XDG_CACHE_HOME=DIR/xdg). Checks that
# every one exits 0 with nothing on stderr, that all give the output hash of a build without
# the cache, and that the cache ends consistent: one entry (they all build the same program),
# valid by `cache list`, a hit for the next run, and no temporary file left behind.
set -u -o pipefail
# One program, one entry: cl:own's probe (its verdicts and programs, cached too) stays off here;
# the probe's own caching is tested by exact/probe_planted_*.
export CLPARITY_OWN_PROBE=off
clp=$1 py=$2 base=$3 n=${4:-8}
# PoCL's own cache stays where ctest put it (as in cache.sh): the folder under test is ours.
export POCL_CACHE_DIR=${POCL_CACHE_DIR:-${XDG_CACHE_HOME:-$base}/pocl}
rm -rf "$base"
mkdir -p "$base" "$POCL_CACHE_DIR"
export XDG_CACHE_HOME=$base/xdg
dir=$XDG_CACHE_HOME/clparity
unset CLPARITY_CACHE CLPARITY_CACHE_MAX_MB CLPARITY_KERNEL_DIR CLPARITY_TEST_HOOK

fail() {
    echo "FAIL: $*"
    for f in "$base"/err.*; do
        [ -s "$f" ] && { echo "--- $f:"; cat "$f"; }
    done
    exit 1
}

args=(run -d 0 --engines cl:own --d-model 64 --layers 4 --batch 3 --runs 2 --warmup 1)
hash_of() {
    "$py" -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; print(r[0]["hash"], r[0]["timing"]["build_cache"])' "$1"
}

CLPARITY_CACHE=off "$clp" "${args[@]}" --json "$base/cold.json" >/dev/null 2>"$base/err.cold" ||
    fail "the run without the cache failed"
cold=$(hash_of "$base/cold.json")
want=${cold% *}
[ ! -e "$dir" ] || fail "CLPARITY_CACHE=off created $dir"

mkfifo "$base/go"
pids=()
for i in $(seq 1 "$n"); do
    (
        # Blocks until the FIFO is opened for writing, which releases every process at once.
        read -r _ <"$base/go"
        exec "$clp" "${args[@]}" --json "$base/out.$i.json" >"$base/table.$i" 2>"$base/err.$i"
    ) &
    pids+=($!)
done
sleep 0.2
: >"$base/go"
status=0
for i in $(seq 1 "$n"); do
    wait "${pids[$((i - 1))]}" || { echo "process $i: exit status $?"; status=1; }
done
[ $status = 0 ] || fail "not every process succeeded"
misses=0
for i in $(seq 1 "$n"); do
    [ -s "$base/err.$i" ] && fail "process $i wrote to stderr"
    got=$(hash_of "$base/out.$i.json") || fail "process $i: no JSON"
    [ "${got% *}" = "$want" ] || fail "process $i: hash ${got% *}, expected $want"
    case ${got#* } in
    miss) misses=$((misses + 1)) ;;
    hit) ;;
    *) fail "process $i: build_cache ${got#* }" ;;
    esac
done
echo "ok: $n processes, hash $want, $misses misses and $((n - misses)) hits"
[ "$misses" -ge 1 ] || fail "no process built the program: the folder was not empty"

ls -la "$dir"
tmp=$(find "$dir" \( -name '*.tmp.*' -o -name '*.clparity-tmp.*' \) | wc -l)
[ "$tmp" = 0 ] || fail "$tmp temporary files left in $dir"
entries=$(find "$dir" -maxdepth 1 -name '*.bin' | wc -l)
[ "$entries" = 1 ] || fail "$entries entries, expected 1"
valid=$("$clp" cache list --json - 2>/dev/null |
    "$py" -c 'import json,sys; e=json.load(sys.stdin)["entries"]; print(sum(x["valid"] for x in e), len(e))') ||
    fail "cache list failed"
[ "$valid" = "1 1" ] || fail "cache list: valid/total $valid"
"$clp" "${args[@]}" --json "$base/after.json" >/dev/null 2>"$base/err.after" || fail "the run after failed"
[ "$(hash_of "$base/after.json")" = "$want hit" ] || fail "the run after: $(hash_of "$base/after.json")"
echo "ok: the cache is consistent (1 valid entry, no temporary file, a hit afterwards)"
