/**
 * Helpers shared by the format classes: shape/array checks with messages that name the format, the
 * array and the index, value-array dtype casts, and the padding limit of the padded formats.
 *
 * Values are never checked for finiteness anywhere in src/formats: NaN and ±Inf are data and
 * propagate through the kernels per IEEE 754 like any other value. A conversion to f32 that would make
 * a finite value ±Inf or a nonzero one 0 is refused (castValues).
 */
import { FormatError, InputRangeError, PaddingLimitError, ShapeError, UnsupportedError } from '../errors.js';
import { allocValues, assertDType, beyondF32, components, isComplex, valuesMatch, type DType, type ValueArray } from '../dtype.js';
import { checkChoice, checkOptions, optionKeys } from '../options-check.js';

/** Largest row/column count and array length: indices are Int32 and wasm32 offsets are 32-bit. */
export const MAX_INDEX = 0x7fffffff;

/** Limits on how much a padded format (DIA, ELL, HYB's ELL part) may store. */
export interface PaddingOptions {
  /**
   * Allowed stored slots per represented entry: a conversion is refused when it would store more than
   * `maxFill × max(nnz, 1)` slots (padding included). Default 10: past that a padded kernel streams
   * mostly zeros and CSR is faster and smaller.
   */
  maxFill?: number;
  /** Absolute limit on stored slots; when given it replaces the `maxFill` rule. */
  maxSlots?: number;
}

/** The keys PaddingOptions has. */
export const PADDING_OPTION_KEYS = optionKeys<PaddingOptions>({ maxFill: true, maxSlots: true });

/**
 * The pitch of the column-major padded formats (DIA's pitch, ELL's and HYB's stride) for a number of
 * rows: rows rounded up to 4 elements (SIMD loads 4 rows at once), plus 16 when that is a multiple of
 * 1024. With a pitch of a large power of two every diagonal (slot column) starts at the same offset in
 * a cache set, so the lines of the kernels' parallel streams evict one another; 16 elements moves each
 * one a line or two along.
 */
export function slotPitch(rows: number): number {
  const p = (rows + 3) & ~3;
  return p > 0 && p % 1024 === 0 ? p + 16 : p;
}

/** Constructor check of the dimensions and dtype (ShapeError / UnsupportedError). */
export function checkHeader(format: string, rows: number, cols: number, dtype: DType): void {
  for (const [name, v] of [['rows', rows], ['cols', cols]] as const) {
    if (!Number.isInteger(v) || v < 0 || v > MAX_INDEX) {
      throw new ShapeError(`${format} ${name} = ${v} must be an integer in [0, ${MAX_INDEX}]`);
    }
  }
  assertDType(dtype, format);
}

/** Constructor check: `arr` is an Int32Array (of `length` when given). */
export function checkIndexArray(format: string, name: string, arr: unknown, length?: number): void {
  if (!(arr instanceof Int32Array)) {
    throw new FormatError(`${format} ${name} must be an Int32Array, got ${typeName(arr)}`);
  }
  if (length !== undefined && arr.length !== length) {
    throw new FormatError(`${format} ${name}.length = ${arr.length}, expected ${length}`);
  }
}

/** Constructor check: `values` has dtype's array type and holds `count` elements when given. */
export function checkValueArray(format: string, dtype: DType, values: unknown, count?: number, name = 'values'): void {
  if (!(values instanceof Float32Array || values instanceof Float64Array) || !valuesMatch(dtype, values)) {
    const want = dtype === 'f32' || dtype === 'c64' ? 'Float32Array' : 'Float64Array';
    throw new FormatError(`${format} ${name} must be a ${want} for dtype ${dtype}, got ${typeName(values)}`);
  }
  if (count !== undefined && values.length !== count * components(dtype)) {
    const c = components(dtype);
    throw new FormatError(
      `${format} ${name}.length = ${values.length}, expected ${count * c}${c === 2 ? ` (${count} complex elements)` : ''}`,
    );
  }
}

/** validate(): every element of arr[start, end) lies in [lo, hi). */
export function checkRange(format: string, name: string, arr: Int32Array, lo: number, hi: number, start = 0, end = arr.length): void {
  for (let k = start; k < end; k++) {
    const v = arr[k];
    if (v < lo || v >= hi) throw new FormatError(`${format} ${name}[${k}] = ${v} is out of range [${lo}, ${hi})`);
  }
}

/** validate(): a pointer array starts at `first`, never decreases and ends at `last`. */
export function checkPointers(format: string, name: string, ptr: Int32Array, first: number, last: number, lastName: string): void {
  if (ptr[0] !== first) throw new FormatError(`${format} ${name}[0] = ${ptr[0]}, expected ${first}`);
  for (let k = 1; k < ptr.length; k++) {
    if (ptr[k] < ptr[k - 1]) {
      throw new FormatError(`${format} ${name}[${k}] = ${ptr[k]} is less than ${name}[${k - 1}] = ${ptr[k - 1]} (must be nondecreasing)`);
    }
  }
  const n = ptr.length - 1;
  if (ptr[n] !== last) throw new FormatError(`${format} ${name}[${n}] = ${ptr[n]}, expected ${lastName} = ${last}`);
}

/** validate(): element `k` of `values` (both parts when complex) is exactly zero. */
export function checkZero(format: string, what: string, values: ValueArray, k: number, comp: number): void {
  if (!isZeroAt(values, k, comp)) {
    const v = comp === 1 ? `${values[k]}` : `(${values[2 * k]}, ${values[2 * k + 1]})`;
    throw new FormatError(`${format} ${what}: values element ${k} = ${v}, expected 0`);
  }
}

/** Whether element k is exactly 0 (NaN is not zero). */
export function isZeroAt(values: ValueArray, k: number, comp: number): boolean {
  return comp === 1 ? values[k] === 0 : values[2 * k] === 0 && values[2 * k + 1] === 0;
}

/** Copies element `src` of `from` to element `dst` of `to` (comp = 1 or 2 components). */
export function copyElement(from: ValueArray, src: number, to: ValueArray, dst: number, comp: number): void {
  if (comp === 1) {
    to[dst] = from[src];
  } else {
    to[2 * dst] = from[2 * src];
    to[2 * dst + 1] = from[2 * src + 1];
  }
}

/** Options of a format's `astype`. */
export interface AstypeOptions {
  /**
   * What a value f32 cannot hold does on the way from f64 (c128 to c64): `'throw'` (default) an
   * InputRangeError naming the first such entry; `'round'` IEEE rounding, beyond ±3.4028235e38 to ±Infinity
   * and below f32's smallest subnormal (≈ 1.4e-45) to 0.
   */
  outOfRange?: 'throw' | 'round';
}

/** astype's options for the library's own f64 → f32 conversions (a preconditioner's matrices made in f64 for an f32 solve): IEEE rounding. @internal */
export const ROUND: AstypeOptions = Object.freeze({ outOfRange: 'round' });

/** The keys AstypeOptions has. */
const ASTYPE_KEYS = optionKeys<AstypeOptions>({ outOfRange: true });

/**
 * The value array of `values` converted from dtype `from` to `to` (always a new array). Real → complex
 * sets im = 0; f64 → f32 rounds to nearest; complex → real throws UnsupportedError (it would drop the
 * imaginary part silently). A finite value that f32 would turn into ±Infinity, or a nonzero one into 0,
 * throws InputRangeError naming its row and column (`at(element)` finds them) unless the options say
 * `outOfRange: 'round'`.
 */
export function castValues(format: string, values: ValueArray, from: DType, to: DType, at: (element: number) => [number, number], options?: AstypeOptions): ValueArray {
  assertDType(to, `${format}.astype`);
  checkOptions(`${format}.astype`, options, ASTYPE_KEYS);
  const round = checkChoice(`${format}.astype`, 'outOfRange', options?.outOfRange, ['throw', 'round'] as const) === 'round';
  if (isComplex(from) && !isComplex(to)) {
    throw new UnsupportedError(`${format}.astype: cannot convert complex ${from} to real ${to}; take the real part explicitly`);
  }
  const cf = components(from);
  const n = values.length / cf;
  const out = allocValues(to, n);
  if (cf === components(to)) {
    out.set(values);
  } else {
    for (let k = 0; k < n; k++) out[2 * k] = values[k];
  }
  // f32 holds ±3.4e38 at most and nothing nonzero below 1.4e-45: IEEE rounding would make an entry
  // ±Infinity or 0 without a word (a wrong matrix, solved as if it were the one given)
  if (out instanceof Float32Array && !(values instanceof Float32Array) && !round) {
    const step = cf === components(to) ? 1 : 2;
    for (let k = 0; k < values.length; k++) {
      const v = values[k];
      if (v !== out[step * k] && beyondF32(v)) {
        const [i, j] = at(Math.floor(k / cf));
        const part = cf === 2 ? (k % 2 === 0 ? ' (real part)' : ' (imaginary part)') : '';
        const w = Math.fround(v);
        const why = w === 0 ? `below f32's smallest subnormal ${F32_TINY}: it would become 0` : `beyond f32's largest ${F32_MAX}: it would become ${w}`;
        throw new InputRangeError(`${format}.astype('${to}'): the entry at row ${i}, column ${j}${part} is ${v}, ${why}; scale the matrix, or pass { outOfRange: 'round' } to accept IEEE rounding`);
      }
    }
  }
  return out;
}

/** f32's largest finite value and smallest subnormal, as castValues names them. */
const F32_MAX = 3.4028234663852886e38;
const F32_TINY = 1.401298464324817e-45;

/** The segment i of `ptr` (row or column pointers) holding entry k: ptr[i] ≤ k < ptr[i + 1], empty segments skipped. */
export function segmentOf(ptr: Int32Array, k: number): number {
  let lo = 0;
  let hi = ptr.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (ptr[mid] <= k) lo = mid;
    else hi = mid;
  }
  return lo;
}

/**
 * Throws PaddingLimitError when a padded format would store `required` slots for `nnz` entries,
 * over `opts.maxSlots` or (when that is absent) `maxFill × max(nnz, 1)`. A hard cap of 2^31 − 1 slots
 * (Int32 slot indices) applies whatever the options.
 */
export function checkPadding(format: string, required: number, nnz: number, opts: PaddingOptions | undefined, defaultFill = 10): void {
  const maxFill = opts?.maxFill ?? defaultFill;
  const limit = opts?.maxSlots ?? maxFill * Math.max(nnz, 1);
  if (required > MAX_INDEX) {
    throw new PaddingLimitError(format, required, MAX_INDEX, 'the int32 slot index limit: use CSR or HYB', false);
  }
  if (required > limit) {
    const hint = opts?.maxSlots !== undefined ? `maxSlots = ${limit}` : `maxFill = ${maxFill} × ${Math.max(nnz, 1)} entries`;
    throw new PaddingLimitError(format, required, limit, hint);
  }
}

function typeName(v: unknown): string {
  if (v === null || v === undefined) return String(v);
  return (v as object).constructor?.name ?? typeof v;
}
