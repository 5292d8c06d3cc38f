#!/bin/bash
# Builds, here, the carry folder C (default .carry-first) of bench/device/first-solve-run.sh: Node, Dawn, the
# Vulkan loader (carry-base.sh), bundles of bench/device/first-solve-probe.ts over this tree and over BASE
# (default main; built in BASE_DIR, default /tmp/first-base), and the run script.
set -eu
C=${C:-.carry-first}
. "$(dirname "$0")/carry-base.sh"
cp bench/device/first-solve-run.sh "$C/"
bundle() { # $1 = source root, $2 = output
  npx esbuild "$1/bench/device/first-solve-probe.ts" --bundle --platform=node --format=esm --target=es2022 --external:webgpu \
    --outfile="$2" --log-level=warning \
    --banner:js="import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);"
}
npm run build:embedded --silent
bundle . "$C/probe.mjs"
base=${BASE:-main}
bd=${BASE_DIR:-/tmp/first-base}
rm -rf "$bd" && mkdir -p "$bd"
git archive "$base" | tar -x -C "$bd"
ln -s "$PWD/node_modules" "$bd/node_modules"
mkdir -p "$bd/bench/device" && cp bench/device/first-solve-probe.ts bench/device/true-residual.ts "$bd/bench/device/"
(cd "$bd" && npm run build:embedded --silent >/dev/null)
bundle "$bd" "$C/probe-base.mjs"
git rev-parse "$base" > "$C/base-commit"
{ git rev-parse HEAD; git diff --quiet HEAD -- src || echo "(+ uncommitted src changes)"; } | tr '\n' ' ' > "$C/new-commit"
du -sh "$C"
