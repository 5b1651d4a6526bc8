#!/bin/sh
# golden_diff.sh CLPARITY GOLDEN OUT: `diff` of two --save folders of host:exact (the portable
# generator and the exact engine give the same bits on every machine), against a golden
# report: rows, pairwise matrix, worst elements, verdicts. The folder lines (path, CPU,
# date), the saved times (the rows' median column, masked) and the timing table with the
# speed verdict after them (which must be there) are left out.
set -eu
clp=$1 golden=$2 out=$3
rm -rf "$out" && mkdir -p "$out"
"$clp" compare -d host --engines host:exact --d-model 16 --layers 3 --batch 3 --runs 1 --warmup 0 \
    --save "$out/a" >"$out/a.txt" || { cat "$out/a.txt"; echo "golden_diff.sh: compare failed"; exit 1; }
"$clp" run -d host --engines host:exact --d-model 16 --layers 3 --batch 3 --runs 1 --warmup 0 \
    --save "$out/b" >"$out/b.txt" || { cat "$out/b.txt"; echo "golden_diff.sh: run failed"; exit 1; }
"$clp" diff "$out/a" "$out/b" >"$out/diff_full.txt"
grep -q '^  R[12] host:exact on [AB]: host ran$' "$out/diff_full.txt" ||
    { cat "$out/diff_full.txt"; echo "golden_diff.sh: no speed verdict over the saved timings"; exit 1; }
grep -v '^folder ' "$out/diff_full.txt" | sed '/^timing: wall/,$d' |
    awk '/^R[0-9]/ && length($0) > 61 { $0 = substr($0, 1, 51) "     T.TTT" substr($0, 62) } { print }' \
        >"$out/diff.txt"
diff -u "$golden" "$out/diff.txt" || { echo "golden_diff.sh: the report differs from $golden (above)"; exit 1; }
