#!/usr/bin/env bash
# cl:own's training weights with the tiled kernels before ($OLDK, a folder of the old .cl
# files, CLPARITY_KERNEL_DIR) and after (the binary's own), every CLPARITY_TRAIN_KERNELS way,
# at three odd shapes and four optimizers; train itself fails (exit 1) where cl:own's weights
# differ from host:exact's at a recorded step. The short form of
# docs/results/2026-11-28-i35-gpu/bits.sh for the GPU's minutes:
#   OLDK=DIR bash bits_gpu.sh OUTDIR [DEVICE]      prints 'bits: N cases, M differ'
set -u
out=${1:?output dir}
dev=${2:-gpu}
clp=${CLP:-build/clparity}
mkdir -p "$out"
fx=tests/fixtures
cases=("--d-model 77 --layers 3 --batch 13" "--d-model 129 --layers 2 --batch 65"
    "--model $fx/digits.safetensors --batch 9 --target random")
opts=("sgd --lr 0.01" "momentum --lr 0.01 --nesterov" "adam --lr 0.001" "adamw --lr 0.001 --weight-decay 0.1")
n=0 bad=0
hash() { cat "$1"/p*.cl-own*.npy | sha256sum | cut -c1-16; }
for c in "${cases[@]}"; do
    for o in "${opts[@]}"; do
        n=$((n + 1))
        rm -rf "$out/old"
        # shellcheck disable=SC2086
        CLPARITY_KERNEL_DIR=${OLDK:?} "$clp" train -d "$dev",host --engines cl:own,host:exact $c \
            --optimizer $o --steps 4 --every 1 --quiet --save "$out/old" > "$out/old.txt" 2>&1 ||
            { echo "old failed: $c $o"; tail -3 "$out/old.txt"; bad=$((bad + 1)); }
        ref=$(hash "$out/old")
        line="old=$ref"
        for way in ${WAYS:-auto tiled1 tiled4 tiled8}; do
            rm -rf "$out/new"
            # shellcheck disable=SC2086
            CLPARITY_TRAIN_KERNELS=$way "$clp" train -d "$dev",host --engines cl:own,host:exact $c \
                --optimizer $o --steps 4 --every 1 --quiet --save "$out/new" > "$out/new.txt" 2>&1 ||
                { echo "new ($way) failed: $c $o"; tail -3 "$out/new.txt"; }
            h=$(hash "$out/new")
            line="$line $way=$h"
            [ "$h" = "$ref" ] || { bad=$((bad + 1)); line="$line(DIFFERS)"; }
        done
        echo "$c --optimizer $o: $line"
    done
done
echo "bits: $n cases, $bad differ"
[ "$bad" -eq 0 ]
