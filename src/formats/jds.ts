import { FormatError } from '../errors.js';
import { allocValues, components, type DType, type ValueArray } from '../dtype.js';
import { allocIndex, releaseMemory, withMemoryBudget } from '../memory-budget.js';
import { type AstypeOptions, castValues, checkHeader, checkIndexArray, checkPointers, checkRange, checkValueArray, copyElement, segmentOf } from './common.js';
import { CSRMatrix, longestRow } from './csr.js';

/**
 * Jagged diagonal storage. Rows are ordered by decreasing length (stable: equal lengths keep their
 * original order); perm[p] is the original row at position p. Jagged diagonal k holds the k-th entry
 * (by ascending column) of every position p whose row has more than k entries, at jdPtr[k] + p, so the
 * diagonal lengths jdPtr[k+1] − jdPtr[k] never increase. njd = longest row.
 *
 * @example
 * ```js
 * // Rows by decreasing length, then one jagged diagonal per entry index
 * import { DenseMatrix, convert } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * // A = [[1, 0, 2], [0, 3, 0], [4, 5, 6]]: rows of 2, 1 and 3 entries
 * const J = convert(new DenseMatrix(3, 3, 'f64', new Float64Array([1, 0, 2, 0, 3, 0, 4, 5, 6])), 'jds');
 * assert.deepEqual([...J.perm], [2, 0, 1]);
 * assert.deepEqual([...J.jdPtr], [0, 3, 5, 6]);
 * assert.deepEqual([...J.colIdx], [0, 0, 1, 1, 2, 2]);
 * assert.deepEqual([...J.values], [4, 1, 3, 5, 2, 6]);
 * ```
 */
export class JDSMatrix {
  /** the format's name, `'jds'` */
  readonly format = 'jds' as const;

  /**
   * Takes the arrays as they are (no copy); checks only their types and lengths, see validate().
   *
   * @throws {@link ShapeError} when rows or cols is not an integer in [0, 2³¹ − 1].
   * @throws {@link UnsupportedError} for an unknown dtype.
   * @throws {@link FormatError} when an index array is not an Int32Array, perm's length is not rows, jdPtr is empty, or values' length differs from colIdx's.
   */
  constructor(
    /** number of rows */
    readonly rows: number,
    /** number of columns */
    readonly cols: number,
    /** element type: the value arrays are Float32Array for f32/c64 and Float64Array for f64/c128 */
    readonly dtype: DType,
    /** perm[p] = the original row at position p (rows by decreasing length, ties in row order) */
    readonly perm: Int32Array,
    /** the start of each jagged diagonal in colIdx and values, then colIdx.length */
    readonly jdPtr: Int32Array,
    /** column of each entry: entry k of position p at jdPtr[k] + p */
    readonly colIdx: Int32Array,
    /** value of each entry (interleaved re, im when complex) */
    readonly values: ValueArray,
  ) {
    checkHeader('JDS', rows, cols, dtype);
    checkIndexArray('JDS', 'perm', perm, rows);
    checkIndexArray('JDS', 'jdPtr', jdPtr);
    if (jdPtr.length < 1) throw new FormatError('JDS jdPtr.length = 0, expected at least 1');
    checkIndexArray('JDS', 'colIdx', colIdx);
    checkValueArray('JDS', dtype, values, colIdx.length);
  }

  /** Stored entries. */
  get nnz(): number {
    return this.colIdx.length;
  }

  /** Number of jagged diagonals (the longest row's length). */
  get njd(): number {
    return this.jdPtr.length - 1;
  }

  /**
   * Checks perm is a permutation of [0, rows); jdPtr starts at 0, ends at colIdx.length, with every
   * diagonal length in [1, rows] and nonincreasing; columns in [0, cols), strictly ascending along
   * each position's entries; equal-length rows in ascending original order (stable sort).
   *
   * @throws {@link FormatError} naming the array, the index and the expected against the actual value, at the first invariant broken.
   */
  validate(): this {
    const { rows, cols, perm, jdPtr, colIdx } = this;
    const njd = this.njd;
    checkRange('JDS', 'perm', perm, 0, rows);
    const seen = new Uint8Array(rows);
    for (let p = 0; p < rows; p++) {
      if (seen[perm[p]]) throw new FormatError(`JDS perm[${p}] = ${perm[p]} repeats an earlier position (perm must be a permutation)`);
      seen[perm[p]] = 1;
    }
    checkPointers('JDS', 'jdPtr', jdPtr, 0, colIdx.length, 'colIdx.length');
    for (let k = 0; k < njd; k++) {
      const len = jdPtr[k + 1] - jdPtr[k];
      const max = k === 0 ? rows : jdPtr[k] - jdPtr[k - 1];
      if (len < 1 || len > max) {
        throw new FormatError(`JDS jagged diagonal ${k} has length ${len} (jdPtr[${k + 1}] − jdPtr[${k}]), expected 1..${max}`);
      }
    }
    checkValueArray('JDS', this.dtype, this.values, colIdx.length);
    checkRange('JDS', 'colIdx', colIdx, 0, cols);
    for (let k = 1; k < njd; k++) {
      for (let p = 0, n = jdPtr[k + 1] - jdPtr[k]; p < n; p++) {
        const a = jdPtr[k - 1] + p;
        const b = jdPtr[k] + p;
        if (colIdx[b] <= colIdx[a]) {
          throw new FormatError(`JDS colIdx[${b}] = ${colIdx[b]} is not greater than colIdx[${a}] = ${colIdx[a]} (row ${perm[p]}, entries ${k - 1} and ${k}, must be strictly ascending)`);
        }
      }
    }
    const len = positionLengths(jdPtr, rows);
    for (let p = 1; p < rows; p++) {
      if (len[p] === len[p - 1] && perm[p] < perm[p - 1]) {
        throw new FormatError(`JDS perm[${p}] = ${perm[p]} follows perm[${p - 1}] = ${perm[p - 1]} with the same length ${len[p]} (the row sort must be stable)`);
      }
    }
    releaseMemory(len.byteLength); // a temporary of the check: not held by the operation that validates
    return this;
  }

  /**
   * Canonical CSR.
   *
   * @throws {@link FormatError} when the matrix breaks an invariant of its format (it validates first).
   */
  toCSR(): CSRMatrix {
    return withMemoryBudget(undefined, () => {
      this.validate();
      const { rows, perm, jdPtr, colIdx, values } = this;
      const comp = components(this.dtype);
      const len = positionLengths(jdPtr, rows);
      const rowPtr = allocIndex(rows + 1, `JDS: row pointers of ${rows} rows`);
      for (let p = 0; p < rows; p++) rowPtr[perm[p] + 1] = len[p];
      releaseMemory(len.byteLength);
      for (let i = 0; i < rows; i++) rowPtr[i + 1] += rowPtr[i];
      const outIdx = allocIndex(colIdx.length, `JDS: ${colIdx.length} column indices`);
      const outVal = allocValues(this.dtype, colIdx.length);
      for (let k = 0; k < this.njd; k++) {
        for (let p = 0, n = jdPtr[k + 1] - jdPtr[k]; p < n; p++) {
          const dst = rowPtr[perm[p]] + k;
          outIdx[dst] = colIdx[jdPtr[k] + p];
          copyElement(values, jdPtr[k] + p, outVal, dst, comp);
        }
      }
      return new CSRMatrix(rows, this.cols, this.dtype, rowPtr, outIdx, outVal).toCSR();
    });
  }

  /**
   * JDS of a CSR: a stable counting sort of the rows by decreasing length, O(nnz + rows).
   *
   * @throws {@link FormatError} when csr breaks an invariant of CSR.
   */
  static fromCSR(csr: CSRMatrix): JDSMatrix {
    return withMemoryBudget(undefined, () => {
      const c = csr.toCSR();
      const { rows, rowPtr } = c;
      const comp = components(c.dtype);
      const njd = longestRow(c);
      // countAtLeast[k] = rows with length >= k; rows of length L go to positions [countAtLeast[L+1], ...).
      const countAtLeast = new Int32Array(njd + 2);
      for (let i = 0; i < rows; i++) countAtLeast[rowPtr[i + 1] - rowPtr[i]]++;
      for (let k = njd - 1; k >= 0; k--) countAtLeast[k] += countAtLeast[k + 1];
      const next = new Int32Array(njd + 1);
      for (let L = 0; L <= njd; L++) next[L] = countAtLeast[L + 1];
      const perm = allocIndex(rows, `JDS: a permutation of ${rows} rows`);
      for (let i = 0; i < rows; i++) perm[next[rowPtr[i + 1] - rowPtr[i]]++] = i;
      const jdPtr = new Int32Array(njd + 1);
      for (let k = 0; k < njd; k++) jdPtr[k + 1] = jdPtr[k] + countAtLeast[k + 1];
      const colIdx = allocIndex(c.nnz, `JDS: ${c.nnz} column indices`);
      const values = allocValues(c.dtype, c.nnz);
      for (let p = 0; p < rows; p++) {
        const i = perm[p];
        for (let k = 0, n = rowPtr[i + 1] - rowPtr[i]; k < n; k++) {
          colIdx[jdPtr[k] + p] = c.colIdx[rowPtr[i] + k];
          copyElement(c.values, rowPtr[i] + k, values, jdPtr[k] + p, comp);
        }
      }
      return new JDSMatrix(rows, c.cols, c.dtype, perm, jdPtr, colIdx, values);
    });
  }

  /**
   * A copy with values converted to `dtype`; `this` when dtype is unchanged.
   *
   * @throws {@link UnsupportedError} from a complex dtype to a real one (it would drop the imaginary parts), or for an unknown dtype.
   * @throws {@link InputRangeError} to f32 or c64, for a finite value beyond f32's range or a nonzero one below its smallest subnormal (naming its row and column), unless `options.outOfRange` is `'round'`.
   */
  astype(dtype: DType, options?: AstypeOptions): JDSMatrix {
    if (dtype === this.dtype) return this;
    const values = castValues('JDS', this.values, this.dtype, dtype, (k) => [this.perm[k - this.jdPtr[segmentOf(this.jdPtr, k)]], this.colIdx[k]], options);
    return new JDSMatrix(this.rows, this.cols, dtype, this.perm.slice(), this.jdPtr.slice(), this.colIdx.slice(), values);
  }

  /** Bytes of perm, jdPtr, colIdx and values. */
  storageBytes(): number {
    return this.perm.byteLength + this.jdPtr.byteLength + this.colIdx.byteLength + this.values.byteLength;
  }
}

/** Entries of the row at each position: the number of jagged diagonals longer than p. */
function positionLengths(jdPtr: Int32Array, rows: number): Int32Array {
  const len = allocIndex(rows, `JDS: lengths of ${rows} rows`);
  for (let k = 0; k + 1 < jdPtr.length; k++) {
    const n = Math.min(rows, jdPtr[k + 1] - jdPtr[k]);
    for (let p = 0; p < n; p++) len[p]++;
  }
  return len;
}
