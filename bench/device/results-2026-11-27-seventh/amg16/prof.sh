#!/bin/bash
# amg16's profile call: the WebGPU bench once under --cpu-prof (main thread), then the CPU-only setup entry (3 setups, 16 workers) plain and profiled
set -u
C=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/prof.log") 2>&1
date -u; nproc; uptime
for f in "$C"/gl/*.deb; do dpkg -x "$f" /; done
ldconfig
[ -L node_modules ] && rm node_modules
mkdir -p /tmp/nodebin node_modules/webgpu/dist/linux-x64
xz -dc "$C"/node.xz > /tmp/nodebin/node && chmod +x /tmp/nodebin/node
export PATH=/tmp/nodebin:$PATH
cp "$C"/webgpu/index.js "$C"/webgpu/package.json node_modules/webgpu/
xz -dc "$C"/webgpu/dawn.node.xz > node_modules/webgpu/dist/linux-x64/dawn.node
cp "$C"/amg-webgpu.mjs .
export VK_DRIVER_FILES=${VK_DRIVER_FILES:-/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json}
for e in ${ENTRIES:-base}; do
  timeout 40 node "$C"/amg16/entry-$e.mjs 128 3 16 $e
  [ "${EPROF:-1}" = 0 ] || { rm -rf /tmp/p && timeout 40 node --cpu-prof --cpu-prof-dir=/tmp/p "$C"/amg16/entry-$e.mjs 128 3 16 $e-prof && cp "$(ls /tmp/p/CPU.*.0.*.cpuprofile | head -1)" "$OUT/entry-$e.cpuprofile"; }
done
if [ "${GPU:-1}" = 1 ]; then
  rm -rf /tmp/p && timeout 120 node --max-old-space-size=16000 --cpu-prof --cpu-prof-dir=/tmp/p ./amg-webgpu.mjs --n 128 | tee "$OUT/amg-prof.tsv"
  cp "$(ls /tmp/p/CPU.*.*.0.*.cpuprofile | head -1)" "$OUT/amg-webgpu.cpuprofile"
fi
uptime; date -u
