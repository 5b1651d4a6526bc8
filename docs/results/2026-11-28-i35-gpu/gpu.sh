#!/bin/sh
# cl:own's training step on the GPU, simple kernels (as before issue 35) against the tiled ones
# (CLPARITY_TRAIN_KERNELS), and their bits. Run from the repo root on the GPU machine, with
# build/clparity and build/train_time carried (or build/libclparity.a and OpenCL's headers, to
# build train_time there) and the NVIDIA ICD registered:
#   OPENBLAS_CORETYPE=SkylakeX sh docs/results/2026-11-28-i35-gpu/gpu.sh [OUTDIR] [GPU-NAME]
# e.g. OUTDIR "$OUT" on the device machine.
# OUTDIR defaults to docs/results/2026-11-28-i35-gpu/gpu-out, GPU-NAME (a substring of the
# device's name) to H200. About 3 minutes. Writes OUTDIR/times.txt (ms per step per way, from
# train_time.c: cl:own alone, no host references), OUTDIR/bits.txt (train against host:exact at
# every step, each way; hashes of the saved weights across ways) and OUTDIR/summary.txt.
# Exit 1 where any hash or train run differs.
set -u
here=$(dirname "$0")
out=${1:-$here/gpu-out}
gpu=${2:-H200}
clp=build/clparity
mkdir -p "$out"
: >"$out/times.txt"
: >"$out/bits.txt"
bad=0
{
    date -u
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
    git rev-parse HEAD 2>/dev/null
    $clp devices 2>&1 | grep -i -A3 "$gpu" | head -4
} >"$out/env.txt"

# the timing program: build/train_time where carried (made beside build/clparity by
#   cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -I runtime/include -o build/train_time \
#      docs/results/2026-11-28-i35-gpu/train_time.c build/libclparity.a -lOpenCL -lclblast \
#      -lopenblas -lcjson -lcrypto -lm -lpthread
# ), else built here the same way (OpenCL's headers needed)
tt=build/train_time
if [ ! -x "$tt" ]; then
    tt=$out/train_time
    cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -I runtime/include -o "$tt" "$here/train_time.c" \
        build/libclparity.a -lOpenCL -lclblast -lopenblas -lcjson -lcrypto -lm -lpthread \
        >"$out/cc.txt" 2>&1 || { echo "gpu.sh: cannot build train_time (see $out/cc.txt)"; tt=; }
fi

# 1. time per step: simple against auto (tiled on a GPU), and each tile size forced
if [ -n "$tt" ]; then
    # SHAPES ("d L B steps;..."), for a trial elsewhere
    shapes=${SHAPES:-128 128 1 50;128 128 64 50;1024 16 64 50;4096 8 1024 5}
    echo "$shapes" | tr ';' '\n' | while read -r shape; do
        set -- $shape
        ways="simple auto tiled1 tiled4 tiled8"
        [ "$1" = 4096 ] && ways="simple auto tiled8"
        for opt in sgd adam; do
            # shellcheck disable=SC2086
            timeout 100 "$tt" "$gpu" "$1" "$2" "$3" "$opt" "$4" $ways >>"$out/times.txt" \
                2>>"$out/times_err.txt" || echo "train_time $shape $opt failed" >>"$out/times.txt"
        done
    done
fi

# 2. bits: train against host:exact at every step (exit 0: the same bits), each way, and the
# saved weights' hashes across ways
for c in "--d-model 128 --layers 128 --batch 1 --init-scale 0.1 --optimizer adam --lr 1e-4" \
    "--d-model 129 --layers 3 --batch 65 --optimizer adamw --weight-decay 0.1 --lr 1e-3" \
    "--d-model 77 --layers 3 --batch 13 --optimizer momentum --nesterov" \
    "--d-model 200 --layers 4 --batch 300 --optimizer sgd --init-scale 0.5" \
    "--model tests/fixtures/digits.safetensors --batch 9 --target random --optimizer adam"; do
    ref=
    line=
    for way in simple auto tiled1 tiled4 tiled8; do
        rm -rf "$out/save"
        # shellcheck disable=SC2086
        CLPARITY_TRAIN_KERNELS=$way timeout 100 $clp train -d "$gpu",host \
            --engines cl:own,host:exact $c --steps 5 --every 1 --quiet --save "$out/save" \
            >"$out/train_$way.txt" 2>&1
        rc=$?
        h=$(cat "$out"/save/p*.cl-own*.npy 2>/dev/null | sha256sum | cut -c1-16)
        [ -n "$ref" ] || ref=$h
        line="$line $way:rc=$rc,$h"
        if [ $rc != 0 ] || [ "$h" != "$ref" ]; then
            bad=$((bad + 1))
            line="$line(BAD)"
            tail -5 "$out/train_$way.txt" >>"$out/bits.txt"
        fi
    done
    echo "$c:$line" >>"$out/bits.txt"
done
# the timing runs' hashes: every way of one shape and optimizer the same
if [ -s "$out/times.txt" ]; then
    n=$(grep '^way=' "$out/times.txt" | sed 's/^way=[^ ]* //; s/ ms\/step=[^ ]*//; s/ loss=[^ ]*//' |
        sort -u | awk '{print $1, $2, $3, $4}' | uniq -d | wc -l)
    [ "$n" = 0 ] || { echo "times.txt: $n shapes whose ways' hashes differ" >>"$out/bits.txt"; bad=$((bad + 1)); }
fi

{
    echo "cl:own training on $gpu, ms per step (train_time.c; PyTorch's captured graph on the H200,"
    echo "issue 35: d=128 L=128 B=1 Adam 5.98, B=64 Adam 7.54, d=1024 L=16 B=64 Adam 1.50)"
    awk '/^way=/ { split($0, f, " "); key = f[2] " " f[3] " " f[4] " " f[5];
                   sub("ms/step=", "", f[6]); ms[key, f[1]] = f[6]; if (!(key in seen)) { seen[key] = 1; order[++n] = key } }
         END { for (i = 1; i <= n; ++i) { k = order[i];
                 printf "%-28s simple %9s  auto %9s  tiled1 %9s  tiled4 %9s  tiled8 %9s\n", k,
                 ms[k, "way=simple"], ms[k, "way=auto"], ms[k, "way=tiled1"], ms[k, "way=tiled4"], ms[k, "way=tiled8"] } }' "$out/times.txt"
    echo
    cat "$out/bits.txt"
    echo "bits: $bad problems"
} >"$out/summary.txt"
cat "$out/summary.txt"
[ "$bad" = 0 ]
