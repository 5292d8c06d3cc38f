#!/bin/bash
# A/B(/C): alternate processes of phase-probe.mjs over the builds given, ROUNDS rounds, the order rotated each round; load (1/5/15 min) per process
# usage: ROUNDS=6 CALLS=4 bash ab.sh <root> <root> [<root>…] > log
roots=("$@"); k=${#roots[@]}
for i in $(seq 0 $((${ROUNDS:-6} - 1))); do
  for j in $(seq 0 $((k - 1))); do
    d=${roots[$(((i + j) % k))]}
    echo "$(date -u +%T) $(cut -d' ' -f1-3 /proc/loadavg) $(node --expose-gc $(dirname $0)/phase-probe.mjs $d ${CALLS:-4})"
  done
done
