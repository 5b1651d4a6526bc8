#!/usr/bin/env bash
# 2026-11-30 (second session), second GPU call (the H200 machine's 16 Xeon cores): the host
# trainers' Adam update at 16 threads, in the measurement build of run1 plus X_DWROWS=1 (each
# thread's dW and update in whole rows, not 8-row x 128-column pieces) and transparent huge pages
# for malloc (GLIBC_TUNABLES=glibc.malloc.hugetlb=1); perf stat of the TLB.
#   bash docs/results/2026-11-30b-gpu/run2.sh          (writes $OUT/run2/)
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/* build/
export OPENBLAS_CORETYPE=SkylakeX XDG_CACHE_HOME=/tmp/c2
R=${OUT:-/tmp/out}
O=$R/run2
mkdir -p "$O"
PERF="env LD_LIBRARY_PATH=$PWD/.perf/lib:${LD_LIBRARY_PATH:-} $PWD/.perf/perf"
{
cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag
for s in "1024 16 64" "512 8 64" "128 128 64"; do
  set -- $s
  echo "== d=$1 L=$2 B=$3"
  for rep in 1 2; do
  for thp in "" glibc.malloc.hugetlb=1; do
    for rows in "" 1; do
      echo "-- thp=${thp:+1} rows=${rows:-0}"
      GLIBC_TUNABLES=$thp X_DWROWS=$rows build/host_time host:exact $1 $2 $3 adam 20 2>&1
    done
  done
  done
  echo "-- sgd thp=1 rows=1"; GLIBC_TUNABLES=glibc.malloc.hugetlb=1 X_DWROWS=1 build/host_time host:exact $1 $2 $3 sgd 20 2>&1
  for thp in "" glibc.malloc.hugetlb=1; do
    echo "-- f64 thp=${thp:+1} rows=1"; GLIBC_TUNABLES=$thp X_DWROWS=1 build/host_time host:f64 $1 $2 $3 adam 20 2>&1
  done
  echo "-- f64 thp=0 rows=0"; build/host_time host:f64 $1 $2 $3 adam 20 2>&1
done
echo "== perf stat d=1024 L=16 B=64 adam"
$PERF stat -e task-clock,dTLB-load-misses,dTLB-store-misses,cache-misses,cycles,instructions build/host_time host:exact 1024 16 64 adam 20 2>&1 | tail -14
GLIBC_TUNABLES=glibc.malloc.hugetlb=1 X_DWROWS=1 $PERF stat -e task-clock,dTLB-load-misses,dTLB-store-misses,cache-misses,cycles,instructions build/host_time host:exact 1024 16 64 adam 20 2>&1 | tail -14
grep -i AnonHuge /proc/meminfo
} > "$O/thp.txt" 2>&1
