#!/usr/bin/env bash
# Usage: expect.sh STATUS REGEX [--no-files DIR] -- COMMAND [ARGS...]
# Runs COMMAND and checks that it exits with STATUS and that the first line of its stderr
# matches REGEX (grep -E; an empty REGEX checks nothing). With --no-files DIR, also checks
# that DIR holds no file afterwards (no partial output left behind).
set -u
want=$1 regex=$2
shift 2
nofiles=""
if [ "${1:-}" = "--no-files" ]; then
    nofiles=$2
    shift 2
fi
[ "${1:-}" = "--" ] && shift
err=$(mktemp)
trap 'rm -f "$err"' EXIT
"$@" >/dev/null 2>"$err"
got=$?
first=$(head -n 1 "$err")
ok=1
if [ "$got" != "$want" ]; then
    echo "FAIL: exit status $got, expected $want: $*"
    ok=0
fi
if [ -n "$regex" ] && ! printf '%s\n' "$first" | grep -Eq -- "$regex"; then
    echo "FAIL: first stderr line does not match /$regex/: $first"
    ok=0
fi
if [ -n "$nofiles" ] && [ -n "$(find "$nofiles" -type f 2>/dev/null | head -n 1)" ]; then
    echo "FAIL: files left behind in $nofiles:"
    find "$nofiles" -type f
    ok=0
fi
if [ $ok = 1 ]; then
    echo "ok: exit $got; stderr: $first"
    exit 0
fi
echo "--- stderr:"
cat "$err"
exit 1
