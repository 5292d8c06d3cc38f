/** rt.gemm, rt.add and rt.transpose through the public API (CPU path in Node), against plain references. */
import { describe, expect, it } from 'vitest';
import { createRuntime } from '../src/runtime/runtime.js';
import { DenseMatrix } from '../src/formats/dense.js';
import { Prng } from '../src/generators/prng.js';
import { GpuUnavailableError } from '../src/gpu/index.js';
import { DisposedError, ShapeError, UnsupportedError } from '../src/errors.js';
import { DenseHandle } from '../src/runtime/handles.js';
import type { DType } from '../src/dtype.js';

function rand(rows: number, cols: number, dtype: DType, seed: number): DenseMatrix {
  const g = new Prng(seed);
  const n = rows * cols * (dtype === 'c64' || dtype === 'c128' ? 2 : 1);
  const v = dtype === 'f32' || dtype === 'c64' ? new Float32Array(n) : new Float64Array(n);
  for (let i = 0; i < n; i++) v[i] = g.next() * 2 - 1;
  return new DenseMatrix(rows, cols, dtype, v);
}

function refGemm(A: DenseMatrix, B: DenseMatrix, alpha: number, beta: number, C?: DenseMatrix): Float64Array {
  const out = new Float64Array(A.rows * B.cols);
  for (let i = 0; i < A.rows; i++)
    for (let j = 0; j < B.cols; j++) {
      let s = 0;
      for (let p = 0; p < A.cols; p++) s += A.values[i * A.cols + p] * B.values[p * B.cols + j];
      out[i * B.cols + j] = alpha * s + (beta ? beta * C!.values[i * B.cols + j] : 0);
    }
  return out;
}

describe('dense operations through the runtime', () => {
  for (const dtype of ['f32', 'f64'] as DType[]) {
    for (const [m, k, n] of [[1, 1, 1], [1, 50, 37], [7, 13, 11], [3, 1000, 3], [1000, 3, 17], [65, 66, 67]]) {
      it(`gemm ${dtype} ${m}×${k}·${k}×${n}, 1 and 2 threads, tiled and naive`, async () => {
        const A = rand(m, k, dtype, 1);
        const B = rand(k, n, dtype, 2);
        const C0 = rand(m, n, dtype, 3);
        const ref = refGemm(A, B, 1.5, -0.5, C0);
        const u = dtype === 'f32' ? 2 ** -24 : 2 ** -53;
        for (const workers of [1, 2]) {
          const rt = await createRuntime({ workers, inlineThreshold: 0 });
          for (const naive of [false, true]) {
            const C = new DenseMatrix(m, n, dtype, C0.values.slice());
            const out = await rt.gemm(A, B, { C, alpha: 1.5, beta: -0.5, naive });
            expect(out).toBe(C);
            for (let i = 0; i < ref.length; i++) {
              expect(Math.abs(out.values[i] - ref[i]), `${workers} threads naive=${naive} at ${i}`).toBeLessThanOrEqual(4 * (k + 4) * u * (1.5 * k + 1));
            }
          }
          const fresh = await rt.gemm(A, B);
          expect(fresh.rows).toBe(m);
          expect(fresh.cols).toBe(n);
          rt.dispose();
        }
      });
    }
  }

  it('transpose matches the definition B[j][i] = A[i][j]; add is α·A + β·B', async () => {
    const rt = await createRuntime({ workers: 2, inlineThreshold: 0 });
    for (const [r, c] of [[1, 1], [1, 9], [9, 1], [33, 17], [130, 257]]) {
      for (const dtype of ['f32', 'f64', 'c64'] as DType[]) {
        const A = rand(r, c, dtype, 4);
        const T = await rt.transpose(A);
        expect([T.rows, T.cols]).toEqual([c, r]);
        const w = dtype === 'c64' ? 2 : 1;
        for (let i = 0; i < r; i++) for (let j = 0; j < c; j++) for (let q = 0; q < w; q++) expect(T.values[(j * r + i) * w + q]).toBe(A.values[(i * c + j) * w + q]);
      }
      const A = rand(r, c, 'f64', 5);
      const B = rand(r, c, 'f64', 6);
      const S = await rt.add(A, B, { alpha: 2, beta: -3 });
      for (let i = 0; i < r * c; i++) expect(S.values[i]).toBeCloseTo(2 * A.values[i] - 3 * B.values[i], 14);
    }
    rt.dispose();
  });

  it('bad shapes, mixed dtypes and unsupported combinations are typed errors; no GPU in Node', async () => {
    const rt = await createRuntime();
    await expect(rt.gemm(rand(2, 3, 'f64', 1), rand(4, 2, 'f64', 1))).rejects.toThrow(ShapeError);
    await expect(rt.gemm(rand(2, 3, 'f64', 1), rand(3, 2, 'f32', 1))).rejects.toThrow(/dtypes differ/);
    await expect(rt.gemm(rand(2, 3, 'f64', 1), rand(3, 2, 'f64', 1), { C: rand(3, 3, 'f64', 1) })).rejects.toThrow(/C is 3×3, expected 2×2/);
    await expect(rt.add(rand(2, 3, 'f64', 1), rand(3, 2, 'f64', 1))).rejects.toThrow(ShapeError);
    await expect(rt.add(rand(2, 2, 'f64', 1), rand(2, 2, 'f64', 1), { alpha: [1, 2] })).rejects.toThrow(UnsupportedError);
    await expect(rt.transpose(rand(2, 2, 'f64', 1), { path: 'gpu' })).rejects.toThrow(GpuUnavailableError);
    rt.dispose();
  });
});

describe('resident dense handles (rt.dense)', () => {
  it('gemm, add and transpose take and return handles; results equal the DenseMatrix path; C updated in place', async () => {
    const rt = await createRuntime({ workers: 2, inlineThreshold: 0 });
    for (const dtype of ['f32', 'f64'] as DType[]) {
      const A = rand(37, 53, dtype, 1);
      const B = rand(53, 29, dtype, 2);
      const hA = rt.dense(A);
      const hB = rt.dense(B);
      expect([hA.rows, hA.cols, hA.dtype, hA.format]).toEqual([37, 53, dtype, 'dense']);
      const P = await rt.gemm(hA, hB, { alpha: 2 });
      expect(P).toBeInstanceOf(DenseHandle);
      const plain = await rt.gemm(A, B, { alpha: 2 });
      expect(Array.from((await P.read()).values)).toEqual(Array.from(plain.values));
      // mixed operands: a handle and a DenseMatrix give a handle
      const mixed = await rt.gemm(hA, B, { alpha: 2 });
      expect(Array.from((await mixed.read()).values)).toEqual(Array.from(plain.values));
      // C as a handle: updated in place, β·C read
      const C0 = rand(37, 29, dtype, 3);
      const hC = rt.dense(C0);
      expect(await rt.gemm(hA, hB, { C: hC, alpha: 1.5, beta: -0.5 })).toBe(hC);
      const ref = refGemm(A, B, 1.5, -0.5, C0);
      const u = dtype === 'f32' ? 2 ** -24 : 2 ** -53;
      const got = (await hC.read()).values;
      for (let i = 0; i < ref.length; i++) expect(Math.abs(got[i] - ref[i])).toBeLessThanOrEqual(4 * 57 * u * (1.5 * 53 + 1));
      // a handle C with DenseMatrix inputs stays a handle
      expect(await rt.gemm(A, B, { C: hC })).toBe(hC);
      // transpose of a handle: B[j][i] = A[i][j] exactly; twice gives A back
      const T = await rt.transpose(hA);
      expect([T.rows, T.cols]).toEqual([53, 37]);
      const Tv = (await T.read()).values;
      for (let i = 0; i < 37; i++) for (let j = 0; j < 53; j++) expect(Tv[j * 37 + i]).toBe(A.values[i * 53 + j]);
      expect(Array.from((await (await rt.transpose(T)).read()).values)).toEqual(Array.from(A.values));
      // add of handles
      const S = await rt.add(hA, hA, { alpha: 2, beta: -1 });
      expect(Array.from((await S.read()).values)).toEqual(Array.from(A.values));
      // a zero handle of a shape, written from the host
      const Z = rt.dense({ dtype, rows: 37, cols: 53 });
      expect((await Z.read()).values.every((v) => v === 0)).toBe(true);
      Z.write(A);
      expect(Array.from((await rt.add(Z, hA, { alpha: 1, beta: -1 }).then((h) => h.read())).values).every((v) => v === 0)).toBe(true);
    }
    rt.dispose();
  });

  it('handles cost no copies: memory held by handles only; dispose frees it; errors are typed', async () => {
    const rt = await createRuntime();
    const other = await createRuntime();
    const before = rt.memoryInUse;
    const h = rt.dense({ dtype: 'f64', rows: 100, cols: 100 });
    expect(rt.memoryInUse - before).toBeGreaterThanOrEqual(100 * 100 * 8);
    const mid = rt.memoryInUse;
    const T = await rt.transpose(h);
    expect(rt.memoryInUse - mid).toBe(mid - before); // only the result was allocated
    T.dispose();
    h.dispose();
    expect(rt.memoryInUse).toBe(before);
    await expect(rt.transpose(h)).rejects.toThrow(DisposedError);
    expect(() => h.write(rand(100, 100, 'f64', 1))).toThrow(DisposedError);
    const g = rt.dense(rand(3, 4, 'f64', 1));
    expect(() => g.write(rand(4, 3, 'f64', 1))).toThrow(ShapeError);
    await expect(other.transpose(g)).rejects.toThrow(/another runtime/);
    await expect(rt.gemm(g, g)).rejects.toThrow(ShapeError);
    await expect(rt.gemm(g, rt.dense(rand(4, 3, 'f64', 1)), { C: g })).rejects.toThrow(ShapeError);
    expect(() => rt.dense({ dtype: 'f64', rows: -1, cols: 2 })).toThrow(ShapeError);
    expect(() => rt.dense({ dtype: 'f16' as 'f32', rows: 1, cols: 2 })).toThrow(UnsupportedError);
    await expect(rt.add(rt.dense(rand(2, 2, 'f64', 1)), rt.dense(rand(2, 2, 'f64', 1)), { alpha: [1, 2] })).rejects.toThrow(UnsupportedError); // complex α, real data
    await expect(rt.transpose(g, { path: 'gpu' })).rejects.toThrow(GpuUnavailableError);
    const live = rt.memoryInUse;
    rt.dispose();
    expect(live).toBeGreaterThan(0);
    expect(g.disposed).toBe(true);
    other.dispose();
  });
});
