#!/usr/bin/env bash
# Usage: cr_isa.sh CLPARITY OUTDIR PYTHON CHECK_CR_PY [--planted]
# host:cr at every instruction-set level (CLPARITY_HOST_ISA=avx512, avx2, baseline), as
# exact_isa.sh does for host:exact. Which levels this CPU has is read here from /proc/cpuinfo,
# not from clparity. At each level the CPU has:
#   - the routine (run --json) names the level's kernel: "(avx512)", "(avx2)", "(baseline)";
#   - tests/check_cr.py (its 265 cases of odd shapes, ties, subnormals, overflow, NaN and inf)
#     finds every output equal to the exact rounding;
#   - at shapes that reach every tile of the kernels (1 to 64 rows, 1 to 33 panels, an odd end),
#     the fast path (its kernel, on the pool and on one thread) and its portable loop
#     (CLPARITY_HOST_CR=generic) give the hash of the scalar form (CLPARITY_HOST_CR=scalar: every
#     output through the exact accumulator, which check_cr.py checks in cr/check_host_scalar).
# Each level the CPU lacks must be refused (exit 2). With --planted, the test hook corrupt-cr
# flips the lowest bit of one output of the fast path: then every level's check_cr.py must see a
# mismatch and every shape's fast-path hash must differ from the scalar form's (the checks are
# seen to fail); exit 0 only when each of them did.
set -u -o pipefail
clp=$1 out=$2 py=$3 check=$4
planted=0
[ "${5:-}" = --planted ] && planted=1
mkdir -p "$out"
# shellcheck source=tests/cli/isa_levels.sh
source "$(dirname "$0")/isa_levels.sh"
echo "this CPU's levels (from /proc/cpuinfo): ${levels[*]}"
hook=()
[ $planted = 1 ] && hook=(CLPARITY_TEST_HOOK=corrupt-cr)

failed=0 checks=0
fail() { echo "FAIL $*"; failed=1; }
# run_cr TAG ENV... -- ARGS...: host:cr's hash and routine ("hash routine") into $got
run_cr() {
    local tag=$1 envs=()
    shift
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    env "${envs[@]}" "$clp" run -d host --engines host:cr --no-reference --runs 1 --warmup 0 \
        "$@" --json "$out/$tag.json" >"$out/$tag.txt" 2>&1 ||
        { fail "$tag: run exited $?:"; cat "$out/$tag.txt"; got=""; return; }
    got=$("$py" -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print(r["hash"], r["routine"])' "$out/$tag.json")
}
# rows 1 to 6 and 13, 25, 64 (12-row tiles, the even split at the end); 129 outputs = 8 + 1
# panels, 67 = 4 + 1 (a masked end), 513 = 32 + 1; 1 and 3 wide
shapes=("129 2 1" "129 2 2" "129 2 3" "129 2 4" "129 2 5" "129 2 6" "129 2 13" "129 2 25"
    "67 3 7" "67 3 64" "513 1 37" "1 1 1" "3 2 9")
declare -A scalar
for sh in "${shapes[@]}"; do
    set -- $sh
    run_cr "scalar_${1}_${2}_${3}" CLPARITY_HOST_CR=scalar "${hook[@]}" -- --d-model "$1" --layers "$2" --batch "$3"
    scalar[$sh]=${got%% *}
done
for lvl in avx512 avx2 baseline; do
    if [[ " ${levels[*]} " != *" $lvl "* ]]; then
        CLPARITY_HOST_ISA=$lvl "$clp" run -d host --engines host:cr --d-model 8 --runs 1 \
            --warmup 0 >"$out/isa_$lvl.refused.txt" 2>&1
        rc=$?
        if [ $rc = 2 ] && grep -q "CLPARITY_HOST_ISA: this CPU lacks '$lvl'" "$out/isa_$lvl.refused.txt"; then
            echo "ok   $lvl: refused, exit 2"
        else
            fail "$lvl: this CPU lacks it; want exit 2, got $rc:"
            cat "$out/isa_$lvl.refused.txt"
        fi
        continue
    fi
    # the exact reference
    if [ $planted = 1 ]; then
        env "${hook[@]}" CLPARITY_HOST_ISA=$lvl "$py" "$check" "$clp" "$out/check_$lvl" \
            --engines host:cr --expect-mismatch >"$out/check_$lvl.txt" 2>&1
    else
        CLPARITY_HOST_ISA=$lvl "$py" "$check" "$clp" "$out/check_$lvl" --engines host:cr \
            >"$out/check_$lvl.txt" 2>&1
    fi
    rc=$?
    checks=$((checks + 1))
    if [ $rc = 0 ]; then
        echo "ok   $lvl check_cr.py: $(grep -E 'differ from the exact rounding|planted' "$out/check_$lvl.txt" | tail -n 2 | tr '\n' ' ')"
    else
        fail "$lvl check_cr.py exited $rc:"
        tail -n 5 "$out/check_$lvl.txt"
    fi
    for sh in "${shapes[@]}"; do
        set -- $sh
        args=(--d-model "$1" --layers "$2" --batch "$3")
        tag=${lvl}_${1}_${2}_${3}
        for mode in auto one generic; do
            case $mode in
            auto) envs=() ;;
            one) envs=(CLPARITY_HOST_THREADS=1) ;;
            generic) envs=(CLPARITY_HOST_CR=generic) ;;
            esac
            run_cr "${tag}_$mode" CLPARITY_HOST_ISA=$lvl "${envs[@]}" "${hook[@]}" -- "${args[@]}"
            [ -n "$got" ] || continue
            h=${got%% *} routine=${got#* }
            checks=$((checks + 1))
            want="($lvl)"
            [ $mode = generic ] && want="($lvl generic)"
            [ $mode = generic ] && [ $lvl = baseline ] && want="(baseline)"
            if [[ "$routine" != *"$want" ]]; then
                fail "$lvl d=$1 L=$2 B=$3 $mode: routine '$routine' does not end in '$want'"
            elif [ $planted = 0 ] && [ "$h" != "${scalar[$sh]}" ]; then
                fail "$lvl d=$1 L=$2 B=$3 $mode: hash $h, the scalar form's ${scalar[$sh]}"
            elif [ $planted = 1 ] && [ "$h" = "${scalar[$sh]}" ]; then
                fail "$lvl d=$1 L=$2 B=$3 $mode: the planted bit went unseen (hash $h as the scalar form's)"
            else
                echo "ok   $lvl d=$1 L=$2 B=$3 $mode: $h ($routine)$([ $planted = 1 ] && echo ", the scalar form's ${scalar[$sh]}")"
            fi
        done
    done
done
echo "$checks checks at ${#levels[@]} levels$([ $planted = 1 ] && echo ', planted bit')"
exit $failed
