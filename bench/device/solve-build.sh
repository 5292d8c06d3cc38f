#!/bin/bash
# Builds, HERE, what bench/device/solve-run.sh needs on the device machine into one folder C (default
# .carry-solve, ignored through .git/info/exclude): Node, Dawn (the `webgpu` package's index.js +
# dawn.node), the Vulkan loader deb, the run script and the CuPy peer, and two bundles of
# bench/device/solve-cg.ts: one of this working tree and one of `main` (BASE=<commit>), so the call
# measures before and after together. C may be a folder of the checkout the device tool sends (a
# helper's worktree is not sent): C=/path/to/that/checkout/.carry-solve.
set -eu
C=${C:-.carry-solve}
exclude=$(git rev-parse --git-path info/exclude)
grep -qx "/$(basename "$C")/" "$exclude" 2>/dev/null || echo "/$(basename "$C")/" >> "$exclude"
mkdir -p "$C/webgpu" "$C/gl"
cp bench/device/solve-run.sh bench/device/solve_cg_cupy.py "$C/"
if ! ls "$C"/gl/libvulkan1*.deb >/dev/null 2>&1; then
  mkdir -p /tmp/amd64/partial
  o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
  apt-get $o update >/dev/null
  (cd "$C/gl" && apt-get $o download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
fi
[ -f "$C/node.xz" ] || xz -T0 -6 -c "$(command -v node)" > "$C/node.xz"
cp node_modules/webgpu/index.js node_modules/webgpu/package.json "$C/webgpu/"
[ -f "$C/webgpu/dawn.node.xz" ] || xz -T0 -6 -c node_modules/webgpu/dist/linux-x64/dawn.node > "$C/webgpu/dawn.node.xz"

bundle() { # $1 = source root, $2 = output
  npx esbuild "$1/bench/device/solve-cg.ts" --bundle --platform=node --format=esm --target=es2022 --external:webgpu \
    --outfile="$2" --log-level=warning \
    --banner:js="import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);"
}
npm run build:embedded --silent
bundle . "$C/solve-cg.mjs"
# the baseline: the same script over BASE's library
base=${BASE:-main}
rm -rf /tmp/solve-base && mkdir -p /tmp/solve-base
git archive "$base" | tar -x -C /tmp/solve-base
ln -s "$PWD/node_modules" /tmp/solve-base/node_modules
mkdir -p /tmp/solve-base/bench/device && cp bench/device/solve-cg.ts /tmp/solve-base/bench/device/
(cd /tmp/solve-base && npm run build:embedded --silent >/dev/null)
bundle /tmp/solve-base "$C/solve-cg-base.mjs"
git rev-parse "$base" > "$C/base-commit"
du -sh "$C"
