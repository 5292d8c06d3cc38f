/**
 * An x0 holding NaN or ±Inf is no start (docs/special-values.md): every method and entry point, on the
 * CPU path in f64 and f32 and on the WebGPU path (Dawn + SwiftShader), starts from 0 and gives the answer
 * it gives without x0 — the twelfth attack pass checked the rule holds alike everywhere. Checked against
 * a residual in plain f64 (test/solve-reference.ts) and the solve without x0.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { poisson2D } from '../src/generators/poisson.js';
import { trueResidual } from './solve-reference.js';
import { pointDawnAtSwiftShader } from './webgpu-helpers.js';

pointDawnAtSwiftShader();
let cpu: Runtime;
let gpu: Runtime;
beforeAll(async () => {
  cpu = await createRuntime({ backend: 'cpu', workers: 1 });
  gpu = await createRuntime({ backend: 'webgpu', workers: 1 });
});
afterAll(() => {
  cpu?.dispose();
  gpu?.dispose();
});

const P = poisson2D(8);
const n = P.rows;
const b = Float64Array.from({ length: n }, (_, i) => Math.sin(i + 1) + 0.2);

describe('attack12: an x0 holding NaN or ±Inf starts from 0 on every path and method', () => {
  for (const [label, rt, dtype] of [['CPU f64', () => cpu, 'f64'], ['CPU f32', () => cpu, 'f32'], ['WebGPU f64', () => gpu, 'f64']] as const) {
    it(`${label}: rt.solve (each method) and rt.cg / rt.gmres / rt.bicgstab / rt.minres (WebGPU: rt.solve cg, bicgstab, minres and rt.cg)`, { timeout: 300000 }, async () => {
      const A = dtype === 'f32' ? new CSRMatrix(n, n, 'f32', P.rowPtr, P.colIdx, Float32Array.from(P.values)) : P;
      const h = rt().upload(A);
      try {
        // (SwiftShader runs GMRES's many small dispatches slowly: 9–10 s a solve there)
        const onGpu = label.startsWith('WebGPU');
        for (const bad of onGpu ? [NaN, -Infinity] : [NaN, Infinity, -Infinity]) {
          const x0 = Float64Array.from({ length: n }, (_, i) => (i === 5 ? bad : 1));
          type Call = [string, (o: { x0?: Float64Array }) => Promise<{ x: Float64Array; reason: string; iterations: number }>];
          const calls: Call[] = [
            ...(['cg', 'gmres', 'bicgstab', 'minres'] as const).map((m): Call => [`rt.solve ${m}`, (o) => rt().solve(h, b, { ...o, method: m, preconditioner: 'jacobi', tol: 1e-10 })]),
            ['rt.cg', (o) => rt().cg(h, b, { ...o, tol: 1e-10 })],
            ['rt.gmres', (o) => rt().gmres(h, b, { ...o, tol: 1e-10 })],
            ['rt.bicgstab', (o) => rt().bicgstab(h, b, { ...o, tol: 1e-10 })],
            ['rt.minres', (o) => rt().minres(h, b, { ...o, tol: 1e-10 })],
          ];
          for (const [what, call] of onGpu ? calls.filter(([w]) => /solve (cg|bicgstab|minres)|rt\.cg/.test(w)) : calls) {
            const r = await call({ x0 });
            const z = await call({});
            const w = `${label} ${what}, x0[5] = ${bad}`;
            expect(r.reason, w).toBe('converged');
            expect(r.x.every(Number.isFinite), w).toBe(true);
            expect(trueResidual(A, r.x, b), w).toBeLessThanOrEqual(1e-10);
            expect([r.iterations, Array.from(r.x)], w).toEqual([z.iterations, Array.from(z.x)]);
          }
        }
      } finally {
        h.dispose();
      }
    });
  }
});
