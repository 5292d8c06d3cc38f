#!/bin/bash
# amgh200 device call 2: the Gauss–Seidel kernel (da4ad4c) against main cdc34e1 (C/base), alternated:
# amg-setup-kernels.mjs (per-kernel wall, three setups a process) KROUNDS times each (orders base/this,
# this/base, …), then amg-webgpu.mjs once each (C/base-webgpu.mjs: the bundle of call 1, a64bb1d = main
# without da4ad4c; this build's after it). Logs to $OUT as they come.
C=${C:-.carry-amgh200}
set -u
. "$C"/carry-unpack.sh
(nvidia-smi --query-gpu=name,driver_version --format=csv; nproc; uptime; cat $C/base/commit) > $OUT/host.log 2>&1
for r in $(seq ${KROUNDS:-3}); do
  o="base this"; [ $((r % 2)) = 0 ] && o="this base"
  for b in $o; do
    echo "# $b round $r $(date -u +%T)" >> $OUT/kernels.log
    k=$C/amg-setup-kernels.mjs; [ $b = base ] && k=$C/base/amg-setup-kernels.mjs
    timeout 40 node --max-old-space-size=16000 $k --n 128 --workers 16 >> $OUT/kernels.log 2>&1
  done
done
cp "$C"/amg-webgpu.mjs ./amg-this.mjs; cp "$C"/base/amg-webgpu.mjs ./amg-base.mjs
for b in this base; do
  echo "# $b $(date -u +%T)" >> $OUT/amg-$b.tsv
  timeout 40 node --max-old-space-size=16000 ./amg-$b.mjs --n 128 >> $OUT/amg-$b.tsv 2>&1
done
uptime >> $OUT/host.log
