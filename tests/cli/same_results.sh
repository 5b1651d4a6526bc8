#!/usr/bin/env bash
# Usage: same_results.sh CLPARITY DIR
# tools/ci/same_results.sh (issue 33's before/after proof) on one binary against itself: two
# runs of the same binary must come out the same, so its mask (provenance's command, date and
# git_hash, the times) covers all that differs between runs, at the odd shape and in training;
# then against that binary with a planted one-bit defect (a wrapper that sets
# CLPARITY_TEST_HOOK=corrupt-exact: one bit of host:exact's output): exit 1, naming the saved
# result file that differs, not only the environment in provenance.
set -u -o pipefail
clp=$1 dir=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$dir"
mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }

SAME_RESULTS_ONLY='odd|train_sgd' "$root/tools/ci/same_results.sh" "$clp" "$clp" "$dir/self" \
    >"$dir/self.txt" 2>&1
rc=$?
cat "$dir/self.txt"
[ $rc = 0 ] || fail "one binary against itself: exit $rc, not 0"
tail -n 1 "$dir/self.txt" | grep -q '^same_results: SAME: 2 cases (odd train_sgd)' ||
    fail "one binary against itself: no SAME summary of the two cases last"

printf '#!/bin/sh\nCLPARITY_TEST_HOOK=corrupt-exact exec "%s" "$@"\n' "$clp" >"$dir/planted"
chmod +x "$dir/planted"
SAME_RESULTS_ONLY='odd' "$root/tools/ci/same_results.sh" "$clp" "$dir/planted" "$dir/planted.out" \
    >"$dir/planted.txt" 2>&1
rc=$?
cat "$dir/planted.txt"
[ $rc = 1 ] || fail "against a planted bit: exit $rc, not 1"
grep -q '^  odd: Files old/odd/host.host-exact.npy and new/odd/host.host-exact.npy differ' \
    "$dir/planted.txt" || fail "against a planted bit: host.host-exact.npy not named"
tail -n 1 "$dir/planted.txt" | grep -q '^same_results: DIFFERENT: ' ||
    fail "against a planted bit: no DIFFERENT summary last"
echo "PASS"
