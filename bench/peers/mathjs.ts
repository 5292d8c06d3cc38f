/**
 * mathjs peer: `math.multiply(SparseMatrix, DenseMatrix vector)`. mathjs stores sparse matrices
 * column-compressed (CSC: _values, _index = row numbers, _ptr = column pointers, _size). The CSC
 * of A is the CSR of Aᵀ, so A.transpose() gives its arrays directly, and we build the matrix with
 * the documented JSON form, `SparseMatrix.fromJSON({ values, index, ptr, size, datatype })`, which
 * takes the arrays as they are (no per-entry insert). Both operands carry datatype 'number', so
 * multiply looks up the number-specialised add/multiply once instead of dispatching per entry.
 * Its sparse·vector product walks A by columns, scattering x[j]·A[:,j] into a workspace, and
 * returns an (m×1) SparseMatrix with the rows in first-touch order; we scatter that into y.
 * f64 only. Slow (typed-function scalar calls per nonzero): meant for poisson3D_64-sized matrices.
 */
import { create, all, type Matrix } from 'mathjs';
import type { CSRMatrix } from '../../src/formats/csr.js';
import { timeMedianMs } from '../../src/metrics.js';
import type { PeerResult, PeerTiming, RealArray } from './common.js';

const math = create(all);
// The SparseMatrix class is on the instance at run time but not in mathjs's typings.
const SparseMatrix = (math as unknown as { SparseMatrix: { fromJSON(json: object): Matrix } }).SparseMatrix;

/** A as a mathjs SparseMatrix (CSC) built from our CSR. */
export function toMathjsSparse(A: CSRMatrix): Matrix {
  const T = A.transpose(); // rows of Aᵀ = columns of A, each sorted by row
  return SparseMatrix.fromJSON({
    mathjs: 'SparseMatrix',
    values: Array.from(T.values),
    index: Array.from(T.colIdx),
    ptr: Array.from(T.rowPtr),
    size: [A.rows, A.cols],
    datatype: 'number',
  });
}

export async function mathjsSpmv(A: CSRMatrix, x: RealArray, timing: PeerTiming = {}): Promise<PeerResult> {
  if (A.dtype !== 'f64') return { skipped: `mathjs peer is f64 only, not ${A.dtype}` };
  const M = toMathjsSparse(A);
  const v = math.matrix(Array.from(x), 'dense', 'number'); // a 1-D DenseMatrix: the matrix·vector path
  let r: Matrix | undefined;
  const ms = await timeMedianMs(() => { r = math.multiply(M, v); }, timing.minMs ?? 300, timing.minReps ?? 5);
  // The result is an m×1 sparse column; rows with no entries are zero.
  const y = new Float64Array(A.rows);
  if (r?.storage() !== 'sparse') throw new Error(`mathjs peer: expected a sparse result, got ${r?.storage()}`);
  const { _values, _index } = r as unknown as { _values: number[]; _index: number[] };
  for (let p = 0; p < _index.length; p++) y[_index[p]] = _values[p];
  return { ms, y };
}
