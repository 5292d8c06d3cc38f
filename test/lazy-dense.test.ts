/**
 * The CPU path's dense kernels' glue (src/cpu/dense.ts) is a chunk of its own (cpuDenseChunk in
 * src/cpu/path.ts): products and solves leave it unloaded, the first gemm loads it, and that gemm has
 * copied its host operands before it waits (a change to them after the call is not seen), its answer
 * the plain triple loop's. test/lazy-solvers checks it sits behind its dynamic import in a page's bundle.
 */
import { describe, expect, it } from 'vitest';
import { createRuntime, DenseMatrix, poisson2D } from '../src/index.js';
import { cpuDenseChunk } from '../src/cpu/path.js';

/** C = A·B by the plain triple loop, in f64 */
function product(A: DenseMatrix, B: DenseMatrix): number[] {
  const out: number[] = [];
  for (let i = 0; i < A.rows; i++) {
    for (let j = 0; j < B.cols; j++) {
      let s = 0;
      for (let k = 0; k < A.cols; k++) s += A.values[i * A.cols + k] * B.values[k * B.cols + j];
      out.push(s);
    }
  }
  return out;
}

describe("the CPU path's dense kernels", () => {
  it('sparse work leaves them unloaded; the first gemm loads them, its host operands copied at the call', async () => {
    const rt = await createRuntime({ backend: 'cpu', workers: 1 });
    try {
      const S = rt.upload(poisson2D(6));
      const b = new Float64Array(36).fill(1);
      await rt.spmv(S, b);
      expect((await rt.cg(S, b)).converged).toBe(true);
      expect(cpuDenseChunk.loaded()).toBe(false);
      const n = 24;
      const A = new DenseMatrix(n, n, 'f64', Float64Array.from({ length: n * n }, (_, i) => Math.sin(i + 1)));
      const B = new DenseMatrix(n, n, 'f64', Float64Array.from({ length: n * n }, (_, i) => Math.cos(0.5 * i)));
      const want = product(A, B);
      const pending = rt.gemm(A, B);
      // changed after the call, while the chunk may still load: not seen
      A.values.fill(7);
      B.values.fill(-3);
      const C = await pending;
      expect(cpuDenseChunk.loaded()).toBe(true);
      const err = Array.from(C.values).reduce((m, v, i) => Math.max(m, Math.abs(v - want[i])), 0);
      expect(err).toBeLessThanOrEqual(1e-12 * n);
    } finally {
      rt.dispose();
    }
  });
});
