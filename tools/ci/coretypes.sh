#!/usr/bin/env bash
# Usage: tools/ci/coretypes.sh BUILD_DIR [CORETYPE...]   (none named: every one in the table)
# .ci/run's coretypes job (issue 32): OpenBLAS picks its kernel by the CPU, and
# OPENBLAS_CORETYPE lets any machine play OpenBLAS on another CPU of a lower or equal
# instruction set. Under each core type this CPU can run (or those named), it runs
#   - the tests whose outcome hangs on OpenBLAS's bits: ctest -L vendorlib (tests/CMakeLists.txt
#     lists them and why);
#   - the doc examples that show a vendor library: tools/doc_examples.py --check --vendorlib;
# so that no test or example bakes in what one OpenBLAS kernel does on one CPU. It reuses
# BUILD_DIR as it is (the test job's build; run tools/setup.sh first). It prints the core types
# it ran and skipped, each one's time, and fails naming the core type and what failed there.
#
# The core types: OpenBLAS 0.3.21's x86-64 names (driver/others/dynamic.c; Debian builds every
# one, DYNAMIC_ARCH with DYNAMIC_OLDER), each with the /proc/cpuinfo flags its kernels need, as
# conservatively as known. OpenBLAS does not check them: a core type the CPU cannot run dies of
# SIGILL at its first kernel call (Bulldozer's FMA4 on a Zen 5: exit 132). 0.3.21's loop over
# the names stops before Cooperlake: that name falls back to detection by CPU features, which
# gives Cooperlake only where avx512_bf16 is; a core type is run only where `clparity devices`
# reports the core asked for, and each core once.
set -u -o pipefail
cd "$(dirname "$0")/../.."
build=$1
shift
clp=$build/clparity
avx512="avx512f avx512cd avx512bw avx512dq avx512vl"
table="Prescott:pni
Atom:ssse3 movbe
Core2:ssse3
Penryn:sse4_1
Dunnington:sse4_1
Nehalem:sse4_2 popcnt
Nano:sse4_1
Barcelona:sse4a popcnt
Bobcat:sse4a ssse3
Sandybridge:avx
Bulldozer:avx fma4 xop
Piledriver:avx fma fma4 xop
Steamroller:avx fma fma4 xop
Excavator:avx avx2 fma fma4 xop
Haswell:avx2 fma
Zen:avx2 fma
SkylakeX:$avx512
Cooperlake:$avx512 avx512_bf16 avx512_vnni"

flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
core_of() { # the core OpenBLAS reports under OPENBLAS_CORETYPE=$1 (devices' host row)
    OPENBLAS_CORETYPE=$1 "$clp" devices --json - 2>/dev/null | python3 -c '
import json, sys
hosts = [d for d in json.load(sys.stdin)["devices"] if d.get("kind") == "host"]
print(hosts[0].get("blas_core") or "?" if hosts else "?")' 2>/dev/null
}

want=("$@")
for w in "${want[@]}"; do
    if ! grep -qi "^$w:" <<<"$table"; then
        echo "coretypes: '$w' is not one of OpenBLAS 0.3.21's core types here:" \
            "$(cut -d: -f1 <<<"$table" | paste -sd' ')" >&2
        exit 2
    fi
done
ran=() skipped=() failed=() flaky=() seen=" "
start=$SECONDS
while IFS=: read -r type needs; do
    if [ ${#want[@]} -gt 0 ] && ! printf '%s\n' "${want[@]}" | grep -qix "$type"; then
        continue
    fi
    missing=""
    for f in $needs; do
        case $flags in *" $f "*) ;; *) missing="$missing $f" ;; esac
    done
    if [ -n "$missing" ]; then
        skipped+=("$type (no${missing} in /proc/cpuinfo)")
        continue
    fi
    got=$(core_of "$type")
    if [ "${got,,}" != "${type,,}" ]; then
        skipped+=("$type (OpenBLAS runs ${got:-nothing} for it)")
        continue
    fi
    case $seen in *" $got "*) continue ;; esac
    seen="$seen$got "
    echo "=== coretypes: OPENBLAS_CORETYPE=$type (OpenBLAS reports core $got)"
    t0=$SECONDS
    what=()
    if ! OPENBLAS_CORETYPE=$type ctest --test-dir "$build" -L vendorlib -j2 --output-on-failure; then
        what+=("ctest -L vendorlib: $(cut -d: -f2 "$build/Testing/Temporary/LastTestsFailed.log" 2>/dev/null | paste -sd' ')")
    fi
    # its problems (the normalized differences) also go to the summary at the end of the log, so
    # that a failure explains itself in the log's tail (CI keeps only the tail)
    # A failure is run once more: CI once failed here under Bobcat (2026-11-28, cause cut off
    # from the log) and 35 runs here did not repeat it. A failure that does not repeat is
    # printed, and kept in the summary as FLAKY, without failing the job; one that repeats fails.
    log=$(mktemp)
    rc=0
    OPENBLAS_CORETYPE=$type python3 tools/doc_examples.py --check --vendorlib --build "$build" 2>"$log" || rc=$?
    cat "$log" >&2
    if [ $rc != 0 ]; then
        first=$(grep -v '^note: \|^doc_examples: [a-z0-9-]*: [0-9.]* s$' "$log" | head -60 | sed 's/^/      /')
        echo "=== coretypes: doc_examples failed under $type (exit $rc); running it once more"
        rc=0
        OPENBLAS_CORETYPE=$type python3 tools/doc_examples.py --check --vendorlib --build "$build" 2>"$log" || rc=$?
        cat "$log" >&2
        [ $rc = 0 ] && flaky+=("OPENBLAS_CORETYPE=$type: tools/doc_examples.py --check --vendorlib failed once, then passed:
$first")
    fi
    if [ $rc != 0 ]; then
        what+=("tools/doc_examples.py --check --vendorlib:
$(grep -v '^note: \|^doc_examples: [a-z0-9-]*: [0-9.]* s$' "$log" | head -60 | sed 's/^/      /')")
    fi
    rm -f "$log"
    t=$((SECONDS - t0))
    ran+=("$type ($((t / 60))m$(printf '%02d' $((t % 60)))s)")
    if [ ${#what[@]} -gt 0 ]; then
        for w in "${what[@]}"; do
            failed+=("OPENBLAS_CORETYPE=$type: $w")
            echo "=== coretypes: FAIL under OPENBLAS_CORETYPE=$type: $w"
        done
    else
        echo "=== coretypes: OPENBLAS_CORETYPE=$type passed in ${t}s"
    fi
done <<<"$table"

t=$((SECONDS - start))
echo "=== coretypes: ran ${#ran[@]} core types in $((t / 60))m$(printf '%02d' $((t % 60)))s${ran[*]:+:}"
[ ${#ran[@]} = 0 ] || printf '  %s\n' "${ran[@]}"
echo "=== coretypes: skipped ${#skipped[@]}${skipped[*]:+:}"
[ ${#skipped[@]} = 0 ] || printf '  %s\n' "${skipped[@]}"
[ ${#ran[@]} -gt 0 ] || { echo "=== coretypes: FAIL: no core type ran"; exit 1; }
if [ ${#flaky[@]} -gt 0 ]; then
    {
        echo "--- coretypes: FLAKY (failed once, passed when run again; not a failure of the job):"
        printf '    %s\n' "${flaky[@]}"
    } | tee -a "${CI_WHY:-/dev/null}"
fi
[ ${#failed[@]} = 0 ] && exit 0
{
    echo "--- coretypes: failed under these core types:"
    printf '    %s\n' "${failed[@]}"
} | tee -a "${CI_WHY:-/dev/null}"
exit 1
