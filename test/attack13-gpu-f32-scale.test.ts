/**
 * Thirteenth attack pass, WebGPU (Dawn + SwiftShader): an f32 matrix whose entries leave the GPU's
 * range is solved as a copy scaled by a power of two (solveMatrixOn) — exact for f64, but an f32 copy
 * rounds what the scaling takes below f32's least subnormal to 0. [[2^-20, 0, 0], [0.99·2^-50, 1, 0],
 * [0, 0, 2^100]] scaled by 2^-100 lost its entry (1, 0), and the solve certified x against that copy:
 * rt.solve said 'converged' at 1.3e-18 for tol 1e-10 where the exact relative residual of its x is
 * 9.2e-10 (x[1] = 0 for −9.2e-10), every method. An f32 copy that does not scale back exactly is not
 * made: the path runs A itself, and what it reports is A's (test/exact-residual.ts).
 * In f64 the same matrix's ILU(0) factor (of the copy scaled by 2^-100) holds 2.4e44, past what
 * double-single holds: rt.solve's 'auto' threw WebGpuLimitError "the value 2.378746154509933e+44 is
 * outside the f32 range" (naming neither ILU(0) nor A) where the CPU path solves it. That factor is now
 * ILU(0)'s refusal (UnsupportedError), and 'auto' runs without it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { exactRelativeResidual } from './exact-residual.js';
import { pointDawnAtSwiftShader } from './webgpu-helpers.js';
import { UnsupportedError } from '../src/errors.js';

pointDawnAtSwiftShader();
let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ backend: 'webgpu', workers: 1 });
});
afterAll(() => rt?.dispose());

describe('attack13: an f32 matrix scaled for the GPU', () => {
  it("an entry the f32 copy flushes: no 'converged' beyond tol, the residual reported the answer's", { timeout: 120000 }, async () => {
    for (const complex of [false, true]) {
      const v = [2 ** -20, 0.99 * 2 ** -50, 1, 2 ** 100];
      const values = complex ? Float32Array.from(v.flatMap((x) => [x, 0])) : Float32Array.from(v);
      const A = new CSRMatrix(3, 3, complex ? 'c64' : 'f32', Int32Array.of(0, 1, 3, 4), Int32Array.of(0, 0, 1, 2), values);
      const exactA = new CSRMatrix(3, 3, complex ? 'c128' : 'f64', A.rowPtr, A.colIdx, Float64Array.from(values));
      const b = complex ? Float64Array.of(1, 0, 0, 0, 1e-10, 0) : Float64Array.of(1, 0, 1e-10);
      for (const method of complex ? (['gmres'] as const) : (['bicgstab', 'gmres'] as const)) {
        const h = rt.upload(A);
        const r = await rt.solve(h, b, { path: 'webgpu', method, tol: 1e-10 });
        h.dispose();
        expect(r.path).toBe('webgpu');
        const exact = exactRelativeResidual(exactA, r.x, b);
        const what = `${A.dtype} ${method}: ${r.reason} at ${r.relativeResidual} (exact ${exact})`;
        if (r.converged) expect(exact, what).toBeLessThanOrEqual(1e-10 * (1 + 1e-6));
        expect(Math.abs(r.relativeResidual - exact), what).toBeLessThanOrEqual(2 ** -9 * exact);
      }
    }
  });

  it("an f64 ILU(0) factor past double-single's range: ILU(0)'s refusal, and 'auto' solves without it", { timeout: 120000 }, async () => {
    const A = new CSRMatrix(3, 3, 'f64', Int32Array.of(0, 1, 3, 4), Int32Array.of(0, 0, 1, 2), Float64Array.of(3 * 2 ** -49, 2 ** -51, 1, 2 ** 100));
    const b = Float64Array.of(1, 0, 1);
    for (const method of ['bicgstab', 'gmres'] as const) {
      const h = rt.upload(A);
      const err = await rt.solve(h, b, { path: 'webgpu', method, preconditioner: 'ilu0' }).then(() => null, (e: unknown) => e);
      expect(err).toBeInstanceOf(UnsupportedError);
      expect(String((err as Error).message)).toMatch(/^ilu0: .*double-single/);
      const r = await rt.solve(h, b, { path: 'webgpu', method, tol: 1e-8 });
      h.dispose();
      const exact = exactRelativeResidual(A, r.x, b);
      const what = `${method} + ${r.preconditioner}: ${r.reason} at ${r.relativeResidual} (exact ${exact})`;
      expect(r.preconditioner, what).toBe('none');
      if (r.converged) expect(exact, what).toBeLessThanOrEqual(1e-8 * (1 + 1e-6));
      expect(Math.abs(r.relativeResidual - exact), what).toBeLessThanOrEqual(2 ** -9 * exact);
    }
  });
});
