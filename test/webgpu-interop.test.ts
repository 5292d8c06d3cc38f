/**
 * GPUBuffer interop on Dawn (the `webgpu` package, SwiftShader here): a runtime on the caller's
 * GPUDevice, vectors over the caller's buffers (rt.fromGPUBuffer) and a vector's own buffer
 * (v.gpuBuffer()). Products are checked against the f64 reference on generated and shared matrices,
 * read back by the test itself (its own staging buffer and mapAsync), with the runtime's read-back and
 * upload counters unchanged in between; the typed errors of every check; ownership (what dispose
 * destroys), queue order (work submitted before the call returns), the pinned contents (a write from
 * outside is seen; an operation forced onto the CPU path writes its result back into the buffer) and
 * the aliasing rule (y = x, and two vectors over one buffer). The browser test with TF.js:
 * test/browser-tfjs.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, GpuUnavailableError, InputRangeError, InputTypeError, OptionError, ShapeError, UnsupportedError, type Runtime } from '../src/index.js';
import type { CSRMatrix } from '../src/formats/index.js';
import { isComplex } from '../src/dtype.js';
import { loadDawn } from '../src/webgpu/device.js';
import type { WebGpuPath } from '../src/webgpu/path.js';
import { compareSpmv, generated, inDType, randomData } from './browser/test-data.js';
import { loadShared, sharedMatrixNames } from './matrices.js';
import { pointDawnAtSwiftShader } from './webgpu-helpers.js';

// GPUBufferUsage / GPUMapMode (the spec's numbers: the globals are missing in Node)
const STORAGE = 128;
const COPY_SRC = 4;
const COPY_DST = 8;
const MAP_READ = 1;
const SHARED = STORAGE | COPY_SRC | COPY_DST;

let device: GPUDevice;
let rt: Runtime;

beforeAll(async () => {
  pointDawnAtSwiftShader();
  const gpu = await loadDawn();
  if (typeof gpu === 'string') throw new Error(`NO WEBGPU: ${gpu}`);
  const adapter = await gpu.requestAdapter();
  if (!adapter) throw new Error(`NO WEBGPU ADAPTER (VK_ICD_FILENAMES=${process.env.VK_ICD_FILENAMES ?? 'unset'})`);
  device = await adapter.requestDevice();
  rt = await createRuntime({ webgpu: { device } });
});
afterAll(() => {
  rt?.dispose();
  device?.destroy();
});

const stats = () => (rt.pathById('webgpu') as WebGpuPath).backend.stats;

/** A buffer of the caller's, holding `floats` (padded to a multiple of 16 bytes plus `extra`). */
function userBuffer(floats: Float32Array, usage = SHARED, extra = 0): GPUBuffer {
  const b = device.createBuffer({ size: Math.max(16, Math.ceil(floats.byteLength / 16) * 16) + extra, usage });
  if (floats.length) device.queue.writeBuffer(b, 0, floats);
  return b;
}

/** The first `floats` f32 of a buffer, read as any WebGPU code would (the test's own staging buffer). */
async function readBuffer(b: GPUBuffer, floats: number): Promise<Float32Array> {
  const bytes = Math.ceil((floats * 4) / 16) * 16 || 16;
  const staging = device.createBuffer({ size: bytes, usage: MAP_READ | COPY_DST });
  const enc = device.createCommandEncoder();
  enc.copyBufferToBuffer(b, 0, staging, 0, Math.min(bytes, b.size));
  device.queue.submit([enc.finish()]);
  await staging.mapAsync(1 /* READ */);
  const out = new Float32Array(staging.getMappedRange().slice(0, floats * 4));
  staging.unmap();
  staging.destroy();
  return out;
}

/** The double-single stream of f64 values, written for the tests: hi = fround(v), lo = fround(v − hi). */
function toDS(v: ArrayLike<number>): Float32Array {
  const out = new Float32Array(v.length * 2);
  for (let i = 0; i < v.length; i++) {
    const hi = Math.fround(v[i]);
    out[2 * i] = hi;
    out[2 * i + 1] = Math.fround(v[i] - hi);
  }
  return out;
}
const fromDS = (f: Float32Array) => Float64Array.from({ length: f.length / 2 }, (_, i) => f[2 * i] + f[2 * i + 1]);

/** Whether a device validation error comes from using `b` in a submit (true: the buffer was destroyed). */
async function unusable(b: GPUBuffer): Promise<boolean> {
  device.pushErrorScope('validation');
  const enc = device.createCommandEncoder();
  enc.clearBuffer(b, 0, 0);
  device.queue.submit([enc.finish()]);
  return (await device.popErrorScope()) !== null;
}

/**
 * y = A·x with x in a buffer of the caller's and y read from its own gpuBuffer(), both read by the
 * test: nothing read back or uploaded by the runtime from the wrap to the buffer handed out.
 */
async function pipeline(A: CSRMatrix, seed: number): Promise<number> {
  const dt = A.dtype;
  const xs = randomData(dt, A.cols, seed);
  const ds = dt === 'f64' || dt === 'c128';
  const xb = userBuffer(ds ? toDS(xs) : Float32Array.from(xs));
  const h = rt.upload(A);
  const before = { ...stats() };
  const x = await rt.fromGPUBuffer(xb, { length: A.cols, dtype: dt, layout: ds ? 'double-single' : undefined });
  const y = rt.vector(A.rows, dt);
  const warm = { ...stats() };
  await rt.spmv(h, x, { y });
  const yb = await y.gpuBuffer(ds ? { layout: 'double-single' } : {});
  const after = stats();
  try {
    expect(after.readbacks - warm.readbacks, 'read-backs by the runtime between the wrap and gpuBuffer()').toBe(0);
    // the product uploads A (the first time on this path) and y's zeros; x is never uploaded
    expect(after.uploadBytes - before.uploadBytes).toBeLessThan(A.storageBytes() + A.rows * 16 + 64);
    const got = await readBuffer(yb, A.rows * (dt === 'c64' ? 2 : ds ? (dt === 'c128' ? 4 : 2) : 1));
    return compareSpmv(A, xs, null, 1, 0, ds ? fromDS(got) : got).worst;
  } finally {
    x.dispose();
    y.dispose();
    h.dispose();
    xb.destroy();
  }
}

describe('webgpu interop: a runtime on the caller\'s device, x in the caller\'s buffer, y handed out', () => {
  it('f32 on generated edge cases and every shared matrix, against the f64 reference', async () => {
    let worst = 0;
    const names = ['poisson2D-30', 'random-powerlaw-3000', 'rect-300x700', 'sparse-empty-rows', 'tiny-1x1'] as const;
    for (const [i, n] of names.entries()) worst = Math.max(worst, await pipeline(inDType(generated(n), 'f32'), i + 1));
    // the complex ones as c64
    for (const [i, n] of sharedMatrixNames().entries()) {
      const A = loadShared(n);
      worst = Math.max(worst, await pipeline(inDType(A, isComplex(A.dtype) ? 'c64' : 'f32'), 100 + i));
    }
    console.log(`fromGPUBuffer → spmv → gpuBuffer, f32 (c64 for the complex matrices): worst |err| / bound ${worst.toFixed(3)}`);
  }, 120_000);

  it('c64 interleaved (re, im) and f64 / c128 as double-single with layout: double-single', async () => {
    const A = generated('random-uniform-2000');
    const out = [];
    for (const dt of ['c64', 'f64', 'c128'] as const) out.push(`${dt} ${(await pipeline(inDType(A, dt), 7)).toExponential(1)}`);
    console.log(`fromGPUBuffer → spmv → gpuBuffer: ${out.join(', ')}`);
  }, 60_000);

  it('the work is submitted before the call returns: the caller reads the buffer without any flush', async () => {
    const A = inDType(generated('poisson2D-30'), 'f32');
    const h = rt.upload(A);
    const xs = randomData('f32', A.cols, 3);
    const xb = userBuffer(Float32Array.from(xs));
    const yb = userBuffer(new Float32Array(A.rows).fill(NaN));
    const x = await rt.fromGPUBuffer(xb, { length: A.cols });
    const y = await rt.fromGPUBuffer(yb, { length: A.rows });
    await rt.spmv(h, x, { y });
    compareSpmv(A, xs, null, 1, 0, await readBuffer(yb, A.rows));
    // the caller changes x's buffer after the call: the next product reads the new contents
    const xs2 = randomData('f32', A.cols, 4);
    device.queue.writeBuffer(xb, 0, Float32Array.from(xs2));
    await rt.spmv(h, x, { y, alpha: 2 });
    compareSpmv(A, xs2, null, 2, 0, await readBuffer(yb, A.rows));
    expect(await y.gpuBuffer()).toBe(yb);
    for (const o of [x, y, h]) o.dispose();
    xb.destroy();
    yb.destroy();
  });

  it('aliasing: y = x over a wrapped buffer, and two vectors over one buffer, compute as if x were read first', async () => {
    const A = inDType(generated('poisson2D-30'), 'f32');
    const h = rt.upload(A);
    const xs = randomData('f32', A.cols, 5);
    const b = userBuffer(Float32Array.from(xs));
    const x = await rt.fromGPUBuffer(b, { length: A.cols });
    await rt.spmv(h, x, { y: x });
    compareSpmv(A, xs, null, 1, 0, await readBuffer(b, A.rows));
    device.queue.writeBuffer(b, 0, Float32Array.from(xs));
    const x2 = await rt.fromGPUBuffer(b, { length: A.cols });
    await rt.spmv(h, x, { y: x2, alpha: 3 });
    compareSpmv(A, xs, null, 3, 0, await readBuffer(b, A.rows));
    expect(Array.from(await x.read())).toEqual(Array.from(await readBuffer(b, A.rows)));
    for (const o of [x, x2, h]) o.dispose();
    b.destroy();
  });

  it('a pinned vector: read() sees writes from outside, and a product forced onto the CPU writes its result back into the buffer', async () => {
    const A = inDType(generated('rect-300x700'), 'f32');
    const h = rt.upload(A);
    const yb = userBuffer(new Float32Array(A.rows));
    const y = await rt.fromGPUBuffer(yb, { length: A.rows });
    expect(Array.from(await y.read())).toEqual(new Array(A.rows).fill(0));
    const outside = randomData('f32', A.rows, 9);
    device.queue.writeBuffer(yb, 0, Float32Array.from(outside));
    expect(Array.from(await y.read())).toEqual(Array.from(outside));
    const xs = randomData('f32', A.cols, 10);
    await rt.spmv(h, xs, { y, path: 'cpu', beta: 1 });
    compareSpmv(A, xs, outside, 1, 1, await readBuffer(yb, A.rows));
    y.write(new Float32Array(A.rows).fill(2));       // written in the buffer
    expect(Array.from(await readBuffer(yb, 3))).toEqual([2, 2, 2]);
    // a bound x keeps the product on its path; explain says so
    const xb = userBuffer(Float32Array.from(xs));
    const x = await rt.fromGPUBuffer(xb, { length: A.cols });
    const e = rt.explain('spmv', h, { x });
    expect(e.path).toBe('webgpu');
    expect(e.reasons.join('\n')).toMatch(/CPU path unavailable: x is in a GPUBuffer shared on the WebGPU path/);
    x.dispose();
    xb.destroy();
    y.dispose();
    h.dispose();
    yb.destroy();
  });

  it('ownership: dispose lets go of a caller\'s buffer and destroys a buffer handed out', async () => {
    const own = await createRuntime({ webgpu: { device } });
    const b = userBuffer(new Float32Array([1, 2, 3, 4]));
    const x = await own.fromGPUBuffer(b, { length: 4 });
    await own.scal(2, x);
    const y = own.vector(new Float32Array([5, 6]));
    const yb = await y.gpuBuffer();
    expect(Array.from(await readBuffer(yb, 2))).toEqual([5, 6]);
    own.dispose();
    expect(await unusable(b), "the caller's buffer after rt.dispose()").toBe(false);
    expect(Array.from(await readBuffer(b, 4))).toEqual([2, 4, 6, 8]);
    expect(await unusable(yb), "y's buffer after rt.dispose()").toBe(true);
    b.destroy();
  });
});

describe('webgpu interop: typed errors', () => {
  const n = 8;
  it('a buffer that is not one, without a length, or with options it does not know', async () => {
    await expect(rt.fromGPUBuffer({ size: 64 } as unknown as GPUBuffer, { length: n })).rejects.toThrow(InputTypeError);
    await expect(rt.fromGPUBuffer(new Float32Array(8) as unknown as GPUBuffer, { length: n })).rejects.toThrow(/expected a GPUBuffer, got a Float32Array/);
    const b = userBuffer(new Float32Array(n));
    await expect(rt.fromGPUBuffer(b, undefined as never)).rejects.toThrow(InputTypeError);
    await expect(rt.fromGPUBuffer(b, { length: 1.5 })).rejects.toThrow(InputRangeError);
    await expect(rt.fromGPUBuffer(b, { length: n, dtyp: 'f32' } as never)).rejects.toThrow(OptionError);
    b.destroy();
  });

  it('missing usage flags, each named', async () => {
    for (const [usage, missing] of [
      [STORAGE | COPY_SRC, 'COPY_DST'],
      [STORAGE | COPY_DST, 'COPY_SRC'],
      [COPY_SRC | COPY_DST, 'STORAGE'],
      [MAP_READ | COPY_DST, 'STORAGE | GPUBufferUsage.COPY_SRC'],
    ] as const) {
      const b = device.createBuffer({ size: 64, usage });
      const err = await rt.fromGPUBuffer(b, { length: n }).then(() => null, (e: Error) => e);
      expect(err).toBeInstanceOf(UnsupportedError);
      expect(err!.message).toContain(`GPUBufferUsage.${missing}`);
      b.destroy();
    }
  });

  it('too small, mapped, destroyed, or made by another device', async () => {
    const small = userBuffer(new Float32Array(4));
    await expect(rt.fromGPUBuffer(small, { length: 5 })).rejects.toThrow(ShapeError);
    await expect(rt.fromGPUBuffer(small, { length: 4, dtype: 'c64' })).rejects.toThrow(/16 bytes cannot hold 4 c64 elements \(32 bytes\)/);
    small.destroy();
    const mapped = device.createBuffer({ size: 64, usage: SHARED, mappedAtCreation: true });
    await expect(rt.fromGPUBuffer(mapped, { length: n })).rejects.toThrow(/mapped/);
    mapped.unmap();
    mapped.destroy();
    await expect(rt.fromGPUBuffer(mapped, { length: n })).rejects.toThrow(UnsupportedError);
    const gpu = await loadDawn();
    const other = await (await (gpu as GPU).requestAdapter())!.requestDevice();
    const foreign = other.createBuffer({ size: 64, usage: SHARED });
    const err = await rt.fromGPUBuffer(foreign, { length: n }).then(() => null, (e: Error) => e);
    expect(err).toBeInstanceOf(UnsupportedError);
    expect(err!.message).toMatch(/another GPUDevice/);
    other.destroy();
    // the refusals left nothing behind: the device still runs the path
    const x = rt.vector(new Float32Array([1, 2]));
    await rt.scal(2, x);
    expect(Array.from(await x.read())).toEqual([2, 4]);
    x.dispose();
  });

  it('f64 and c128 without layout: double-single, a layout on f32, an unknown dtype', async () => {
    const b = userBuffer(new Float32Array(4 * n));
    for (const dtype of ['f64', 'c128'] as const) {
      const err = await rt.fromGPUBuffer(b, { length: n, dtype }).then(() => null, (e: Error) => e);
      expect(err).toBeInstanceOf(UnsupportedError);
      expect(err!.message).toMatch(/double-single.*use dtype '(f32|c64)'.*layout: 'double-single'/);
      const v = rt.vector(n, dtype);
      await expect(v.gpuBuffer()).rejects.toThrow(/not as IEEE doubles/);
      expect(await v.gpuBuffer({ layout: 'double-single' })).toBeDefined();
      v.dispose();
    }
    await expect(rt.fromGPUBuffer(b, { length: n, layout: 'double-single' })).rejects.toThrow(/a f32 buffer is plain f32/);
    await expect(rt.fromGPUBuffer(b, { length: n, layout: 'ieee' as never })).rejects.toThrow(UnsupportedError);
    await expect(rt.fromGPUBuffer(b, { length: n, dtype: 'i32' as never })).rejects.toThrow(/unknown dtype/);
    b.destroy();
  });

  it('a runtime without the WebGPU path', async () => {
    const cpu = await createRuntime({ backend: 'cpu' });
    const b = userBuffer(new Float32Array(n));
    await expect(cpu.fromGPUBuffer(b, { length: n })).rejects.toThrow(GpuUnavailableError);
    await expect(cpu.vector(n, 'f32').gpuBuffer()).rejects.toThrow(/no WebGPU path/);
    cpu.dispose();
    b.destroy();
  });
});
