#!/bin/sh
# alternates the west0479 cell of the solve bench between two builds (base = main at the session's start,
# new = this branch), ABBA; each line: build, time, load, the cell's line
# usage: sh ab.sh ROUNDS CASES
R=${1:-2}; C=${2:-west0479}
for i in $(seq 1 $R); do
  for b in base new new base; do
    d=/work/wt/base-small479; [ $b = new ] && d=/work/wt/small479
    l=$(cut -d' ' -f1 /proc/loadavg)
    out=$(cd $d && SIMDGL_SOLVE_CASES=$C OPENBLAS_NUM_THREADS=1 node --expose-gc build/bench.js --only solve 2>&1 | grep -E "^  [a-zA-Z0-9_]+.*rows.*simdgl|spsolve|best SciPy" | grep -v "1.5 ×")
    echo "== $b $(date -u +%H:%M:%S) load $l"; echo "$out"
  done
done
