#!/usr/bin/env bash
# Sets clparity up on Debian 12: installs the packages it needs (apt-get update once, only
# when one is missing), then builds build/clparity and the tests. Safe to run again.
#   --vendors  also installs and registers every OpenCL implementation for x86 CPUs that
#              Debian 12 and PyPI offer (PoCL's pthread and basic devices, Intel's CPU runtime,
#              Mesa's rusticl on llvmpipe, Oclgrind) in build/vendors, and writes
#              build/vendors/env.sh to `source` (tools/setup_vendors.sh, docs/VENDORS.md)
set -euo pipefail
cd "$(dirname "$0")/.."

vendors=0
for a in "$@"; do
    case $a in
    --vendors) vendors=1 ;;
    *)
        echo "usage: tools/setup.sh [--vendors]" >&2
        exit 2
        ;;
    esac
done

pkgs=(build-essential cmake pkg-config git
      ocl-icd-opencl-dev opencl-headers libclblast-dev libopenblas-dev pocl-opencl-icd
      libcmocka-dev clinfo oclgrind libcjson-dev libssl-dev python3-numpy python3-jsonschema
      gnuplot-nox clang libclang-rt-14-dev valgrind libopenmpi-dev openmpi-bin bsdutils
      python3-venv python3-setuptools python3-wheel)
[ $vendors = 0 ] || pkgs+=(mesa-opencl-icd python3-pip)

missing=()
for p in "${pkgs[@]}"; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
    [ "$status" = installed ] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y "${missing[@]}"
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCLPARITY_MPI=ON
cmake --build build -j"$(nproc)"
[ $vendors = 0 ] || tools/setup_vendors.sh build
