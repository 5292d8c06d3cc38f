/**
 * The CPU pool's refinement of f64 / c128 matrices (src/cpu/refine.ts cpuRefinementF64): ‖b‖, r = b − A·x
 * and its norm, corrections x ← x + d and a non-finite correction left unapplied, against plain f64
 * JavaScript written here (test/solve-reference.ts), in DIA and CSR, real and complex, at edge sizes on
 * 1, 2 and 3 threads with every operation on the pool; and rt.solve's reported residual against an
 * independent f64 product.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CpuBackend } from '../src/cpu/backend.js';
import { cpuRefinementF64 } from '../src/cpu/refine.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { DIAMatrix } from '../src/formats/dia.js';
import { poisson3D } from '../src/generators/poisson.js';
import { Prng } from '../src/generators/prng.js';
import { matvec, trueResidual } from './solve-reference.js';
import { createRuntime } from '../src/runtime/runtime.js';

const THREADS = [1, 2, 3];
const SIZES = [0, 1, 5, 17, 1000, 4099];
const backends = new Map<number, CpuBackend>();
beforeAll(async () => {
  for (const t of THREADS) backends.set(t, await CpuBackend.create({ threads: t, inlineThreshold: 0 }));
});
// the plain build (no SIMD), made by the test that uses it
let plain: CpuBackend | undefined;
afterAll(() => {
  for (const b of backends.values()) b.dispose();
  plain?.dispose();
});

function random(n: number, seed: number, scale = 1): Float64Array {
  const g = new Prng(seed);
  return Float64Array.from({ length: n }, () => (g.next() * 2 - 1) * scale);
}

/** A banded n×n matrix on the diagonals −9, −1, 0, 1, 4 (those that fit), random values; complex: interleaved (re, im). */
function banded(n: number, dtype: 'f64' | 'c128', seed: number): CSRMatrix {
  const g = new Prng(seed);
  const c = dtype === 'c128' ? 2 : 1;
  const ptr = [0];
  const col: number[] = [];
  const val: number[] = [];
  for (let i = 0; i < n; i++) {
    for (const o of [-9, -1, 0, 1, 4]) {
      if (i + o < 0 || i + o >= n) continue;
      col.push(i + o);
      for (let p = 0; p < c; p++) val.push(o === 0 && p === 0 ? 8 : g.next() * 2 - 1);
    }
    ptr.push(col.length);
  }
  return new CSRMatrix(n, n, dtype, Int32Array.from(ptr), Int32Array.from(col), Float64Array.from(val)).validate();
}

describe('cpuRefinementF64', () => {
  for (const threads of THREADS) {
    it(`‖b‖, b − A·x in f64, corrections, a NaN correction not applied (DIA and CSR, f64 and c128); ${threads} thread(s)`, async () => {
      const B = backends.get(threads)!;
      for (const dtype of ['f64', 'c128'] as const) {
        const c = dtype === 'c128' ? 2 : 1;
        for (const format of ['dia', 'csr'] as const) {
          for (const n of SIZES) {
            const A = banded(n, dtype, n + 3);
            const M = B.upload(format === 'dia' ? DIAMatrix.fromCSR(A) : A);
            const b = random(n * c, 13);
            const x0 = random(n * c, 17, 1 / 3);
            const norm = (v: ArrayLike<number>) => Math.sqrt(Array.from(v).reduce((s, e) => s + e * e, 0));
            const residual = (x: Float64Array) => {
              const ax = matvec(A, x);
              return Float64Array.from(b, (bi, i) => bi - ax[i]);
            };
            // f64 in another summation order: within a few roundings of max |bᵢ| + max row Σ|aᵢⱼ| · max |xⱼ|
            const maxAbs = (v: ArrayLike<number>) => Array.from(v).reduce((m, e) => Math.max(m, Math.abs(e)), 0);
            let rowAbs = 0;
            for (let i = 0; i < n; i++) {
              let s = 0;
              for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) s += Math.hypot(A.values[c * k], c === 2 ? A.values[c * k + 1] : 0);
              rowAbs = Math.max(rowAbs, s);
            }
            const bound = (x: Float64Array) => new Float64Array(n * c).fill(1e-14 * (maxAbs(b) + rowAbs * maxAbs(x)));
            const close = (got: ArrayLike<number>, want: Float64Array, tolerance: Float64Array) => Array.from(want).every((w, i) => Math.abs(got[i] - w) <= tolerance[i]);
            const rel = (a: number, e: number) => Math.abs(a - e) <= 1e-13 * (1 + e);
            for (const start of [undefined, x0]) {
              const R = await cpuRefinementF64(B, M, b, start);
              try {
                const x = start ?? new Float64Array(n * c);
                let r = residual(x);
                expect(rel(R.bnorm, norm(b))).toBe(true);
                expect(rel(R.rnorm, norm(r)), `${dtype} ${format} n ${n}`).toBe(true);
                expect(close(R.rhs().view(), r, bound(x))).toBe(true);
                // a finite correction: x ← x + d, exactly as f64 adds
                const dd = random(n * c, 19);
                const d = B.vector(dtype, n);
                d.view().set(dd);
                const x1 = Float64Array.from(x, (xi, i) => xi + dd[i]);
                const t = await R.correct(d);
                r = residual(x1);
                expect(rel(t, norm(r))).toBe(true);
                expect(Array.from(await R.read())).toEqual(Array.from(x1));
                expect(close(R.rhs().view(), r, bound(x1))).toBe(true);
                // Inf or NaN in d: NaN, x and rhs as they were
                if (n > 0) {
                  d.view()[n * c - 1] = NaN;
                  expect(await R.correct(d)).toBeNaN();
                  expect(Array.from(await R.read())).toEqual(Array.from(x1));
                  expect(close(R.rhs().view(), r, bound(x1))).toBe(true);
                }
                d.dispose();
              } finally {
                R.dispose();
              }
            }
            M.dispose();
          }
        }
      }
    });
  }
});

describe('the refinements\' xmax (assembly/blas1.ts amax_f64): max |xᵢ| on the pool', () => {
  for (const threads of [...THREADS, 'plain'] as const) {
    it(`max |xᵢ| of x as it stands, exactly; NaN where x holds ±Inf or NaN; none for c128; ${threads === 'plain' ? '2 threads, the plain build' : `${threads} thread(s)`}`, async () => {
      const B = threads === 'plain' ? (plain ??= await CpuBackend.create({ threads: 2, simd: false, inlineThreshold: 0 })) : backends.get(threads)!;
      for (const n of SIZES) {
        const A = banded(n, 'f64', n + 5);
        const M = B.upload(DIAMatrix.fromCSR(A));
        const b = random(n, 23);
        try {
          const cases: Float64Array[] = [random(n, 29, 1e3), random(n, 31).map((v, i) => (i === n - 1 ? -7e5 : v))];
          if (n > 0) {
            for (const bad of [NaN, Infinity, -Infinity]) {
              const x = random(n, 37);
              x[(n * 5) >> 3] = bad;
              cases.push(x);
            }
          }
          for (const x0 of [undefined, ...cases]) {
            const R = await cpuRefinementF64(B, M, b, x0);
            try {
              const want = x0 === undefined ? 0 : x0.some((v) => !Number.isFinite(v)) ? NaN : x0.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
              expect(await R.xmax!(), `n ${n}`).toBe(want);
              // after a correction: the new x's
              if (x0 === undefined && n > 0) {
                const d = random(n, 41, 5);
                const dv = B.vector('f64', n);
                dv.view().set(d);
                await R.correct(dv);
                dv.dispose();
                expect(await R.xmax!()).toBe(d.reduce((m, v) => Math.max(m, Math.abs(v)), 0));
              }
            } finally {
              R.dispose();
            }
          }
          const C = banded(n, 'c128', n + 5);
          const MC = B.upload(C);
          const RC = await cpuRefinementF64(B, MC, random(2 * n, 43), undefined);
          expect(RC.xmax).toBeUndefined();
          RC.dispose();
          MC.dispose();
        } finally {
          M.dispose();
        }
      }
    });
  }
});

describe('rt.solve of an f64 matrix: the residual refined on the pool is the true one', () => {
  it('reported relativeResidual = an independent f64 product, after one solve, corrections and from x0', async () => {
    const rt = await createRuntime({ workers: 2 });
    try {
      const A = poisson3D(12);
      const b = random(A.rows, 23);
      for (const format of ['dia', 'csr'] as const) {
        const h = rt.upload(A, { format });
        for (const o of [{ method: 'cg' as const }, { method: 'gmres' as const, restart: 5 }, { method: 'cg' as const, x0: random(A.rows, 29) }]) {
          const r = await rt.solve(h, b, { ...o, preconditioner: 'jacobi', tol: 1e-11 });
          const want = trueResidual(A, r.x, b);
          expect(r.reason, `${format} ${o.method}`).toBe('converged');
          expect(want).toBeLessThanOrEqual(1e-11 * (1 + 1e-6));
          expect(Math.abs(r.relativeResidual - want)).toBeLessThanOrEqual(1e-3 * want + 1e-15);
        }
        h.dispose();
      }
    } finally {
      rt.dispose();
    }
  });
});
