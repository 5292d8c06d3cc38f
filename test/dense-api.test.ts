/** rt.gemm, rt.add and rt.transpose through the public API (CPU path in Node), against plain references. */
import { describe, expect, it } from 'vitest';
import { createRuntime } from '../src/runtime/runtime.js';
import { DenseMatrix } from '../src/formats/dense.js';
import { Prng } from '../src/generators/prng.js';
import { GpuUnavailableError } from '../src/gpu/index.js';
import { ShapeError, UnsupportedError } from '../src/errors.js';
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
