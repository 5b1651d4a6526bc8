#!/usr/bin/env bash
# Usage: exact_host.sh CLPARITY FIXTURES [--planted]
# host:exact's vectorised, threaded loop against its scalar reference loop
# (CLPARITY_HOST_EXACT=scalar, one output at a time, k ascending, fmaf): the same hash at odd
# widths and batches (partial panels and row blocks everywhere), on the digits model (biases,
# rectangular layers, no residual), with 1, 2, 3 and 16 threads (CLPARITY_HOST_THREADS; the
# small cases stay on one; 16 on a machine of fewer cores puts the pool's barrier to sleep), on
# the intrinsics kernel of the widest instruction-set level the CPU has (AVX-512 or AVX2 + FMA;
# tests/cli/exact_isa.sh runs the other levels) and on the portable vector loop
# (CLPARITY_HOST_EXACT=generic). A compiler that reassociated or contracted the vector loop
# would change a bit here.
# With --planted, CLPARITY_TEST_HOOK=corrupt-exact flips one bit of the last thread's share;
# every case must then differ (the comparison sees a one-bit error from any thread's share).
set -u -o pipefail
clp=$1 fixtures=$2 planted=${3:-}
hook=""
[ "$planted" = --planted ] && hook=corrupt-exact
hash_of() { # ENV... -- ARGS: the hash of host:exact's output
    local envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    env "${envs[@]}" "$clp" run -d host --engines host:exact --no-reference --runs 1 --warmup 0 \
        --json - "$@" 2>/dev/null |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["results"][0]["hash"])'
}
failed=0 cases=0
check() { # LABEL ARGS...
    local label=$1
    shift
    local want
    want=$(hash_of CLPARITY_HOST_EXACT=scalar -- "$@") || { echo "FAIL $label: scalar run"; failed=1; return; }
    for run in "1 " "2 " "3 " "16 " "1 generic" "3 generic"; do
        local t=${run% *} mode=${run#* } got
        got=$(hash_of CLPARITY_HOST_THREADS=$t CLPARITY_HOST_EXACT=$mode CLPARITY_TEST_HOOK=$hook -- "$@") ||
            { echo "FAIL $label T=$t $mode: run failed"; failed=1; continue; }
        cases=$((cases + 1))
        if [ -z "$hook" ] && [ "$got" != "$want" ]; then
            echo "FAIL $label T=$t $mode: $got != scalar $want"; failed=1
        elif [ -n "$hook" ] && [ "$got" = "$want" ]; then
            echo "FAIL $label T=$t $mode: the planted one-bit error went unseen ($got)"; failed=1
        else
            echo "ok   $label T=$t $mode: $got ${hook:+(planted: scalar $want)}"
        fi
    done
}
for shape in "1 1 1" "3 4 5" "17 3 1" "33 2 9" "257 2 3" "1023 1 2" "1025 2 37" "130 3 131"; do
    set -- $shape
    check "d=$1 L=$2 B=$3" --d-model "$1" --layers "$2" --batch "$3"
done
check "digits model" --model "$fixtures/digits.safetensors" --input "$fixtures/digits_x.npy"
[ $cases -gt 0 ] || failed=1
exit $failed
