import { allocValues, isComplex, type ValueArray } from '../../dtype.js';
import { ShapeError } from '../../errors.js';
import type { CSRMatrix } from '../../formats/csr.js';

/**
 * D⁻¹ for the Jacobi preconditioner: the inverse of A's diagonal (duplicates summed), computed once
 * on the host for either path. A zero or non-finite diagonal entry is an error naming the row.
 */
export function inverseDiagonal(A: CSRMatrix): ValueArray {
  const complex = isComplex(A.dtype);
  const d = allocValues(A.dtype, A.rows);
  for (let i = 0; i < A.rows; i++) {
    let re = 0;
    let im = 0;
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
      if (A.colIdx[k] !== i) continue;
      re += complex ? A.values[2 * k] : A.values[k];
      if (complex) im += A.values[2 * k + 1];
    }
    const m = re * re + im * im;
    if (!(m > 0) || !Number.isFinite(m)) {
      throw new ShapeError(`jacobi: the diagonal entry A[${i},${i}] is ${m === 0 ? 'zero' : 'not finite'}; use preconditioner: 'none'`);
    }
    if (complex) {
      d[2 * i] = re / m;
      d[2 * i + 1] = -im / m;
    } else d[i] = 1 / re;
  }
  return d;
}
