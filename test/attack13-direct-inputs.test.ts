/**
 * Thirteenth attack pass, the direct solvers' entry points with hostile inputs:
 * - rt.estimateFactorCost of an empty 10⁸×10⁸ matrix ran 1.5 s and 0.9 GB into its symbolic phase before
 *   the WebAssembly memory's own error ("WebAssembly memory would take 8.2 GiB", no operation named),
 *   where rt.factor refuses the same sizes at once (attack10): it is now the same MemoryLimitError,
 *   from the sizes, under the runtime's budget.
 * - F.refactor(A2) with something that is not a matrix threw V8's TypeError ("Cannot read properties of
 *   undefined (reading 'toCSR')", "A.toCSR is not a function"); it is now an InputTypeError naming A2.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { poisson2D } from '../src/generators/poisson.js';
import { InputTypeError, MemoryLimitError } from '../src/errors.js';

/** An n×n matrix with no entries */
function empty(n: number): CSRMatrix {
  return new CSRMatrix(n, n, 'f64', new Int32Array(n + 1), new Int32Array(0), new Float64Array(0));
}

describe('attack13: the direct solvers refuse what they cannot take, typed and at once', () => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await createRuntime({ backend: 'cpu', workers: 1, maxMemoryMB: 64 });
  });
  afterAll(() => rt?.dispose());

  it("rt.estimateFactorCost of 3·10⁶ empty rows in a 64 MiB runtime: MemoryLimitError naming its symbolic phase, nothing held", () => {
    const h = rt.upload(empty(3e6));
    const before = rt.memoryInUse;
    for (const A of [h, empty(3e6)]) {
      for (const kind of ['lu', 'cholesky'] as const) {
        expect(() => rt.estimateFactorCost(A, kind)).toThrow(MemoryLimitError);
        expect(() => rt.estimateFactorCost(A, kind)).toThrow(/^estimateFactorCost: 3000000 rows' symbolic phase needs at least 81 MiB, over the memory budget of 64 MiB/);
      }
    }
    expect(rt.memoryInUse).toBe(before);
    h.dispose();
    // within the budget it still estimates: poisson2D(8)'s Cholesky factor has more entries than its lower triangle
    const c = rt.estimateFactorCost(poisson2D(8), 'cholesky');
    expect(c.fillNnz).toBeGreaterThan((poisson2D(8).nnz + 64) / 2);
  });

  it('F.refactor of something that is not a matrix: InputTypeError naming A2; the factorization still solves', async () => {
    const A = poisson2D(4);
    const F = await rt.factor(A);
    for (const bad of [undefined, null, 3, {}, [1, 2], 'csr']) {
      await expect(F.refactor(bad as never)).rejects.toThrow(InputTypeError);
      await expect(F.refactor(bad as never)).rejects.toThrow(/^refactor: A2: expected a matrix/);
    }
    const b = new Float64Array(16).fill(1);
    const { x } = await F.solve(b);
    // an independent f64 residual of the answer
    let r2 = 0;
    for (let i = 0; i < 16; i++) {
      let s = b[i];
      for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) s -= A.values[k] * x[A.colIdx[k]];
      r2 += s * s;
    }
    expect(Math.sqrt(r2 / 16)).toBeLessThan(1e-12);
    F.dispose();
  });
});
