/**
 * Attack on special values through rt.solve's 'auto' choices: NaN and ±Inf are data (docs/solvers.md,
 * "Bad input": NaN in A or b ends with 'nan'), so a solve the caller left to 'auto' must end with that
 * reason, not throw from a preconditioner it did not ask for.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { poisson2D } from '../src/generators/poisson.js';
import { CSRMatrix } from '../src/formats/csr.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ workers: 2, backend: 'cpu' });
});
afterAll(() => rt.dispose());

/** poisson2D(6) with one stored value replaced (k: its index in the CSR). */
function withValue(k: number, v: number): CSRMatrix {
  const P = poisson2D(6);
  const values = Float64Array.from(P.values);
  values[k] = v;
  return new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, values);
}

describe("rt.solve with 'auto' choices on a matrix holding NaN or ±Inf", () => {
  const P = poisson2D(6);
  const diagonal = P.rowPtr[7] + [...P.colIdx.subarray(P.rowPtr[7], P.rowPtr[8])].indexOf(7);
  const cases: [string, CSRMatrix][] = [
    ['NaN off the diagonal', withValue(5, NaN)],
    ['Infinity off the diagonal', withValue(5, Infinity)],
    ['NaN on the diagonal', withValue(diagonal, NaN)],
  ];
  for (const [what, A] of cases) {
    it(`${what}: ends 'nan'`, async () => {
      const h = rt.upload(A);
      const b = new Float64Array(A.rows).fill(1);
      for (const method of [undefined, 'cg', 'gmres', 'bicgstab', 'minres'] as const) {
        const r = await rt.solve(h, b, method ? { method } : {});
        expect(r.reason, `method ${method ?? "'auto'"}`).toBe('nan');
        expect(r.converged).toBe(false);
      }
      h.dispose();
    });
  }
});
