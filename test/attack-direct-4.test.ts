/**
 * Fourth adversarial pass over the direct solvers (F.solve, rt.solve 'direct', ordering 'btf', the
 * kept factor in WebAssembly memory): each outcome a typed error or an answer whose reported residual
 * is the true one, computed here exactly (test/exact-residual.ts), at any scale.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { exactRelativeResidual } from './exact-residual.js';
import { mulberry32 } from './random.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ workers: 2, backend: 'cpu' });
});
afterAll(() => rt.dispose());

const A3 = new CSRMatrix(3, 3, 'f64', Int32Array.of(0, 3, 6, 9), Int32Array.of(0, 1, 2, 0, 1, 2, 0, 1, 2), Float64Array.of(4, 1, -2, 2, -3, 1, 1, 2, 5));

describe('b of subnormal or huge size (scaled by a power of two, as the Krylov methods do)', () => {
  // solved in subnormals, b = [3, −2, 1]·5e-321 reported 1.06e-3 for an x whose true residual is 1.18e-3
  it('F.solve reports the returned x’s exact residual, and x is as good as a representable one gets', async () => {
    const F = await rt.factor(A3);
    const b = Float64Array.from([3, -2, 1], (v) => v * 5e-321);
    const s = await F.solve(b);
    const t = exactRelativeResidual(A3, s.x, b);
    expect(Math.abs(s.relativeResidual - t)).toBeLessThanOrEqual(1e-9 * t);
    // the exact x rounded to subnormals: [2.0889e-321, 4.3433e-321, -1.1563e-321]
    const best = await F.solve(Float64Array.from([3, -2, 1]));
    const rounded = best.x.map((v) => v * 5e-321);
    expect(t).toBeLessThanOrEqual(exactRelativeResidual(A3, rounded, b) * 1.0001);
    F.dispose();
  });

  it('rt.solve direct agrees with the exact residual and never calls it converged', async () => {
    const h = rt.upload(A3);
    const b = Float64Array.from([3, -2, 1], (v) => v * 5e-321);
    const s = await rt.solve(h, b, { method: 'direct', tol: 1e-10 });
    const t = exactRelativeResidual(A3, s.x, b);
    expect(s.converged).toBe(false);
    expect(Math.abs(s.relativeResidual - t)).toBeLessThanOrEqual(1e-9 * t);
    h.dispose();
  });

  it('property: any scale 2^-1074..2^1023 of b, real or complex, one or two right-hand sides: the residual reported is exact', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: -1074, max: 1000 }), fc.integer({ min: -1074, max: 1000 }), fc.boolean(), fc.integer({ min: 0, max: 1e6 }), async (s1, s2, complex, seed) => {
        const g = mulberry32(seed);
        const n = 4;
        const rows: number[] = [];
        const cols: number[] = [];
        const vals: number[] = [];
        for (let i = 0; i < n; i++) {
          for (let j = 0; j < n; j++) {
            if (i !== j && g() < 0.5) continue;
            rows.push(i);
            cols.push(j);
            vals.push(i === j ? 4 + g() : g() - 0.5);
            if (complex) vals.push(g() - 0.5);
          }
        }
        const A = CSRMatrix.fromTriplets(n, n, complex ? 'c128' : 'f64', Int32Array.from(rows), Int32Array.from(cols), Float64Array.from(vals));
        const c = complex ? 2 : 1;
        const b = Float64Array.from({ length: 2 * c * n }, (_, i) => (g() - 0.5) * 2 ** (i < c * n ? s1 : s2));
        const F = await rt.factor(A);
        const s = await F.solve(b);
        for (let k = 0; k < 2; k++) {
          const bk = b.subarray(k * c * n, (k + 1) * c * n);
          const xk = s.x.subarray(k * c * n, (k + 1) * c * n);
          if (xk.some((v) => !Number.isFinite(v))) continue;
          const t = exactRelativeResidual(A, xk, bk);
          expect(Math.abs(s.residuals[k] - t), `scale 2^${k ? s2 : s1}: reported ${s.residuals[k]}, exact ${t}`).toBeLessThanOrEqual(1e-6 * t + 1e-15);
        }
        F.dispose();
      }),
      { seed: 4041, numRuns: 150 },
    );
  });
});
