/**
 * Ninth adversarial pass, rt.solve's own preconditioner choice ('auto', the default) on matrices whose
 * setup of that choice fails: rt.solve(A, b) threw the setup's error — Jacobi's ShapeError for a
 * diagonal entry near 1e-310 ("whose inverse overflows f64; use preconditioner: 'none'") and IC(0)'s
 * or ILU(0)'s UnsupportedError ("breaks down even with the diagonal shifted") — for a preconditioner the
 * caller never asked for. The candidate now runs without one (preconditionerDetail says why); a
 * preconditioner asked for by name still throws.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { poisson2D } from '../src/generators/poisson.js';
import { ShapeError, UnsupportedError } from '../src/errors.js';
import { exactRelativeResidual } from './exact-residual.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ workers: 1, backend: 'cpu' });
});
afterAll(() => rt.dispose());

const P = poisson2D(6);
/** poisson2D(6) with f(value, row, column) applied to every entry. */
function mapped(f: (v: number, i: number, j: number) => number): CSRMatrix {
  const v = new Float64Array(P.nnz);
  for (let i = 0; i < P.rows; i++) for (let k = P.rowPtr[i]; k < P.rowPtr[i + 1]; k++) v[k] = f(P.values[k], i, P.colIdx[k]);
  return new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, v);
}

describe("rt.solve's own preconditioner choice", () => {
  it('one diagonal entry of 1e-310: every method answers without the preconditioner its setup refused (threw ShapeError / UnsupportedError before)', async () => {
    const A = mapped((v, i, j) => (i === j && i === 3 ? 1e-310 : v));
    const h = rt.upload(A);
    const b = Float64Array.from({ length: P.rows }, (_, i) => 1 + (i % 3));
    for (const method of ['cg', 'minres', 'gmres', 'bicgstab'] as const) {
      const r = await rt.solve(h, b, { method });
      expect(r.preconditioner, method).toBe('none');
      expect(r.preconditionerDetail, method).toMatch(/^none \((jacobi|ic0|ilu0) could not be set up: /);
      // what it reports is what x satisfies; the methods for indefinite and nonsymmetric systems converge
      expect(Math.abs(r.relativeResidual - exactRelativeResidual(A, r.x, b))).toBeLessThanOrEqual(1e-12);
      if (method !== 'cg') expect([method, r.reason]).toEqual([method, 'converged']);
    }
    // asked for by name: the setup's error, as before
    await expect(rt.solve(h, b, { method: 'minres', preconditioner: 'jacobi' })).rejects.toBeInstanceOf(ShapeError);
    await expect(rt.solve(h, b, { method: 'gmres', preconditioner: 'ic0' })).rejects.toBeInstanceOf(UnsupportedError);
    h.dispose();
  });

  it('A and b scaled by 1e-310: rt.solve(A, b) answers instead of throwing Jacobi’s ShapeError — since the tenth session (attack10) every method converges, with Jacobi, on the exact copy 2^e·A', async () => {
    // (the ninth session's answer here was 'none' and not converged: its dot products underflowed)
    const A = mapped((v) => v * 1e-310);
    const h = rt.upload(A);
    const b = Float64Array.from({ length: P.rows }, (_, i) => (1 + (i % 3)) * 1e-310);
    for (const method of [undefined, 'cg', 'minres', 'gmres', 'bicgstab'] as const) {
      const r = await rt.solve(h, b, method ? { method } : {});
      expect([method, r.reason, r.preconditioner]).toEqual([method, 'converged', 'jacobi']);
      expect(r.matrixExponent, method).toBeGreaterThan(1000);
      // what it reports is what x satisfies (the exact residual, up to the rounding of its own sums)
      expect(exactRelativeResidual(A, r.x, b), method).toBeLessThanOrEqual(1e-8);
      expect(Math.abs(r.relativeResidual - exactRelativeResidual(A, r.x, b)), method).toBeLessThanOrEqual(1e-12);
    }
    h.dispose();
  });
});
