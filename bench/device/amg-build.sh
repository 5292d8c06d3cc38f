#!/bin/bash
# Builds, HERE, what bench/device/amg-run.sh needs on the device machine into one ignored folder C
# (default .carry-amg) of the checkout the device tool sends: Node, Dawn, the Vulkan loader debs, the run
# script, the CuPy peer and the bundles of bench/device/amg-webgpu.ts and amg-auto.ts (as solve-build.sh).
set -eu
C=${C:-.carry-amg}
. "$(dirname "$0")/carry-base.sh"
cp bench/device/amg-run.sh bench/device/solve_cg_cupy.py "$C/"
npm run build:embedded --silent
for s in amg-webgpu amg-auto; do
  npx esbuild bench/device/$s.ts --bundle --platform=node --format=esm --target=es2022 --external:webgpu \
    --outfile="$C/$s.mjs" --log-level=warning \
    --banner:js="import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);"
done
du -sh "$C"
