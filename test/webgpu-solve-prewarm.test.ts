/**
 * What a WebGPU user sees first and after (Dawn + SwiftShader in Node):
 * - a fresh runtime's first rt.solve of a matrix of PREWARM_SOLVE_FROM rows or more makes none of its
 *   pipelines on the calling thread: the path starts
 *   making them (createComputePipelineAsync) when A's solver operations are made, while the host reads
 *   A's structure, and the solve waits for them (WebGpuBackend.prewarmSolve) — for the f64 defaults
 *   (DIA with byte values, CG + Jacobi), the fused Chebyshev-CG, and an f32 A (refined through its
 *   double-single copy, whose product is started with the others);
 * - N solves of one handle in a loop (6) hold no more GPU buffers, GPU bytes or host memory than the
 *   second did: what a solve makes, it reuses or frees (counted at Dawn's GPUDevice.createBuffer and
 *   GPUBuffer.destroy, and by the host's arrayBuffers after a full collection).
 * The answers' residuals are checked against an f64 one computed here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { globals } from 'webgpu';
import { createRuntime } from '../src/runtime/runtime.js';
import { poisson3D } from '../src/generators/poisson.js';
import type { WebGpuPath } from '../src/webgpu/path.js';
import { PREWARM_SOLVE_FROM } from '../src/webgpu/backend.js';
import { pointDawnAtSwiftShader } from './webgpu-helpers.js';
import { trueResidual } from './solve-reference.js';

pointDawnAtSwiftShader();
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

type Proto = Record<string, (...a: unknown[]) => unknown>;
const deviceProto = (globals as unknown as { GPUDevice: { prototype: Proto } }).GPUDevice.prototype;
const bufferProto = (globals as unknown as { GPUBuffer: { prototype: Proto } }).GPUBuffer.prototype;
const original = { createComputePipeline: deviceProto.createComputePipeline, createComputePipelineAsync: deviceProto.createComputePipelineAsync, createBuffer: deviceProto.createBuffer, destroy: bufferProto.destroy };

/** Pipelines made on the calling thread / asked for in the background, by label; GPU buffers alive (made and not destroyed) with their bytes. */
const made = { sync: [] as string[], background: [] as string[] };
const alive = new Map<object, number>();

beforeAll(() => {
  deviceProto.createComputePipeline = function (this: unknown, ...a: unknown[]) {
    made.sync.push(String((a[0] as GPUComputePipelineDescriptor).label));
    return original.createComputePipeline.apply(this, a);
  };
  deviceProto.createComputePipelineAsync = function (this: unknown, ...a: unknown[]) {
    made.background.push(String((a[0] as GPUComputePipelineDescriptor).label));
    return original.createComputePipelineAsync.apply(this, a);
  };
  deviceProto.createBuffer = function (this: unknown, ...a: unknown[]) {
    const b = original.createBuffer.apply(this, a) as object;
    alive.set(b, (a[0] as GPUBufferDescriptor).size);
    return b;
  };
  bufferProto.destroy = function (this: object, ...a: unknown[]) {
    alive.delete(this);
    return original.destroy.apply(this, a);
  };
});
afterAll(() => {
  Object.assign(deviceProto, { createComputePipeline: original.createComputePipeline, createComputePipelineAsync: original.createComputePipelineAsync, createBuffer: original.createBuffer });
  Object.assign(bufferProto, { destroy: original.destroy });
});

describe("a fresh runtime's first WebGPU rt.solve makes its pipelines in the background", () => {
  // PREWARM_SOLVE_FROM rows; three iterations (SwiftShader is slow)
  const P = poisson3D(32);
  const cases = [
    { what: 'f64 defaults (CG + Jacobi, DIA of byte values)', dtype: 'f64', options: {}, method: 'cg', preconditioner: 'jacobi' },
    { what: "f64, the fused Chebyshev-CG ('chebyshev')", dtype: 'f64', options: { preconditioner: 'chebyshev' }, method: 'cg', preconditioner: 'chebyshev' },
    { what: 'f32, refined through its double-single copy', dtype: 'f32', options: {}, method: 'cg', preconditioner: 'jacobi' },
  ] as const;
  for (const c of cases) {
    it(c.what, async () => {
      const rt = await createRuntime({ backend: 'webgpu', workers: 1 });
      try {
        const A = P.astype(c.dtype);
        const b = new Float64Array(A.rows).map((_, i) => 1 + (i % 7) / 8);
        made.sync.length = made.background.length = 0;
        const r = await rt.solve(rt.upload(A), b, { path: 'webgpu', maxIter: 3, ...c.options });
        expect(r.path).toBe('webgpu');
        expect([r.method, r.preconditioner, r.iterations]).toEqual([c.method, c.preconditioner, 3]);
        // the residual the solve reports is its answer's
        const rel = trueResidual(P, r.x, b);
        expect(Math.abs(rel - r.relativeResidual)).toBeLessThanOrEqual(1e-6 * rel);
        // every pipeline came from the background, none was made twice; for an f32 A also the product of
        // its double-single copy, which the refinement makes on its first use
        expect(made.sync).toEqual([]);
        if (c.dtype === 'f32') expect(made.background).toContain('dia_i8/f64//main');
        expect(made.background.length).toBeGreaterThan(5);
        expect(P.rows).toBeGreaterThanOrEqual(PREWARM_SOLVE_FROM);
        expect(new Set(made.background).size).toBe(made.background.length);
      } finally {
        rt.dispose();
      }
    }, 240_000);
  }
});

describe('N WebGPU solves of one handle hold what the second held', () => {
  it('GPU buffers and bytes, the path\'s resident bytes, host array buffers after a collection', async () => {
    const rt = await createRuntime({ backend: 'webgpu', workers: 1 });
    try {
      // b's 8 bytes an entry past 1 MB: its upload goes through the engine's kept MAP_WRITE buffer
      const P = poisson3D(51);
      const b = new Float64Array(P.rows).map((_, i) => 1 + (i % 5) / 4);
      const h = rt.upload(P);
      const be = (rt.pathById('webgpu') as WebGpuPath).backend;
      const after: { buffers: number; bytes: number; resident: number; host: number }[] = [];
      let last: Float64Array | null = null;
      for (let s = 0; s < 6; s++) {
        const r = await rt.solve(h, b, { path: 'webgpu', method: 'cg', preconditioner: 'jacobi', maxIter: 2 });
        expect([r.iterations, r.reason]).toEqual([2, 'maxIter']);
        // the same two iterations each time: the same answer, bit for bit
        if (last) expect(Buffer.compare(Buffer.from(r.x.buffer), Buffer.from(last.buffer))).toBe(0);
        last = Float64Array.from(r.x);
        await new Promise((res) => setTimeout(res, 20));
        gc();
        let bytes = 0;
        for (const v of alive.values()) bytes += v;
        after.push({ buffers: alive.size, bytes, resident: be.bytesInUse, host: process.memoryUsage().arrayBuffers });
      }
      const second = after[1];
      for (const a of after.slice(2)) {
        expect(a.buffers).toBeLessThanOrEqual(second.buffers);
        expect(a.bytes).toBeLessThanOrEqual(second.bytes);
        expect(a.resident).toBeLessThanOrEqual(second.resident);
      }
      // host memory: four more solves, less than one vector more (each solve moves 3 of them: b, x and its mapping)
      expect(after[5].host - after[1].host).toBeLessThan(P.rows * 8);
    } finally {
      rt.dispose();
    }
  }, 240_000);
});
