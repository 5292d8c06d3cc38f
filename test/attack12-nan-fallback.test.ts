/**
 * rt.solve's 'auto' after a candidate ends 'nan' on finite A and b (the twelfth attack pass). A 9×9
 * matrix with empty columns whose ILU(0) shifts a zero pivot to 1e-3 of a 4.7e-232 row: 'auto' (after
 * the factorization found A singular) took GMRES + ILU(0), which ended 'nan' at iteration 2 with x[0] =
 * Infinity, while plain GMRES converges in 1 (attack11-finite-x made that 'converged' answer 'nan'). A
 * preconditioner 'auto' chose whose solve ends 'nan' on finite data is now dropped: the same method runs
 * again without one, `preconditionerDetail` says why, explain('solve') says so. A preconditioner the
 * caller gives is kept ('nan' stays). Checked against a residual computed exactly (test/exact-residual.ts, BigInt).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { fromEntries, wideRangeSystem } from './wide-range-systems.js';
import { exactRelativeResidual } from './exact-residual.js';
import { InputRangeError, SimdglError } from '../src/errors.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ backend: 'cpu', workers: 1 });
});
afterAll(() => rt?.dispose());


const A9 = fromEntries(9, [
  [0, 4, 4.70809986662842e-232],
  [4, 3, -2.0780000667822745e-39],
]);
const b9 = Float64Array.from([0, 0, 0, 1.0903214397903965e-144, 0.9999999999981826, 0, 0, 0, 0]);

describe("attack12: 'auto' drops a preconditioner whose solve ends 'nan' on finite data", () => {
  it('the 9×9 matrix: rt.solve and rt.solve with method gmres converge without ILU(0), x finite, the true residual ≤ tol; explain says the fallback', async () => {
    const h = rt.upload(A9);
    try {
      for (const options of [{}, { method: 'gmres' }, { method: 'bicgstab', preconditioner: 'auto' }] as const) {
        const what = JSON.stringify(options);
        const r = await rt.solve(h, b9, { ...options, tol: 1e-10 });
        expect(r.reason, `${what}: ${r.method} + ${r.preconditioner} (${r.preconditionerDetail})`).toBe('converged');
        expect(r.preconditioner, what).toBe('none');
        expect(r.preconditionerDetail, what).toMatch(/^none \(after ilu0 .* ended \w+ 'nan' at iteration \d+ on finite A and b\)$/);
        expect(r.x.every(Number.isFinite), what).toBe(true);
        expect(exactRelativeResidual(A9, r.x, b9), what).toBeLessThanOrEqual(1e-10);
      }
      expect(rt.explain('solve', h).text).toMatch(/after 'nan' on finite A and b: the same method \+ none/);
      // given by the caller: kept, and its 'nan' reported
      const g = await rt.solve(h, b9, { method: 'gmres', preconditioner: 'ilu0', tol: 1e-10 });
      expect([g.preconditioner, g.reason]).toEqual(['ilu0', 'nan']);
      expect(rt.explain('solve', h, { method: 'gmres', preconditioner: 'ilu0' }).text).not.toMatch(/after 'nan'/);
    } finally {
      h.dispose();
    }
  });

  it("property: on finite A and b, 'auto' ends 'nan' only where its method without a preconditioner does too", { timeout: 120000 }, async () => {
    const system = wideRangeSystem({
      method: fc.constantFrom('auto', 'gmres', 'bicgstab', 'minres', 'cg'),
    });
    let fellBack = 0;
    await fc.assert(
      fc.asyncProperty(system, async ({ n, entries, b, method }) => {
        const A = fromEntries(n, entries);
        const bv = Float64Array.from(b);
        const h = rt.upload(A);
        try {
          let r;
          try {
            r = await rt.solve(h, bv, { method, tol: 1e-10 });
          } catch (e) {
            expect(e instanceof SimdglError || e instanceof InputRangeError, String(e)).toBe(true);
            return;
          }
          if (r.preconditionerDetail.includes("'nan' at iteration")) fellBack++;
          if (r.converged) {
            expect(r.x.every(Number.isFinite)).toBe(true);
            expect(exactRelativeResidual(A, r.x, bv)).toBeLessThanOrEqual(1e-10 * (1 + 1e-6));
          }
          if (r.reason !== 'nan' || r.method === 'direct') return;
          const plain = await rt.solve(h, bv, { method: r.method, preconditioner: 'none', tol: 1e-10 });
          expect(plain.reason, `${method}: ${r.method} + ${r.preconditioner} ended 'nan', ${r.method} + none ${plain.reason}`).toBe('nan');
        } finally {
          h.dispose();
        }
      }),
      { numRuns: Number(process.env.RUNS ?? 1500), seed: Number(process.env.SEED ?? 12), endOnFailure: true },
    );
    expect(fellBack, 'the property reaches the fallback').toBeGreaterThan(0);
  });
});
