#!/usr/bin/env bash
# Usage: sweep.sh CLPARITY PYTHON SRCDIR OUTDIR SCENARIO
# Command-line tests of `clparity sweep`, each scenario in its own folder OUTDIR:
#   batch|width|depth|params  --vary P --quick on PoCL and host, --csv and --json checked by
#                             tests/check_sweep.py (golden CSV header, JSON schema, every field);
#                             the default engines' three series: cl:own, cl:cr's curve beside
#                             it (issue 34) and host:openblas; batch also draws --plot (PNG
#                             and SVG) when gnuplot is installed
#   refused                   on Oclgrind (128 MiB): d = 8192 refused with size and limit while
#                             d = 16 runs, exit 0; on host, d = 65536 (256 GiB) refused for
#                             MemAvailable
#   sigint                    SIGINT after two rows (--rounds 1): the rows that finished are
#                             written, no temporary file is left, and clparity ends by SIGINT
#   sigint_rounds             SIGINT in the second of two rounds, after two rows: every row is
#                             written, the unfinished ones with their first round only
#   consecutive               a point beyond the budget of kept models runs its rounds one
#                             after the other (CLPARITY_TEST_HOOK=sweep-keep:N)
#   noplot                    --plot without gnuplot in PATH: status 2 before any work
#   error                     cl:own and cl:cr cannot build (CLPARITY_KERNEL_DIR without their
#                             kernels): their rows say error, host:openblas still runs, exit 3
set -u
clp=$1 py=$2 src=$3 out=$4 scenario=$5
rm -rf "$out"
mkdir -p "$out"
check="$py $src/tests/check_sweep.py"
schema=$src/docs/sweep.schema.json
header=$src/tests/cli/sweep_header.csv

die() {
    echo "FAIL: $*"
    exit 1
}

no_tmp_files() {
    if find "$out" \( -name '*.tmp.*' -o -name '*.clparity-tmp.*' \) | grep -q .; then
        find "$out" \( -name '*.tmp.*' -o -name '*.clparity-tmp.*' \)
        die "temporary files left behind"
    fi
}

# interrupt_after_two_rows PID TRIES: SIGINT to the sweep PID once its table has two
# host:exact rows (or after TRIES × 0.05 s); it must end by SIGINT and say it was interrupted.
interrupt_after_two_rows() {
    local pid=$1 rc
    for _ in $(seq 1 "$2"); do
        [ "$(grep -c ' host:exact ' "$out/table.txt")" -ge 2 ] && break
        sleep 0.05
    done
    kill -INT "$pid"
    wait "$pid"
    rc=$?
    cat "$out/table.txt" "$out/stderr.txt"
    [ $rc = 130 ] || die "exit status $rc, expected 130 (ended by SIGINT)"
    grep -q '^interrupted by SIGINT' "$out/table.txt" || die "no interruption line"
}

case $scenario in
batch | width | depth | params)
    case $scenario in
    batch) grid=1,4,16,64,256 ;;
    width) grid=16,32,64,128,256 ;;
    depth) grid=8,16,32,64,128 ;;
    params) grid=16,32,64,128,256 ;;
    esac
    plot=()
    if [ "$scenario" = batch ] && command -v gnuplot >/dev/null; then
        plot=(--plot "$out/sweep.png")
    fi
    "$clp" sweep --vary "$scenario" --quick -d 0 -d host --csv "$out/sweep.csv" \
        --json "$out/sweep.json" "${plot[@]}" >"$out/table.txt" 2>"$out/stderr.txt"
    rc=$?
    cat "$out/table.txt" "$out/stderr.txt"
    [ $rc = 0 ] || die "exit status $rc"
    $check "$out/sweep.csv" "$out/sweep.json" "$schema" "$header" "$scenario" "$grid" 3 || exit 1
    grep -q '^crossovers (median wall time' "$out/table.txt" || die "no crossover summary"
    grep -Eq '(beats .* from .* ≥ [0-9]+|never|no verdict|no crossover)' "$out/table.txt" || die "no crossover line"
    [ "$(grep -Ec '^ +[0-9]+ +[0-9]+ +[0-9]+ .* cl:own +[0-9.]+~? ' "$out/table.txt")" = 5 ] ||
        die "cl:own rows missing from the table"
    [ "$(grep -Ec '^ +[0-9]+ +[0-9]+ +[0-9]+ .* cl:cr +[0-9.]+~? ' "$out/table.txt")" = 5 ] ||
        die "cl:cr's curve is missing from the table (issue 34: beside cl:own's by default)"
    [ "$(grep -c ',cl:cr,ok,' "$out/sweep.csv")" = 5 ] || die "cl:cr's curve is missing from the CSV"
    if [ "$scenario" = params ]; then
        # Every point holds the same budget: d²·L = 2^20.
        grep -Eq '^ +16 +4096 +1 ' "$out/table.txt" || die "params: d=16 must have L=4096"
        grep -Eq '^ +256 +16 +1 ' "$out/table.txt" || die "params: d=256 must have L=16"
    fi
    if [ ${#plot[@]} -gt 0 ]; then
        head -c 8 "$out/sweep.png" | od -An -c | grep -q 'P   N   G' || die "sweep.png is not a PNG"
        # The same rows drawn as SVG: one line per device x engine.
        "$clp" sweep --vary batch --quick -d 0 -d host --grid 1,16 --runs 1 --warmup 0 \
            --plot "$out/sweep.svg" >/dev/null || die "the SVG plot failed"
        grep -q '<svg' "$out/sweep.svg" || die "sweep.svg is not SVG"
        grep -q 'cl:own on 0:0' "$out/sweep.svg" || die "the SVG has no cl:own line"
        grep -q 'cl:cr on 0:0' "$out/sweep.svg" || die "the SVG has no cl:cr line"
        grep -q 'host:openblas on host' "$out/sweep.svg" || die "the SVG has no host:openblas line"
    fi
    no_tmp_files
    ;;
refused)
    "$clp" sweep -d oclgrind --engines cl:own --vary width --grid 16,8192 --layers 2 --runs 1 \
        --warmup 0 --csv "$out/sweep.csv" --json "$out/sweep.json" >"$out/table.txt" \
        2>"$out/stderr.txt"
    rc=$?
    cat "$out/table.txt" "$out/stderr.txt"
    [ $rc = 0 ] || die "exit status $rc: a refused point must not fail the sweep"
    grep -Eq '^ +8192 +2 +1 .*cl:own +refused: [0-9.]+ [MG]iB > 128.0 MiB \(CL_DEVICE_' \
        "$out/table.txt" || die "d = 8192 is not refused with its size and Oclgrind's limit"
    grep -Eq '^ +16 +2 +1 .*cl:own +[0-9.]+~? ' "$out/table.txt" || die "d = 16 did not run"
    $check "$out/sweep.csv" "$out/sweep.json" "$schema" "$header" width 16,8192 1 --refused 1 ||
        exit 1
    # Host memory: d = 65536, L = 16 needs 256 GiB of weights, refused before any is made.
    "$clp" sweep -d host --engines host:openblas --vary width --grid 16,65536 --layers 16 \
        --runs 1 --warmup 0 >"$out/host.txt" 2>&1 || die "the host-memory refusal failed the sweep"
    cat "$out/host.txt"
    grep -Eq '^ *65536 +16 +1 +host +host:openblas +refused: [0-9.]+ GiB > [0-9.]+ GiB \(host MemAvailable\)' \
        "$out/host.txt" || die "d = 65536 is not refused for host memory"
    grep -Eq '^ +16 +16 +1 +host +host:openblas +[0-9.]+ ' "$out/host.txt" || die "d = 16 did not run"
    ;;
sigint)
    # host:exact at batch 64 and up takes a while per row; SIGINT lands after two rows.
    "$clp" sweep -d host --engines host:exact --vary batch --grid 1,2,4,64,128,256,512,1024 \
        --d-model 128 --layers 64 --runs 50 --rounds 1 --warmup 0 --csv "$out/sweep.csv" \
        --json "$out/sweep.json" --plot "$out/sweep.svg" >"$out/table.txt" 2>"$out/stderr.txt" &
    interrupt_after_two_rows $! 600
    grep -q '^clparity sweep: interrupted by SIGINT' "$out/stderr.txt" ||
        die "no interruption line on stderr"
    $check "$out/sweep.csv" "$out/sweep.json" "$schema" "$header" batch - 1 --interrupted || exit 1
    grep -q '<svg' "$out/sweep.svg" || die "the plot of the finished rows is missing"
    no_tmp_files
    ;;
sigint_rounds)
    # Rows print in the last round: after two of them, SIGINT lands in the second round.
    "$clp" sweep -d host --engines host:exact --vary batch --grid 1,2,4,64,128,256,512,1024 \
        --d-model 128 --layers 64 --runs 40 --rounds 2 --warmup 0 --csv "$out/sweep.csv" \
        --json "$out/sweep.json" >"$out/table.txt" 2>"$out/stderr.txt" &
    interrupt_after_two_rows $! 1200
    $check "$out/sweep.csv" "$out/sweep.json" "$schema" "$header" batch - 1 --interrupted || exit 1
    # Every point finished its first round, so every row is kept; those that did not finish
    # the second carry one round median and half the runs.
    $py - "$out/sweep.json" <<'PY' || die "the rounds of the kept rows are wrong"
import json, sys
res = json.load(open(sys.argv[1]))["results"]
n = [len(r["timing"]["round_medians_s"]) for r in res]
runs = [r["timing"]["runs"] for r in res]
print("rounds per row:", n, "runs:", runs)
assert len(res) == 8, len(res)
assert n[0] == 2 and n[-1] == 1, n
assert all(r == 20 * k for r, k in zip(runs, n)), runs
PY
    no_tmp_files
    ;;
consecutive)
    # A sweep keeps each point's model for its later rounds up to a budget (1 GiB; here 100 kB
    # by the test hook): d = 16 and 32 (16 and 64 kB of weights) are kept, d = 64 (256 kB) is
    # not and runs its three rounds one after the other; the table stays in grid order.
    CLPARITY_TEST_HOOK=sweep-keep:100000 "$clp" sweep -d host --engines host:openblas,host:exact \
        --vary width --grid 16,32,64 --layers 16 --runs 6 --rounds 3 --warmup 0 \
        --csv "$out/sweep.csv" --json "$out/sweep.json" >"$out/table.txt" 2>"$out/stderr.txt"
    rc=$?
    cat "$out/table.txt" "$out/stderr.txt"
    [ $rc = 0 ] || die "exit status $rc"
    $check "$out/sweep.csv" "$out/sweep.json" "$schema" "$header" width 16,32,64 2 || exit 1
    [ "$(grep -Eo '^ +(16|32|64) +16 +1 ' "$out/table.txt" | awk '{print $1}' | tr '\n' ,)" = \
        16,16,32,32,64,64, ] || die "the table is not in grid order"
    $py - "$out/sweep.json" <<'PY' || die "the rounds are wrong"
import json, sys
res = json.load(open(sys.argv[1]))["results"]
for r in res:
    t, d = r["timing"], r["point"]["d"]
    print(d, r["engine"], t["rounds_consecutive"], t["round_runs"])
    assert t["rounds_consecutive"] == (d == 64), (d, t["rounds_consecutive"])
    assert t["round_runs"] == [2, 2, 2], t["round_runs"]
PY
    no_tmp_files
    ;;
noplot)
    PATH=/nonexistent "$clp" sweep --vary batch --quick -d host --plot "$out/p.png" \
        --csv "$out/p.csv" >"$out/table.txt" 2>"$out/stderr.txt"
    rc=$?
    cat "$out/stderr.txt"
    [ $rc = 2 ] || die "exit status $rc, expected 2"
    head -n 1 "$out/stderr.txt" | grep -q '^clparity sweep: --plot: gnuplot is not in PATH' ||
        die "the first stderr line does not name gnuplot"
    [ ! -s "$out/table.txt" ] && [ ! -e "$out/p.csv" ] || die "work was done before the refusal"
    ;;
error)
    mkdir -p "$out/no-kernels"
    CLPARITY_KERNEL_DIR=$out/no-kernels "$clp" sweep --vary width --grid 8,16 --layers 2 \
        --runs 1 --warmup 0 -d 0 -d host --csv "$out/sweep.csv" >"$out/table.txt" \
        2>"$out/stderr.txt"
    rc=$?
    cat "$out/table.txt" "$out/stderr.txt"
    [ $rc = 3 ] || die "exit status $rc, expected 3"
    [ "$(grep -Ec ' cl:own +error: CLPARITY_KERNEL_DIR: cannot open' "$out/table.txt")" = 2 ] ||
        die "cl:own's rows do not say error"
    [ "$(grep -Ec ' cl:cr +error: ' "$out/table.txt")" = 2 ] || die "cl:cr's rows do not say error"
    [ "$(grep -Ec ' host:openblas +[0-9.]+ ' "$out/table.txt")" = 2 ] ||
        die "host:openblas did not run after cl:own failed"
    grep -q '^clparity sweep: some results failed' "$out/stderr.txt" || die "no status line"
    [ "$(grep -c ',error,' "$out/sweep.csv")" = 4 ] || die "the CSV lacks the error rows"
    ;;
*)
    die "unknown scenario $scenario"
    ;;
esac
echo "ok: sweep $scenario"
