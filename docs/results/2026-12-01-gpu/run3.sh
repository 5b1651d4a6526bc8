#!/usr/bin/env bash
# 2026-12-01, third GPU call (H200): the equality points of issues 34 and 35 with main befc908's
# binary (build-gpu/clparity), and 021c5dd's (build-gpu/clparity_old: main when issue 35 was
# filed) for "bit-identical to before".
#   bash docs/results/2026-12-01-gpu/run3.sh          (writes $OUT/run3/)
set -u
source .gpu/setup.sh
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c3
mkdir -p build && cp build-gpu/clparity build/clparity
R=${OUT:-/tmp/out}
O=$R/run3
mkdir -p "$O"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nproc; build/clparity --version; } > "$O/env.txt" 2>&1
# Issue 34, acceptance 2: cl:cr against host:cr at each sweep's smallest and largest point
# (batch B=1, 2048 at d=128 L=128; width d=64, 4096 at L=128; depth L=3840 at d=128; params
# d=128 L=131072), with the double method (default), the float32-only one and the exact
# accumulator forced in turn.
for m in "" method=f32 exact=1; do
  for shape in "--d-model 128 --layers 128 --batch 1" "--d-model 128 --layers 128 --batch 2048" \
               "--d-model 64 --layers 128 --batch 1" "--d-model 4096 --layers 128 --batch 1" \
               "--d-model 128 --layers 3840 --batch 1 --init-scale 0.05" \
               "--d-model 128 --layers 131072 --batch 1 --init-scale 0.001"; do
    echo "### CLPARITY_CR_TUNE=$m $shape"
    CLPARITY_CR_TUNE=$m timeout 45 build/clparity compare -d NVIDIA -d host --engines cl:cr,host:cr \
        --expect cr --runs 1 --warmup 0 $shape > "$O/c.txt" 2>&1
    echo "exit $?"; grep -E "^  cr  |^ran: +cl:cr|rror|PASS|FAIL" "$O/c.txt" | head -6
  done
done > "$O/cr_bits.txt" 2>&1
# Issue 34, acceptance 3: cl:cr's training is host:cr's at every step (train exits 1 otherwise)
for opt in adam adamw momentum; do
  echo "### train cl:cr,host:cr --optimizer $opt --steps 100"
  timeout 100 build/clparity train -d NVIDIA -d host --engines cl:cr,host:cr --optimizer $opt \
      --steps 100 --quiet 2>&1 | tail -4
  echo "exit ${PIPESTATUS[0]}"
done > "$O/cr_train.txt" 2>&1
# Issue 35, acceptance 1 on the GPU: every engine's training weights (hash of the saved
# weights) the same as 021c5dd's, at two shapes, four optimizers
for shape in "--d-model 77 --layers 3 --batch 13" "--d-model 256 --layers 4 --batch 64"; do
  for opt in sgd "momentum --nesterov" adam "adamw --weight-decay 0.01"; do
    for b in clparity_old clparity; do
      timeout 60 build-gpu/$b train -d NVIDIA -d host --engines cl:own,host:exact,host:f64 $shape \
          --optimizer $opt --steps 8 --lr 0.01 --json "$O/t_$b.json" > /dev/null 2>&1
      echo "rc $?" > "$O/rc_$b"
    done
    python3 - "$O" "$shape $opt" <<'PY'
import json, sys
o, what = sys.argv[1], sys.argv[2]
h = {}
for b in ("clparity_old", "clparity"):
    d = json.load(open(f"{o}/t_{b}.json"))
    h[b] = sorted((r["engine"], r["hash"]) for r in d["results"])
rc = [open(f"{o}/rc_{b}").read().strip() for b in ("clparity_old", "clparity")]
print(("SAME" if h["clparity_old"] == h["clparity"] else "DIFFER"), what, rc, h["clparity"])
PY
  done
done > "$O/own_before_after.txt" 2>&1
cat "$O/cr_bits.txt" | grep -c '^exit 0'; grep -v '^###' "$O/cr_train.txt"; cat "$O/own_before_after.txt"
