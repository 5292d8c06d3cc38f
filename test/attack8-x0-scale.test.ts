/**
 * Attack pass 8: x0 with a right-hand side far from 1. The Krylov methods scale b (and x0 with it) by
 * a power of two to a norm near 1; an x0 some 2^1024 times b's scale (x0 ≈ 1e10 for b ≈ 1e-300, or
 * x0 ≈ 1 for b ≈ 1e-310) was scaled to ±Inf, and every method ended 'nan' — a reason the docs give for
 * NaN in A or b — on finite data whose solution is representable. Such an x0 is no start (its residual
 * alone is ≈ 2^1024·‖b‖): the solve starts from 0 and converges. Checked on the CPU and WebGPU paths
 * against a plain f64 residual written here (scaled: b's entries are near 1e-300).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import type { CSRMatrix } from '../src/formats/csr.js';
import { scaledRelativeResidual } from './scaled-residual.js';
import { poisson2D } from '../src/generators/poisson.js';
import { pointDawnAtSwiftShader } from './webgpu-helpers.js';

pointDawnAtSwiftShader();
let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ backend: 'webgpu', workers: 2 });
});
afterAll(() => rt?.dispose());

describe('x0 far beyond the scale of b', () => {
  const A = poisson2D(10);
  const n = A.rows;
  const b = Float64Array.from({ length: n }, (_, i) => (Math.sin(i + 1) + 0.2) * 1e-300);
  const x0 = Float64Array.from({ length: n }, (_, i) => Math.cos(i) * 1e10);
  const tol = 1e-9;

  for (const [path, methods] of [
    ['cpu', ['auto', 'cg', 'bicgstab', 'gmres', 'minres']],
    ['webgpu', ['auto', 'cg', 'bicgstab']],
  ] as const) {
    it(`${path}: ${methods.join(', ')} from x0 ≈ 1e10 for b ≈ 1e-300 converge, as from 0 (were 'nan')`, async () => {
      const h = rt.upload(A);
      const x0Copy = x0.slice();
      for (const method of methods) {
        for (const preconditioner of ['none', 'jacobi'] as const) {
          const what = `${path} ${method} ${preconditioner}`;
          const r = await rt.solve(h, b, { method, preconditioner, path, tol, x0 });
          expect([r.reason, r.converged], what).toEqual(['converged', true]);
          expect(r.x.every(Number.isFinite), what).toBe(true);
          expect(scaledRelativeResidual(A, r.x, b), what).toBeLessThanOrEqual(tol);
          expect(Math.abs(r.relativeResidual - scaledRelativeResidual(A, r.x, b)), what).toBeLessThanOrEqual(tol);
        }
      }
      // x0 is not written
      expect(Array.from(x0)).toEqual(Array.from(x0Copy));
      h.dispose();
    });
  }

  it('an x0 in range of b still starts the solve (fewer iterations from the answer itself)', async () => {
    const h = rt.upload(A);
    const first = await rt.solve(h, b, { method: 'cg', preconditioner: 'none', path: 'cpu', tol });
    const again = await rt.solve(h, b, { method: 'cg', preconditioner: 'none', path: 'cpu', tol, x0: first.x });
    expect(again.converged).toBe(true);
    expect(again.iterations).toBeLessThan(first.iterations);
    h.dispose();
  });
});
