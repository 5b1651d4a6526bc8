# shellcheck shell=bash
# Sourced by tests/cli/exact_isa.sh and cr_isa.sh: sets levels, the host code's instruction-set
# levels (CLPARITY_HOST_ISA's words) that this CPU has, widest first, read from /proc/cpuinfo
# (the flags, never the CPU model), and cpu_has FLAG... for the callers' own checks.
flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null)
cpu_has() { # FLAG...: whether /proc/cpuinfo lists every FLAG
    [ "$(uname -m)" = x86_64 ] || return 1
    for f; do [[ " ${flags#*:} " == *" $f "* ]] || return 1; done
}
levels=()
cpu_has avx512f && levels+=(avx512)
cpu_has avx2 fma && levels+=(avx2)
levels+=(baseline)
