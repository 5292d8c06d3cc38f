#!/bin/bash
# Device side of bench/device/first-solve-probe.ts: a user's first WebGPU rt.solve, split by the WebGPU calls
# it made, and N solves after it (memory: GPU buffers alive, host memory after a collection).
# Built here with bench/device/first-solve-build.sh into a carry folder C; on the device:
#   run(command="bash .carry-x/first-solve-run.sh", carry=[".carry-x"], kind="nvidia-h100-x1")
# ROUNDS (default 2) fresh processes of each bundle alternated, base first; PROBE_ARGS: the probe's arguments;
# VARIANTS: the bundles (C/<name>.mjs) in each round's order (default "probe-base probe"); NVCACHE=0: the NVIDIA driver's shader disk cache off (every process compiles cold); PROF=1: a CPU profile of each process
# ($OUT/prof/<variant>-$TAG-r<round>.cpuprofile; with the probe's --stop-at-submit, the host part before the first submit). Logs to $OUT/probe.log.
set -u
TAG=${TAG:-run}
C=$(dirname "$0")
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/probe.log") 2>&1
. "$C"/carry-unpack.sh
cp "$C"/probe*.mjs .
[ "${NVCACHE:-1}" = 0 ] && export __GL_SHADER_DISK_CACHE=0
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "base $(cat "$C"/base-commit); new $(cat "$C"/new-commit); NVCACHE=${NVCACHE:-1}; args: ${PROBE_ARGS:-}"
for r in $(seq "${ROUNDS:-2}"); do
  for v in ${VARIANTS:-probe-base probe}; do
    echo "== round $r $v $(date +%T)"
    prof=(); [ "${PROF:-0}" = 1 ] && prof=(--cpu-prof --cpu-prof-dir="$OUT/prof" --cpu-prof-name="$v-$TAG-r$r.cpuprofile")
    timeout "${EACH_S:-60}" node ${prof[@]+"${prof[@]}"} --expose-gc --max-old-space-size=16000 ./$v.mjs --label "$v" ${PROBE_ARGS:-}
    echo "rc=$?"
  done
done
