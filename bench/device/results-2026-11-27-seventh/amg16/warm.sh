#!/bin/bash
# amg16's warm-up A/B: the first rt.amg setups of poisson3D(128) on 16 threads (structure analysed before
# the timing) with warmKernels' Laplacian of 4096 (main), 65 536 and 262 144 rows, alternated
set -u
C=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/warm.log") 2>&1
date -u; nproc; uptime
mkdir -p /tmp/nodebin && xz -dc "$C"/node.xz > /tmp/nodebin/node && chmod +x /tmp/nodebin/node
export PATH=/tmp/nodebin:$PATH STRUCTURE=1
for r in 1 2 3; do
  for w in 4096 65536 262144; do timeout 40 node "$C"/amg16/entry-w$w.mjs 128 2 16 warm-$w; done
done
uptime; date -u
