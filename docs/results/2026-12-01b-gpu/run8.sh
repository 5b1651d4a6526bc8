#!/usr/bin/env bash
# 2026-12-01 (second session), eighth GPU call (16 Xeon cores only): the weight gradient in
# whole rows of W (build-gpu/clparity_dw, host_time_dw: main with it) in issue 35's rows 1
# and 2 (`tools/bench --train --only 1,2`, 3 rounds), against 8be5675's run6; host:exact's and
# host:f64's step at d=128 L=128 B=64 on 4, 8, 12 and 16 threads; the weights' hashes at 16
# threads against main 39443e5's binary (build-gpu/clparity_main).
#   bash docs/results/2026-12-01b-gpu/run8.sh          (writes $OUT/run8/)
set -u
source .gpu/setup.sh
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c8
mkdir -p build && cp build-gpu/clparity_dw build/clparity
R=${OUT:-/tmp/out}
O=$R/run8
mkdir -p "$O"
{ date -u; nproc; build/clparity --version; } > "$O/env.txt" 2>&1
timeout 300 python3 tools/bench --train --only 1,2 --rounds 3 --train-steps 10 --train-timeout 100 \
    --train-json "$O/bench_train.json" > "$O/bench_train.txt" 2>&1
for r in 1 2; do
  for th in 16 12 8 4; do
    for s in "host:exact 128 128 64 adam 40" "host:f64 128 128 64 adam 30"; do
      echo "r$r th=$th $(CLPARITY_HOST_THREADS=$th timeout 60 build-gpu/host_time_dw $s)"
    done
  done
done > "$O/threads.txt" 2>&1
{
for spec in "--d-model 520 --layers 3 --batch 32" "--d-model 1024 --layers 3 --batch 64" "--d-model 600 --layers 2 --batch 48" "--d-model 200 --layers 3 --batch 64"; do
  for opt in sgd adam "adamw --weight-decay 0.01"; do
    for b in clparity_main clparity_dw; do
      CLPARITY_HOST_THREADS=16 build-gpu/$b train -d host --engines host:exact,host:f64 $spec --steps 5 \
        --optimizer $opt --lr 0.01 --json "$O/h_$b.json" --quiet > /dev/null 2>&1 || echo "failed $b $spec $opt"
    done
    a=$(python3 -c "import json,sys; print([(r['engine'], r['hash']) for r in json.load(open(sys.argv[1]))['results']])" "$O/h_clparity_main.json")
    c=$(python3 -c "import json,sys; print([(r['engine'], r['hash']) for r in json.load(open(sys.argv[1]))['results']])" "$O/h_clparity_dw.json")
    [ "$a" = "$c" ] && echo "same $spec $opt: $a" || echo "DIFFER $spec $opt: $a / $c"
  done
done
} > "$O/bits.txt" 2>&1
tail -12 "$O/bench_train.txt"; sed 's/hash=.*//' "$O/threads.txt"; cat "$O/bits.txt"
