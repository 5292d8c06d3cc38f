/**
 * max |xᵢ| measured on the GPU as an f64 vector is joined for read-back (wgsl/ds_convert.wgsl
 * join_max_main, noted for the array: src/largest-component.ts), which a solve's finiteness test and
 * its certificate's bound (true-residual.ts trueResult, certified) read instead of host passes over x.
 * Dawn + SwiftShader. Checked against a plain f64 max written here: the bound is never below the
 * largest |xᵢ|, at most 2^-20 of it above, NaN wherever some xᵢ is ±Inf or NaN; the joined values
 * themselves unchanged; and rt.solve on the path still reports an answer's true residual and 'nan'.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webgpuBackend } from './webgpu-helpers.js';
import type { WebGpuBackend } from '../src/webgpu/index.js';
import { largestComponent } from '../src/largest-component.js';
import { Prng } from '../src/generators/prng.js';
import { GPU_SPLIT_FROM } from '../src/webgpu/encoding.js';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { poisson2D } from '../src/generators/poisson.js';
import { trueResidual } from './solve-reference.js';

function referenceMax(x: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < x.length; i++) {
    if (!Number.isFinite(x[i])) return NaN;
    m = Math.max(m, Math.abs(x[i]));
  }
  return m;
}

let be: WebGpuBackend;
let rt: Runtime;
beforeAll(async () => {
  be = await webgpuBackend();
  rt = await createRuntime({ backend: 'webgpu', workers: 1 });
});
afterAll(() => {
  be?.dispose();
  rt?.dispose();
});

describe('max |xᵢ| from the GPU join of an f64 read-back', () => {
  const n = GPU_SPLIT_FROM + 37;
  const rng = new Prng(20);
  const cases: [string, (i: number) => number][] = [
    ['uniform in [-1, 1]', () => 2 * rng.next() - 1],
    ['exponents from 2^-120 to 2^120, signs mixed', () => (rng.next() < 0.5 ? -1 : 1) * (1 + rng.next()) * 2 ** Math.floor(240 * rng.next() - 120)],
    ['f64 values with bits below f32 (hi + lo)', () => Math.PI * (1 + rng.next() * 2 ** -30) * (rng.next() < 0.5 ? -1 : 1)],
    ['the largest in the last entry', (i) => (i === n - 1 ? -3 : 1e-3 * rng.next())],
    ['the largest in the first entry, exact 2^k', (i) => (i === 0 ? 2 ** 40 : rng.next())],
    ['all zeros, -0 among them', (i) => (i % 3 === 0 ? -0 : 0)],
    ['tiny values near f32 normal range', () => (1 + rng.next()) * 2 ** -100],
  ];
  for (const [what, value] of cases) {
    it(`${what}: an upper bound within 2^-20, the values as they were`, async () => {
      const data = Float64Array.from({ length: n }, (_, i) => value(i));
      const v = be.vector('f64', data);
      const x = (await be.read(v)) as Float64Array;
      v.dispose();
      // the values read back are the double-single join of data (exact for these: each fits hi + lo)
      const ref = referenceMax(x);
      const bound = largestComponent(x);
      expect(bound).toBeGreaterThanOrEqual(ref);
      expect(bound).toBeLessThanOrEqual(ref === 0 ? 2 ** -1000 : ref * (1 + 2 ** -20));
      // the GPU's word, not a host pass: its low 32 bits are all ones, above the largest value itself
      // wherever that one's are not
      if (ref !== 0) expect(bound).toBeGreaterThan(ref);
      expect(Math.abs(referenceMax(data) - ref)).toBeLessThanOrEqual(ref * 2 ** -40);
    });
  }
  for (const [what, bad] of [['NaN', NaN], ['+Infinity', Infinity], ['-Infinity', -Infinity]] as const) {
    for (const at of [0, 1234, n - 1]) {
      it(`${what} at ${at}: NaN (not finite), whatever else x holds`, async () => {
        const data = Float64Array.from({ length: n }, (_, i) => (i === at ? bad : 1e30 * (rng.next() - 0.5)));
        const v = be.vector('f64', data);
        const x = (await be.read(v)) as Float64Array;
        v.dispose();
        expect(Number.isFinite(x[at])).toBe(false);
        expect(largestComponent(x)).toBeNaN();
      });
    }
  }
  it('complex vectors are joined as before, with no bound noted (the host pass decides)', async () => {
    const data = Float64Array.from({ length: 2 * n }, () => 2 * rng.next() - 1);
    const v = be.vector('c128', data);
    const x = (await be.read(v)) as Float64Array;
    v.dispose();
    expect(largestComponent(x)).toBe(referenceMax(x));
  });
});

describe('rt.solve on the WebGPU path reads the bound', () => {
  it('poisson2D(70) f64 (4900 rows): converged at a true residual under tol, x its own', async () => {
    const A = poisson2D(70);
    const b = Float64Array.from({ length: A.rows }, (_, i) => Math.sin(i) + 2);
    const r = await rt.solve(rt.upload(A), b, { path: 'webgpu', method: 'cg', tol: 1e-8 });
    expect(r.converged).toBe(true);
    expect(r.path).toBe('webgpu');
    expect(trueResidual(A, r.x, b)).toBeLessThanOrEqual(1e-8);
    // the bound the certificate read is the GPU's, at most 2^-20 above the answer's largest entry
    const m = referenceMax(r.x);
    expect(largestComponent(r.x)).toBeGreaterThan(m);
    expect(largestComponent(r.x)).toBeLessThanOrEqual(m * (1 + 2 ** -20));
  });
});

describe('largestComponent on the host', () => {
  it('agrees with a plain max; NaN where x holds NaN or ±Inf first met', () => {
    const rng = new Prng(7);
    for (let t = 0; t < 20; t++) {
      const x = Float64Array.from({ length: 1 + Math.floor(50 * rng.next()) }, () => (rng.next() - 0.5) * 10 ** Math.floor(20 * rng.next() - 10));
      expect(largestComponent(x)).toBe(referenceMax(x));
    }
    expect(largestComponent(Float64Array.of(1, NaN, 2))).toBeNaN();
    expect(largestComponent(Float64Array.of(1, Infinity, NaN))).not.toBeLessThan(Infinity);
    expect(largestComponent(Float64Array.of(-Infinity, 3))).toBe(Infinity);
    expect(largestComponent(new Float64Array(0))).toBe(0);
  });
});
