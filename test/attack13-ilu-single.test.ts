/**
 * Thirteenth attack pass: ILU(0) and IC(0) of an f32 or c64 matrix are computed in f64 and applied in
 * f32 (the inner solves of the refinement). A factor past f32's range — ILU(0) of [[1e-20, 1e20],
 * [1e20, 1]] has the pivot −1e40 — passed the setup, and rt.solve threw ShapeError 'triangular solve:
 * the diagonal entry T[1,1] is not finite', naming neither the preconditioner nor a way out. Such a
 * factor is now a breakdown of that shift (a larger one is tried), and where every shift fails the
 * preconditioner's own refusal ("ilu0: the factorization breaks down …; use 'jacobi'"). As a property
 * over wide-range f32 and c64 systems: no refusal names the internal triangular solve, and an answer
 * said 'converged' meets tol in exact arithmetic (test/exact-residual.ts) for the matrix as stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { fromEntries, wideRangeSystem } from './wide-range-systems.js';
import { exactRelativeResidual } from './exact-residual.js';
import { InputRangeError, SimdglError, UnsupportedError } from '../src/errors.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ backend: 'cpu', workers: 1 });
});
afterAll(() => rt?.dispose());

/** A as an f32 (c64: imaginary parts im) matrix, and the values it holds then, in f64 */
function single(A: CSRMatrix, complex: boolean, im = 0.5): [CSRMatrix, CSRMatrix] {
  const v = complex ? Float64Array.from({ length: 2 * A.nnz }, (_, k) => (k % 2 ? im * A.values[(k - 1) / 2] : A.values[k / 2])) : A.values;
  const dtype = complex ? 'c64' : 'f32';
  const stored = new CSRMatrix(A.rows, A.cols, complex ? 'c128' : 'f64', A.rowPtr, A.colIdx, Float64Array.from(Float32Array.from(v)));
  return [new CSRMatrix(A.rows, A.cols, dtype, A.rowPtr, A.colIdx, Float32Array.from(v)), stored];
}

describe('attack13: ILU(0) and IC(0) of a single-precision matrix', () => {
  it("[[1e-20, 1e20], [1e20, 1]] and [[1, 1e30], [1e30, 1]] in f32 and c64: ILU(0)'s own refusal, not the triangular solve's", async () => {
    for (const [a, o] of [[1e-20, 1e20], [1, 1e30]]) {
      for (const complex of [false, true]) {
        const [A] = single(fromEntries(2, [[0, 0, a], [0, 1, o], [1, 0, o], [1, 1, 1]]), complex);
        const h = rt.upload(A);
        const b = new Float64Array(complex ? 4 : 2).fill(1);
        const err = await rt.solve(h, b, { method: 'gmres', preconditioner: 'ilu0' }).then(() => null, (e: unknown) => e);
        expect(err).toBeInstanceOf(UnsupportedError);
        expect(String((err as Error).message)).toMatch(/^ilu0: the factorization breaks down even with the diagonal shifted .*outside (f32|c64)'s range/);
        h.dispose();
      }
    }
  });

  it('property: wide-range f32 and c64 systems with ILU(0) or IC(0): refusals name the preconditioner, converged answers meet tol exactly', { timeout: 120000 }, async () => {
    let converged = 0;
    await fc.assert(
      fc.asyncProperty(
        wideRangeSystem({ complex: fc.boolean(), preconditioner: fc.constantFrom('ilu0', 'ic0'), method: fc.constantFrom('gmres', 'bicgstab', 'cg'), tol: fc.constantFrom(1e-6, 1e-10) }),
        async ({ n, entries, b, complex, preconditioner, method, tol }) => {
          const [A, stored] = single(fromEntries(n, entries), complex);
          const bb = Float64Array.from({ length: (complex ? 2 : 1) * n }, (_, k) => (complex ? (k % 2 ? 0 : b[k / 2]) : b[k]));
          const h = rt.upload(A);
          try {
            const r = await rt.solve(h, bb, { method, preconditioner, tol });
            if (!r.converged) return;
            converged++;
            expect(exactRelativeResidual(stored, r.x, bb), `${A.dtype} ${method} + ${preconditioner}: 'converged' at ${r.relativeResidual}`).toBeLessThanOrEqual(tol * (1 + 1e-6));
          } catch (e) {
            expect(e instanceof SimdglError || e instanceof InputRangeError, String(e)).toBe(true);
            expect(String((e as Error).message)).not.toMatch(/triangular solve/);
          } finally {
            h.dispose();
          }
        },
      ),
      { numRuns: Number(process.env.RUNS ?? 800), seed: Number(process.env.SEED ?? 13), endOnFailure: true },
    );
    expect(converged, 'runs that converged').toBeGreaterThan(10);
  });
});
