#!/usr/bin/env bash
# cold_notice.sh CLPARITY OUTDIR
# A first run says why it is slow (issue 36, docs/COMMANDS.md "Program cache"): on a cold
# program cache, on a terminal (util-linux's `script`), one line "first run of ENGINE on
# DEVICE: building its kernels and checking their bits (probes), once; cached in DIR, later
# runs skip this", once however many engines build; then, on the same cache (warm), none;
# none on a cold cache with --quiet or CLPARITY_CACHE=off, nor with stderr to a pipe or a file. The run needs
# OpenCL (PoCL through OCL_ICD_VENDORS).
set -u
clp=$1 out=$2
rm -rf "$out" && mkdir -p "$out" || exit 1
command -v script >/dev/null || { echo "FAIL: no 'script' (util-linux, Debian's bsdutils)"; exit 1; }
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
word="building its kernels and checking their bits (probes), once; cached in"
run="run -d 0 --engines cl:own,cl:relaxed --d-model 8 --layers 2 --runs 1 --warmup 0"

# cold, on a terminal: exactly one notice, naming the cache folder
XDG_CACHE_HOME=$out/cache script -qec "$clp $run" /dev/null >"$out/cold.tty" 2>&1 ||
    fail "cold run: exit $?: $(tail -c 400 "$out/cold.tty")"
n=$(grep -o "first run of cl:[a-z]* on 0:0 [^:]*: $word $out/cache/clparity, later runs skip this" \
    "$out/cold.tty" | wc -l)
[ "$n" = 1 ] || fail "cold run on a terminal: $n notices, not 1: $(tr '\r' '\n' <"$out/cold.tty" | grep -v '^.\[K$' | head -5)"
# warm: none
XDG_CACHE_HOME=$out/cache script -qec "$clp $run" /dev/null >"$out/warm.tty" 2>&1 ||
    fail "warm run: exit $?"
grep -qF "$word" "$out/warm.tty" && fail "the warm run (nothing built) printed the notice"
# cold with --quiet, cold to a pipe, cold to a file: none
XDG_CACHE_HOME=$out/cache-q script -qec "$clp $run --quiet" /dev/null >"$out/quiet.tty" 2>&1 ||
    fail "--quiet run: exit $?"
grep -qF "$word" "$out/quiet.tty" && fail "--quiet printed the notice"
CLPARITY_CACHE=off XDG_CACHE_HOME=$out/cache-o script -qec "$clp $run" /dev/null >"$out/off.tty" 2>&1 ||
    fail "CLPARITY_CACHE=off run: exit $?"
grep -qF "$word" "$out/off.tty" && fail "CLPARITY_CACHE=off (nothing is cached) printed the notice"
XDG_CACHE_HOME=$out/cache-p "$clp" $run 2>&1 | cat >"$out/pipe.txt"
grep -qF "$word" "$out/pipe.txt" && fail "a pipe got the notice"
XDG_CACHE_HOME=$out/cache-f "$clp" $run >"$out/file.txt" 2>"$out/file.err" || fail "file run: exit $?"
grep -qF "$word" "$out/file.err" && fail "a file got the notice"
[ $fails = 0 ] && echo "ok: the notice once on a cold cache on a terminal; none warm, quiet, piped or to a file"
exit $((fails > 0))
