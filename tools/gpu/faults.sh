#!/usr/bin/env bash
# Issue 21, point 5: faults on the GPU machine, as run through the device tool:
#   source .gpu/setup.sh; bash tools/gpu/faults.sh "$OUT" [CLPARITY [SHIM]]
# Each case runs NVIDIA's OpenCL beside the host, so that the other results show what a fault
# leaves standing; every case prints "case NAME: # exit N" and keeps its output in NAME.txt.
#   mem_sweep     a width beyond the GPU's memory (d=65536, 10 layers: 160 GiB of weights) in
#                 the middle of a sweep: its rows refused, the sweep goes on;
#   alloc_sweep   the 12th buffer creation fails (CLPARITY_TEST_HOOK=fail-alloc:12) in the
#                 middle of a sweep, as a device that runs out would;
#   enqueue_*     a launch fails with CL_OUT_OF_RESOURCES (fail-enqueue:N) in compare, run and in
#                 sweep; in train the 60th enqueue of any kind fails (the shim's cl-enqueue);
#   build_*       the first clBuildProgram fails (tests/faults/shim.c, class cl-build; our
#                 program cache off: with it on, a failed build of a cached binary is a bad
#                 entry, replaced by a build from source), and a
#                 kernel source that does not compile (CLPARITY_KERNEL_DIR): the compiler's
#                 log printed, that result an error, the others kept.
set -u
out=${1:-gpu-out}
clp=${2:-build/clparity}
shim=${3:-build/tests/libclparity_faultshim.so}
mkdir -p "$out"
export XDG_CACHE_HOME=/tmp/clparity-faults-cache
rm -rf "$XDG_CACHE_HOME"
run() {
    local name=$1
    shift
    { echo "\$ $*"; "$@"; echo "# exit $?"; } >"$out/$name.txt" 2>&1
    echo "case $name: $(tail -n 1 "$out/$name.txt")"
}
{
    date -u
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
    $clp --version
    $clp devices | head -40
} >"$out/devices.txt" 2>&1
sw=(--runs 3 --warmup 1 --layers 8)
run mem_sweep $clp sweep -d nvidia -d host --vary width --grid 1024,65536,2048 --runs 3 --warmup 1 --layers 10 \
    --json "$out/mem_sweep.json"
run alloc_sweep env CLPARITY_TEST_HOOK=fail-alloc:12 $clp sweep -d nvidia -d host --vary width \
    --grid 256,512,1024,2048 --engines cl:own,cl:clblast,host:openblas "${sw[@]}" \
    --json "$out/alloc_sweep.json"
run enqueue_compare env CLPARITY_TEST_HOOK=fail-enqueue:40 $clp compare -d nvidia -d host \
    --engines cl:own,cl:clblast,host:exact --d-model 256 --layers 8 --batch 16 \
    --json "$out/enqueue_compare.json" --save "$out/enqueue_compare.save"
run enqueue_run env CLPARITY_TEST_HOOK=fail-enqueue:40 $clp run -d nvidia -d host \
    --engines cl:own,cl:clblast,host:exact --d-model 256 --layers 8 --batch 16 \
    --json "$out/enqueue_run.json" --save "$out/enqueue_run.save"
run enqueue_compare_diff $clp diff "$out/enqueue_compare.save" "$out/enqueue_run.save"
run enqueue_sweep env CLPARITY_TEST_HOOK=fail-enqueue:6 $clp sweep -d nvidia -d host \
    --vary batch --grid 1,16,256 --engines cl:own,cl:clblast,host:openblas "${sw[@]}" \
    --json "$out/enqueue_sweep.json"
run enqueue_train env LD_PRELOAD="$PWD/$shim" CLPARITY_FAULT_CLASS=cl-enqueue CLPARITY_FAULT_N=60 \
    CLPARITY_FAULT_REPORT="$out/enqueue_train.report" $clp train -d nvidia -d host \
    --engines cl:own,host:exact --d-model 67 --layers 3 --batch 5 --steps 20 \
    --json "$out/enqueue_train.json"
run build_shim env CLPARITY_CACHE=off LD_PRELOAD="$PWD/$shim" CLPARITY_FAULT_CLASS=cl-build CLPARITY_FAULT_N=1 \
    CLPARITY_FAULT_REPORT="$out/build_shim.report" $clp compare -d nvidia -d host \
    --engines cl:own,cl:clblast,host:exact --d-model 256 --layers 8 --batch 16 \
    --json "$out/build_shim.json"
bad=/tmp/clparity-bad-kernels
rm -rf "$bad"
mkdir -p "$bad"
cp clkernels/*.cl "$bad/"
for f in "$bad"/own_small.cl "$bad"/own_gemm.cl "$bad"/block.cl; do
    printf '\n#error "planted: this kernel source does not compile"\n' >>"$f"
done
run build_source env CLPARITY_KERNEL_DIR="$bad" CLPARITY_CACHE=off $clp compare -d nvidia \
    -d host --engines cl:own,cl:clblast,host:exact --d-model 256 --layers 8 --batch 16 \
    --json "$out/build_source.json"
run build_sweep env CLPARITY_KERNEL_DIR="$bad" CLPARITY_CACHE=off $clp sweep -d nvidia \
    -d host --vary width --grid 256,512 --engines cl:own,cl:clblast,host:openblas "${sw[@]}" \
    --json "$out/build_sweep.json"
run build_shim_cached env LD_PRELOAD="$PWD/$shim" CLPARITY_FAULT_CLASS=cl-build CLPARITY_FAULT_N=1 \
    CLPARITY_FAULT_REPORT="$out/build_shim_cached.report" $clp compare -d nvidia -d host \
    --engines cl:own,cl:clblast,host:exact --d-model 256 --layers 8 --batch 16
