/** constantInverseDiagonal (src/solvers/precond/jacobi.ts) against a plain dense reading of the diagonal. */
import { describe, expect, it } from 'vitest';
import { constantInverseDiagonal } from '../src/solvers/precond/jacobi.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { DIAMatrix } from '../src/formats/dia.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';

/** The diagonal, duplicates summed, read entry by entry; its value when every row has the same nonzero finite one, else null. */
function plainConstant(A: CSRMatrix): number | null {
  const d: number[] = [];
  for (let i = 0; i < A.rows; i++) {
    let s = 0;
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) if (A.colIdx[k] === i) s += A.values[k];
    d.push(s);
  }
  return d.length > 0 && d.every((v) => v === d[0] && v !== 0 && Number.isFinite(v)) ? d[0] : null;
}

function triplets(n: number, entries: [number, number, number][]): CSRMatrix {
  return CSRMatrix.fromTriplets(n, n, 'f64', Int32Array.from(entries, (e) => e[0]), Int32Array.from(entries, (e) => e[1]), Float64Array.from(entries, (e) => e[2]));
}

describe('constantInverseDiagonal', () => {
  const P = poisson2D(6);
  const changed = (row: number, value: number): CSRMatrix => {
    const V = new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, Float64Array.from(P.values));
    for (let k = V.rowPtr[row]; k < V.rowPtr[row + 1]; k++) if (V.colIdx[k] === row) V.values[k] = value;
    return V;
  };
  const cases: [string, CSRMatrix, boolean][] = [
    ['poisson2D', P, true],
    ['poisson3D f32', poisson3D(4).astype('f32'), true],
    ['one entry changed', changed(35, 4.5), false],
    ['a zero entry', changed(0, 0), false],
    ['a NaN entry', changed(3, NaN), false],
    ['duplicates summing to the constant', triplets(3, [[0, 0, 2], [1, 1, 1], [1, 1, 1], [2, 2, 2], [0, 1, -1]]), true],
    ['a row without its diagonal entry', triplets(3, [[0, 0, 2], [1, 0, 2], [2, 2, 2]]), false],
    ['1×1', triplets(1, [[0, 0, -3]]), true],
  ];
  for (const [name, A, want] of cases) {
    it(name, () => {
      const c = plainConstant(A);
      expect(c !== null).toBe(want);
      // as Jacobi keeps it: in the matrix's precision
      const want1 = c === null ? null : A.dtype === 'f32' ? Math.fround(1 / c) : 1 / c;
      expect(constantInverseDiagonal(A)).toBe(want1);
      // from a DIA copy (a GPU path's upload source, rt.solve's first solve): its main diagonal alone, the same answer
      expect(constantInverseDiagonal(DIAMatrix.fromCSR(A))).toBe(want1);
    });
  }
  it('a complex matrix is never taken as constant', () => {
    expect(constantInverseDiagonal(P.astype('c128'))).toBe(null);
  });
});
