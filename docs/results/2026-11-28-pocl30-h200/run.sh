#!/bin/bash
# On the GPU machine: conda-forge's PoCL 3.0 beside the machine's PoCL 5 (and NVIDIA), acceptance 3 of issue 32.
source .gpu/setup.sh
mkdir -p /tmp/p30 && xz -dc build-p30/pocl30.tar.xz | tar -C /tmp/p30 -xf -
mkdir -p /tmp/icd
cp /etc/OpenCL/vendors/*.icd /tmp/icd/ 2>/dev/null
echo /tmp/p30/pyopencl/.libs/libpocl-21062cec.so > /tmp/icd/zz-pocl30.icd
ls /tmp/icd; cat /tmp/icd/*
export OCL_ICD_VENDORS=/tmp/icd XDG_CACHE_HOME=/tmp/xdg POCL_CACHE_DIR=/tmp/poclcache CLPARITY_SETUP_TIMEOUT=100
T0=$(date +%s)
grep -m1 'model name' /proc/cpuinfo
build/clparity devices 2>&1 | grep -E 'Platform|Device|Version' > $OUT/devices.txt; cat $OUT/devices.txt
sel=$(build/clparity devices 2>/dev/null | awk '/^Platform #/{p=$2; sub("#","",p); sub(":","",p)} /Device #.*pthread|Device #.*cpu-/{print p}' | head -5)
echo "cpu platforms: $sel"
for round in cold warm; do
  for d in 128 1 67 257; do
    [ $(( $(date +%s) - T0 )) -gt 430 ] && { echo "$round d=$d skipped (time)" | tee -a $OUT/summary.txt; continue; }
    s=$(date +%s.%N)
    timeout 300 build/clparity compare -d all --engines cl:own,cl:cr,host:exact,host:cr --expect cr --d-model $d --runs 2 --warmup 1 > $OUT/$round-$d.txt 2>&1
    rc=$?; e=$(date +%s.%N)
    echo "$round d=$d rc=$rc" | tee -a $OUT/summary.txt
    grep -E '^R[0-9]|rejected|crash' $OUT/$round-$d.txt | cut -c1-200
  done
done
CLPARITY_OWN_KERNEL=naive timeout 60 build/clparity run -d "pocl" --engines cl:own --d-model 67 --layers 3 --batch 5 --runs 1 --warmup 0 > $OUT/naive.txt 2>&1; echo "naive rc=$?" | tee -a $OUT/summary.txt
