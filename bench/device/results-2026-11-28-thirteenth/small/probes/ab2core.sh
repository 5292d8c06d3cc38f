#!/bin/bash
# 2-core bench A/B: base = /work/wt/base-small (0490c5c), new = /work/wt/small (0d694fa), ABBA x2
cd /tmp/small
i=0
for side in base new new base base new new base; do
  i=$((i+1))
  d=$([ $side = base ] && echo /work/wt/base-small || echo /work/wt/small)
  l0=$(cut -d' ' -f1 /proc/loadavg)
  (cd $d && OPENBLAS_NUM_THREADS=1 SIMDGL_SOLVE_CASES='west0479,olm1000' node --expose-gc build/bench.js --only solve > /tmp/small/ab2-$i-$side.log 2>&1)
  echo "run$i $side $(date +%T) load $l0 -> $(cut -d' ' -f1 /proc/loadavg): $(grep -o '^  [a-z0-9_]* (.*→ best SciPy.*' /tmp/small/ab2-$i-$side.log | sed -E 's/ \(first call[^)]*\)//; s/medians of [0-9]+ in 3 blocks alternating with SciPy.s//' | tr '\n' ' ')" >> /tmp/small/ab2.txt
done
