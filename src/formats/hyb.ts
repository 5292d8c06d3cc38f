import { ELL_OPTION_KEYS } from './ell.js';
import { checkOptions } from '../options-check.js';
import { FormatError, ShapeError } from '../errors.js';
import { allocValues, components, type DType } from '../dtype.js';
import { allocIndex, copyIndex, withMemoryBudget } from '../memory-budget.js';
import { type AstypeOptions, checkHeader, checkPadding, copyElement, slotPitch } from './common.js';
import { COOMatrix } from './coo.js';
import { CSRMatrix, longestRow } from './csr.js';
import { ELL_PAD, ellPart, ELLMatrix, type ELLOptions } from './ell.js';

/**
 * Hybrid ELL + COO (Bell–Garland, seed 001): the first K entries of every row (by column) in an
 * ELLMatrix of width K, the rest of each longer row in a COOMatrix sorted by (row, col), so a kernel
 * runs the ELL pass then the COO remainder of its row range (found by binary search on coo.rowIdx).
 *
 * @example
 * ```js
 * // Three short rows and one long one: ELL of width 1, the long row's rest in COO
 * import { DenseMatrix, convert } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * const A = new DenseMatrix(4, 4, 'f64', new Float64Array([1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 3, 0, 4, 5, 6, 7]));
 * const H = convert(A, 'hyb');
 * assert.equal(H.width, 1);
 * assert.deepEqual([...H.coo.rowIdx], [3, 3, 3]);
 * assert.deepEqual([...H.coo.colIdx], [1, 2, 3]);
 * assert.equal(H.nnz, 7);
 * ```
 */
export class HYBMatrix {
  /** the format's name, `'hyb'` */
  readonly format = 'hyb' as const;

  /**
   * Takes the parts as they are (no copy); checks only that their headers match, see validate().
   *
   * @throws {@link ShapeError} when rows or cols is not an integer in [0, 2³¹ − 1].
   * @throws {@link UnsupportedError} for an unknown dtype.
   * @throws {@link FormatError} when a part's rows, cols or dtype differ from the matrix's.
   */
  constructor(
    /** number of rows */
    readonly rows: number,
    /** number of columns */
    readonly cols: number,
    /** element type: the value arrays are Float32Array for f32/c64 and Float64Array for f64/c128 */
    readonly dtype: DType,
    /** the ELL part: the first K entries (by column) of every row */
    readonly ell: ELLMatrix,
    /** the COO part: the rest of the longer rows, sorted by (row, col) */
    readonly coo: COOMatrix,
  ) {
    checkHeader('HYB', rows, cols, dtype);
    for (const [name, part] of [['ell', ell], ['coo', coo]] as const) {
      if (part.rows !== rows || part.cols !== cols || part.dtype !== dtype) {
        throw new FormatError(`HYB ${name} is ${part.rows}×${part.cols} ${part.dtype}, expected ${rows}×${cols} ${dtype}`);
      }
    }
  }

  /** Entries in both parts. */
  get nnz(): number {
    return this.ell.nnz + this.coo.nnz;
  }

  /** Width K of the ELL part. */
  get width(): number {
    return this.ell.width;
  }

  /**
   * Validates both parts, and that the COO remainder is sorted by (row, col) as the kernel needs.
   *
   * @throws {@link FormatError} naming the array, the index and the expected against the actual value, at the first invariant broken.
   */
  validate(): this {
    this.ell.validate();
    this.coo.validate();
    const { rowIdx, colIdx } = this.coo;
    for (let k = 1; k < rowIdx.length; k++) {
      if (rowIdx[k] < rowIdx[k - 1] || (rowIdx[k] === rowIdx[k - 1] && colIdx[k] < colIdx[k - 1])) {
        throw new FormatError(
          `HYB coo entry ${k} = (${rowIdx[k]}, ${colIdx[k]}) comes after (${rowIdx[k - 1]}, ${colIdx[k - 1]}): the COO part must be sorted by (row, col)`,
        );
      }
    }
    return this;
  }

  /**
   * Canonical CSR: each row's ELL entries followed by its COO entries, then canonicalised.
   *
   * @throws {@link FormatError} when the matrix breaks an invariant of its format (it validates first).
   */
  toCSR(): CSRMatrix {
    return withMemoryBudget(undefined, () => {
      this.validate();
      const { rows, ell, coo } = this;
      const comp = components(this.dtype);
      const rowPtr = allocIndex(rows + 1, `HYB: row pointers of ${rows} rows`);
      for (let i = 0; i < rows; i++) {
        for (let k = 0; k < ell.width; k++) if (ell.colIdx[k * ell.stride + i] !== ELL_PAD) rowPtr[i + 1]++;
      }
      for (let k = 0; k < coo.nnz; k++) rowPtr[coo.rowIdx[k] + 1]++;
      for (let i = 0; i < rows; i++) rowPtr[i + 1] += rowPtr[i];
      const next = copyIndex(rowPtr, 0, rows, `HYB: row cursors of ${rows} rows`);
      const colIdx = allocIndex(rowPtr[rows], `HYB: ${rowPtr[rows]} column indices`);
      const values = allocValues(this.dtype, rowPtr[rows]);
      for (let i = 0; i < rows; i++) {
        for (let k = 0; k < ell.width; k++) {
          const s = k * ell.stride + i;
          if (ell.colIdx[s] === ELL_PAD) continue;
          colIdx[next[i]] = ell.colIdx[s];
          copyElement(ell.values, s, values, next[i]++, comp);
        }
      }
      for (let k = 0; k < coo.nnz; k++) {
        const p = next[coo.rowIdx[k]]++;
        colIdx[p] = coo.colIdx[k];
        copyElement(coo.values, k, values, p, comp);
      }
      return new CSRMatrix(rows, this.cols, this.dtype, rowPtr, colIdx, values).toCSR();
    });
  }

  /**
   * HYB of a CSR. K = opts.width, or by default the largest k such that at least max(1, rows/3) rows
   * have >= k entries (Bell–Garland's histogram rule: the ELL part is at least one third full per
   * diagonal, so it never pads much; long rows spill to COO). The ELL part is checked against the
   * padding limit (PaddingOptions; the default K never reaches the default limit).
   *
   * @throws {@link FormatError} when csr breaks an invariant of CSR.
   * @throws {@link ShapeError} when opts.width is not a non-negative integer.
   * @throws {@link PaddingLimitError} when the ELL part would exceed the padding limit ({@link PaddingOptions}).
   * @throws {@link OptionError} for an option key it does not know (TypeError when the options are not an object).
   */
  static fromCSR(csr: CSRMatrix, opts?: ELLOptions): HYBMatrix {
    return withMemoryBudget(undefined, () => {
      checkOptions('HYBMatrix.fromCSR', opts, ELL_OPTION_KEYS);
      const c = csr.toCSR();
      const { rows, rowPtr } = c;
      const comp = components(c.dtype);
      const K = opts?.width ?? hybWidth(c);
      if (!Number.isInteger(K) || K < 0) throw new ShapeError(`HYB width = ${K} must be a nonnegative integer`);
      let inELL = 0;
      for (let i = 0; i < rows; i++) inELL += Math.min(K, rowPtr[i + 1] - rowPtr[i]);
      checkPadding('HYB', K * slotPitch(rows), c.nnz, opts);
      const ell = ellPart(c, K);
      const n = c.nnz - inELL;
      const rowIdx = allocIndex(n, `HYB: ${n} row indices`);
      const colIdx = allocIndex(n, `HYB: ${n} column indices`);
      const values = allocValues(c.dtype, n);
      for (let i = 0, p = 0; i < rows; i++) {
        for (let k = rowPtr[i] + K; k < rowPtr[i + 1]; k++, p++) {
          rowIdx[p] = i;
          colIdx[p] = c.colIdx[k];
          copyElement(c.values, k, values, p, comp);
        }
      }
      return new HYBMatrix(rows, c.cols, c.dtype, ell, new COOMatrix(rows, c.cols, c.dtype, rowIdx, colIdx, values));
    });
  }

  /**
   * A copy with values converted to `dtype`; `this` when dtype is unchanged.
   *
   * @throws {@link UnsupportedError} from a complex dtype to a real one (it would drop the imaginary parts), or for an unknown dtype.
   * @throws {@link InputRangeError} to f32 or c64, for a finite value beyond f32's range or a nonzero one below its smallest subnormal (naming its row and column), unless `options.outOfRange` is `'round'`.
   */
  astype(dtype: DType, options?: AstypeOptions): HYBMatrix {
    if (dtype === this.dtype) return this;
    return new HYBMatrix(this.rows, this.cols, dtype, this.ell.astype(dtype, options), this.coo.astype(dtype, options));
  }

  /** Bytes of both parts. */
  storageBytes(): number {
    return this.ell.storageBytes() + this.coo.storageBytes();
  }
}

/**
 * The default ELL width of HYB: the largest k with at least max(1, rows/3) rows of length >= k (0 for
 * no rows). `c` must be a valid CSR.
 *
 * @example
 * ```js
 * import { hybWidth, poisson2D } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * assert.equal(hybWidth(poisson2D(10)), 5);      // most rows of the 5-point stencil are full
 * ```
 */
export function hybWidth(c: CSRMatrix): number {
  const { rows, rowPtr } = c;
  if (rows === 0) return 0;
  const longest = longestRow(c);
  const hist = new Int32Array(longest + 1);
  for (let i = 0; i < rows; i++) hist[rowPtr[i + 1] - rowPtr[i]]++;
  const need = Math.max(1, rows / 3);
  let atLeast = 0;
  for (let k = longest; k > 0; k--) {
    atLeast += hist[k];
    if (atLeast >= need) return k;
  }
  return 0;
}
