#!/bin/bash
# Builds, HERE, what bench/device/amg-run.sh needs on the device machine into one ignored folder C
# (default .carry-amg) of the checkout the device tool sends: Node, Dawn, the Vulkan loader debs, the run
# script, the CuPy peer and the bundles of bench/device/amg-webgpu.ts and amg-auto.ts (as solve-build.sh);
# with BASE=<commit>, also the baseline bundle amg-run.sh alternates with.
set -eu
C=${C:-.carry-amg}
. "$(dirname "$0")/carry-base.sh"
cp bench/device/amg-run.sh bench/device/solve_cg_cupy.py "$C/"
npm run build:embedded --silent
for s in amg-webgpu amg-auto amg-setup-kernels amg-upload-probe amg-floor; do carry_bundle . $s "$C/$s.mjs"; done
# BASE=<commit>: the baseline amg-run.sh alternates with (C/base): this tree's amg-webgpu.ts over BASE's
# library, so both run the same bench (BASE from fdf4497 on: the bench imports cycle.ts's diagonal, denseCSR)
if [ -n "${BASE:-}" ]; then
  mkdir -p "$C/base"
  carry_base_bundle "$BASE" /tmp/amg-base amg-webgpu "$C/base/amg-webgpu.mjs"
  git rev-parse --short "$BASE" > "$C/base/commit"
fi
du -sh "$C"
