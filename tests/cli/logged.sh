#!/bin/sh
# Usage: logged.sh LOG COMMAND [ARGS...]
# Runs COMMAND with its stdout in LOG, where a test would otherwise send it to /dev/null (its
# stderr goes where the test's goes). On a non-zero exit it prints the command, its status and
# LOG's last 100 lines, and exits with that status, so that a failing test shows why.
log=$1
shift
"$@" >"$log"
rc=$?
if [ $rc != 0 ]; then
    echo "FAIL: exit status $rc: $*"
    echo "--- its output ($log, last 100 lines):"
    tail -n 100 "$log"
fi
exit $rc
