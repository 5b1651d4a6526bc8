#!/usr/bin/env bash
# Issue 13 on the GPU machine's 16 cores (PoCL 5, OpenBLAS with OPENBLAS_CORETYPE=SkylakeX
# where the CPU has AVX-512, PyTorch CPU), as run through the device tool with carry ["build"]
# (or after tools/setup.sh):
#   source .gpu/setup.sh; bash tools/gpu/cpu.sh "$OUT"
# First the exactness of cl:own's CPU kernels (own_cpu.cl) and of host:exact's threads on
# PoCL 5, then `tools/bench --cpu`: every point of the post's four grids and three large-batch
# points, host:openblas, the bare OpenBLAS loop, PyTorch CPU (one worker process),
# cl:own on PoCL and host:exact, with a per-point budget of 2^27 parameters (the GPU sweeps'
# params budget; PoCL 5 there has 3.72 GiB of global memory, and cl:own holds two copies of the
# weights). About 4-6 minutes on 16 cores (3.9 on 2 cores without PyTorch, 3 rounds); the bench
# starts no new point after 390 s and lists what it left out (the grids run in the order
# extra, batch, width, depth, params), so that the whole stays inside 8 minutes. Writes cpu_devices.txt, cpu_exact.txt, cpu_paths.txt, bench_cpu.txt and
# bench_cpu.csv; draw the plot here with tools/plot_cpu bench_cpu.csv bench_cpu.png.
# Optional: a second argument lists the bench's grids (tools/bench --cpu-grids), a third its
# time limit in seconds (default 390); with a second argument the exactness and path runs are
# skipped when it starts with "bench:" (e.g. bench:depth,params, or bench:all for every grid).
# A fourth argument sets the bench's rounds per point (tools/bench --cpu-rounds, default 1).
# A second argument "probe" runs the exactness and path runs and tools/gpu/blas_threads.py
# (host:openblas's splits against the bare loop and PyTorch, blas_threads.txt) instead of the
# bench; "gu" only times cpug with tune gu = 1, 2, 4 beside host:openblas at B = 1, where it
# lost most (d=1024 L=128: 0.37 on 2026-11-25 16:47 UTC), into cpug_gu.txt.
set -u
out=${1:-gpu-out}
grids=${2:-}
limit=${3:-390}
rounds=${4:-1}
only_bench=0
case "$grids" in bench:*) only_bench=1; grids=${grids#bench:} ;; esac
[ "$grids" = all ] && grids=
mkdir -p "$out"
clp=build/clparity
export XDG_CACHE_HOME=/tmp/clparity-xdg
# OpenBLAS's core by the instruction set, never assumed: Debian's 0.3.21 picks its generic core
# on the GPU machine's AVX-512 CPU, and SkylakeX on a CPU without AVX-512 would not run.
if [ -z "${OPENBLAS_CORETYPE:-}" ] && grep -qw avx512f /proc/cpuinfo; then
    export OPENBLAS_CORETYPE=SkylakeX
fi
{
    date -u
    nproc
    $clp devices
} >"$out/cpu_devices.txt" 2>&1
status=0
# time_run LABEL ENGINE SELECTOR D L B [VAR=VALUE...]: one line, the engine's median, min and
# max over 5 timed runs after 1 warm-up, ms
time_run() {
    local label=$1 engine=$2 sel=$3 d=$4 l=$5 b=$6
    shift 6
    printf 'd=%s L=%s B=%s %-6s ' "$d" "$l" "$b" "$label"
    env "$@" timeout 60 $clp run -d "$sel" --engines "$engine" --no-reference --d-model "$d" \
        --layers "$l" --batch "$b" --runs 5 --warmup 1 2>&1 | grep -E " $engine +[0-9.]+ " |
        awk '{print "median", $(NF-6), "min", $(NF-5), "max", $(NF-4), "ms"}'
}
if [ "$grids" = gu ]; then
    for s in "1024 128" "512 128" "256 128" "2048 32"; do
        set -- $s
        for gu in 1 2 4; do
            time_run "gu=$gu" cl:own portable "$1" "$2" 1 CLPARITY_OWN_KERNEL=cpug \
                CLPARITY_OWN_TUNE=gu=$gu
        done
        time_run blas host:openblas host "$1" "$2" 1
    done >"$out/cpug_gu.txt" 2>&1
    cat "$out/cpug_gu.txt"
    exit $status
fi
if [ "$only_bench" = 0 ]; then
for v in "cpu 1025 2 17 1" "cpu1 1023 3 5 2" "cpu1 128 128 1 16" "cpu 257 4 1 16" \
    "cpu1 257 3 17 3" "vec 1024 4 1024 16" "cpug 67 5 1 16" "cpug 1025 3 3 2" "cpug 260 4 5 16"; do
    set -- $v
    echo "== CLPARITY_OWN_KERNEL=$1 CLPARITY_HOST_THREADS=$5 compare -d portable -d host --d-model $2 --layers $3 --batch $4"
    CLPARITY_OWN_KERNEL=$1 CLPARITY_HOST_THREADS=$5 timeout 60 $clp compare -d portable -d host \
        --expect bitwise --engines cl:own,host:exact --d-model "$2" --layers "$3" --batch "$4" \
        --runs 2 --warmup 0 | tail -3
    rc=${PIPESTATUS[0]}
    echo "exit status: $rc"
    [ "$rc" = 0 ] || status=1
done >"$out/cpu_exact.txt" 2>&1
# cl:own's PoCL paths at B = 1 to 16, each forced, beside host:openblas: the measurement behind
# own_rules (runtime/opencl/own_path.c). cpug (cp_cpu_grid: the work-groups share each layer
# and meet at a device-wide barrier) won every one of these points on 16 cores (2026-11-25
# 16:28 UTC, docs/PERFORMANCE.md) and is PoCL's default there up to B = 16.
for d in "128 128 1" "128 1024 1" "256 128 1" "512 128 1" "1024 128 1" "2048 32 1" \
    "128 128 4" "128 128 16" "512 16 16" "1024 16 4"; do
    set -- $d
    for k in cpu1 cpug cpu vec; do
        time_run "$k" cl:own portable "$1" "$2" "$3" CLPARITY_OWN_KERNEL=$k
    done
    time_run blas host:openblas host "$1" "$2" "$3"
done >"$out/cpu_paths.txt" 2>&1
fi
if [ "$grids" = probe ]; then
    timeout $((limit + 60)) python3 tools/gpu/blas_threads.py --rounds 2 --time-limit "$limit" \
        >"$out/blas_threads.txt" 2>&1 || status=1
    exit $status
fi
timeout $((limit + 60)) python3 tools/bench --cpu --cpu-time-limit "$limit" --cpu-rounds "$rounds" \
    ${grids:+--cpu-grids "$grids"} \
    --cpu-csv "$out/bench_cpu.csv" >"$out/bench_cpu.txt" 2>&1 || status=1
exit $status
