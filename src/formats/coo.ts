import { type DType, type ValueArray } from '../dtype.js';
import { allocIndex, withMemoryBudget } from '../memory-budget.js';
import { type AstypeOptions, castValues, checkHeader, checkIndexArray, checkRange, checkValueArray } from './common.js';
import { CSRMatrix } from './csr.js';
import { dtypeOf, entriesMatch, fields, indexArray, shape2, valueArray, type CoordinateArrays } from './from-arrays.js';
import { ShapeError } from '../errors.js';

/**
 * Coordinate (triplet) format: entry k is A[rowIdx[k], colIdx[k]] += values[k]. Any order; duplicates
 * are allowed and mean their sum.
 *
 * @example
 * ```js
 * // Triplets in any order; duplicates add up
 * import { COOMatrix } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * // A = [[1, 0, 2], [0, 3, 0]], its 2 given as 1.5 + 0.5
 * const A = new COOMatrix(2, 3, 'f64', new Int32Array([1, 0, 0, 0]), new Int32Array([1, 2, 0, 2]), new Float64Array([3, 1.5, 1, 0.5]));
 * assert.equal(A.validate().nnz, 4);
 * const csr = A.toCSR();                                   // sorted by (row, col), duplicates summed
 * assert.deepEqual([...csr.rowPtr], [0, 2, 3]);
 * assert.deepEqual([...csr.colIdx], [0, 2, 1]);
 * assert.deepEqual([...csr.values], [1, 2, 3]);
 * ```
 */
export class COOMatrix {
  /** the format's name, `'coo'` */
  readonly format = 'coo' as const;

  /**
   * Takes the arrays as they are (no copy); checks only their types and lengths, see validate().
   *
   * @throws {@link ShapeError} when rows or cols is not an integer in [0, 2³¹ − 1].
   * @throws {@link UnsupportedError} for an unknown dtype.
   * @throws {@link FormatError} when an index array is not an Int32Array, or an array's length differs from rowIdx's.
   */
  constructor(
    /** number of rows */
    readonly rows: number,
    /** number of columns */
    readonly cols: number,
    /** element type: the value arrays are Float32Array for f32/c64 and Float64Array for f64/c128 */
    readonly dtype: DType,
    /** row of each entry (0-based) */
    readonly rowIdx: Int32Array,
    /** column of each entry (0-based) */
    readonly colIdx: Int32Array,
    /** value of each entry (interleaved re, im when complex) */
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

  /**
   * Checks array lengths and 0 <= row < rows, 0 <= col < cols.
   *
   * @throws {@link FormatError} naming the array, the index and the expected against the actual value, at the first invariant broken.
   */
  validate(): this {
    checkIndexArray('COO', 'colIdx', this.colIdx, this.rowIdx.length);
    checkValueArray('COO', this.dtype, this.values, this.rowIdx.length);
    checkRange('COO', 'rowIdx', this.rowIdx, 0, this.rows);
    checkRange('COO', 'colIdx', this.colIdx, 0, this.cols);
    return this;
  }

  /**
   * Canonical CSR: sorted by (row, col), duplicates summed, explicit zeros kept. Validates first.
   *
   * @throws {@link FormatError} when the matrix breaks an invariant of its format (it validates first).
   */
  toCSR(): CSRMatrix {
    return withMemoryBudget(undefined, () => {
      this.validate();
      return CSRMatrix.fromTriplets(this.rows, this.cols, this.dtype, this.rowIdx, this.colIdx, this.values);
    });
  }

  /**
   * A COO from SciPy's arrays, in SciPy's names (`{ row, col, data, shape }` of a
   * `scipy.sparse.coo_array`). The arrays are copied and may be any numeric array-like, as for
   * {@link CSRMatrix.from}; duplicates are kept (they mean their sum).
   *
   * @throws {@link InputTypeError} when `src` is not such an object, or an array is not an array of numbers.
   * @throws {@link InputRangeError} when an index is not an integer in [0, 2³¹ − 1] (`index` names it).
   * @throws {@link ShapeError} when shape is not two integers, or row, col and data differ in length.
   * @throws {@link FormatError} when a row or column is outside the shape.
   * @throws {@link UnsupportedError} for an unknown dtype.
   *
   * @example
   * ```js
   * import { COOMatrix } from 'simdgl';
   * import assert from 'node:assert/strict';
   *
   * // A = [[1, 0, 2], [0, 3, 0]] from plain arrays, its 2 given as 1.5 + 0.5
   * const A = COOMatrix.from({ row: [1, 0, 0, 0], col: [1, 2, 0, 2], data: [3, 1.5, 1, 0.5], shape: [2, 3] });
   * assert.deepEqual([...A.toCSR().values], [1, 2, 3]);
   * ```
   */
  static from(src: CoordinateArrays): COOMatrix {
    const where = 'COOMatrix.from';
    const f = fields(where, src, ['row', 'col', 'data', 'shape'], ['dtype']);
    const [rows, cols] = shape2(where, f.shape);
    const dtype = dtypeOf(where, src.dtype, f.data);
    const row = indexArray(where, 'row', f.row);
    const col = indexArray(where, 'col', f.col);
    if (col.length !== row.length) throw new ShapeError(`${where}: col has ${col.length} entries, row ${row.length}; they must match`);
    const values = valueArray(where, dtype, f.data);
    entriesMatch(where, 'row', row.length, dtype, values);
    return new COOMatrix(rows, cols, dtype, row, col, values).validate();
  }

  /**
   * Triplets in row-major order (the CSR's order).
   *
   * @throws {@link FormatError} when csr breaks an invariant of CSR.
   */
  static fromCSR(csr: CSRMatrix): COOMatrix {
    return withMemoryBudget(undefined, () => {
      const c = csr.toCSR();
      const rowIdx = allocIndex(c.nnz, `COO: ${c.nnz} row indices`);
      // a plain loop: fill() per row costs a call for each of millions of empty rows
      const ptr = c.rowPtr;
      for (let i = 0; i < c.rows; i++) for (let k = ptr[i], e = ptr[i + 1]; k < e; k++) rowIdx[k] = i;
      return new COOMatrix(c.rows, c.cols, c.dtype, rowIdx, c.colIdx.slice(), c.values.slice());
    });
  }

  /**
   * A copy with values converted to `dtype`; `this` when dtype is unchanged.
   *
   * @throws {@link UnsupportedError} from a complex dtype to a real one (it would drop the imaginary parts), or for an unknown dtype.
   * @throws {@link InputRangeError} to f32 or c64, for a finite value beyond f32's range or a nonzero one below its smallest subnormal (naming its row and column), unless `options.outOfRange` is `'round'`.
   */
  astype(dtype: DType, options?: AstypeOptions): COOMatrix {
    if (dtype === this.dtype) return this;
    const values = castValues('COO', this.values, this.dtype, dtype, (k) => [this.rowIdx[k], this.colIdx[k]], options);
    return new COOMatrix(this.rows, this.cols, dtype, this.rowIdx.slice(), this.colIdx.slice(), values);
  }

  /** Bytes of rowIdx, colIdx and values. */
  storageBytes(): number {
    return this.rowIdx.byteLength + this.colIdx.byteLength + this.values.byteLength;
  }
}
