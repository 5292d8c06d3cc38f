/**
 * Thirteenth attack pass: the residual a solve reports where it missed tol. 'converged' was certified
 * (attack12), but an answer that ended 'breakdown', 'maxIter' or 'stagnated' reported ‖b − A·x‖/‖b‖ as
 * computed in f64, which for A and x spanning many orders of magnitude is rounding: GMRES on a 7×7
 * system (entries 1e-258 … 1e30) ended 'breakdown' reporting 1 for an answer whose exact relative
 * residual is 6.4e32 (the rows' products of 6.6e-6 cancel), and rt.solve 'auto' on a complex 3×3
 * system with tol 1e-300 reported 9.8e-41 for an exact 3.6e10 — a caller reading "how right" saw an
 * excellent answer. Checked against the exact residual of test/exact-residual.ts (BigInt), and as a
 * property over the wide-range systems of the earlier passes, real and complex.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { fromEntries, wideRangeSystem } from './wide-range-systems.js';
import { exactRelativeResidual } from './exact-residual.js';
import { InputRangeError, SimdglError } from '../src/errors.js';
import type { SolveOutcome } from '../src/runtime/options.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ backend: 'cpu', workers: 1 });
});
afterAll(() => rt?.dispose());

/** A with imaginary parts im[k mod im.length] (c128) */
function complexified(A: CSRMatrix, im: number[]): CSRMatrix {
  const v = new Float64Array(2 * A.nnz);
  for (let k = 0; k < A.nnz; k++) [v[2 * k], v[2 * k + 1]] = [A.values[k], im[k % im.length]];
  return new CSRMatrix(A.rows, A.cols, 'c128', A.rowPtr, A.colIdx, v);
}

/** rt.solve's outcome, or null where it refused A (a preconditioner's setup, an x past f64: typed) */
async function solved(A: CSRMatrix, b: Float64Array, options: Parameters<Runtime['solve']>[2]): Promise<SolveOutcome | null> {
  const h = rt.upload(A);
  try {
    return await rt.solve(h, b, options);
  } catch (e) {
    expect(e instanceof SimdglError || e instanceof InputRangeError, String(e)).toBe(true);
    return null;
  } finally {
    h.dispose();
  }
}

/**
 * The reported relative residual is the exact one's to 2^-9 (finite x; a missed tol), and to what f64
 * can hold of ‖r‖ and ‖b‖ in subnormals (each component within 2^-1074 of its value)
 */
function expectMeasured(A: CSRMatrix, b: Float64Array, r: SolveOutcome, what: string): void {
  const exact = exactRelativeResidual(A, r.x, b);
  const bnorm = Math.hypot(...b);
  const subnormal = (2 * Math.sqrt(b.length) * 2 ** -1074) / (bnorm > 0 ? bnorm : 1);
  const allowed = exact * (2 ** -9 + (bnorm > 0 ? subnormal : 0)) + subnormal;
  expect(Math.abs(r.relativeResidual - exact), `${what}: ${r.reason} after ${r.method} + ${r.preconditioner}, reported ${r.relativeResidual}, exact ${exact}`).toBeLessThanOrEqual(allowed);
}

describe('attack13: the residual reported where tol was missed is the answer’s', () => {
  it('GMRES breakdown on a 7×7 system spanning 1e-258 … 1e30: 6.4e32, not 1', async () => {
    const A = fromEntries(7, [
      [5, 5, -1.8810387963124788e-258], [1, 5, -3.075625456190632e-150], [5, 4, -8.358210979098788e-263], [0, 0, 1e30],
      [6, 3, -0.0000011089540422447811], [5, 4, 0], [5, 3, 7.546191699424337e-240], [3, 3, -2.374449473280933e-21], [1, 1, 1.6671301540098483e-62],
    ]);
    const b = Float64Array.of(0, 0, 5e-324, 5e-324, -5.1431167076486736e-55, 4.040186418436651e-114, -2.6191546480251588e-284);
    for (const preconditioner of ['auto', 'none'] as const) {
      const r = (await solved(A, b, { method: 'gmres', preconditioner, tol: 1e-8 }))!;
      expect(r.converged).toBe(false);
      expectMeasured(A, b, r, `gmres + ${preconditioner}`);
    }
  });

  it("rt.solve 'auto' on a complex 3×3 system at tol 1e-300: 3.6e10, not 9.8e-41", async () => {
    const A = complexified(fromEntries(3, [[1, 1, -2.734344802818407e-69], [1, 2, 8.673617379884035e-19], [0, 1, -1.8702135179089534e-214], [2, 2, 1.0694415362737658e-45]]), [-2.6179755714342305e-230, 2.677264131649409e-109]);
    const b = Float64Array.of(-3.7311952149021603e-203, 0, 1.9450697694473806e-181, 1.9450697694473806e-181 / 3, -1.485239355191234e-116, 0);
    const x0 = Float64Array.of(1e-310, -1e-310, 9.99999999999998, -9.99999999999998, 4.351216741350304e-92, -4.351216741350304e-92);
    const r = (await solved(A, b, { tol: 1e-300, x0 }))!;
    expect(r.converged).toBe(false);
    expectMeasured(A, b, r, 'auto');
  });

  it('property: wide-range systems, real and complex, every method, with and without x0', { timeout: 120000 }, async () => {
    let measured = 0;
    await fc.assert(
      fc.asyncProperty(
        wideRangeSystem({
          complex: fc.boolean(),
          im: fc.array(fc.double({ min: -5, max: 5, noNaN: true }), { minLength: 1, maxLength: 3 }),
          x0: fc.option(fc.array(fc.double({ min: -10, max: 10, noNaN: true }), { minLength: 10, maxLength: 10 })),
          method: fc.constantFrom('auto', 'cg', 'bicgstab', 'gmres', 'minres'),
          preconditioner: fc.constantFrom('auto', 'none', 'jacobi', 'ilu0'),
          tol: fc.constantFrom(0, 1e-300, 1e-12, 1e-8),
        }),
        async ({ n, entries, b, complex, im, x0, method, preconditioner, tol }) => {
          const A = complex ? complexified(fromEntries(n, entries), im) : fromEntries(n, entries);
          const c = complex ? 2 : 1;
          const bb = Float64Array.from({ length: c * n }, (_, k) => (k % c === 0 ? b[k / c] : b[(k - 1) / c] / 3));
          const start = x0 ? Float64Array.from({ length: c * n }, (_, k) => x0[k % 10]) : undefined;
          const r = await solved(A, bb, { method, preconditioner, tol, ...(start ? { x0: start } : {}) });
          if (!r || r.converged || !r.x.every(Number.isFinite) || !Number.isFinite(r.relativeResidual)) return;
          measured++;
          expectMeasured(A, bb, r, `${A.dtype} ${method} + ${preconditioner}, tol ${tol}`);
        },
      ),
      { numRuns: Number(process.env.RUNS ?? 600), seed: Number(process.env.SEED ?? 13), endOnFailure: true },
    );
    expect(measured, 'answers that missed tol').toBeGreaterThan(100);
  });
});
