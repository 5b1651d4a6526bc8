source .gpu/setup.sh
B=build-gpu/clparity
$B devices 2>&1 | head -8
date -u
fails=0
cr() { # tune d L B
  out=$(CLPARITY_CR_TUNE=$1 $B compare -d NVIDIA -d host --engines cl:cr,host:cr --d-model $2 --layers $3 --batch $4 --runs 1 --warmup 0 --expect cr 2>&1)
  v=$(echo "$out" | grep -E '^ *cr +(PASS|FAIL)' | awk '{print $2}'); b=$(echo "$out" | grep -oE 'kernel path [a-z0-9-]+' | head -1)
  echo "cr tune=[$1] d=$2 L=$3 B=$4: ${v:-ERROR} ($b)"; [ "$v" = PASS ] || { fails=$((fails+1)); echo "$out" | grep -iE "error|failed" | head -3; }
}
for t in "" path=gemm path=tiles path=stream path=gemv path=splitk path=team method=f32 method=f32,path=gemm method=f32,path=stream method=f32,path=tiles exact=1; do cr "$t" 67 3 130; done
for s in "128 4 1" "256 2 64" "1025 2 5" "128 2 2048" "512 2 300"; do set -- $s; cr "" $1 $2 $3; done
own() { # kernel d L B
  out=$(CLPARITY_OWN_KERNEL=$1 $B compare -d NVIDIA -d host --engines cl:own,host:exact --d-model $2 --layers $3 --batch $4 --runs 1 --warmup 0 --expect bitwise 2>&1)
  rc=$?; echo "own kernel=[$1] d=$2 L=$3 B=$4: exit $rc"; [ $rc = 0 ] || { fails=$((fails+1)); echo "$out" | grep -iE "error|failed" | head -3; }
}
for k in small pipe tiled vec reg stream; do own $k 67 3 17; done
own "" 128 4 64
own "" 1024 2 300
CLPARITY_TRAIN_KERNELS=stream $B train -d NVIDIA -d host --engines cl:own,host:exact --optimizer adam --steps 5 --d-model 37 --layers 2 --batch 5 --target random --quiet 2>&1 | grep -E "builds|diverg|differ" ; echo "train stream exit ${PIPESTATUS[0]}"
CLPARITY_TRAIN_KERNELS=tiled4 $B train -d NVIDIA -d host --engines cl:own,host:exact --optimizer adam --steps 5 --d-model 77 --layers 2 --batch 13 --target random --quiet 2>&1 | grep -E "builds|diverg|differ"; echo "train tiled4 exit ${PIPESTATUS[0]}"
$B train -d NVIDIA -d host --engines cl:cr,host:cr --steps 5 --d-model 37 --layers 2 --batch 5 --target random --quiet 2>&1 | grep -E "builds|diverg|differ"; echo "train cr exit ${PIPESTATUS[0]}"
echo "FAILS $fails"
date -u
