#!/bin/bash
# amg16's closing call: the WebGPU bench A/B against a7c1fb9 (amg-run.sh), then the CPU-only setup entry
# of this tree (new) against main at 508bb30 (prev: no prefault), STRUCTURE=1, alternated
set -u
C=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/out}
AUTO=0 PROF=0 AB=2 bash "$C"/amg-run.sh
exec > >(tee -a "$OUT/final.log") 2>&1
date -u; uptime
export PATH=/tmp/nodebin:$PATH STRUCTURE=1
for r in 1 2; do
  for e in prev new; do timeout 40 node "$C"/amg16/entry-$e.mjs 128 3 16 $e; done
done
uptime; date -u
