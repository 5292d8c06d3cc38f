/**
 * Ninth adversarial pass, rt.solve 'auto' on a numerically singular matrix at the bottom of f64's range:
 * a singular A scaled by 1e-300 factorizes with a rounding-level pivot (≈ 1e-316, not the exact 0 the
 * same matrix gives at scale 1), so the factor's x is ±Inf and F.solve's InputRangeError ended the
 * solve — where docs/solvers.md promises that a singular factor, or one whose residual misses tol,
 * moves 'auto' to the Krylov candidates (as the same matrix at 1e-200 or 1e200 does). Method 'direct'
 * keeps the error; a solution past f64 for a nonsingular A stays an InputRangeError from both (the
 * Krylov candidates' own range error; test/attack5-direct-range).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { InputRangeError, SingularMatrixError } from '../src/errors.js';
import { exactRelativeResidual } from './exact-residual.js';
import { mulberry32 } from './random.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ workers: 1, backend: 'cpu' });
});
afterAll(() => rt.dispose());

/** A dense n×n real matrix as CSR (zeros left out). */
function denseCsr(rows: number[][]): CSRMatrix {
  const n = rows.length;
  const rp = new Int32Array(n + 1);
  const ci: number[] = [];
  const v: number[] = [];
  rows.forEach((row, i) => {
    row.forEach((a, j) => {
      if (a !== 0) ci.push(j), v.push(a);
    });
    rp[i + 1] = ci.length;
  });
  return new CSRMatrix(n, n, 'f64', rp, Int32Array.from(ci), Float64Array.from(v));
}

const times = (M: number[][], x: number[]) => M.map((row) => row.reduce((s, a, j) => s + a * x[j], 0));

describe('a singular A of tiny scale (consistent b)', () => {
  // row 2 = row 0 + row 1, b = A·[1, 1, 1]: consistent, infinitely many solutions
  const M = [
    [2, 1, 0],
    [1, 3, 1],
    [3, 4, 1],
  ];

  it("'auto' answers from the Krylov candidates at every scale, the reported residual the exact one (InputRangeError at 1e-300 before)", async () => {
    for (const scale of [1, 1e-100, 1e-200, 1e-300, 1e-305, 1e200]) {
      const A = denseCsr(M.map((r) => r.map((a) => a * scale)));
      const b = Float64Array.from(times(M, [1, 1, 1]), (t) => t * scale);
      const h = rt.upload(A);
      const r = await rt.solve(h, b);
      expect(r.x.every(Number.isFinite), `scale ${scale}`).toBe(true);
      const exact = exactRelativeResidual(A, r.x, b);
      expect(r.converged, `scale ${scale}: ${r.method} ${r.reason} ${r.directFallback}`).toBe(true);
      expect(exact, `scale ${scale}`).toBeLessThanOrEqual(1e-8);
      h.dispose();
    }
  });

  it("method 'direct' still refuses it: SingularMatrixError or the range error naming x", async () => {
    for (const scale of [1, 1e-300]) {
      const h = rt.upload(denseCsr(M.map((r) => r.map((a) => a * scale))));
      const b = Float64Array.from(times(M, [1, 1, 1]), (t) => t * scale);
      await expect(rt.solve(h, b, { method: 'direct' })).rejects.toSatisfy((e: unknown) => e instanceof SingularMatrixError || (e instanceof InputRangeError && /x\[\d+\] is -?Infinity/.test((e as Error).message)));
      h.dispose();
    }
  });

  it("property: small singular consistent systems (a row the sum of two others) at scales 2^-1000..2^-990: 'auto' never throws, and what it reports is the exact residual's verdict", async () => {
    let ranged = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 3, max: 7 }), fc.integer({ min: 990, max: 1000 }), fc.integer({ min: 0, max: 1e6 }), async (n, e, seed) => {
        const g = mulberry32(seed);
        const M = Array.from({ length: n }, () => Array.from({ length: n }, () => (g() < 0.7 ? Math.round(g() * 16 - 8) : 0)));
        M[n - 1] = M[0].map((a, j) => a + M[1][j]);
        const s = 2 ** -e;
        const A = denseCsr(M.map((r) => r.map((a) => a * s)));
        fc.pre(A.rowPtr.every((p, i) => i === 0 || p > A.rowPtr[i - 1]));
        const xTrue = Array.from({ length: n }, () => Math.round(g() * 4) - 2 || 1);
        const b = Float64Array.from(times(M, xTrue), (t) => t * s);
        fc.pre(b.some((t) => t !== 0));
        const h = rt.upload(A);
        try {
          // would the factor's answer leave f64 (the case this file is about)?
          try {
            await rt.solve(h, b, { method: 'direct' });
          } catch (err) {
            if (err instanceof InputRangeError) ranged++;
          }
          const r = await rt.solve(h, b, { maxIter: 200 });
          expect(r.x.every(Number.isFinite)).toBe(true);
          const exact = exactRelativeResidual(A, r.x, b);
          if (r.converged) expect(exact).toBeLessThanOrEqual(1e-8 * (1 + 1e-6));
          else expect(exact).toBeGreaterThan(1e-8 * (1 - 1e-6));
        } finally {
          h.dispose();
        }
      }),
      { seed: 9, numRuns: 120 },
    );
    // the property reached the case: some factor's x left f64
    expect(ranged).toBeGreaterThan(0);
  });
});
