#!/usr/bin/env bash
# Done on 2026-11-29 by docs/results/2026-11-29-gpu/run1.sh, run2a.sh, run2b.sh and run3.sh (the
# same parts, regrouped for that session's device time; their outputs are there).
# What issues 34, 35 and 36 still need from the GPU machine (2026-11-28's second session had no
# device time left), in three device calls of under 10 minutes each. From the repository root on
# the GPU machine, with build/clparity, build/compare_example, build/libclparity.so* and .gpu/
# carried (../shared/gpu/prepare stages .gpu/):
#   bash docs/results/2026-11-28-next-gpu/run.sh walk    issue 36's newcomer walk (all 45 steps),
#                                                        then issue 34's acceptance 2 and 3 bits
#   bash docs/results/2026-11-28-next-gpu/run.sh train   tools/bench --train, every row (35)
#   bash docs/results/2026-11-28-next-gpu/run.sh cr      tools/bench --cr, GPU rows 1-4 (34)
#   bash docs/results/2026-11-28-next-gpu/run.sh variants cl:cr's variants forced one by one at
#                                                        row 2's and row 1's points (team and
#                                                        tiles were never timed on a GPU)
# A session has 30 minutes of device time, the machine's start included: run them in this order
# (walk can close issue 36; train and cr give issues 35 and 34 their rows), variants last.
# Everything goes to $OUT (else /tmp/out), tarred as $OUT/PART.tgz: the device tool returns a
# limited number of files, so only the tarball and a short log are meant to come back.
set -u
part=${1:?usage: run.sh walk|train|cr|variants}
source .gpu/setup.sh
export OPENBLAS_CORETYPE=SkylakeX
O=${OUT:-/tmp/out}/$part
mkdir -p "$O"
T0=$SECONDS
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nproc; git log -1 --format=%H 2>/dev/null; build/clparity --version; } > "$O/env.txt" 2>&1
log() { echo "== $1 at t=$((SECONDS - T0)) s" | tee -a "$O/parts.txt"; }
case $part in
walk)
    log walk
    WALK_TIMEOUT=120 timeout 400 bash docs/results/2026-11-28-i36-walk/walk.sh build/clparity "$O/walk" > "$O/walk.log" 2>&1
    echo "rc=$?" >> "$O/walk.log"
    log cr-bits
    # issue 34, acceptance 2: cl:cr against host:cr at a sweep's smallest and largest point,
    # each method forced in turn (--expect cr fails on any difference)
    for m in "" "method=f32" "exact=1"; do
        for shape in "--d-model 16 --layers 2 --batch 1" "--d-model 4096 --layers 8 --batch 64"; do
            echo "### CLPARITY_CR_TUNE=$m $shape"
            CLPARITY_CR_TUNE=$m timeout 60 build/clparity compare -d gpu,host --engines cl:cr,host:cr \
                --expect cr --runs 2 $shape 2>&1 | grep -E "^  cr  |error|^clparity"
            echo "rc=${PIPESTATUS[0]}"
        done
    done > "$O/cr_bits.txt" 2>&1
    log cr-train
    # issue 34, acceptance 3: correctly rounded training, bit-identical at every step
    for opt in adam adamw momentum; do
        echo "### $opt"
        timeout 60 build/clparity train -d gpu,host --engines cl:cr,host:cr --optimizer $opt --steps 100 \
            --d-model 33 --layers 3 --batch 5 --every 25 --target random 2>&1 | tail -6
        echo "rc=${PIPESTATUS[0]}"
    done > "$O/cr_train.txt" 2>&1
    ;;
train)
    log bench-train
    XDG_CACHE_HOME=/tmp/ct timeout 560 python3 tools/bench --train --gpu NVIDIA --pocl portable --rounds 2 \
        --train-steps 3 --train-timeout 200 --train-json "$O/bench_train_gpu.json" > "$O/bench_train_gpu.txt" 2>&1
    echo "rc=$?" >> "$O/bench_train_gpu.txt"
    ;;
cr)
    log bench-cr
    XDG_CACHE_HOME=/tmp/cc timeout 560 python3 tools/bench --cr --gpu NVIDIA --only 1,2,3,4 --rounds 1 \
        --cr-min-time 0.2 --cr-json "$O/bench_cr_gpu.json" > "$O/bench_cr_gpu.txt" 2>&1
    echo "rc=$?" >> "$O/bench_cr_gpu.txt"
    ;;
variants)
    log variants
    # cl:cr with each variant forced beside cl:own in one process (clparity's adaptive runs),
    # the hash checked against host:cr by --expect cr; a variant the device refuses says why
    for shape in "--d-model 128 --layers 128 --batch 1" "--d-model 1024 --layers 128 --batch 1" \
        "--d-model 128 --layers 128 --batch 256"; do
        for v in path=stream path=team path=gemv path=splitk path=tiles path=gemm "path=team,split=8" \
            "path=team,split=2" "method=f32"; do
            if [ $((SECONDS - T0)) -gt 500 ]; then echo "### stopped: 500 s used"; break 2; fi
            echo "### $shape CLPARITY_CR_TUNE=$v"
            CLPARITY_CR_TUNE=$v XDG_CACHE_HOME=/tmp/cv timeout 40 build/clparity compare -d gpu,host \
                --engines cl:own,cl:cr,host:cr --expect cr $shape --runs 30 2>&1 |
                grep -E "^R[0-9] .* runs |^R[0-9] |^ *cr  |^ran:|^ +cl:cr on|error|^clparity" | head -40
            echo "rc=${PIPESTATUS[0]}"
        done
    done > "$O/variants.txt" 2>&1
    ;;
*) echo "run.sh: unknown part '$part' (walk, train, cr or variants)"; exit 2 ;;
esac
log end
tar czf "${OUT:-/tmp/out}/$part.tgz" -C "${OUT:-/tmp/out}" "$part" && rm -rf "$O"
