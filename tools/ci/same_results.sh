#!/usr/bin/env bash
# Usage: tools/ci/same_results.sh OLD_BIN NEW_BIN OUTDIR
# Issue 33's "no behaviour change", shown: OLD_BIN and NEW_BIN (two clparity binaries, e.g.
# main before a refactor and after it) each run `compare --save` at five shapes and `train
# --save` at two, with every engine on PoCL and host, and the saved folders must be the same
# byte for byte (`diff -r`), except the fields that differ between two runs of ONE binary:
# in index.json, provenance's command, date and git_hash, compare's per-result "timing" and
# train's per-result "first_step_ms", "step_ms_mean", "build_s" and "build_cache" (the setup's
# time and whether the program cache had it) (the mask; nothing else is left out).
# The kernel path each engine ran (stdout's "ran:" lines) must be the same too.
#
# Shapes: the reference model (d=128 L=128 B=1), d=1024 L=16 B=1, an odd size (d=77 L=5
# B=13), a batch (d=256 L=8 B=64) and a general MLP from safetensors (tests/fixtures/
# digits.safetensors, biases and mixed widths, on its inputs). train: plain SGD with all eight
# engines at d=77 L=5 B=13, and Adam on the digits MLP with the six that take it.
#
# Each binary gets a fresh program cache of its own (XDG_CACHE_HOME under OUTDIR), so that
# neither reads the other's or the user's stored tune settings or probe verdicts; PoCL's
# compiler cache is shared (POCL_CACHE_DIR, the same for both: it is part of provenance).
# Environment: SAME_RESULTS_DEVICES (default portable,host), SAME_RESULTS_ONLY (a regex that
# whole case names must match, e.g. 'odd|mlp', for a quick look).
#
# Prints one line per case and a one-line summary last. Exit status: 0 every saved folder the
# same, 1 a difference (the files are named, `diff` of the masked index.json shown), 2 usage,
# 3 a run failed (the end of its stderr is printed; all of it is under OUTDIR).
set -u -o pipefail
[ $# = 3 ] || { echo "usage: $0 OLD_BIN NEW_BIN OUTDIR" >&2; exit 2; }
old=$1 new=$2 out=$3
for b in "$old" "$new"; do
    [ -x "$b" ] || { echo "same_results: $b: not an executable" >&2; exit 2; }
done
root=$(cd "$(dirname "$0")/../.." && pwd)
devices=${SAME_RESULTS_DEVICES:-portable,host}
only=${SAME_RESULTS_ONLY:-}
all=cl:own,cl:clblast,cl:relaxed,cl:cr,host:openblas,host:exact,host:f64,host:cr
no_cr=cl:own,cl:clblast,cl:relaxed,host:openblas,host:exact,host:f64
digits=(--model "$root/tests/fixtures/digits.safetensors")
export POCL_CACHE_DIR=${POCL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pocl/kcache}
rm -rf "$out"
mkdir -p "$out/old" "$out/new" || exit 3

# case NAME COMMAND ENGINES ARGS...: runs it with both binaries, old first.
cases=() failed=()
case_() {
    local name=$1 cmd=$2 engines=$3
    shift 3
    [ -n "$only" ] && ! [[ $name =~ ^($only)$ ]] && return
    cases+=("$name")
    local side bin
    for side in old new; do
        bin=$old
        [ $side = new ] && bin=$new
        local t0=$SECONDS
        XDG_CACHE_HOME=$out/$side/cache "$bin" "$cmd" -d "$devices" --engines "$engines" "$@" \
            --quiet --save "$out/$side/$name" >"$out/$side/$name.out" 2>"$out/$side/$name.err"
        local rc=$?
        echo "  $side $name: $cmd $* (exit $rc, $((SECONDS - t0)) s)"
        if [ $rc != 0 ]; then
            failed+=("$side/$name (exit $rc)")
            # Its stderr's end, here and not only in a file: what failed (a message, or a
            # sanitizer's report) must be in the log of whoever ran this.
            echo "  $side $name: the end of its stderr ($out/$side/$name.err):"
            tail -n 20 "$out/$side/$name.err" | sed 's/^/    | /'
        fi
    done
}

echo "same_results: $old (old) against $new (new) on -d $devices, into $out"
compare=(--runs 1 --warmup 0)
case_ reference compare $all "${compare[@]}"
case_ d1024 compare $all --d-model 1024 --layers 16 --batch 1 "${compare[@]}"
case_ odd compare $all --d-model 77 --layers 5 --batch 13 "${compare[@]}"
case_ batch compare $all --d-model 256 --layers 8 --batch 64 "${compare[@]}"
case_ mlp compare $all "${digits[@]}" --input "$root/tests/fixtures/digits_x.npy" "${compare[@]}"
case_ train_sgd train $all --d-model 77 --layers 5 --batch 13 --init-scale 0.5 --steps 10
case_ train_mlp_adam train $no_cr "${digits[@]}" --batch 5 --optimizer adam --steps 10

if [ ${#failed[@]} -gt 0 ]; then
    echo "same_results: FAILED to run: ${failed[*]} (stderr: $out/<side>/<case>.err)"
    exit 3
fi

# The mask: index.json without the fields that differ between two runs of one binary.
mask() {
    python3 - "$1" "$2" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
for k in ("command", "date", "git_hash"):
    doc.get("provenance", {}).pop(k, None)
def drop(v):
    if isinstance(v, dict):
        return {k: drop(x) for k, x in v.items()
                if k not in ("timing", "first_step_ms", "step_ms_mean", "build_s", "build_cache")}
    if isinstance(v, list):
        return [drop(x) for x in v]
    return v
json.dump(drop(doc), open(sys.argv[2], "w"), indent=1, sort_keys=True)
EOF
}

differ=() files=0
for name in "${cases[@]}"; do
    a=$out/old/$name b=$out/new/$name
    files=$((files + $(find "$a" -type f | wc -l)))
    if ! diff -rq -x index.json "$a" "$b" >"$out/$name.diff" 2>&1; then
        while IFS= read -r line; do
            differ+=("$name: ${line//$out\//}")
        done <"$out/$name.diff"
    fi
    mask "$a/index.json" "$out/old/$name.index.masked.json" &&
        mask "$b/index.json" "$out/new/$name.index.masked.json" || exit 3
    if ! diff "$out/old/$name.index.masked.json" "$out/new/$name.index.masked.json" \
        >"$out/$name.index.diff"; then
        differ+=("$name: index.json differs beyond the mask:")
        head -n 20 "$out/$name.index.diff"
    fi
    # What ran (the kernel path of each engine): the same paths, or cl:relaxed's bits could
    # match by chance only.
    for side in old new; do
        sed -n '/^ran:/,/^$/p' "$out/$side/$name.out" >"$out/$side/$name.ran"
    done
    if ! diff "$out/old/$name.ran" "$out/new/$name.ran" >"$out/$name.ran.diff"; then
        differ+=("$name: stdout's 'ran:' lines differ:")
        cat "$out/$name.ran.diff"
    fi
done

if [ ${#differ[@]} -gt 0 ]; then
    printf '  %s\n' "${differ[@]}"
    echo "same_results: DIFFERENT: ${#differ[@]} difference(s) in ${#cases[@]} cases (${cases[*]}); old $old, new $new"
    exit 1
fi
echo "same_results: SAME: ${#cases[@]} cases (${cases[*]}), $files saved files each, identical but for the mask (provenance command/date/git_hash, timing, train's step and build times); old $old, new $new"
