#!/usr/bin/env bash
# Issue 35 rows 1 and 2 (host:exact's and host:f64's step over host:exact's forward) on the GPU
# machine's 16 cores, after branch i35-hostfuse (the optimizer fused into the backward, no pack
# phase): tools/bench --train --local at 2 threads and all cores (at most 16), without PoCL
# (OCL_ICD_VENDORS empty: row 4 is then "not measured"), written beside this script. With
# OLD=path/to/an/older/clparity the same run follows with that binary (--clparity), for the
# before/after ratios in one session. Run from the repository root after building:
#   bash docs/results/2026-11-28-i35-hostfuse/gpu_host_train.sh
set -u
here=$(dirname "$0")
nproc
OCL_ICD_VENDORS= python3 tools/bench --train --local --rounds 5 --train-steps 5 \
    --train-json "$here/bench_host_train_gpu.json" 2>&1 | tee "$here/bench_host_train_gpu.txt"
if [ -n "${OLD:-}" ]; then
    OCL_ICD_VENDORS= python3 tools/bench --train --local --rounds 5 --train-steps 5 \
        --clparity "$OLD" --train-json "$here/bench_host_train_gpu_old.json" 2>&1 |
        tee "$here/bench_host_train_gpu_old.txt"
fi
