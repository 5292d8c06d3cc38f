/**
 * Element types in WebGPU storage buffers: every array is a stream of f32 "floats", floatsPerElement
 * per element, read in WGSL as array<E> (wgsl/dt_*.wgsl):
 *   f32   f32                                   c64   vec2 (re, im)
 *   f64   vec2 (hi, lo), double-single          c128  vec4 (re hi, re lo, im hi, im lo)
 * hi = fround(v), lo = fround(v − hi): hi + lo carries about 48 of v's 53 bits (values must lie in
 * the f32 range; ±Inf and NaN travel as (v, 0)). Read-back returns Float32Array for f32/c64 and Float64Array (hi + lo) for f64/c128.
 */
import { WebGpuLimitError } from './errors.js';
import { doubleSingleEncoding, floatsPerElement, isDoubleSingle, isZeroScalar, joinDS } from '../double-single.js';

export { floatsPerElement, isDoubleSingle, isZeroScalar, joinDS };

/** Double-single encoding (src/double-single.ts); values beyond the f32 range are a WebGpuLimitError. */
export const { encodeValues, encodeScalar, decodeValues, splitDS, checkRange } = doubleSingleEncoding((m) => new WebGpuLimitError(m));
