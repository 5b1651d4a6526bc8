#!/bin/sh
# One rank of an mpirun test, as if each rank were a machine of its own: OCL_ICD_VENDORS is
# the rank's folder in CLPARITY_TEST_RANK_ICDS (':'-separated, rank 0 first; an empty folder:
# a host-only machine), and CLPARITY_TEST_HOOK is set only on the rank that
# CLPARITY_TEST_RANK_HOOK names ("2:corrupt-exact"). CLPARITY_TEST_RANK_CUDA (':'-separated,
# optional) gives a rank CUDA_VISIBLE_DEVICES, i.e. one GPU of NVIDIA's OpenCL each
# (tools/gpu/mpi.sh). Then it runs its arguments.
rank=${OMPI_COMM_WORLD_RANK:?rank.sh runs under mpirun}
OCL_ICD_VENDORS=$(printf '%s\n' "${CLPARITY_TEST_RANK_ICDS:?}" | cut -d: -f$((rank + 1)))
export OCL_ICD_VENDORS
if [ -n "${CLPARITY_TEST_RANK_CUDA:-}" ]; then
    cuda=$(printf '%s\n' "$CLPARITY_TEST_RANK_CUDA" | cut -d: -f$((rank + 1)))
    [ -z "$cuda" ] || export CUDA_VISIBLE_DEVICES="$cuda"
fi
unset CLPARITY_TEST_HOOK
case ${CLPARITY_TEST_RANK_HOOK:-} in
"$rank":*) export CLPARITY_TEST_HOOK="${CLPARITY_TEST_RANK_HOOK#*:}" ;;
esac
exec "$@"
