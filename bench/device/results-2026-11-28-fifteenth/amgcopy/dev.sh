#!/bin/bash
# amgcopy device call: the fine A's copy into the pool's memory by the pool (rt.upload's private CSR on
# SharedArrayBuffers, src/cpu/copy-in.ts) against main (C/base), alternated: amg-setup-kernels.mjs (per-kernel
# wall + the session's copies of operands, three setups a process) KROUNDS times each (orders base/this,
# this/base, …); then one profiled process of this build (the calling thread's CPU profile: what it does
# between kernels); then amg-webgpu.mjs once each (the WebGPU path uploads the shared private copy).
# Logs to $OUT as they come.
C=${C:-.carry-amgcopy}
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
rm -rf /tmp/prof
echo "# this, profiled $(date -u +%T)" >> $OUT/kernels.log
timeout 40 node --max-old-space-size=16000 --cpu-prof --cpu-prof-dir=/tmp/prof $C/amg-setup-kernels.mjs --n 128 --workers 16 >> $OUT/kernels.log 2>&1
cp "$(ls /tmp/prof/CPU.*.*.0.*.cpuprofile | head -1)" $OUT/prof-this.cpuprofile
cp "$C"/amg-webgpu.mjs ./amg-this.mjs; cp "$C"/base/amg-webgpu.mjs ./amg-base.mjs
for b in this base; do
  echo "# $b $(date -u +%T)" >> $OUT/amg-$b.tsv
  timeout 40 node --max-old-space-size=16000 ./amg-$b.mjs --n 128 >> $OUT/amg-$b.tsv 2>&1
done
uptime >> $OUT/host.log
