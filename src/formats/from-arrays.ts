/**
 * Reading foreign arrays into the formats' own (the `from` factories): SciPy-named objects, number[],
 * any typed array, BigInt64Array. Every array is copied, so the matrix never shares memory with the
 * caller's; each element is checked, and a bad one is a typed error naming it.
 */
import { InputRangeError, InputTypeError, ShapeError } from '../errors.js';
import { assertDType, isComplex, type DType, type ValueArray } from '../dtype.js';
import { reserveMemory } from '../memory-budget.js';
import { shownTyped } from '../shown-value.js';
import { vectorData } from '../vector-data.js';
import { MAX_INDEX } from './common.js';

/**
 * The fields of `obj` named in `keys` (all required), after checking obj is an object. What is missing
 * or unknown is an InputTypeError listing the fields expected (a typo must not drop an array).
 */
export function fields<K extends string>(where: string, obj: unknown, keys: readonly K[], optional: readonly string[] = []): Record<K, unknown> {
  const want = `an object { ${keys.join(', ')}${optional.map((k) => `, ${k}?`).join('')} }`;
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj) || ArrayBuffer.isView(obj)) {
    throw new InputTypeError(`${where}: expected ${want}, got ${shownTyped(obj)}`);
  }
  for (const k of keys) {
    if ((obj as Record<string, unknown>)[k] === undefined) throw new InputTypeError(`${where}: ${k} is missing; expected ${want}`);
  }
  for (const k of Object.keys(obj)) {
    if (!(keys as readonly string[]).includes(k) && !optional.includes(k)) {
      throw new InputTypeError(`${where}: unknown field "${k}"; expected ${want}`);
    }
  }
  return obj as Record<K, unknown>;
}

/** `[rows, cols]` from a shape: two integers in [0, 2³¹ − 1], else a ShapeError. */
export function shape2(where: string, shape: unknown): [number, number] {
  const s = shape as ArrayLike<unknown> | null;
  const ok = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= MAX_INDEX;
  if (s === null || typeof s !== 'object' || s.length !== 2 || !ok(s[0]) || !ok(s[1])) {
    throw new ShapeError(`${where}: shape must be [rows, cols], two integers in [0, ${MAX_INDEX}], got ${shownTyped(shape)}${Array.isArray(shape) ? ` [${shape.map((v) => shownTyped(v)).join(', ')}]` : ''}`);
  }
  return [s[0], s[1]];
}

/**
 * A new Int32Array of the indices in `v` (any numeric array-like, BigInt64Array included): each must
 * be an integer in [0, 2³¹ − 1], else an InputRangeError naming the index (InputTypeError when not a
 * number at all).
 */
export function indexArray(where: string, name: string, v: unknown): Int32Array {
  // an Int32Array is checked and copied as it is; anything else goes through the vector-data rule
  const a = v instanceof Int32Array ? v : vectorData(v, `${where}: ${name}`);
  const out = new Int32Array(reserved(a.length * 4, a.length, name));
  for (let k = 0; k < a.length; k++) {
    const x = a[k];
    if (!Number.isInteger(x) || x < 0 || x > MAX_INDEX) {
      throw new InputRangeError(`${where}: ${name}[${k}] = ${x} is not an index (an integer in [0, ${MAX_INDEX}])`, k);
    }
    out[k] = x;
  }
  return out;
}

/**
 * The dtype of a `from` call: the one asked for, else f32 for a Float32Array and f64 for anything else
 * (numbers are doubles).
 */
export function dtypeOf(where: string, dtype: unknown, data: unknown): DType {
  if (dtype === undefined) return data instanceof Float32Array ? 'f32' : 'f64';
  assertDType(dtype, where);
  return dtype;
}

/** A new value array of `dtype` holding `v` (vector data; complex dtypes take interleaved re, im). */
export function valueArray(where: string, dtype: DType, v: unknown, name = 'data'): ValueArray {
  const a = vectorData(v, `${where}: ${name}`);
  const f32 = dtype === 'f32' || dtype === 'c64';
  const bytes = reserved(a.length * (f32 ? 4 : 8), a.length, name);
  const out = f32 ? new Float32Array(bytes) : new Float64Array(bytes);
  out.set(a);
  return out;
}

/** A buffer of `bytes`, counted against the memory budget. */
function reserved(bytes: number, n: number, name: string): ArrayBuffer {
  reserveMemory(bytes, `a copy of ${n} ${name} entries`);
  return new ArrayBuffer(bytes);
}

/** Numbers from outside: number[], any typed array (BigInt64Array and BigUint64Array included). */
export type NumericArrayLike = ArrayLike<number> | BigInt64Array | BigUint64Array;

/** SciPy's compressed arrays (csr_matrix / csc_matrix: indptr, indices, data, shape), for `from`. */
export interface CompressedArrays {
  /** offsets: rows + 1 of them for CSR, cols + 1 for CSC */
  indptr: NumericArrayLike;
  /** column (CSR) or row (CSC) of each entry, 0-based */
  indices: NumericArrayLike;
  /** value of each entry (interleaved re, im when complex) */
  data: NumericArrayLike;
  /** [rows, cols] */
  shape: readonly [number, number] | ArrayLike<number>;
  /** element type; default f32 for a Float32Array `data`, else f64 */
  dtype?: DType;
}

/** SciPy's coordinate arrays (coo_matrix: row, col, data, shape), for `COOMatrix.from`. */
export interface CoordinateArrays {
  /** row of each entry, 0-based */
  row: NumericArrayLike;
  /** column of each entry, 0-based */
  col: NumericArrayLike;
  /** value of each entry (interleaved re, im when complex) */
  data: NumericArrayLike;
  /** [rows, cols] */
  shape: readonly [number, number] | ArrayLike<number>;
  /** element type; default f32 for a Float32Array `data`, else f64 */
  dtype?: DType;
}

/**
 * The checked, copied arrays of a CompressedArrays whose indptr has one entry per `outer` line (CSR:
 * rows, CSC: cols) plus one; a length that does not fit the shape is a ShapeError.
 */
export function compressedArrays(where: string, src: unknown, outer: 'rows' | 'cols') {
  const f = fields(where, src, ['indptr', 'indices', 'data', 'shape'], ['dtype']);
  const [rows, cols] = shape2(where, f.shape);
  const dtype = dtypeOf(where, (src as CompressedArrays).dtype, f.data);
  const ptr = indexArray(where, 'indptr', f.indptr);
  const n = outer === 'rows' ? rows : cols;
  if (ptr.length !== n + 1) throw new ShapeError(`${where}: indptr has ${ptr.length} entries, expected ${outer} + 1 = ${n + 1} for shape [${rows}, ${cols}]`);
  const idx = indexArray(where, 'indices', f.indices);
  const values = valueArray(where, dtype, f.data);
  entriesMatch(where, 'indices', idx.length, dtype, values);
  return { rows, cols, dtype, ptr, idx, values };
}

/** ShapeError unless `values` holds one element (two numbers when complex) per index. */
export function entriesMatch(where: string, name: string, count: number, dtype: DType, values: ValueArray): void {
  const per = isComplex(dtype) ? 2 : 1;
  if (values.length !== count * per) {
    throw new ShapeError(`${where}: data has ${values.length} numbers, expected ${count * per} (${name} has ${count} entries${per === 2 ? `, two numbers each for ${dtype}` : ''})`);
  }
}

/**
 * A strided 2-D array as ndarray libraries describe one: element (i, j) is
 * `data[offset + i·stride[0] + j·stride[1]]`, strides and offset counted in elements (scijs ndarray's
 * `stride`, stdlib's `strides`). Without strides the data is contiguous in `order` (default row-major).
 */
export interface StridedArray {
  /** the elements (any numeric array-like) */
  data: NumericArrayLike;
  /** [rows, cols] */
  shape: readonly [number, number] | ArrayLike<number>;
  /** elements between neighbours along each axis (scijs ndarray's name) */
  stride?: ArrayLike<number>;
  /** the same, stdlib's name; in elements, not NumPy's bytes */
  strides?: ArrayLike<number>;
  /** index in data of element (0, 0); default 0 */
  offset?: number;
  /** the layout when no strides are given: 'C'/'row-major' (default) or 'F'/'column-major' */
  order?: 'C' | 'F' | 'row-major' | 'column-major';
}

/**
 * The values of a StridedArray in row-major order, every addressed element checked to lie inside data
 * (a view read with the wrong strides would otherwise return other elements without an error).
 */
export function stridedRows(where: string, src: unknown, dtype: DType): { rows: number; cols: number; values: ValueArray } {
  const f = fields(where, src, ['data', 'shape'], ['stride', 'strides', 'offset', 'order']);
  const s = src as StridedArray;
  const [rows, cols] = shape2(where, f.shape);
  const data = vectorData(f.data, `${where}: data`);
  const offset = s.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0) throw new ShapeError(`${where}: offset must be an integer ≥ 0, got ${shownTyped(offset)}`);
  const stride = strides(where, s, rows, cols);
  // the extreme addresses of an affine map are at the corners
  const corners = [0, (rows - 1) * stride[0], (cols - 1) * stride[1], (rows - 1) * stride[0] + (cols - 1) * stride[1]];
  const lo = offset + Math.min(...corners);
  const hi = offset + Math.max(...corners);
  if (rows > 0 && cols > 0 && (lo < 0 || hi >= data.length)) {
    throw new ShapeError(`${where}: shape [${rows}, ${cols}] with strides [${stride.join(', ')}] (in elements) and offset ${offset} reads data[${lo}..${hi}], outside its ${data.length} elements`);
  }
  const values = valueArray(where, dtype, new Float64Array(rows * cols));
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) values[i * cols + j] = data[offset + i * stride[0] + j * stride[1]];
  return { rows, cols, values };
}

function strides(where: string, s: StridedArray, rows: number, cols: number): [number, number] {
  if (s.stride !== undefined && s.strides !== undefined) throw new ShapeError(`${where}: give stride or strides, not both`);
  const given = s.stride ?? s.strides;
  if (given === undefined) {
    const order = s.order ?? 'C';
    if (order === 'C' || order === 'row-major') return [cols, 1];
    if (order === 'F' || order === 'column-major') return [1, rows];
    throw new ShapeError(`${where}: order must be 'C', 'F', 'row-major' or 'column-major', got ${shownTyped(order)}`);
  }
  const ok = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);
  if (given === null || typeof given !== 'object' || given.length !== 2 || !ok(given[0]) || !ok(given[1])) {
    throw new ShapeError(`${where}: ${s.stride !== undefined ? 'stride' : 'strides'} must be two integers (in elements), got ${shownTyped(given)}`);
  }
  return [given[0], given[1]];
}
