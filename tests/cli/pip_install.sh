#!/usr/bin/env bash
# Usage: pip_install.sh SRCDIR WORKDIR PYTHON
# `pip install .` from a fresh clone (issue 36, docs/LIBRARY.md "Python"): a clone of SRCDIR's
# HEAD (committed files only), a venv of PYTHON with the system's site packages (Debian's
# numpy, setuptools and wheel: no network), `pip install --no-build-isolation --no-index .`,
# which builds libclparity.so with CMake; then, outside the clone and with no PYTHONPATH:
# `import clparity` comes from the venv and loads the library installed beside it, numpy is a
# declared dependency, the Python example of docs/LIBRARY.md runs on PoCL and host (cl:own
# bit-equal to host:exact, host:f64's max ULP `ref` as in compare's table), and REF formats as
# `ref`. Exit 77 (skipped) when SRCDIR is no git clone or PYTHON has no venv module.
set -uo pipefail
src=$1 work=$2 py=$3
die() {
    echo "FAIL: $*"
    exit 1
}
git -C "$src" rev-parse HEAD >/dev/null 2>&1 || { echo "skip: $src is not a git clone"; exit 77; }
"$py" -c 'import ensurepip, venv' 2>/dev/null || { echo "skip: $py has no venv (python3-venv)"; exit 77; }
rm -rf "$work" && mkdir -p "$work" || die "cannot make $work"
git clone -q "$src" "$work/clone" || die "git clone $src"
echo "testing HEAD $(git -C "$work/clone" log -1 --format=%h) (uncommitted changes are not in a clone)"
"$py" -m venv --system-site-packages "$work/venv" || die "python3 -m venv"
(cd "$work/clone" && CMAKE_BUILD_PARALLEL_LEVEL=2 "$work/venv/bin/pip" install \
    --no-build-isolation --no-index . >"$work/pip.log" 2>&1) || {
    tail -30 "$work/pip.log"
    die "pip install . in the clone"
}
tail -1 "$work/pip.log"
cd "$work" || die "cd $work"
vpy=$work/venv/bin/python
show=$("$work/venv/bin/pip" show clparity) || die "pip show clparity"
grep -qx 'Requires: numpy' <<<"$show" || die "numpy is not a declared dependency: $show"
"$vpy" - "$work/venv" <<'PY' || die "the installed module"
import os, sys
import clparity
venv = os.path.realpath(sys.argv[1])
assert os.path.realpath(clparity.__file__).startswith(venv), clparity.__file__
lib = clparity._find_library()
assert os.path.realpath(lib).startswith(venv) and lib.endswith("clparity.libs/libclparity.so.0"), lib
assert repr(clparity.REF) == "ref" and f"{clparity.REF:4.0f}" == " ref" and not clparity.REF
print("clparity", clparity.version(), "from", clparity.__file__, "library", lib)
PY
# A copy: run from tools/python/, Python would import the clone's clparity.py (the script's
# folder comes first on sys.path), not the installed one.
cp "$work/clone/tools/python/example.py" "$work/example.py" || die "cp example.py"
"$vpy" "$work/example.py" >"$work/example.txt" 2>&1 || {
    cat "$work/example.txt"
    die "the Python example"
}
cat "$work/example.txt"
grep -Eq '^host +host:f64 .* max ULP +ref ' "$work/example.txt" || die "host:f64's max ULP is not 'ref'"
grep -Eq ' cl:own .* =host:exact 1\.0$' "$work/example.txt" || die "cl:own is not bit-equal to host:exact"
echo "ok: pip install . from a clone gives an importable clparity that runs the example"
