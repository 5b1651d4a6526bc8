#!/usr/bin/env bash
# 2026-11-30 (second session), sixth GPU call (the H200 machine): where `train --steps 100` at
# d=128 L=128 B=64 spends its time, with a build of par_share (clparity_xt) whose train loop
# printed, on stderr, "XT start T steps S read R record M": the seconds in cp_trainer_step, in
# cp_train_run_read_weights and in cp_train_run_record (a timer around each in tools/cmd_train.c's
# train_loop, not committed); /proc/uptime after each run dates the end.
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/* build/
export OPENBLAS_CORETYPE=SkylakeX XDG_CACHE_HOME=/tmp/c6
T="train -d NVIDIA,host --d-model 128 --layers 128 --batch 64 --init-scale 0.5 --optimizer adam --lr 0.001 --quiet"
build/clparity_xt $T --steps 2 > /dev/null 2>&1
for i in 1 2; do
s0=$(date +%s%N); build/clparity_xt $T --steps 100 2>&1 >/dev/null | grep XT; s1=$(date +%s%N); echo "wall_ms=$(( (s1 - s0) / 1000000 ))"; cat /proc/uptime
s0=$(date +%s%N); build/clparity_xt $T --steps 100 --no-f64 2>&1 >/dev/null | grep XT; s1=$(date +%s%N); echo "no-f64 wall_ms=$(( (s1 - s0) / 1000000 ))"; cat /proc/uptime
s0=$(date +%s%N); CLPARITY_HOST_THREADS=8 build/clparity_xt $T --steps 100 2>&1 >/dev/null | grep XT; s1=$(date +%s%N); echo "8 threads wall_ms=$(( (s1 - s0) / 1000000 ))"; cat /proc/uptime
done
