/**
 * The kept LU factor's solve kernel (assembly/lu.ts lu_solve, through src/cpu/lu.ts) gives the bits of
 * the JavaScript solve it replaced (test/lu-solve-reference.ts), on both builds: sparse factors, ones
 * with a dense trailing block or wholly dense, and banded ones; real and complex; several right-hand
 * sides per factor (one with zeros: the columns the real passes skip), once and held in the heap (the
 * same bits; its bytes freed by dispose). And x solves A·x = b.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { cpuLuKernels } from '../src/cpu/lu.js';
import { reciprocalDiagonal, type LuFactor } from '../src/solvers/direct/lu.js';
import { Prng } from '../src/generators/prng.js';
import { DisposedError } from '../src/errors.js';
import { luSolveReference } from './lu-solve-reference.js';
import { makeHarness, type Harness } from './kernel-harness.js';
import { WasmHeap } from '../src/cpu/memory.js';
import { compileKernels, instantiateKernels } from '../src/cpu/wasm.js';

let simd: Harness;
let plain: Harness;
beforeAll(async () => {
  [simd, plain] = await Promise.all([makeHarness('simd'), makeHarness('plain')]);
});

interface Csc { n: number; colPtr: Int32Array; rowIdx: Int32Array; values: Float64Array }

/** n×n by columns, `per` random off-diagonal rows per column (within `band` of the diagonal when given), a weak diagonal: pivots move. */
function randomCsc(n: number, per: number, c: number, seed: number, band = n): Csc {
  const rng = new Prng(seed);
  const colPtr = new Int32Array(n + 1);
  const rowIdx: number[] = [];
  const values: number[] = [];
  for (let j = 0; j < n; j++) {
    const lo = Math.max(0, j - band);
    const hi = Math.min(n - 1, j + band);
    const rows = new Set<number>([j]);
    while (rows.size < Math.min(hi - lo + 1, per + 1)) rows.add(lo + Math.floor(rng.next() * (hi - lo + 1)));
    for (const i of [...rows].sort((a, b) => a - b)) {
      rowIdx.push(i);
      for (let s = 0; s < c; s++) values.push(i === j ? (s === 0 ? 0.05 : 0) : rng.next() - 0.5);
    }
    colPtr[j + 1] = rowIdx.length;
  }
  return { n, colPtr, rowIdx: Int32Array.from(rowIdx), values: Float64Array.from(values) };
}

/** x = A⁻¹·b as the JavaScript solve did: scattered by pinv, solved, gathered by q. */
function referenceSolve(f: LuFactor, b: Float64Array): Float64Array {
  const c = f.complex ? 2 : 1;
  const y = new Float64Array(f.n * c);
  for (let i = 0; i < f.n; i++) for (let s = 0; s < c; s++) y[f.pinv[i] * c + s] = b[i * c + s];
  luSolveReference(f, y);
  const x = new Float64Array(f.n * c);
  for (let k = 0; k < f.n; k++) for (let s = 0; s < c; s++) x[f.q[k] * c + s] = y[k * c + s];
  return x;
}

/** max |A·x − b| / max Σ|A·x| + |b| (complex by parts): an independent check of the reference. */
function residual(A: Csc, c: number, x: Float64Array, b: Float64Array): number {
  const r = Float64Array.from(b);
  const t = Float64Array.from(b, Math.abs);
  for (let j = 0; j < A.n; j++) {
    for (let p = A.colPtr[j]; p < A.colPtr[j + 1]; p++) {
      const i = A.rowIdx[p];
      if (c === 1) {
        r[i] -= A.values[p] * x[j];
        t[i] += Math.abs(A.values[p] * x[j]);
      } else {
        const [ar, ai, xr, xi] = [A.values[2 * p], A.values[2 * p + 1], x[2 * j], x[2 * j + 1]];
        r[2 * i] -= ar * xr - ai * xi;
        r[2 * i + 1] -= ar * xi + ai * xr;
        t[2 * i] += Math.abs(ar * xr) + Math.abs(ai * xi);
        t[2 * i + 1] += Math.abs(ar * xi) + Math.abs(ai * xr);
      }
    }
  }
  return Math.max(...r.map(Math.abs)) / Math.max(...t);
}

describe('kept LU factor solve kernel', () => {
  const n = 90;
  const rhs = (c: number, k: number) => {
    const rng = new Prng(100 + k);
    return Float64Array.from({ length: n * c }, (_, i) => (k === 0 && Math.floor(i / c) % 5 === 2 ? 0 : (rng.next() - 0.5) * 10 ** ((i % 5) - 2)));
  };
  const cases: [string, (h: Harness, A: Csc, complex: boolean) => LuFactor | number, number][] = [];
  const q = Int32Array.from({ length: n }, (_, i) => (i * 7) % n);
  for (const [name, from] of [['sparse', n], ['dense trailing block', 40], ['dense', 0]] as const) {
    cases.push([name, (h, A, complex) => cpuLuKernels(h).sparse(n, A.colPtr, A.rowIdx, A.values, complex, q, 0.1, 10, () => {}, from), n]);
  }
  cases.push(['banded', (h, A, complex) => cpuLuKernels(h).band(n, A.colPtr, A.rowIdx, A.values, complex, { lower: 3, upper: 3 }, 0.1), 3]);
  for (const [name, factor, band] of cases) {
    for (const c of [1, 2]) {
      it(`${name}, ${c === 1 ? 'real' : 'complex'}: the JavaScript solve's bits on both builds, A·x = b`, () => {
        const A = randomCsc(n, band === n ? 4 : 5, c, 7 + c, band);
        for (const h of [simd, plain]) {
          const f = factor(h, A, c === 2);
          if (typeof f === 'number') throw new Error(`singular at ${f}`);
          f.dinv ??= reciprocalDiagonal(f);
          const live = h.heap.liveBytes;
          const held = cpuLuKernels(h).hold(f);
          for (let k = 0; k < 3; k++) {
            const b = rhs(c, k);
            const bCopy = Float64Array.from(b);
            const ref = referenceSolve(f, b);
            const x = new Float64Array(n * c).fill(NaN);
            cpuLuKernels(h).solve(f, b, x);
            expect(Array.from(x)).toEqual(Array.from(ref));
            expect(Array.from(b)).toEqual(Array.from(bCopy));
            expect(residual(A, c, x, b)).toBeLessThan(1e-12);
            // the factor held in the heap: the same bits, solve after solve
            const xh = new Float64Array(n * c).fill(NaN);
            held.solve(b, xh);
            expect(Array.from(xh)).toEqual(Array.from(ref));
            expect(Array.from(b)).toEqual(Array.from(bCopy));
          }
          expect(h.heap.liveBytes - live).toBe(held.bytes);
          held.dispose();
          expect(h.heap.liveBytes).toBe(live);
          expect(() => held.solve(rhs(c, 0), new Float64Array(n * c))).toThrow(DisposedError);
        }
      });
    }
  }
});

describe('the sparse factor left in place (LuFactor.inPlace)', () => {
  it("a shared memory keeps L and U where the kernel wrote them, an unshared one copies them out: the same factor and solve bits, and release() gives the regions back", async () => {
    const n = 90;
    const q = Int32Array.from({ length: n }, (_, i) => (i * 7) % n);
    const unshared = new WasmHeap({ shared: false });
    const B = { heap: unshared, kernels: await instantiateKernels(await compileKernels('simd', false), unshared.memory) };
    for (const c of [1, 2]) {
      const A = randomCsc(n, 4, c, 31 + c);
      const live = simd.heap.liveBytes;
      const kept = cpuLuKernels(simd).sparse(n, A.colPtr, A.rowIdx, A.values, c === 2, q, 0.1, 10, () => {}, 40);
      const copied = cpuLuKernels(B).sparse(n, A.colPtr, A.rowIdx, A.values, c === 2, q, 0.1, 10, () => {}, 40);
      if (typeof kept === 'number' || typeof copied === 'number') throw new Error('singular');
      expect(kept.inPlace).toBeDefined();
      expect(copied.inPlace).toBeUndefined();
      // the views are of the shared heap's memory, the copies are not
      expect(kept.Lx.buffer).not.toBe(copied.Lx.buffer);
      expect(copied.Lx.buffer).not.toBeInstanceOf(SharedArrayBuffer);
      for (const k of ['Lp', 'Li', 'Lx', 'Up', 'Ui', 'Ux', 'pinv'] as const) expect(Array.from(kept[k]), k).toEqual(Array.from(copied[k]));
      kept.dinv = reciprocalDiagonal(kept);
      copied.dinv = reciprocalDiagonal(copied);
      const b = Float64Array.from({ length: n * c }, (_, i) => Math.sin(i + 1));
      const ref = referenceSolve(copied, b);
      const [xk, xc] = [new Float64Array(n * c), new Float64Array(n * c)];
      const held = cpuLuKernels(simd).hold(kept);
      held.solve(b, xk);
      cpuLuKernels(B).hold(copied).solve(b, xc);
      expect(Array.from(xk)).toEqual(Array.from(ref));
      expect(Array.from(xc)).toEqual(Array.from(ref));
      expect(residual(A, c, xk, b)).toBeLessThan(1e-12);
      held.dispose();
      // L's and U's regions are the factor's until released (the Factorization does when it lets the factor go)
      expect(simd.heap.liveBytes).toBeGreaterThan(live);
      kept.inPlace!.release();
      expect(simd.heap.liveBytes).toBe(live);
    }
  });
});
