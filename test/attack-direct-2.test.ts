/**
 * Second adversarial pass over the direct solvers (rt.factor, F.solve, F.refactor, rt.solve 'direct'):
 * a signal that fires while a factorization runs, and inputs at the edges of the API. Each outcome must
 * say what happened (docs/direct.md, docs/errors.md), and what the factorization held must be freed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import { CSRMatrix } from '../src/formats/csr.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ workers: 2, backend: 'cpu' });
});
afterAll(() => rt.dispose());

/** A nonsymmetric matrix of poisson's pattern (LU, sequential numeric phase). */
function convection(P: CSRMatrix): CSRMatrix {
  const v = Float64Array.from(P.values);
  for (let i = 0; i < P.rows; i++) for (let k = P.rowPtr[i]; k < P.rowPtr[i + 1]; k++) if (P.colIdx[k] !== i) v[k] *= P.colIdx[k] > i ? 0.5 : 1.5;
  return new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, v);
}

/** An AbortSignal-like object (the solvers accept any object with a boolean `aborted`) that fires at its `at`-th reading. */
function firesAtRead(at: number): { aborted: boolean; reads: number } {
  return {
    reads: 0,
    get aborted() {
      return ++this.reads >= at;
    },
  };
}

describe('a signal that fires while a factorization runs', () => {
  // before, rt.factor took no signal (an OptionError) and rt.solve 'direct' read it only before starting:
  // an abort during the seconds a large factorization takes was ignored and the solve returned 'converged'
  const cases: [string, () => CSRMatrix, 'auto' | 'lu' | 'ldlt'][] = [
    ['poisson3D(16), supernodal Cholesky', () => poisson3D(16), 'auto'],
    ['poisson2D(40), LU', () => convection(poisson2D(40)), 'lu'],
    ['poisson2D(40), LDLᵀ', () => poisson2D(40), 'ldlt'],
  ];
  for (const [what, make, kind] of cases) {
    it(`${what}: rt.factor rejects with the signal's reason and frees what it held; rt.solve 'direct' ends 'aborted'`, async () => {
      const A = make();
      const before = rt.memoryInUse;
      const stop = new AbortController();
      const pending = rt.factor(A, { kind, signal: stop.signal });
      stop.abort();
      const err = await pending.then(() => null, (e: unknown) => e);
      expect(err).toBe(stop.signal.reason);
      expect((err as DOMException).name).toBe('AbortError');
      expect(rt.memoryInUse).toBe(before);
      const why = new Error('user left the page');
      const stop2 = new AbortController();
      const pending2 = rt.factor(A, { kind, signal: stop2.signal });
      stop2.abort(why);
      await expect(pending2).rejects.toBe(why);

      const h = rt.upload(A);
      const b = new Float64Array(A.rows).fill(1);
      const stop3 = new AbortController();
      const solving = rt.solve(h, b, { method: 'direct', signal: stop3.signal });
      stop3.abort();
      const r = await solving;
      expect(r.method).toBe('direct');
      expect(r.reason).toBe('aborted');
      expect(r.converged).toBe(false);
      expect(r.relativeResidual).toBe(1);
      h.dispose();
      // and without an abort the same calls factorize
      const F = await rt.factor(A, { kind, signal: new AbortController().signal });
      expect((await F.solve(b)).relativeResidual).toBeLessThan(1e-12);
      F.dispose();
      expect(rt.memoryInUse).toBe(before);
    });
  }

  it('between the supernodal Cholesky steps on the pool: rejects, the factor region freed', async () => {
    const A = poisson3D(16);
    const before = rt.memoryInUse;
    // readings: the option check, the start, the numeric phase's checkpoint, the first pool step; the
    // fifth (before the next step) fires
    const signal = firesAtRead(5);
    const err = await rt.factor(A, { signal: signal as unknown as AbortSignal }).then(() => null, (e: unknown) => e);
    expect((err as DOMException).name).toBe('AbortError');
    expect(signal.reads).toBe(5);
    expect(rt.memoryInUse).toBe(before);
  });

  it('a signal that is not one is a typed error', async () => {
    await expect(rt.factor(poisson2D(4), { signal: 'stop' as unknown as AbortSignal })).rejects.toThrow(/signal must be an AbortSignal/);
  });
});
