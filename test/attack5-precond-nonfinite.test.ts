/**
 * Fifth adversarial pass, preconditioners asked for by name on a matrix holding NaN or ±Inf: each setup
 * that reads A's off-diagonal values refuses it with an InputRangeError naming the row, column and
 * value (before: IC(0)/ILU(0) reported a breakdown 'even with the diagonal shifted', SSOR and AMG let
 * the solve end 'breakdown' — not 'nan' — and AMG read NaN as 'not symmetric'); with 'none' and 'auto'
 * a NaN ends the solve 'nan' as docs/solvers.md says; Jacobi keeps its own refusal of a non-finite diagonal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { poisson2D } from '../src/generators/poisson.js';
import { InputRangeError } from '../src/errors.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ workers: 2, backend: 'cpu' });
});
afterAll(() => rt.dispose());

/** poisson2D(12) with a[i][j] (and a[j][i]: the pattern and symmetry of the rest kept) set to v. */
function withEntry(i: number, j: number, v: number): CSRMatrix {
  const P = poisson2D(12);
  const values = Float64Array.from(P.values);
  for (const [r, c] of [[i, j], [j, i]]) {
    for (let k = P.rowPtr[r]; k < P.rowPtr[r + 1]; k++) if (P.colIdx[k] === c) values[k] = v;
  }
  return new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, values);
}

const KINDS = ['block-jacobi', 'ssor', 'ic0', 'ilu0', 'chebyshev', 'amg', 'saddle'] as const;

describe('preconditioners of a matrix holding NaN or ±Inf', () => {
  for (const [what, i, j, v] of [['Infinity on the diagonal', 0, 0, Infinity], ['NaN on the diagonal', 7, 7, NaN], ['Infinity off the diagonal', 13, 14, Infinity], ['-Infinity off the diagonal', 1, 13, -Infinity], ['NaN off the diagonal', 5, 6, NaN]] as const) {
    it(`${what}: each setup refuses it naming row ${Math.min(i, j)}, column ${Math.max(i, j)}; none and auto do not converge`, async () => {
      const A = withEntry(i, j, v);
      const h = rt.upload(A);
      const b = new Float64Array(A.rows).fill(1);
      const named = (e: unknown) => e instanceof InputRangeError && e.message.includes(`A holds ${v} at row ${Math.min(i, j)}, column ${Math.max(i, j)}`);
      for (const kind of KINDS) {
        expect(() => rt.preconditioner(h, { kind }), kind).toThrow(InputRangeError);
        for (const method of ['cg', 'gmres'] as const) await expect(rt.solve(h, b, { method, preconditioner: kind }), `${method} ${kind}`).rejects.toSatisfy(named);
      }
      expect(() => rt.amg(h)).toThrow(InputRangeError);
      // NaN ends 'nan' (docs/solvers.md promises it for NaN; ±Inf may read as a breakdown first)
      for (const preconditioner of ['none', 'auto'] as const) {
        const r = await rt.solve(h, b, { method: 'cg', preconditioner });
        expect(r.converged).toBe(false);
        if (Number.isNaN(v)) expect(r.reason).toBe('nan');
      }
      h.dispose();
    });
  }
});
