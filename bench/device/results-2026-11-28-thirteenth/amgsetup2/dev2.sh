#!/bin/bash
# amgsetup2 device call 2: more alternated rounds of amg-webgpu.mjs (this build against main's, C/base), orders
# this/base, base/this, … (call 1 began with base), then FRESH alternated --fresh runs (a user's first solve:
# rt.amg on a handle nothing has read, the process's first GPU solve). Logs to $OUT as they come.
C=${C:-.carry-amgsetup2}
set -u
. "$C"/carry-unpack.sh
cp "$C"/amg-webgpu.mjs ./amg-this.mjs; cp "$C"/base/amg-webgpu.mjs ./amg-base.mjs
(nvidia-smi --query-gpu=name,driver_version --format=csv; nproc; uptime; cat $C/base/commit) > $OUT/host.log
for r in $(seq ${ROUNDS:-6}); do
  o="this base"; [ $((r % 2)) = 0 ] && o="base this"
  for b in $o; do
    echo "# $b round $r $(date -u +%T)" >> $OUT/amg-$b.tsv
    timeout 60 node --max-old-space-size=16000 ./amg-$b.mjs --n 128 >> $OUT/amg-$b.tsv 2>&1
  done
done
for r in $(seq ${FRESH:-3}); do
  o="this base"; [ $((r % 2)) = 0 ] && o="base this"
  for b in $o; do
    echo "# $b fresh $r $(date -u +%T) $(timeout 60 node --max-old-space-size=16000 ./amg-$b.mjs --n 128 --fresh 2>&1 | tail -1)" >> $OUT/fresh.tsv
  done
done
uptime >> $OUT/host.log
