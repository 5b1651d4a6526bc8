#!/usr/bin/env bash
# 2026-12-01 (third session), third GPU call (H200): issue 34 row 2 (the reference model,
# d=128 L=128 B=1): a timing-only variant of cl:cr's one-work-group kernel `team`
# (build-gpu/k_tf/cr_team.cl: rows outer and layers inner with the row in local memory, every
# output in one pass, no exact sum: wrong where a certificate fails) against main's team and
# the rule's stream, by dec.py (cl:own and cl:cr side by side in one `clparity run
# --min-time 0.3`); registers by nvregs.
#   bash docs/results/2026-12-01c-gpu/run3.sh          (writes $OUT/run3/)
set -u
source .gpu/setup.sh
export XDG_CACHE_HOME=/tmp/c3 PYTHONUNBUFFERED=1
mkdir -p build && cp build-gpu/clparity_main build/clparity
R=${OUT:-/tmp/out}
O=$R/run3
mkdir -p "$O"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; build/clparity --version; } > "$O/env.txt" 2>&1
for k in clkernels build-gpu/k_tf; do
  for s in 4 8; do
    echo "### $k split=$s"
    build-gpu/nvregs $k/cr.cl "-cl-std=CL1.2 -I $k -DCR_WG=$((128 * s)) -DCR_OB=4 -DCR_TK=16 -DCR_VW=16 -DCR_RB=1 -DCR_F64 -DCR_TEAM -DCR_TPO=$s -DCR_PF=$((128 / s)) -DCP_KERNELS -DCP_K_cr_team" 2>&1 \
      | grep -vE "^\s*$" | grep -E "ptxas|kernel |build|Function properties|spill|Used|WORK_GROUP|private" | tail -8
  done
done > "$O/regs.txt" 2>&1
for r in 1 2; do
  for sh in "128 128 1" "64 128 1" "128 32 1"; do
    set -- $sh
    python3 build-gpu/dec.py "$O/dec.txt" $1 $2 $3 stream=-:- team4=-:path=team,split=4 \
        tf4=build-gpu/k_tf:path=team,split=4 tf8=build-gpu/k_tf:path=team,split=8 team8=-:path=team,split=8
  done
done
cat "$O/regs.txt"; cat "$O/dec.txt"
