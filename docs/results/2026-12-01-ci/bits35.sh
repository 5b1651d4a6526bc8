#!/bin/bash
# Issue 35, acceptance 1 on the CI machine: every engine's training (cl:own on PoCL, host:exact,
# host:f64; with SGD also cl:cr and host:cr, which trained with SGD only before) gives the
# weights of main 021c5dd (the main the issue was filed on): the hashes of every result's
# weights, at five shapes, four optimizers, and each host instruction-set level.
#   bash bits35.sh OLD_BINARY NEW_BINARY
OLD=$1; NEW=$2; W=${TMPDIR:-/tmp}/bits35; rm -rf "$W"; mkdir -p "$W"; n=0; bad=0
export OCL_ICD_VENDORS=${OCL_ICD_VENDORS:-build/icd/pocl}
for shape in "13 3 5" "77 2 13" "129 3 65" "16 4 1" "200 2 31"; do
  set -- $shape
  for opt in sgd "momentum --nesterov" adam "adamw --weight-decay 0.01"; do
    eng=cl:own,host:exact,host:f64; [ "$opt" = sgd ] && eng=$eng,cl:cr,host:cr
    for isa in avx512 avx2 baseline; do
      for b in old new; do
        BIN=$OLD; [ $b = new ] && BIN=$NEW
        CLPARITY_HOST_ISA=$isa XDG_CACHE_HOME=$W/cache_$b $BIN train -d 0 -d host --engines $eng \
            --d-model $1 --layers $2 --batch $3 --steps 6 --optimizer $opt --lr 0.01 \
            --json "$W/$b.json" --quiet > /dev/null 2> "$W/$b.err" || echo "exit $? $b $shape $opt $isa: $(head -c 200 "$W/$b.err")"
      done
      n=$((n + 1))
      python3 -c "
import json, sys
h = [sorted((r['engine'], r['hash']) for r in json.load(open('$W/%s.json' % b))['results']) for b in ('old', 'new')]
sys.exit(0 if h[0] == h[1] and len(h[0]) >= 3 else 1)" || { bad=$((bad + 1)); echo "DIFFER d=$1 L=$2 B=$3 $opt $isa"; }
    done
  done
done
echo "cases $n, differ $bad"
