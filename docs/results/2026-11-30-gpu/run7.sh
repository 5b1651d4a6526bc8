#!/usr/bin/env bash
# 2026-11-30, seventh GPU call (the H200 machine's 16 Xeon cores): where host:exact's Adam step
# goes at d=1024 L=16 B=64 on 16 threads (issue 35 row 1's worst point in earlier runs):
# `perf record` (this machine's perf 6.1 and its libraries, carried in .perf/), 40 steps.
#   bash docs/results/2026-11-30-gpu/run7.sh          (writes $OUT/run7/)
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/* build/
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c7
R=${OUT:-/tmp/out}
O=$R/run7
mkdir -p "$O"
PERF="env LD_LIBRARY_PATH=$PWD/.perf/lib:${LD_LIBRARY_PATH:-} $PWD/.perf/perf"
S="--d-model 1024 --layers 16 --batch 64 --init-scale 0.5 --optimizer adam --lr 0.001 --quiet --no-f64 --engines host:exact,host:openblas"
{
  build/clparity run -d host --engines host:exact --d-model 1024 --layers 16 --batch 64 --no-reference --runs 30 2>&1 | grep -E "host:exact" | head -3
  for i in 1 2; do
    build/clparity train -d host $S --steps 40 --json "$O/train$i.json" > /dev/null 2>&1
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print([(r['engine'], round(r['step_ms_mean'],3)) for r in d['results']])" "$O/train$i.json"
  done
  $PERF record -g -o /tmp/perf.data -F 1999 -- build/clparity train -d host $S --steps 40 > /dev/null 2>&1
  echo "perf rc=$?"
  $PERF report -i /tmp/perf.data --stdio --no-children --sort symbol --percent-limit 0.8 -g none 2>/dev/null | grep -v "^#" | grep -v "^$" | head -45
  $PERF report -i /tmp/perf.data --stdio --no-children --sort comm,dso --percent-limit 2 -g none 2>/dev/null | grep -v "^#" | grep -v "^$" | head -12
  $PERF report -i /tmp/perf.data --stdio --children --sort symbol --percent-limit 4 -g none 2>/dev/null | grep -v "^#" | grep -v "^$" | head -40
} > "$O/perf.txt" 2>&1
