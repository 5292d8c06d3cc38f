#!/bin/bash
# the bench cell, ABBA over two worktrees: OPENBLAS_NUM_THREADS=1 SIMDGL_SOLVE_CASES='poisson3D(64)' node --expose-gc build/bench.js --only solve
# usage: bash bench-ab.sh <worktree A> <worktree B> > log
for d in "$1" "$2" "$2" "$1"; do
  echo "=== $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg) $d ($(git -C $d log --oneline -1 | cut -c1-60))"
  (cd $d && OPENBLAS_NUM_THREADS=1 SIMDGL_SOLVE_CASES='poisson3D(64)' /usr/bin/time -f 'process: %e s wall, %U s user, %S s sys' node --expose-gc build/bench.js --only solve 2>&1 | grep -E "poisson3D|SciPy|process:|MISS|met ")
done
echo "=== $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg) end"
