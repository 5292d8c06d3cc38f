#!/bin/bash
# The 16-core A/B of rt.amg's setup (helper pooldyn): bench/device/amg-pool-wait.ts bundled from main
# (C/base.mjs, its commit in C/base-commit) and from this branch (C/new.mjs), alternated AB times, each
# process S setups of poisson3D(N) on W threads (C/new4.mjs, where present: this branch with 4 claimed
# chunks a thread instead of 8, a third in each round). One device call:
#   run(command="bash .carry-pooldyn/run.sh", carry=[".carry-pooldyn"], kind="nvidia-h100-x1", timeout_s=360)
set -u
C=$(dirname "$0")
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/run.log") 2>&1
xz -dc "$C"/node.xz > /tmp/node && chmod +x /tmp/node
nproc; uptime
for r in $(seq "${AB:-3}"); do
  for b in base new $([ -f "$C/new4.mjs" ] && echo new4); do
    echo "## $b $([ $b = base ] && cat "$C"/base-commit), round $r, $(date -u +%T), $(cut -d' ' -f1-3 /proc/loadavg)"
    timeout 100 /tmp/node --max-old-space-size=16000 "$C/$b.mjs" --n "${N:-128}" --workers "${W:-16}" --setups "${S:-3}"
  done
done
