/**
 * Fifth adversarial pass, the Krylov methods whose small CPU iterations run as inline sequences
 * (SolverOps.sequence / sequenceNow, src/cpu/blas1.ts): an AbortSignal fired by a timer ends a solve
 * that never converges ('aborted', within a few of the backend's 50 ms slices: the inline runs give
 * the event loop its turn), as does one aborted before the start or from onIteration; maxIter is an
 * exact bound (iterations ≤ maxIter, = maxIter when that is the reason, one history entry per
 * iteration) with the reported residual the true one, for each method, preconditioner and restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { poisson2D } from '../src/generators/poisson.js';
import { trueResidual } from './solve-reference.js';
import { mulberry32 } from './random.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ workers: 2, backend: 'cpu' });
});
afterAll(() => rt.dispose());

const METHODS = ['bicgstab', 'gmres', 'minres'] as const;

/** poisson2D(n) with each diagonal set to minus its row's off-diagonal sum: singular (constants in the null space). */
function singular(n = 10): CSRMatrix {
  const P = poisson2D(n);
  const v = P.values.slice();
  for (let i = 0; i < P.rows; i++) {
    let s = 0;
    let d = -1;
    for (let k = P.rowPtr[i]; k < P.rowPtr[i + 1]; k++) {
      if (P.colIdx[k] === i) d = k;
      else s += v[k];
    }
    v[d] = -s;
  }
  return new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, v);
}

describe('inline Krylov sequences', () => {
  it('a timer’s abort ends an inconsistent singular solve (tol 0, maxIter 2e6) as aborted, x finite', async () => {
    // 10 000 rows (still inline) and GMRES(100): GMRES ends a singular solve 'stagnated' after five
    // flat restart cycles, which on poisson2D(10) with GMRES(30) took ~70 ms, a race with the 60 ms
    // timer that a quiet CI run lost; here the flat cycles take over a second.
    const h = rt.upload(singular(100));
    const b = Float64Array.from({ length: h.rows }, (_, i) => Math.sin(i) + 0.3);
    // the Krylov methods are a lazy chunk: loaded here, so the 60 ms go to iterations, not to its import
    await rt.cg(h, b, { maxIter: 1 });
    for (const m of METHODS) {
      const t0 = performance.now();
      const opts = { tol: 0, maxIter: 2_000_000, signal: AbortSignal.timeout(60) };
      const r = await (m === 'gmres' ? rt.gmres(h, b, { ...opts, restart: 100 }) : rt[m](h, b, opts));
      expect(r.reason, m).toBe('aborted');
      expect(r.iterations).toBeGreaterThan(0);
      expect(r.x.every(Number.isFinite)).toBe(true);
      // generous for a loaded machine: 2e6 iterations would take minutes
      expect(performance.now() - t0).toBeLessThan(5000);
    }
    h.dispose();
  });

  it('aborted before the start, or from onIteration at the third iteration', async () => {
    const h = rt.upload(singular());
    const b = Float64Array.from({ length: h.rows }, (_, i) => Math.cos(i));
    for (const m of METHODS) {
      const before = new AbortController();
      before.abort();
      expect((await rt[m](h, b, { signal: before.signal })).iterations).toBe(0);
      const during = new AbortController();
      const r = await rt[m](h, b, { tol: 0, maxIter: 1000, signal: during.signal, onIteration: (k) => void (k === 3 && during.abort()) });
      expect([r.reason, r.iterations], m).toEqual(['aborted', 3]);
    }
    h.dispose();
  });

  it('maxIter is an exact bound, the residual reported the true one (methods × preconditioners × restart)', async () => {
    const g = mulberry32(3);
    const n = 60;
    const [r, c, v]: number[][] = [[], [], []];
    for (let i = 0; i < n; i++) {
      r.push(i), c.push(i), v.push(4 + g());
      for (let k = 0; k < 3; k++) {
        const j = Math.floor(g() * n);
        if (j !== i) r.push(i), c.push(j), v.push(g() - 0.5);
      }
    }
    const A = CSRMatrix.fromTriplets(n, n, 'f64', Int32Array.from(r), Int32Array.from(c), Float64Array.from(v));
    const S = CSRMatrix.fromTriplets(n, n, 'f64', Int32Array.from([...r, ...c]), Int32Array.from([...c, ...r]), Float64Array.from([...v, ...v]));
    const b = Float64Array.from({ length: n }, (_, i) => Math.cos(i));
    for (const [M, methods] of [[A, ['bicgstab', 'gmres']], [S, ['minres']]] as const) {
      const h = rt.upload(M);
      for (const m of methods) {
        for (const preconditioner of m === 'minres' ? ['none', 'jacobi'] : ['none', 'jacobi', 'ilu0']) {
          for (const maxIter of [0, 1, 2, 3, 7, 30, 31, 61]) {
            for (const restart of m === 'gmres' ? [undefined, 1, 5] : [undefined]) {
              const s = await rt[m](h, b, { tol: 1e-300, maxIter, preconditioner, ...(restart ? { restart } : {}) } as object);
              const what = `${m} ${preconditioner} maxIter ${maxIter} restart ${restart}`;
              expect(s.iterations, what).toBeLessThanOrEqual(maxIter);
              if (s.reason === 'maxIter') expect(s.iterations, what).toBe(maxIter);
              expect(s.history.length, what).toBe(s.iterations + 1);
              const t = trueResidual(M, s.x, b);
              expect(Math.abs(t - s.relativeResidual), what).toBeLessThanOrEqual(1e-6 * t + 1e-15);
            }
          }
        }
      }
      h.dispose();
    }
  });
});
