#!/usr/bin/env bash
# 2026-11-30, sixth GPU call (the H200 machine's 16 Xeon cores): issue 35 rows 1 and 2 with
# Adam (the bench's optimizer) and with SGD side by side, and `clparity peak -d host` (the
# triad's bandwidth): how much of the step at 16 threads is the optimizer's memory traffic.
#   bash docs/results/2026-11-30-gpu/run6.sh          (writes $OUT/run6/)
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/* build/
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c6
R=${OUT:-/tmp/out}
O=$R/run6
mkdir -p "$O"
{ date -u; nproc; lscpu | grep -E "Model name|Socket|NUMA node\(s\)|L3"; build/clparity --version; } > "$O/env.txt" 2>&1
timeout 60 build/clparity peak -d host --remeasure > "$O/peak_host.txt" 2>&1
for opt in adam sgd; do
  lr=0.001; [ $opt = sgd ] && lr=0.0001 # SGD diverges at d=128 L=128 with 1e-3
  timeout 170 python3 tools/bench --train --local --only 1,2 --rounds 1 --train-steps 5 \
      --train-optimizer $opt --train-lr $lr --train-json "$O/bench_train_$opt.json" > "$O/bench_train_$opt.txt" 2>&1
  echo "rc=$?" >> "$O/bench_train_$opt.txt"
done
