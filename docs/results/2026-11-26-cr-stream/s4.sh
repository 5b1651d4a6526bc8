#!/usr/bin/env bash
# cl:cr with stream as the default at B <= 64 (main c89b6eb + docs): issue 23's acceptance on the
# H100 again, tune --quick there, then tools/bench --cr targets 1 and 2. Writes under $1.
set -u
out=$1; clp=./build/clparity; export XDG_CACHE_HOME=/tmp/s4cache; S=$out/summary.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; $clp --version; } > $out/env.txt 2>&1
t0=$(date +%s)
chk() { # name args...: compare --expect cr on NVIDIA and the host
  local n=$1; shift
  timeout 150 $clp compare -d NVIDIA -d host --engines cl:cr,host:cr "$@" --runs 1 --warmup 0 --expect cr > $out/$n.txt 2>&1
  echo "$n exit $? ($(( $(date +%s) - t0 )) s): $(grep -E '^  cr ' $out/$n.txt | cut -c1-14) $(grep -E '^ran: *cl:cr' $out/$n.txt | sed 's/.*cr.cl //')" >> $S
}
chk batch_min --d-model 128 --layers 128 --batch 1
chk batch_max --d-model 128 --layers 128 --batch 2048
chk width_min --d-model 64 --layers 128 --batch 1
chk width_max --d-model 4096 --layers 128 --batch 1
chk depth_max --d-model 128 --layers 3840 --batch 1 --init-scale 0.01
chk params_max --d-model 128 --layers 131072 --batch 1 --init-scale 0.001
chk b64_d1025 --d-model 1025 --layers 3 --batch 64
timeout 120 $clp train -d NVIDIA -d host --engines cl:cr,host:cr --steps 100 --json $out/train_cr.json > $out/train_cr.txt 2>&1
echo "train cl:cr,host:cr 100 steps exit $?" >> $S
timeout 60 python3 tests/check_cr_train.py $out/train_cr.json >> $S 2>&1; echo "check_cr_train exit $?" >> $S
grep -E "cl:cr|host:cr" $out/train_cr.txt | tail -3 >> $S
timeout 150 python3 tests/check_cr.py $clp $out/ccr --engines cl:cr -d NVIDIA --quick > $out/check_cr.txt 2>&1; echo "check_cr --quick NVIDIA exit $?: $(tail -1 $out/check_cr.txt)" >> $S
rm -rf $out/ccr
timeout 200 $clp tune -d NVIDIA --quick --json $out/tune.json > $out/tune.txt 2>&1; echo "tune --quick exit $? ($(( $(date +%s) - t0 )) s)" >> $S
CLPARITY_CACHE=on $clp run -d NVIDIA --engines cl:cr --d-model 128 --layers 4 --runs 1 --warmup 0 --json - 2>/dev/null | python3 -c 'import json,sys; print("after tune:", json.load(sys.stdin)["provenance"]["kernel_build_options"])' >> $S 2>&1
rm -rf /tmp/s4cache/clparity/tune.json
echo "bench start $(( $(date +%s) - t0 )) s" >> $S
timeout $(( 570 - ($(date +%s) - t0) )) python3 tools/bench --cr --gpu NVIDIA --pocl portable --rounds 2 --only 1,2 --cr-json $out/bench12.json > $out/bench12.txt 2>&1
echo "bench 1,2 exit $? ($(( $(date +%s) - t0 )) s)" >> $S
cat $S
