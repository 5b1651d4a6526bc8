#!/bin/sh
# Usage: logged.sh LOG COMMAND [ARGS...]
# Runs COMMAND with its stdout and stderr in LOG, where a test would otherwise send them to
# /dev/null. On a non-zero exit it prints the command, its status and LOG's last 100 lines,
# and exits with that status, so that a failing test shows why.
log=$1
shift
"$@" >"$log" 2>&1
rc=$?
if [ $rc != 0 ]; then
    echo "FAIL: exit status $rc: $*"
    echo "--- its output ($log, last 100 lines):"
    tail -n 100 "$log"
fi
exit $rc
