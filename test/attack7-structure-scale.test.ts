/**
 * Seventh adversarial pass, rt.solve's structure check (src/solvers/structure.ts) at the ends of the
 * f64 range. It compared an entry with its mirror by squares, (a − m)² ≤ 1e-24·max(a², m²): beyond
 * |a| ≈ 1e154 both sides overflow (Infinity ≤ Infinity) and below ≈ 1e-154 both underflow (0 ≤ 0), so
 * any pair passed and a nonsymmetric matrix scaled by 1e160 or 1e-170 was read as symmetric, by the
 * CSR pass and the DIA pass alike: rt.solve with Jacobi then ran CG to maxIter (36 000 iterations,
 * 'maxIter') where the same system unscaled takes GMRES and converges in 36. The check is now
 * |a − m| ≤ 1e-12·max(|a|, |m|).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { poisson2D } from '../src/generators/poisson.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { DIAMatrix } from '../src/formats/dia.js';
import { solveStructure } from '../src/solvers/structure.js';
import { trueResidual } from './solve-reference.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ workers: 1, backend: 'cpu' });
});
afterAll(() => rt.dispose());

const P = poisson2D(30);
/** P scaled by s, with a convection term c·s above the diagonal (nonsymmetric when c ≠ 0). */
function scaled(s: number, c: number): CSRMatrix {
  const values = Float64Array.from(P.values, (v, k) => v * s);
  for (let i = 0; i < P.rows; i++) for (let k = P.rowPtr[i]; k < P.rowPtr[i + 1]; k++) if (P.colIdx[k] === i + 1) values[k] += c * s;
  return new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, values);
}

describe('symmetry at any scale', () => {
  const SCALES = [1, 1e150, 1e160, 1e300, 1e-150, 1e-170, 1e-300];
  for (const s of SCALES) {
    it(`scale ${s}: symmetric stays symmetric, a convection term (0.9, or one part in 1e-6) is not; CSR and DIA passes agree`, () => {
      for (const [c, sym] of [[0, true], [0.9, false], [1e-6, false]] as const) {
        const A = scaled(s, c);
        expect(solveStructure(A).hermitian, `CSR, c ${c}`).toBe(sym);
        expect(solveStructure(A, DIAMatrix.fromCSR(A)).hermitian, `DIA, c ${c}`).toBe(sym);
      }
    });
  }
  it("rt.solve with Jacobi of a nonsymmetric A·1e160 and A·1e-170: 'auto''s method for a nonsymmetric diagonally dominant A (BiCGSTAB), converged, as unscaled (was CG to maxIter)", async () => {
    for (const s of [1, 1e160, 1e-170]) {
      const A = scaled(s, 0.9);
      const h = rt.upload(A);
      const b = new Float64Array(A.rows).fill(s);
      const r = await rt.solve(h, b, { tol: 1e-8, preconditioner: 'jacobi', maxIter: 2000 });
      expect([r.method, r.reason], `scale ${s}`).toEqual(['bicgstab', 'converged']);
      // x solves the unscaled system (A/s)·x = b/s, whose residual stays in range
      expect(trueResidual(scaled(1, 0.9), r.x, new Float64Array(A.rows).fill(1)), `scale ${s}`).toBeLessThanOrEqual(1e-8);
      h.dispose();
    }
  });
});
