import { UnsupportedError } from './errors.js';
import { shownValue } from './shown-value.js';
import { reserveMemory, spareBuffer } from './memory-budget.js';

/**
 * Element types. Complex types are interleaved (re, im) pairs in a real array of the component type:
 * c64 = two f32, c128 = two f64. An array of `n` complex numbers therefore has length `2n`.
 */
export type DType = 'f32' | 'f64' | 'c64' | 'c128';
/** Every dtype, in a fixed order. */
export const DTYPES: readonly DType[] = ['f32', 'f64', 'c64', 'c128'];

/** The real array type that stores a dtype's components. */
export type ValueArray = Float32Array | Float64Array;

/** A scalar: a number for real dtypes, or a `[re, im]` pair (a plain number means im = 0). */
export type Scalar = number | readonly [number, number];

/**
 * Whether a dtype is complex (`c64` or `c128`), i.e. stores two numbers per element.
 *
 * @example
 * ```js
 * import { DTYPES, isComplex } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * assert.deepEqual(DTYPES.filter(isComplex), ['c64', 'c128']);
 * ```
 */
export function isComplex(dtype: DType): boolean {
  return dtype === 'c64' || dtype === 'c128';
}

/** Number of real components per element: 1 or 2. */
export function components(dtype: DType): 1 | 2 {
  return isComplex(dtype) ? 2 : 1;
}

/** Bytes of one real component (4 for f32/c64, 8 for f64/c128). */
export function componentBytes(dtype: DType): 4 | 8 {
  return dtype === 'f32' || dtype === 'c64' ? 4 : 8;
}

/** Bytes of one element (a complex element counts both parts). */
export function elementBytes(dtype: DType): number {
  return componentBytes(dtype) * components(dtype);
}

/** Whether f32 cannot hold v: a finite v that would round to ±Infinity, or a nonzero one that would round to 0 (everything else, ±Infinity and NaN too, it holds rounded). */
export function beyondF32(v: number): boolean {
  const w = Math.fround(v);
  return w !== v && Number.isFinite(v) && (w === 0 || !Number.isFinite(w));
}

/** A zero-filled value array holding `count` elements of `dtype`. */
export function allocValues(dtype: DType, count: number): ValueArray {
  const n = count * components(dtype);
  const bytes = n * componentBytes(dtype);
  reserveMemory(bytes, `${count} ${dtype} values`);
  const C = componentBytes(dtype) === 4 ? Float32Array : Float64Array;
  // a disposed upload's memory where the operation was given some: zeroed, its pages already mapped
  const spare = spareBuffer(bytes);
  return spare ? new C(spare).fill(0) : new C(n);
}

export function assertDType(dtype: unknown, where: string): asserts dtype is DType {
  if (!DTYPES.includes(dtype as DType)) {
    throw new UnsupportedError(`${where}: unknown dtype ${shownValue(dtype)}, expected one of ${DTYPES.join(', ')}`);
  }
}

/** Whether `values` has the array type that `dtype` stores its components in. */
export function valuesMatch(dtype: DType, values: ValueArray): boolean {
  return componentBytes(dtype) === 4 ? values instanceof Float32Array : values instanceof Float64Array;
}

/** Normalises a scalar to [re, im]. */
export function toComplex(s: Scalar): [number, number] {
  return typeof s === 'number' ? [s, 0] : [s[0], s[1]];
}
