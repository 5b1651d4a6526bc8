#!/bin/sh
# cl:own's training weights and optimizer state on a CPU device, the old binary's (its default
# way: simple on CPUs) against this one's for each CLPARITY_TRAIN_KERNELS way in WAYS (default
# auto simple cpu), at odd shapes (d=37, 130; B=1, 5, 7, 70; the fixtures' MLPs: biases,
# in != out), for sgd, sgd with weight decay, momentum, nesterov with weight decay, adam and
# adamw. Each new run must also exit 0: train compares every step's weights with host:exact's.
# Run from the repo root:
#   OLD=/work/main/build/clparity OCL_ICD_VENDORS=build/icd/pocl sh bits.sh OUTDIR [DEVICE]
# Prints one line per case and 'bits: N cases, M differ'; exit 1 where any differs or fails.
set -u
out=${1:?output dir}
dev=${2:-pocl}
old=${OLD:-/work/main/build/clparity}
new=${NEW:-build/clparity}
ways=${WAYS:-auto simple cpu}
mkdir -p "$out"
fx=tests/fixtures
cases=${CASES:-"--d-model=37,--layers=3,--batch=5
--d-model=130,--layers=4,--batch=7
--d-model=64,--layers=4,--batch=1
--d-model=33,--layers=5,--batch=70
--model=$fx/digits.safetensors,--batch=9,--target=random
--model=$fx/seq_export.safetensors,--batch=3,--target=random"}
opts="sgd,--lr=0.01
sgd,--lr=0.01,--weight-decay=0.01
momentum,--lr=0.01
momentum,--lr=0.01,--nesterov,--weight-decay=0.01
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
            --quiet --allow-slow --save "$out/old" >"$out/old.txt" 2>&1 ||
            { echo "old failed: $args"; cat "$out/old.txt"; }
        ref=$(cat "$out"/old/p*.cl-own*.npy | sha256sum | cut -c1-16)
        line="$ref"
        for way in $ways; do
            rm -rf "$out/new"
            # shellcheck disable=SC2086
            if ! CLPARITY_TRAIN_KERNELS=$way "$new" train -d "$dev",host --engines \
                cl:own,host:exact $args --steps 4 --every 1 --quiet --allow-slow \
                --save "$out/new" >"$out/new.txt" 2>&1; then
                echo "new ($way) failed: $args"
                cat "$out/new.txt"
                bad=$((bad + 1))
            fi
            h=$(cat "$out"/new/p*.cl-own*.npy | sha256sum | cut -c1-16)
            line="$line $way=$h"
            [ "$h" = "$ref" ] || { bad=$((bad + 1)); line="$line(DIFFERS)"; }
        done
        echo "$args: $line"
    done
done
echo "bits: $n cases, $bad differ"
[ "$bad" -eq 0 ]
