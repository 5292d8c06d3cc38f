#!/bin/bash
# What runs on the device machine for issue 20's WebGPU solver figures. bench/device/solve-build.sh
# builds everything it needs here into one ignored folder C (default .carry-solve) of the checkout
# the device tool sends, this script and the CuPy peer included; then one call:
#   run(command="bash .carry-solve/solve-run.sh", carry=[".carry-solve"], timeout_s=480)
# Writes to $OUT: cupy.tsv, webgpu.tsv (this tree), webgpu-base.tsv (the baseline bundle), run.log,
# solve.cpuprofile (Node's CPU profile of this tree's rt.solve section: where its host time goes).
#   STEPS="cupy new base prof" (default all), N=128, RUNS=5; NEW_ARGS, BASE_ARGS, PROF_ARGS: solve-cg.mjs
#   arguments of those steps (e.g. PROF_ARGS="--skip transfer,kernels,trisolve,refine,solve --dtypes f64");
#   NODE_FLAGS: Node flags of the new and base steps (e.g. --trace-gc: its lines go into their .tsv)
set -u
C=$(dirname "$0")
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
STEPS=${STEPS:-"cupy new base prof"}
exec > >(tee -a "$OUT/run.log") 2>&1
t0=$(date +%s)
stamp() { echo "== [$(( $(date +%s) - t0 )) s] $*"; }
stamp setup
. "$C"/carry-unpack.sh
cp "$C"/solve-cg.mjs "$C"/solve-cg-base.mjs .   # they resolve 'webgpu' from ./node_modules
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
echo "baseline commit $(cat "$C"/base-commit 2>/dev/null)"
if [[ " $STEPS " == *" cupy "* ]]; then
  stamp "CuPy cg"
  PYTHONUNBUFFERED=1 timeout 150 python3 "$C"/solve_cg_cupy.py --n "${N:-128}" --runs "${RUNS:-5}" > "$OUT/cupy.tsv"
  echo "cupy rc=$?"; cat "$OUT/cupy.tsv"
fi
if [[ " $STEPS " == *" new "* ]]; then
  stamp "WebGPU (this tree)"
  timeout 290 node --max-old-space-size=16000 ${NODE_FLAGS:-} ./solve-cg.mjs --cupy "$OUT/cupy.tsv" --n "${N:-128}" --runs "${RUNS:-5}" --label new ${NEW_ARGS:-} > "$OUT/webgpu.tsv"
  echo "new rc=$?"; cat "$OUT/webgpu.tsv"
fi
if [[ " $STEPS " == *" base "* ]]; then
  stamp "WebGPU (baseline)"
  timeout 200 node --max-old-space-size=16000 ${NODE_FLAGS:-} ./solve-cg-base.mjs --cupy "$OUT/cupy.tsv" --n "${N:-128}" --runs "${RUNS:-3}" --label base ${BASE_ARGS:---skip refine,trisolve,transfer} > "$OUT/webgpu-base.tsv"
  echo "base rc=$?"; cat "$OUT/webgpu-base.tsv"
fi
if [[ " $STEPS " == *" prof "* ]]; then
  stamp "CPU profile of rt.solve (this tree)"
  timeout 120 node --max-old-space-size=16000 --cpu-prof --cpu-prof-dir="$OUT" --cpu-prof-name=solve.cpuprofile ./solve-cg.mjs --n "${N:-128}" --label prof ${PROF_ARGS:---skip cg,transfer,kernels,trisolve,refine}
  echo "prof rc=$?"
fi
stamp done
