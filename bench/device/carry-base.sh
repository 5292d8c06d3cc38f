# Sourced by bench/device/solve-build.sh, amg-build.sh and first-solve-build.sh: the part of a device carry folder C that every
# run needs — C ignored through the checkout's .git/info/exclude, Node, Dawn (the `webgpu` package's
# index.js + dawn.node, xz-compressed) and the Vulkan loader debs (the device machine has no libvulkan1), with carry-unpack.sh, which
# puts them in place there.
exclude=$(git -C "$(dirname "$C")" rev-parse --git-path info/exclude)
case $exclude in /*) ;; *) exclude="$(dirname "$C")/$exclude" ;; esac
grep -qx "/$(basename "$C")/" "$exclude" 2>/dev/null || echo "/$(basename "$C")/" >> "$exclude"
mkdir -p "$C/webgpu" "$C/gl"
if ! ls "$C"/gl/libvulkan1*.deb >/dev/null 2>&1; then
  mkdir -p /tmp/amd64/partial
  o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
  apt-get $o update >/dev/null
  (cd "$C/gl" && apt-get $o download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
fi
[ -f "$C/node.xz" ] || xz -T0 -6 -c "$(command -v node)" > "$C/node.xz"
cp node_modules/webgpu/index.js node_modules/webgpu/package.json "$C/webgpu/"
[ -f "$C/webgpu/dawn.node.xz" ] || xz -T0 -6 -c node_modules/webgpu/dist/linux-x64/dawn.node > "$C/webgpu/dawn.node.xz"
cp bench/device/carry-unpack.sh "$C/"
