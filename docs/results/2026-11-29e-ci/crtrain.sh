#!/bin/bash
# usage: OCL_ICD_VENDORS=build/icd/pocl crtrain.sh OLD NEW [ROUNDS]: cl:cr's and host:cr's
# step_ms_mean on PoCL (device 0:0) and the host, sgd and adam, the two binaries alternating;
# each run also checks cl:cr against host:cr at every step (exit 0) and prints the weights hash.
OLD=$1; NEW=$2; R=${3:-2}
for shape in "32 4 1 20" "128 16 64 5" "512 8 64 3"; do
  set -- $shape
  for opt in sgd adam; do
    for r in $(seq $R); do
      for b in OLD NEW; do
        bin=${!b}
        printf 'd=%s L=%s B=%s %s round %s %s: ' $1 $2 $3 $opt $r $b
        CLPARITY_HOST_THREADS=2 $bin train -d 0:0,host --engines cl:cr,host:cr --d-model $1 \
          --layers $2 --batch $3 --steps $4 --optimizer $opt --every 1 --json /tmp/crtrain.json \
          --quiet >/dev/null 2>&1
        rc=$?
        /usr/bin/python3 -c "
import json,sys; d=json.load(open('/tmp/crtrain.json'))
print('exit $rc', ' '.join('%s=%.2f'%(r['engine'],r['step_ms_mean']) for r in d['results'] if 'cr' in r['engine']),
      'hash', [r['hash'] for r in d['results'] if r['engine']=='cl:cr'][0])"
      done
    done
  done
done
