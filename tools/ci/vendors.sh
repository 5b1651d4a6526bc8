#!/usr/bin/env bash
# Usage: tools/ci/vendors.sh BUILD_DIR OUT_DIR
# .ci/run's vendors job, after `tools/setup.sh --vendors`: the exactness suite on every OpenCL
# implementation for x86 CPUs that Debian 12 and PyPI offer (PoCL's pthread and basic devices,
# Intel's CPU runtime, Mesa's rusticl on llvmpipe, Oclgrind, conda-forge's PoCL 3.0). tools/ci/vendors.py holds the
# cases and the verdicts: cl:own against host:exact under --expect bitwise with the default path
# and each forced path at odd shapes, the digits model, `train` for 20 steps, and `compare -d
# all`. It prints the matrix (row x case: ok, n/a with the reason, quirk, FAIL) and fails when
# any case failed or any row is missing. Two runs at a time (CLPARITY_CI_JOBS).
set -u -o pipefail
build=$1 out=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
env_sh=$build/vendors/env.sh
[ -f "$env_sh" ] || { echo "vendors: no $env_sh: run tools/setup.sh --vendors"; exit 1; }
# shellcheck disable=SC1090
source "$env_sh"
rm -rf "$out"
mkdir -p "$out"
# Our program cache, PoCL's kernel cache and Mesa's shader cache start empty, away from the
# user's, and shared by the job's runs; no tune file of the user's applies.
export XDG_CACHE_HOME=$out/cache
unset CLPARITY_OWN_KERNEL CLPARITY_OWN_TUNE CLPARITY_KERNEL_DIR CLPARITY_TEST_HOOK CLPARITY_DEVICES
echo "vendors: $(dpkg-query -W -f='pocl-opencl-icd ${Version}, ' pocl-opencl-icd)$(dpkg-query -W -f='mesa-opencl-icd ${Version}, ' mesa-opencl-icd)$(dpkg-query -W -f='oclgrind ${Version}' oclgrind), Intel: $(head -n 1 "$build/vendors/intel/installed" | cut -d' ' -f1), PoCL 3.0: $(cut -d' ' -f1 "$build/vendors/pocl30/installed")"
/usr/bin/python3 "$root/tools/ci/vendors.py" "$build" "$out" --jobs "${CLPARITY_CI_JOBS:-2}"
