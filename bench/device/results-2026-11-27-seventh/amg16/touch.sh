#!/bin/bash
# amg16's touch A/B: rt.amg setups of poisson3D(128) on 16 threads (structure analysed before the timing),
# this build with and without the first touch on the pool, alternated, and the base build
set -u
C=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/touch.log") 2>&1
date -u; nproc; uptime
mkdir -p /tmp/nodebin && xz -dc "$C"/node.xz > /tmp/nodebin/node && chmod +x /tmp/nodebin/node
export PATH=/tmp/nodebin:$PATH STRUCTURE=1
for r in 1 2; do
  NOTOUCH=0 timeout 40 node "$C"/amg16/entry-new.mjs 128 3 16 new-touch
  NOTOUCH=1 timeout 40 node "$C"/amg16/entry-new.mjs 128 3 16 new-notouch
  timeout 40 node "$C"/amg16/entry-base.mjs 128 3 16 base
done
uptime; date -u
