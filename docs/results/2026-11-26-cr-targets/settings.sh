#!/usr/bin/env bash
# issue 23 exploration: cl:cr settings on the H100, cl:own beside; TSV rows in $1/t.tsv
set -u
out=$1; clp=./clparity; export XDG_CACHE_HOME=/tmp/xcache
T=$out/t.tsv; : > $T
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; $clp --version; nproc; lscpu | grep "Model name"; } > $out/env.txt 2>&1
pt() { # name tune engines sel args...
  local name=$1 tune=$2 eng=$3 sel=$4; shift 4
  CLPARITY_CR_TUNE=$tune timeout 100 $clp run -d "$sel" --engines $eng --no-reference --min-time 0.1 --init-scale 0.5 --json $out/j.json "$@" > $out/last.txt 2>&1
  local rc=$?
  python3 - "$name" "$tune" $rc $out/j.json >> $T <<'PY'
import json,sys
name,tune,rc,f=sys.argv[1:5]
try:
    d=json.load(open(f))
    for r in d['results']:
        t=r['timing']; print(f"{name}\t{tune or 'default'}\t{r['engine']}\t{r['device']['label'][:20]}\t{t['wall_median_s']*1e3:.4f}\t{(t.get('kernel_median_s') or 0)*1e3:.4f}\t{t['runs']}\t{r['routine']}\trc={rc}")
except Exception as e:
    print(f"{name}\t{tune}\tERR rc={rc} {e}")
PY
  [ $rc -ne 0 ] && tail -3 $out/last.txt >> $T
  rm -f $out/j.json
}
G=NVIDIA
M128="--d-model 128 --layers 128 --batch 1"
pt ref "" cl:own,cl:cr $G $M128
for s in wg=32,ob=1 wg=32,ob=2 wg=32,ob=4 wg=64,ob=1 wg=16,ob=4 wg=128,ob=8 path=splitk,split=2; do pt ref $s cl:cr $G $M128; done
for d in 1024 2048 4096; do pt b1_d$d "" cl:own,cl:cr $G --d-model $d --layers 128 --batch 1; done
for d in 1024 4096; do L=$(( d == 1024 ? 128 : 16 ))
  for s in wg=128,ob=1 wg=128,ob=2 wg=128,ob=4 wg=128,ob=8 wg=64,ob=8 wg=64,ob=1 path=splitk,split=4 path=splitk,split=8 path=splitk,split=16 path=splitk,split=8,wg=128,ob=1 path=splitk,split=16,wg=128,ob=2; do
    pt b1_d${d}_L$L $s cl:cr $G --d-model $d --layers $L --batch 1; done; done
echo "t=$SECONDS" >> $T
pt bigB128 "" cl:own,cl:cr $G --d-model 128 --layers 128 --batch 2048
for s in path=gemm,tk=8 path=gemm,tk=32 path=gemv,wg=32,ob=8 path=gemv,wg=128,ob=8; do pt bigB128 $s cl:cr $G --d-model 128 --layers 128 --batch 2048; done
pt bigB4096 "" cl:own,cl:cr $G --d-model 4096 --layers 16 --batch 4096 --runs 3
echo "t=$SECONDS" >> $T
pt pocl_ref "" cl:own,cl:cr portable $M128
pt host512 "" host:exact,host:cr host --d-model 512 --layers 8 --batch 64
echo "t=$SECONDS" >> $T
