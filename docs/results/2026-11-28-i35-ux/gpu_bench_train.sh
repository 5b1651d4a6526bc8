#!/usr/bin/env bash
# Issue 35, "tools/bench --train" on the GPU machine (the NVIDIA H200, 16 Xeon cores, PoCL 5,
# PyTorch 2.11): every row of issue 35's "Targets" table in one run, written beside this
# script. Run from the repository root after building (build/clparity):
#   bash docs/results/2026-11-28-i35-ux/gpu_bench_train.sh
# Rows 1-2 (host references at 2 and 16 cores) take as long as host:exact and host:f64 train
# (before the i35-host change: about 11 s a step at d=1024 L=16 B=64, each); --train-timeout
# bounds each clparity train (a point past it is "not measured" with the reason).
set -u
here=$(dirname "$0")
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.cuda.is_available())'
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 tools/bench --train --rounds 3 --train-steps 5 --train-timeout 1200 \
    --train-json "$here/bench_train_gpu.json" 2>&1 | tee "$here/bench_train_gpu.txt"
