/**
 * A WebGPU solve's fixed costs (Dawn + SwiftShader). The engine's bind-group cache
 * (src/webgpu/engine.ts): a buffer the engine destroys takes the bind groups that name it out of the
 * cache and no others; a new buffer in the same dispatch gets a bind group of its own (the answer is
 * its contents', against an f64 reference), and repeated solves of one matrix make no bind groups once
 * the pool's roles settle. A resident solve given ‖b‖ (rhsNorm) reads one scalar fewer and gives the
 * same answer bit for bit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebGpuBackend } from '../src/webgpu/index.js';
import type { Engine } from '../src/webgpu/engine.js';
import { webgpuBackend } from './webgpu-helpers.js';
import { Prng } from '../src/generators/prng.js';
import { createRuntime } from '../src/runtime/runtime.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import type { WebGpuPath } from '../src/webgpu/path.js';
import { trueResidual } from './solve-reference.js';

let gpu: WebGpuBackend;
let engine: Engine;
beforeAll(async () => {
  gpu = await webgpuBackend();
  engine = (gpu as unknown as { engine: Engine }).engine;
});
afterAll(() => gpu?.dispose());

function values(n: number, seed: number): Float32Array {
  const g = new Prng(seed);
  return Float32Array.from({ length: n }, () => Math.fround(g.next() - 0.5));
}

/** y + a·x in f64, each term exact in f32 inputs: the f32 kernel's answer within one rounding. */
function expectAxpy(got: ArrayLike<number>, a: number, x: Float32Array, y: Float32Array, what: string): void {
  for (let i = 0; i < x.length; i++) {
    const want = y[i] + a * x[i];
    expect(Math.abs(got[i] - want), `${what}[${i}]: ${got[i]} against ${want}`).toBeLessThanOrEqual(2 ** -23 * (Math.abs(y[i]) + Math.abs(a * x[i])));
  }
}

describe('the bind-group cache', () => {
  it("drops a destroyed buffer's bind groups only: the others are reused, a new buffer in the same dispatch gets its own", async () => {
    const n = 300;
    const [xv, yv, uv, vv, wv] = [1, 2, 3, 4, 5].map((s) => values(n, s));
    const x = gpu.vector('f32', xv);
    const y = gpu.vector('f32', yv);
    const u = gpu.vector('f32', uv);
    const v = gpu.vector('f32', vv);
    // two dispatches: y += 2x (slot 0), v += 3u (slot 1)
    const record = (first: typeof x) => {
      gpu.axpy(2, first, y);
      gpu.axpy(3, u, v);
    };
    record(x);
    gpu.flush();
    expect(engine.cachedBindGroups(x.buffer)).toBe(1);
    expect(engine.cachedBindGroups(u.buffer)).toBe(1);
    const xBuffer = x.buffer;
    // destroyed after the next submit
    x.dispose();
    gpu.flush();
    expect(engine.cachedBindGroups(xBuffer)).toBe(0);
    expect(engine.cachedBindGroups(y.buffer)).toBe(0);
    expect(engine.cachedBindGroups(u.buffer)).toBe(1);
    // a vector of the same size in x's place: its own bind group (the one naming the destroyed buffer is
    // gone, never reused), the second dispatch's is reused
    const w = gpu.vector('f32', wv);
    const made = gpu.stats.bindGroups;
    record(w);
    const [ys, vs] = [await gpu.read(y), await gpu.read(v)];
    expect(gpu.stats.bindGroups - made).toBe(1);
    expect(engine.cachedBindGroups(w.buffer)).toBe(1);
    // y = y0 + 2x + 2w; v = v0 + 3u + 3u
    const y1 = Float32Array.from(yv, (t, i) => Math.fround(t + 2 * xv[i]));
    expectAxpy(ys, 2, wv, y1, 'y');
    const v1 = Float32Array.from(vv, (t, i) => Math.fround(t + 3 * uv[i]));
    expectAxpy(vs, 3, uv, v1, 'v');
    const buffers = [y, u, v, w].map((t) => t.buffer);
    for (const t of [y, u, v, w]) t.dispose();
    gpu.flush();
    for (const b of buffers) expect(engine.cachedBindGroups(b)).toBe(0);
  });

  it('dispatches of equal parameters in one batch share a parameter slot, so a repeated dispatch reuses its bind group; other parameters take their own', async () => {
    const [a, b, c] = [1, 2, 3].map((s) => gpu.vector('f32', values(40, s)));
    try {
      const made = gpu.stats.bindGroups;
      // a→b twice and a→c once with α = 1, then a→b with α = 2: three bind groups (a→b twice is one)
      gpu.axpy(1, a, b);
      gpu.axpy(1, a, b);
      gpu.axpy(1, a, c);
      gpu.axpy(2, a, b);
      const [bs, cs] = [await gpu.read(b), await gpu.read(c)];
      expect(gpu.stats.bindGroups - made).toBe(3);
      const [av, bv, cv] = [values(40, 1), values(40, 2), values(40, 3)];
      // each dispatch still ran, in order: b + a + a + 2a, c + a (f32 at every step)
      let y = Float32Array.from(bv);
      for (const s of [1, 1, 2]) y = Float32Array.from(y, (t, i) => Math.fround(t + Math.fround(s * av[i])));
      expect(Array.from(bs)).toEqual(Array.from(y));
      expect(Array.from(cs)).toEqual(Array.from(cv, (t, i) => Math.fround(t + av[i])));
    } finally {
      for (const v of [a, b, c]) v.dispose();
    }
  });

  it('keeps bindGroupsKept at most, dropping the least recently used', async () => {
    const kept = engine.bindGroupsKept;
    const vs = [1, 2, 3, 4].map((s) => gpu.vector('f32', values(40, s)));
    const [a, b, c, d] = vs;
    try {
      engine.bindGroupsKept = 2;
      // one dispatch a submit (slot 0 each): a→b, then c→d, then a→b again (most recent), then b→c
      for (const [x, y] of [[a, b], [c, d], [a, b], [b, c]]) {
        gpu.axpy(1, x, y);
        gpu.flush();
      }
      // c→d was the least recently used: dropped; a→b and b→c kept
      expect([engine.cachedBindGroups(a.buffer), engine.cachedBindGroups(b.buffer), engine.cachedBindGroups(c.buffer), engine.cachedBindGroups(d.buffer)]).toEqual([1, 2, 1, 0]);
      const made = gpu.stats.bindGroups;
      gpu.axpy(1, a, b);
      gpu.flush();
      expect(gpu.stats.bindGroups).toBe(made);
    } finally {
      engine.bindGroupsKept = kept;
      for (const v of vs) v.dispose();
    }
  });

  it("repeated rt.solve of one matrix: no new bind group from the third solve on (the pool's vectors keep their roles), every answer's true residual under tol", async () => {
    const rt = await createRuntime({ backend: 'webgpu', workers: 1 });
    try {
      const be = (rt.pathById('webgpu') as WebGpuPath).backend;
      const A = poisson3D(8);
      const h = rt.upload(A);
      for (const preconditioner of ['chebyshev', 'jacobi'] as const) {
        const made: number[] = [];
        for (let i = 0; i < 5; i++) {
          const b = Float64Array.from(values(A.rows, 10 + i));
          const before = be.stats.bindGroups;
          const r = await rt.solve(h, b, { method: 'cg', preconditioner, tol: 1e-9 });
          made.push(be.stats.bindGroups - before);
          expect([r.path, r.converged]).toEqual(['webgpu', true]);
          expect(trueResidual(A, r.x, b)).toBeLessThanOrEqual(1e-9);
        }
        expect(made.slice(2), `${preconditioner}: bind groups made by each solve ${made.join(', ')}`).toEqual([0, 0, 0]);
      }
      // a fresh handle of the same matrix (new buffers for A): its first Chebyshev-CG makes a bind group per
      // distinct dispatch of an iteration, not one per dispatch of a block (≈ 12 an iteration, blocks of up to 16)
      const h2 = rt.upload(A);
      const b = Float64Array.from(values(A.rows, 20));
      await rt.solve(h2, b, { method: 'cg', preconditioner: 'jacobi', tol: 1e-9 });
      const before = be.stats.bindGroups;
      const r = await rt.solve(h2, b, { method: 'cg', preconditioner: 'chebyshev', tol: 1e-9 });
      expect(r.iterations).toBeGreaterThan(4);
      expect(be.stats.bindGroups - before, `${r.iterations} iterations`).toBeLessThanOrEqual(40);
      h2.dispose();
    } finally {
      rt.dispose();
    }
  });
});

describe('the read-backs of a resident solve', () => {
  it('given ‖b‖ (rhsNorm, as refinement on the path passes it), CG reads one scalar fewer: the same iterations, history and x bit for bit', async () => {
    const A = poisson2D(12);
    const gA = gpu.upload(A, {});
    const gb = gpu.vector('f64', Float64Array.from(values(A.rows, 40)));
    try {
      const solve = async (rhsNorm?: number) => {
        const before = gpu.stats.readbacks;
        const r = await gpu.cgResident(gA, null, gb, { tol: 1e-10, checkEvery: 4, ...(rhsNorm === undefined ? {} : { rhsNorm }) });
        const reads = gpu.stats.readbacks - before;
        const x = Float64Array.from(await gpu.read(r.x));
        gpu.recycle(r.x);
        return { r, reads, x };
      };
      const plain = await solve();
      const given = await solve(await gpu.nrm2(gb));
      expect(plain.r.converged).toBe(true);
      expect(given.reads).toBe(plain.reads - 1);
      expect([given.r.iterations, given.r.history]).toEqual([plain.r.iterations, plain.r.history]);
      expect(given.x).toEqual(plain.x);
    } finally {
      gA.dispose();
      gb.dispose();
    }
  });
});
