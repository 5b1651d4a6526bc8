#!/usr/bin/env bash
# 2026-12-01 (third session), seventh GPU call (H200, its 16 cores, PoCL 5): issue 34's targets
# with main 84efcc3's binary in one `tools/bench --cr` run; cl:cr against host:cr at the
# sweeps' four smaller end points with each method forced (the two points of 2^31 weights ran
# on befc908, whose cl:cr code this main has unchanged); cl:cr's training against host:cr's with
# Adam, AdamW and momentum, 100 steps.
#   bash docs/results/2026-12-01c-gpu/run7.sh          (writes $OUT/run7/)
set -u
source .gpu/setup.sh
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c7
mkdir -p build && cp build-gpu/clparity_main build/clparity
R=${OUT:-/tmp/out}
O=$R/run7
mkdir -p "$O"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nproc; build/clparity --version; } > "$O/env.txt" 2>&1
timeout 380 python3 tools/bench --cr --gpu NVIDIA --pocl portable --rounds 1 --cr-min-time 0.2 \
    --cr-json "$O/bench_cr_gpu.json" > "$O/bench_cr_gpu.txt" 2>&1
echo "rc=$?" >> "$O/bench_cr_gpu.txt"
for m in "" method=f32 exact=1; do
  for shape in "--d-model 128 --layers 128 --batch 1" "--d-model 128 --layers 128 --batch 2048" \
               "--d-model 64 --layers 128 --batch 1" "--d-model 128 --layers 3840 --batch 1 --init-scale 0.05"; do
    CLPARITY_CR_TUNE=$m timeout 45 build/clparity compare -d NVIDIA -d host --engines cl:cr,host:cr \
        --expect cr --runs 1 --warmup 0 $shape > "$O/c.txt" 2>&1
    echo "CLPARITY_CR_TUNE=$m $shape: exit $? $(grep -E '^  cr  ' "$O/c.txt" | head -1)"
  done
done > "$O/cr_bits.txt" 2>&1
for opt in adam adamw momentum; do
  timeout 60 build/clparity train -d NVIDIA -d host --engines cl:cr,host:cr --optimizer $opt \
      --steps 100 --quiet > "$O/t.txt" 2>&1
  echo "train cl:cr,host:cr --optimizer $opt --steps 100: exit $? $(grep -E 'cl:cr ' "$O/t.txt" | tail -1)"
done > "$O/cr_train.txt" 2>&1
rm -f "$O/c.txt" "$O/t.txt"
grep -E '^[1-7][ab]? |^1bw' "$O/bench_cr_gpu.txt"; tail -2 "$O/bench_cr_gpu.txt"; cat "$O/cr_bits.txt" "$O/cr_train.txt"
