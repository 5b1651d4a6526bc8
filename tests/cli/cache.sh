#!/usr/bin/env bash
# Usage: cache.sh CLPARITY PYTHON DIR SCENARIO
# Command-line tests of the program-binary cache, each in its own folder DIR (emptied first),
# with XDG_CACHE_HOME=DIR/xdg. PoCL's own cache stays where ctest put it (POCL_CACHE_DIR), so
# that it keeps working when our folder is made unwritable. Scenarios:
#   hit       a cold build (CLPARITY_CACHE=off), a miss and a hit give the same output hash
#   bad       a truncated, a bit-flipped, a foreign, a garbage and an empty file: each gives
#             the same hash (a miss), and is replaced by a good entry (the next run hits)
#   unwritable  the folder cannot be written: correct results, a note, no failure
#   off       CLPARITY_CACHE=off, 0, no: nothing written, existing entries untouched
#   cap       CLPARITY_CACHE_MAX_MB below two entries: the least recently used one goes
#   listclear `cache list` (text and --json) and `cache clear`, which keeps files not ours
set -u -o pipefail # a failed run fails the pipe into python, whatever python prints
clp=$1 py=$2 base=$3 scenario=$4
export POCL_CACHE_DIR=${POCL_CACHE_DIR:-${XDG_CACHE_HOME:-$base}/pocl}
rm -rf "$base"
mkdir -p "$base" "$POCL_CACHE_DIR"
export XDG_CACHE_HOME=$base/xdg
# The probe of cl:own's paths would add its verdicts and its programs to the entries counted
# here: off (its caching is tested by exact/probe_planted_*)
export CLPARITY_OWN_PROBE=off
dir=$XDG_CACHE_HOME/clparity
unset CLPARITY_CACHE CLPARITY_CACHE_MAX_MB CLPARITY_KERNEL_DIR

fail() {
    echo "FAIL: $*"
    [ -f "$base/run.txt" ] && { echo "--- last run's table:"; cat "$base/run.txt"; }
    exit 1
}

# Prints "<hash> <build_cache>" of engine $1 (default cl:own); the table goes to run.txt.
run() {
    local engine=${1:-cl:own}
    "$clp" run -d 0 --engines "$engine" --d-model 64 --layers 4 --runs 2 --warmup 1 --json - \
        2>"$base/run.txt" | "$py" -c '
import json, sys
r = [x for x in json.load(sys.stdin)["results"] if x["engine"] == sys.argv[1]][0]
print(r["hash"], r["timing"]["build_cache"])' "$engine" || fail "run $engine failed"
}

expect_run() { # expect_run WANT [ENGINE]
    local got
    got=$(run "${2:-}")
    [ "$got" = "$1" ] || fail "expected '$1', got '$got'"
    echo "ok: $1"
}

entries() { find "$dir" -maxdepth 1 -name '*.bin' 2>/dev/null | wc -l; }

# The number of valid entries that `cache list --json` reports.
valid_entries() {
    "$clp" cache list --json - 2>/dev/null |
        "$py" -c 'import json,sys; print(sum(e["valid"] for e in json.load(sys.stdin)["entries"]))'
}

cold=$(CLPARITY_CACHE=off run)
hash=${cold% *}
[ "$cold" = "$hash off" ] || fail "cold build: $cold"
[ ! -e "$dir" ] || fail "CLPARITY_CACHE=off created $dir"

case $scenario in
hit)
    expect_run "$hash miss"
    [ "$(entries)" = 1 ] || fail "one entry expected after a miss, found $(entries)"
    expect_run "$hash hit"
    grep -Eq '^builds: cl:own on 0:0 .*: [0-9]+\.[0-9]+ m?s \(cache hit\)(;|$)' "$base/run.txt" ||
        fail "no 'builds: ... (cache hit)' line"
    ;;
bad)
    # A foreign file: a valid entry of another key (cl:relaxed's options), from another folder.
    XDG_CACHE_HOME=$base/other run cl:relaxed >/dev/null
    foreign=$(find "$base/other/clparity" -name '*.bin')
    expect_run "$hash miss"
    f=$(find "$dir" -name '*.bin')
    for how in truncated bitflip foreign garbage empty; do
        size=$(stat -c %s "$f")
        case $how in
        truncated) head -c $((size / 2)) "$f" >"$base/t" && cp "$base/t" "$f" ;;
        bitflip) "$py" -c '
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[len(b) * 2 // 3] ^= 0x10
open(sys.argv[1], "wb").write(b)' "$f" ;;
        foreign) cp "$foreign" "$f" ;;
        garbage) head -c 4096 /dev/urandom >"$f" ;;
        empty) : >"$f" ;;
        esac
        [ "$(valid_entries)" = 0 ] || fail "$how: cache list still calls the entry valid"
        expect_run "$hash miss"
        # The builds line names the problem (nothing goes to stderr for it: not an error).
        case $how in
        truncated) why='truncated: [0-9]+ bytes where the header says [0-9]+' ;;
        bitflip) why='(payload|key) checksum mismatch' ;;
        foreign) why='an entry of another key' ;;
        garbage) why='not a clparity cache file \(bad magic\)' ;;
        empty) why='truncated header \(0 bytes\)' ;;
        esac
        grep -Eq "^builds: cl:own on 0:0 .*\(cache miss; bad entry replaced: $why\)(;|$)" "$base/run.txt" ||
            fail "$how: the builds line does not say that the bad entry was replaced: /$why/"
        [ -z "$(find "$dir" -name '*.tmp.*')" ] || fail "$how: a temporary file was left behind"
        [ "$(valid_entries)" = 1 ] || fail "$how: the entry was not replaced by a valid one"
        expect_run "$hash hit"
        echo "ok: $how"
    done
    ;;
unwritable)
    # Root writes through chmod 0555, so the folder's parent is made a regular file instead.
    : >"$base/file"
    export XDG_CACHE_HOME=$base/file/sub
    dir=$XDG_CACHE_HOME/clparity
    expect_run "$hash miss"
    grep -q 'cache miss; not stored: cannot create .*Not a directory' "$base/run.txt" ||
        fail "no 'not stored' note"
    expect_run "$hash miss"
    "$clp" cache list | grep -q '^note: the folder is not writable' || fail "list does not say so"
    if [ "$(id -u)" != 0 ]; then
        export XDG_CACHE_HOME=$base/ro
        dir=$XDG_CACHE_HOME/clparity
        expect_run "$hash miss"
        chmod 0555 "$dir"
        expect_run "$hash hit" # entries already there are still used
        expect_run "$hash miss" cl:clblast
        grep -q 'not stored: ' "$base/run.txt" || fail "chmod 0555: no 'not stored' note"
        chmod 0700 "$dir"
    else
        echo "running as root: chmod 0555 is not enforced; tested a regular file as the parent"
    fi
    ;;
off)
    for v in off 0 no; do
        [ "$(CLPARITY_CACHE=$v run)" = "$hash off" ] || fail "CLPARITY_CACHE=$v"
        [ ! -e "$dir" ] || fail "CLPARITY_CACHE=$v created $dir"
    done
    expect_run "$hash miss"
    before=$(ls -l --time-style=full-iso "$dir")
    sleep 1
    [ "$(CLPARITY_CACHE=off run)" = "$hash off" ] || fail "CLPARITY_CACHE=off with an entry"
    [ "$(ls -l --time-style=full-iso "$dir")" = "$before" ] || fail "CLPARITY_CACHE=off touched $dir"
    echo "ok: nothing written"
    ;;
cap)
    # Both engines build block.cl here, so that the two entries are about the same size.
    export CLPARITY_OWN_KERNEL=naive
    # PoCL's binary grows once PoCL's own cache holds the compiled kernels: warm it first, so
    # that the sizes measured here are the sizes stored below.
    CLPARITY_CACHE=off run cl:relaxed >/dev/null
    expect_run "$hash miss"
    f=$(find "$dir" -name '*.bin')
    size=$(stat -c %s "$f")
    # Room for one entry and a half: storing cl:relaxed's evicts cl:own's, and back.
    export CLPARITY_CACHE_MAX_MB
    CLPARITY_CACHE_MAX_MB=$("$py" -c "print($size * 1.5 / 1048576)")
    echo "cl:own's entry: $size bytes; cap $CLPARITY_CACHE_MAX_MB MiB"
    relaxed=$(run cl:relaxed)
    [ "${relaxed#* }" = miss ] || fail "cl:relaxed: $relaxed"
    ls -l "$dir"
    [ "$(entries)" = 1 ] && [ ! -e "$f" ] || fail "cl:own's entry was not evicted"
    expect_run "$hash miss"
    [ "$(entries)" = 1 ] && [ -e "$f" ] || fail "cl:relaxed's entry was not evicted"
    expect_run "$hash hit"
    # Without the cap both stay.
    unset CLPARITY_CACHE_MAX_MB
    run cl:relaxed >/dev/null
    [ "$(entries)" = 2 ] || fail "two entries expected without a cap"
    ;;
listclear)
    export CLPARITY_OWN_KERNEL=naive # cl:own builds block.cl too
    expect_run "$hash miss"
    run cl:relaxed >/dev/null
    echo keep >"$dir/notes.txt"
    "$clp" cache list >"$base/list.txt" || fail "cache list failed"
    cat "$base/list.txt"
    # 100 columns: the name's first 12 hex digits, size, kernel, device, age; the build
    # options are in --json (below), and notes.txt is listed among the other files.
    [ "$(grep -Ec '^[0-9a-f]{12} +[0-9.]+ KiB +block\.cl +pthread-' "$base/list.txt")" = 2 ] ||
        fail "two entry lines expected"
    grep -Eq '^notes\.txt +5 B +not clparity.s ' "$base/list.txt" || fail "notes.txt not listed"
    grep -Eq '^total: 2 program binaries, [0-9.]+ KiB \(cap 256\.0 MiB\); 1 other file$' "$base/list.txt" ||
        fail "no total line"
    grep -qx "folder: $dir" "$base/list.txt" || fail "no folder line"
    "$clp" cache list --json "$base/list.json" >/dev/null || fail "cache list --json failed"
    "$py" -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == 1 and d["folder"] == sys.argv[2] and "provenance" in d, d
e = d["entries"]
assert len(e) == 2 and all(x["valid"] and x["kernel"] == "block.cl" for x in e), e
assert sum("-cl-fast-relaxed-math" in x["options"] for x in e) == 1, e  # cl:relaxed
assert [o["file"] for o in d["other_files"]] == ["notes.txt"], d["other_files"]
assert d["total_bytes"] == sum(x["bytes"] for x in e), d
print("ok: json")' "$base/list.json" "$dir" || fail "cache list --json"
    bytes=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["total_bytes"])' "$base/list.json")
    out=$("$clp" cache clear) || fail "cache clear failed"
    echo "$out"
    echo "$out" | grep -q "^removed 2 entries, .* ($bytes bytes) freed, from $dir$" ||
        fail "clear's report"
    [ -f "$dir/notes.txt" ] || fail "clear removed a file that is not ours"
    "$clp" cache list | grep -q '^total: 0 program binaries' || fail "entries left after clear"
    "$clp" cache clear | grep -q '^removed 0 entries' || fail "a second clear"
    ;;
*)
    fail "unknown scenario $scenario"
    ;;
esac
# Whatever happened, no temporary file is left behind.
# (the cache's "<key>.bin.tmp.<pid>", the JSON files' ".<name>.clparity-tmp.<pid>")
[ -z "$(find "$base" -path '*clparity*' \( -name '*.tmp.*' -o -name '*.clparity-tmp.*' \) 2>/dev/null)" ] ||
    fail "temporary files left: $(find "$base" -path '*clparity*' \( -name '*.tmp.*' -o -name '*.clparity-tmp.*' \))"
echo "ok: $scenario"
