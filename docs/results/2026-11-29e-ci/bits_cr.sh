#!/bin/bash
# usage: bits_cr.sh OLD NEW: host:cr training of two binaries, compared: every saved .npy
# (weights, optimizer state, inputs) and the step records (--csv) at 6 shapes x 4 optimizers x
# 1-3 threads (72 cases); prints DIFFER per case and the count.
OLD=$1; NEW=$2; n=0; bad=0
for shape in "13 3 5" "77 2 13" "129 3 65" "16 4 1" "200 2 31" "64 6 64"; do
  set -- $shape
  for opt in sgd momentum adam adamw; do
    for th in 1 2 3; do
      extra=""; [ $opt = momentum ] && extra="--nesterov"; [ $opt = adamw ] && extra="--weight-decay 0.01"
      for b in OLD NEW; do
        rm -rf /tmp/crb_$b; bin=${!b}
        CLPARITY_HOST_THREADS=$th $bin train -d host --engines host:cr --d-model $1 --layers $2 --batch $3 --steps 12 --optimizer $opt $extra --every 1 --init-scale 1 --save /tmp/crb_$b --csv /tmp/crb_$b.csv --quiet >/dev/null 2>&1 || echo "run failed $b $shape $opt"
      done
      n=$((n+1))
      if ! (cd /tmp/crb_OLD && for f in *.npy; do cmp -s $f /tmp/crb_NEW/$f || exit 1; done) || ! diff -q <(cat /tmp/crb_OLD.csv) <(cat /tmp/crb_NEW.csv) >/dev/null; then bad=$((bad+1)); echo "DIFFER $shape $opt th=$th"; fi
    done
  done
done
echo "cases=$n differ=$bad"
