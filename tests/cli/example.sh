#!/bin/sh
# example.sh CLPARITY EXAMPLE OUT: runs the library's C example (runtime/examples) and
# `clparity compare` at the same settings on PoCL and host, and checks that the example
# printed a whole comparison whose verdicts (every line from "verdicts:" on, mismatch counts
# included, up to compare's builds: lines) are those of the command.
set -eu
clp=$1 example=$2 out=$3
mkdir -p "$out"
"$example" pocl,host >"$out/example.txt"
"$clp" compare -d pocl,host --d-model 64 --layers 8 --batch 4 --runs 3 >"$out/compare.txt"
cat "$out/example.txt"
for part in '^results: ' '^pairwise: ' '^worst element' '^verdicts:' '^  torch ' '^  bitwise '; do
    grep -q "$part" "$out/example.txt" || { echo "example.sh: no '$part' in the example's output"; exit 1; }
done
sed -n '/^verdicts:/,$p' "$out/example.txt" >"$out/example.verdicts"
# compare's builds: lines (program builds, kernel paths) follow; the example prints none
awk '/^verdicts:/ {on = 1} /^builds:/ {on = 0} on' "$out/compare.txt" >"$out/compare.verdicts"
diff "$out/compare.verdicts" "$out/example.verdicts" ||
    { echo "example.sh: the example's verdicts differ from clparity compare's"; exit 1; }
