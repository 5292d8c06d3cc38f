// SpMV inside a TF.js pipeline on TF.js's WebGPU backend (Chromium, WebGPU on SwiftShader): a TF.js
// tensor computed on the GPU → its GPUBuffer (dataToGPU) → rt.fromGPUBuffer → rt.spmv → y.gpuBuffer()
// → tf.tensor({ buffer }) → a TF.js op on it; only then is anything read back, and compared with the
// f64 reference. Between the TF.js tensor and the TF.js result nothing is read back: every
// GPUBuffer.prototype.mapAsync call of the page is counted (TF.js's and simdgl's alike), and simdgl's
// WebGPU read-back and upload counters must not move. Bundled by test/browser-tfjs.test.ts; results go
// to window.__simdglResults.
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-webgpu';
import { createRuntime, parseMatrixMarket, type CSRMatrix, type Runtime } from '../../src/index.js';
import type { WebGpuPath } from '../../src/webgpu/path.js';
import type { CheckResult } from './checks.js';
import { compareSpmv, generated, inDType, randomData, record } from './test-data.js';
import { TFJS_CHECKS } from './tfjs-checks.js';

const results: CheckResult[] = [];
(globalThis as { __simdglProgress?: CheckResult[] }).__simdglProgress = results;
const check = (name: (typeof TFJS_CHECKS)[number], fn: () => Promise<string>) => record(results, name, fn);

function ok(cond: unknown, msg: string): asserts cond {
  if (!cond) throw new Error(msg);
}

// every mapAsync of the page (a read-back to the host), whoever calls it
let mapAsyncCalls = 0;
const mapAsync = GPUBuffer.prototype.mapAsync;
GPUBuffer.prototype.mapAsync = function (this: GPUBuffer, ...args: Parameters<GPUBuffer['mapAsync']>) {
  mapAsyncCalls++;
  return mapAsync.apply(this, args);
};

async function shared(name: string): Promise<CSRMatrix> {
  const bytes = new Uint8Array(await (await fetch(`/matrices/${name}.mtx`)).arrayBuffer());
  return parseMatrixMarket(bytes, { dtype: 'f64' }).matrix.toCSR() as CSRMatrix;
}

/**
 * One pass of the pipeline for A (f32): x = 2·xs computed by TF.js, y = A·x by simdgl, z = y + 1 by
 * TF.js on simdgl's buffer. Returns the worst |err|/bound of y against the f64 reference of A·(2·xs).
 */
async function pipeline(rt: Runtime, A: CSRMatrix, seed: number, zeroCopy: boolean): Promise<number> {
  const be = (rt.pathById('webgpu') as WebGpuPath).backend;
  const h = rt.upload(A);
  const xs = randomData('f32', A.cols, seed);
  // A resident on the WebGPU path first (its upload is not a vector's)
  await rt.spmv(h, xs, { path: 'webgpu' });
  const t = tf.mul(tf.tensor1d(xs as Float32Array, 'float32'), 2);
  const before = { maps: mapAsyncCalls, readbacks: be.stats.readbacks, uploads: be.stats.uploads };
  // --- on the GPU only from here …
  const { buffer, tensorRef } = t.dataToGPU();
  ok(buffer, 'dataToGPU gave no GPUBuffer (is the backend webgpu?)');
  const x = await rt.fromGPUBuffer(buffer, { length: A.cols });
  const y = rt.vector(A.rows, 'f32');
  await rt.spmv(h, x, { y });
  const out = tf.tensor({ buffer: await y.gpuBuffer(), zeroCopy }, [A.rows], 'float32');
  const z = tf.add(out, 1);
  const after = { maps: mapAsyncCalls, readbacks: be.stats.readbacks, uploads: be.stats.uploads };
  // --- … to here
  try {
    ok(after.maps === before.maps, `${after.maps - before.maps} mapAsync call(s) (host read-backs) inside the pipeline`);
    ok(after.readbacks === before.readbacks, `simdgl read back ${after.readbacks - before.readbacks} time(s) inside the pipeline`);
    ok(after.uploads === before.uploads, `simdgl uploaded ${after.uploads - before.uploads} time(s) inside the pipeline`);
    // TF.js's data() of a tensor made from a buffer returns the whole buffer (simdgl's is rounded up to 16 bytes)
    const got = ((await out.data()) as Float32Array).subarray(0, A.rows);
    const worst = compareSpmv(A, xs, null, 2, 0, got).worst;
    const zs = await z.data();
    for (let i = 0; i < A.rows; i++) ok(zs[i] === Math.fround(got[i] + 1), `TF.js's y + 1 at ${i}: ${zs[i]}, expected ${Math.fround(got[i] + 1)}`);
    return worst;
  } finally {
    // the zero-copy tensor uses y's buffer: it goes first; x before TF.js may recycle its buffer
    for (const d of [z, out, t]) d.dispose();
    x.dispose();
    tensorRef.dispose();
    y.dispose();
    h.dispose();
  }
}

async function run(): Promise<void> {
  // every op on the GPU: TF.js would run small ones on the CPU, whose results have no GPUBuffer
  tf.env().set('WEBGPU_CPU_FORWARD', false);
  await tf.setBackend('webgpu');
  await tf.ready();
  const device = (tf.backend() as unknown as { device?: GPUDevice }).device;
  let rt: Runtime | null = null;

  await check("tfjs: a runtime on TF.js's GPUDevice", async () => {
    ok(tf.getBackend() === 'webgpu' && device, `TF.js backend ${tf.getBackend()}, device ${String(device)}`);
    rt = await createRuntime({ webgpu: { device } });
    const p = rt.capabilities().paths.webgpu;
    ok(p.available && p.limits?.source === 'given', JSON.stringify(p));
    return `WebGPU path on the device TF.js made (${p.device})`;
  });
  if (!rt) return;
  const r: Runtime = rt;

  await check('tfjs: tensor → fromGPUBuffer → spmv → gpuBuffer → tensor, no read-back', async () => {
    const out: string[] = [];
    let seed = 1;
    const cases: [string, CSRMatrix][] = [
      ['poisson2D-30', generated('poisson2D-30')],
      ['random-powerlaw-3000', generated('random-powerlaw-3000')],
      ['rect-300x700', generated('rect-300x700')],
      ['sparse-empty-rows', generated('sparse-empty-rows')],
      ['494_bus', await shared('494_bus')],
      ['west0479', await shared('west0479')],
    ];
    for (const [name, A] of cases) {
      const zeroCopy = seed % 2 === 0;
      out.push(`${name}${zeroCopy ? ' (zeroCopy)' : ''} ${(await pipeline(r, inDType(A, 'f32'), seed++, zeroCopy)).toFixed(3)}`);
    }
    return `worst |err| / f32 bound: ${out.join(', ')}`;
  });

  await check("tfjs: typed errors for TF.js's buffers, and TF.js runs on after rt.dispose()", async () => {
    const t = tf.mul(tf.tensor1d([1, 2, 3, 4], 'float32'), 1);   // computed on the GPU (a host tensor has no buffer)
    const { buffer: b, tensorRef } = t.dataToGPU();
    ok(b, 'dataToGPU gave no GPUBuffer');
    const buffer: GPUBuffer = b;
    const small = await r.fromGPUBuffer(buffer, { length: 1 << 20 }).then(() => 'resolved', (e: Error) => e.name);
    ok(small === 'ShapeError', `a 4-element tensor's buffer as 2^20 elements: ${small}`);
    const f64 = await r.fromGPUBuffer(buffer, { length: 2, dtype: 'f64' }).then(() => 'resolved', (e: Error) => `${e.name}: ${e.message}`);
    ok(/^UnsupportedError: .*double-single/.test(f64), `f64 over a float32 tensor: ${f64}`);
    const v = await r.fromGPUBuffer(buffer, { length: 4 });
    await r.scal(3, v);
    const back = Array.from(await v.read());
    ok(back.join() === '3,6,9,12', `scal on TF.js's buffer: ${back}`);
    r.dispose();
    // the device is TF.js's: it still computes, and the buffer simdgl wrapped is still TF.js's
    const again = Array.from(await tf.add(tf.tensor({ buffer }, [4], 'float32'), 1).data());
    ok(again.join() === '4,7,10,13', `TF.js after rt.dispose(): ${again}`);
    tensorRef.dispose();
    t.dispose();
    return 'ShapeError for a short buffer, UnsupportedError for f64; TF.js computes on after rt.dispose()';
  });
}

const done = (r: { results: CheckResult[]; log: string[]; error?: string }) => ((globalThis as { __simdglResults?: unknown }).__simdglResults = r);
run().then(
  () => done({ results, log: [] }),
  (e: Error) => done({ results, log: [], error: `${e?.message}\n${e?.stack}` }),
);
