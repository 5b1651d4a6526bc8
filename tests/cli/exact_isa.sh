#!/usr/bin/env bash
# Usage: exact_isa.sh CLPARITY OUTDIR FIXTURES
# host:exact at every instruction-set level (CLPARITY_HOST_ISA=avx512, avx2, baseline). Which
# levels this CPU has is read here from /proc/cpuinfo (avx512f; avx2 and fma; baseline always),
# not from clparity. Each level the CPU has must give cl:own's bits on PoCL (compare --expect
# bitwise) at odd sizes and on the digits model (biases, rectangular layers, no residual), the same host:exact hash as every other level, and the same hash with
# its portable loop (CLPARITY_HOST_EXACT=generic); devices --json must name it. Each level the
# CPU lacks must be refused: exit 2, the first stderr line naming the variable, the level and
# the levels this CPU has. No level is skipped: each is run or shown refused.
set -u -o pipefail
clp=$1 out=$2 fixtures=$3
mkdir -p "$out"
# shellcheck source=tests/cli/isa_levels.sh
source "$(dirname "$0")/isa_levels.sh"
list=$(IFS=,; echo "${levels[*]}" | sed 's/,/, /g')
echo "this CPU's levels (from /proc/cpuinfo): $list"

failed=0 ran=0 refused=0
declare -A first_hash first_level
hash_of() { # JSON ENGINE: the hash of ENGINE's result
    python3 -c 'import json,sys; print([r["hash"] for r in json.load(open(sys.argv[1]))["results"] if r["engine"] == sys.argv[2]][0])' "$1" "$2"
}
for lvl in avx512 avx2 baseline; do
    if [[ " ${levels[*]} " != *" $lvl "* ]]; then
        log=$out/isa_$lvl.refused.txt
        CLPARITY_HOST_ISA=$lvl "$clp" run -d host --engines host:exact --d-model 8 --runs 1 \
            --warmup 0 >"$log" 2>&1
        rc=$?
        want="CLPARITY_HOST_ISA: this CPU lacks '$lvl' .*; its levels are $list\$"
        if [ $rc = 2 ] && grep -q -- "$want" "$log"; then
            echo "ok   $lvl: refused, exit 2: $(grep -m1 CLPARITY_HOST_ISA "$log")"
            refused=$((refused + 1))
        else
            echo "FAIL $lvl: this CPU lacks it; want exit 2 and /$want/, got exit $rc:"
            cat "$log"
            failed=1
        fi
        continue
    fi
    # devices names the forced level and this CPU's levels
    got=$(CLPARITY_HOST_ISA=$lvl "$clp" devices --json - 2>&1 | python3 -c '
import json, sys
h = [x for x in json.load(sys.stdin)["devices"] if x["kind"] == "host"][0]
print(h["exact_isa"], ", ".join(h["exact_isa_levels"]))')
    if [ "$got" = "$lvl $list" ]; then
        echo "ok   $lvl: devices --json: $got"
    else
        echo "FAIL $lvl: devices --json says '$got', want '$lvl $list'"
        failed=1
    fi
    for case in "d=67 L=3 B=5" "d=1025 L=2 B=37" "d=1 L=1 B=1" digits; do
        if [ "$case" = digits ]; then
            args=(--model "$fixtures/digits.safetensors" --input "$fixtures/digits_x.npy")
        else
            set -- $case
            args=(--d-model "${1#d=}" --layers "${2#L=}" --batch "${3#B=}")
        fi
        tag=isa_${lvl}_${case// /_}
        tag=${tag//=/}
        CLPARITY_HOST_ISA=$lvl "$clp" compare -d 0 -d host --expect bitwise \
            --engines cl:own,host:exact "${args[@]}" --runs 2 --warmup 0 \
            --json "$out/$tag.json" >"$out/$tag.txt" 2>&1
        rc=$?
        if [ $rc != 0 ]; then
            echo "FAIL $lvl $case: compare --expect bitwise exited $rc:"
            cat "$out/$tag.txt"
            failed=1
            continue
        fi
        h=$(hash_of "$out/$tag.json" host:exact)
        CLPARITY_HOST_ISA=$lvl CLPARITY_HOST_EXACT=generic "$clp" run -d host \
            --engines host:exact --no-reference "${args[@]}" --runs 1 --warmup 0 \
            --json "$out/$tag.generic.json" >"$out/$tag.generic.txt" 2>&1 ||
            { echo "FAIL $lvl $case generic: run failed:"; cat "$out/$tag.generic.txt"; failed=1; }
        g=$(hash_of "$out/$tag.generic.json" host:exact 2>/dev/null)
        ran=$((ran + 1))
        key=$case
        if [ -z "${first_hash[$key]:-}" ]; then
            first_hash[$key]=$h first_level[$key]=$lvl
        fi
        if [ "$h" != "${first_hash[$key]}" ]; then
            echo "FAIL $lvl $case: host:exact $h != ${first_level[$key]}'s ${first_hash[$key]}"
            failed=1
        elif [ "$g" != "$h" ]; then
            echo "FAIL $lvl $case: generic loop '$g' != $h"
            failed=1
        else
            echo "ok   $lvl $case: cl:own = host:exact = generic loop = ${first_level[$key]}'s hash $h"
        fi
    done
done
echo "$ran cases run at ${#levels[@]} levels, $refused levels refused"
[ $((${#levels[@]} + refused)) = 3 ] && [ $ran = $((4 * ${#levels[@]})) ] || failed=1
exit $failed
