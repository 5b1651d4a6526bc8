#!/usr/bin/env bash
# Usage: build_crash.sh CLPARITY DIR SCENARIO
# A compiler that crashes or hangs costs one kernel path, not the run (issue 32): cl:own's and
# cl:cr's builds and probes run in a child process (runtime/engine/isolate-impl.h), and the test hooks
# build-abort:<path>, build-segv:<path> and build-hang:<path> make the build of one path (or of
# "all") die by that signal or never return, there as a crashing compiler would. Each scenario
# starts from an empty program cache in DIR (XDG_CACHE_HOME; PoCL's own cache too). Scenarios:
#   abort     SIGABRT in the build of the device's default path: the path is rejected, with the
#             signal and the hook's stderr line in builds:, the next path runs and is exact
#             (--expect bitwise: exit 0); a second run on that cache does the same, from it
#   segv      the same with SIGSEGV
#   hang      the build never returns: with CLPARITY_SETUP_TIMEOUT=5 the path is rejected as
#             not finished in 5 s, and the next one runs (exit 0)
#   all       every path's build aborts: cl:own's row says the compiler crashed (SIGABRT)
#             (cold: on every kernel path, naming them), host:exact's row is measured beside
#             it, and the status is 3
#             (a result failed; DESIGN.md), in a second run on that cache too
#   cr        cl:cr's build segfaults: its row says so, host:cr's is measured, status 3
#   cr_variant  SIGSEGV in the build of cl:cr's default variant (cr:<variant>): that variant is
#             rejected with the signal in builds:, the next variant passes its probe and is
#             host:cr's bits (--expect cr: exit 0), cold and warm
#   timeout   CLPARITY_SETUP_TIMEOUT=abc: a usage error (status 2) naming the variable
#   held      a program built for a probe enters the cache only once the probe passed: with
#             kernel-bit:<the default path> (a flipped bit planted in that path's build, which its
#             probe rejects) no cache entry holds the planted build (-DCP_TEST_FLIP or
#             -DCP_PLANT_BIT), while the next path's programs are there
set -u -o pipefail
clp=$1 base=$2 scenario=$3
rm -rf "$base"
mkdir -p "$base"
export XDG_CACHE_HOME=$base/xdg POCL_CACHE_DIR=$base/pocl
unset CLPARITY_CACHE CLPARITY_OWN_KERNEL CLPARITY_OWN_PROBE CLPARITY_KERNEL_DIR CLPARITY_SETUP_TIMEOUT

fail() {
    echo "FAIL: $*"
    [ -f "$base/out.txt" ] && { echo "--- last run:"; cat "$base/out.txt"; }
    exit 1
}

"$clp" devices 2>/dev/null | grep -q 'Device #' || { echo "no OpenCL device"; exit 77; }

# Runs compare on device 0 and the host into out.txt; its status in $rc.
cmp() {
    "$clp" compare -d 0 -d host --runs 1 --warmup 0 --d-model 64 --layers 3 "$@" \
        >"$base/out.txt" 2>&1
    rc=$?
}

# The path that an engine (cl:own, by default, or cl:cr) takes here without any hook (a cache
# of its own).
default_path() { # [engine host-twin]
    local eng=${1:-cl:own} twin=${2:-host:exact}
    XDG_CACHE_HOME=$base/plain cmp --engines "$eng,$twin"
    [ "$rc" = 0 ] || fail "the plain run exits $rc"
    sed -n "s/^builds: $eng .*kernel path \([a-z0-9-]*\),.*/\1/p" "$base/out.txt"
}

# A path rejected for the crash, another one exact: the run goes on, exit 0. For cl:cr the hook
# names the variant as cr:<variant> and the verdict is --expect cr (host:cr's bits).
one_path() { # hook signal-text [engine host-twin expect prefix]
    local eng=${3:-cl:own} twin=${4:-host:exact} expect=${5:-bitwise} prefix=${6:-} path
    path=$(default_path "$eng" "$twin")
    [ -n "$path" ] || fail "no $eng kernel path in builds:"
    for round in cold warm; do
        CLPARITY_TEST_HOOK=$1:$prefix$path cmp --engines "$eng,$twin" --expect "$expect"
        [ "$rc" = 0 ] || fail "$round: exit $rc, not 0 ($1:$prefix$path)"
        grep -q "rejected $path: the OpenCL compiler $2 building or probing it" "$base/out.txt" ||
            fail "$round: $path is not rejected for '$2'"
        grep -q "clparity: test hook $1: the build of $prefix$path" "$base/out.txt" ||
            fail "$round: the crashed build's stderr line is not in builds:"
        grep -qE "^builds: $eng .*kernel path [a-z0-9-]+, passed its probe" "$base/out.txt" ||
            fail "$round: the next path did not pass its probe"
        grep -q "kernel path $path," "$base/out.txt" && fail "$round: $path still ran"
        # cold, the probes ran in the child, their time within the build's: no probe time of
        # this process's (0.000) is shown as theirs; warm, no child ran
        want="\\(built and probed in a setup child\\)"
        [ $round = warm ] && want="\\(probes [0-9.]+ m?s\\)"
        grep -qE "^builds: $eng .*passed its probe $want" "$base/out.txt" ||
            fail "$round: builds: does not say '$want'"
        grep -qE "^  $expect +PASS" "$base/out.txt" || fail "$round: --expect $expect did not pass"
    done
    echo "ok: $1:$prefix$path rejected ('$2'), the next path exact, cold and warm"
}

case $scenario in
abort) one_path build-abort "crashed (SIGABRT)" ;;
segv) one_path build-segv "crashed (SIGSEGV)" ;;
hang)
    path=$(default_path)
    [ -n "$path" ] || fail "no kernel path in builds:"
    CLPARITY_SETUP_TIMEOUT=5 CLPARITY_TEST_HOOK=build-hang:$path cmp --engines cl:own,host:exact \
        --expect bitwise
    [ "$rc" = 0 ] || fail "exit $rc, not 0"
    grep -q "rejected $path: the OpenCL compiler did not finish in 5 s" "$base/out.txt" ||
        fail "$path is not rejected for the timeout"
    echo "ok: build-hang:$path rejected after 5 s, the next path exact"
    ;;
all | cr)
    if [ "$scenario" = all ]; then
        hook=build-abort:all engines=cl:own,host:exact
        want="cl:own +error: the OpenCL compiler crashed \(SIGABRT\) setting up cl:own"
        host='^R2  host +host:exact +[0-9.]+ '
    else
        hook=build-segv:all engines=cl:cr,host:cr
        want="cl:cr +error: the OpenCL compiler crashed \(SIGSEGV\) setting up cl:cr(, on every kernel path \\([^)]*\\))?; its stderr ended: .*test hook build-segv: the build of cr:"
        host='^R2  host +host:cr +[0-9.]+ '
    fi
    for round in cold warm; do
        CLPARITY_TEST_HOOK=$hook cmp --engines $engines
        [ "$rc" = 3 ] || fail "$round: exit $rc, not 3"
        grep -qE "^R1 .*$want" "$base/out.txt" || fail "$round: R1 does not say the compiler crashed"
        grep -qE "$host" "$base/out.txt" || fail "$round: the host's row is not measured"
        grep -q "1 of 2 results failed (R1 " "$base/out.txt" || fail "$round: no failed-result line"
        # cold, each path crashed in turn: the row lists them (warm, their verdicts are kept)
        [ "$scenario/$round" != all/cold ] || grep -qE "^R1 .*, on every kernel path \(.*naive\)" \
            "$base/out.txt" || fail "cold: R1 does not list every kernel path"
    done
    echo "ok: $hook: R1 failed (the compiler crashed), R2 measured, exit 3, cold and warm"
    ;;
cr_variant) one_path build-segv "crashed (SIGSEGV)" cl:cr host:cr cr cr: ;;
timeout)
    CLPARITY_SETUP_TIMEOUT=abc cmp --engines cl:own,host:exact
    [ "$rc" = 2 ] || fail "exit $rc, not 2"
    grep -q "CLPARITY_SETUP_TIMEOUT: 'abc'" "$base/out.txt" || fail "the variable is not named"
    echo "ok: CLPARITY_SETUP_TIMEOUT=abc: exit 2"
    ;;
held)
    path=$(default_path)
    [ -n "$path" ] || fail "no kernel path in builds:"
    CLPARITY_TEST_HOOK=kernel-bit:$path cmp --engines cl:own,host:exact --expect bitwise
    [ "$rc" = 0 ] || fail "exit $rc, not 0 (kernel-bit:$path)"
    grep -q "rejected $path: probe" "$base/out.txt" || fail "$path's planted bit is not rejected"
    "$clp" cache list --json - >"$base/list.json" 2>"$base/list.txt" || fail "cache list failed"
    grep -qE '"options":[[:space:]]*"-cl-std' "$base/list.json" || fail "no program in the cache"
    grep -qE '"options":[[:space:]]*"[^"]*(CP_TEST_FLIP|CP_PLANT_BIT)' "$base/list.json" &&
        fail "the planted build that failed its probe is in the cache: $(grep -E 'CP_TEST_FLIP|CP_PLANT_BIT' "$base/list.json")"
    echo "ok: kernel-bit:$path rejected by its probe, its build not in the cache"
    ;;
*) fail "unknown scenario $scenario" ;;
esac
