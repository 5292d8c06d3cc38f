/**
 * Property-based attack on rt.solve (fast-check, fixed seed): small generated matrices — SPD, diagonally
 * dominant, symmetric indefinite, general; f64, f32, c128, c64; entries scaled by 1e±30 to 1e±200 —
 * with every method, every preconditioner, tolerances down to 0 and random x0. Whatever happens, either
 * a typed error, or a result whose 'converged' means the true ‖b − A·x‖/‖b‖ (f64, here) meets tol and
 * whose reported residual is that true one (where f64 can tell: |A|·|x| not far above |b|).
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

type Kind = 'spd' | 'diagdom' | 'sym' | 'gen';

/** An n×n matrix of `kind` (integer entries, about 30 % off the diagonal filled) times s, in dtype dt, and b, x0. */
function generate(n: number, dt: 'f64' | 'f32' | 'c128' | 'c64', kind: Kind, seed: number, s: number, withX0: boolean) {
  const g = mulberry32(seed);
  const complex = dt === 'c128' || dt === 'c64';
  const d = Array.from({ length: n }, () => Array.from({ length: n }, (): [number, number] => [0, 0]));
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (i !== j && g() < 0.3) d[i][j] = [Math.round((g() - 0.5) * 8), complex ? Math.round((g() - 0.5) * 4) : 0];
  if (kind !== 'gen') for (let i = 0; i < n; i++) for (let j = 0; j < i; j++) d[i][j] = [d[j][i][0], -d[j][i][1]];
  for (let i = 0; i < n; i++) {
    let off = 0;
    for (let j = 0; j < n; j++) if (j !== i) off += Math.hypot(d[i][j][0], d[i][j][1]);
    d[i][i] = [kind === 'spd' || kind === 'diagdom' ? off + 1 + Math.round(g() * 3) : Math.round((g() - 0.3) * 10), 0];
  }
  const rowPtr = new Int32Array(n + 1);
  const colIdx: number[] = [];
  const values: number[] = [];
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      if (i !== j && d[i][j][0] === 0 && d[i][j][1] === 0) continue;
      colIdx.push(j);
      values.push(d[i][j][0] * s);
      if (complex) values.push(d[i][j][1] * s);
    }
    rowPtr[i + 1] = colIdx.length;
  }
  const A = new CSRMatrix(n, n, complex ? 'c128' : 'f64', rowPtr, Int32Array.from(colIdx), Float64Array.from(values)).astype(dt);
  const b = Float64Array.from({ length: n * (complex ? 2 : 1) }, () => Math.round((g() - 0.5) * 10) || 1);
  const x0 = withX0 ? Float64Array.from(b, () => g() * 3) : undefined;
  return { A, b, x0 };
}

describe('rt.solve on generated systems: converged means converged, the residual reported is the true one', () => {
  it('400 cases', { timeout: 60000 }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 14 }),
        fc.constantFrom('f64', 'f32', 'c128', 'c64' as const),
        fc.constantFrom('auto', 'cg', 'gmres', 'bicgstab', 'minres', 'direct' as const),
        fc.constantFrom('auto', 'none', 'jacobi', 'block-jacobi', 'ssor', 'ic0', 'ilu0', 'chebyshev', 'amg', 'saddle' as const),
        fc.constantFrom(1e-4, 1e-8, 1e-12, 0),
        fc.constantFrom<Kind>('spd', 'diagdom', 'sym', 'gen'),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.constantFrom(1, 1e-30, 1e30, 1e-100, 1e100, 1e200),
        fc.boolean(),
        async (n, dt, method, preconditioner, tol, kind, seed, s, withX0) => {
          // f32 cannot hold the scale
          if ((dt === 'f32' || dt === 'c64') && Math.abs(Math.log10(s)) > 30) return;
          const { A, b, x0 } = generate(n, dt, kind, seed, s, withX0);
          const h = rt.upload(A);
          const what = `n ${n} ${dt} ${kind} ×${s}, ${method} + ${preconditioner}, tol ${tol}${x0 ? ', x0' : ''}`;
          try {
            const r = await rt.solve(h, b, { method, preconditioner: method === 'direct' ? 'none' : preconditioner, tol, x0, maxIter: 2000 });
            // A/s and x·s: A·x in range whatever s
            const As = new CSRMatrix(n, n, A.dtype === 'c64' || A.dtype === 'c128' ? 'c128' : 'f64', A.rowPtr, A.colIdx, Float64Array.from(A.values, (v) => v / s));
            const xs = Array.from(r.x, (v) => v * s);
            const t = trueResidual(As, xs, b);
            if (r.converged) expect(t, `${what}: converged, true residual ${t}`).toBeLessThanOrEqual(tol * (1 + 1e-6) + 1e-15);
            // |A|·|x| against |b|: where x is so large that b − A·x is rounding in f64, no residual is exact
            let ax = 0;
            for (const v of As.values) ax = Math.max(ax, Math.abs(v));
            const noise = (ax * n * Math.max(...xs.map(Math.abs))) / Math.max(...Array.from(b, Math.abs));
            if (Number.isFinite(t) && noise < 1e6) expect(Math.abs(r.relativeResidual - t), `${what}: ${r.reason}, reported ${r.relativeResidual}, true ${t}`).toBeLessThanOrEqual(1e-6 * t + 1e-12);
          } catch (e) {
            const typed = e instanceof SimdglError || e instanceof MemoryLimitError || e instanceof InputRangeError || e instanceof InputTypeError;
            if (!typed) throw new Error(`${what}: untyped ${(e as Error).name}: ${(e as Error).message}`);
          } finally {
            h.dispose();
          }
        },
      ),
      { numRuns: 400, seed: 20261127 },
    );
  });
});
