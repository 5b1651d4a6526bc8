#!/bin/bash
# host trainers' hashes (host:exact, host:f64): build/clparity against the binary $OLD, 196 cases: batches multiples of 16 and not
OLD=${OLD:?OLD=an older clparity binary to compare with}; MIXED=${MIXED:?MIXED=a safetensors model of widths 600, 520, 530, 100, 520, 10 with biases}
n=0; bad=0
run() { python3 -c "import json; print([(r['engine'], r['hash']) for r in json.load(open('$1'))['results']])"; }
for spec in "--d-model 520 --layers 3 --batch 32" "--d-model 528 --layers 2 --batch 64" "--d-model 600 --layers 3 --batch 48" "--d-model 512 --layers 3 --batch 64" "--model $MIXED --batch 32" "--model $MIXED --batch 16" "--d-model 130 --layers 4 --batch 32"; do
  for opt in sgd "momentum --nesterov" adam "adamw --weight-decay 0.01"; do
    for cfg in "1 avx512" "2 avx512" "3 avx512" "16 avx512" "2 avx2" "2 baseline" "2 avx512 generic"; do
      set -- $cfg
      envs="CLPARITY_HOST_THREADS=$1 CLPARITY_HOST_ISA=$2"; [ -n "${3:-}" ] && envs="$envs CLPARITY_HOST_EXACT=generic"
      env $envs "$OLD" train -d host --engines host:exact,host:f64 $spec --steps 5 --optimizer $opt --lr 0.01 --json /tmp/a.json --quiet >/dev/null 2>&1 || echo "old failed $spec $opt $cfg"
      env $envs build/clparity train -d host --engines host:exact,host:f64 $spec --steps 5 --optimizer $opt --lr 0.01 --json /tmp/b.json --quiet >/dev/null 2>/tmp/b.err || echo "new failed $spec $opt $cfg: $(cat /tmp/b.err)"
      n=$((n+1)); a=$(run /tmp/a.json); b=$(run /tmp/b.json)
      [ "$a" = "$b" ] || { bad=$((bad+1)); echo "DIFFER $spec $opt $cfg"; }
    done
  done
done
echo "cases $n differ $bad"
