#!/usr/bin/env bash
# cl:own's cpug path on the GPU machine's 16 cores (PoCL 5) with tune gu = 1, 2, 4 (units per
# group wanted in the widest layer: narrower panels, more of them per core) beside
# host:openblas, at B = 1 where cpug lost most to it (d=1024 L=128: 0.37 in the bench of
# 2026-11-25 16:47 UTC). Through the device tool, carry [".gpu", "build"]:
#   source .gpu/setup.sh; bash tools/gpu/cpug_gu.sh "$OUT"
# Writes cpug_gu.txt: the median, min and max of 5 timed runs after 1 warm-up, ms.
set -u
out=${1:-gpu-out}
mkdir -p "$out"
clp=build/clparity
export XDG_CACHE_HOME=/tmp/clparity-xdg OPENBLAS_CORETYPE=SkylakeX
for s in "1024 128" "512 128" "256 128" "2048 32"; do
    set -- $s
    for gu in 1 2 4 blas; do
        printf 'd=%s L=%s B=1 %-6s ' "$1" "$2" "$gu"
        if [ "$gu" = blas ]; then
            timeout 60 $clp run -d host --engines host:openblas --no-reference --d-model "$1" \
                --layers "$2" --batch 1 --runs 5 --warmup 1 2>&1 | grep -E ' host:openblas +[0-9.]+ '
        else
            CLPARITY_OWN_KERNEL=cpug CLPARITY_OWN_TUNE=gu=$gu timeout 60 $clp run -d portable \
                --engines cl:own --no-reference --d-model "$1" --layers "$2" --batch 1 --runs 5 \
                --warmup 1 2>&1 | grep -E ' cl:own +[0-9.]+ '
        fi | awk '{print "median", $(NF-6), "min", $(NF-5), "max", $(NF-4), "ms"}'
    done
done >"$out/cpug_gu.txt" 2>&1
cat "$out/cpug_gu.txt"
