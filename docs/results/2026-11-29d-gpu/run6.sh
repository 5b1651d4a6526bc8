#!/usr/bin/env bash
# 2026-11-29 (fourth session), sixth GPU call (H200): tune settings of the committed binary
# (b0825de) around issue 34's rows 2 and 3 at d=128: stream's work-groups at the reference
# model, tiles' and gemm's tile shapes at B=256 and 2048.
#   bash docs/results/2026-11-29d-gpu/run6.sh          (writes $OUT/run6.tgz)
set -u
source .gpu/setup.sh
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 CLP=build-gpu/clparity XDG_CACHE_HOME=/tmp/c6
R=${OUT:-/tmp/out}
O=$R/run6
mkdir -p "$O"
pack() { tar czf "$R/run6.tgz" -C "$R" run6; }
trap pack EXIT
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; $CLP --version; } > "$O/env.txt" 2>&1
C="python3 docs/results/2026-11-29d-gpu/cfg.py"
$C "$O/tune.txt" 128 128 1 new=- wg16=path=stream,wg=16,ob=1,sg=1 wg64=path=stream,wg=64,ob=1,sg=1 \
   wg32ob2=path=stream,wg=32,ob=2,sg=1 wg16ob2=path=stream,wg=16,ob=2,sg=1
$C "$O/tune.txt" 128 128 256 new=- t1k16s1=path=tiles,rm=1,tk=16,sg=1 t1k16s2=path=tiles,rm=1,tk=16,sg=2 \
   t1k16s4=path=tiles,rm=1,tk=16,sg=4 t1k32s2=path=tiles,rm=1,tk=32,sg=2 t2k8s1=path=tiles,rm=2,tk=8,sg=1 \
   t2k16s2=path=tiles,rm=2,tk=16,sg=2
$C "$O/tune.txt" 128 128 2048 new=- g1k16=path=gemm,rm=1,tk=16 g1k32=path=gemm,rm=1,tk=32 \
   g2k8=path=gemm,rm=2,tk=8 t2k16s1=path=tiles,rm=2,tk=16,sg=1 t1k16s4=path=tiles,rm=1,tk=16,sg=4
