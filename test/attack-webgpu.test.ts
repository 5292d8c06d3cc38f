/**
 * Attack on the WebGPU path's resident solvers (Dawn + SwiftShader in Node): their scalar recurrences
 * run in double-single, with f32's exponent range, where a quotient computed through |b|² leaves the
 * range long before the quotient does. Every answer is checked against a plain f64 residual here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { poisson2D } from '../src/generators/poisson.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { mulberry32 } from './random.js';
import { pointDawnAtSwiftShader } from './webgpu-helpers.js';
import { trueResidual as trueRel } from './solve-reference.js';

pointDawnAtSwiftShader();

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ backend: 'webgpu', workers: 1 });
});
afterAll(() => rt?.dispose());

describe('WebGPU resident BiCGSTAB to a tight tolerance', () => {
  // ω = tᴴs / tᴴt divided through (tᴴt)², which underflowed f32 once ‖t‖ < 1e-9.5: NaN at a relative
  // residual of about 1e-9, and the correction (the whole answer) thrown away
  for (const dt of ['f64', 'f32'] as const) {
    it(`${dt}: converges as the host's BiCGSTAB does`, async () => {
      const A = dt === 'f64' ? poisson2D(7) : poisson2D(7).astype('f32');
      const h = rt.upload(A);
      for (const seed of [2, 4]) {
        const g = mulberry32(seed);
        const b = Float64Array.from({ length: A.rows }, () => g() - 0.5);
        const r = await rt.solve(h, b, { method: 'bicgstab', path: 'webgpu', tol: 1e-10 });
        expect(r.reason, `seed ${seed}: ${r.reason} after ${r.iterations} iterations, relative residual ${r.relativeResidual}`).toBe('converged');
        expect(trueRel(A, r.x, b)).toBeLessThanOrEqual(1e-10);
      }
      h.dispose();
    });
  }
});

/** γₖ‖|b| + |A|·|x|‖₂ / ‖b‖₂ (k: the longest row + 1): the bound on the rounding of b − A·x evaluated in f64, relative to ‖b‖. */
function residualRounding(A: CSRMatrix, x: Float64Array, b: Float64Array): number {
  let k = 0, s = 0, nb = 0;
  for (let i = 0; i < A.rows; i++) {
    k = Math.max(k, A.rowPtr[i + 1] - A.rowPtr[i] + 1);
    let a = Math.abs(b[i]);
    for (let p = A.rowPtr[i]; p < A.rowPtr[i + 1]; p++) a += Math.abs(A.values[p] * x[A.colIdx[p]]);
    s += a * a;
    nb += b[i] * b[i];
  }
  const u = 2 ** -53;
  return ((k * u) / (1 - k * u)) * Math.sqrt(s / nb);
}

describe('WebGPU: a matrix whose values double-single holds with fewer bits', () => {
  // A·1e-30: the lo words of its entries (≈ 1e-30·2⁻²⁴) are f32 subnormals, which the GPU flushes to
  // zero, so A holds 24 bits there and r = b − A·x on the GPU is off by ≈ 4e-9; a single solve from
  // x = 0 reported that residual unchecked: 'converged', relative residual 7e-15, true 4.4e-9
  for (const method of ['cg', 'gmres'] as const) {
    it(`${method}: converged only where the true residual meets tol`, async () => {
      const P = poisson2D(5);
      const A = new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, P.values.map((v) => v * 1e-30) as Float64Array);
      const h = rt.upload(A);
      const g = mulberry32(3);
      const b = Float64Array.from({ length: A.rows }, () => g() - 0.5);
      const r = await rt.solve(h, b, { method, preconditioner: 'jacobi', tol: 1e-10, path: 'webgpu' });
      const t = trueRel(A, r.x, b);
      // since the GPU solves A scaled to max |aᵢⱼ| ≈ 1 (no flushed bits), the residual is at rounding
      // level, where two f64 evaluations of it differ by up to twice its rounding bound γₖ‖|b| + |A||x|‖/‖b‖
      expect(Math.abs(r.relativeResidual - t), `reported ${r.relativeResidual}, true ${t}`).toBeLessThanOrEqual(0.01 * t + 2 * residualRounding(A, r.x, b));
      if (r.converged) expect(t).toBeLessThanOrEqual(1e-10);
      h.dispose();
    });
  }
});
