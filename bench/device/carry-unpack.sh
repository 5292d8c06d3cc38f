# Sourced on the device machine by the *-run.sh scripts, from their carry folder C (carry-base.sh copies it
# there): the Vulkan loader debs unpacked, Node on PATH, Dawn (the `webgpu` package) in ./node_modules —
# a link to the building machine's install arrives dangling — and the NVIDIA Vulkan driver named.
for f in "$C"/gl/*.deb; do dpkg -x "$f" /; done
ldconfig
[ -L node_modules ] && rm node_modules
mkdir -p /tmp/nodebin node_modules/webgpu/dist/linux-x64
xz -dc "$C"/node.xz > /tmp/nodebin/node && chmod +x /tmp/nodebin/node
export PATH=/tmp/nodebin:$PATH
cp "$C"/webgpu/index.js "$C"/webgpu/package.json node_modules/webgpu/
xz -dc "$C"/webgpu/dawn.node.xz > node_modules/webgpu/dist/linux-x64/dawn.node
export VK_DRIVER_FILES=${VK_DRIVER_FILES:-/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json}
