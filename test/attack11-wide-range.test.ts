/**
 * The CPU path's scaled copy (1cc7436: A scaled by 2^-e to max |aᵢⱼ| ≈ 1 where max leaves 2^±128) for a
 * matrix whose entries span more than f64's normal range (the eleventh attack pass). diag(1e300, 1e-10)
 * scaled by 2^-997 held 7.5e-311, a subnormal: rt.solve with Jacobi threw "jacobi: the diagonal entry
 * A[1,1] is 7.466108948026e-311, whose inverse overflows f64" (a value not in A) for every method, and
 * without a preconditioner every method ended 'breakdown', 'stagnated' or 'nan'; 1e-300 flushed to 0
 * (a singular copy). Before the copy (1cc7436's parent) each Jacobi solve converged. The copy now keeps
 * every nonzero entry normal. Checked against a residual written here in plain f64.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { scaledRelativeResidual } from './scaled-residual.js';
import { poisson2D } from '../src/generators/poisson.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ backend: 'cpu', workers: 1 });
});
afterAll(() => rt?.dispose());

const METHODS = ['cg', 'gmres', 'bicgstab', 'minres'] as const;

describe('attack11: the CPU path scales no entry of A out of the normal range', () => {
  it('diag(1e300, 1e-10), diag(1e250, 1e-100), diag(1e200, 1e-200): every method with Jacobi converges (x finite, the true residual ≤ tol)', async () => {
    for (const [hi, lo] of [[1e300, 1e-10], [1e250, 1e-100], [1e200, 1e-200]]) {
      const A = new CSRMatrix(2, 2, 'f64', Int32Array.of(0, 1, 2), Int32Array.of(0, 1), Float64Array.of(hi, lo));
      const h = rt.upload(A);
      const b = Float64Array.of(1, 1);
      try {
        for (const method of METHODS) {
          const what = `diag(${hi}, ${lo}) ${method} + jacobi`;
          const r = await rt.solve(h, b, { method, preconditioner: 'jacobi', tol: 1e-8 });
          expect(r.reason, `${what}: ${r.reason} at ${r.relativeResidual}`).toBe('converged');
          expect(r.x.every(Number.isFinite), what).toBe(true);
          expect(scaledRelativeResidual(A, r.x, b), what).toBeLessThanOrEqual(1e-8);
        }
      } finally {
        h.dispose();
      }
    }
  });

  it('a Jacobi refusal names a value of A, never one of the copy: D·P·D (poisson2D(6), D = 2^±300 alternating) and diag(1e300, 1e-300) give no ShapeError; diag(1e300, 0) still says its own zero', async () => {
    const P = poisson2D(6);
    const n = P.rows;
    const d = Array.from({ length: n }, (_, i) => 2 ** (i % 2 ? 300 : -300));
    const v = new Float64Array(P.nnz);
    for (let i = 0; i < n; i++) for (let k = P.rowPtr[i]; k < P.rowPtr[i + 1]; k++) v[k] = P.values[k] * d[i] * d[P.colIdx[k]];
    const A = new CSRMatrix(n, n, 'f64', P.rowPtr, P.colIdx, v);
    const h = rt.upload(A);
    const b = Float64Array.from({ length: n }, (_, i) => Math.sin(i + 1));
    try {
      for (const method of METHODS) {
        const r = await rt.solve(h, b, { method, preconditioner: 'jacobi', tol: 1e-8 });
        if (r.converged) expect(scaledRelativeResidual(A, r.x, b), method).toBeLessThanOrEqual(1e-8);
      }
    } finally {
      h.dispose();
    }
    // diag(1e300, 1e-300): beyond any copy's reach (A itself runs, as before the copy: MINRES stagnates), but no refusal
    const W = new CSRMatrix(2, 2, 'f64', Int32Array.of(0, 1, 2), Int32Array.of(0, 1), Float64Array.of(1e300, 1e-300));
    const hw = rt.upload(W);
    try {
      for (const method of METHODS) {
        const r = await rt.solve(hw, Float64Array.of(1, 1), { method, preconditioner: 'jacobi', tol: 1e-8 });
        if (r.converged) expect(scaledRelativeResidual(W, r.x, Float64Array.of(1, 1)), method).toBeLessThanOrEqual(1e-8);
      }
    } finally {
      hw.dispose();
    }
    const Z = new CSRMatrix(2, 2, 'f64', Int32Array.of(0, 1, 2), Int32Array.of(0, 1), Float64Array.of(1e300, 0));
    const hz = rt.upload(Z);
    try {
      await expect(rt.solve(hz, Float64Array.of(1, 1), { method: 'cg', preconditioner: 'jacobi' })).rejects.toThrow(/A\[1,1\] is zero/);
    } finally {
      hz.dispose();
    }
  });
});
