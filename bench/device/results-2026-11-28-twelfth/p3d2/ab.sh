# bench-path-probe.mjs processes alternated between worktrees (rotated each round), ROUNDS rounds of
# CALLS calls a process; one line a process with the time and load.
# usage: ROUNDS=6 CALLS=6 bash ab.sh <root> <root> [<root>]
roots=("$@")
for r in $(seq ${ROUNDS:-6}); do
  for i in $(seq 0 $((${#roots[@]} - 1))); do
    w=${roots[$(( (i + r) % ${#roots[@]} ))]}
    echo "$(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg) $(node --expose-gc "$(dirname "$0")/bench-path-probe.mjs" "$w" ${CALLS:-6})"
  done
done
