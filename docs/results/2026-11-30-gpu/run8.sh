#!/usr/bin/env bash
# 2026-11-30, eighth GPU call (the H200 machine's 16 Xeon cores): host:exact's and host:f64's
# Adam step at 16 threads with host:openblas in the same process (train's default engines, as
# tools/bench --train rows 1 and 2 run them) and without it, and with OpenBLAS's idle threads
# sleeping sooner (OPENBLAS_THREAD_TIMEOUT=4): do OpenBLAS's spinning threads slow the others?
#   bash docs/results/2026-11-30-gpu/run8.sh          (writes $OUT/run8/)
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/* build/
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c8
R=${OUT:-/tmp/out}
O=$R/run8
mkdir -p "$O"
ms() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(' '.join(f\"{r['engine']}={r['step_ms_mean']:.2f}\" for r in d['results']))" "$1"; }
{
for shape in "--d-model 1024 --layers 16" "--d-model 512 --layers 8"; do
  for round in 1 2; do
    for cfg in default exact_f64 timeout4; do
      eng=""; envs=""
      [ $cfg = exact_f64 ] && eng="--engines host:exact,host:f64"
      [ $cfg = timeout4 ] && envs="OPENBLAS_THREAD_TIMEOUT=4"
      env $envs timeout 60 build/clparity train -d host $shape --batch 64 --steps 20 --every 20 --optimizer adam \
          --lr 0.001 --init-scale 0.5 $eng --json /tmp/t.json > /dev/null 2>&1
      echo "$shape round $round $cfg: $(ms /tmp/t.json)"
    done
  done
done
} > "$O/spin.txt" 2>&1
