#!/bin/sh
# golden_help.sh CLPARITY GOLDEN_DIR: every command's --help (generated from tools/opts.c's
# table for the options) against the files in GOLDEN_DIR. After a deliberate change to an
# option or a help text, regenerate them:
#   for c in run compare diff devices peak sweep tune cache train ulp; do
#       build/clparity $c --help > tests/cli/golden/help_$c.txt; done
#   build/clparity --help > tests/cli/golden/help.txt
set -u
clp=$1 dir=$2 rc=0
for c in run compare diff devices peak sweep tune cache train ulp; do
    "$clp" "$c" --help | diff -u "$dir/help_$c.txt" - || { echo "golden_help.sh: $c --help changed"; rc=1; }
done
"$clp" --help | diff -u "$dir/help.txt" - || { echo "golden_help.sh: --help changed"; rc=1; }
exit $rc
