import { checkOptions, optionKeys } from '../options-check.js';
import { FormatError, ShapeError } from '../errors.js';
import { allocValues, components, type DType, type ValueArray } from '../dtype.js';
import { allocIndex, releaseMemory, withMemoryBudget } from '../memory-budget.js';
import { type AstypeOptions, castValues, checkHeader, checkIndexArray, checkPadding, checkPointers, checkValueArray, checkZero, copyElement, type PaddingOptions, segmentOf } from './common.js';
import { CSRMatrix } from './csr.js';

/** Column index of a SELL padding slot (kernels mask it, so x is never used through padding). */
export const SELL_PAD = -1;

/** Largest slice height: a slice is one strip of SIMD lanes, not a block of the matrix. */
export const SELL_MAX_C = 64;

/** Options of SELLMatrix.fromCSR: C and σ, each chosen per matrix and dtype when absent (sellDefaultC, defaultSortWindow). */
export interface SELLOptions extends PaddingOptions {
  /** C: rows per slice, 1…64. */
  sliceHeight?: number;
  /** σ: rows are sorted by decreasing length within windows of σ rows; 1 (no sorting) or a multiple of C. */
  sortWindow?: number;
}

/** The keys SELLOptions has. */
export const SELL_OPTION_KEYS = optionKeys<SELLOptions>({ maxFill: true, maxSlots: true, sliceHeight: true, sortWindow: true });

/**
 * SELL-C-σ (Kreutzer, Hager, Wellein, Fehske, Bishop 2014). Rows are stably sorted by decreasing
 * length within windows of σ rows; perm[p] is the original row at position p (a permutation that maps
 * every window onto itself; the identity when σ = 1). Positions are cut into slices of C; slice s has
 * width w_s = its longest row and stores C·w_s slots from slicePtr[s], column-major: entry k (by
 * ascending column) of position s·C + r sits at slicePtr[s] + k·C + r. Padding slots (short rows, and
 * positions ≥ rows in the last slice) have colIdx −1 and value 0.
 *
 * @example
 * ```js
 * // Slices of C = 2 rows, unsorted (σ = 1): each slice as wide as its longest row
 * import { DenseMatrix, convert } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * // A = [[1, 0, 2], [0, 3, 0], [4, 5, 6]]
 * const S = convert(new DenseMatrix(3, 3, 'f64', new Float64Array([1, 0, 2, 0, 3, 0, 4, 5, 6])), 'sell', { sliceHeight: 2, sortWindow: 1 });
 * assert.deepEqual([S.slices, ...S.slicePtr], [2, 0, 4, 10]);      // 2×2 slots, then 2×3
 * assert.deepEqual([...S.colIdx], [0, 1, 2, -1, 0, -1, 1, -1, 2, -1]);   // slice 0, then slice 1
 * assert.deepEqual([...S.values], [1, 3, 2, 0, 4, 0, 5, 0, 6, 0]);
 * ```
 */
export class SELLMatrix {
  /** the format's name, `'sell'` */
  readonly format = 'sell' as const;
  #nnz = -1;

  /**
   * Takes the arrays as they are (no copy); checks only their types and lengths, see validate().
   *
   * @throws {@link ShapeError} when rows or cols is not an integer in [0, 2³¹ − 1].
   * @throws {@link UnsupportedError} for an unknown dtype.
   * @throws {@link FormatError} when C is not in [1, 64], σ is neither 1 nor a multiple of C, perm's length is not rows, slicePtr's is not ⌈rows / C⌉ + 1, or values' length differs from colIdx's.
   */
  constructor(
    /** number of rows */
    readonly rows: number,
    /** number of columns */
    readonly cols: number,
    /** element type: the value arrays are Float32Array for f32/c64 and Float64Array for f64/c128 */
    readonly dtype: DType,
    /** C: rows per slice, 1…64 */
    readonly sliceHeight: number,
    /** σ: rows are sorted by decreasing length within windows of σ rows (1: not sorted) */
    readonly sortWindow: number,
    /** perm[p] = the original row at position p */
    readonly perm: Int32Array,
    /** the start of each slice in colIdx and values, then colIdx.length */
    readonly slicePtr: Int32Array,
    /** column of each slot, entry k of position s·C + r at slicePtr[s] + k·C + r; −1 ({@link SELL_PAD}) for padding */
    readonly colIdx: Int32Array,
    /** value of each slot (0 for padding; interleaved re, im when complex) */
    readonly values: ValueArray,
  ) {
    checkHeader('SELL', rows, cols, dtype);
    checkSellParams('SELL', sliceHeight, sortWindow, FormatError);
    checkIndexArray('SELL', 'perm', perm, rows);
    checkIndexArray('SELL', 'slicePtr', slicePtr, Math.ceil(rows / sliceHeight) + 1);
    checkIndexArray('SELL', 'colIdx', colIdx);
    checkValueArray('SELL', dtype, values, colIdx.length);
  }

  /** Number of slices, ⌈rows / C⌉. */
  get slices(): number {
    return this.slicePtr.length - 1;
  }

  /** Non-padding slots (counted once, on first use). */
  get nnz(): number {
    if (this.#nnz < 0) {
      let n = 0;
      for (const c of this.colIdx) if (c !== SELL_PAD) n++;
      this.#nnz = n;
    }
    return this.#nnz;
  }

  /**
   * Checks perm (a permutation mapping each σ-window onto itself, rows in decreasing length, equal
   * lengths in ascending order), slicePtr (from 0 to colIdx.length, each slice a multiple of C slots,
   * its width that of its longest row), and per position columns in [0, cols) strictly ascending,
   * followed only by padding slots of value 0.
   *
   * @throws {@link FormatError} naming the array, the index and the expected against the actual value, at the first invariant broken.
   */
  validate(): this {
    const { rows, cols, sliceHeight: C, sortWindow: sigma, perm, slicePtr, colIdx, values } = this;
    const comp = components(this.dtype);
    const seen = new Uint8Array(rows);
    for (let p = 0; p < rows; p++) {
      const i = perm[p];
      const w0 = p - (p % sigma);
      const w1 = Math.min(rows, w0 + sigma);
      if (i < w0 || i >= w1) throw new FormatError(`SELL perm[${p}] = ${i} is outside its sorting window [${w0}, ${w1})`);
      if (seen[i]) throw new FormatError(`SELL perm[${p}] = ${i} repeats an earlier position (perm must be a permutation)`);
      seen[i] = 1;
    }
    checkPointers('SELL', 'slicePtr', slicePtr, 0, colIdx.length, 'colIdx.length');
    checkValueArray('SELL', this.dtype, values, colIdx.length);
    const len = allocIndex(rows, `SELL: lengths of ${rows} rows`);
    for (let s = 0; s < this.slices; s++) {
      const slots = slicePtr[s + 1] - slicePtr[s];
      if (slots % C !== 0) throw new FormatError(`SELL slice ${s} has ${slots} slots (slicePtr[${s + 1}] − slicePtr[${s}]), expected a multiple of C = ${C}`);
      const width = slots / C;
      let longest = 0;
      for (let r = 0; r < C; r++) {
        const p = s * C + r;
        let padded = p >= rows;
        for (let k = 0; k < width; k++) {
          const t = slicePtr[s] + k * C + r;
          const c = colIdx[t];
          if (c === SELL_PAD) {
            padded = true;
            checkZero('SELL', `padding slot ${t} (slice ${s}, position ${p}, entry ${k})`, values, t, comp);
          } else if (padded) {
            const why = p >= rows ? `position ${p} is past the last row (rows = ${rows})` : `position ${p} has padding before it`;
            throw new FormatError(`SELL colIdx[${t}] = ${c}, expected ${SELL_PAD}: ${why}`);
          } else if (c < 0 || c >= cols) {
            throw new FormatError(`SELL colIdx[${t}] = ${c} is out of range [0, ${cols}) (position ${p}, entry ${k})`);
          } else if (k > 0 && c <= colIdx[t - C]) {
            throw new FormatError(`SELL colIdx[${t}] = ${c} is not greater than colIdx[${t - C}] = ${colIdx[t - C]} (position ${p} must be strictly ascending)`);
          } else {
            len[p] = k + 1;
          }
        }
        if (p < rows) longest = Math.max(longest, len[p]);
      }
      if (longest !== width) throw new FormatError(`SELL slice ${s} has width ${width} but its longest row has ${longest} entries`);
    }
    for (let p = 1; p < rows; p++) {
      if (p % sigma === 0) continue;
      if (len[p] > len[p - 1] || (len[p] === len[p - 1] && perm[p] < perm[p - 1])) {
        throw new FormatError(
          `SELL position ${p} (row ${perm[p]}, ${len[p]} entries) follows position ${p - 1} (row ${perm[p - 1]}, ${len[p - 1]} entries): ` +
            'rows must be sorted by decreasing length within a window, ties in row order',
        );
      }
    }
    releaseMemory(len.byteLength); // a temporary of the check
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
      const { rows, sliceHeight: C, perm, slicePtr, colIdx, values } = this;
      const comp = components(this.dtype);
      const rowPtr = allocIndex(rows + 1, `SELL: row pointers of ${rows} rows`);
      const lengths = allocIndex(rows, `SELL: lengths of ${rows} rows`);
      for (let p = 0; p < rows; p++) {
        const s = Math.floor(p / C);
        let n = 0;
        for (let t = slicePtr[s] + (p % C); t < slicePtr[s + 1] && colIdx[t] !== SELL_PAD; t += C) n++;
        lengths[p] = n;
        rowPtr[perm[p] + 1] = n;
      }
      for (let i = 0; i < rows; i++) rowPtr[i + 1] += rowPtr[i];
      const outIdx = allocIndex(rowPtr[rows], `SELL: ${rowPtr[rows]} column indices`);
      const outVal = allocValues(this.dtype, rowPtr[rows]);
      for (let p = 0; p < rows; p++) {
        const t0 = slicePtr[Math.floor(p / C)] + (p % C);
        for (let k = 0, dst = rowPtr[perm[p]]; k < lengths[p]; k++, dst++) {
          outIdx[dst] = colIdx[t0 + k * C];
          copyElement(values, t0 + k * C, outVal, dst, comp);
        }
      }
      return new CSRMatrix(rows, this.cols, this.dtype, rowPtr, outIdx, outVal).toCSR();
    });
  }

  /**
   * SELL-C-σ of a CSR, C and σ from the options or else the defaults (sellDefaultC, defaultSortWindow). Refuses with
   * PaddingLimitError over the padding limit (`maxFill × nnz`, default 10 — only reachable with C > 10
   * and a few very long rows) before allocating.
   *
   * @throws {@link FormatError} when csr breaks an invariant of CSR.
   * @throws {@link ShapeError} when sliceHeight is not in [1, 64] or sortWindow is neither 1 nor a multiple of it.
   * @throws {@link PaddingLimitError} when the slices would store more than the padding limit ({@link PaddingOptions}).
   * @throws {@link OptionError} for an option key it does not know (TypeError when the options are not an object).
   */
  static fromCSR(csr: CSRMatrix, opts?: SELLOptions): SELLMatrix {
    return withMemoryBudget(undefined, () => {
      checkOptions('SELLMatrix.fromCSR', opts, SELL_OPTION_KEYS);
      const c = csr.toCSR();
      const C = opts?.sliceHeight ?? sellDefaultC(c.dtype);
      checkSellParams('SELL.fromCSR', C, 1, ShapeError);
      const sigma = opts?.sortWindow ?? defaultSortWindow(c, C);
      checkSellParams('SELL.fromCSR', C, sigma, ShapeError);
      const { rows, rowPtr } = c;
      const comp = components(c.dtype);
      const perm = sortedPositions(rowPtr, rows, sigma);
      const slices = Math.ceil(rows / C);
      const slicePtr = allocIndex(slices + 1, `SELL: pointers of ${slices} slices`);
      let slots = 0;
      for (let s = 0; s < slices; s++) {
        let w = 0;
        for (let p = s * C; p < Math.min(rows, s * C + C); p++) w = Math.max(w, rowPtr[perm[p] + 1] - rowPtr[perm[p]]);
        slots += w * C;
        slicePtr[s + 1] = Math.min(slots, 0x7fffffff);
      }
      checkPadding('SELL', slots, c.nnz, opts);
      const colIdx = allocIndex(slots, `SELL: ${slots} slots`).fill(SELL_PAD);
      const values = allocValues(c.dtype, slots);
      for (let p = 0; p < rows; p++) {
        const i = perm[p];
        const t0 = slicePtr[Math.floor(p / C)] + (p % C);
        for (let k = 0, src = rowPtr[i]; src < rowPtr[i + 1]; k++, src++) {
          colIdx[t0 + k * C] = c.colIdx[src];
          copyElement(c.values, src, values, t0 + k * C, comp);
        }
      }
      return new SELLMatrix(rows, c.cols, c.dtype, C, sigma, perm, slicePtr, colIdx, values);
    });
  }

  /**
   * A copy with values converted to `dtype`; `this` when dtype is unchanged.
   *
   * @throws {@link UnsupportedError} from a complex dtype to a real one (it would drop the imaginary parts), or for an unknown dtype.
   * @throws {@link InputRangeError} to f32 or c64, for a finite value beyond f32's range or a nonzero one below its smallest subnormal (naming its row and column), unless `options.outOfRange` is `'round'`.
   */
  astype(dtype: DType, options?: AstypeOptions): SELLMatrix {
    if (dtype === this.dtype) return this;
    const values = castValues('SELL', this.values, this.dtype, dtype, (k) => {
      const sl = segmentOf(this.slicePtr, k);
      return [this.perm[sl * this.sliceHeight + ((k - this.slicePtr[sl]) % this.sliceHeight)], this.colIdx[k]];
    }, options);
    return new SELLMatrix(this.rows, this.cols, dtype, this.sliceHeight, this.sortWindow, this.perm.slice(), this.slicePtr.slice(), this.colIdx.slice(), values);
  }

  /** Bytes of perm, slicePtr, colIdx and values. */
  storageBytes(): number {
    return this.perm.byteLength + this.slicePtr.byteLength + this.colIdx.byteLength + this.values.byteLength;
  }
}

/** C in [1, 64]; σ = 1 or a positive multiple of C (so a slice never straddles two windows). */
function checkSellParams(where: string, C: number, sigma: number, E: typeof FormatError | typeof ShapeError): void {
  if (!Number.isInteger(C) || C < 1 || C > SELL_MAX_C) throw new E(`${where}: sliceHeight (C) = ${C} must be an integer in [1, ${SELL_MAX_C}]`);
  if (!Number.isInteger(sigma) || sigma < 1 || (sigma !== 1 && sigma % C !== 0)) {
    throw new E(`${where}: sortWindow (σ) = ${sigma} must be 1 or a positive multiple of sliceHeight (C) = ${C}`);
  }
}

/**
 * perm: within each window of σ rows, rows by decreasing length, ties in row order (a stable sort on
 * one numeric key per row, (longest − length)·σ + offset in the window).
 */
function sortedPositions(rowPtr: Int32Array, rows: number, sigma: number): Int32Array {
  const perm = allocIndex(rows, `SELL: a permutation of ${rows} rows`);
  if (sigma === 1) {
    for (let i = 0; i < rows; i++) perm[i] = i;
    return perm;
  }
  const keys = new Float64Array(Math.min(sigma, rows));
  for (let w0 = 0; w0 < rows; w0 += sigma) {
    const n = Math.min(sigma, rows - w0);
    let longest = 0;
    for (let r = 0; r < n; r++) longest = Math.max(longest, rowPtr[w0 + r + 1] - rowPtr[w0 + r]);
    const k = keys.subarray(0, n);
    for (let r = 0; r < n; r++) k[r] = (longest - (rowPtr[w0 + r + 1] - rowPtr[w0 + r])) * sigma + r;
    k.sort();
    for (let r = 0; r < n; r++) perm[w0 + r] = w0 + (k[r] % sigma);
  }
  return perm;
}

/**
 * C when not given, per dtype: 32 bytes of values per slot column of an 8-row strip or a 4-row one —
 * 8 rows for f32/c64, 4 for f64/c128 (measured on poisson3D_128 and 1 M-row random matrices, README).
 *
 * @example
 * ```js
 * import { sellDefaultC } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * assert.deepEqual(['f32', 'f64', 'c64', 'c128'].map(sellDefaultC), [8, 4, 8, 4]);
 * ```
 */
export function sellDefaultC(dtype: DType): number {
  return dtype === 'f32' || dtype === 'c64' ? 8 : 4;
}

/** σ when rows must be sorted: the measured best of 64…2^20 rows (512 was 15–25% slower, 2^20 no faster). */
export const SELL_SORT_WINDOW = 4096;

/**
 * σ for a matrix and C: 1 (no permutation: y written whole vectors at a time) while unsorted slices
 * store at most 10% padding, else SELL_SORT_WINDOW rounded down to a multiple of C.
 *
 * @example
 * ```js
 * // Even rows need no sorting; power-law rows do
 * import { defaultSortWindow, poisson2D, randomMatrix, SELL_SORT_WINDOW } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * assert.equal(defaultSortWindow(poisson2D(64), 4), 1);
 * const skewed = randomMatrix({ rows: 5000, distribution: 'powerlaw', seed: 1 });
 * assert.equal(defaultSortWindow(skewed, 4), SELL_SORT_WINDOW);
 * ```
 */
export function defaultSortWindow(csr: CSRMatrix, C: number): number {
  if (sellSlots(csr.rowPtr, csr.rows, C, 1) <= 1.1 * Math.max(csr.rowPtr[csr.rows], 1)) return 1;
  return Math.max(C, SELL_SORT_WINDOW - (SELL_SORT_WINDOW % C));
}

/**
 * Slots SELL-C-σ would store (widths after sorting each window), without building it: the padding
 * of a C and σ before choosing them. `rowPtr` is a CSR's.
 *
 * @example
 * ```js
 * // Sorting within windows cuts the padding of irregular rows
 * import { randomMatrix, sellSlots } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * const A = randomMatrix({ rows: 5000, distribution: 'powerlaw', seed: 1 });
 * const unsorted = sellSlots(A.rowPtr, A.rows, 8, 1);
 * const sorted = sellSlots(A.rowPtr, A.rows, 8, 4096);
 * assert.ok(A.nnz <= sorted && sorted < unsorted);
 * ```
 */
export function sellSlots(rowPtr: Int32Array, rows: number, C: number, sigma: number): number {
  const perm = sortedPositions(rowPtr, rows, sigma);
  let slots = 0;
  for (let p0 = 0; p0 < rows; p0 += C) {
    let w = 0;
    for (let p = p0; p < Math.min(rows, p0 + C); p++) w = Math.max(w, rowPtr[perm[p] + 1] - rowPtr[perm[p]]);
    slots += w * C;
  }
  releaseMemory(perm.byteLength); // a temporary of the count
  return slots;
}
