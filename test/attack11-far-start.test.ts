/**
 * An x0 far from the answer (the eleventh attack pass). attack8 made an x0 that overflows when scaled
 * with b no start; one that stays finite but whose residual b − A·x0 is some 1e20–1e300 times ‖b‖ still
 * ran: poisson2D(8) with b ≈ 1 from x0 ≈ 1e160 ended CG and BiCGSTAB 'nan' after 0 iterations and MINRES
 * after 1 (a reason the docs give for NaN in A or b) on finite data, from 1e100 every method 'maxIter' at
 * a relative residual of 1e7 to 1e50, and in f32 BiCGSTAB 'nan' from 1e20, every method 'nan' with a
 * NaN relative residual from 1e160 — each converges from 0 in 26–47 iterations. Checked against a
 * residual written here in plain f64 (scaled through max |rᵢ|).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { scaledNorm, scaledRelativeResidual } from './scaled-residual.js';
import { poisson2D } from '../src/generators/poisson.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ backend: 'cpu', workers: 1 });
});
afterAll(() => rt?.dispose());

describe('attack11: an x0 whose residual is far beyond ‖b‖', () => {
  const P = poisson2D(8);
  for (const dtype of ['f64', 'f32'] as const) {
    it(`${dtype}: every method from x0 ≈ 1e20 … 1e300 (b ≈ 1, and b ≈ 1e-200 from x0 ≈ 1e10) converges, x finite, the true residual ≤ tol`, { timeout: 60000 }, async () => {
      const A = dtype === 'f32' ? new CSRMatrix(P.rows, P.cols, 'f32', P.rowPtr, P.colIdx, Float32Array.from(P.values)) : P;
      const h = rt.upload(A);
      const n = A.rows;
      const b1 = Float64Array.from({ length: n }, (_, i) => Math.sin(i + 1));
      const cases: [Float64Array, number][] = [1e20, 1e30, 1e60, 1e100, 1e160, 1e300].map((s) => [b1, s]);
      cases.push([b1.map((v) => v * 1e-200), 1e10]);
      try {
        for (const [b, s] of cases) {
          const x0 = Float64Array.from({ length: n }, (_, i) => s * Math.cos(i));
          for (const method of ['cg', 'bicgstab', 'gmres', 'minres'] as const) {
            const what = `${dtype} ${method}, ‖b‖ ${scaledNorm(b).toExponential(0)}, x0 ≈ ${s}`;
            const r = await rt.solve(h, b, { method, x0, tol: 1e-8 });
            expect(r.reason, `${what}: ${r.reason} after ${r.iterations} at ${r.relativeResidual}`).toBe('converged');
            expect(r.x.every(Number.isFinite), what).toBe(true);
            expect(scaledRelativeResidual(A, r.x, b), what).toBeLessThanOrEqual(1e-8);
          }
        }
      } finally {
        h.dispose();
      }
    });
  }

  it('an x0 within reach is still the start: b = A·x0 (x0 ≈ 1e30) returns x0 after 0 iterations; b = 0 keeps x0 (a singular A: it asks for a null vector)', async () => {
    const h = rt.upload(P);
    try {
      const x0 = Float64Array.from({ length: P.rows }, (_, i) => 1e30 * Math.cos(i));
      const b = new Float64Array(P.rows);
      for (let i = 0; i < P.rows; i++) for (let k = P.rowPtr[i]; k < P.rowPtr[i + 1]; k++) b[i] += P.values[k] * x0[P.colIdx[k]];
      const r = await rt.solve(h, b, { method: 'cg', x0, tol: 1e-8 });
      expect(r.converged).toBe(true);
      expect(scaledRelativeResidual(P, r.x, b)).toBeLessThanOrEqual(1e-8);
      expect(r.iterations).toBe(0);
      const z = await rt.cg(h, new Float64Array(P.rows), { x0: Float64Array.from(x0, (v) => v * 1e-30), maxIter: 0 });
      expect(Array.from(z.x)).toEqual(Array.from(x0, (v) => v * 1e-30));
    } finally {
      h.dispose();
    }
  });
});
