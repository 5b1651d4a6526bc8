#!/usr/bin/env bash
# Usage: cr_probe.sh CLP OUT MODE
# cl:cr's probe (issue 32, item 6) on PoCL: a variant with one planted bit (test hook
# corrupt-cl-cr:<variant>[+...], the probe's build included) is rejected with its reason on the
# builds: line, and the next variant runs, still host:cr's bits (compare --expect cr). The
# token gpu makes cl:cr take PoCL as a GPU (its list: stream, gemm, gemv, gemv-exact).
#   cpu1, cpu, gemv, stream, gemm:  that variant is the first planted one (PoCL's list: cpu1,
#          cpu, gemv, gemv-exact; those before it planted too); the run takes the next,
#          exit 0; a second run reads the rejection from the program cache ("(cached)").
#   gemv-exact:  every variant of PoCL's list planted, the exact accumulator too: no variant
#          passes; `run` (the shape of issue 32's report) exits 1 naming cl:cr, its builds:
#          line says NOT EXACT; compare --expect cr exits 1.
#   forced:  CLPARITY_CR_TUNE=path=<v> with <v> planted, for each variant: the result is an
#          error naming the variant and the probe's reason (exit 3), never another variant
#          nor a number; unplanted, each forced variant passes its probe (exit 0).
#   own:   cl:own with every path planted (kernel-bit:all): `run` exits 1 naming cl:own.
#   ties:  a real bug instead of a planted bit: cr.cl's rounding with ties away from zero (its
#          copy in CLPARITY_KERNEL_DIR, KDIR the sources): compare --expect cr at d=67 L=3 B=5
#          meets no tie and would pass (shown, not asserted, with CLPARITY_OWN_PROBE=off); the
#          probe's ties reject every variant, and compare exits 1, its cr verdict FAIL.
set -u
clp=$1 out=$2 mode=$3 kdir=${4:-}
base=$out/cr_probe_$mode
rm -f "$base".*
ok=1
fail() {
    echo "FAIL ($mode): $*"
    ok=0
}
shape=(--d-model 67 --layers 3 --batch 5 --runs 1 --warmup 0)
# compare --expect cr under hook $1: $2 the status expected (any: not checked); the output in
# $base.$3.txt
compare() {
    CLPARITY_TEST_HOOK=$1 "$clp" compare -d 0 -d host --engines cl:cr,host:cr --expect cr \
        "${shape[@]}" >"$base.$3.txt" 2>&1
    local got=$?
    cat "$base.$3.txt"
    [ "$2" = any ] || [ "$got" = "$2" ] || fail "compare ($3) exited $got, expected $2"
}
has() { grep -Eq -- "$1" "$2" || fail "no line '$1' in $2"; }
hasnt() { ! grep -Eq -- "$1" "$2" || fail "a line '$1' in $2"; }
reason='probe \(special values[^)]*\): [0-9]+ of [0-9]+ outputs differ from host:cr.s bits'

case $mode in
cpu1 | cpu | gemv | stream | gemm)
    declare -A hook=([cpu1]=cpu1 [cpu]=cpu1+cpu [gemv]=cpu1+cpu+gemv [stream]=gpu+stream
        [gemm]=gpu+stream+gemm)
    declare -A next=([cpu1]=cpu [cpu]=gemv [gemv]=gemv-exact [stream]=gemm [gemm]=gemv)
    for run in 1 2; do
        compare "corrupt-cl-cr:${hook[$mode]}" 0 "$run"
        has "^ +rejected $mode: $reason" "$base.$run.txt"
        has "cl:cr on .*kernel path ${next[$mode]}, passed its probe" "$base.$run.txt"
        has "^  cr +PASS" "$base.$run.txt"
    done
    has "^ +rejected $mode: .*\(cached\)$" "$base.2.txt"
    ;;
gemv-exact)
    h=corrupt-cl-cr:cpu1+cpu+gemv+gemv-exact
    CLPARITY_TEST_HOOK=$h "$clp" run -d 0:0 --engines cl:cr "${shape[@]}" >"$base.run.txt" 2>&1
    got=$?
    cat "$base.run.txt"
    [ "$got" = 1 ] || fail "run exited $got, expected 1"
    for v in cpu1 cpu gemv gemv-exact; do has "^ +rejected $v: $reason" "$base.run.txt"; done
    has "cl:cr on .*kernel path cpu1, NOT EXACT: no path passed its probe" "$base.run.txt"
    has "^clparity run: 1 result failed its probe on every kernel path \(.*cl:cr\)" \
        "$base.run.txt"
    compare "$h" 1 compare
    ;;
forced)
    for v in gemv splitk gemm cpu stream cpu1; do
        CLPARITY_CR_TUNE=path=$v CLPARITY_TEST_HOOK=corrupt-cl-cr:$v "$clp" run -d 0 -d host \
            --engines cl:cr,host:cr "${shape[@]}" >"$base.$v.txt" 2>&1
        got=$?
        cat "$base.$v.txt"
        [ "$got" = 3 ] || fail "path=$v planted: run exited $got, expected 3"
        has "cl:cr +error: cl:cr: variant $v, forced by CLPARITY_CR_TUNE, failed its probe on .*: $reason" \
            "$base.$v.txt"
        has "host:cr +[0-9.]+ " "$base.$v.txt"
        hasnt "^builds: cl:cr" "$base.$v.txt"
        CLPARITY_CR_TUNE=path=$v compare "" 0 "$v.clean"
        has "cl:cr on .*kernel path $v, passed its probe" "$base.$v.clean.txt"
    done
    ;;
own)
    CLPARITY_TEST_HOOK=kernel-bit:all "$clp" run -d 0:0 --engines cl:own "${shape[@]}" \
        >"$base.run.txt" 2>&1
    got=$?
    cat "$base.run.txt"
    [ "$got" = 1 ] || fail "run exited $got, expected 1"
    has "cl:own on .*NOT EXACT: no path passed its probe" "$base.run.txt"
    has "^clparity run: 1 result failed its probe on every kernel path \(.*cl:own\)" \
        "$base.run.txt"
    ;;
ties)
    mut=$base.kernels
    rm -rf "$mut" && cp -r "$kdir" "$mut" || fail "cannot copy $kdir"
    sed -i 's/if (half_bit \&\& (sticky || (r \& 1u)))/if (half_bit)/' "$mut/cr.cl"
    grep -q '^ *if (half_bit)$' "$mut/cr.cl" || fail "cr.cl's rounding line was not found to mutate"
    CLPARITY_OWN_PROBE=off CLPARITY_KERNEL_DIR=$mut compare "" any unprobed >/dev/null
    echo "without the probe: $(grep -E '^  cr ' "$base.unprobed.txt")"
    CLPARITY_KERNEL_DIR=$mut compare "" 1 probed
    for v in cpu1 cpu gemv gemv-exact; do has "^ +rejected $v: $reason" "$base.probed.txt"; done
    has "^  cr +FAIL" "$base.probed.txt"
    has "cl:cr: no kernel path passed its probe on this device" "$base.probed.txt"
    ;;
*)
    fail "unknown mode"
    ;;
esac
[ "$ok" = 1 ] && echo "ok ($mode)"
[ "$ok" = 1 ]
