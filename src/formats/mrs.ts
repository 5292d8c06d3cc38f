import { FormatError } from '../errors.js';
import { allocValues, components, type DType, type ValueArray } from '../dtype.js';
import { allocIndex, withMemoryBudget } from '../memory-budget.js';
import { type AstypeOptions, castValues, checkHeader, checkIndexArray, checkPointers, checkRange, checkValueArray, checkZero, copyElement, isZeroAt, segmentOf } from './common.js';
import { CSRMatrix } from './csr.js';

/**
 * Modified row storage (Saad's MSR, seed 000 with its example corrected). With n = rows:
 * values[0..n) is the diagonal A[i,i] (0 when absent, and 0 for i >= cols), values[n] is unused (0),
 * index[0..n] are row pointers (index[0] = n + 1, index[n] = index.length), and the off-diagonal
 * entries of row i sit at k in [index[i], index[i+1]) with column index[k] and value values[k],
 * strictly ascending by column. Example: 4×4 [[1,2,3,4],[0,5,6,0],[0,0,7,0],[0,0,8,9]] →
 * values 1 5 7 9 0 2 3 4 6 8, index 5 8 9 9 10 1 2 3 2 2.
 *
 * @example
 * ```js
 * // Seed 000's 4×4 example, with its row pointers corrected
 * import { DenseMatrix, convert } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * const D = new DenseMatrix(4, 4, 'f64', new Float64Array([1, 2, 3, 4, 0, 5, 6, 0, 0, 0, 7, 0, 0, 0, 8, 9]));
 * const M = convert(D, 'mrs');
 * assert.deepEqual([...M.values], [1, 5, 7, 9, 0, 2, 3, 4, 6, 8]);   // diagonal, unused slot, off-diagonal
 * assert.deepEqual([...M.index], [5, 8, 9, 9, 10, 1, 2, 3, 2, 2]);   // row pointers, then columns
 * ```
 */
export class MRSMatrix {
  /** the format's name, `'mrs'` */
  readonly format = 'mrs' as const;

  /**
   * Takes the arrays as they are (no copy); checks only their types and lengths, see validate().
   *
   * @throws {@link ShapeError} when rows or cols is not an integer in [0, 2³¹ − 1].
   * @throws {@link UnsupportedError} for an unknown dtype.
   * @throws {@link FormatError} when index is not an Int32Array of at least rows + 1, or values' length differs from index's.
   */
  constructor(
    /** number of rows */
    readonly rows: number,
    /** number of columns */
    readonly cols: number,
    /** element type: the value arrays are Float32Array for f32/c64 and Float64Array for f64/c128 */
    readonly dtype: DType,
    /** the row pointers index[0..rows] (index[0] = rows + 1), then the column of each off-diagonal entry */
    readonly index: Int32Array,
    /** the diagonal (values[0..rows)), an unused 0 (values[rows]), then the off-diagonal values; interleaved re, im when complex */
    readonly values: ValueArray,
  ) {
    checkHeader('MRS', rows, cols, dtype);
    checkIndexArray('MRS', 'index', index);
    if (index.length < rows + 1) throw new FormatError(`MRS index.length = ${index.length}, expected at least rows + 1 = ${rows + 1}`);
    checkValueArray('MRS', dtype, values, index.length);
  }

  /**
   * Represented entries: every diagonal slot (min(rows, cols), stored even when zero) plus the
   * off-diagonal entries.
   */
  get nnz(): number {
    return Math.min(this.rows, this.cols) + this.index.length - this.rows - 1;
  }

  /** Length of the diagonal the kernel reads (min(rows, cols)). */
  get ndiag(): number {
    return Math.min(this.rows, this.cols);
  }

  /**
   * Checks the row pointers (index[0] = rows + 1, nondecreasing, index[rows] = index.length),
   * off-diagonal columns in [0, cols), never on the diagonal, strictly ascending per row, and the
   * zero slots (values[i] for cols <= i < rows, and values[rows]).
   *
   * @throws {@link FormatError} naming the array, the index and the expected against the actual value, at the first invariant broken.
   */
  validate(): this {
    const { rows, cols, index, values } = this;
    const comp = components(this.dtype);
    checkValueArray('MRS', this.dtype, values, index.length);
    checkPointers('MRS', 'index', index.subarray(0, rows + 1), rows + 1, index.length, 'index.length');
    checkRange('MRS', 'index', index, 0, cols, rows + 1);
    for (let i = 0; i < rows; i++) {
      for (let k = index[i]; k < index[i + 1]; k++) {
        if (index[k] === i) throw new FormatError(`MRS index[${k}] = ${i} is the diagonal of row ${i}, which belongs in values[${i}]`);
        if (k > index[i] && index[k] <= index[k - 1]) {
          throw new FormatError(`MRS index[${k}] = ${index[k]} is not greater than index[${k - 1}] = ${index[k - 1]} (row ${i} must be strictly ascending)`);
        }
      }
    }
    for (let i = cols; i < rows; i++) checkZero('MRS', `diagonal slot ${i} lies outside the ${cols} columns`, values, i, comp);
    checkZero('MRS', `unused slot values[${rows}]`, values, rows, comp);
    return this;
  }

  /**
   * Canonical CSR. Diagonal slots holding exactly 0 are dropped (MRS cannot tell them from absent).
   *
   * @throws {@link FormatError} when the matrix breaks an invariant of its format (it validates first).
   */
  toCSR(): CSRMatrix {
    return withMemoryBudget(undefined, () => {
      this.validate();
      const { rows, index, values } = this;
      const comp = components(this.dtype);
      const nd = this.ndiag;
      const rowPtr = allocIndex(rows + 1, `MRS: row pointers of ${rows} rows`);
      for (let i = 0; i < rows; i++) {
        const hasDiag = i < nd && !isZeroAt(values, i, comp);
        rowPtr[i + 1] = rowPtr[i] + index[i + 1] - index[i] + (hasDiag ? 1 : 0);
      }
      const colIdx = allocIndex(rowPtr[rows], `MRS: ${rowPtr[rows]} column indices`);
      const out = allocValues(this.dtype, rowPtr[rows]);
      for (let i = 0; i < rows; i++) {
        let p = rowPtr[i];
        let diagDone = !(i < nd && !isZeroAt(values, i, comp));
        for (let k = index[i]; k < index[i + 1]; k++) {
          if (!diagDone && index[k] > i) {
            colIdx[p] = i;
            copyElement(values, i, out, p++, comp);
            diagDone = true;
          }
          colIdx[p] = index[k];
          copyElement(values, k, out, p++, comp);
        }
        if (!diagDone) {
          colIdx[p] = i;
          copyElement(values, i, out, p, comp);
        }
      }
      return new CSRMatrix(rows, this.cols, this.dtype, rowPtr, colIdx, out).toCSR();
    });
  }

  /**
   * MRS of a CSR (canonicalised first).
   *
   * @throws {@link FormatError} when csr breaks an invariant of CSR.
   */
  static fromCSR(csr: CSRMatrix): MRSMatrix {
    return withMemoryBudget(undefined, () => {
      const c = csr.toCSR();
      const { rows, rowPtr, colIdx } = c;
      const comp = components(c.dtype);
      let diagCount = 0;
      for (let i = 0; i < rows; i++) {
        for (let k = rowPtr[i]; k < rowPtr[i + 1]; k++) if (colIdx[k] === i) diagCount++;
      }
      const len = rows + 1 + c.nnz - diagCount;
      const index = allocIndex(len, `MRS: ${len} index entries`);
      const values = allocValues(c.dtype, len);
      let p = rows + 1;
      for (let i = 0; i < rows; i++) {
        index[i] = p;
        for (let k = rowPtr[i]; k < rowPtr[i + 1]; k++) {
          if (colIdx[k] === i) {
            copyElement(c.values, k, values, i, comp);
          } else {
            index[p] = colIdx[k];
            copyElement(c.values, k, values, p++, comp);
          }
        }
      }
      index[rows] = p;
      return new MRSMatrix(rows, c.cols, c.dtype, index, values);
    });
  }

  /**
   * A copy with values converted to `dtype`; `this` when dtype is unchanged.
   *
   * @throws {@link UnsupportedError} from a complex dtype to a real one (it would drop the imaginary parts), or for an unknown dtype.
   * @throws {@link InputRangeError} to f32 or c64, for a finite value beyond f32's range or a nonzero one below its smallest subnormal (naming its row and column), unless `options.outOfRange` is `'round'`.
   */
  astype(dtype: DType, options?: AstypeOptions): MRSMatrix {
    if (dtype === this.dtype) return this;
    return new MRSMatrix(this.rows, this.cols, dtype, this.index.slice(), castValues('MRS', this.values, this.dtype, dtype, (k) => (k < this.rows ? [k, k] : [segmentOf(this.index.subarray(0, this.rows + 1), k), this.index[k]]), options));
  }

  /** Bytes of index and values. */
  storageBytes(): number {
    return this.index.byteLength + this.values.byteLength;
  }
}
