import type { DType, ValueArray } from '../dtype.js';
import { castValues, checkHeader, checkIndexArray, checkValueArray } from './common.js';
import { CSRMatrix, validateCompressed } from './csr.js';

/**
 * Compressed sparse column: column j holds entries k in [colPtr[j], colPtr[j+1]) with row rowIdx[k].
 * Its arrays are exactly the CSR arrays of Aᵀ, which is how it converts.
 */
export class CSCMatrix {
  readonly format = 'csc' as const;

  /** Takes the arrays as they are (no copy); checks only their types and lengths, see validate(). */
  constructor(
    readonly rows: number,
    readonly cols: number,
    readonly dtype: DType,
    readonly colPtr: Int32Array,
    readonly rowIdx: Int32Array,
    readonly values: ValueArray,
  ) {
    checkHeader('CSC', rows, cols, dtype);
    checkIndexArray('CSC', 'colPtr', colPtr, cols + 1);
    checkIndexArray('CSC', 'rowIdx', rowIdx);
    checkValueArray('CSC', dtype, values, rowIdx.length);
  }

  /** Stored entries. */
  get nnz(): number {
    return this.rowIdx.length;
  }

  /** Checks colPtr[0] = 0, colPtr nondecreasing, colPtr[cols] = rowIdx.length, 0 <= row < rows. */
  validate(): this {
    validateCompressed('CSC', 'colPtr', 'rowIdx', this.colPtr, this.rowIdx, this.rows, this.dtype, this.values);
    return this;
  }

  /** Canonical CSR (transpose of the CSR view of Aᵀ; duplicates summed). */
  toCSR(): CSRMatrix {
    this.validate();
    return this.asTransposedCSR().transpose().toCSR();
  }

  /** CSC of a CSR: columns sorted by row, no duplicates. */
  static fromCSR(csr: CSRMatrix): CSCMatrix {
    const t = csr.toCSR().transpose();
    return new CSCMatrix(csr.rows, csr.cols, csr.dtype, t.rowPtr, t.colIdx, t.values);
  }

  /** Aᵀ as a CSR sharing this matrix's arrays (no copy). */
  asTransposedCSR(): CSRMatrix {
    return new CSRMatrix(this.cols, this.rows, this.dtype, this.colPtr, this.rowIdx, this.values);
  }

  /** A copy with values converted to `dtype`; `this` when dtype is unchanged. */
  astype(dtype: DType): CSCMatrix {
    if (dtype === this.dtype) return this;
    const values = castValues('CSC', this.values, this.dtype, dtype);
    return new CSCMatrix(this.rows, this.cols, dtype, this.colPtr.slice(), this.rowIdx.slice(), values);
  }

  /** Bytes of colPtr, rowIdx and values. */
  storageBytes(): number {
    return this.colPtr.byteLength + this.rowIdx.byteLength + this.values.byteLength;
  }
}
