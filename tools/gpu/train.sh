#!/usr/bin/env bash
# The GPU machine's part of issue 6 (training across devices: the H100 through NVIDIA's OpenCL,
# the CPU through PoCL, and host), as run through the device tool with carry [".gpu", "build"]:
#   source .gpu/setup.sh; bash tools/gpu/train.sh "$OUT"
# It also runs where only PoCL and host exist (e.g. OUT=/tmp/x; OCL_ICD_VENDORS=build/icd/pocl).
# The device tool returns at most eight files, so it writes exactly these to the folder given
# (default ./gpu-out):
#   devices.txt     date, nvidia-smi's GPU and driver, clinfo -l, clparity devices
#   train.txt       acceptance 3: the table, its exit status, and tests/check_train.py on its
#                   saved weights (cl:own bit-identical to host:exact on every device, host:f64
#                   against NumPy's float64 training)
#   train.json, train.csv, train_save.tgz   the same run's --json, --csv and --save folder
#   large.txt       two larger runs: d=128 L=16 B=16 and B=5 (on an AVX-512 CPU OpenBLAS gives
#                   host:exact's bits at B=16 here and leaves them from step 1 at B=5)
#   large.csv       the B=16 run's --csv
#   large.tgz       both larger runs' --json and --csv
# The plots are drawn later where gnuplot is installed: tools/plot_train train.csv train.png.
# Train supports the engines cl:own, host:exact, host:f64, cl:clblast and host:openblas;
# cl:relaxed cannot train (status 2), so it is not named. Exit status 1 when a run failed.
set -u
out=${1:-gpu-out}
mkdir -p "$out"
clp=build/clparity
export XDG_CACHE_HOME=/tmp/clparity-xdg
unset CLPARITY_DEVICES
# Debian's OpenBLAS picks its generic core on the GPU machine's AVX-512 CPU (see devices.txt).
if [ -z "${OPENBLAS_CORETYPE:-}" ] && grep -qw avx512f /proc/cpuinfo; then
    export OPENBLAS_CORETYPE=SkylakeX
fi
engines=cl:own,host:exact,host:f64,cl:clblast,host:openblas
# tests/check_train.py needs NumPy: the first Python that has it.
py=python3
for p in python3 /usr/bin/python3; do
    if "$p" -c 'import numpy' 2>/dev/null; then
        py=$p
        break
    fi
done
{
    date -u
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
    clinfo -l
    "$clp" devices
} >"$out/devices.txt" 2>&1
status=0

# train NAME TEXT SECONDS ARGS...: one training, its table appended to TEXT with the command
# and the exit status.
train() {
    local name=$1 text=$2 secs=$3
    shift 3
    local cmd=("$clp" train --engines "$engines" --steps 100 "$@" --json "$out/$name.json"
        --csv "$out/$name.csv")
    echo "== ${cmd[*]}" >>"$text"
    timeout "$secs" "${cmd[@]}" >>"$text" 2>&1
    local rc=$?
    echo "exit status: $rc" >>"$text"
    [ $rc = 0 ] || status=1
    return $rc
}

# Acceptance 3 (every device: NVIDIA, PoCL and host).
rm -rf "$out/train_save"
: >"$out/train.txt"
if train train "$out/train.txt" 240 -d all --d-model 32 --layers 4 --batch 4 --init-scale 0.5 \
    --save "$out/train_save"; then
    echo "== tests/check_train.py train_save --exact-equal" >>"$out/train.txt"
    "$py" tests/check_train.py "$out/train_save" --exact-equal >>"$out/train.txt" 2>&1 ||
        status=1
fi
[ -d "$out/train_save" ] && tar -C "$out" -czf "$out/train_save.tgz" train_save &&
    rm -rf "$out/train_save"

# The larger runs, on the default devices (every non-simulator device plus host: a simulator
# would refuse this much work).
: >"$out/large.txt"
for b in 16 5; do
    name=large_b$b
    train $name "$out/large.txt" 180 --d-model 128 --layers 16 --batch $b --init-scale 0.5
    echo >>"$out/large.txt"
done
cp "$out/large_b16.csv" "$out/large.csv" 2>/dev/null
tar -C "$out" -czf "$out/large.tgz" large_b16.json large_b16.csv large_b5.json large_b5.csv \
    2>>"$out/large.txt"
rm -f "$out"/large_b*.json "$out"/large_b*.csv
exit $status
