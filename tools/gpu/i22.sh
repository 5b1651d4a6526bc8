#!/usr/bin/env bash
# i22's binary on the GPU machine: cl:relaxed on cl:own's paths, cl:clblast Sgemv at B=1,
# timing statistics and the speed verdict, on NVIDIA beside the host.
set -u
out=$1; clp=./clparity-i22
mkdir -p "$out"; export XDG_CACHE_HOME=/tmp/i22cache
r() { local n=$1; shift; { echo "\$ $*"; "$@"; echo "# exit $?"; } >"$out/$n.txt" 2>&1; echo "case $n: $(tail -n1 "$out/$n.txt")"; }
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; $clp --version; } >"$out/env.txt" 2>&1
r ref_default $clp compare -d nvidia -d host --json "$out/ref_default.json"
r ref_default_again $clp compare -d nvidia -d host
r d512 $clp compare -d nvidia -d host --engines cl:own,cl:relaxed,cl:clblast,host:exact,host:openblas --d-model 512 --layers 16 --batch 64 --json "$out/d512.json"
r b1 $clp compare -d nvidia -d host --engines cl:own,cl:relaxed,cl:clblast,host:exact --d-model 1024 --layers 8 --batch 1 --json "$out/b1.json"
r odd $clp compare -d nvidia -d host --engines cl:own,cl:relaxed,cl:clblast,host:exact --d-model 129 --layers 3 --batch 3 --expect bitwise
r sweep $clp sweep -d nvidia -d host --vary batch --quick --json "$out/sweep.json"
r sweep_again $clp sweep -d nvidia -d host --vary batch --quick
r peak $clp peak -d nvidia -d host --remeasure
