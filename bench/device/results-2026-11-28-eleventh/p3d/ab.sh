#!/bin/bash
# A/B: alternate processes of phase-probe.mjs on two builds, ROUNDS rounds, order flipped each round; uptime per round
# usage: bash ab.sh <rootA> <rootB> <rounds> <calls> > log
for i in $(seq 1 $3); do
  if [ $((i % 2)) = 1 ]; then o="$1 $2"; else o="$2 $1"; fi
  for d in $o; do echo "$(date -u +%T) $(cut -d' ' -f1-3 /proc/loadavg) $(node --expose-gc $(dirname $0)/phase-probe.mjs $d $4)"; done
done
