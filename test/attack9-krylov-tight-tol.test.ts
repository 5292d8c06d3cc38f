/**
 * Ninth adversarial pass, Krylov solves asked for a tol at f64's rounding unit (0, 1e-16, 3e-16):
 *  - 'converged' must mean the exact residual meets tol: the f64 residual b − A·x the driver judged by
 *    is off by up to (k + 2)·u·‖|b| + |A|·|x|‖, and every method said 'converged' at tol 1e-16 or 0 for
 *    exact residuals of 1.3e-16 or 5.9e-17 (the answer is now certified there, as rt.solve's
 *    factorization is);
 *  - f32 CG (reliable updates) that reached 1.1e-16 by a residual replacement and then diverged folded
 *    the diverged iterate in and returned x = 0, 'nan' at a residual of 1, on finite SPD data.
 * The residuals are checked against the exact BigInt one (test/exact-residual.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import type { DType } from '../src/dtype.js';
import { exactRelativeResidual } from './exact-residual.js';
import { mulberry32 } from './random.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ workers: 1, backend: 'cpu' });
});
afterAll(() => rt.dispose());

/** n×n with a diagonal of 4–6 and 2n random couplings in (−0.5, 0.5): general, symmetric or Hermitian. */
function system(seed: number, n: number, dtype: DType, kind: 'general' | 'symmetric' | 'hermitian'): { A: CSRMatrix; b: Float64Array } {
  const g = mulberry32(seed);
  const c = dtype === 'c64' || dtype === 'c128' ? 2 : 1;
  const at = new Map<number, [number, number]>();
  for (let i = 0; i < n; i++) at.set(i * n + i, [4 + 2 * g(), kind === 'hermitian' ? 0 : g() - 0.5]);
  for (let t = 0; t < 2 * n; t++) {
    const i = Math.floor(g() * n);
    const j = Math.floor(g() * n);
    if (i === j) continue;
    const [re, im] = [g() - 0.5, g() - 0.5];
    at.set(i * n + j, [re, im]);
    if (kind !== 'general') at.set(j * n + i, [re, kind === 'hermitian' ? -im : im]);
  }
  const keys = [...at.keys()].sort((a, b) => a - b);
  const rowPtr = new Int32Array(n + 1);
  const colIdx = new Int32Array(keys.length);
  const values = dtype === 'f32' || dtype === 'c64' ? new Float32Array(keys.length * c) : new Float64Array(keys.length * c);
  keys.forEach((k, p) => {
    rowPtr[Math.floor(k / n) + 1]++;
    colIdx[p] = k % n;
    const [re, im] = at.get(k)!;
    values[p * c] = re;
    if (c === 2) values[p * c + 1] = im;
  });
  for (let i = 0; i < n; i++) rowPtr[i + 1] += rowPtr[i];
  return { A: new CSRMatrix(n, n, dtype, rowPtr, colIdx, values), b: Float64Array.from({ length: n * c }, () => g() - 0.5) };
}

describe('tol at the rounding unit', () => {
  it('property: every method, dtype and a few preconditioners — converged ⇒ the exact residual ≤ tol, and what is reported is within rounding of it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 1e9 }),
        fc.integer({ min: 2, max: 40 }),
        fc.constantFrom<DType>('f32', 'f64', 'c64', 'c128'),
        fc.constantFrom('general', 'symmetric', 'hermitian' as const),
        fc.constantFrom('cg', 'bicgstab', 'gmres', 'minres'),
        fc.constantFrom('none', 'jacobi', 'ilu0'),
        fc.constantFrom(0, 1e-16, 3e-16, 1e-15),
        async (seed, n, dtype, kind, method, preconditioner, tol) => {
          const { A, b } = system(seed, n, dtype, kind === 'hermitian' && (dtype === 'f32' || dtype === 'f64') ? 'symmetric' : kind);
          const h = rt.upload(A);
          try {
            const r = await rt.solve(h, b, { method, preconditioner, tol, maxIter: 300 });
            const exact = exactRelativeResidual(A, r.x, b);
            if (r.converged) expect(exact, `${r.reason} reported ${r.relativeResidual}`).toBeLessThanOrEqual(tol);
            // the reported residual: the exact one up to f64 rounding of its own computation
            expect(Math.abs(r.relativeResidual - exact)).toBeLessThanOrEqual(1e-3 * exact + 1e-15);
          } finally {
            h.dispose();
          }
        },
      ),
      { seed: 9, numRuns: 400 },
    );
  });

  it("f32 CG at tol 1e-16 whose recurrence diverges after its replacements keeps the replaced answer: never 'nan', residual at rounding level (x = 0 and 'nan' before)", async () => {
    let diverged = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const { A, b } = system(seed, 12 + (seed % 30), 'f32', 'symmetric');
      const h = rt.upload(A);
      for (const preconditioner of ['ssor', 'jacobi', 'none'] as const) {
        const r = await rt.solve(h, b, { method: 'cg', preconditioner, tol: 1e-16, maxIter: 500 });
        // (since f32fall the recurrence mostly stops 'stagnated' before it overflows — its ‖r‖ no longer
        // halving — and the solve goes on in f64: precisionFallback; either is the case reached)
        if (r.history.some((v) => !(v < 1e30)) || r.precisionFallback !== undefined) diverged++;
        expect(r.reason, `seed ${seed} ${preconditioner}`).not.toBe('nan');
        expect(exactRelativeResidual(A, r.x, b), `seed ${seed} ${preconditioner}`).toBeLessThan(1e-14);
      }
      h.dispose();
    }
    // the case was reached: some recurrence overflowed or stalled
    expect(diverged).toBeGreaterThan(0);
  });
});
