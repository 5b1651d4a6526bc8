#!/usr/bin/env bash
# 2026-12-01 (third session), fifth GPU call (H200 and its 16 cores): issue 35 acceptance 1 by
# the saved folders: `train -d NVIDIA -d host --save` with main 021c5dd's binary and main
# 84efcc3's, every .npy of the two folders compared byte for byte (each result's final weights
# and optimizer state, x, target, the initial weights), at two shapes and four optimizers.
#   bash docs/results/2026-12-01c-gpu/run5.sh          (writes $OUT/run5/)
set -u
source .gpu/setup.sh
R=${OUT:-/tmp/out}
O=$R/run5
W=/tmp/saved
mkdir -p "$O" "$W"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nproc; } > "$O/env.txt" 2>&1
n=0; bad=0; files=0
for shape in "--d-model 77 --layers 3 --batch 13" "--d-model 256 --layers 4 --batch 64"; do
  for opt in sgd "momentum --nesterov" adam "adamw --weight-decay 0.01"; do
    for b in clparity_021 clparity_main; do
      rm -rf "$W/$b"
      XDG_CACHE_HOME=/tmp/c5_$b timeout 60 build-gpu/$b train -d NVIDIA -d host \
          --engines cl:own,host:exact,host:f64 $shape --optimizer $opt --steps 8 --lr 0.01 \
          --save "$W/$b" --quiet > /dev/null 2> "$O/err_$b.txt" || echo "exit $? $b $shape $opt"
    done
    n=$((n + 1))
    k=$(cd "$W/clparity_021" && ls *.npy | wc -l); files=$((files + k))
    if [ "$(cd "$W/clparity_021" && ls *.npy)" != "$(cd "$W/clparity_main" && ls *.npy)" ] || [ "$k" -lt 6 ] ||
       ! (cd "$W/clparity_021" && for f in *.npy; do cmp -s "$f" "$W/clparity_main/$f" || exit 1; done); then
      bad=$((bad + 1)); echo "DIFFER $shape $opt"
    else
      echo "same $shape $opt: $(cd "$W/clparity_main" && ls *.npy | tr '\n' ' ')"
    fi
  done
done > "$O/saved.txt" 2>&1
echo "cases $n, .npy files compared $files, cases that differ $bad" >> "$O/saved.txt"
cat "$O/saved.txt"
