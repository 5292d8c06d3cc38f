/**
 * Fifth adversarial pass, the Krylov methods (rt.cg, gmres, bicgstab, minres: solveWithTrueResidual)
 * at the top of the f64 range: b whose ‖b‖₂ itself overflows (entries near 2^1023) is scaled by a power
 * of two like any b beyond 2^±16 (every method ended 'nan' at iteration 0: the exponent came from
 * ‖b‖₂ = Inf, so none), f64 and f32 storage; a solution scaled back past the largest f64 is an
 * InputRangeError naming the entry, as F.solve's (it ended 'stagnated' with x = ±Inf, residual NaN).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { poisson2D } from '../src/generators/poisson.js';
import { InputRangeError } from '../src/errors.js';
import { exactRelativeResidual } from './exact-residual.js';

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
});
