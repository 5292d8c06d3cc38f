/**
 * The kept factor's residual kernel (assembly/residual.ts direct_residual, held by src/cpu/held-residual.ts
 * holdResidual): r = b − A·x along A's rows, each row's |bᵢ| + Σ|aᵢⱼ||xⱼ| (the rounding bound's sums)
 * and the sums F.solve's refinement test reads, bit for bit
 * as a plain f64 loop in the same order, real and complex, on both builds; its views made again
 * after an unshared memory grows; its bytes freed by dispose.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { holdResidual } from '../src/cpu/held-residual.js';
import { WasmHeap } from '../src/cpu/memory.js';
import { compileKernels, instantiateKernels } from '../src/cpu/wasm.js';
import { DisposedError } from '../src/errors.js';
import type { Csc } from '../src/solvers/direct/pattern.js';
import { Prng } from '../src/generators/prng.js';
import { makeHarness, type Harness } from './kernel-harness.js';

let simd: Harness;
let plain: Harness;
beforeAll(async () => {
  [simd, plain] = await Promise.all([makeHarness('simd'), makeHarness('plain')]);
});

/** A by rows (as Csc of Aᵀ): `per` entries a row at random columns, values of several magnitudes and signs. */
function rows(n: number, per: number, complex: boolean, seed: number): Csc {
  const rng = new Prng(seed);
  const c = complex ? 2 : 1;
  const colPtr = new Int32Array(n + 1);
  const idx: number[] = [];
  const val: number[] = [];
  for (let i = 0; i < n; i++) {
    const cols = new Set<number>([i]);
    while (cols.size < Math.min(n, per)) cols.add(Math.floor(rng.next() * n));
    for (const j of [...cols].sort((a, b) => a - b)) {
      idx.push(j);
      for (let s = 0; s < c; s++) val.push((rng.next() - 0.5) * 10 ** Math.floor(rng.next() * 6 - 3));
    }
    colPtr[i + 1] = idx.length;
  }
  return { n, colPtr, rowIdx: Int32Array.from(idx), values: Float64Array.from(val), complex };
}

/** The plain loop: r, the row sums w, then [Σ|b|², max|b|, max|x|, max|r|, Σ|r|²] (|re| + |im| for the maxima and w). */
function reference(A: Csc, b: Float64Array, x: Float64Array): { r: Float64Array; w: Float64Array; sums: number[] } {
  const c = A.complex ? 2 : 1;
  const r = new Float64Array(c * A.n);
  const w = new Float64Array(A.n);
  const sums = [0, 0, 0, 0, 0];
  const mag = (v: ArrayLike<number>, k: number) => (c === 1 ? Math.abs(v[k]) : Math.abs(v[2 * k]) + Math.abs(v[2 * k + 1]));
  for (let i = 0; i < A.n; i++) {
    const s = [b[c * i], c === 2 ? b[2 * i + 1] : 0];
    w[i] = mag(b, i);
    for (let p = A.colPtr[i]; p < A.colPtr[i + 1]; p++) {
      const j = A.rowIdx[p];
      w[i] += mag(A.values, p) * mag(x, j);
      if (c === 1) s[0] -= A.values[p] * x[j];
      else {
        s[0] -= A.values[2 * p] * x[2 * j] - A.values[2 * p + 1] * x[2 * j + 1];
        s[1] -= A.values[2 * p] * x[2 * j + 1] + A.values[2 * p + 1] * x[2 * j];
      }
    }
    for (let t = 0; t < c; t++) r[c * i + t] = s[t];
    sums[0] += c === 1 ? b[i] * b[i] : b[2 * i] * b[2 * i] + b[2 * i + 1] * b[2 * i + 1];
    sums[4] += c === 1 ? s[0] * s[0] : s[0] * s[0] + s[1] * s[1];
    sums[1] = Math.max(sums[1], mag(b, i));
    sums[2] = Math.max(sums[2], mag(x, i));
    sums[3] = Math.max(sums[3], mag(r, i));
  }
  return { r, w, sums };
}

describe('direct_residual', () => {
  for (const complex of [false, true]) {
    it(`${complex ? 'complex' : 'real'}: r and the sums of the plain loop, bit for bit, on both builds; freed by dispose`, () => {
      const c = complex ? 2 : 1;
      for (const [n, per, seed] of [[1, 1, 1], [7, 3, 2], [120, 9, 3]]) {
        const A = rows(n, per, complex, seed);
        const rng = new Prng(seed + 10);
        const b = Float64Array.from({ length: c * n }, () => rng.next() - 0.5);
        const x = Float64Array.from({ length: c * n }, () => (rng.next() - 0.5) * 1e3);
        const ref = reference(A, b, x);
        for (const h of [simd, plain]) {
          const live = h.heap.liveBytes;
          const held = holdResidual(h, A);
          for (let k = 0; k < 2; k++) {
            const r = new Float64Array(c * n).fill(NaN);
            const w = new Float64Array(n).fill(NaN);
            const sums = Array.from(held.residual(b, x, r, w));
            expect(Array.from(r)).toEqual(Array.from(ref.r));
            expect(Array.from(w)).toEqual(Array.from(ref.w));
            expect(sums).toEqual(ref.sums);
            // without the row sums (w null): the same r and sums
            r.fill(NaN);
            expect(Array.from(held.residual(b, x, r, null))).toEqual(ref.sums);
            expect(Array.from(r)).toEqual(Array.from(ref.r));
          }
          held.dispose();
          expect(h.heap.liveBytes).toBe(live);
          expect(() => held.residual(b, x, new Float64Array(c * n), new Float64Array(n))).toThrow(DisposedError);
        }
      }
    });
  }

  it('an unshared memory grown between two calls: the same answer (its views made again)', async () => {
    const heap = new WasmHeap({ shared: false, initialPages: 2 });
    const kernels = await instantiateKernels(await compileKernels('plain', false), heap.memory);
    const A = rows(50, 5, true, 9);
    const b = Float64Array.from({ length: 100 }, (_, i) => Math.sin(i));
    const x = Float64Array.from({ length: 100 }, (_, i) => Math.cos(i));
    const ref = reference(A, b, x);
    const held = holdResidual({ heap, kernels }, A);
    const r = new Float64Array(100);
    const w = new Float64Array(50);
    expect(Array.from(held.residual(b, x, r, w))).toEqual(ref.sums);
    const pages = heap.memory.buffer.byteLength;
    const big = heap.alloc(4 * pages);
    expect(heap.memory.buffer.byteLength).toBeGreaterThan(pages);
    r.fill(0);
    w.fill(0);
    expect(Array.from(held.residual(b, x, r, w))).toEqual(ref.sums);
    expect(Array.from(r)).toEqual(Array.from(ref.r));
    expect(Array.from(w)).toEqual(Array.from(ref.w));
    big.dispose();
    held.dispose();
  });
});
