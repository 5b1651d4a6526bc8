#!/usr/bin/env bash
# The final binary on the H100: tests/check_cr.py --quick with cl:cr's default paths there, and
# the matrix of cr/cl_matrix_pocl on the NVIDIA device alone. Writes under $1.
set -u
out=$1; clp=./build/clparity; export XDG_CACHE_HOME=/tmp/s5cache; S=$out/summary.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; $clp --version; } > $out/env.txt 2>&1
t0=$(date +%s)
timeout 150 python3 tests/check_cr.py $clp $out/ccr --engines cl:cr -d NVIDIA --quick > $out/check_cr.txt 2>&1; echo "check_cr --quick NVIDIA exit $? ($(( $(date +%s) - t0 )) s): $(tail -1 $out/check_cr.txt)" >> $S
rm -rf $out/ccr
mkdir -p /tmp/nv && cp /etc/OpenCL/vendors/nvidia.icd /tmp/nv/
OCL_ICD_VENDORS=/tmp/nv timeout 300 ./build/test_cr_cl > $out/matrix.txt 2>&1
echo "test_cr_cl (NVIDIA alone) exit $? ($(( $(date +%s) - t0 )) s): $(grep -E 'PASSED|FAILED' $out/matrix.txt | tr '\n' ' ')" >> $S
cat $S
