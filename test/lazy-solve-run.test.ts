/**
 * rt.solve's driver after its checks and reads (src/runtime/solve-run.ts) is a chunk of its own
 * (src/runtime/solve-chunk.ts), fetched by createRuntime without waiting and waited for by a solve that
 * finds it still loading (a slow network): that solve has read b before it waits (a write called after
 * it is not seen), a failed import rejects that solve with the import's error and the next solve
 * imports again, and a runtime disposed while the import runs rejects its solve with DisposedError.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRuntime, DisposedError, poisson2D } from '../src/index.js';
import { solveRun } from '../src/runtime/solve-chunk.js';
import { trueResidual } from './solve-reference.js';

afterEach(() => {
  vi.restoreAllMocks();
});

const lost = () => new TypeError('Failed to fetch dynamically imported module');

describe("rt.solve's driver chunk", () => {
  it('createRuntime starts the import without waiting for it', async () => {
    expect(solveRun.loaded()).toBe(false);
    const load = vi.spyOn(solveRun, 'load');
    const rt = await createRuntime({ backend: 'cpu', workers: 1 });
    rt.dispose();
    expect(load).toHaveBeenCalledTimes(1);
    await load.mock.results[0].value;
    expect(solveRun.loaded()).toBe(true);
  });

  it('a solve that waits for the chunk has read b first: a write called after it is not seen', async () => {
    // the chunk still loading (a slow network): a load that waits for the gate
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const real = solveRun.load;
    const load = vi.spyOn(solveRun, 'load').mockImplementation(() => gate.then(() => real()));
    vi.spyOn(solveRun, 'loaded').mockReturnValue(false);
    const rt = await createRuntime({ backend: 'cpu', workers: 1 });
    try {
      const A = poisson2D(8);
      const h = rt.upload(A);
      const b = Float64Array.from({ length: A.rows }, (_, i) => Math.sin(0.5 * i + 1));
      const bv = rt.vector(b);
      const solved = rt.cg(h, bv, { tol: 1e-10 });
      const scaled = rt.scal(0, bv);
      await scaled;
      expect(load).toHaveBeenCalled();
      release();
      const s = await solved;
      expect(s.converged).toBe(true);
      expect(trueResidual(A, s.x, b)).toBeLessThanOrEqual(1e-10);
      expect(Array.from(await bv.read()).every((v) => v === 0)).toBe(true);
    } finally {
      rt.dispose();
    }
  });

  it('failing to load: that solve rejects with the import error, the next one loads it and solves', async () => {
    const rt = await createRuntime({ backend: 'cpu', workers: 1 });
    try {
      const A = poisson2D(8);
      const h = rt.upload(A);
      const b = Float64Array.from({ length: A.rows }, (_, i) => Math.cos(i));
      vi.spyOn(solveRun, 'loaded').mockReturnValue(false);
      const load = vi.spyOn(solveRun, 'load').mockRejectedValue(lost());
      await expect(rt.solve(h, b, { tol: 1e-10 })).rejects.toThrow(/Failed to fetch/);
      await expect(rt.cg(h, b)).rejects.toThrow(/Failed to fetch/);
      expect(load).toHaveBeenCalled();
      vi.restoreAllMocks();
      for (const s of [await rt.solve(h, b, { tol: 1e-10 }), await rt.cg(h, b, { tol: 1e-10 })]) {
        expect(s.converged).toBe(true);
        expect(trueResidual(A, s.x, b)).toBeLessThanOrEqual(1e-10);
      }
    } finally {
      rt.dispose();
    }
  });

  it('a runtime disposed while the chunk loads: its solve rejects with DisposedError, another runtime’s answers', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const real = solveRun.load;
    vi.spyOn(solveRun, 'load').mockImplementation(() => gate.then(() => real()));
    vi.spyOn(solveRun, 'loaded').mockReturnValue(false);
    const A = poisson2D(6);
    const b = new Float64Array(A.rows).fill(1);
    const rt = await createRuntime({ backend: 'cpu', workers: 1 });
    const rt2 = await createRuntime({ backend: 'cpu', workers: 1 });
    try {
      const kept = rt.solve(rt.upload(A), b);
      const gone = rt2.cg(rt2.upload(A), b);
      // both have read b and wait for the chunk
      await new Promise((r) => setTimeout(r, 20));
      rt2.dispose();
      release();
      await expect(gone).rejects.toBeInstanceOf(DisposedError);
      const s = await kept;
      expect(s.converged).toBe(true);
      expect(trueResidual(A, s.x, b)).toBeLessThanOrEqual(1e-8);
    } finally {
      rt.dispose();
      rt2.dispose();
    }
  });
});
