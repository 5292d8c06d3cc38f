#!/bin/bash
# base = main at 0490c5c (before 0d694fa), new = main at 0d694fa; ABBA, each run its own timeout, logs written as they finish
mkdir -p /tmp/n && xz -dc .carry-small/node.xz > /tmp/n/node && chmod +x /tmp/n/node
export OPENBLAS_NUM_THREADS=1
nproc > $OUT/nproc.txt; uptime > $OUT/uptime.txt
i=0
for side in base new new base; do
  i=$((i+1))
  SIMDGL_SOLVE_CASES='west0479,olm1000,494_bus,bcsstk01,qc324' timeout 40 /tmp/n/node --expose-gc .carry-small/bench-$side.mjs --only solve > $OUT/run$i-$side.log 2>&1
  echo "run$i $side rc $? $(date +%T) $(cut -d' ' -f1-3 /proc/loadavg)" >> $OUT/runs.txt
done
