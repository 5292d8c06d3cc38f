#!/bin/bash
# What runs on the device machine (bench/gpu-native/README.md has the `run` call that starts it).
# Needs, carried from here: .gl (Debian EGL/GLES loader debs), .carry/node.xz (xz of /usr/bin/node),
# .carry/gpu-dump.mjs, .carry/bench.mjs (esbuild bundles, every npm package inside), .carry/harness.
# Writes to $OUT: run.log, probe.tsv, gpu.tsv, cusparse.tsv, webgpu.tsv, cpu.log, manifest-example.json.
#   STEPS="probe gpu cusparse webgpu cpu formats" (default all), KERNELS=csr_row,sell,... (the dump's), FORMATS_LIST, FORMAT_MATRICES, WEBGPU_ARGS="--cg none", MATRICES=..., THREADS=1,2,4,8,16, CPU_RUNS=1
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
STEPS=${STEPS:-"probe gpu cusparse webgpu cpu formats"}
MATRICES=${MATRICES:-poisson3D_128,powerlaw_2M,Groebner_id2003_aug,bcsstk13,rajat01,t1}
THREADS=${THREADS:-1,2,4,8,16}
exec > >(tee -a "$OUT/run.log") 2>&1
t0=$(date +%s)
stamp() { echo "== [$(( $(date +%s) - t0 )) s] $*"; }

stamp setup
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
if [ -f /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json ]; then
  export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
fi
mkdir -p /tmp/nodebin
xz -dc .carry/node.xz > /tmp/nodebin/node && chmod +x /tmp/nodebin/node
export PATH=/tmp/nodebin:$PATH
node --version
gcc --version | head -1 || echo "NO GCC: the native C peer will be skipped"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.mem --format=csv
lscpu | grep -E 'Model name|^CPU\(s\)|Thread|NUMA node\(s\)|L3' || true
D=/tmp/simdgl-dump
avail=$(df -Pk /tmp | awk 'NR==2{print $4}')
[ "${avail:-0}" -lt 8000000 ] && D=$PWD/.work/simdgl-dump
mkdir -p "$D"

if [[ " $STEPS " == *" probe "* ]]; then
  stamp "probe: fragment vs compute copy, per-draw cost"
  timeout 120 .carry/harness --probe > "$OUT/probe.tsv"
  echo "probe rc=$?"
  cat "$OUT/probe.tsv"
fi
if [[ " $STEPS " == *" gpu "* ]]; then
  stamp "dump (library encoder, recorded GL) -> $D"
  node --max-old-space-size=32000 .carry/gpu-dump.mjs "$D" --matrices "$MATRICES" --mtx .carry/matrices --copy 33554432 ${KERNELS:+--kernels "$KERNELS"}
  cp "$D/poisson3D_128__csr_row__f32/manifest.json" "$OUT/manifest-example.json" 2>/dev/null
  stamp "harness (EGL device platform, GLES 3)"
  timeout 400 .carry/harness --min-ms 200 "$D"/*__*__* > "$OUT/gpu.tsv"
  echo "harness rc=$?"
  cat "$OUT/gpu.tsv"
fi
if [[ " $STEPS " == *" cusparse "* ]]; then
  stamp "cuSPARSE through CuPy"
  PYTHONUNBUFFERED=1 timeout 240 python3 bench/gpu-native/cusparse.py "$D" --min-ms 200 > "$OUT/cusparse.tsv"
  echo "cusparse rc=$?"
  cat "$OUT/cusparse.tsv"
fi
if [[ " $STEPS " == *" webgpu "* ]]; then
  stamp "WebGPU path in Node (Dawn + the NVIDIA Vulkan driver)"
  mkdir -p node_modules/webgpu/dist/linux-x64
  cp .carry/webgpu/index.js .carry/webgpu/package.json node_modules/webgpu/
  xz -dc .carry/webgpu/dawn.node.xz > node_modules/webgpu/dist/linux-x64/dawn.node
  cp .carry/webgpu-bench.mjs ./webgpu-bench.mjs   # resolves 'webgpu' from ./node_modules
  export VK_DRIVER_FILES=${VK_DRIVER_FILES:-/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json}
  timeout 420 node --max-old-space-size=32000 ./webgpu-bench.mjs "$D" --min-ms 200 --threads 16 ${WEBGPU_ARGS:-} > "$OUT/webgpu.tsv" 2> "$OUT/webgpu.err"
  echo "webgpu rc=$?"
  cat "$OUT/webgpu.tsv"; tail -20 "$OUT/webgpu.err"
fi
rm -rf "$D"
if [[ " $STEPS " == *" cpu "* ]]; then
  stamp "CPU: worker pool vs native C OpenMP, threads $THREADS"
  for i in $(seq 1 "${CPU_RUNS:-1}"); do
    log="$OUT/cpu.log"; [ "$i" -gt 1 ] && log="$OUT/cpu-$i.log"
    SIMDGL_THREADS=$THREADS timeout 360 node --expose-gc .carry/bench.mjs --only parallel > "$log" 2>&1
    echo "cpu bench $i rc=$?"
    cat "$log"
  done
fi
if [[ " $STEPS " == *" formats "* ]]; then
  stamp "CPU: every format and auto vs native C, threads $THREADS"
  SIMDGL_THREADS=$THREADS SIMDGL_FORMATS=${FORMATS_LIST:-csr,sell,jds,dia,auto} SIMDGL_ONLY_MATRICES=${FORMAT_MATRICES:-poisson3D_128,powerlaw_1M} \
    timeout 420 node --expose-gc .carry/bench.mjs --only formats > "$OUT/formats.log" 2>&1
  echo "formats bench rc=$?"
  cat "$OUT/formats.log"
fi
stamp done
