#!/bin/sh
# Issue 35 row 4 on the CI machine, in one run: tools/bench --train --local (rows 1, 2, 4), then
# cl:own's trainer alone (train_time, docs/results/2026-11-28-i35-gpu/train_time.c) on PoCL at
# d=128 L=16 B=64 for each CLPARITY_TRAIN_KERNELS way, Adam and SGD, twice in turns. Run from
# the repo root after building (build/libclparity.a):
#   sh docs/results/2026-11-28-i35-pocltrain/measure.sh OUTDIR
set -eu
out=${1:?output dir}
mkdir -p "$out"
tt=$out/train_time
cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -I runtime/include -o "$tt" \
    docs/results/2026-11-28-i35-gpu/train_time.c build/libclparity.a -lOpenCL -lclblast \
    -lopenblas -lcjson -lcrypto -lm -lpthread
{
    date -u
    uptime
    OCL_ICD_VENDORS= python3 tools/bench --train --local --rounds 3 --train-steps 5 \
        --train-json "$out/bench_train.json"
    for round in 1 2; do
        for opt in adam sgd; do
            echo "train_time round $round, $opt:"
            OCL_ICD_VENDORS=build/icd/pocl "$tt" pthread 128 16 64 "$opt" 20 cpu simple tiled4 \
                tiled8 auto
        done
    done
    uptime
    date -u
} 2>&1 | tee "$out/measure.txt"
