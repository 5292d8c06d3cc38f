import { checkOptions, optionKeys } from '../options-check.js';
import { FormatError, ShapeError } from '../errors.js';
import { allocValues, components, type DType, type ValueArray } from '../dtype.js';
import { allocIndex, withMemoryBudget } from '../memory-budget.js';
import { type AstypeOptions, castValues, checkHeader, checkIndexArray, checkPadding, checkValueArray, checkZero, copyElement, type PaddingOptions, slotPitch } from './common.js';
import { CSRMatrix, longestRow } from './csr.js';

/** Column index of an ELL padding slot (kernels mask it, so x is never read through padding). */
export const ELL_PAD = -1;

/** Options of ELLMatrix.fromCSR. */
export interface ELLOptions extends PaddingOptions {
  /** Slots per row; default (and minimum) the longest row's length. */
  width?: number;
}

/** The keys ELLOptions has. */
export const ELL_OPTION_KEYS = optionKeys<ELLOptions>({ maxFill: true, maxSlots: true, width: true });

/**
 * ELLPACK, column-major: entry k (0-based, by ascending column) of row i sits at slot k·stride + i.
 * stride >= rows and a multiple of 4. Padding slots (short rows, and rows >= `rows` of the stride)
 * have colIdx = −1 and value 0.
 *
 * @example
 * ```js
 * // Column-major slots: entry k of row i at k·stride + i, padding −1
 * import { CSRMatrix, convert } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * // A = [[1, 0, 2], [0, 3, 0]]
 * const A = convert(new CSRMatrix(2, 3, 'f64', new Int32Array([0, 2, 3]), new Int32Array([0, 2, 1]), new Float64Array([1, 2, 3])), 'ell');
 * assert.deepEqual([A.width, A.stride, A.nnz], [2, 4, 3]);          // stride: rows rounded up to 4
 * assert.deepEqual([...A.colIdx], [0, 1, -1, -1, 2, -1, -1, -1]);
 * assert.deepEqual([...A.values], [1, 3, 0, 0, 2, 0, 0, 0]);
 * ```
 */
export class ELLMatrix {
  /** the format's name, `'ell'` */
  readonly format = 'ell' as const;
  #nnz = -1;

  /**
   * Takes the arrays as they are (no copy); checks only their types and lengths, see validate().
   *
   * @throws {@link ShapeError} when rows or cols is not an integer in [0, 2³¹ − 1].
   * @throws {@link UnsupportedError} for an unknown dtype.
   * @throws {@link FormatError} when width or stride is not a non-negative integer, or colIdx or values does not hold width × stride slots.
   */
  constructor(
    /** number of rows */
    readonly rows: number,
    /** number of columns */
    readonly cols: number,
    /** element type: the value arrays are Float32Array for f32/c64 and Float64Array for f64/c128 */
    readonly dtype: DType,
    /** slots per row (at least the longest row) */
    readonly width: number,
    /** rows of the layout: ≥ rows and a multiple of 4 */
    readonly stride: number,
    /** column of each slot, entry k of row i at k·stride + i; −1 ({@link ELL_PAD}) for padding */
    readonly colIdx: Int32Array,
    /** value of each slot (0 for padding; interleaved re, im when complex) */
    readonly values: ValueArray,
  ) {
    checkHeader('ELL', rows, cols, dtype);
    for (const [name, v] of [['width', width], ['stride', stride]] as const) {
      if (!Number.isInteger(v) || v < 0) throw new FormatError(`ELL ${name} = ${v} must be a nonnegative integer`);
    }
    checkIndexArray('ELL', 'colIdx', colIdx, width * stride);
    checkValueArray('ELL', dtype, values, width * stride);
  }

  /** Non-padding slots (counted once, on first use). */
  get nnz(): number {
    if (this.#nnz < 0) {
      let n = 0;
      for (const c of this.colIdx) if (c !== ELL_PAD) n++;
      this.#nnz = n;
    }
    return this.#nnz;
  }

  /**
   * Checks stride (>= rows, multiple of 4); per row, columns in [0, cols) strictly ascending and
   * followed only by padding; padding slots (colIdx −1, including rows past `rows`) hold value 0.
   *
   * @throws {@link FormatError} naming the array, the index and the expected against the actual value, at the first invariant broken.
   */
  validate(): this {
    const { rows, cols, width, stride, colIdx, values } = this;
    const comp = components(this.dtype);
    if (stride < rows || stride % 4 !== 0) throw new FormatError(`ELL stride = ${stride}, expected a multiple of 4 that is >= rows = ${rows}`);
    checkIndexArray('ELL', 'colIdx', colIdx, width * stride);
    checkValueArray('ELL', this.dtype, values, width * stride);
    // width 0 holds no slot: nothing to visit, however many rows the matrix declares
    for (let i = 0; width > 0 && i < stride; i++) {
      let padded = i >= rows;
      for (let k = 0; k < width; k++) {
        const s = k * stride + i;
        const c = colIdx[s];
        if (c === ELL_PAD) {
          padded = true;
          checkZero('ELL', `padding slot ${s} (row ${i}, entry ${k})`, values, s, comp);
        } else if (padded) {
          const why = i >= rows ? `row ${i} is stride padding (rows = ${rows})` : `row ${i} has padding before it`;
          throw new FormatError(`ELL colIdx[${s}] = ${c}, expected ${ELL_PAD}: ${why}`);
        } else if (c < 0 || c >= cols) {
          throw new FormatError(`ELL colIdx[${s}] = ${c} is out of range [0, ${cols}) (row ${i}, entry ${k})`);
        } else if (k > 0 && c <= colIdx[s - stride]) {
          throw new FormatError(`ELL colIdx[${s}] = ${c} is not greater than colIdx[${s - stride}] = ${colIdx[s - stride]} (row ${i} must be strictly ascending)`);
        }
      }
    }
    return this;
  }

  /**
   * Canonical CSR (padding dropped; explicit zeros kept).
   *
   * @throws {@link FormatError} when the matrix breaks an invariant of its format (it validates first).
   */
  toCSR(): CSRMatrix {
    return withMemoryBudget(undefined, () => {
      this.validate();
      const { rows, width, stride, colIdx, values } = this;
      const comp = components(this.dtype);
      const rowPtr = allocIndex(rows + 1, `ELL: row pointers of ${rows} rows`);
      for (let i = 0; i < rows; i++) {
        let n = 0;
        for (let k = 0; k < width; k++) if (colIdx[k * stride + i] !== ELL_PAD) n++;
        rowPtr[i + 1] = rowPtr[i] + n;
      }
      const outIdx = allocIndex(rowPtr[rows], `ELL: ${rowPtr[rows]} column indices`);
      const outVal = allocValues(this.dtype, rowPtr[rows]);
      for (let i = 0, p = 0; i < rows; i++) {
        for (let k = 0; k < width; k++) {
          const s = k * stride + i;
          if (colIdx[s] === ELL_PAD) continue;
          outIdx[p] = colIdx[s];
          copyElement(values, s, outVal, p++, comp);
        }
      }
      return new CSRMatrix(rows, this.cols, this.dtype, rowPtr, outIdx, outVal).toCSR();
    });
  }

  /**
   * ELL of a CSR with width = the longest row (or opts.width, which may not be shorter: ShapeError),
   * stride = rows rounded up to 4, plus 16 when that is a multiple of 1024 (staggering the slot columns
   * across cache sets). Refuses with PaddingLimitError when width·stride slots exceed
   * `maxFill × max(nnz, 1)` (default maxFill 10) or `opts.maxSlots` when given — e.g. one 10,000-entry
   * row among short ones. The check runs before anything is allocated.
   *
   * @throws {@link FormatError} when csr breaks an invariant of CSR.
   * @throws {@link ShapeError} when opts.width is shorter than the longest row.
   * @throws {@link PaddingLimitError} when width × stride slots would exceed the padding limit ({@link PaddingOptions}).
   * @throws {@link OptionError} for an option key it does not know (TypeError when the options are not an object).
   */
  static fromCSR(csr: CSRMatrix, opts?: ELLOptions): ELLMatrix {
    return withMemoryBudget(undefined, () => {
      checkOptions('ELLMatrix.fromCSR', opts, ELL_OPTION_KEYS);
      const c = csr.toCSR();
      const longest = longestRow(c);
      const width = opts?.width ?? longest;
      if (!Number.isInteger(width) || width < longest) {
        throw new ShapeError(`ELL width = ${width} cannot hold the longest row (${longest} entries); use HYB to split long rows`);
      }
      checkPadding('ELL', width * slotPitch(c.rows), c.nnz, opts);
      return ellPart(c, width);
    });
  }

  /**
   * A copy with values converted to `dtype`; `this` when dtype is unchanged.
   *
   * @throws {@link UnsupportedError} from a complex dtype to a real one (it would drop the imaginary parts), or for an unknown dtype.
   * @throws {@link InputRangeError} to f32 or c64, for a finite value beyond f32's range or a nonzero one below its smallest subnormal (naming its row and column), unless `options.outOfRange` is `'round'`.
   */
  astype(dtype: DType, options?: AstypeOptions): ELLMatrix {
    if (dtype === this.dtype) return this;
    const values = castValues('ELL', this.values, this.dtype, dtype, (k) => [k % this.stride, this.colIdx[k]], options);
    return new ELLMatrix(this.rows, this.cols, dtype, this.width, this.stride, this.colIdx.slice(), values);
  }

  /** Bytes of colIdx and values. */
  storageBytes(): number {
    return this.colIdx.byteLength + this.values.byteLength;
  }
}

/** ELL of the first min(length, width) entries of every row of a canonical CSR (no limit check). */
export function ellPart(c: CSRMatrix, width: number): ELLMatrix {
  const { rows, rowPtr, colIdx } = c;
  const comp = components(c.dtype);
  const stride = slotPitch(rows);
  const idx = allocIndex(width * stride, `ELL: ${width}×${stride} slots`).fill(ELL_PAD);
  const values = allocValues(c.dtype, width * stride);
  for (let i = 0; i < rows; i++) {
    const n = Math.min(width, rowPtr[i + 1] - rowPtr[i]);
    for (let k = 0; k < n; k++) {
      idx[k * stride + i] = colIdx[rowPtr[i] + k];
      copyElement(c.values, rowPtr[i] + k, values, k * stride + i, comp);
    }
  }
  return new ELLMatrix(rows, c.cols, c.dtype, width, stride, idx, values);
}
