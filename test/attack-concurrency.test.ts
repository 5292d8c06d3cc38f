/**
 * Attack on shared state: solves started together (Promise.all) on one runtime, sharing a matrix, a
 * preconditioner handle or a factorization, must each give what it gives alone — the same iterations
 * and an answer whose true residual (recomputed here in plain f64) meets tol.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { poisson2D } from '../src/generators/poisson.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { mulberry32 } from './random.js';
import { trueResidual as trueRel } from './solve-reference.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ workers: 2, backend: 'cpu' });
});
afterAll(() => rt.dispose());

function rhs(n: number, seed: number): Float64Array {
  const g = mulberry32(seed);
  return Float64Array.from({ length: n }, () => g() - 0.5);
}

describe('a preconditioner handle shared by solves running together', () => {
  const cases = [
    ['ic0', ['cg', 'cg', 'minres']],
    ['ilu0', ['gmres', 'bicgstab', 'gmres']],
    ['ssor', ['cg', 'gmres', 'bicgstab']],
    ['amg', ['cg', 'cg', 'gmres']],
    ['chebyshev', ['cg', 'gmres', 'cg']],
  ] as const;
  for (const [kind, methods] of cases) {
    it(`${kind} with ${methods.join(', ')}`, async () => {
      const A = poisson2D(24);
      const h = rt.upload(A);
      const M = kind === 'amg' ? rt.amg(h) : rt.preconditioner(h, { kind });
      const bs = methods.map((_, i) => rhs(A.rows, 100 + i));
      const alone = [];
      for (let i = 0; i < methods.length; i++) alone.push(await rt.solve(h, bs[i], { method: methods[i], preconditioner: M, tol: 1e-10 }));
      const together = await Promise.all(methods.map((method, i) => rt.solve(h, bs[i], { method, preconditioner: M, tol: 1e-10 })));
      for (let i = 0; i < methods.length; i++) {
        const r = together[i];
        expect(alone[i].reason, `${methods[i]} #${i} alone: ${alone[i].reason}, ${alone[i].relativeResidual}`).toBe('converged');
        expect(r.reason, `${methods[i]} #${i}: ${r.reason} after ${r.iterations} iterations (alone: ${alone[i].iterations})`).toBe('converged');
        expect(trueRel(A, r.x, bs[i])).toBeLessThanOrEqual(1e-10);
        expect(r.iterations).toBe(alone[i].iterations);
      }
      M.dispose();
      h.dispose();
    });
  }
});

describe('solves above the pool floor running together (GMRES\'s fused Gram–Schmidt, every method\'s steps)', () => {
  it('gmres, bicgstab and gmres on one nonsymmetric matrix of 16 900 rows: the bits each gives alone', async () => {
    const P = poisson2D(130);
    // an upwind term: nonsymmetric
    const values = Float64Array.from(P.values);
    for (let i = 0; i < P.rows; i++) for (let k = P.rowPtr[i]; k < P.rowPtr[i + 1]; k++) values[k] += P.colIdx[k] === i ? 0.5 : P.colIdx[k] === i - 1 ? -0.5 : 0;
    const A = new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, values);
    const h = rt.upload(A);
    const methods = ['gmres', 'bicgstab', 'gmres'] as const;
    const bs = methods.map((_, i) => rhs(A.rows, 200 + i));
    const alone = [];
    for (let i = 0; i < methods.length; i++) alone.push(await rt.solve(h, bs[i], { method: methods[i], preconditioner: 'jacobi', tol: 1e-10 }));
    const together = await Promise.all(methods.map((method, i) => rt.solve(h, bs[i], { method, preconditioner: 'jacobi', tol: 1e-10 })));
    for (let i = 0; i < methods.length; i++) {
      expect(alone[i].reason, `${methods[i]} #${i} alone`).toBe('converged');
      expect(alone[i].iterations, `${methods[i]} #${i} alone`).toBeGreaterThan(20);
      expect(together[i].iterations, `${methods[i]} #${i}`).toBe(alone[i].iterations);
      expect(Array.from(together[i].x), `${methods[i]} #${i}`).toEqual(Array.from(alone[i].x));
      expect(trueRel(A, together[i].x, bs[i])).toBeLessThanOrEqual(1e-10);
    }
    h.dispose();
  });
});
