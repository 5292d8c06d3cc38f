/**
 * Whether a Krylov solve scales b (solveWithTrueResidual, ‖b‖ beyond 2^±16) is decided on the WebGPU
 * path by the refinement's own ‖b‖ (double-single, computed as b goes up): no host pass over b where
 * that norm is in range; out of range (or zero, NaN, squares flushed or entries past f32 there) the
 * host's norm decides as before. Dawn + SwiftShader; answers against the CPU path's solve of the same
 * b and an f64 true residual; hostNorm's calls on vectors of b's length counted through a module mock.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { poisson2D } from '../src/generators/poisson.js';
import { Prng } from '../src/generators/prng.js';
import { pointDawnAtSwiftShader } from './webgpu-helpers.js';
import { relDiff, trueResidual } from './solve-reference.js';
import type { WebGpuPath } from '../src/webgpu/path.js';
import { GPU_SPLIT_FROM } from '../src/webgpu/encoding.js';

const seen = vi.hoisted(() => ({ lengths: [] as number[] }));
vi.mock('../src/host-spmv.js', async (importOriginal) => {
  const m = await importOriginal<typeof import('../src/host-spmv.js')>();
  return {
    ...m,
    hostNorm: (v: ArrayLike<number>) => {
      seen.lengths.push(v.length);
      return m.hostNorm(v);
    },
  };
});

pointDawnAtSwiftShader();

let gpu: Runtime;
let cpu: Runtime;
beforeAll(async () => {
  gpu = await createRuntime({ backend: 'webgpu', workers: 1 });
  cpu = await createRuntime({ backend: 'cpu', workers: 1 });
});
afterAll(() => {
  gpu?.dispose();
  cpu?.dispose();
});

describe("the scaling of b decided by the WebGPU refinement's norm", () => {
  it('in range: no host pass over b; out of range, zero or NaN: the host decides, and every answer is the CPU path’s to the tolerance', async () => {
    const A = poisson2D(11);
    const n = A.rows;
    const g = new Prng(5);
    const raw = Float64Array.from({ length: n }, () => g.next() - 0.3);
    const norm = Math.hypot(...raw);
    // ‖base‖ = 1 (to rounding), so ‖b‖ = 2^e below
    const base = raw.map((t) => t / norm);
    const hg = gpu.upload(A);
    const hc = cpu.upload(A);
    // 2^±15.9: in range; 2^±16.7 just out (the host scales from 2^±16.5); 2^135 past f32 on the GPU (±Inf
    // there); 2^-140: the squares flush there
    for (const [e, inRange] of [[0, true], [15.9, true], [-15.9, true], [16.7, false], [-16.7, false], [135, false], [-140, false]] as const) {
      const b = base.map((t) => t * 2 ** e);
      for (const solve of ['cg', 'solve'] as const) {
        seen.lengths.length = 0;
        const r = solve === 'cg' ? await gpu.cg(hg, b, { tol: 1e-10 }) : await gpu.solve(hg, b, { tol: 1e-10, method: 'cg', preconditioner: 'none' });
        const hostPasses = seen.lengths.filter((l) => l === n).length;
        expect(hostPasses, `2^${e} ${solve}`).toBe(inRange ? 0 : 1);
        const c = await cpu.cg(hc, b, { tol: 1e-10 });
        expect([r.path, r.converged, c.converged], `2^${e} ${solve}`).toEqual(['webgpu', true, true]);
        expect(trueResidual(A, r.x, b), `2^${e} ${solve}`).toBeLessThanOrEqual(1e-10);
        expect(relDiff(r.x, c.x), `2^${e} ${solve}`).toBeLessThanOrEqual(1e-8);
        expect(Math.abs(r.iterations - c.iterations), `2^${e} ${solve}`).toBeLessThanOrEqual(2);
      }
    }
    // b = 0: x = 0, converged at once; NaN in b: 'nan' (both through the host's norm)
    const z = await gpu.cg(hg, new Float64Array(n), { tol: 1e-10 });
    expect([z.converged, z.iterations, z.x.every((v) => v === 0)]).toEqual([true, 0, true]);
    const bn = Float64Array.from(base);
    bn[7] = NaN;
    expect((await gpu.cg(hg, bn, { tol: 1e-10 })).reason).toBe('nan');
    hg.dispose();
    hc.dispose();
  });

  it('a vector split on the GPU: entries past f32 (±Inf there), flushed squares, zero and NaN resolve to no refinement, nothing kept; in range, its norm', async () => {
    const be = (gpu.pathById('webgpu') as WebGpuPath).backend;
    const A = poisson2D(70);
    expect(A.rows).toBeGreaterThanOrEqual(GPU_SPLIT_FROM);
    const M = be.upload(A);
    const ones = new Float64Array(A.rows).fill(1);
    // the first (in range) takes its vectors; each later one, resolved or not, gives them back to the pool
    let held = -1;
    for (const [b, want] of [[ones, true], [ones.map(() => 2 ** 135), false], [ones.map(() => 2 ** -140), false], [new Float64Array(A.rows), false], [ones.map((t, i) => (i === 9 ? NaN : t)), false], [ones, true]] as const) {
      const R = await be.refinement(M, b, undefined, 16);
      expect(R !== undefined).toBe(want);
      if (R) {
        expect(Math.abs(R.bnorm - Math.sqrt(A.rows)) / Math.sqrt(A.rows)).toBeLessThanOrEqual(2 ** -40);
        R.dispose();
      }
      if (held < 0) held = be.bytesInUse;
      expect(be.bytesInUse).toBe(held);
    }
    M.dispose();
  });
});
