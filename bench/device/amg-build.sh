#!/bin/bash
# Builds, HERE, what bench/device/amg-run.sh needs on the device machine into one ignored folder C
# (default .carry-amg) of the checkout the device tool sends: Node, Dawn, the Vulkan loader debs, the run
# script, the CuPy peer and the bundle of bench/device/amg-webgpu.ts (as bench/device/solve-build.sh).
set -eu
C=${C:-.carry-amg}
exclude=$(git -C "$(dirname "$C")" rev-parse --git-path info/exclude)
case $exclude in /*) ;; *) exclude="$(dirname "$C")/$exclude" ;; esac
grep -qx "/$(basename "$C")/" "$exclude" 2>/dev/null || echo "/$(basename "$C")/" >> "$exclude"
mkdir -p "$C/webgpu" "$C/gl"
cp bench/device/amg-run.sh bench/device/solve_cg_cupy.py "$C/"
if ! ls "$C"/gl/libvulkan1*.deb >/dev/null 2>&1; then
  mkdir -p /tmp/amd64/partial
  o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
  apt-get $o update >/dev/null
  (cd "$C/gl" && apt-get $o download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
fi
[ -f "$C/node.xz" ] || xz -T0 -6 -c "$(command -v node)" > "$C/node.xz"
cp node_modules/webgpu/index.js node_modules/webgpu/package.json "$C/webgpu/"
[ -f "$C/webgpu/dawn.node.xz" ] || xz -T0 -6 -c node_modules/webgpu/dist/linux-x64/dawn.node > "$C/webgpu/dawn.node.xz"
npm run build:embedded --silent
npx esbuild bench/device/amg-webgpu.ts --bundle --platform=node --format=esm --target=es2022 --external:webgpu \
  --outfile="$C/amg-webgpu.mjs" --log-level=warning \
  --banner:js="import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);"
du -sh "$C"
