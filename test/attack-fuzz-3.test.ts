/**
 * Third property-based attack (fast-check, fixed seeds) on the Krylov methods called directly (rt.cg,
 * rt.gmres, rt.minres, rt.bicgstab) and rt.solve, with every preconditioner kind, on tiny matrices at
 * the edges: 1×1 and 2×2, empty rows, duplicate entries, ±Inf/NaN, subnormals, scales of 1e±300,
 * f32/c64/c128. Whatever happens: a typed error, or an outcome whose `converged` agrees with the true
 * ‖b − A·x‖/‖b‖ computed here in f64 (BigInt-free: A scaled back, x scaled up), never a hang.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { InputRangeError, InputTypeError, MemoryLimitError, SimdglError } from '../src/errors.js';
import { trueResidual } from './solve-reference.js';
import { mulberry32 } from './random.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ workers: 2, backend: 'cpu' });
});
afterAll(() => rt.dispose());

type Shape = 'spd' | 'diagdom' | 'sym' | 'gen' | 'emptyRow' | 'dup';
type Special = 'none' | 'nanA' | 'infA' | 'nanB' | 'subnormal';
const DTYPES = ['f64', 'f32', 'c128', 'c64'] as const;

/** A tiny system of `shape` scaled by s, with `special` planted; triplets (duplicates kept for 'dup'). */
function generate(n: number, dt: (typeof DTYPES)[number], shape: Shape, special: Special, seed: number, s: number) {
  const g = mulberry32(seed);
  const complex = dt === 'c128' || dt === 'c64';
  const R: number[] = [];
  const C: number[] = [];
  const V: number[] = [];
  const d = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (i !== j && g() < 0.4) d[i][j] = Math.round((g() - 0.5) * 8);
  if (shape === 'spd' || shape === 'diagdom' || shape === 'sym') for (let i = 0; i < n; i++) for (let j = 0; j < i; j++) d[i][j] = d[j][i];
  for (let i = 0; i < n; i++) {
    const off = d[i].reduce((a, v, j) => a + (j === i ? 0 : Math.abs(v)), 0);
    d[i][i] = shape === 'spd' || shape === 'diagdom' ? off + 1 + Math.round(g() * 3) : Math.round((g() - 0.3) * 10);
  }
  const empty = shape === 'emptyRow' ? Math.floor(g() * n) : -1;
  for (let i = 0; i < n; i++) {
    if (i === empty) continue;
    for (let j = 0; j < n; j++) {
      if (d[i][j] === 0 && i !== j) continue;
      if (shape === 'dup' && g() < 0.5) {
        // the same entry as two halves
        R.push(i, i);
        C.push(j, j);
        V.push(d[i][j] / 2, d[i][j] / 2);
        if (complex) V.splice(V.length - 2, 2, d[i][j] / 2, 0, d[i][j] / 2, 0);
        continue;
      }
      R.push(i);
      C.push(j);
      V.push(d[i][j]);
      if (complex) V.push(i === j ? 0 : Math.round((g() - 0.5) * 2) * (shape === 'gen' ? 1 : 0));
    }
  }
  const w = complex ? 2 : 1;
  const vals = Float64Array.from(V, (v) => v * s);
  if (special === 'nanA' && vals.length) vals[Math.floor(g() * vals.length)] = NaN;
  if (special === 'infA' && vals.length) vals[Math.floor(g() * vals.length)] = g() < 0.5 ? Infinity : -Infinity;
  const A = CSRMatrix.fromTriplets(n, n, complex ? 'c128' : 'f64', Int32Array.from(R), Int32Array.from(C), vals).astype(dt);
  const b = Float64Array.from({ length: n * w }, () => Math.round((g() - 0.5) * 10) || 1);
  if (special === 'nanB') b[Math.floor(g() * b.length)] = NaN;
  if (special === 'subnormal') for (let i = 0; i < b.length; i++) b[i] *= 5e-324 * 1e3;
  return { A, b };
}

const METHODS = ['cg', 'gmres', 'minres', 'bicgstab', 'solve'] as const;
const PRECONDITIONERS = ['none', 'jacobi', 'block-jacobi', 'ssor', 'ic0', 'ilu0', 'chebyshev', 'amg', 'saddle'] as const;

describe('the methods on tiny edge-case systems: converged means the true residual meets tol', () => {
  it('500 cases', { timeout: 60000 }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }),
        fc.constantFrom(...DTYPES),
        fc.constantFrom(...METHODS),
        fc.constantFrom(...PRECONDITIONERS),
        fc.constantFrom<Shape>('spd', 'diagdom', 'sym', 'gen', 'emptyRow', 'dup'),
        fc.constantFrom<Special>('none', 'none', 'none', 'nanA', 'infA', 'nanB', 'subnormal'),
        fc.constantFrom(1, 1e-300, 1e300, 1e-20, 1e20),
        fc.constantFrom(1e-6, 1e-10, 0),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        async (n, dt, method, preconditioner, shape, special, s, tol, seed) => {
          const single = dt === 'f32' || dt === 'c64';
          if (single && Math.abs(Math.log10(s)) > 30) s = 1;
          const { A, b } = generate(n, dt, shape, special, seed, s);
          const what = `n ${n} ${dt} ${shape} ${special} ×${s}, ${method} + ${preconditioner}, tol ${tol}, seed ${seed}`;
          let h;
          try {
            h = rt.upload(A);
          } catch (e) {
            if (!(e instanceof SimdglError || e instanceof InputRangeError)) throw new Error(`${what}: upload untyped ${String(e)}`);
            return;
          }
          try {
            const r = await rt[method](h, b, { preconditioner, tol, maxIter: 500 });
            const cx = dt === 'c128' || dt === 'c64';
            const As = new CSRMatrix(n, n, cx ? 'c128' : 'f64', A.rowPtr, A.colIdx, Float64Array.from(A.values, (v) => v / s));
            // subnormal b: the reference's squares would underflow; b and x scaled up together (exact: a power of two)
            const k = special === 'subnormal' ? 2 ** 1000 : 1;
            const t = trueResidual(As, Array.from(r.x, (v) => v * k * s), Array.from(b, (v) => v * k));
            if (r.converged) expect(t, `${what}: converged, true residual ${t}`).toBeLessThanOrEqual(tol * (1 + 1e-6) + 1e-15);
            if (r.converged) expect(special === 'nanA' || special === 'infA' || special === 'nanB', `${what}: converged with NaN/Inf in the data`).toBe(false);
            if (Number.isFinite(t)) expect(r.relativeResidual, `${what}: ${r.reason}`).not.toBeNaN();
            // the residual reported is the answer's own, where f64 can tell (|A|·|x| not far above |b|)
            let ax = 0;
            for (const v of As.values) ax = Math.max(ax, Math.abs(v));
            const noise = (ax * n * Math.max(...Array.from(r.x, (v) => Math.abs(v * k * s)))) / Math.max(...Array.from(b, (v) => Math.abs(v * k)));
            if (Number.isFinite(t) && noise < 1e6) expect(Math.abs(r.relativeResidual - t), `${what}: ${r.reason}, reported ${r.relativeResidual}, true ${t}`).toBeLessThanOrEqual(1e-6 * t + 1e-12);
            expect(r.x.length).toBe(b.length);
          } catch (e) {
            const typed = e instanceof SimdglError || e instanceof MemoryLimitError || e instanceof InputRangeError || e instanceof InputTypeError;
            if (!typed) throw new Error(`${what}: untyped ${(e as Error).name}: ${(e as Error).message}\n${(e as Error).stack}`);
          } finally {
            h.dispose();
          }
        },
      ),
      { numRuns: 500, seed: 3_2026_1127, endOnFailure: true },
    );
  });
});
