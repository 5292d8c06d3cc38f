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

# carry_bundle ROOT NAME OUT: ROOT/bench/device/NAME.ts bundled for Node into OUT ('webgpu' stays external:
# the device resolves it from ./node_modules, where carry-unpack.sh puts Dawn)
carry_bundle() {
  npx esbuild "$1/bench/device/$2.ts" --bundle --platform=node --format=esm --target=es2022 --external:webgpu \
    --outfile="$3" --log-level=warning \
    --banner:js="import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);"
}

# carry_base_bundle REV DIR NAME OUT: this tree's bench/device/NAME.ts (and true-residual.ts) over REV's
# library, built in the scratch folder DIR, bundled into OUT — the baseline a run alternates with
carry_base_bundle() {
  rm -rf "$2" && mkdir -p "$2"
  git archive "$1" | tar -x -C "$2"
  ln -s "$PWD/node_modules" "$2/node_modules"
  mkdir -p "$2/bench/device" && cp "bench/device/$3.ts" bench/device/true-residual.ts "$2/bench/device/"
  (cd "$2" && npm run build:embedded --silent >/dev/null)
  carry_bundle "$2" "$3" "$4"
}
