import { checkOptions } from '../options-check.js';
import { PADDING_OPTION_KEYS } from './common.js';
import { FormatError } from '../errors.js';
import { allocValues, components, type DType, type ValueArray } from '../dtype.js';
import { allocIndex, withMemoryBudget } from '../memory-budget.js';
import { type AstypeOptions, castValues, checkHeader, checkIndexArray, checkPadding, checkValueArray, checkZero, copyElement, isZeroAt, type PaddingOptions, slotPitch } from './common.js';
import { CSRMatrix, isPrivateCanonical } from './csr.js';
import { lowerBound } from './sort.js';
import type { SparseMatrix } from './index.js';

/**
 * Diagonal storage: A[i, i + offsets[d]] = data[d·pitch + i] (element index; interleaved when complex).
 * Offsets strictly ascending in (−rows, cols); pitch >= rows and a multiple of 4 elements so SIMD can
 * load 4 rows at once. Slots outside the matrix and the pitch padding hold 0.
 *
 * @example
 * ```js
 * // The tridiagonal [−1, 2, −1] matrix of order 4: three diagonals of pitch 4
 * import { DIAMatrix, convert } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * const A = new DIAMatrix(4, 4, 'f64', new Int32Array([-1, 0, 1]), 4, new Float64Array([
 *   0, -1, -1, -1,                                         // offset −1: A[i, i − 1], none in row 0
 *   2, 2, 2, 2,                                            // offset 0: the diagonal
 *   -1, -1, -1, 0,                                         // offset 1: A[i, i + 1], none in row 3
 * ]));
 * assert.equal(A.validate().nnz, 10);                      // in-bounds slots: 3 + 4 + 3
 * const again = convert(A.toCSR(), 'dia');
 * assert.deepEqual(again.offsets, A.offsets);
 * assert.deepEqual(again.data, A.data);
 * ```
 */
export class DIAMatrix {
  /** the format's name, `'dia'` */
  readonly format = 'dia' as const;

  /**
   * Takes the arrays as they are (no copy); checks only their types and lengths, see validate().
   *
   * @throws {@link ShapeError} when rows or cols is not an integer in [0, 2³¹ − 1].
   * @throws {@link UnsupportedError} for an unknown dtype.
   * @throws {@link FormatError} when offsets is not an Int32Array, pitch is not a non-negative integer, or data does not hold offsets.length × pitch elements.
   */
  constructor(
    /** number of rows */
    readonly rows: number,
    /** number of columns */
    readonly cols: number,
    /** element type: the value arrays are Float32Array for f32/c64 and Float64Array for f64/c128 */
    readonly dtype: DType,
    /** the stored diagonals as column − row, strictly ascending */
    readonly offsets: Int32Array,
    /** elements per stored diagonal: ≥ rows and a multiple of 4 */
    readonly pitch: number,
    /** the diagonals one after another, A[i, i + offsets[d]] = data[d·pitch + i]; slots outside the matrix hold 0 */
    readonly data: ValueArray,
  ) {
    checkHeader('DIA', rows, cols, dtype);
    checkIndexArray('DIA', 'offsets', offsets);
    if (!Number.isInteger(pitch) || pitch < 0) throw new FormatError(`DIA pitch = ${pitch} must be a nonnegative integer`);
    checkValueArray('DIA', dtype, data, offsets.length * pitch, 'data');
  }

  /** Number of diagonals stored. */
  get ndiag(): number {
    return this.offsets.length;
  }

  /** In-bounds slots (stored zeros included; padding excluded). */
  get nnz(): number {
    let n = 0;
    for (const off of this.offsets) n += Math.max(0, diagEnd(off, this.rows, this.cols) - diagStart(off));
    return n;
  }

  /**
   * Checks pitch (>= rows, multiple of 4), offsets strictly ascending within (−rows, cols), and that
   * every slot outside the matrix or in the pitch padding holds 0.
   *
   * @throws {@link FormatError} naming the array, the index and the expected against the actual value, at the first invariant broken.
   */
  validate(): this {
    const { rows, cols, offsets, pitch, data } = this;
    const comp = components(this.dtype);
    if (pitch < rows || pitch % 4 !== 0) throw new FormatError(`DIA pitch = ${pitch}, expected a multiple of 4 that is >= rows = ${rows}`);
    checkValueArray('DIA', this.dtype, data, offsets.length * pitch, 'data');
    for (let d = 0; d < offsets.length; d++) {
      const off = offsets[d];
      if (off <= -rows || off >= cols) throw new FormatError(`DIA offsets[${d}] = ${off} is out of range (${-rows}, ${cols})`);
      if (d > 0 && off <= offsets[d - 1]) {
        throw new FormatError(`DIA offsets[${d}] = ${off} is not greater than offsets[${d - 1}] = ${offsets[d - 1]} (must be strictly ascending)`);
      }
      const lo = diagStart(off);
      const hi = diagEnd(off, rows, cols);
      // only the slots outside the matrix, [0, lo) and [hi, pitch): a pass over the in-range ones tested
      // nothing (an AMG level's D⁻¹: 2 M slots)
      const outside = (i: number) => checkZero('DIA', `slot data[${d}·${pitch} + ${i}] (offset ${off}) is outside the matrix`, data, d * pitch + i, comp);
      for (let i = 0; i < lo; i++) outside(i);
      for (let i = hi; i < pitch; i++) outside(i);
    }
    return this;
  }

  /**
   * Canonical CSR. Slots holding exactly 0 are dropped (DIA cannot tell them from padding).
   *
   * @throws {@link FormatError} when the matrix breaks an invariant of its format (it validates first).
   */
  toCSR(): CSRMatrix {
    return withMemoryBudget(undefined, () => {
      this.validate();
      const { rows, cols, offsets, pitch, data } = this;
      const comp = components(this.dtype);
      const rowPtr = allocIndex(rows + 1, `DIA: row pointers of ${rows} rows`);
      const nd = offsets.length;
      // slots outside the matrix hold 0 (validated), so a real slot needs no bounds test: only its value
      if (comp === 1) {
        for (let i = 0; i < rows; i++) {
          let n = 0;
          for (let d = 0; d < nd; d++) if (data[d * pitch + i] !== 0) n++;
          rowPtr[i + 1] = rowPtr[i] + n;
        }
      } else {
        for (let i = 0; i < rows; i++) {
          let n = 0;
          for (let d = 0; d < nd; d++) if (!isZeroAt(data, d * pitch + i, comp)) n++;
          rowPtr[i + 1] = rowPtr[i] + n;
        }
      }
      const colIdx = allocIndex(rowPtr[rows], `DIA: ${rowPtr[rows]} column indices`);
      const values = allocValues(this.dtype, rowPtr[rows]);
      for (let i = 0, p = 0; i < rows; i++) {
        for (let d = 0; d < nd; d++) {
          const s = d * pitch + i;
          if (comp === 1 ? data[s] !== 0 : !isZeroAt(data, s, comp)) {
            colIdx[p] = i + offsets[d];
            copyElement(data, s, values, p++, comp);
          }
        }
      }
      // canonical by construction (validate: offsets strictly ascending, so each row's columns are):
      // no second validation and sortedness pass over the result
      return new CSRMatrix(rows, cols, this.dtype, rowPtr, colIdx, values);
    });
  }

  /**
   * DIA of a CSR: one diagonal for every offset with at least one entry, pitch = rows rounded up to 4,
   * plus 16 when that is a multiple of 1024 (so the diagonals do not all start in one cache set).
   * Refuses with PaddingLimitError when ndiag·pitch slots exceed `maxFill × max(nnz, 1)` (default
   * maxFill 10) or `opts.maxSlots` when given. The check runs before the data array is allocated.
   *
   * @throws {@link FormatError} when csr breaks an invariant of CSR.
   * @throws {@link PaddingLimitError} when the diagonals would store more than the padding limit ({@link PaddingOptions}).
   * @throws {@link OptionError} for an option key it does not know (TypeError when the options are not an object).
   */
  static fromCSR(csr: CSRMatrix, opts?: PaddingOptions): DIAMatrix {
    return withMemoryBudget(undefined, () => {
      checkOptions('DIAMatrix.fromCSR', opts, PADDING_OPTION_KEYS);
      const c = csr.toCSR();
      const { rows, rowPtr } = c;
      const { offsets, slotOf, pitch, data } = diaLayout(c, opts);
      const values = c.values;
      if (slotOf && components(c.dtype) === 1) {
        // the common case in one tight loop: each entry's diagonal from the table, no search and no
        // per-entry helper (poisson3D(64): 1.8 M entries); whether every value is exactly an f32 comes
        // with it at no measurable cost, where exactlyF32's own pass over the data took ≈ 3.7 ms
        // A row holding an entry on every diagonal (a stencil's interior) holds them in the diagonals'
        // order (c is canonical: sorted, no duplicates): its k-th entry is diagonal k's, no lookup
        // (f32 values are f32: only f64's are tested, the one dtype markExactlyF32 keeps)
        let exact = c.dtype === 'f64';
        const nd = offsets.length;
        const colIdx = c.colIdx;
        for (let i = 0, base = rows - 1; i < rows; i++) {
          const k0 = rowPtr[i];
          const e = rowPtr[i + 1];
          if (e - k0 === nd) {
            for (let d = 0, at = i; d < nd; d++, at += pitch) {
              const v = values[k0 + d];
              data[at] = v;
              if (exact && Math.fround(v) !== v) exact = false;
            }
            continue;
          }
          for (let k = k0; k < e; k++) {
            const v = values[k];
            data[slotOf[colIdx[k] - i + base] * pitch + i] = v;
            if (exact && Math.fround(v) !== v) exact = false;
          }
        }
        if (exact) markExactlyF32(c, data);
      } else fillDia(c, offsets, slotOf, pitch, data);
      return new DIAMatrix(rows, c.cols, c.dtype, offsets, pitch, data);
    });
  }

  /**
   * A copy with values converted to `dtype`; `this` when dtype is unchanged.
   *
   * @throws {@link UnsupportedError} from a complex dtype to a real one (it would drop the imaginary parts), or for an unknown dtype.
   * @throws {@link InputRangeError} to f32 or c64, for a finite value beyond f32's range or a nonzero one below its smallest subnormal (naming its row and column), unless `options.outOfRange` is `'round'`.
   */
  astype(dtype: DType, options?: AstypeOptions): DIAMatrix {
    if (dtype === this.dtype) return this;
    return new DIAMatrix(this.rows, this.cols, dtype, this.offsets.slice(), this.pitch, castValues('DIA', this.data, this.dtype, dtype, (k) => [k % this.pitch, (k % this.pitch) + this.offsets[Math.floor(k / this.pitch)]], options));
  }

  /** Bytes of offsets and data. */
  storageBytes(): number {
    return this.offsets.byteLength + this.data.byteLength;
  }
}

/**
 * @internal Whether every one of the f64 `values` is exactly an f32 (a stencil's integers, a graph
 * Laplacian's, …; NaN is not), stopping at the first that is not. The CPU path keeps such a DIA
 * matrix's values as f32 and widens them on load (src/cpu/spmv-plan.ts): the same bits from half the bytes.
 */
export function exactlyF32(values: Float64Array): boolean {
  if (knownF32.has(values)) return true;
  for (let i = 0; i < values.length; i++) if (Math.fround(values[i]) !== values[i]) return false;
  return true;
}

/**
 * The data of DIA copies that fromCSR made of a runtime-private canonical CSR (its arrays never
 * change, nor do the copy's: the runtime's own) and found exactly f32 as it wrote them: exactlyF32
 * answers for them without its pass (the CPU upload's compact-values test, poisson3D(64): 1.8 M values).
 */
const knownF32 = new WeakSet<Float64Array>();

/** @internal Records that `data`, f64 values a DIA conversion of `c` wrote, are all exactly f32 (kept only for c's of a runtime-private f64 CSR: see knownF32). */
export function markExactlyF32(c: CSRMatrix, data: ValueArray): void {
  if (c.dtype === 'f64' && isPrivateCanonical(c)) knownF32.add(data as Float64Array);
}

/**
 * The DIA data of runtime-private copies whose values are all integers in [-128, 127], with those
 * values as bytes (each slot's, the padding's 0 included), written with the data by the conversion
 * that a GPU path's structure pass makes (src/solvers/structure.ts diaCopyWithStructure): the WebGPU
 * upload copies them rather than testing and converting each value again (≈ 60 ms of poisson3D(128)'s
 * first solve). Taken once: nothing keeps them after that upload.
 */
const knownBytes = new WeakMap<Float64Array, Int8Array>();

/**
 * @internal Whether v is an integer in [-128, 127], which an Int8Array holds exactly (-0 as 0): v | 0
 * equals v exactly for the integers of int32's range (and -0); NaN, ±Inf and fractions come out different.
 * The one test behind the WebGPU path's byte-valued DIA copy (wgsl/dia_i8.wgsl).
 */
export function isSmallInteger(v: number): boolean {
  const i = v | 0;
  return i === v && i >= -128 && i <= 127;
}

/**
 * @internal Whether every value is a small integer ({@link isSmallInteger}), writing each into `out`
 * as it goes (false at the first that is not one: out then holds a prefix).
 */
export function writeSmallIntegers(values: Float64Array | Float32Array, out: Int8Array): boolean {
  for (let k = 0; k < values.length; k++) {
    const v = values[k];
    if (!isSmallInteger(v)) return false;
    out[k] = v;
  }
  return true;
}

/** @internal Records `bytes`, the values of a runtime-private DIA copy's `data` as bytes (see knownBytes). */
export function rememberSmallIntegers(data: Float64Array, bytes: Int8Array): void {
  knownBytes.set(data, bytes);
}

/** @internal The values of `data` as bytes where its conversion recorded them (rememberSmallIntegers), forgotten once given. */
export function takeSmallIntegers(data: Float64Array | Float32Array): Int8Array | undefined {
  const bytes = data instanceof Float64Array ? knownBytes.get(data) : undefined;
  if (bytes) knownBytes.delete(data as Float64Array);
  return bytes;
}

/**
 * @internal Whether A's values are f64 that are all exactly f32 ({@link exactlyF32}): the one decision
 * behind the CPU path's compact DIA copy (src/cpu/spmv-plan.ts), the bytes the cost model counts for
 * it (src/runtime/cost.ts) and explain's line on it. A's format does not matter: its DIA copy holds the
 * same values and zeros.
 */
export function compactValues(A: SparseMatrix): boolean {
  if (A.dtype !== 'f64') return false;
  const values = A.format === 'dia' ? A.data : 'values' in A ? A.values : null;
  return values instanceof Float64Array && exactlyF32(values);
}

/** First row of diagonal `off` inside the matrix. */
function diagStart(off: number): number {
  return Math.max(0, -off);
}

/** One past the last row of diagonal `off` inside a rows × cols matrix. */
function diagEnd(off: number, rows: number, cols: number): number {
  return Math.min(rows, cols - off);
}

/**
 * @internal The layout fromCSR gives the canonical CSR `c`: its sorted distinct offsets (and the slot
 * table where one is made, see distinctOffsets), the pitch and the zeroed data, after the padding check.
 *
 * @throws {@link PaddingLimitError} when the diagonals would store more than the padding limit.
 */
export function diaLayout(c: CSRMatrix, opts?: PaddingOptions): { offsets: Int32Array; slotOf: Int32Array | null; pitch: number; data: ValueArray } {
  const { offsets, slotOf } = distinctOffsets(c);
  const pitch = slotPitch(c.rows);
  checkPadding('DIA', offsets.length * pitch, c.nnz, opts);
  return { offsets, slotOf, pitch, data: allocValues(c.dtype, offsets.length * pitch) };
}

/** @internal Each entry of `c` into its slot of diaLayout's data (any dtype; the slot table where made, else a search). */
export function fillDia(c: CSRMatrix, offsets: Int32Array, slotOf: Int32Array | null, pitch: number, data: ValueArray): void {
  const { rows, rowPtr, colIdx, values } = c;
  const comp = components(c.dtype);
  for (let i = 0; i < rows; i++) {
    for (let k = rowPtr[i]; k < rowPtr[i + 1]; k++) {
      const d = slotOf ? slotOf[colIdx[k] - i + rows - 1] : lowerBound(offsets, colIdx[k] - i);
      copyElement(values, k, data, d * pitch + i, comp);
    }
  }
}

/**
 * The sorted distinct offsets of runtime-private canonical CSRs (their arrays never change), found by
 * the runtime's feature scan (src/runtime/features.ts), which marks every entry's diagonal anyway: the
 * conversion to DIA then skips its own pass over the entries (poisson3D(64): 1.8 M).
 */
const knownOffsets = new WeakMap<CSRMatrix, Int32Array>();

/** @internal Records A's sorted distinct offsets col − row for its conversion to DIA; only a private CSR's are kept. */
export function rememberOffsets(A: CSRMatrix, offsets: Int32Array): void {
  if (isPrivateCanonical(A)) knownOffsets.set(A, offsets);
}

/**
 * Sorted distinct offsets col − row of the entries: marked per possible offset when the rows + cols − 1
 * of them are within a few times nnz (one pass, no sort: poisson3D(64)'s 1.8 M entries took a ~50 ms
 * sort), and then also `slotOf`, each offset's diagonal indexed by offset + rows − 1; else sorted (a
 * native numeric sort, so a huge sparse matrix allocates by nnz only) and no table.
 */
function distinctOffsets(c: CSRMatrix): { offsets: Int32Array; slotOf: Int32Array | null } {
  const span = Math.max(0, c.rows + c.cols - 1);
  const known = knownOffsets.get(c);
  if (known) {
    const offsets = known.slice();
    if (span > 4 * c.nnz + 1024) return { offsets, slotOf: null };
    const slotOf = allocIndex(span, `DIA: a table of ${span} offsets`);
    for (let d = 0; d < offsets.length; d++) slotOf[offsets[d] + c.rows - 1] = d;
    return { offsets, slotOf };
  }
  if (span <= 4 * c.nnz + 1024) {
    const slotOf = allocIndex(span, `DIA: a table of ${span} offsets`);
    const base = c.rows - 1;
    for (let i = 0; i < c.rows; i++) {
      for (let k = c.rowPtr[i]; k < c.rowPtr[i + 1]; k++) slotOf[c.colIdx[k] - i + base] = 1;
    }
    let n = 0;
    for (let o = 0; o < span; o++) n += slotOf[o];
    const out = allocIndex(n, `DIA: ${n} offsets`);
    for (let o = 0, d = 0; o < span; o++) {
      if (slotOf[o]) {
        slotOf[o] = d;
        out[d++] = o - base;
      }
    }
    return { offsets: out, slotOf };
  }
  const all = allocIndex(c.nnz, `DIA: ${c.nnz} offsets`);
  for (let i = 0; i < c.rows; i++) {
    for (let k = c.rowPtr[i]; k < c.rowPtr[i + 1]; k++) all[k] = c.colIdx[k] - i;
  }
  all.sort();
  let n = 0;
  for (let k = 0; k < all.length; k++) if (k === 0 || all[k] !== all[k - 1]) all[n++] = all[k];
  return { offsets: all.slice(0, n), slotOf: null };
}
