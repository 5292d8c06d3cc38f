/**
 * Second adversarial pass over the Krylov layer (rt.solve and the methods under it): starts far from
 * the answer, preconditioners that leave the recurrence just short, tolerance 0, entries of A far from 1.
 * Every answer is checked against a plain f64 residual (test/solve-reference.ts, no shared code):
 * 'converged' must mean a true ‖b − A·x‖/‖b‖ ≤ tol, and a solve that can reach tol must reach it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { poisson2D } from '../src/generators/poisson.js';
import { trueResidual } from './solve-reference.js';
import { loadShared } from './matrices.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ workers: 2, backend: 'cpu' });
});
afterAll(() => rt.dispose());

describe('GMRES from an x0 far from the answer', () => {
  // the first correction is ≈ −x0, and GMRES's own b − A·d cannot go below ε·‖A‖·‖d‖: it ended
  // 'stagnated' (1.9e-8 from 1e8, 0.2 from 1e15) where a further correction solve reaches tol
  for (const s of [1e8, 1e12, 1e15]) {
    it(`x0 = ${s}: gmres (none, jacobi, ilu0) converges to tol`, async () => {
      const A = poisson2D(10);
      const h = rt.upload(A);
      const b = new Float64Array(A.rows).fill(1);
      for (const preconditioner of ['none', 'jacobi', 'ilu0'] as const) {
        const r = await rt.solve(h, b, { method: 'gmres', preconditioner, tol: 1e-8, x0: new Float64Array(A.rows).fill(s) });
        expect(r.reason, `${preconditioner}: ${r.reason}, relative residual ${r.relativeResidual}`).toBe('converged');
        expect(trueResidual(A, r.x, b)).toBeLessThanOrEqual(1e-8);
      }
      h.dispose();
    });
  }
});

describe('MINRES + Chebyshev just short of tol after its first solve', () => {
  // MINRES tracks the residual in the M⁻¹-norm: its first solve left ‖b − A·x‖ at 1.03–1.3·tol, and the
  // correction solve, asked for target/‖r‖ ≈ 1, gained less than the halving the refinement requires:
  // 'stagnated' at 1.03e-4 (tol 1e-4), 1.26e-8 (tol 1e-8, f32)
  const cases: ['f64' | 'f32', number][] = [['f64', 1e-4], ['f32', 1e-6], ['f32', 1e-8], ['f32', 1e-10]];
  for (const [dt, tol] of cases) {
    it(`bcsstk01 ${dt}, tol ${tol}: converged, the true residual under tol`, async () => {
      const A0 = loadShared('bcsstk01');
      const A = dt === 'f64' ? A0 : A0.astype('f32');
      const h = rt.upload(A);
      const b = new Float64Array(A.rows).fill(1);
      const r = await rt.solve(h, b, { method: 'minres', preconditioner: 'chebyshev', tol });
      expect(r.reason, `${r.reason}, relative residual ${r.relativeResidual}`).toBe('converged');
      expect(trueResidual(A, r.x, b)).toBeLessThanOrEqual(tol);
      h.dispose();
    });
  }
});
