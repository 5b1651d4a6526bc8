#!/usr/bin/env bash
# 2026-11-30 (second session), tenth GPU call (H200 and its 16 cores): issue 35 acceptance 1 for
# this session's host changes: every engine's final weights hash with main 23ccdca
# (clparity_old) and 788f3bf (clparity_new), at two shapes and four optimizers, on the GPU and the
# host at 16 threads (where par_share's threads take each other's units), and at each forced
# host ISA level.
#   bash docs/results/2026-11-30b-gpu/run10.sh          (writes $OUT/run10/)
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/* build/
export OPENBLAS_CORETYPE=SkylakeX XDG_CACHE_HOME=/tmp/c10
R=${OUT:-/tmp/out}
O=$R/run10
mkdir -p "$O"
E="cl:own,cl:cr,host:exact,host:f64,host:cr"
{
for shape in "--d-model 77 --layers 3 --batch 13" "--d-model 130 --layers 4 --batch 33" "--d-model 256 --layers 6 --batch 64"; do
  for opt in "--optimizer sgd" "--optimizer momentum --nesterov" "--optimizer adam" "--optimizer adamw --weight-decay 0.01"; do
    for isa in "" avx2 baseline; do
      line=""
      for v in old new; do
        CLPARITY_HOST_ISA=$isa build/clparity_$v train -d NVIDIA,host --engines $E $shape $opt --steps 12 --target random --quiet --json /tmp/h.json > /dev/null 2>&1
        rc=$?
        line="$line $v rc=$rc $(python3 -c "import json; d=json.load(open('/tmp/h.json')); print(','.join(r['engine']+'='+r['hash'] for r in d['results']))" 2>/dev/null)"
      done
      set -- $line
      same=$([ "$3" = "$6" ] && echo SAME || echo DIFF)
      echo "$same isa=${isa:-default} $shape $opt:$line"
    done
  done
done
} > "$O/hashes.txt" 2>&1
grep -c SAME "$O/hashes.txt"; grep -c DIFF "$O/hashes.txt"
