#!/bin/bash
# usage: run.sh OLD NEW  -> compares host:exact and host:f64 training (saved weights + step records)
OLD=$1; NEW=$2; W=/tmp/bits/w; rm -rf $W; mkdir -p $W
n=0; bad=0
strip() { python3 -c "
import json,sys; d=json.load(open(sys.argv[1]))
for s in d['steps']: print(s)
for r in d['results']: print(r['engine'], r['hash'], r['final_loss'], r['max_ulp_base'], r['first_divergent_step'])" $1; }
for shape in "13 3 5" "77 2 13" "129 3 65" "16 4 1" "200 2 31"; do
 set -- $shape
 for opt in sgd momentum adam adamw; do
  for th in 1 2 3; do
   for isa in ${ISAS:-avx512 avx2 baseline}; do
    extra=""; [ $opt = momentum ] && extra="--nesterov"; [ $opt = adamw ] && extra="--weight-decay 0.01"
    for b in old new; do
      BIN=$OLD; [ $b = new ] && BIN=$NEW
      CLPARITY_HOST_THREADS=$th CLPARITY_HOST_ISA=$isa $BIN train -d host --engines host:exact,host:f64 --d-model $1 --layers $2 --batch $3 --steps 6 --every 1 --optimizer $opt $extra --lr 0.01 --save $W/$b --json $W/$b.json --quiet >/dev/null 2>$W/$b.err || { echo "FAIL $b $shape $opt $th $isa: $(cat $W/$b.err)"; }
    done
    n=$((n+1))
    d=""
    for f in host.host-exact.npy host.host-f64.npy; do cmp -s $W/old/$f $W/new/$f || d="$d $f"; done
    diff <(strip $W/old.json) <(strip $W/new.json) >/dev/null || d="$d records"
    [ -n "$d" ] && { bad=$((bad+1)); echo "DIFFER d=$1 L=$2 B=$3 $opt th=$th isa=$isa:$d"; }
    rm -rf $W/old $W/new
   done
  done
 done
done
echo "cases $n, differ $bad"
