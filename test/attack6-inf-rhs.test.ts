/**
 * Sixth adversarial pass, ±Inf in b: a papercut said CG ended 'breakdown' where the other methods said
 * something else. Not reproduced at fc918ac (CPU and WebGPU, checkEvery 1 and 8, every preconditioner):
 * every Krylov method, called directly or through rt.solve, host or resident b, f64 or f32, ends 'nan'
 * at iteration 0 with x = 0, as NaN in b does (docs/errors.md, "Solvers that cannot go on"). Pinned here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { poisson2D } from '../src/generators/poisson.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ workers: 2, backend: 'cpu' });
});
afterAll(() => rt.dispose());

describe('±Inf or NaN in b', () => {
  for (const dtype of ['f64', 'f32'] as const) {
    it(`${dtype}: every method and preconditioner ends 'nan' at iteration 0 with x = 0`, async () => {
      const A = rt.upload(poisson2D(6, { dtype }));
      for (const v of [Infinity, -Infinity, NaN]) {
        const b = new Float64Array(36).fill(1);
        b[7] = v;
        const data = dtype === 'f32' ? Float32Array.from(b) : b;
        for (const method of ['cg', 'bicgstab', 'gmres', 'minres'] as const) {
          for (const preconditioner of ['none', 'jacobi', 'ic0', 'amg'] as const) {
            for (const bv of [data, rt.vector(data)]) {
              const what = `${v} ${method} ${preconditioner}`;
              const direct = await rt[method](A, bv, { preconditioner });
              const auto = await rt.solve(A, bv, { method, preconditioner });
              for (const r of [direct, auto]) {
                expect([r.reason, r.iterations], what).toEqual(['nan', 0]);
                expect(r.x.every((e) => e === 0), what).toBe(true);
              }
            }
          }
        }
      }
    });
  }
});
