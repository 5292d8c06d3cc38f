/**
 * Fifth adversarial pass, the symmetric band's LDLᵀ in WebAssembly (assembly/lu.ts lu_band_ldlt, taken
 * by an LU of a symmetric band whose pivots all stay on the diagonal, else the band LU): on indefinite,
 * nearly singular and singular bands, real and complex symmetric, each outcome is a SingularMatrixError
 * or an x that is backward stable (‖b − A·x‖∞ ≤ c·n·ε·(‖A‖∞‖x‖∞ + ‖b‖∞)) and agrees with the dense
 * partial-pivoting reference (test/solve-reference.ts) to its condition; a singular band whose
 * elimination meets an exact zero is refused, never answered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { InputRangeError, SingularMatrixError } from '../src/errors.js';
import { denseSolve, matvec, toDense } from './solve-reference.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ workers: 1, backend: 'cpu' });
});
afterAll(() => rt.dispose());

/** A symmetric band of half-width w (values from `v`, by index), complex symmetric when asked. */
function band(n: number, w: number, v: number[], complex: boolean, shift = 0): CSRMatrix {
  const rows: number[] = [];
  const cols: number[] = [];
  const vals: number[] = [];
  let t = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i; j <= Math.min(n - 1, i + w); j++) {
      const re = v[t++ % v.length] + (i === j ? shift : 0);
      const im = complex ? v[(t * 7) % v.length] / 2 : 0;
      for (const [r, c] of i === j ? [[i, j]] : [[i, j], [j, i]]) {
        rows.push(r);
        cols.push(c);
        vals.push(re);
        if (complex) vals.push(im);
      }
    }
  }
  return CSRMatrix.fromTriplets(n, n, complex ? 'c128' : 'f64', Int32Array.from(rows), Int32Array.from(cols), Float64Array.from(vals));
}

const infNorm = (v: ArrayLike<number>) => Array.from(v).reduce((m, x) => Math.max(m, Math.abs(x)), 0);

describe('band LDLᵀ (lu_band_ldlt) against the dense reference', () => {
  it('property: real and complex symmetric bands, indefinite and nearly singular: singular refused or x backward stable and near the reference', async () => {
    let ldlt = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 40 }),
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.oneof(fc.integer({ min: -4, max: 4 }), fc.double({ min: -3, max: 3, noNaN: true }), fc.constantFrom(1e-14, -1e-14, 1e8)), { minLength: 3, maxLength: 60 }),
        // a diagonal shift of either sign keeps more pivots on the diagonal: LDLᵀ runs (indefinite with −)
        fc.constantFrom(0, 9, -9),
        fc.boolean(),
        async (n, w, v, shift, complex) => {
          const A = band(n, w, v, complex, shift);
          const c = complex ? 2 : 1;
          const b = Float64Array.from({ length: c * n }, (_, i) => Math.cos(i + 1));
          let F;
          try {
            F = await rt.factor(A, { kind: 'lu' });
          } catch (e) {
            expect(e).toBeInstanceOf(SingularMatrixError);
            return;
          }
          try {
            if (/LDLᵀ/.test(JSON.stringify(F.info))) ldlt++;
            // a solution past the largest f64 (a pivot near 2^-1022) is the range error (attack5-direct-range)
            const solved = await F.solve(b, { refine: 0 }).catch((e: unknown) => {
              expect(e).toBeInstanceOf(InputRangeError);
              return null;
            });
            if (!solved) return;
            const { x } = solved;
            const r = matvec(A, x).map((y, i) => b[i] - y);
            // ‖A‖∞ with |re| + |im| for complex (an upper bound on the modulus sums)
            const aInf = Math.max(...Array.from({ length: n }, (_, i) => Array.from(A.values.subarray(c * A.rowPtr[i], c * A.rowPtr[i + 1])).reduce((t, y) => t + Math.abs(y), 0)));
            // a growth factor well beyond the band's (LDLᵀ has no pivoting): the bound's constant is generous, not loose
            expect(infNorm(r)).toBeLessThanOrEqual(1e-9 * n * (aInf * infNorm(x) + infNorm(b)));
            const ref = complex ? null : denseSolve(toDense(A).a, b);
            if (ref && ref.every(Number.isFinite) && infNorm(ref) < 1e6) {
              const diff = infNorm(x.map((y, i) => y - ref[i]));
              expect(diff).toBeLessThanOrEqual(1e-6 * Math.max(1, infNorm(ref)));
            }
          } finally {
            F.dispose();
          }
        },
      ),
      { seed: 35, numRuns: 250 },
    );
    // the kernel under test ran in a good share of them (104 of 250 with this seed)
    expect(ldlt).toBeGreaterThan(60);
  });

  it('singular bands (a zero row and column; two equal rows) are refused, real and complex', async () => {
    for (const complex of [false, true]) {
      // diag(2, 0, 2, …) tridiagonal with row/column 1 zero
      const n = 9;
      const rows: number[] = [];
      const cols: number[] = [];
      const vals: number[] = [];
      for (let i = 0; i < n; i++) {
        for (let j = Math.max(0, i - 1); j <= Math.min(n - 1, i + 1); j++) {
          if (i === 1 || j === 1) continue;
          rows.push(i);
          cols.push(j);
          vals.push(i === j ? 2 : -1);
          if (complex) vals.push(i === j ? 0.5 : 0.25);
        }
      }
      const Z = CSRMatrix.fromTriplets(n, n, complex ? 'c128' : 'f64', Int32Array.from(rows), Int32Array.from(cols), Float64Array.from(vals));
      await expect(rt.factor(Z, { kind: 'lu' })).rejects.toBeInstanceOf(SingularMatrixError);
      // [[1, 1], [1, 1]] blocks along the diagonal: LDLᵀ's second pivot is exactly 0
      const tri = [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5];
      const E = CSRMatrix.fromTriplets(6, 6, complex ? 'c128' : 'f64', Int32Array.from(tri, (_, k) => tri[k]), Int32Array.from(tri, (_, k) => 2 * (tri[k] >> 1) + (k & 1)), new Float64Array(tri.length * (complex ? 2 : 1)).map((_, k) => (complex && k % 2 ? 0.5 : 1)));
      await expect(rt.factor(E, { kind: 'lu' })).rejects.toBeInstanceOf(SingularMatrixError);
    }
  });
});
