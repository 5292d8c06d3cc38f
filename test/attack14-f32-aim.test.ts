/**
 * Fourteenth attack pass, f32 CG after the f64 head (fa0e435): its residual replacements aim under tol
 * by the certificate's first bound, so the recurrence goes on past an answer that already meets tol.
 * Stopped there by maxIter it said 'maxIter' for an answer that met tol: poisson2D(60) in f32, Jacobi,
 * tol 1e-11, maxIter 180 gave reason 'maxIter' with an exact relative residual of 8.75e-12 (before
 * fa0e435 the same x, after the same 180 iterations, was 'converged'). An answer whose true residual
 * meets tol when maxIter stops the recurrence is now 'converged' (and certified as every converged
 * answer is). Checked against the exact residual (test/exact-residual.ts) at every maxIter up to the free
 * solve's iterations.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import { exactRelativeResidual } from './exact-residual.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ backend: 'cpu', workers: 2 });
});
afterAll(() => rt?.dispose());

function f32(P: CSRMatrix): CSRMatrix {
  return new CSRMatrix(P.rows, P.cols, 'f32', P.rowPtr, P.colIdx, Float32Array.from(P.values));
}

describe("attack14: f32 CG after the f64 head says 'converged' wherever its answer meets tol", () => {
  it('poisson2D(60) and poisson3D(16) in f32, tol 1e-9 … 1e-11, maxIter up to the free solve: converged exactly where the answer meets tol', { timeout: 60000 }, async () => {
    let met = 0;
    for (const A of [f32(poisson2D(60)), f32(poisson3D(16))]) {
      const h = rt.upload(A);
      const b = Float64Array.from({ length: A.rows }, (_, i) => 1 + 0.1 * Math.sin(i));
      for (const tol of [1e-9, 1e-10, 1e-11]) {
        const free = await rt.solve(h, b, { method: 'cg', preconditioner: 'jacobi', tol });
        expect(free.converged).toBe(true);
        for (let maxIter = free.iterations - 4; maxIter <= free.iterations; maxIter++) {
          const r = await rt.solve(h, b, { method: 'cg', preconditioner: 'jacobi', tol, maxIter });
          const exact = exactRelativeResidual(A, r.x, b);
          const what = `${A.rows} rows, tol ${tol}, maxIter ${maxIter}: ${r.reason} after ${r.iterations}, exact ${exact}, reported ${r.relativeResidual}`;
          if (r.converged) expect(exact, what).toBeLessThanOrEqual(tol);
          // the certificate's margin is far below 1 % of tol at these scales
          if (exact <= 0.99 * tol) {
            met++;
            expect(r.reason, what).toBe('converged');
          }
        }
      }
      h.dispose();
    }
    expect(met).toBeGreaterThanOrEqual(6);
  });
});
