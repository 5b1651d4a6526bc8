#!/usr/bin/env bash
# 2026-12-01 (second session), second GPU call (its 16 Xeon cores only): host:f64's step with its
# forward (and on 2 threads its input gradient) in the batch's lanes in double (the change:
# build-gpu/clparity_f64l, build-gpu/host_time_f64l) against main 39443e5's
# (build-gpu/clparity_main, build-gpu/host_time_main), alternating; then the weights' hashes of
# both at 16 and 2 threads.
#   bash docs/results/2026-12-01b-gpu/run2.sh          (writes $OUT/run2/)
set -u
source .gpu/setup.sh
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c2
R=${OUT:-/tmp/out}
O=$R/run2
mkdir -p "$O" build
cp build-gpu/clparity_f64l build/clparity
{ date -u; nproc; build-gpu/clparity_main --version; build-gpu/clparity_f64l --version; } > "$O/env.txt" 2>&1
{
for r in 1 2 3; do
  for th in 2 16; do
    for b in host_time_main host_time_f64l; do
      for s in "host:f64 512 8 64 adam 30" "host:f64 1024 16 64 adam 8" "host:f64 128 128 64 adam 30" "host:exact 512 8 64 adam 30"; do
        echo "r$r th=$th $b $(CLPARITY_HOST_THREADS=$th timeout 60 build-gpu/$b $s)"
      done
    done
  done
done
} > "$O/host_time.txt" 2>&1
for b in clparity_main clparity_f64l clparity_main clparity_f64l; do
  timeout 120 python3 tools/bench --train --only 1,2 --rounds 1 --train-steps 10 --train-timeout 60 \
      --clparity build-gpu/$b > "$O/bench_$b.txt.tmp" 2>&1
  cat "$O/bench_$b.txt.tmp" >> "$O/bench_$b.txt"; rm -f "$O/bench_$b.txt.tmp"
done
{
for th in 16 2; do
for spec in "--d-model 520 --layers 3 --batch 32" "--d-model 1024 --layers 3 --batch 64" "--d-model 600 --layers 2 --batch 48"; do
  for opt in sgd adam "adamw --weight-decay 0.01"; do
    for b in clparity_main clparity_f64l; do
      CLPARITY_HOST_THREADS=$th build-gpu/$b train -d host --engines host:exact,host:f64 $spec --steps 5 \
        --optimizer $opt --lr 0.01 --json "$O/h_$b.json" --quiet > /dev/null 2>&1 || echo "failed $b $spec $opt"
    done
    a=$(python3 -c "import json,sys; print([(r['engine'], r['hash']) for r in json.load(open(sys.argv[1]))['results']])" "$O/h_clparity_main.json")
    c=$(python3 -c "import json,sys; print([(r['engine'], r['hash']) for r in json.load(open(sys.argv[1]))['results']])" "$O/h_clparity_f64l.json")
    [ "$a" = "$c" ] && echo "same th=$th $spec $opt: $a" || echo "DIFFER th=$th $spec $opt: $a / $c"
  done
done
done
} > "$O/bits.txt" 2>&1
sed 's/hash=.*//' "$O/host_time.txt"; grep -h 'row [12], ' "$O"/bench_*.txt | sed 's/forward median \([0-9.]*\) ms ([^)]*)/fwd \1/; s/host:[a-z0-9]* step median \([0-9.]*\) ms ([^)]*)/step \1/'; cat "$O/bits.txt"
