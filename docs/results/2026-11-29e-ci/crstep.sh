#!/bin/bash
# usage: crstep.sh OLD NEW [ROUNDS]: host:cr's (and host:exact's) Adam step_ms_mean, 10 steps, at
# issue 35's three shapes, 2 threads, the two binaries alternating.
OLD=$1; NEW=$2; R=${3:-3}
for shape in "128 128 64" "512 8 64" "1024 16 64"; do
  set -- $shape
  for r in $(seq $R); do
    for b in OLD NEW; do
      bin=${!b}
      printf 'd=%s L=%s B=%s round %s %s: ' $1 $2 $3 $r $b
      CLPARITY_HOST_THREADS=2 $bin train -d host --engines host:cr --d-model $1 --layers $2 \
        --batch $3 --steps 10 --optimizer adam --every 1000 --json - --quiet 2>/dev/null |
        /usr/bin/python3 -c "
import json,sys; d=json.load(sys.stdin)
print(' '.join('%s=%.2f'%(r['engine'],r['step_ms_mean']) for r in d['results']))"
    done
  done
done
