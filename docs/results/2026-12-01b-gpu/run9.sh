#!/usr/bin/env bash
# 2026-12-01 (second session), ninth GPU call (16 Xeon cores only): issue 35's rows 1 and 2 with
# main 3ef3129's binary twice more (run8 saw host:exact's forward 35-47 % slower than run6 did
# with the same forward code), each `tools/bench --train --only 1,2 --rounds 3`.
#   bash docs/results/2026-12-01b-gpu/run9.sh          (writes $OUT/run9/)
set -u
source .gpu/setup.sh
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c9
mkdir -p build && cp build-gpu/clparity_dw build/clparity
R=${OUT:-/tmp/out}
O=$R/run9
mkdir -p "$O"
{ date -u; nproc; build/clparity --version; uptime; } > "$O/env.txt" 2>&1
for i in 1 2; do
  timeout 280 python3 tools/bench --train --only 1,2 --rounds 3 --train-steps 10 --train-timeout 100 \
      --train-json "$O/bench_train_$i.json" > "$O/bench_train_$i.txt" 2>&1
done
for i in 1 2; do grep -E "^row [12], " "$O/bench_train_$i.txt" | sed 's/ ms ([^)]*)//g'; grep -A1 -E "^(1|2) +host" "$O/bench_train_$i.txt"; done
