#!/usr/bin/env bash
# 2026-11-30 (second session), eleventh GPU call (H200 machine's Xeon cores): par_share's parts
# (host_time_x: 788f3bf's library plus a switch X_PARTRULE=1: a share that spans two chunks or
# more is taken in parts of a whole chunk of rows at least) against 788f3bf (the switch off) and
# main 23ccdca (host_time_old), at 2 and 16 threads, 3 rounds alternating, Adam.
#   bash docs/results/2026-11-30b-gpu/run11.sh          (writes $OUT/run11/)
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/* build/
export OPENBLAS_CORETYPE=SkylakeX
R=${OUT:-/tmp/out}
O=$R/run11
mkdir -p "$O"
{
for th in 2 16; do
  for s in "512 8 64" "1024 16 64" "128 128 64"; do
    for rep in 1 2 3; do
      echo "threads=$th rep=$rep main $(CLPARITY_HOST_THREADS=$th build/host_time_old host:exact $s adam 10)"
      echo "threads=$th rep=$rep 788f3bf $(CLPARITY_HOST_THREADS=$th build/host_time_x host:exact $s adam 10)"
      echo "threads=$th rep=$rep rule $(X_PARTRULE=1 CLPARITY_HOST_THREADS=$th build/host_time_x host:exact $s adam 10)"
    done
  done
done
} > "$O/parts.txt" 2>&1
