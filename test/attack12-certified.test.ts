/**
 * A Krylov answer said 'converged' meets tol in exact arithmetic (the twelfth attack pass). Above tol
 * 2^-40 the driver trusted ‖b − A·x‖ computed in f64; where A and x span many orders of magnitude that is
 * rounding: A = [[-2.5e-200, 0, 2.3e-8], [0, 2.2e-276, 0], [-5e-285, 0, 0]], b = [0, -9.2e-250, 2e-125]
 * (x ≈ [-4e159, -4e26, -4e-33]) — rt.solve's 'auto' (GMRES + ILU(0), after its factorization's honest
 * 'stagnated' at 7.9e67) and plain GMRES said 'converged' at 1.3e-16 for a true relative residual of
 * 7e68 (row 0: 1e-40 − 1e-40, whose rounding 1e-56 is 1e69 times ‖b‖). Then the certificate itself
 * (accurateResidualNorm) fell back to the plain row for an x past 2^996, whose split overflows: x ≈
 * 1e293 'converged' at 1.2e-16 for a true 3.8e98. Checked against the exact residual of
 * test/exact-residual.ts (BigInt), every method and preconditioner, and as a property.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import type { CSRMatrix } from '../src/formats/csr.js';
import { fromEntries } from './wide-range-systems.js';
import { exactRelativeResidual } from './exact-residual.js';
import { InputRangeError, SimdglError } from '../src/errors.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ backend: 'cpu', workers: 1 });
});
afterAll(() => rt?.dispose());


const METHODS = ['auto', 'cg', 'bicgstab', 'gmres', 'minres'] as const;
const PRECONDITIONERS = ['auto', 'none', 'jacobi', 'ssor', 'ilu0', 'ic0'] as const;

async function expectHonest(A: CSRMatrix, b: Float64Array, method: (typeof METHODS)[number], preconditioner: (typeof PRECONDITIONERS)[number], tol: number): Promise<boolean> {
  let r;
  const h = rt.upload(A);
  try {
    r = await rt.solve(h, b, { method, preconditioner, tol });
  } catch (e) {
    // a preconditioner A refuses, an x past f64: typed
    expect(e instanceof SimdglError || e instanceof InputRangeError, String(e)).toBe(true);
    return false;
  } finally {
    h.dispose();
  }
  if (!r.converged) return false;
  const what = `${method} + ${preconditioner} (ran ${r.method} + ${r.preconditioner}): 'converged' at ${r.relativeResidual}`;
  expect(r.x.every(Number.isFinite), what).toBe(true);
  expect(exactRelativeResidual(A, r.x, b), what).toBeLessThanOrEqual(tol * (1 + 1e-6));
  return true;
}

describe("attack12: 'converged' is exact arithmetic's verdict", () => {
  it('the 3×3 matrix spanning 1e-285 … 2e-8: no method or preconditioner says converged', async () => {
    const A = fromEntries(3, [
      [2, 0, -4.976016711127371e-285],
      [0, 2, 2.3173525376122896e-8],
      [1, 1, 2.2146575025655632e-276],
      [0, 0, -2.4624657486944748e-200],
    ]);
    const b = Float64Array.from([0, -9.205807712200602e-250, 2.0234142326276487e-125]);
    for (const method of METHODS) for (const preconditioner of PRECONDITIONERS) await expectHonest(A, b, method, preconditioner, 1e-10);
  });

  it("x ≈ 1e293 and 1e273 (the certificate's own products past 2^996 fell back to the plain row): no method says converged with ILU(0)", async () => {
    const cases: [CSRMatrix, Float64Array, number][] = [
      [fromEntries(2, [[1, 1, 5.7658e-36], [1, 0, -6.97292998105535e-189], [0, 0, -1.9768203019556534e-303]]), Float64Array.of(2.0932137116608122e-10, -4.4e-323), 1e-10],
      [fromEntries(2, [[0, 0, -9.142670506259137e-289], [1, 1, -1e-232], [0, 1, -2.5039638186292613e234], [1, 0, -6.897476058385529e-308]]), Float64Array.of(5.223338269160915e-111, 5.9866981374819795e-34), 1e-6],
    ];
    for (const [A, b, tol] of cases) for (const method of METHODS) await expectHonest(A, b, method, 'ilu0', tol);
  });

  it('property: random sparse systems with entries 1e-300 … 1e300, every method and preconditioner, tol 1e-6 … 1e-12', { timeout: 180000 }, async () => {
    const value = fc.oneof(
      { weight: 4, arbitrary: fc.double({ min: -10, max: 10, noNaN: true }) },
      { weight: 2, arbitrary: fc.double({ min: -1e300, max: 1e300, noNaN: true }) },
      { weight: 1, arbitrary: fc.constantFrom(1e-300, -1e-232, 2 ** -600, 2 ** 600, 1e300, 0) },
    );
    const system = fc.integer({ min: 1, max: 8 }).chain((n) =>
      fc.record({
        n: fc.constant(n),
        entries: fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1), value), { minLength: n, maxLength: 3 * n }),
        b: fc.array(fc.oneof({ weight: 4, arbitrary: fc.double({ min: -1, max: 1, noNaN: true }) }, { weight: 2, arbitrary: fc.double({ min: -1e200, max: 1e200, noNaN: true }) }, { weight: 1, arbitrary: fc.constantFrom(0, 1e-144, 1e100) }), { minLength: n, maxLength: n }),
        method: fc.constantFrom(...METHODS),
        preconditioner: fc.constantFrom(...PRECONDITIONERS),
        tol: fc.constantFrom(1e-6, 1e-8, 1e-10, 1e-12),
      }),
    );
    let converged = 0;
    await fc.assert(
      fc.asyncProperty(system, async ({ n, entries, b, method, preconditioner, tol }) => {
        if (await expectHonest(fromEntries(n, entries), Float64Array.from(b), method, preconditioner, tol)) converged++;
      }),
      { numRuns: Number(process.env.RUNS ?? 1500), seed: Number(process.env.SEED ?? 12), endOnFailure: true },
    );
    expect(converged, 'runs that converged').toBeGreaterThan(100);
  });
});
