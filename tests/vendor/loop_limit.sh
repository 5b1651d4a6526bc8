#!/bin/sh
# Mesa llvmpipe's loop limit (README.md): builds loop_limit.c with cc, runs loop_limit.cl on
# every OpenCL device the ICD loader finds, prints "BUG PRESENT" or "BUG ABSENT". Exit status
# 0 either way (77: no OpenCL device; 3: an OpenCL error; 2: cc failed).
#   tests/vendor/loop_limit.sh            the devices of OCL_ICD_VENDORS (else /etc/OpenCL/vendors)
#   tests/vendor/loop_limit.sh --rusticl  only Mesa rusticl, on llvmpipe
# LOOP_LIMIT_BIN names an already built loop_limit (the build tree's, from CMake).
set -eu
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
here=$(cd "$(dirname "$0")" && pwd)
if [ "${1:-}" = --rusticl ]; then
    icd=$(grep -l -i rusticl /etc/OpenCL/vendors/*.icd 2>/dev/null | head -n 1 || true)
    if [ -z "$icd" ]; then
        echo "rusticl is not installed (no /etc/OpenCL/vendors/*.icd names it): nothing to check"
        exit 77
    fi
    mkdir "$scratch/vendors"
    cp "$icd" "$scratch/vendors/"
    export OCL_ICD_VENDORS="$scratch/vendors" RUSTICL_ENABLE="${RUSTICL_ENABLE:-llvmpipe}"
fi
bin=${LOOP_LIMIT_BIN:-}
if [ -z "$bin" ]; then
    bin=$scratch/loop_limit
    cc -std=c11 -O1 -o "$bin" "$here/loop_limit.c" -lOpenCL || exit 2
fi
st=0
"$bin" "$here/loop_limit.cl" || st=$?
exit $st
