import { checkOptions, optionKeys } from '../options-check.js';
import { allocValues, components, type DType, type ValueArray } from '../dtype.js';
import { allocIndex, withMemoryBudget } from '../memory-budget.js';
import { type AstypeOptions, castValues, checkHeader, checkPadding, checkValueArray, copyElement, isZeroAt } from './common.js';
import { CSRMatrix } from './csr.js';
import { dtypeOf, shape2, stridedRows, valueArray, type NumericArrayLike, type StridedArray } from './from-arrays.js';
import { isComplex } from '../dtype.js';
import { ShapeError, UnsupportedError } from '../errors.js';
import { vectorData } from '../vector-data.js';

/** Options of DenseMatrix.fromCSR. */
export interface DenseOptions {
  /** Largest rows·cols allowed (elements); default 2^28 (1 GiB of f32, 4 GiB of c128). */
  maxSlots?: number;
}

/** The keys DenseOptions has. */
export const DENSE_OPTION_KEYS = optionKeys<DenseOptions>({ maxSlots: true });

/** Default DenseOptions.maxSlots. */
export const DENSE_MAX_SLOTS = 2 ** 28;

/** Dense row-major: A[i, j] = values[i·cols + j] (element index; interleaved when complex). *
 * @example
 * ```js
 * import { DenseMatrix, convert } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * // A = [[1, 0, 2], [0, 3, 0]], row-major
 * const A = new DenseMatrix(2, 3, 'f64', new Float64Array([1, 0, 2, 0, 3, 0]));
 * const csr = A.toCSR();                                   // the elements that are not 0
 * assert.equal(csr.nnz, 3);
 * assert.deepEqual(convert(csr, 'dense').values, A.values);
 * ```
 */
export class DenseMatrix {
  /** the format's name, `'dense'` */
  readonly format = 'dense' as const;

  /**
   * Takes the array as it is (no copy); checks its type and length (rows·cols elements).
   *
   * @throws {@link ShapeError} when rows or cols is not an integer in [0, 2³¹ − 1].
   * @throws {@link UnsupportedError} for an unknown dtype.
   * @throws {@link FormatError} when values does not hold rows × cols elements of the dtype's array type.
   */
  constructor(
    /** number of rows */
    readonly rows: number,
    /** number of columns */
    readonly cols: number,
    /** element type: the value arrays are Float32Array for f32/c64 and Float64Array for f64/c128 */
    readonly dtype: DType,
    /** the elements, row-major: A[i, j] = values[i·cols + j] (interleaved re, im when complex) */
    readonly values: ValueArray,
  ) {
    checkHeader('Dense', rows, cols, dtype);
    checkValueArray('Dense', dtype, values, rows * cols);
  }

  /** rows·cols: every element is stored. */
  get nnz(): number {
    return this.rows * this.cols;
  }

  /**
   * Checks the value array's type and length (there is nothing else to break).
   *
   * @throws {@link FormatError} naming the array, the index and the expected against the actual value, at the first invariant broken.
   */
  validate(): this {
    checkValueArray('Dense', this.dtype, this.values, this.rows * this.cols);
    return this;
  }

  /**
   * Canonical CSR of the elements that are not exactly 0 (NaN and ±Inf are kept).
   *
   * @throws {@link FormatError} when the matrix breaks an invariant of its format (it validates first).
   */
  toCSR(): CSRMatrix {
    return withMemoryBudget(undefined, () => {
      this.validate();
      const { rows, cols, values } = this;
      const comp = components(this.dtype);
      const rowPtr = allocIndex(rows + 1, `DENSE: row pointers of ${rows} rows`);
      let n = 0;
      for (let i = 0; i < rows; i++) {
        for (let j = 0; j < cols; j++) if (!isZeroAt(values, i * cols + j, comp)) n++;
        rowPtr[i + 1] = n;
      }
      const colIdx = allocIndex(n, `Dense: ${n} column indices`);
      const out = allocValues(this.dtype, n);
      for (let i = 0, p = 0; i < rows; i++) {
        for (let j = 0; j < cols; j++) {
          if (isZeroAt(values, i * cols + j, comp)) continue;
          colIdx[p] = j;
          copyElement(values, i * cols + j, out, p++, comp);
        }
      }
      return new CSRMatrix(rows, cols, this.dtype, rowPtr, colIdx, out);
    });
  }

  /**
   * A dense matrix from rows (`number[][]`, or an array of any numeric array-likes) or from a strided
   * 2-D array `{ data, shape: [rows, cols], stride | strides, offset, order }` as ndarray libraries
   * describe one (strides and offset in elements; C order when none are given). The values are
   * copied; a view is read through its strides, every address checked to lie inside `data`. dtype:
   * as asked, else f32 for Float32Array data and f64 otherwise; real dtypes only.
   *
   * @throws {@link ShapeError} when a row's length differs from the first row's (naming the row), or a
   * strided array's shape, strides or offset are not integers or address elements outside its data.
   * @throws {@link InputTypeError} when src is neither, or an element is not a number (naming it).
   * @throws {@link InputRangeError} for a BigInt64Array element beyond ±(2⁵³ − 1).
   * @throws {@link UnsupportedError} for a complex or unknown dtype.
   *
   * @example
   * ```js
   * import { DenseMatrix, ShapeError } from 'simdgl';
   * import assert from 'node:assert/strict';
   *
   * const A = DenseMatrix.from([[1, 0, 2], [0, 3, 0]]);
   * assert.deepEqual([A.rows, A.cols, ...A.values], [2, 3, 1, 0, 2, 0, 3, 0]);
   * // the same matrix stored column by column (Fortran order), as a strided view
   * const F = DenseMatrix.from({ data: [1, 0, 0, 3, 2, 0], shape: [2, 3], stride: [1, 2], offset: 0 });
   * assert.deepEqual(F.values, A.values);
   * assert.throws(() => DenseMatrix.from([[1, 2], [3]]), (e) => e instanceof ShapeError && /row 1/.test(e.message));
   * ```
   */
  static from(src: ArrayLike<NumericArrayLike> | StridedArray, dtype?: DType): DenseMatrix {
    const where = 'DenseMatrix.from';
    const rowsGiven = Array.isArray(src);
    const dt = dtypeOf(where, dtype, rowsGiven ? src[0] : (src as StridedArray)?.data);
    if (isComplex(dt)) throw new UnsupportedError(`${where}: complex dtype ${dt} is not supported; build the interleaved values and use new DenseMatrix`);
    if (!rowsGiven) {
      const m = stridedRows(where, src, dt);
      return new DenseMatrix(m.rows, m.cols, dt, m.values);
    }
    const rows = src.length;
    const first = rows > 0 ? vectorData(src[0], `${where}: row 0`) : new Float64Array(0);
    const [, cols] = shape2(where, [rows, first.length]);
    const values = valueArray(where, dt, new Float64Array(rows * cols));
    for (let i = 0; i < rows; i++) {
      const row = i === 0 ? first : vectorData(src[i], `${where}: row ${i}`);
      if (row.length !== cols) throw new ShapeError(`${where}: row ${i} has ${row.length} elements, row 0 has ${cols}; rows must all be the same length`);
      values.set(row, i * cols);
    }
    return new DenseMatrix(rows, cols, dt, values);
  }

  /**
   * Dense of a CSR (canonicalised first); PaddingLimitError past opts.maxSlots (default 2^28) elements.
   *
   * @throws {@link FormatError} when csr breaks an invariant of CSR.
   * @throws {@link PaddingLimitError} past opts.maxSlots (default 2²⁸) elements.
   * @throws {@link OptionError} for an option key it does not know (TypeError when the options are not an object).
   */
  static fromCSR(csr: CSRMatrix, opts?: DenseOptions): DenseMatrix {
    return withMemoryBudget(undefined, () => {
      checkOptions('DenseMatrix.fromCSR', opts, DENSE_OPTION_KEYS);
      const { rows, cols } = csr;
      checkPadding('Dense', rows * cols, csr.nnz, { maxSlots: opts?.maxSlots ?? DENSE_MAX_SLOTS });
      const c = csr.toCSR();
      const comp = components(c.dtype);
      const values = allocValues(c.dtype, rows * cols);
      for (let i = 0; i < rows; i++) {
        for (let k = c.rowPtr[i]; k < c.rowPtr[i + 1]; k++) copyElement(c.values, k, values, i * cols + c.colIdx[k], comp);
      }
      return new DenseMatrix(rows, cols, c.dtype, values);
    });
  }

  /**
   * A copy with values converted to `dtype`; `this` when dtype is unchanged.
   *
   * @throws {@link UnsupportedError} from a complex dtype to a real one (it would drop the imaginary parts), or for an unknown dtype.
   * @throws {@link InputRangeError} to f32 or c64, for a finite value beyond f32's range or a nonzero one below its smallest subnormal (naming its row and column), unless `options.outOfRange` is `'round'`.
   */
  astype(dtype: DType, options?: AstypeOptions): DenseMatrix {
    if (dtype === this.dtype) return this;
    return new DenseMatrix(this.rows, this.cols, dtype, castValues('Dense', this.values, this.dtype, dtype, (k) => [Math.floor(k / this.cols), k % this.cols], options));
  }

  /** Bytes of values. */
  storageBytes(): number {
    return this.values.byteLength;
  }
}
