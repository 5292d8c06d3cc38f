#!/bin/bash
# Builds, HERE, what bench/device/amg-run.sh needs on the device machine into one ignored folder C
# (default .carry-amg) of the checkout the device tool sends: Node, Dawn, the Vulkan loader debs, the run
# script, the CuPy peer and the bundles of bench/device/amg-webgpu.ts and amg-auto.ts (as solve-build.sh);
# with BASE=<commit>, also the baseline bundle amg-run.sh alternates with.
set -eu
C=${C:-.carry-amg}
. "$(dirname "$0")/carry-base.sh"
cp bench/device/amg-run.sh bench/device/solve_cg_cupy.py "$C/"
bundle() { # $1 = source root, $2 = script name, $3 = output
  npx esbuild "$1/bench/device/$2.ts" --bundle --platform=node --format=esm --target=es2022 --external:webgpu \
    --outfile="$3" --log-level=warning \
    --banner:js="import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);"
}
npm run build:embedded --silent
for s in amg-webgpu amg-auto amg-setup-kernels amg-upload-probe; do bundle . $s "$C/$s.mjs"; done
# BASE=<commit>: the baseline amg-run.sh alternates with (C/base): this tree's amg-webgpu.ts over BASE's
# library, so both run the same bench (BASE from fdf4497 on: the bench imports cycle.ts's diagonal, denseCSR)
if [ -n "${BASE:-}" ]; then
  rm -rf /tmp/amg-base && mkdir -p /tmp/amg-base "$C/base"
  git archive "$BASE" | tar -x -C /tmp/amg-base
  ln -s "$PWD/node_modules" /tmp/amg-base/node_modules
  cp bench/device/amg-webgpu.ts bench/device/true-residual.ts /tmp/amg-base/bench/device/
  (cd /tmp/amg-base && npm run build:embedded --silent >/dev/null)
  bundle /tmp/amg-base amg-webgpu "$C/base/amg-webgpu.mjs"
  git rev-parse --short "$BASE" > "$C/base/commit"
fi
du -sh "$C"
