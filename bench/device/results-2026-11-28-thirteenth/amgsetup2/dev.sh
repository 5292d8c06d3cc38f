#!/bin/bash
# amgsetup2 device call (issue 21, thirteenth session): CuPy's cg first, then this build against main's (C/base),
# alternated: amg-setup-kernels.mjs (per-kernel wall, three setups a process) KROUNDS times each, amg-webgpu.mjs
# --n 128 ROUNDS times each (orders base/this, this/base, …); PROF=1: one --cpu-prof run of this build.
# Logs to $OUT as they come. Carry C built by bench/device/amg-build.sh (+ base/amg-setup-kernels.mjs).
C=${C:-.carry-amgsetup2}
set -u
. "$C"/carry-unpack.sh
cp "$C"/amg-webgpu.mjs ./amg-this.mjs; cp "$C"/base/amg-webgpu.mjs ./amg-base.mjs
(nvidia-smi --query-gpu=name,driver_version --format=csv; nproc; uptime; cat $C/base/commit) > $OUT/host.log
PYTHONUNBUFFERED=1 timeout 90 python3 "$C"/solve_cg_cupy.py --n 128 --runs 5 > "$OUT/cupy.tsv" 2>&1
ROUNDS=${ROUNDS:-2}
for r in $(seq ${KROUNDS:-$ROUNDS}); do
  o="base this"; [ $((r % 2)) = 0 ] && o="this base"
  for b in $o; do
    echo "# $b round $r $(date -u +%T)" >> $OUT/kernels.log
    k=$C/amg-setup-kernels.mjs; [ $b = base ] && k=$C/base/amg-setup-kernels.mjs
    timeout 40 node --max-old-space-size=16000 $k --n 128 --workers 16 >> $OUT/kernels.log 2>&1
  done
done
for r in $(seq $ROUNDS); do
  o="base this"; [ $((r % 2)) = 0 ] && o="this base"
  for b in $o; do
    echo "# $b round $r $(date -u +%T)" >> $OUT/amg-$b.tsv
    timeout 60 node --max-old-space-size=16000 ./amg-$b.mjs --n 128 --cupy $OUT/cupy.tsv >> $OUT/amg-$b.tsv 2>&1
  done
done
uptime >> $OUT/host.log
if [ "${PROF:-0}" = 1 ]; then
  rm -rf /tmp/prof; timeout 60 node --max-old-space-size=16000 --cpu-prof --cpu-prof-dir=/tmp/prof ./amg-this.mjs --n 128 > $OUT/amg-prof-this.tsv 2>&1
  cp "$(ls /tmp/prof/CPU.*.*.0.*.cpuprofile | head -1)" $OUT/prof-this.cpuprofile
fi
