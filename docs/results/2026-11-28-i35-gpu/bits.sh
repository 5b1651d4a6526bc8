#!/bin/sh
# cl:own's training weights and optimizer state, old binary against this one (every
# CLPARITY_TRAIN_KERNELS way), at odd shapes and the fixtures' MLPs (biases, in != out), for
# sgd, sgd with weight decay, momentum (nesterov), adam and adamw. Run from the repo root:
#   OLD=/work/main/build/clparity OCL_ICD_VENDORS=build/icd/pocl sh bits.sh OUTDIR [DEVICE]
# (WAYS="stream ..." picks the ways of the new binary; default auto tiled tiled1 tiled4 tiled8)
# Prints one line per case and 'bits: N cases, M differ'; exit 1 where any differs.
set -u
out=${1:?output dir}
dev=${2:-pocl}
old=${OLD:-/work/main/build/clparity}
new=${NEW:-build/clparity}
mkdir -p "$out"
fx=tests/fixtures
cases="--d-model=77,--layers=3,--batch=13
--d-model=129,--layers=2,--batch=65
--d-model=64,--layers=4,--batch=1
--d-model=33,--layers=5,--batch=70
--model=$fx/digits.safetensors,--batch=9,--target=random
--model=$fx/seq_export.safetensors,--batch=3,--target=random"
opts="sgd,--lr=0.01
sgd,--lr=0.01,--weight-decay=0.01
momentum,--lr=0.01,--nesterov
adam,--lr=0.001
adamw,--lr=0.001,--weight-decay=0.1"
n=0
bad=0
for c in $cases; do
    for o in $opts; do
        args="$(echo "$c" | tr ',' ' ') --optimizer $(echo "$o" | tr ',' ' ')"
        n=$((n + 1))
        rm -rf "$out/old" "$out/new"
        # shellcheck disable=SC2086
        "$old" train -d "$dev",host --engines cl:own,host:exact $args --steps 4 --every 4 \
            --quiet --save "$out/old" >"$out/old.txt" 2>&1 || { echo "old failed: $args"; cat "$out/old.txt"; }
        ref=$(cat "$out"/old/p*.cl-own*.npy | sha256sum | cut -c1-16)
        line="$ref"
        for way in ${WAYS:-auto tiled tiled1 tiled4 tiled8}; do
            rm -rf "$out/new"
            # shellcheck disable=SC2086
            CLPARITY_TRAIN_KERNELS=$way "$new" train -d "$dev",host --engines cl:own,host:exact \
                $args --steps 4 --every 4 --quiet --save "$out/new" >"$out/new.txt" 2>&1 ||
                { echo "new ($way) failed: $args"; cat "$out/new.txt"; }
            h=$(cat "$out"/new/p*.cl-own*.npy | sha256sum | cut -c1-16)
            line="$line $way=$h"
            [ "$h" = "$ref" ] || { bad=$((bad + 1)); line="$line(DIFFERS)"; }
        done
        echo "$args: $line"
    done
done
echo "bits: $n cases, $bad differ"
[ "$bad" -eq 0 ]
