#!/bin/bash
# Usage: OLD=/path/to/old/clparity [CLP=build/clparity] measure.sh
# host:exact / host:cr side by side (issue 34): 7 rounds of one `run` of both engines each (the
# order alternating; wall medians, the pool's threads), then 3 rounds of CPU time on one thread
# (user time of N + 1 forwards minus 1, over N) of host:exact, host:cr and OLD's host:cr, then
# host:cr's hash at every level and in the scalar form at a few shapes.
clp=${CLP:-build/clparity}
old=${OLD:?OLD: the clparity binary to compare host:cr with}
nproc; lscpu | grep -E "Model name|^CPU\(s\)|Thread|MHz"; grep -o 'avx512f' /proc/cpuinfo | head -1; date -u
uptime
w() { # ORDER ARGS: the medians of one run of both engines
  $clp run -d host --engines $1 --no-reference --warmup 3 "${@:2}" --json /tmp/hostcr_r.json >/tmp/hostcr_r.txt 2>&1 || { cat /tmp/hostcr_r.txt; return; }
  python3 -c '
import json,sys
r={x["engine"]:x for x in json.load(open("/tmp/hostcr_r.json"))["results"]}
e,c=r["host:exact"],r["host:cr"]
me,mc=e["timing"]["wall_median_s"],c["timing"]["wall_median_s"]
print("exact %.4f ms  cr %.4f ms  ratio %.3f  %s %s | %s" % (me*1e3, mc*1e3, me/mc, e["hash"], c["hash"], c.get("routine")))' 2>&1 || python3 -c 'import json;print(json.dumps(json.load(open("/tmp/hostcr_r.json"))["results"][0])[:1500])'
}
for round in 1 2 3 4 5 6 7; do
  o=host:exact,host:cr; [ $((round % 2)) = 0 ] && o=host:cr,host:exact
  echo "round $round ($o) d=512 L=8 B=64: $(w $o --d-model 512 --layers 8 --batch 64 --runs 100)"
  echo "round $round ($o) reference:      $(w $o --runs 1000)"
done
TIMEFORMAT=%U
ut() { { time CLPARITY_HOST_THREADS=1 ${BIN:-$clp} run -d host --engines $1 --runs $2 --warmup 0 --no-reference "${@:3}" >/dev/null 2>&1; } 2>&1; }
for round in 1 2 3; do
 for sh in "512 8 64 200" "128 128 1 4000"; do
  set -- $sh
  for e in host:exact host:cr; do
    a=$(ut $e $(($4+1)) --d-model $1 --layers $2 --batch $3); b=$(ut $e 1 --d-model $1 --layers $2 --batch $3)
    echo "cpu1 round $round d=$1 L=$2 B=$3 $e $(python3 -c "print(f'{($a-$b)/$4*1000:.4f} ms')")"
  done
  a=$(BIN=$old ut host:cr $(($4+1)) --d-model $1 --layers $2 --batch $3); b=$(BIN=$old ut host:cr 1 --d-model $1 --layers $2 --batch $3)
  echo "cpu1 round $round d=$1 L=$2 B=$3 host:cr-before $(python3 -c "print(f'{($a-$b)/$4*1000:.4f} ms')")"
 done
done
for sh in "129 2 1" "129 2 13" "129 2 25" "67 3 64" "513 1 37" "512 8 64"; do
  set -- $sh
  for m in "" CLPARITY_HOST_CR=scalar CLPARITY_HOST_ISA=avx2 CLPARITY_HOST_ISA=baseline; do
    env $m $clp run -d host --engines host:cr --no-reference --runs 1 --warmup 0 --d-model $1 --layers $2 --batch $3 --json /tmp/hostcr_hh.json >/dev/null 2>&1
    echo "hash d=$1 L=$2 B=$3 ${m:-auto}: $(python3 -c 'import json; r=json.load(open("/tmp/hostcr_hh.json"))["results"][0]; print(r["hash"], r.get("routine"))')"
  done
done
