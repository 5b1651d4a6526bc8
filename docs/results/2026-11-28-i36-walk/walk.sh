#!/usr/bin/env bash
# The newcomer's walk (issue 36): README's quick start and the main user commands of every doc,
# run one after another as a new user would, each one's output saved for the walk's record.
#
#   bash docs/results/2026-11-28-i36-walk/walk.sh build/clparity OUTDIR [STEP...]
#
# Run from anywhere; it works in the repository root (WALK_ROOT, else the one it sits in).
# For the GPU machine: NVIDIA's ICD registered (/etc/OpenCL/vendors or OCL_ICD_VENDORS), PoCL
# beside it if installed. Each step
# writes OUTDIR/NN-name.txt: the command, its exit status, its wall time, then its stdout and
# stderr (stderr lines prefixed "2> "); OUTDIR/summary.tsv has one line per step (step, status,
# seconds, command). STEP names (e.g. 03-devices) run only those steps.
#
# The walk starts cold, as a newcomer's first run does: XDG_CACHE_HOME is OUTDIR/cache (the
# program cache, the peaks and the tune table, and PoCL's kernel cache), so the machine's own
# caches are neither used nor changed, and the walk's `cache clear` clears only its own.
# On the 2-core CI machine the 42 steps took 171 s in all (ci/summary.tsv).
# WALK_TIMEOUT (seconds, default 900) bounds each step; a step that times out says so
# (status 124) and the walk goes on.
set -u
if [ $# -lt 2 ]; then
    sed -n '2,/^set -u$/{/^#/p}' "$0"
    exit 2
fi
clp=$(realpath "$1") out=$(realpath -m "$2")
shift 2
only=("$@")
cd "${WALK_ROOT:-$(dirname "$(realpath "$0")")/../../..}" || exit 2
[ -x "$clp" ] || { echo "walk.sh: $clp is not an executable"; exit 2; }
mkdir -p "$out" "$out/cache" "$out/files"
export XDG_CACHE_HOME=$out/cache
F=$out/files
: >"$out/summary.tsv"
n=0
step() { # NAME COMMAND (a bash command line; $CLP is clparity, $F a folder for its files)
    n=$((n + 1))
    local id name=$1 cmd=$2
    id=$(printf '%02d-%s' "$n" "$name")
    if [ ${#only[@]} -gt 0 ] && ! printf '%s\n' "${only[@]}" | grep -qxF "$id"; then
        return
    fi
    local log=$out/$id.txt t0 t1 st
    echo "== $id: $cmd"
    t0=$(date +%s.%N)
    {
        echo "\$ $cmd"
        CLP=$clp F=$F timeout "${WALK_TIMEOUT:-900}" bash -c "$cmd" 2> >(sed 's/^/2> /')
        st=$?
        sleep 0.2 # the stderr filter's last lines
        echo "[exit status $st]"
        echo "$st" >"$log.status"
    } >"$log" 2>&1
    t1=$(date +%s.%N)
    st=$(cat "$log.status")
    rm -f "$log.status"
    local secs
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    printf '%s\t%s\t%s\t%s\n' "$id" "$st" "$secs" "$cmd" >>"$out/summary.tsv"
    echo "   exit $st, $secs s"
}

{ date -u; uname -a; nproc; command -v nvidia-smi >/dev/null && nvidia-smi -L; clinfo -l 2>&1; git log -1 --oneline; "$clp" --version; } >"$out/machine.txt" 2>&1

# README: the quick start (the build is yours: tools/setup.sh) and its two compares.
step version '$CLP --version'
step help '$CLP --help'
step devices '$CLP devices'
step compare-default '$CLP compare'
step compare-default-warm '$CLP compare'
step compare-init-scale '$CLP compare --init-scale 0.5 --engines cl:own,host:openblas'
# SELECTION.md: selectors as clinfo users give them.
step devices-gpu '$CLP devices -d gpu'
step devices-0-0 '$CLP devices -d 0:0'
# The label of the first OpenCL device as the tables print it ("0:0 NAME"), whole and cut short.
LABEL=$("$clp" devices --json - 2>/dev/null | python3 -c '
import json, sys
d = [x for x in json.load(sys.stdin)["devices"] if x["kind"] == "opencl"]
print("%d:%d %s" % (d[0]["platform_index"], d[0]["device_index"], d[0]["name"]) if d else "")')
export LABEL
step devices-label '$CLP devices -d "$LABEL"'
step run-label-cut '$CLP run -d "${LABEL:0:20}..." --engines cl:own --d-model 64 --layers 8'
step run-gpu '$CLP run -d gpu --d-model 64 --layers 8'
step run-nosuch '$CLP run -d nosuch'
step compare-gpu-bitwise '$CLP compare -d gpu,host --engines cl:own,host:exact --expect bitwise'
step compare-all-bitwise '$CLP compare -d all --engines cl:own,host:exact --expect bitwise --allow-slow --d-model 64 --layers 8 --batch 4'
# Slips: did you mean, no abbreviations.
step slip-command '$CLP compre'
step slip-engine '$CLP run --engines cl:onw'
step slip-abbrev '$CLP compare --engine cl:own'
step slip-subcommand '$CLP cache lst'
# COMMANDS.md
step run-save '$CLP run --d-model 64 --layers 8 --batch 4 --save $F/run'
step run-short-times '$CLP run --engines host:exact --d-model 32 --layers 4'
step compare-save-a '$CLP compare --engines cl:own,host:exact --d-model 64 --layers 8 --batch 4 --save $F/a'
step compare-save-b '$CLP compare -d host --engines host:exact --d-model 64 --layers 8 --batch 4 --save $F/b'
step diff '$CLP diff $F/a $F/b'
step peak '$CLP peak --remeasure'
step ulp '$CLP ulp'
step sweep-width '$CLP sweep --vary width --grid 16,64,256 --layers 2 --runs 3 --warmup 1'
step sweep-batch-quick '$CLP sweep --vary batch --quick --json $F/sweep.json --csv $F/sweep.csv'
step sweep-csv-head 'head -3 $F/sweep.csv'
step tune-dry '$CLP tune --quick --dry-run'
step cache-list '$CLP cache list'
step cache-clear '$CLP cache clear && $CLP cache list'
# ENGINES.md
step engines-compare '$CLP compare --d-model 64 --layers 8 --batch 5 --runs 3 --warmup 1'
step engines-invariance '$CLP compare --d-model 256 --layers 8 --batch 64 --runs 2 --warmup 1 --invariance --engines cl:own,host:openblas,host:exact'
# MODELS.md
step models-digits '$CLP compare --model tests/fixtures/digits.safetensors --input tests/fixtures/digits_x.npy --labels tests/fixtures/digits_y.npy --runs 1 --warmup 0'
# TRAINING.md
step train-adam '$CLP train --optimizer adam --steps 100 --d-model 16 --layers 2 --batch 5 --every 50 --target random'
step train-relaxed '$CLP train --optimizer adam --engines cl:own,cl:relaxed,host:exact,host:f64 --steps 100 --d-model 16 --layers 2 --batch 5 --every 50 --target random'
step train-sgd '$CLP train --steps 100 --d-model 32 --layers 4 --batch 4 --init-scale 0.5 --every 50 --target random'
step train-all '$CLP train -d all --engines cl:own,host:exact --steps 100 --d-model 32 --layers 4 --batch 4 --init-scale 0.5 --allow-slow'
step train-files '$CLP train -d all --engines cl:own,host:exact,host:f64,cl:clblast,host:openblas --steps 100 --d-model 32 --layers 4 --batch 4 --init-scale 0.5 --allow-slow --json $F/train.json --csv $F/train.csv --save $F/train_save --plot $F/train.png'
# LIBRARY.md: the C example and the Python module, from the build.
step library-c "\$(dirname \$CLP)/compare_example pocl,host"
step library-c-gpu "\$(dirname \$CLP)/compare_example gpu,host"
step library-python 'PYTHONPATH=tools/python python3 tools/python/example.py'
echo "walk: $n steps; outputs in $out (summary.tsv)"
