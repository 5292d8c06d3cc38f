import { allocValues, components, type DType, type ValueArray } from '../dtype.js';
import { allocIndex, reserveMemory, withMemoryBudget } from '../memory-budget.js';
import { type AstypeOptions, castValues, checkHeader, checkIndexArray, checkPointers, checkRange, checkValueArray, segmentOf } from './common.js';
import { compressedArrays, type CompressedArrays } from './from-arrays.js';
import { bucketByRow, rowsCanonical, sortAndSumRows, unshiftCursors } from './sort.js';

/**
 * Compressed sparse row: row i holds entries k in [rowPtr[i], rowPtr[i+1]) with column colIdx[k] and
 * value values[k] (interleaved re/im when complex). The hub format: every other format converts
 * through it. A user-built CSR may have unsorted or duplicate columns within a row (`isCanonical()`
 * says whether it does not); every CSR this library builds is canonical.
 *
 * @example
 * ```js
 * import { CSRMatrix } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * // A = [[1, 0, 2], [0, 3, 0]]
 * const A = new CSRMatrix(2, 3, 'f64', new Int32Array([0, 2, 3]), new Int32Array([0, 2, 1]), new Float64Array([1, 2, 3]));
 * assert.ok(A.validate().isCanonical());
 * const T = A.transpose();                                 // Aᵀ = [[1, 0], [0, 3], [2, 0]]
 * assert.deepEqual([T.rows, T.cols], [3, 2]);
 * assert.deepEqual([...T.rowPtr], [0, 1, 2, 3]);
 * assert.deepEqual([...T.colIdx], [0, 1, 0]);
 * assert.deepEqual([...T.values], [1, 3, 2]);
 * ```
 */
export class CSRMatrix {
  /** the format's name, `'csr'` */
  readonly format = 'csr' as const;

  /**
   * Takes the arrays as they are (no copy); checks only their types and lengths, see validate().
   *
   * @throws {@link ShapeError} when rows or cols is not an integer in [0, 2³¹ − 1].
   * @throws {@link UnsupportedError} for an unknown dtype.
   * @throws {@link FormatError} when an index array is not an Int32Array, rowPtr's length is not rows + 1, or values' length differs from colIdx's.
   */
  constructor(
    /** number of rows */
    readonly rows: number,
    /** number of columns */
    readonly cols: number,
    /** element type: the value arrays are Float32Array for f32/c64 and Float64Array for f64/c128 */
    readonly dtype: DType,
    /** rows + 1 offsets: the entries of row i are those in [rowPtr[i], rowPtr[i+1]) */
    readonly rowPtr: Int32Array,
    /** column of each entry (0-based) */
    readonly colIdx: Int32Array,
    /** value of each entry (interleaved re, im when complex) */
    readonly values: ValueArray,
  ) {
    checkHeader('CSR', rows, cols, dtype);
    checkIndexArray('CSR', 'rowPtr', rowPtr, rows + 1);
    checkIndexArray('CSR', 'colIdx', colIdx);
    checkValueArray('CSR', dtype, values, colIdx.length);
  }

  /** Stored entries (duplicates counted separately until canonicalised). */
  get nnz(): number {
    return this.colIdx.length;
  }

  /**
   * Checks rowPtr[0] = 0, rowPtr nondecreasing, rowPtr[rows] = colIdx.length, 0 <= col < cols.
   *
   * @throws {@link FormatError} naming the array, the index and the expected against the actual value, at the first invariant broken.
   */
  validate(): this {
    validateCompressed('CSR', 'rowPtr', 'colIdx', this.rowPtr, this.colIdx, this.cols, this.dtype, this.values);
    return this;
  }

  /** Whether every row's columns are strictly ascending (sorted and without duplicates). */
  isCanonical(): boolean {
    return rowsCanonical(this.rowPtr, this.colIdx);
  }

  /**
   * Validates, then `this` when canonical, else a copy with rows sorted by column and duplicates summed.
   *
   * @throws {@link FormatError} when the matrix breaks an invariant of its format (it validates first).
   */
  toCSR(): CSRMatrix {
    if (privateCanonical.has(this)) return this;
    this.validate();
    if (this.isCanonical()) return this;
    return withMemoryBudget(undefined, () => {
      const comp = components(this.dtype);
      reserveMemory(this.storageBytes(), `CSR.toCSR: a sorted copy of ${this.rows} rows and ${this.nnz} entries`);
      const rowPtr = this.rowPtr.slice();
      const colIdx = this.colIdx.slice();
      const values = this.values.slice();
      const nnz = sortAndSumRows(rowPtr, colIdx, values, comp);
      return new CSRMatrix(this.rows, this.cols, this.dtype, rowPtr, shrink(colIdx, nnz), shrink(values, nnz * comp));
    });
  }

  /**
   * A CSR from SciPy's arrays, in SciPy's names (`csr_matrix((data, indices, indptr), shape)`, or
   * `{ indptr, indices, data, shape }` of a `scipy.sparse.csr_array` sent as JSON or typed arrays).
   * Every array is copied and may be any numeric array-like: number[], Int32Array, Uint32Array,
   * Float64Array, BigInt64Array (what numpy's int64 exports), …. Rows may be unsorted or hold
   * duplicates, as in SciPy (`toCSR()` gives the canonical form); everything else is validated.
   *
   * @throws {@link InputTypeError} when `src` is not such an object (a field missing or unknown), or an
   * array is not an array of numbers.
   * @throws {@link InputRangeError} when an index is not an integer in [0, 2³¹ − 1] (`index` names it).
   * @throws {@link ShapeError} when shape is not two integers, indptr's length is not rows + 1, or data's
   * length differs from indices'.
   * @throws {@link FormatError} when indptr does not start at 0, decreases, or ends elsewhere than at
   * the number of entries, or a column is ≥ cols.
   * @throws {@link UnsupportedError} for an unknown dtype.
   *
   * @example
   * ```js
   * // SciPy's arrays, as numpy exports them (int64 indices)
   * import { CSRMatrix, InputRangeError } from 'simdgl';
   * import assert from 'node:assert/strict';
   *
   * // A = [[1, 0, 2], [0, 3, 0]]
   * const A = CSRMatrix.from({ indptr: new BigInt64Array([0n, 2n, 3n]), indices: [0, 2, 1], data: [1, 2, 3], shape: [2, 3] });
   * assert.deepEqual([A.rows, A.cols, A.dtype], [2, 3, 'f64']);
   * assert.deepEqual([...A.rowPtr], [0, 2, 3]);
   * assert.deepEqual([...A.colIdx], [0, 2, 1]);
   * assert.throws(() => CSRMatrix.from({ indptr: [0, 2, 3], indices: [0, -2, 1], data: [1, 2, 3], shape: [2, 3] }),
   *   (e) => e instanceof InputRangeError && e.index === 1);
   * ```
   */
  static from(src: CompressedArrays): CSRMatrix {
    const a = compressedArrays('CSRMatrix.from', src, 'rows');
    return new CSRMatrix(a.rows, a.cols, a.dtype, a.ptr, a.idx, a.values).validate();
  }

  /**
   * The canonical form of `csr` (itself when already canonical).
   *
   * @throws {@link FormatError} when csr breaks an invariant of CSR.
   */
  static fromCSR(csr: CSRMatrix): CSRMatrix {
    return csr.toCSR();
  }

  /**
   * Builds a canonical CSR from triplets in any order: stable counting sort by row, then each row
   * sorted by column with duplicates summed (explicit zeros kept). O(nnz + rows) plus the row sorts.
   * The arrays are read, never modified; see COOMatrix for the same data as a matrix.
   *
   * @throws {@link ShapeError} when rows or cols is not an integer in [0, 2³¹ − 1].
   * @throws {@link UnsupportedError} for an unknown dtype.
   * @throws {@link FormatError} when an array has the wrong type or length, or an index is out of range.
   */
  static fromTriplets(rows: number, cols: number, dtype: DType, rowIdx: Int32Array, colIdx: Int32Array, values: ValueArray): CSRMatrix {
    checkHeader('CSR.fromTriplets', rows, cols, dtype);
    checkIndexArray('CSR.fromTriplets', 'colIdx', colIdx, rowIdx.length);
    checkValueArray('CSR.fromTriplets', dtype, values, rowIdx.length);
    checkRange('CSR.fromTriplets', 'rowIdx', rowIdx, 0, rows);
    checkRange('CSR.fromTriplets', 'colIdx', colIdx, 0, cols);
    return withMemoryBudget(undefined, () => {
      const comp = components(dtype);
      const b = bucketByRow(rows, rowIdx, colIdx, values, dtype);
      const nnz = sortAndSumRows(b.rowPtr, b.colIdx, b.values, comp);
      return new CSRMatrix(rows, cols, dtype, b.rowPtr, shrink(b.colIdx, nnz), shrink(b.values, nnz * comp));
    });
  }

  /** Aᵀ as a CSR (cols × rows). Rows of the result come out sorted; duplicates are kept as they are. */
  transpose(): CSRMatrix {
    return this.transposed(false);
  }

  /** Aᴴ (conjugate transpose) as a CSR; equal to transpose() for real dtypes. */
  conjugateTranspose(): CSRMatrix {
    return this.transposed(true);
  }

  private transposed(conj: boolean): CSRMatrix {
    return withMemoryBudget(undefined, () => this.transposeInBudget(conj));
  }

  private transposeInBudget(conj: boolean): CSRMatrix {
    const { rows, cols, rowPtr, colIdx, values } = this;
    const comp = components(this.dtype);
    const nnz = colIdx.length;
    const tPtr = allocIndex(cols + 1, `transpose: row pointers of ${cols} rows`);
    const tIdx = allocIndex(nnz, `transpose: ${nnz} column indices`);
    const tVal = allocValues(this.dtype, nnz);
    for (let k = 0; k < nnz; k++) tPtr[colIdx[k] + 1]++;
    for (let j = 0; j < cols; j++) tPtr[j + 1] += tPtr[j];
    const sign = conj ? -1 : 1;
    for (let i = 0; i < rows; i++) {
      for (let k = rowPtr[i], e = rowPtr[i + 1]; k < e; k++) {
        const p = tPtr[colIdx[k]]++;
        tIdx[p] = i;
        if (comp === 1) {
          tVal[p] = values[k];
        } else {
          tVal[2 * p] = values[2 * k];
          tVal[2 * p + 1] = sign * values[2 * k + 1];
        }
      }
    }
    unshiftCursors(tPtr);
    return new CSRMatrix(cols, rows, this.dtype, tPtr, tIdx, tVal);
  }

  /**
   * A copy with values converted to `dtype` (see castValues); `this` when dtype is unchanged.
   *
   * @throws {@link UnsupportedError} from a complex dtype to a real one (it would drop the imaginary parts), or for an unknown dtype.
   * @throws {@link InputRangeError} to f32 or c64, for a finite value beyond f32's range or a nonzero one below its smallest subnormal (naming its row and column), unless `options.outOfRange` is `'round'`.
   */
  astype(dtype: DType, options?: AstypeOptions): CSRMatrix {
    if (dtype === this.dtype) return this;
    const values = castValues('CSR', this.values, this.dtype, dtype, (k) => [segmentOf(this.rowPtr, k), this.colIdx[k]], options);
    return new CSRMatrix(this.rows, this.cols, dtype, this.rowPtr.slice(), this.colIdx.slice(), values);
  }

  /** Bytes of rowPtr, colIdx and values. */
  storageBytes(): number {
    return this.rowPtr.byteLength + this.colIdx.byteLength + this.values.byteLength;
  }
}

/**
 * Canonical CSRs that no caller holds: a runtime's validated private copy, whose arrays nothing outside
 * the library can reach. Their toCSR() returns them at once: every conversion, feature scan and solve of
 * an uploaded matrix calls it, and poisson2D(1024) paid a validation and a sortedness pass (≈ 40 ms
 * each, 5 M entries) per call.
 */
const privateCanonical = new WeakSet<CSRMatrix>();

/** @internal Marks a validated canonical CSR that is private to the library (see privateCanonical). */
export function markPrivateCanonical(A: CSRMatrix): CSRMatrix {
  privateCanonical.add(A);
  return A;
}

/**
 * The longest row of library-made CSRs whose maker measured it where it ran (the AMG setup's products,
 * by a WebAssembly pass): a path's kernel choice reads it rather than looping over 2 M row pointers in
 * JavaScript (≈ 20 ms of the WebGPU AMG cycle's first upload on the H100 host).
 */
const longestRows = new WeakMap<CSRMatrix, number>();

/** @internal Records the longest row of a CSR the library made and never changes (see longestRows). */
export function markLongestRow(A: CSRMatrix, longest: number): CSRMatrix {
  longestRows.set(A, longest);
  return A;
}

/** @internal A's longest row where it was recorded (markLongestRow), else undefined. */
export function knownLongestRow(A: CSRMatrix): number | undefined {
  return longestRows.get(A);
}

/** @internal A's longest row: recorded where the library made it (markLongestRow), else one pass over rowPtr. */
export function longestRow(A: CSRMatrix): number {
  return longestRows.get(A) ?? longestSpan(A.rowPtr, A.rows);
}

/** @internal The largest ptr[i + 1] − ptr[i] for i < n (0 when n = 0): a compressed layout's longest row (or column). */
export function longestSpan(ptr: ArrayLike<number>, n: number): number {
  let m = 0;
  for (let i = 0; i < n; i++) m = Math.max(m, ptr[i + 1] - ptr[i]);
  return m;
}

/** @internal A's diagonal in f64, each row's diagonal entries summed in order (0 where none): complex as re, im pairs. */
export function diagonalSums(A: CSRMatrix): Float64Array {
  const complex = components(A.dtype) === 2;
  const { rows, rowPtr, colIdx, values } = A;
  const s = new Float64Array(complex ? 2 * rows : rows);
  // one loop per value width, sums kept in locals (a store per entry doubled poisson3D(64)'s pass)
  if (!complex) {
    for (let i = 0; i < rows; i++) {
      let re = 0;
      for (let k = rowPtr[i], e = rowPtr[i + 1]; k < e; k++) if (colIdx[k] === i) re += values[k];
      s[i] = re;
    }
    return s;
  }
  for (let i = 0; i < rows; i++) {
    let re = 0;
    let im = 0;
    for (let k = rowPtr[i], e = rowPtr[i + 1]; k < e; k++) {
      if (colIdx[k] !== i) continue;
      re += values[2 * k];
      im += values[2 * k + 1];
    }
    s[2 * i] = re;
    s[2 * i + 1] = im;
  }
  return s;
}

/** @internal Whether A is such a private CSR (its arrays change no more: what is computed from them may be kept, or computed later). */
export function isPrivateCanonical(A: CSRMatrix): boolean {
  return privateCanonical.has(A);
}

/**
 * @internal A.validate() with the canonical test in the same pass over colIdx (the same error at the
 * same first entry): whether every row's columns are strictly ascending. rt.upload's private copy
 * took the two passes one after the other (poisson3D(64): 1.8 M entries each).
 */
export function validateCanonical(A: CSRMatrix): boolean {
  const { rows, cols, rowPtr, colIdx } = A;
  checkPointers('CSR', 'rowPtr', rowPtr, 0, colIdx.length, 'colIdx.length');
  let canonical = true;
  for (let i = 0; i < rows; i++) {
    let prev = -1;
    for (let k = rowPtr[i], e = rowPtr[i + 1]; k < e; k++) {
      const j = colIdx[k];
      if (!(j >= 0 && j < cols)) checkRange('CSR', 'colIdx', colIdx, 0, cols, k, k + 1);
      if (j <= prev) canonical = false;
      prev = j;
    }
  }
  checkValueArray('CSR', A.dtype, A.values, colIdx.length);
  return canonical;
}

/** validate() of CSR and CSC: `ptr` over `idx`, indices in [0, inner), values length. */
export function validateCompressed(
  format: string,
  ptrName: string,
  idxName: string,
  ptr: Int32Array,
  idx: Int32Array,
  inner: number,
  dtype: DType,
  values: ValueArray,
): void {
  checkPointers(format, ptrName, ptr, 0, idx.length, `${idxName}.length`);
  checkRange(format, idxName, idx, 0, inner);
  checkValueArray(format, dtype, values, idx.length);
}

/** `arr` cut to n elements; copies so a shrunken result does not pin a larger buffer. */
export function shrink<T extends Int32Array | ValueArray>(arr: T, n: number): T {
  return (arr.length === n ? arr : arr.slice(0, n)) as T;
}
