/**
 * Fifth adversarial pass, the Krylov methods (rt.cg, gmres, bicgstab, minres: solveWithTrueResidual)
 * at the top of the f64 range: b whose ‖b‖₂ itself overflows (entries near 2^1023) is scaled by a power
 * of two like any b beyond 2^±16 (every method ended 'nan' at iteration 0: the exponent came from
 * ‖b‖₂ = Inf, so none), f64 and f32 storage; a solution scaled back past the largest f64 is an
 * InputRangeError naming the entry, as F.solve's (it ended 'stagnated' with x = ±Inf, residual NaN).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { poisson2D } from '../src/generators/poisson.js';
import { InputRangeError } from '../src/errors.js';
import { exactRelativeResidual } from './exact-residual.js';
import { mulberry32 } from './random.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ workers: 1, backend: 'cpu' });
});
afterAll(() => rt.dispose());

const METHODS = ['cg', 'gmres', 'bicgstab', 'minres'] as const;

describe('Krylov solves near the largest f64', () => {
  const A = poisson2D(6);
  const shape = Float64Array.from({ length: A.rows }, (_, i) => (i % 3 === 0 ? 1 : -0.5 + i / 64));

  for (const dtype of ['f64', 'f32'] as const) {
    it(`‖b‖₂ past 2^1024 (b = 2^1023·shape), ${dtype}: converged, the reported residual the exact one, x the scaled system's scaled back`, async () => {
      const h = rt.upload(A, { dtype });
      for (const m of METHODS) {
        const b = shape.map((v) => v * 2 ** 1023);
        const s = await rt[m](h, b, { tol: 1e-10 });
        expect([m, s.reason], m).toEqual([m, 'converged']);
        const t = exactRelativeResidual(A, s.x, b);
        expect(t).toBeLessThanOrEqual(1e-10);
        expect(Math.abs(s.relativeResidual - t)).toBeLessThanOrEqual(1e-6 * t);
        // the same solve at scale 1 (the method scales both to ‖b‖ ≈ 1 by powers of two)
        const one = await rt[m](h, shape, { tol: 1e-10 });
        expect(Array.from(s.x)).toEqual(Array.from(one.x, (v) => v * 2 ** 1023));
      }
      h.dispose();
    });
  }

  it('a solution past the largest f64 (diag(1, 0.25)·x = [1, 1e308]): InputRangeError naming x[1], every method and rt.solve', async () => {
    const D = new CSRMatrix(2, 2, 'f64', Int32Array.of(0, 1, 2), Int32Array.of(0, 1), Float64Array.of(1, 0.25));
    for (const dtype of ['f64', 'f32'] as const) {
      const h = rt.upload(D, { dtype });
      const b = Float64Array.of(1, 1e308);
      for (const m of METHODS) await expect(rt[m](h, b, { tol: 1e-10 }), `${m} ${dtype}`).rejects.toSatisfy((e: unknown) => e instanceof InputRangeError && e.message.includes('x[1] is Infinity'));
      await expect(rt.solve(h, b, { method: 'cg' })).rejects.toBeInstanceOf(InputRangeError);
      // x just inside the range: answered
      const s = await rt.cg(h, Float64Array.of(1, 4e307), { tol: 1e-10 });
      expect(s.reason).toBe('converged');
      expect(Math.abs(s.x[1] / 1.6e308 - 1)).toBeLessThan(1e-9);
      h.dispose();
    }
  });

  it('property: A·2^sa, b·2^sb over the whole range, each method and rt.solve, f64/f32: a range error only where |x| ≈ 2^(sb−sa) passes 2^1015, else x finite, the reported residual the exact one, converged only at tol', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: -1000, max: 1000 }),
        fc.integer({ min: -1074, max: 1023 }),
        fc.constantFrom(...METHODS, 'solve' as const),
        fc.constantFrom('f64' as const, 'f32' as const),
        fc.integer({ min: 0, max: 1e6 }),
        fc.constantFrom(1e-6, 1e-10),
        async (sa, sb, m, dtype, seed, tol) => {
          // a symmetric diagonally dominant tridiagonal (every method's premise), 4–23 rows
          const g = mulberry32(seed);
          const n = 4 + (seed % 20);
          const [r, c, v]: number[][] = [[], [], []];
          for (let i = 0; i < n; i++) {
            r.push(i), c.push(i), v.push((3 + g()) * 2 ** sa);
            if (i + 1 < n) {
              const w = (g() - 0.5) * 2 ** sa;
              r.push(i, i + 1), c.push(i + 1, i), v.push(w, w);
            }
          }
          const A = CSRMatrix.fromTriplets(n, n, 'f64', Int32Array.from(r), Int32Array.from(c), Float64Array.from(v));
          // f32 storage holds A exactly where its values are normal f32
          fc.pre(dtype === 'f64' || A.values.every((x) => Math.abs(x) < 3e38 && Math.abs(x) > 1.2e-38));
          const b = Float64Array.from({ length: n }, () => (g() - 0.5) * 2 ** sb);
          const h = rt.upload(A, { dtype });
          try {
            const s = await rt[m](h, b, { tol }).catch((e: unknown) => {
              expect(e).toBeInstanceOf(InputRangeError);
              expect(sb - sa).toBeGreaterThan(1015);
              return null;
            });
            if (!s) return;
            expect(s.x.every(Number.isFinite)).toBe(true);
            // the system solved: A's values as stored (rounded to f32 for f32)
            const stored = dtype === 'f64' ? A : new CSRMatrix(n, n, 'f64', A.rowPtr, A.colIdx, Float64Array.from(Float32Array.from(A.values)));
            const t = exactRelativeResidual(stored, s.x, b);
            if (s.reason === 'converged') expect(t).toBeLessThanOrEqual(tol * (1 + 1e-6));
            expect(Math.abs(s.relativeResidual - t)).toBeLessThanOrEqual(1e-3 * t + 1e-15);
          } finally {
            h.dispose();
          }
        },
      ),
      { seed: 77, numRuns: 600 },
    );
  });
});
