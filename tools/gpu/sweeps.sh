#!/usr/bin/env bash
# Issue 12 on the GPU machine, as run through the device tool:
#   source .gpu/setup.sh; bash tools/gpu/sweeps.sh "$OUT" [exact|tune|VARY,...]...
# exact: cl:own on the GPU bit-identical to host:exact (--expect bitwise) at each sweep's
#        smallest and largest point, with the kernels cl:own picks there;
# tune:  `clparity tune -d gpu`;
# batch,width,depth,params: `tools/bench --sweeps --vary ...` (cl:own against PyTorch eager and
#        CUDA-graph replay), its table in sweeps-<vary>.txt and CSV in sweeps-<vary>.csv.
# Without steps: exact, tune, then every sweep.
set -u
out=${1:-gpu-out}
shift || true
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(exact tune batch,width,depth params)
mkdir -p "$out"
clp=build/clparity
# The program cache and tune.json live outside $out (only a few files come back from the device
# tool); tune.json is copied to $out, and a tune.json given in $CLPARITY_TUNE_FROM is used.
export XDG_CACHE_HOME="${XDG_CACHE_HOME:-/tmp/clparity-xdg}"
mkdir -p "$XDG_CACHE_HOME/clparity"
[ -n "${CLPARITY_TUNE_FROM:-}" ] && cp "$CLPARITY_TUNE_FROM" "$XDG_CACHE_HOME/clparity/tune.json"
status=0
for step in "${steps[@]}"; do
    case $step in
    exact)
        # The init scale keeps each model finite (NaN is never bit-equal without --equal-nan):
        # the residual blocks only grow, about exp(0.23 x scale) per block.
        for v in "128 128 1 0.5" "128 128 2048 0.5" "64 128 1 0.5" "4096 128 1 0.5" "128 3840 1 0.05" \
            "128 131072 1 0.001"; do
            set -- $v
            echo "== compare -d gpu -d host --engines cl:own,host:exact --d-model $1 --layers $2 --batch $3 --init-scale $4"
            $clp compare -d gpu -d host --expect bitwise --engines cl:own,host:exact --d-model "$1" \
                --layers "$2" --batch "$3" --init-scale "$4" --runs 2 --warmup 0 \
                --json "$out/exact-$1-$2-$3.json" | grep -E '(cl:own|host:exact) |bitwise'
            rc=${PIPESTATUS[0]}
            python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["provenance"]["kernel_build_options"])' \
                "$out/exact-$1-$2-$3.json" 2>/dev/null
            rm -f "$out/exact-$1-$2-$3.json"
            echo "exit status: $rc"
            [ "$rc" = 0 ] || status=1
        done >"$out/exact.txt" 2>&1
        grep -c '^exit status: 0' "$out/exact.txt" | sed 's/^/exact: points passed: /'
        ;;
    tune)
        $clp tune -d gpu --json "$out/tune-measured.json" >"$out/tune.txt" 2>&1 || status=1
        cp "$XDG_CACHE_HOME/clparity/tune.json" "$out/tune.json"
        tail -4 "$out/tune.txt"
        ;;
    *)
        name=${step//,/-}
        python3 tools/bench --sweeps --vary "$step" --csv "$out/sweeps-$name.csv" \
            >"$out/sweeps-$name.txt" 2>&1 || status=1
        tail -3 "$out/sweeps-$name.txt"
        ;;
    esac
done
exit $status
