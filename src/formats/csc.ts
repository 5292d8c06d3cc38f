import type { DType, ValueArray } from '../dtype.js';
import { withMemoryBudget } from '../memory-budget.js';
import { type AstypeOptions, castValues, checkHeader, checkIndexArray, checkValueArray, segmentOf } from './common.js';
import { CSRMatrix, validateCompressed } from './csr.js';
import { compressedArrays, type CompressedArrays } from './from-arrays.js';

/**
 * Compressed sparse column: column j holds entries k in [colPtr[j], colPtr[j+1]) with row rowIdx[k].
 * Its arrays are exactly the CSR arrays of Aᵀ, which is how it converts.
 *
 * @example
 * ```js
 * import { CSCMatrix } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * // A = [[1, 0, 2], [0, 3, 0]] column by column
 * const A = new CSCMatrix(2, 3, 'f64', new Int32Array([0, 1, 2, 3]), new Int32Array([0, 1, 0]), new Float64Array([1, 3, 2]));
 * const csr = A.toCSR();
 * assert.deepEqual([...csr.colIdx], [0, 2, 1]);
 * assert.deepEqual([...csr.values], [1, 2, 3]);
 * assert.deepEqual(CSCMatrix.fromCSR(csr).colPtr, A.colPtr);
 * ```
 */
export class CSCMatrix {
  /** the format's name, `'csc'` */
  readonly format = 'csc' as const;

  /**
   * Takes the arrays as they are (no copy); checks only their types and lengths, see validate().
   *
   * @throws {@link ShapeError} when rows or cols is not an integer in [0, 2³¹ − 1].
   * @throws {@link UnsupportedError} for an unknown dtype.
   * @throws {@link FormatError} when an index array is not an Int32Array, colPtr's length is not cols + 1, or values' length differs from rowIdx's.
   */
  constructor(
    /** number of rows */
    readonly rows: number,
    /** number of columns */
    readonly cols: number,
    /** element type: the value arrays are Float32Array for f32/c64 and Float64Array for f64/c128 */
    readonly dtype: DType,
    /** cols + 1 offsets: the entries of column j are those in [colPtr[j], colPtr[j+1]) */
    readonly colPtr: Int32Array,
    /** row of each entry (0-based) */
    readonly rowIdx: Int32Array,
    /** value of each entry (interleaved re, im when complex) */
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

  /**
   * Checks colPtr[0] = 0, colPtr nondecreasing, colPtr[cols] = rowIdx.length, 0 <= row < rows.
   *
   * @throws {@link FormatError} naming the array, the index and the expected against the actual value, at the first invariant broken.
   */
  validate(): this {
    validateCompressed('CSC', 'colPtr', 'rowIdx', this.colPtr, this.rowIdx, this.rows, this.dtype, this.values);
    return this;
  }

  /**
   * Canonical CSR (transpose of the CSR view of Aᵀ; duplicates summed).
   *
   * @throws {@link FormatError} when the matrix breaks an invariant of its format (it validates first).
   */
  toCSR(): CSRMatrix {
    return withMemoryBudget(undefined, () => {
      this.validate();
      return this.asTransposedCSR().transpose().toCSR();
    });
  }

  /**
   * A CSC from SciPy's arrays, in SciPy's names (`{ indptr, indices, data, shape }` of a
   * `scipy.sparse.csc_array`): indptr has cols + 1 entries, indices are rows. The arrays are copied and
   * may be any numeric array-like, as for {@link CSRMatrix.from}.
   *
   * @throws {@link InputTypeError} when `src` is not such an object, or an array is not an array of numbers.
   * @throws {@link InputRangeError} when an index is not an integer in [0, 2³¹ − 1] (`index` names it).
   * @throws {@link ShapeError} when shape is not two integers, indptr's length is not cols + 1, or data's
   * length differs from indices'.
   * @throws {@link FormatError} when indptr is not a valid pointer array or a row is ≥ rows.
   * @throws {@link UnsupportedError} for an unknown dtype.
   *
   * @example
   * ```js
   * import { CSCMatrix } from 'simdgl';
   * import assert from 'node:assert/strict';
   *
   * // A = [[1, 0, 2], [0, 3, 0]] column by column, indices from a Uint32Array
   * const A = CSCMatrix.from({ indptr: [0, 1, 2, 3], indices: new Uint32Array([0, 1, 0]), data: new Float32Array([1, 3, 2]), shape: [2, 3] });
   * assert.equal(A.dtype, 'f32');                            // from the Float32Array
   * assert.deepEqual([...A.toCSR().values], [1, 2, 3]);
   * ```
   */
  static from(src: CompressedArrays): CSCMatrix {
    const a = compressedArrays('CSCMatrix.from', src, 'cols');
    return new CSCMatrix(a.rows, a.cols, a.dtype, a.ptr, a.idx, a.values).validate();
  }

  /**
   * CSC of a CSR: columns sorted by row, no duplicates.
   *
   * @throws {@link FormatError} when csr breaks an invariant of CSR.
   */
  static fromCSR(csr: CSRMatrix): CSCMatrix {
    return withMemoryBudget(undefined, () => {
      const t = csr.toCSR().transpose();
      return new CSCMatrix(csr.rows, csr.cols, csr.dtype, t.rowPtr, t.colIdx, t.values);
    });
  }

  /** Aᵀ as a CSR sharing this matrix's arrays (no copy). */
  asTransposedCSR(): CSRMatrix {
    return new CSRMatrix(this.cols, this.rows, this.dtype, this.colPtr, this.rowIdx, this.values);
  }

  /**
   * A copy with values converted to `dtype`; `this` when dtype is unchanged.
   *
   * @throws {@link UnsupportedError} from a complex dtype to a real one (it would drop the imaginary parts), or for an unknown dtype.
   * @throws {@link InputRangeError} to f32 or c64, for a finite value beyond f32's range or a nonzero one below its smallest subnormal (naming its row and column), unless `options.outOfRange` is `'round'`.
   */
  astype(dtype: DType, options?: AstypeOptions): CSCMatrix {
    if (dtype === this.dtype) return this;
    const values = castValues('CSC', this.values, this.dtype, dtype, (k) => [this.rowIdx[k], segmentOf(this.colPtr, k)], options);
    return new CSCMatrix(this.rows, this.cols, dtype, this.colPtr.slice(), this.rowIdx.slice(), values);
  }

  /** Bytes of colPtr, rowIdx and values. */
  storageBytes(): number {
    return this.colPtr.byteLength + this.rowIdx.byteLength + this.values.byteLength;
  }
}
