#!/bin/bash
# usage: tstep.sh BIN d L B opt  -> host:exact and host:f64 step_ms_mean
BIN=$1; shift
CLPARITY_HOST_THREADS=${TH:-2} $BIN train -d host --engines host:exact,host:f64 --d-model $1 --layers $2 --batch $3 --steps ${STEPS:-20} --optimizer $4 --lr 0.0001 --init-scale 0.1 --every 1000 --json - --quiet 2>/dev/null | python3 -c "
import json,sys; d=json.load(sys.stdin)
print(' '.join('%s=%.3f'%(r['engine'],r['step_ms_mean']) for r in d['results']))"
