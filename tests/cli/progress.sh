#!/usr/bin/env bash
# progress.sh CLPARITY OUTDIR MODE [MPIEXEC RANK_SH ICD_POCL]
# The progress line (tools/progress.c) of run, compare, train, tune, peak, sweep, ulp and rank 0 of
# compare --mpi and train --mpi: each command runs three times,
#   under `script` (a pseudo-terminal, util-linux): the line must show ("\033[K" and the
#     command's progress words);
#   with stderr and stdout to a pipe, then to files: nothing of it may arrive (no "\r", no
#     escape, no progress words);
#   under `script` with --quiet: none of it.
# MODE normal checks all that; MODE planted runs with CLPARITY_TEST_HOOK=progress-always
# (progress forced on whatever stderr is) and passes only when the pipe and file checks catch
# every command: the test can fail. The mpi cases run when MPIEXEC is given (-DCLPARITY_MPI=ON).
set -u
clp=$1 out=$2 mode=$3 mpiexec=${4:-} rank_sh=${5:-} icd=${6:-}
rm -rf "$out" && mkdir -p "$out" || exit 1
command -v script >/dev/null || { echo "FAIL: no 'script' (util-linux, Debian's bsdutils)"; exit 1; }
[ "$mode" = normal ] || [ "$mode" = planted ] || { echo "usage: MODE normal or planted"; exit 2; }
if [ "$mode" = planted ]; then
    export CLPARITY_TEST_HOOK=progress-always
    export CLPARITY_TEST_RANK_HOOK=0:progress-always # tests/mpi/rank.sh: rank 0 only
fi
esc=$(printf '\033') cr=$(printf '\r')
fails=0 caught=0 total=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

small="--d-model 32 --layers 2 --runs 2 --warmup 1"
# name|command|a word that only the progress line prints
cases=(
    "run|$clp run -d 0,host --engines cl:own,host:exact $small|run: 1/2  cl:own on 0:0"
    "compare|$clp compare -d 0,host --engines cl:own,host:exact $small|compare: 1/2  cl:own on 0:0"
    "train|$clp train -d 0,host --engines cl:own,host:exact --d-model 16 --layers 2 --steps 20|steps/s, ETA"
    "tune|$clp tune -d 0 --quick --runs 1 --warmup 0 --dry-run|tune: 1/"
    "peak|env XDG_CACHE_HOME=$out/peak-cache $clp peak -d host --remeasure|peak: 1/1  host"
    "sweep|$clp sweep --vary batch --grid 1,2 -d host --engines host:exact --d-model 16 --layers 2 --runs 1 --warmup 0|] 0/2  d=16 L=2 B=1  host:exact"
    "ulp|$clp ulp -d 0 --functions sqrt --samples 4096|ulp: 1/2  0:0"
)
if [ -n "$mpiexec" ]; then
    # Two ranks, host only: rank 0's line goes through mpirun's stderr to its terminal.
    export CLPARITY_TEST_RANK_ICDS="$icd:$icd"
    mpirun="$mpiexec --allow-run-as-root --oversubscribe -np 2 $rank_sh $clp"
    cases+=("mpi_compare|$mpirun compare --mpi -d host --engines host:exact $small|compare --mpi, rank 0: 1/"
        "mpi_train|$mpirun train --mpi -d host --engines host:exact --d-model 16 --layers 2 --steps 20|train --mpi, rank 0: step 1/20")
else
    echo "note: no MPIEXEC given (a build without MPI): the --mpi cases are skipped"
fi

# clean FILE WORD: nothing of the progress line in FILE.
clean() {
    ! grep -q "$esc" "$1" && ! grep -q "$cr" "$1" && ! grep -qF "$2" "$1"
}

for c in "${cases[@]}"; do
    IFS='|' read -r name cmd word <<<"$c"
    o=$out/$name
    if [ "$mode" = normal ]; then
        script -qec "$cmd" /dev/null >"$o.tty" 2>&1 || fail "$name: exit $? under script: $(tail -c 600 "$o.tty")"
        grep -q "$esc\[K" "$o.tty" && grep -qF "$word" "$o.tty" ||
            fail "$name: no progress line on the terminal (expected '$word'): $(tail -c 600 "$o.tty" | cat -A)"
        # The report is clean: the last line erased is followed by the output alone.
        script -qec "$cmd --quiet" /dev/null >"$o.quiet" 2>&1 || fail "$name --quiet: exit $?"
        ! grep -q "$esc" "$o.quiet" && ! grep -qF "$word" "$o.quiet" ||
            fail "$name --quiet: progress on the terminal: $(grep -aF "$word" "$o.quiet" | head -c 300 | cat -A)"
    fi
    total=$((total + 1))
    leak=0
    # A command that failed would print no progress either: each run must succeed.
    $cmd 2>&1 | cat >"$o.pipe"
    rc=${PIPESTATUS[0]}
    [ "$rc" = 0 ] || fail "$name: exit $rc with a pipe: $(tail -c 600 "$o.pipe")"
    clean "$o.pipe" "$word" || leak=1
    $cmd >"$o.out" 2>"$o.err"
    rc=$?
    [ "$rc" = 0 ] || fail "$name: exit $rc with files: $(tail -c 600 "$o.err")"
    clean "$o.err" "$word" && clean "$o.out" "$word" || leak=1
    if [ "$mode" = normal ] && [ $leak = 1 ]; then
        fail "$name: progress reached a pipe or a file: $(grep -aF "$word" "$o.pipe" "$o.err" | head -c 300 | cat -A)"
    fi
    caught=$((caught + leak))
    echo "$name: done"
done
# tune: its header comes first, and --dry-run says that nothing was stored, and where.
if [ "$mode" = normal ]; then
    # its line counts the steps and, from the second on, says the time left (issue 36)
    grep -Eaq "tune: [2-9]/[0-9]+, (about [0-9]+ (s|min)|under 1 s) left  0:0 " "$out/tune.tty" ||
        fail "tune: no 'N/M, about T s left' on its progress line: $(tr '\r' '\n' <"$out/tune.tty" | grep -a 'tune: ' | head -3)"
    head -n 1 "$out/tune.out" | grep -Eq '^device +engine +path +setting +shapes +d +L +B +median ms +GFLOP/s$' ||
        fail "tune: the first line is not the header: $(head -n 1 "$out/tune.out")"
    # Its columns line up: every candidate's row is as long as the header, with the engine under
    # "engine" and the path under "path" (fixed widths from the longest device name and setting):
    # cl:own's vec and cl:cr's cpu1 on PoCL.
    awk 'NR == 1 { e = index($0, " engine ") + 1; p = index($0, " path ") + 1; n = length($0); next }
         / best: |^dry run|^stored for/ { next }
         { rows++; k = substr($0, e, 7) substr($0, p, 4)
           if (length($0) != n || (k != "cl:own vec " && k != "cl:cr  cpu1")) bad++ }
         END { exit !(rows > 0 && bad == 0) }' "$out/tune.out" ||
        fail "tune: the columns do not line up with the header: $(cat "$out/tune.out")"
    grep -Eq '^dry run: nothing stored in .*/clparity/tune\.json$' "$out/tune.out" ||
        fail "tune --dry-run: no closing 'dry run: nothing stored in <path>' line"
fi
# Interrupted (Ctrl-C's SIGINT, or SIGTERM) while the line shows: the line is erased, so the
# terminal ends on "\r\033[K" and not on a half line. `env --default-signal` undoes an
# inherited SIG_IGN (a background job's), as a shell's foreground job has it.
if [ "$mode" = normal ]; then
    for sig in INT TERM; do
        o=$out/interrupt_$sig
        script -qec "env --default-signal=$sig timeout -s $sig 3 $clp train -d host --engines host:exact --d-model 64 --layers 4 --steps 100000000" /dev/null >"$o.tty" 2>&1
        grep -qF "train: step " "$o.tty" || fail "SIG$sig: no progress line before the signal: $(tail -c 300 "$o.tty" | cat -A)"
        [ "$(tail -c 4 "$o.tty" | od -An -tx1 | tr -d ' \n')" = 0d1b5b4b ] ||
            fail "SIG$sig: the progress line was left on the terminal: $(tail -c 200 "$o.tty" | cat -A)"
    done
fi
if [ "$mode" = planted ]; then
    [ $caught = $total ] || fail "planted: progress forced onto pipes, but only $caught of $total commands were caught"
    echo "planted: the pipe checks caught $caught of $total commands"
fi
[ $fails = 0 ] && echo ok
exit $((fails > 0))
