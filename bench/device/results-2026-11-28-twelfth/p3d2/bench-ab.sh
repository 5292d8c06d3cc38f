# The bench cell, the two builds in the order given (each build's own build/bench.js; the baseline
# worktree carries main's bench/ at 89119ee over the 0252ad3 library), under /usr/bin/time, with the load.
# usage: bash bench-ab.sh <root> <root> ...
for w in "$@"; do
  echo "=== $w $(git -C "$w" log --oneline -1 | cut -c1-60) $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
  (cd "$w" && OPENBLAS_NUM_THREADS=1 SIMDGL_SOLVE_CASES='poisson3D(64)' /usr/bin/time -f '%e s wall, %U s user, %S s sys' node --expose-gc build/bench.js --only solve 2>&1 | grep -E "poisson3D|SciPy|refinement|solve poisson| s wall")
  echo "    end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
done
