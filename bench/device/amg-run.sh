#!/bin/bash
# What runs on the device machine for issue 21's WebGPU AMG figures: the carry folder C (built here by
# bench/device/amg-build.sh) holds Node, Dawn, the Vulkan loader debs, the bundle of
# bench/device/amg-webgpu.ts and the CuPy peer; one call:
#   run(command="bash .carry-amg/amg-run.sh", carry=[".carry-amg"], timeout_s=420)
# With C/base/amg-webgpu.mjs (a bundle of an earlier commit) the two alternate AB times (default 2);
# PROF=1 adds a profiled run of this build (node --cpu-prof), PROF=2 of the base's too.
set -u
C=$(dirname "$0")
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/run.log") 2>&1
. "$C"/carry-unpack.sh
cp "$C"/amg-webgpu.mjs "$C"/amg-auto.mjs .
nvidia-smi --query-gpu=name,driver_version --format=csv
PYTHONUNBUFFERED=1 timeout 120 python3 "$C"/solve_cg_cupy.py --n "${N:-128}" --runs 3 > "$OUT/cupy.tsv"; cat "$OUT/cupy.tsv"
run() { timeout 120 node --max-old-space-size=16000 "$@" --cupy "$OUT/cupy.tsv" --n "${N:-128}"; }
if [ -f "$C/base/amg-webgpu.mjs" ]; then
  # same-minutes A/B: the bundle of an earlier commit (C/base, its id in C/base/commit) and this one, alternated
  cp "$C"/base/amg-webgpu.mjs ./amg-webgpu-base.mjs
  for r in $(seq "${AB:-2}"); do
    echo "# base $(cat "$C"/base/commit 2>/dev/null), round $r" | tee -a "$OUT/amg-base.tsv"; run ./amg-webgpu-base.mjs | tee -a "$OUT/amg-base.tsv"
    echo "# this build, round $r" | tee -a "$OUT/amg.tsv"; run ./amg-webgpu.mjs | tee -a "$OUT/amg.tsv"
  done
else
  run ./amg-webgpu.mjs | tee "$OUT/amg.tsv"
fi
# PROF=1: one more run of this build with the main thread's CPU profile (where setup and first solve go),
# PROF=2 of the base bundle too; only the main thread's profile comes back ($OUT/prof-this|base.cpuprofile)
prof() {
  rm -rf /tmp/prof && run --cpu-prof --cpu-prof-dir=/tmp/prof "$2" | tee "$OUT/amg-prof-$1.tsv"
  cp "$(ls /tmp/prof/CPU.*.*.0.*.cpuprofile | head -1)" "$OUT/prof-$1.cpuprofile"
}
[ "${PROF:-0}" = 0 ] || prof this ./amg-webgpu.mjs
[ "${PROF:-0}" = 2 ] && [ -f ./amg-webgpu-base.mjs ] && prof base ./amg-webgpu-base.mjs
# what rt.solve's 'auto' weighs on this path: Jacobi against AMG, time to a solution (setup on 16 workers)
[ "${AUTO:-1}" = 0 ] || timeout 200 node --max-old-space-size=16000 ./amg-auto.mjs --workers 16 | tee "$OUT/auto.tsv"
