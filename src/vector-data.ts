import { InputRangeError, InputTypeError } from './errors.js';
import { shownTyped } from './shown-value.js';
import { beyondF32, type DType, type ValueArray } from './dtype.js';

/**
 * The one rule for vector data, wherever the API takes it (rt.vector, spmv's x, a solver's b and x0,
 * ResidentVector.write): any array-like of numbers. Float32Array and Float64Array are used as they
 * are; every other typed array (Int32Array, Uint32Array, …) and number[] are copied into a
 * Float64Array (exact: each holds doubles or integers below 2⁵³); BigInt64Array and BigUint64Array
 * too when every value is a safe integer (|v| ≤ 2⁵³ − 1), else an InputRangeError naming the index.
 * Anything else is an InputTypeError showing what it got: null, undefined, a string, an object
 * without a numeric `length`, an element that is not a number (with its index). NaN and ±Infinity
 * are numbers: they pass, and propagate as IEEE arithmetic says.
 */
export function vectorData(v: unknown, name: string): ValueArray {
  if (v instanceof Float64Array || v instanceof Float32Array) return v;
  const expected = `${name} must be an array of numbers or a typed array`;
  if (v === null || typeof v !== 'object' || typeof (v as { length?: unknown }).length !== 'number') {
    throw new InputTypeError(`${expected}, got ${shownTyped(v)}`);
  }
  // a resident vector (rt.vector) has a length but no elements to index: say so, not "b[0] must be a number"
  if (typeof (v as { read?: unknown }).read === 'function' && 'dtype' in v) {
    throw new InputTypeError(`${name} is a resident vector: this call takes host data (await v.read())`);
  }
  const a = v as ArrayLike<unknown>;
  const n = a.length;
  if (!Number.isInteger(n) || n < 0) throw new InputTypeError(`${expected}, got an object whose length is ${shownTyped(n)}`);
  if (v instanceof BigInt64Array || v instanceof BigUint64Array) {
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const b = v[i];
      if (b > BigInt(Number.MAX_SAFE_INTEGER) || b < -BigInt(Number.MAX_SAFE_INTEGER)) {
        throw new InputRangeError(`${name}[${i}] is ${b}n, beyond ±(2⁵³ − 1): not exact as a number`, i);
      }
      out[i] = Number(b);
    }
    return out;
  }
  // any other typed array holds numbers only
  if (ArrayBuffer.isView(v)) return Float64Array.from(a as ArrayLike<number>);
  // checked before anything is allocated: { length: 1e9 } fails at index 0, not after 8 GB
  for (let i = 0; i < n; i++) {
    const x = a[i];
    if (typeof x !== 'number') throw new InputTypeError(`${name}[${i}] must be a number, got ${shownTyped(x)}`, i);
  }
  return Float64Array.from(a as ArrayLike<number>);
}

/**
 * Throws InputRangeError at the first value of `values` (vector data for a vector of `dtype`) that
 * f32 cannot hold where dtype is f32 or c64: a finite value IEEE rounding would make ±Infinity, or a
 * nonzero one it would make 0 (rt.vector(new Float64Array([1e39]), 'f32') held Infinity without a word).
 */
export function checkSingleRange(values: ValueArray, dtype: DType, name: string): void {
  if (values instanceof Float32Array || (dtype !== 'f32' && dtype !== 'c64')) return;
  for (let i = 0; i < values.length; i++) {
    if (beyondF32(values[i])) throw new InputRangeError(`${name}[${i}] is ${values[i]}, which ${dtype} cannot hold (it would become ${Math.fround(values[i])})`, i);
  }
}
