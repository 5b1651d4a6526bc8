#!/usr/bin/env bash
# Usage: tools/setup_vendors.sh [BUILD_DIR]   (run by `tools/setup.sh --vendors`, after the build)
# Registers every OpenCL implementation for x86 CPUs that Debian 12 and the Python package
# registry offer, each as its own platform, in BUILD_DIR/vendors (default build/vendors):
#   icd/1-pocl.icd      PoCL 3.1 (Debian pocl-opencl-icd): its pthread device and its basic
#                       device (POCL_DEVICES="pthread basic": one platform, two devices)
#   icd/2-intel.icd     Intel's oneAPI CPU runtime (PyPI intel-opencl-rt), unpacked into
#                       intel/lib with what it links to (intel-cmplr-lib-rt: libsvml, libimf..;
#                       tbb: libtbb.so.12); downloaded once, skipped when present
#   icd/3-rusticl.icd   Mesa's rusticl (Debian mesa-opencl-icd) on llvmpipe (RUSTICL_ENABLE)
#   icd/4-oclgrind.icd  Oclgrind (Debian oclgrind), the simulator
#   icd/5-pocl30.icd    conda-forge's PoCL 3.0 (PyPI pocl-binary-distribution), unpacked into
#                       pocl30; downloaded once, skipped when present
#   env.sh              `source` it: OCL_ICD_VENDORS, LD_LIBRARY_PATH, RUSTICL_ENABLE, POCL_DEVICES
# The Debian packages are installed by tools/setup.sh. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
mkdir -p "$build/vendors"
vdir=$(cd "$build/vendors" && pwd)

# Intel's CPU runtime: pinned versions, checked on 2026-11-25 on a 2-core AMD EPYC (AVX2);
# the wheels' SHA-256 are pinned too (pip --require-hashes). intel-cmplr-lic-rt is the licence
# text that intel-opencl-rt requires. Left out of its dependencies: tcmlib (its libhwloc.so.15
# would shadow Debian's, which PoCL and clparity link, once the folder is on LD_LIBRARY_PATH).
INTEL_VERSION=2026.2.0
intel_reqs="intel-opencl-rt==$INTEL_VERSION --hash=sha256:6b6215a420598b4999ee01caca6d5cbe106aa4155c46c52377619c5aafce9f67
intel-cmplr-lib-rt==$INTEL_VERSION --hash=sha256:9f713083073a820d2496a6da8e8d4f3482aba6640f74521d25ea48dcebe72748
intel-cmplr-lic-rt==$INTEL_VERSION --hash=sha256:402d9bc7fd418ab2df7a75b0545cf447bb52e02bedf4e3af0e7d5809b66d749d
tbb==2023.2.0 --hash=sha256:7d80615b6e970f11671fa05b6eaa9483ac864fbfe525ac280271a78b37870b7c"
intel=$vdir/intel
stamp=$intel/installed
if [ "$(cat "$stamp" 2>/dev/null)" != "$intel_reqs" ]; then
    echo "setup: downloading Intel's OpenCL CPU runtime $INTEL_VERSION from PyPI (about 270 MB, 830 MB unpacked)"
    rm -rf "$intel"
    mkdir -p "$intel/wheels"
    printf '%s\n' "$intel_reqs" >"$intel/requirements.txt"
    # pip download only: nothing goes into any Python environment (`pip install --target`
    # would also drop the wheels' data/lib folder, where the libraries are).
    /usr/bin/python3 -m pip download --quiet --no-deps --only-binary=:all: --require-hashes \
        --dest "$intel/wheels" -r "$intel/requirements.txt"
    # Unpack each wheel's data/ (lib/, licensing/), without the ICD loader libOpenCL.so* (on
    # LD_LIBRARY_PATH it would replace ocl-icd) and etc/ (its .icd names a path of the build
    # machine). A wheel has no symbolic links, so libfoo.so, .so.N and .so.N.M are copies:
    # each copy becomes a link to the one with the longest name (830 MB -> 520 MB).
    /usr/bin/python3 - "$intel" <<'EOF'
import collections, os, sys, zipfile
dest = sys.argv[1]
groups = collections.defaultdict(list)
for whl in sorted(os.listdir(os.path.join(dest, "wheels"))):
    with zipfile.ZipFile(os.path.join(dest, "wheels", whl)) as z:
        for info in z.infolist():
            parts = info.filename.split("/")
            if len(parts) < 4 or not parts[0].endswith(".data") or parts[1] != "data" \
                    or info.is_dir() or parts[2] == "etc" or parts[-1].startswith("libOpenCL.so"):
                continue
            rel = "/".join(parts[2:])
            out = os.path.join(dest, rel)
            os.makedirs(os.path.dirname(out), exist_ok=True)
            with z.open(info) as src, open(out, "wb") as dst:
                while chunk := src.read(1 << 20):
                    dst.write(chunk)
            if parts[2] == "lib":
                groups[(info.CRC, info.file_size)].append(rel)
for names in groups.values():
    if len(names) < 2:
        continue
    keep = max(names, key=len)
    for n in names:
        if n != keep and os.path.basename(keep).startswith(os.path.basename(n)):
            os.remove(os.path.join(dest, n))
            os.symlink(os.path.basename(keep), os.path.join(dest, n))
EOF
    rm -rf "$intel/wheels"
    [ -f "$intel/lib/libintelocl.so" ] && [ -f "$intel/lib/libsvml.so" ] || {
        echo "setup: libintelocl.so or libsvml.so missing from $intel/lib" >&2
        exit 1
    }
    printf '%s\n' "$intel_reqs" >"$stamp"
fi

# conda-forge's PoCL 3.0, as PyPI's pocl-binary-distribution (the wheel that pyopencl's users
# get: libpocl under pyopencl/.libs, its libhwloc under pocl_binary_distribution/.libs, found by
# its RPATH, so the wheel is unpacked whole). Pinned with its SHA-256, checked 2026-11-28. Its
# LLVM 14 knows no CPU newer than it: on a Zen 5 EPYC every build fails ("unknown target CPU
# 'generic'"), and on an AVX-512 EPYC that it takes for Cooperlake its compiler aborted (issue
# 32): the vendors job holds clparity to a clean refusal or an exact result there.
POCL30_VERSION=3.0
pocl30_reqs="pocl-binary-distribution==$POCL30_VERSION --hash=sha256:b70c3d7835afd9aabc43dcffe0035d6a71d54eb35d8d55fc2fd4eb1e037128a9"
pocl30=$vdir/pocl30
if [ "$(cat "$pocl30/installed" 2>/dev/null)" != "$pocl30_reqs" ]; then
    echo "setup: downloading conda-forge's PoCL $POCL30_VERSION from PyPI (pocl-binary-distribution, about 58 MB, 160 MB unpacked)"
    rm -rf "$pocl30"
    mkdir -p "$pocl30/wheels"
    printf '%s\n' "$pocl30_reqs" >"$pocl30/requirements.txt"
    /usr/bin/python3 -m pip download --quiet --no-deps --only-binary=:all: --require-hashes \
        --dest "$pocl30/wheels" -r "$pocl30/requirements.txt"
    /usr/bin/python3 -c 'import sys, zipfile, glob; zipfile.ZipFile(glob.glob(sys.argv[1] + "/wheels/*.whl")[0]).extractall(sys.argv[1])' "$pocl30"
    rm -rf "$pocl30/wheels"
    lib=$(ls "$pocl30"/pyopencl/.libs/libpocl-*.so 2>/dev/null | head -n 1)
    [ -n "$lib" ] || { echo "setup: no libpocl-*.so in $pocl30/pyopencl/.libs" >&2; exit 1; }
    chmod +x "$pocl30"/pyopencl/.libs/*.so* "$pocl30"/pocl_binary_distribution/.libs/*.so*
    printf '%s\n' "$pocl30_reqs" >"$pocl30/installed"
fi

# One .icd per implementation. PoCL's and rusticl's name the library as Debian's own .icd
# files do; Intel's its full path.
icd=$vdir/icd
rm -rf "$icd"
mkdir -p "$icd"
for f in /etc/OpenCL/vendors/pocl.icd /etc/OpenCL/vendors/rusticl.icd /usr/lib/oclgrind/liboclgrind-rt-icd.so; do
    [ -e "$f" ] || { echo "setup: $f is missing (Debian pocl-opencl-icd, mesa-opencl-icd, oclgrind)" >&2; exit 1; }
done
printf '%s\n' "$(head -n 1 /etc/OpenCL/vendors/pocl.icd)" >"$icd/1-pocl.icd"
printf '%s\n' "$intel/lib/libintelocl.so" >"$icd/2-intel.icd"
printf '%s\n' "$(head -n 1 /etc/OpenCL/vendors/rusticl.icd)" >"$icd/3-rusticl.icd"
printf '%s\n' /usr/lib/oclgrind/liboclgrind-rt-icd.so >"$icd/4-oclgrind.icd"
printf '%s\n' "$(ls "$pocl30"/pyopencl/.libs/libpocl-*.so | head -n 1)" >"$icd/5-pocl30.icd"

cat >"$vdir/env.sh" <<EOF
# Written by tools/setup.sh --vendors. \`source\` it: clparity (and clinfo) then see every OpenCL
# implementation for x86 CPUs that Debian 12 and PyPI offer, each its own platform. ocl-icd
# lists Oclgrind first (it reports the GPU type too), then PoCL (two CPU devices: basic, then
# pthread), then Intel's runtime and rusticl (one CPU device each) in the order the folder
# lists them (docs/VENDORS.md): select them by name, not by index.
export OCL_ICD_VENDORS=$icd
case ":\${LD_LIBRARY_PATH:-}:" in
*":$intel/lib:"*) ;;
*) export LD_LIBRARY_PATH=$intel/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH} ;;
esac
export RUSTICL_ENABLE=llvmpipe
export POCL_DEVICES="pthread basic"
EOF
echo "setup: OpenCL implementations registered in $icd; use them with: source $vdir/env.sh"
