#!/usr/bin/env bash
# 2026-11-30, first GPU call (H200): (1) cl:cr's trainer on the GPU for the first time with its
# double sums and float operations (CR_F64, CR_FAST_OPS): train -d NVIDIA,host --engines
# cl:cr,host:cr, 100 steps, Adam, AdamW, momentum (plain and Nesterov), two shapes; the
# rational reference at 10 steps (tests/cli/cr_train_optim.sh) and a planted twin;
# (2) cl:cr's `team` (the whole model in one work-group) timed on a GPU for the first time,
# beside `stream`, with its bits against host:cr; (3) tiles' settings at d=128 B=256;
# (4) cl:own's training ways at issue 35's d=1024 and d=4096 points (build/train_time).
#   bash docs/results/2026-11-30-gpu/run1.sh          (writes $OUT/run1.tgz)
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/* build/
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c1
H=docs/results/2026-11-29d-gpu # its cfg.py
R=${OUT:-/tmp/out}
O=$R/run1
mkdir -p "$O"
pack() { tar czf "$R/run1.tgz" -C "$R" run1; }
trap pack EXIT
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nproc; build/clparity --version; build/clparity devices; } > "$O/env.txt" 2>&1
# (1) the trainer's bits on the GPU
{
for shape in "--d-model 13 --layers 3 --batch 5" "--d-model 130 --layers 4 --batch 33"; do
  for opt in "adam" "adamw --weight-decay 0.01" "momentum" "momentum --nesterov"; do
    echo "### $shape --optimizer $opt --steps 100"
    s=$SECONDS
    timeout 150 build/clparity train -d NVIDIA,host --engines cl:cr,host:cr --steps 100 --every 1 \
        --optimizer $opt $shape --json /tmp/t.json > /tmp/t.txt 2>&1
    echo "rc=$? wall=$((SECONDS - s)) s"
    sed -n '/^final/,$p' /tmp/t.txt | grep -v "^final"
    grep -iE "diverg|rror" /tmp/t.txt | head -4
  done
done
for case in "ok adam" "ok momentum --nesterov" ; do
  set -- $case; ex=$1; shift
  echo "### cr_train_optim.sh $ex $*"
  timeout 200 bash tests/cli/cr_train_optim.sh build/clparity python3 . /tmp/cto NVIDIA $ex -- \
      --optimizer "$@" --d-model 13 --layers 3 --batch 5 --steps 10 2>&1 | tail -4
  echo "rc=${PIPESTATUS[0]}"
done
echo "### planted: cr-train-flip-ops must fail"
CLPARITY_TEST_HOOK=cr-train-flip-ops timeout 200 bash tests/cli/cr_train_optim.sh build/clparity python3 . /tmp/cto2 NVIDIA fail -- \
      --optimizer adam --d-model 13 --layers 3 --batch 5 --steps 10 2>&1 | tail -3
echo "rc=${PIPESTATUS[0]}"
echo "### planted: cr-train-flip must fail"
CLPARITY_TEST_HOOK=cr-train-flip timeout 200 bash tests/cli/cr_train_optim.sh build/clparity python3 . /tmp/cto3 NVIDIA fail -- \
      --optimizer adam --d-model 13 --layers 3 --batch 5 --steps 10 2>&1 | tail -3
echo "rc=${PIPESTATUS[0]}"
} > "$O/train_cr.txt" 2>&1
# (2) team against stream, side by side (cfg.py: one run of cl:own and cl:cr per setting)
for shape in "128 128 1" "64 128 1" "128 32 1"; do
  timeout 200 python3 $H/cfg.py "$O/team.txt" $shape stream=- team1=path=team,split=1 \
      team2=path=team,split=2 team4=path=team,split=4 team8=path=team,split=8 stream2=- team4b=path=team,split=4
done
{
for tune in path=team,split=1 path=team,split=4 path=team,split=8 path=team,split=3; do
  for shape in "--d-model 128 --layers 8 --batch 1" "--d-model 77 --layers 5 --batch 1" \
               "--d-model 100 --layers 4 --batch 3" "--d-model 1 --layers 3 --batch 1" "--d-model 67 --layers 4 --batch 2"; do
    echo "### CLPARITY_CR_TUNE=$tune $shape"
    CLPARITY_CR_TUNE=$tune timeout 60 build/clparity compare -d NVIDIA -d host --engines cl:cr,host:cr \
        --expect cr --runs 1 --warmup 0 $shape 2>&1 | grep -E "^  cr  |^ran: +cl:cr|rror|^clparity"
  done
done
echo "### planted: corrupt-cl-cr with team must fail"
CLPARITY_TEST_HOOK=corrupt-cl-cr CLPARITY_CR_TUNE=path=team,split=4 timeout 60 build/clparity compare -d NVIDIA -d host \
    --engines cl:cr,host:cr --expect cr --runs 1 --warmup 0 --d-model 128 --layers 8 --batch 1 2>&1 | grep -E "^  cr  |FAIL|rror" | head -4
echo "rc=${PIPESTATUS[0]}"
} > "$O/team_bits.txt" 2>&1
# (3) tiles at d=128 B=256, default against rm=1 tk=16 sg=4, alternating
for i in 1 2 3; do
  timeout 120 python3 $H/cfg.py "$O/tiles.txt" 128 128 256 default=- rm1sg4=rm=1,tk=16,sg=4 rm1sg2=rm=1,tk=16,sg=2 rm2sg2=rm=2,sg=2
done
# (4) cl:own's training ways (no host references)
{
for opt in sgd adam; do
  timeout 100 build/train_time NVIDIA 1024 16 64 $opt 40 tiled tiled1 tiled4 tiled8 stream
done
timeout 150 build/train_time NVIDIA 4096 8 1024 sgd 5 tiled tiled4 tiled8
} > "$O/train_time.txt" 2>&1
