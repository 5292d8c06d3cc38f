/**
 * The solver layer's set-up (src/runtime/solver-setup.ts: the solve choice, the structure pass, the
 * preconditioners' and AMG's set-up, the CPU path's SpGEMM sessions, the direct solvers' symbolic phase)
 * is a chunk of its own (src/runtime/solver-setup-chunk.ts) that createRuntime imports beside the
 * kernels and waits for: a runtime's synchronous methods answer at once, a failed import rejects
 * createRuntime with the import's error (the CPU path it made meanwhile disposed) and the next call
 * imports again. test/lazy-solvers.test.ts checks that a page's first files hold none of it.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRuntime, CSRMatrix, poisson2D, randomMatrix } from '../src/index.js';
import { CpuPath } from '../src/cpu/path.js';
import { solverSetup } from '../src/runtime/solver-setup-chunk.js';

afterEach(() => {
  vi.restoreAllMocks();
});

const lost = () => new TypeError('Failed to fetch dynamically imported module');

/** C = A·B as a dense row-major array, by a plain loop over A's and B's CSR */
function denseProduct(A: CSRMatrix, B: CSRMatrix): Float64Array {
  const C = new Float64Array(A.rows * B.cols);
  for (let i = 0; i < A.rows; i++) {
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
      const j = A.colIdx[k];
      for (let l = B.rowPtr[j]; l < B.rowPtr[j + 1]; l++) C[i * B.cols + B.colIdx[l]] += A.values[k] * B.values[l];
    }
  }
  return C;
}

function toDense(C: CSRMatrix): Float64Array {
  const D = new Float64Array(C.rows * C.cols);
  for (let i = 0; i < C.rows; i++) for (let k = C.rowPtr[i]; k < C.rowPtr[i + 1]; k++) D[i * C.cols + C.colIdx[k]] += C.values[k];
  return D;
}

describe("the solver set-up's chunk", () => {
  it('createRuntime waits for it; then the synchronous methods answer at once', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const real = solverSetup.load;
    const load = vi.spyOn(solverSetup, 'load').mockImplementation(() => gate.then(() => real()));
    let made = false;
    const making = createRuntime({ backend: 'cpu', workers: 1 }).then((rt) => ((made = true), rt));
    await new Promise((r) => setTimeout(r, 200));
    expect(load).toHaveBeenCalled();
    expect(made).toBe(false);
    release();
    const rt = await making;
    try {
      expect(solverSetup.loaded()).toBe(true);
      const A = poisson2D(12);
      const h = rt.upload(A);
      expect(rt.explain('solve', h).method).toBe('direct');
      expect(rt.estimateFactorCost(h, 'cholesky').fillNnz).toBeGreaterThan(A.nnz / 2);
      const P = rt.upload(poisson2D(40));
      expect(rt.amg(P).amg?.levels.length).toBeGreaterThanOrEqual(2);
      expect(rt.preconditioner(h, { kind: 'ilu0' }).description).toMatch(/^ilu0/);
      const R = randomMatrix({ rows: 30, cols: 20, meanRowLength: 4, seed: 7 });
      const S = randomMatrix({ rows: 20, cols: 25, meanRowLength: 5, seed: 8 });
      const want = denseProduct(R, S);
      const got = toDense(rt.spgemm(R, S));
      expect(got.length).toBe(want.length);
      for (let i = 0; i < want.length; i++) expect(Math.abs(got[i] - want[i])).toBeLessThanOrEqual(1e-13 * (1 + Math.abs(want[i])));
    } finally {
      rt.dispose();
    }
  });

  it('a failed import rejects createRuntime with its error and disposes the CPU path; the next call imports again', async () => {
    const load = vi.spyOn(solverSetup, 'load').mockRejectedValueOnce(lost());
    const dispose = vi.spyOn(CpuPath.prototype, 'dispose');
    await expect(createRuntime({ backend: 'cpu', workers: 2 })).rejects.toThrow(/Failed to fetch/);
    expect(load).toHaveBeenCalledTimes(1);
    expect(dispose).toHaveBeenCalledTimes(1);
    const rt = await createRuntime({ backend: 'cpu', workers: 1 });
    try {
      expect(load).toHaveBeenCalledTimes(2);
      expect(rt.explain('solve', rt.upload(poisson2D(6))).method).toBe('direct');
    } finally {
      rt.dispose();
    }
  });
});
