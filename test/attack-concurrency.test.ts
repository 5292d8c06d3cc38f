/**
 * Attack on shared state: solves started together (Promise.all) on one runtime, sharing a matrix, a
 * preconditioner handle or a factorization, must each give what it gives alone — the same iterations
 * and an answer whose true residual (recomputed here in plain f64) meets tol.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { poisson2D } from '../src/generators/poisson.js';
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
