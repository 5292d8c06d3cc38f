#!/bin/bash
# alternated 2-core AMG bench: base (main 5658f1d) and this build
L=/tmp/amgcopy/bench2core.log
for b in base new base new; do
  d=/work/wt/base-amgcopy; [ $b = new ] && d=/work/wt/amgcopy
  echo "# $b $(cd $d && git log --oneline -1 | cut -c1-7) $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)" >> $L
  (cd $d && OPENBLAS_NUM_THREADS=1 SIMDGL_AMG_CASES='3D(64),2D(1024),jumping,spgemm' /usr/bin/time -f "process: %e s wall, %U s user, %S s sys, %M KB maxrss" timeout 900 node --expose-gc build/bench.js --only amg) >> $L 2>&1
done
echo "# end $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)" >> $L
