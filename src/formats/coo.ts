import { type DType, type ValueArray } from '../dtype.js';
import { castValues, checkHeader, checkIndexArray, checkRange, checkValueArray } from './common.js';
import { CSRMatrix } from './csr.js';

/**
 * Coordinate (triplet) format: entry k is A[rowIdx[k], colIdx[k]] += values[k]. Any order; duplicates
 * are allowed and mean their sum.
 */
export class COOMatrix {
  readonly format = 'coo' as const;

  /** Takes the arrays as they are (no copy); checks only their types and lengths, see validate(). */
  constructor(
    readonly rows: number,
    readonly cols: number,
    readonly dtype: DType,
    readonly rowIdx: Int32Array,
    readonly colIdx: Int32Array,
    readonly values: ValueArray,
  ) {
    checkHeader('COO', rows, cols, dtype);
    checkIndexArray('COO', 'rowIdx', rowIdx);
    checkIndexArray('COO', 'colIdx', colIdx, rowIdx.length);
    checkValueArray('COO', dtype, values, rowIdx.length);
  }

  /** Stored triplets (duplicates counted separately). */
  get nnz(): number {
    return this.rowIdx.length;
  }

  /** Checks array lengths and 0 <= row < rows, 0 <= col < cols. */
  validate(): this {
    checkIndexArray('COO', 'colIdx', this.colIdx, this.rowIdx.length);
    checkValueArray('COO', this.dtype, this.values, this.rowIdx.length);
    checkRange('COO', 'rowIdx', this.rowIdx, 0, this.rows);
    checkRange('COO', 'colIdx', this.colIdx, 0, this.cols);
    return this;
  }

  /** Canonical CSR: sorted by (row, col), duplicates summed, explicit zeros kept. Validates first. */
  toCSR(): CSRMatrix {
    this.validate();
    return CSRMatrix.fromTriplets(this.rows, this.cols, this.dtype, this.rowIdx, this.colIdx, this.values);
  }

  /** Triplets in row-major order (the CSR's order). */
  static fromCSR(csr: CSRMatrix): COOMatrix {
    const c = csr.toCSR();
    const rowIdx = new Int32Array(c.nnz);
    for (let i = 0; i < c.rows; i++) rowIdx.fill(i, c.rowPtr[i], c.rowPtr[i + 1]);
    return new COOMatrix(c.rows, c.cols, c.dtype, rowIdx, c.colIdx.slice(), c.values.slice());
  }

  /** A copy with values converted to `dtype`; `this` when dtype is unchanged. */
  astype(dtype: DType): COOMatrix {
    if (dtype === this.dtype) return this;
    const values = castValues('COO', this.values, this.dtype, dtype);
    return new COOMatrix(this.rows, this.cols, dtype, this.rowIdx.slice(), this.colIdx.slice(), values);
  }

  /** Bytes of rowIdx, colIdx and values. */
  storageBytes(): number {
    return this.rowIdx.byteLength + this.colIdx.byteLength + this.values.byteLength;
  }
}
