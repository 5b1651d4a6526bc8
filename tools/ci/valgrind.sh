#!/usr/bin/env bash
# Usage: tools/ci/valgrind.sh BUILD_DIR OUT_DIR
# .ci/run's valgrind job: memcheck on a handful of command-line runs of the host engines (no
# OpenCL platform registered, so the ICD loader finds none): every run, diff, devices, cache
# and bad-input path. Any memcheck error, or a definite or indirect leak, makes valgrind exit
# 99 (--error-exitcode), which fails the job; so does any other unexpected exit status.
set -u -o pipefail
build=$1 out=$2
clp=$build/clparity
rm -rf "$out"
mkdir -p "$out/empty-icd"
export OCL_ICD_VENDORS=$out/empty-icd
export XDG_CACHE_HOME=$out/cache
# Two OpenBLAS threads: the thread paths run, and valgrind stays quick.
export OPENBLAS_NUM_THREADS=2
unset CLPARITY_DEVICES CLPARITY_TEST_HOOK CLPARITY_KERNEL_DIR
vg=(valgrind --tool=memcheck --error-exitcode=99 --leak-check=full
    --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect
    --track-origins=yes --num-callers=30)

failed=0
n=0
# check NAME WANT_STATUS ARGS...
check() {
    local name=$1 want=$2
    shift 2
    n=$((n + 1))
    local t0=$SECONDS
    "${vg[@]}" --log-file="$out/$name.vg" "$clp" "$@" >"$out/$name.out" 2>"$out/$name.err"
    local rc=$?
    if [ $rc = "$want" ]; then
        printf 'ok    %-22s exit %s  %3ss  clparity %s\n' "$name" "$rc" $((SECONDS - t0)) "$*"
    else
        failed=1
        printf 'FAIL  %-22s exit %s, expected %s: clparity %s\n' "$name" "$rc" "$want" "$*"
        [ $rc = 99 ] && echo "      (99: memcheck found errors or leaks)"
        echo "--- $out/$name.vg (errors and leaks):"
        grep -E -A25 '(Invalid|uninitialised|Conditional|definitely|indirectly lost in|Mismatched|Syscall param|overlap)' \
            "$out/$name.vg" | head -n 80
        grep -E 'ERROR SUMMARY|definitely lost:|indirectly lost:' "$out/$name.vg"
        echo "--- stderr:"
        head -n 5 "$out/$name.err"
    fi
}

m=(--d-model 33 --layers 3 --batch 5 --runs 2 --warmup 1)
check run_host 0 run -d host "${m[@]}" --json "$out/run.json" --save "$out/save_run"
check compare_host 0 compare -d host --engines host:openblas,host:exact,host:f64 "${m[@]}" \
    --invariance --expect torch --json "$out/compare.json" --save "$out/save_cmp"
# --expect bitwise's failure path, on every machine: whether host:openblas differs from
# host:exact is OpenBLAS's kernel's business (issue 32), so the hook flips a bit of a kept output.
CLPARITY_TEST_HOOK=corrupt-run check compare_bitwise_fails 1 compare -d host \
    --engines host:openblas,host:exact --d-model 64 --layers 2 --batch 64 --runs 1 --warmup 1 \
    --expect bitwise
check diff 0 diff "$out/save_cmp" "$out/save_run" --json "$out/diff.json"
check devices 0 devices --json "$out/devices.json"
check no_reference 0 run -d host --engines host:exact --no-reference "${m[@]}"
# host:cr (issue 23): its fast path on the pool, its scalar form (the exact accumulator for
# every output), and a bad CLPARITY_HOST_CR.
check run_cr 0 run -d host --engines host:cr,host:exact "${m[@]}" --save "$out/save_cr"
CLPARITY_HOST_CR=scalar check run_cr_scalar 0 run -d host --engines host:cr "${m[@]}"
CLPARITY_HOST_CR=fast check cr_bad_mode 2 run -d host --engines host:cr --d-model 4 --layers 1
mkdir -p "$out/cache/clparity"
head -c 3000 /dev/urandom >"$out/cache/clparity/$(printf '%064d' 0).bin"
check cache_list 0 cache list --json "$out/cache.json"
check cache_clear 0 cache clear
# Error paths free what they made too.
check bad_batch 2 run --batch abc
check bad_selector 2 run -d nosuchdevice
check opencl_engine_no_platform 2 run --engines cl:own
check too_large_for_host 2 run -d host --d-model 65536 --layers 4096
# --json onto a folder is refused before any work since issue 21 (status 2, was 3).
check json_onto_directory 2 run -d host --d-model 4 --layers 1 --json "$out"
check diff_missing_folder 2 diff "$out/save_cmp" "$out/nonexistent"
# ulp measures OpenCL devices only: with none, its refusal frees what it made; a bad function
# and train's bad CLPARITY_TRAIN_DIVSQRT too.
check ulp_no_device 2 ulp -d host
check ulp_bad_function 2 ulp --functions sqrtt
CLPARITY_TRAIN_DIVSQRT=dubble check train_bad_divsqrt 2 train -d host --optimizer adam
echo "valgrind: $n runs, $([ $failed = 0 ] && echo PASS || echo FAIL)"
exit $failed
