# The bench-path probe alternated without and with gc() between calls (the eleventh session's probe
# called it), ROUNDS rounds of CALLS calls a process, one line a process with the load.
# usage: ROUNDS=6 CALLS=6 bash gc-ab.sh <worktree root>
for r in $(seq ${ROUNDS:-6}); do
  for g in 0 1; do
    echo "$(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg) $(GC=$g node --expose-gc "$(dirname "$0")/bench-path-probe.mjs" "$1" ${CALLS:-6})"
  done
done
