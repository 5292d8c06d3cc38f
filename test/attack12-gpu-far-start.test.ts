/**
 * An x0 past f32's range on the WebGPU path (the twelfth attack pass): the far-start rule (5b574e6, an x0
 * whose residual passes ‖b‖ by 2^52 is no start) held on the CPU path, but on WebGPU such an x0 never
 * reached it — poisson2D(8), b ≈ 1, x0 ≈ 1e40 … 1e300: rt.solve and rt.cg threw WebGpuLimitError "the value
 * 1e+40 is outside the f32 range, so double-single cannot hold it on the GPU" (naming no argument), f64
 * and f32 storage alike, where the CPU path converges from 0. An x0 the path cannot hold is now no start
 * either. Dawn + SwiftShader; checked against the exact residual (test/exact-residual.ts) and the solve
 * without x0.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { poisson2D } from '../src/generators/poisson.js';
import { exactRelativeResidual } from './exact-residual.js';
import { pointDawnAtSwiftShader } from './webgpu-helpers.js';

pointDawnAtSwiftShader();
let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ backend: 'webgpu', workers: 1 });
});
afterAll(() => rt?.dispose());

describe('attack12: an x0 the WebGPU path cannot hold is no start', () => {
  it('f64 and f32 storage, x0 ≈ 1e40, 1e300 (one entry, or all): rt.solve cg / bicgstab / minres and rt.cg converge as from 0', { timeout: 300000 }, async () => {
    const P = poisson2D(8);
    const n = P.rows;
    const b = Float64Array.from({ length: n }, (_, i) => Math.sin(i + 1));
    for (const dtype of ['f64', 'f32'] as const) {
      const h = rt.upload(P, { dtype });
      try {
        const calls = [
          ...(['cg', 'bicgstab', 'minres'] as const).map((m) => [`rt.solve ${m}`, (x0?: Float64Array) => rt.solve(h, b, { method: m, preconditioner: 'none', x0, tol: 1e-8, path: 'webgpu' })] as const),
          ['rt.cg', (x0?: Float64Array) => rt.cg(h, b, { x0, tol: 1e-8, path: 'webgpu' })] as const,
        ];
        for (const [what, call] of calls) {
          const z = await call();
          for (const x0 of [Float64Array.from({ length: n }, (_, i) => 1e40 * Math.cos(i)), Float64Array.from({ length: n }, (_, i) => (i === 7 ? 1e300 : 0.5))]) {
            const w = `${dtype} ${what}, x0 up to ${Math.max(...x0.map(Math.abs)).toExponential(0)}`;
            const r = await call(x0);
            expect([r.path, r.reason], w).toEqual(['webgpu', 'converged']);
            expect(exactRelativeResidual(P, r.x, b), w).toBeLessThanOrEqual(1e-8);
            expect([r.iterations, Array.from(r.x)], w).toEqual([z.iterations, Array.from(z.x)]);
          }
        }
      } finally {
        h.dispose();
      }
    }
  });
});
