#!/usr/bin/env bash
# 2026-12-01 (third session), second GPU call (H200 and its 16 Xeon cores): issue 35's five
# targets with main 84efcc3's binary (build-gpu/clparity_main) in one `tools/bench --train` run
# of rows 1, 2, 4, 5 (3 rounds) and one of row 3 (1 round: PyTorch's graph and eager beside
# cl:own at each point); then acceptance 1 on the GPU: every engine's training weights (cl:own
# on the H200, host:exact, host:f64 at 16 threads) against main 021c5dd's binary
# (build-gpu/clparity_021, the main issue 35 was filed on), two shapes, four optimizers.
#   bash docs/results/2026-12-01c-gpu/run2.sh          (writes $OUT/run2/)
set -u
source .gpu/setup.sh
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c2
mkdir -p build && cp build-gpu/clparity_main build/clparity
R=${OUT:-/tmp/out}
O=$R/run2
mkdir -p "$O"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nproc; build/clparity --version; } > "$O/env.txt" 2>&1
timeout 300 python3 tools/bench --train --gpu NVIDIA --pocl portable --only 1,2,4,5 --rounds 3 --train-steps 10 \
    --train-timeout 100 --train-json "$O/bench_train_gpu.json" > "$O/bench_train_gpu.txt" 2>&1
echo "rc=$?" >> "$O/bench_train_gpu.txt"
timeout 200 python3 tools/bench --train --gpu NVIDIA --only 3 --rounds 1 --train-steps 5 \
    --train-timeout 100 --train-json "$O/bench_train_gpu_row3.json" > "$O/bench_train_gpu_row3.txt" 2>&1
echo "rc=$?" >> "$O/bench_train_gpu_row3.txt"
for shape in "--d-model 77 --layers 3 --batch 13" "--d-model 256 --layers 4 --batch 64"; do
  for opt in sgd "momentum --nesterov" adam "adamw --weight-decay 0.01"; do
    for b in clparity_021 clparity_main; do
      XDG_CACHE_HOME=/tmp/c2_$b timeout 60 build-gpu/$b train -d NVIDIA -d host \
          --engines cl:own,host:exact,host:f64 $shape --optimizer $opt --steps 8 --lr 0.01 \
          --json "$O/t_$b.json" > /dev/null 2>&1
      echo "rc $?" > "$O/rc_$b"
    done
    python3 - "$O" "$shape $opt" <<'PY'
import json, sys
o, what = sys.argv[1], sys.argv[2]
h = {}
for b in ("clparity_021", "clparity_main"):
    d = json.load(open(f"{o}/t_{b}.json"))
    h[b] = sorted((r["engine"], r["hash"]) for r in d["results"])
rc = [open(f"{o}/rc_{b}").read().strip() for b in ("clparity_021", "clparity_main")]
same = h["clparity_021"] == h["clparity_main"] and len(h["clparity_main"]) == 3
print("SAME" if same else "DIFFER", what, rc, h["clparity_main"])
PY
  done
done > "$O/own_before_after.txt" 2>&1
grep -E '^[1-5] ' "$O/bench_train_gpu.txt" "$O/bench_train_gpu_row3.txt"; tail -3 "$O/bench_train_gpu.txt"
cat "$O/own_before_after.txt"
