/**
 * Element types in WebGPU storage buffers: every array is a stream of f32 "floats", floatsPerElement
 * per element, read in WGSL as array<E> (wgsl/dt_*.wgsl):
 *   f32   f32                                   c64   vec2 (re, im)
 *   f64   vec2 (hi, lo), double-single          c128  vec4 (re hi, re lo, im hi, im lo)
 * hi = fround(v), lo = fround(v − hi): hi + lo carries about 48 of v's 53 bits (values must lie in
 * the f32 range). Read-back returns Float32Array for f32/c64 and Float64Array (hi + lo) for f64/c128.
 */
import type { DType } from '../dtype.js';
import { WebGpuLimitError } from './errors.js';

export function floatsPerElement(dtype: DType): 1 | 2 | 4 {
  return dtype === 'f32' ? 1 : dtype === 'c128' ? 4 : 2;
}

/** Whether a dtype runs as double-single. */
export function isDoubleSingle(dtype: DType): boolean {
  return dtype === 'f64' || dtype === 'c128';
}

export function splitDS(v: number, out: Float32Array, at: number): void {
  const hi = Math.fround(v);
  if (!Number.isFinite(hi) && Number.isFinite(v)) {
    throw new WebGpuLimitError(`the value ${v} is outside the f32 range, so double-single cannot hold it on the GPU`);
  }
  out[at] = hi;
  out[at + 1] = Number.isFinite(hi) ? Math.fround(v - hi) : 0;
}

/** The float stream of `values` (components, interleaved when complex). */
export function encodeValues(dtype: DType, values: ArrayLike<number>): Float32Array {
  if (!isDoubleSingle(dtype)) return values instanceof Float32Array ? values : Float32Array.from(values);
  const out = new Float32Array(values.length * 2);
  for (let k = 0; k < values.length; k++) splitDS(values[k], out, 2 * k);
  return out;
}

/** A scalar as the kernels take it (Params.alpha / beta): one element in the order of E, in a vec4. */
export function encodeScalar(dtype: DType, re: number, im: number): Float32Array {
  const out = new Float32Array(4);
  if (dtype === 'f32') out[0] = re;
  else if (dtype === 'c64') out.set([re, im]);
  else {
    splitDS(re, out, 0);
    if (dtype === 'c128') splitDS(im, out, 2);
  }
  return out;
}

/** Inverse of encodeValues for `components` components. */
export function decodeValues(dtype: DType, floats: Float32Array, components: number): Float32Array | Float64Array {
  if (!isDoubleSingle(dtype)) return floats.length === components ? floats : floats.slice(0, components);
  const out = new Float64Array(components);
  for (let k = 0; k < components; k++) out[k] = floats[2 * k] + floats[2 * k + 1];
  return out;
}
