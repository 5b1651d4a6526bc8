#!/bin/bash
# Issue 35, acceptance 1 by the saved folders: `train --save` with an older binary and a newer
# one, every file of the two folders compared byte for byte (each result's final weights and
# optimizer state, x, target, the initial weights; index.json apart, which holds versions and
# times), at five shapes, four optimizers and each host instruction-set level; cl:own on PoCL,
# host:exact, host:f64, and for SGD cl:cr and host:cr too.
#   bash saved35.sh OLD_BINARY NEW_BINARY
OLD=$1; NEW=$2; W=${TMPDIR:-/tmp}/saved35; rm -rf "$W"; mkdir -p "$W"; n=0; bad=0; files=0
export OCL_ICD_VENDORS=${OCL_ICD_VENDORS:-build/icd/pocl}
for shape in "13 3 5" "77 2 13" "129 3 65" "16 4 1" "200 2 31"; do
  set -- $shape
  for opt in sgd "momentum --nesterov" adam "adamw --weight-decay 0.01"; do
    eng=cl:own,host:exact,host:f64; [ "$opt" = sgd ] && eng=$eng,cl:cr,host:cr
    for isa in avx512 avx2 baseline; do
      for b in old new; do
        BIN=$OLD; [ $b = new ] && BIN=$NEW
        rm -rf "$W/$b"
        CLPARITY_HOST_ISA=$isa XDG_CACHE_HOME=$W/cache_$b $BIN train -d 0 -d host --engines $eng \
            --d-model $1 --layers $2 --batch $3 --steps 6 --optimizer $opt --lr 0.01 \
            --save "$W/$b" --quiet > /dev/null 2> "$W/$b.err" || echo "exit $? $b $shape $opt $isa: $(head -c 200 "$W/$b.err")"
      done
      n=$((n + 1))
      k=$(cd "$W/old" && ls *.npy | wc -l); files=$((files + k))
      if [ "$(cd "$W/old" && ls *.npy)" != "$(cd "$W/new" && ls *.npy)" ] || [ "$k" -lt 6 ] ||
         ! (cd "$W/old" && for f in *.npy; do cmp -s "$f" "$W/new/$f" || exit 1; done); then
        bad=$((bad + 1)); echo "DIFFER d=$1 L=$2 B=$3 $opt $isa"
      fi
    done
  done
done
echo "cases $n, .npy files compared $files, cases that differ $bad"
