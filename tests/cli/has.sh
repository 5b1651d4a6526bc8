#!/bin/sh
# Usage: has.sh [--no] [GREP OPTIONS] PATTERN FILE
# grep -q for tests: FILE must have a line that matches PATTERN (with --no: none may). When it
# does not hold, it says which pattern and file, and shows FILE (its last 60 lines) or, with
# --no, the lines that match.
no=0
[ "${1:-}" = --no ] && { no=1; shift; }
[ $# -ge 2 ] || { echo "has.sh: usage: has.sh [--no] [GREP OPTIONS] PATTERN FILE"; exit 2; }
for file; do :; done # the last argument
if [ $no = 0 ]; then
    grep -q "$@" && exit 0
    echo "FAIL: no line of $file matches: grep $*"
    echo "--- $file (last 60 lines):"
    tail -n 60 "$file"
else
    grep -q "$@" || exit 0
    echo "FAIL: $file has lines it must not: grep $*"
    grep "$@"
fi
exit 1
