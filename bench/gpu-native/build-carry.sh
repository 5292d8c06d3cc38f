#!/bin/bash
# Builds, HERE, everything bench/gpu-native/run-remote.sh needs on the device machine, into the
# ignored folders .carry and .gl (listed in .git/info/exclude). Run from the repository root.
# Needs: node + npm deps installed (esbuild), gcc, libegl-dev + libgles-dev, xz, apt-get.
set -eu
# (a worktree's .git is a file: ask git where its exclude file is)
exclude=$(git rev-parse --git-path info/exclude)
grep -qx '/.gl/' "$exclude" 2>/dev/null || echo /.gl/ >> "$exclude"
grep -qx '/.carry/' "$exclude" 2>/dev/null || echo /.carry/ >> "$exclude"
mkdir -p .carry/matrices .gl
# 1. Debian's EGL/GLES loader libraries for the device (its NVIDIA driver provides the vendor side)
if ! ls .gl/*.deb >/dev/null 2>&1; then
  mkdir -p /tmp/amd64/partial
  o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
  apt-get $o update >/dev/null
  (cd .gl && apt-get $o download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
fi
# 2. Node for the device (it has none): this machine's binary, xz-compressed (~24 MB)
[ -f .carry/node.xz ] || xz -T0 -9 -c "$(command -v node)" > .carry/node.xz
# 3. the embedded shaders/wasm the library imports, then fully bundled entry points (no node_modules there)
npm run build:embedded --silent
npx esbuild bench/gpu-native/dump.ts --bundle --platform=node --format=esm --target=es2022 \
  --outfile=.carry/gpu-dump.mjs --log-level=warning
npx esbuild bench/run.ts --bundle --platform=node --format=esm --target=es2022 --outfile=.carry/bench.mjs \
  --log-level=warning --banner:js="import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);"
# the library's WebGPU path in Node: its bundle, with Dawn (the optional `webgpu` package, a native addon
# that cannot be bundled) carried beside it as the package's index.js + dawn.node
npx esbuild bench/gpu-native/webgpu.ts --bundle --platform=node --format=esm --target=es2022 --external:webgpu \
  --outfile=.carry/webgpu-bench.mjs --log-level=warning \
  --banner:js="import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);"
mkdir -p .carry/webgpu
cp node_modules/webgpu/index.js node_modules/webgpu/package.json .carry/webgpu/
[ -f .carry/webgpu/dawn.node.xz ] || xz -T0 -9 -c node_modules/webgpu/dist/linux-x64/dawn.node > .carry/webgpu/dawn.node.xz
# 4. the replay harness (x86-64, glibc of Debian 12: runs on the device's Ubuntu 24.04)
gcc -O2 -std=c11 -Wall -Wno-unused-result bench/gpu-native/harness.c -o .carry/harness -lEGL -lGLESv2 -lm
# 5. the shared matrices the dump reads (copied from data/matrices into the carry)
cp data/matrices/{Groebner_id2003_aug,bcsstk13,rajat01,t1}.mtx .carry/matrices/
du -sh .carry .gl
