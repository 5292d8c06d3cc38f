#!/bin/bash
# amgsetup device call: A/B of this build against main's (base/), alternated; logs to $OUT progressively
C=.carry-amgsetup
set -u
for f in "$C"/gl/*.deb; do dpkg -x "$f" /; done; ldconfig
[ -L node_modules ] && rm node_modules
mkdir -p /tmp/nodebin node_modules/webgpu/dist/linux-x64
xz -dc "$C"/node.xz > /tmp/nodebin/node && chmod +x /tmp/nodebin/node
export PATH=/tmp/nodebin:$PATH
cp "$C"/webgpu/index.js "$C"/webgpu/package.json node_modules/webgpu/
xz -dc "$C"/webgpu/dawn.node.xz > node_modules/webgpu/dist/linux-x64/dawn.node
export VK_DRIVER_FILES=${VK_DRIVER_FILES:-/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json}
cp "$C"/amg-webgpu.mjs ./amg-this.mjs; cp "$C"/base/amg-webgpu.mjs ./amg-base.mjs
(nvidia-smi --query-gpu=name,driver_version --format=csv; nproc; uptime; cat $C/base/commit) > $OUT/host.log
ROUNDS=${ROUNDS:-2}
for r in $(seq ${KROUNDS:-$ROUNDS}); do
  o="base this"; [ $((r % 2)) = 0 ] && o="this base"
  for b in $o; do
    echo "# $b round $r $(date -u +%T)" >> $OUT/kernels.log
    k=$C/amg-setup-kernels.mjs; [ $b = base ] && k=$C/base/amg-setup-kernels.mjs
    timeout 40 node --max-old-space-size=16000 $k --n 128 --workers 16 >> $OUT/kernels.log 2>&1
  done
done
for r in $(seq $ROUNDS); do
  o="base this"; [ $((r % 2)) = 0 ] && o="this base"
  for b in $o; do
    echo "# $b round $r $(date -u +%T)" >> $OUT/amg-$b.tsv
    timeout 60 node --max-old-space-size=16000 ./amg-$b.mjs --n 128 >> $OUT/amg-$b.tsv 2>&1
  done
done
uptime >> $OUT/host.log
if [ "${PROF:-0}" = 1 ]; then
  rm -rf /tmp/prof; timeout 60 node --max-old-space-size=16000 --cpu-prof --cpu-prof-dir=/tmp/prof ./amg-this.mjs --n 128 > $OUT/amg-prof-this.tsv 2>&1
  cp "$(ls /tmp/prof/CPU.*.*.0.*.cpuprofile | head -1)" $OUT/prof-this.cpuprofile
  rm -rf /tmp/prof; timeout 60 node --max-old-space-size=16000 --cpu-prof --cpu-prof-dir=/tmp/prof ./amg-base.mjs --n 128 > $OUT/amg-prof-base.tsv 2>&1
  cp "$(ls /tmp/prof/CPU.*.*.0.*.cpuprofile | head -1)" $OUT/prof-base.cpuprofile
fi
