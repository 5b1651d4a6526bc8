#!/usr/bin/env bash
# Usage: expect.sh STATUS REGEX [--no-files DIR]... [--stderr-lacks REGEX2] [--stderr-lines N]
#                  -- COMMAND [ARGS...]
# Runs COMMAND and checks that it exits with STATUS and that the first line of its stderr
# matches REGEX (grep -E; an empty REGEX checks nothing). With --no-files DIR, also checks
# that DIR holds no file afterwards (no partial output left behind); DIR is emptied first.
# With --stderr-lacks REGEX2, checks that no line of stderr matches REGEX2; with --stderr-lines N,
# that stderr has exactly N lines (a message that must stay one line). On failure it
# prints what failed, the stderr and the end of the stdout.
set -u
want=$1 regex=$2
shift 2
nofiles=()
lacks=""
lines=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    case $1 in
    --no-files) nofiles+=("$2") ;;
    --stderr-lacks) lacks=$2 ;;
    --stderr-lines) lines=$2 ;;
    *) echo "expect.sh: unknown option $1"; exit 2 ;;
    esac
    shift 2
done
[ "${1:-}" = "--" ] && shift
for d in "${nofiles[@]}"; do
    rm -rf "$d"
    mkdir -p "$d"
done
err=$(mktemp)
out=$(mktemp)
trap 'rm -f "$err" "$out"' EXIT
"$@" >"$out" 2>"$err"
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
for d in "${nofiles[@]}"; do
    if [ -n "$(find "$d" -type f 2>/dev/null | head -n 1)" ]; then
        echo "FAIL: files left behind in $d:"
        find "$d" -type f
        ok=0
    fi
done
if [ -n "$lacks" ] && grep -Eq -- "$lacks" "$err"; then
    echo "FAIL: stderr has a line matching /$lacks/:"
    grep -E -- "$lacks" "$err"
    ok=0
fi
if [ -n "$lines" ] && [ "$(wc -l <"$err")" != "$lines" ]; then
    echo "FAIL: stderr has $(wc -l <"$err") lines, expected $lines"
    ok=0
fi
if [ $ok = 1 ]; then
    echo "ok: exit $got; stderr: $first"
    exit 0
fi
echo "--- stderr:"
cat "$err"
echo "--- stdout (last 40 lines):"
tail -n 40 "$out"
exit 1
