#!/bin/bash
# 2-core A/B of a Krylov solve's pool calls: main (krylov-base) against claimed vector jobs (krylov-new), alternated
for r in 1 2 3 4 5; do
  for b in base new; do
    echo "## $b round $r $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
    timeout 120 node /tmp/pooldyn/krylov-$b.mjs --n 64 --workers 2 --reps 4
  done
done
