/**
 * Where a WebGPU AMG first solve's time goes (issue 21, tenth session): rt.amg + the first rt.cg on
 * poisson3D(n), repeated with the engine's stream staging size changed (Engine.streamBytes), the
 * stream's host fill (the jobs' fill calls) and its waits for a staging buffer timed apart, and the
 * upload batch (WebGpuBackend.uploadMany) against the whole first solve; then a bare stream of `--mb`
 * MB into one GPU buffer, with a no-op fill and a memcpy fill, to separate the host's copy from the
 * round trips. Measurement only: it wraps the engine's and backend's methods. Bundled by amg-build.sh.
 *   node amg-upload-probe.mjs [--n 128] [--workers 16] [--mb 256] [--configs 16x2,16x4,…]
 */
import { create as createDawn } from 'webgpu';
import { createRuntime } from '../../src/runtime/runtime.js';
import { poisson3D } from '../../src/generators/poisson.js';
import type { Path } from '../../src/path.js';
import type { StreamJob } from '../../src/webgpu/engine.js';

const arg = (k: string, d: number) => (process.argv.includes(k) ? Number(process.argv[process.argv.indexOf(k) + 1]) : d);
const n = arg('--n', 128);
const gpu = createDawn(['disable-dawn-features=timestamp_quantization']) as unknown as GPU;
const rt = await createRuntime({ backend: 'webgpu', workers: arg('--workers', 16), webgpu: { gpu } });
const path = (rt as unknown as { paths: Path[] }).paths.find((p) => p.id === 'webgpu')!;
const backend = (path as unknown as { backend: Record<string, unknown> }).backend;
type Eng = { streamBytes: number; streamBuffers: number; stream(jobs: readonly StreamJob[]): Promise<void>; device: GPUDevice };
const engine = backend.engine as Eng;
let st = { calls: 0, total: 0, fill: 0, bytes: 0, many: 0, manySync: 0 };
const stream = engine.stream.bind(engine);
engine.stream = async (jobs) => {
  const t = performance.now();
  const timed = jobs.map((j) => ({ ...j, fill: (m: ArrayBuffer, at: number, from: number, len: number) => {
    const f = performance.now();
    j.fill(m, at, from, len);
    st.fill += performance.now() - f;
  } }));
  try {
    return await stream(timed);
  } finally {
    st.calls++;
    st.total += performance.now() - t;
    st.bytes += jobs.reduce((s, j) => s + j.bytes, 0);
  }
};
const many = (backend.uploadMany as (l: unknown) => Promise<unknown>).bind(backend);
backend.uploadMany = (l: unknown) => {
  const t = performance.now();
  const p = many(l);
  st.manySync += performance.now() - t;
  return p.finally(() => (st.many += performance.now() - t));
};
const A = poisson3D(n);
const b = new Float64Array(A.rows).fill(1);
const h = rt.upload(A);
await rt.cg(h, b, { tol: 1e-8, maxIter: 5 });
console.log(`# poisson3D(${n}) ${A.rows} rows; setup + first solve with stream staging of each size (MB × buffers kept); stream = fill + waits`);
// staging MB × buffers kept (Engine.streamBuffers), from --configs (default 16x2,16x2,16x4,8x4,8x8,4x8,16x4)
const configs = (process.argv.includes('--configs') ? process.argv[process.argv.indexOf('--configs') + 1] : '16x2,16x2,16x4,8x4,8x8,4x8,16x4').split(',').map((c) => c.split('x').map(Number));
for (const [mb, count] of configs) {
  engine.streamBytes = mb << 20;
  engine.streamBuffers = count;
  st = { calls: 0, total: 0, fill: 0, bytes: 0, many: 0, manySync: 0 };
  const t0 = performance.now();
  const M = rt.amg(h);
  const t1 = performance.now();
  const r = await rt.cg(h, b, { tol: 1e-8, preconditioner: M });
  const t2 = performance.now();
  const t3 = performance.now();
  await rt.cg(h, b, { tol: 1e-8, preconditioner: M });
  const kept = performance.now() - t3;
  M.dispose();
  console.log(`staging ${mb}×${count}\tsetup ${(t1 - t0).toFixed(0)}\tfirst solve ${(t2 - t1).toFixed(0)}\t${r.iterations} its\tkept solve ${kept.toFixed(0)}\tuploadMany ${st.many.toFixed(0)} (sync ${st.manySync.toFixed(0)})\tstream ${st.total.toFixed(0)} ms for ${(st.bytes / 1e6).toFixed(0)} MB: fill ${st.fill.toFixed(0)}, the rest ${(st.total - st.fill).toFixed(0)}`);
}
// a bare stream: no-op fill (round trips and the GPU's copies only) and a memcpy fill
const MB = arg('--mb', 256);
const dst = engine.device.createBuffer({ size: MB << 20, usage: 0x80 | 0x08 /* STORAGE | COPY_DST */ });
const src = new Uint8Array(MB << 20).fill(1);
engine.streamBuffers = 2;
for (const mb of [16, 64, 16]) {
  engine.streamBytes = mb << 20;
  for (const kind of ['none', 'memcpy']) {
    const job: StreamJob = { dst, bytes: MB << 20, fill: kind === 'none' ? () => {} : (m, at, from, len) => new Uint8Array(m, at, len).set(src.subarray(from, from + len)) };
    st = { calls: 0, total: 0, fill: 0, bytes: 0, many: 0, manySync: 0 };
    await engine.stream([job]);
    await rt.cg(h, b, { tol: 0, maxIter: 1 }); // the copies finished (a read after them)
    console.log(`bare stream ${MB} MB, staging ${mb} MB, fill ${kind}\t${st.total.toFixed(0)} ms (fill ${st.fill.toFixed(0)})`);
  }
}
dst.destroy();
rt.dispose();
