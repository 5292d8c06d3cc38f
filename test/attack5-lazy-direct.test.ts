/**
 * Fifth adversarial pass, the lazily loaded direct solvers (src/runtime/direct-solvers.ts): a failing
 * load (a page's chunk lost to the network) leaves rt.solve 'auto' to the Krylov candidates, with
 * directFallback saying why (it rejected with the import's TypeError), method 'direct' and rt.factor
 * reject with it, and the next call loads again; a runtime disposed while the load runs rejects with
 * DisposedError, where calls of another runtime waiting on the same load answer.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRuntime, DisposedError, Factorization, poisson2D } from '../src/index.js';
import { directSolvers } from '../src/runtime/direct-solvers.js';
import { trueResidual } from './solve-reference.js';

afterEach(() => {
  vi.restoreAllMocks();
});

const lost = () => new TypeError('Failed to fetch dynamically imported module');

describe('the direct solvers’ module', () => {
  it('failing to load: auto solves by Krylov and says so, direct and factor reject, the next call loads it', async () => {
    expect(directSolvers.loaded()).toBe(false);
    const rt = await createRuntime({ backend: 'cpu', workers: 1 });
    try {
      const A = poisson2D(8);
      const h = rt.upload(A);
      const b = Float64Array.from({ length: A.rows }, (_, i) => Math.cos(i));
      const load = vi.spyOn(directSolvers, 'load').mockRejectedValueOnce(lost()).mockRejectedValueOnce(lost()).mockRejectedValueOnce(lost());
      const s = await rt.solve(h, b, { tol: 1e-10 });
      expect([s.method, s.reason]).toEqual(['cg', 'converged']);
      expect(s.directFallback).toMatch(/direct solvers' module failed to load \(TypeError: Failed to fetch/);
      expect(trueResidual(A, s.x, b)).toBeLessThanOrEqual(1e-10);
      await expect(rt.solve(h, b, { method: 'direct' })).rejects.toThrow(/Failed to fetch/);
      await expect(rt.factor(A)).rejects.toThrow(/Failed to fetch/);
      expect(load).toHaveBeenCalledTimes(3);
      vi.restoreAllMocks();
      // the next call imports it
      const d = await rt.solve(h, b);
      expect([d.method, d.directFallback]).toEqual(['direct', undefined]);
      expect(directSolvers.loaded()).toBe(true);
    } finally {
      rt.dispose();
    }
  });

  it('calls waiting on the load: those of a runtime disposed meanwhile reject with DisposedError, the others answer', async () => {
    // the module is loaded by now: a load that waits for the gate stands in for a slow first import
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const real = directSolvers.load;
    const load = vi.spyOn(directSolvers, 'load').mockImplementation(() => gate.then(() => real()));
    const loaded = vi.spyOn(directSolvers, 'loaded').mockReturnValue(false);
    const rt = await createRuntime({ backend: 'cpu', workers: 1 });
    const A = poisson2D(6);
    const h = rt.upload(A);
    const b = new Float64Array(A.rows).fill(1);
    const calls = [rt.solve(h, b), rt.factor(A), rt.solve(h, b, { method: 'direct' })] as const;
    const rt2 = await createRuntime({ backend: 'cpu', workers: 1 });
    const gone = [rt2.factor(A), rt2.solve(rt2.upload(A), b)];
    rt2.dispose();
    release();
    const [s, F, d] = await Promise.all(calls);
    loaded.mockRestore();
    expect(load).toHaveBeenCalledTimes(5);
    expect([s.method, d.method]).toEqual(['direct', 'direct']);
    expect(F).toBeInstanceOf(Factorization);
    expect(trueResidual(A, (await F.solve(b)).x, b)).toBeLessThanOrEqual(1e-12);
    for (const g of gone) await expect(g).rejects.toBeInstanceOf(DisposedError);
    rt.dispose();
  });
});
