/**
 * Element types in WebGPU storage buffers: every array is a stream of f32 "floats", floatsPerElement
 * per element, read in WGSL as array<E> (wgsl/dt_*.wgsl):
 *   f32   f32                                   c64   vec2 (re, im)
 *   f64   vec2 (hi, lo), double-single          c128  vec4 (re hi, re lo, im hi, im lo)
 * hi = fround(v), lo = fround(v − hi): hi + lo carries about 48 of v's 53 bits (values must lie in
 * the f32 range; ±Inf and NaN travel as (v, 0)). Read-back returns Float32Array for f32/c64 and Float64Array (hi + lo) for f64/c128.
 */
import { WebGpuLimitError } from './errors.js';
import type { DType } from '../dtype.js';
import { doubleSingleEncoding, floatsPerElement, isDoubleSingle, isZeroScalar, joinDS } from '../double-single.js';

export { floatsPerElement, isDoubleSingle, isZeroScalar, joinDS };

/** Double-single encoding (src/double-single.ts); values beyond the f32 range are a WebGpuLimitError. */
export const { encodeValues, encodeInto, encodeScalar, decodeValues, splitDS, checkRange } = doubleSingleEncoding((m) => new WebGpuLimitError(m));

/** Below this many components the host splits and joins f64 data (a dispatch costs more than the loop). */
export const GPU_SPLIT_FROM = 4096;
/** From 2^127 on (f32 max's binade, and beyond) the host splits. */
const SPLIT_LIMIT = 2 ** 127;

/** Whether f64 / c128 data is a Float64Array long enough to go up as IEEE bytes for the GPU to split. */
export function gpuSplitsLength(dtype: DType, data: ArrayLike<number> | number): data is Float64Array {
  return isDoubleSingle(dtype) && data instanceof Float64Array && data.length >= GPU_SPLIT_FROM;
}

/**
 * Whether f64 / c128 data goes up as IEEE bytes for the GPU to split (wgsl/ds_convert.wgsl's
 * split_main, bit for bit the host's split): a long Float64Array whose every component is ±Inf, NaN
 * or of magnitude below 2^127. Else the host splits it (and refuses what f32 cannot hold).
 */
export function gpuSplits(dtype: DType, data: ArrayLike<number> | number): data is Float64Array {
  if (!gpuSplitsLength(dtype, data)) return false;
  // a compare per value (NaN compares false): 1.5× the speed of a test of the high words' exponent
  // bits, which took 169 ms of an AMG hierarchy's first solve on the H100 host (25 M values)
  for (let i = 0; i < data.length; i++) {
    const a = Math.abs(data[i]);
    if (a >= SPLIT_LIMIT && a !== Infinity) return false;
  }
  return true;
}

/** Bytes of `components` components' float stream: 8 each for f64 / c128 (IEEE or double-single alike), else 4. */
export function streamBytes(dtype: DType, components: number): number {
  return components * (isDoubleSingle(dtype) ? 8 : 4);
}

/**
 * Writes `values`' stream into `out` (streamBytes long, e.g. a buffer's mapped range) in one pass and
 * says whether it holds IEEE f64 bytes for the GPU to split (gpuSplits's case, where `gpuMaySplit`):
 * the range test rides on the copy — the scan and then the copy read each value twice, 179 + 74 ms of
 * an AMG first solve's uploads on the H100 host. Else, and on the first value at or past 2^127, the
 * host's encoding (encodeValues's bits, refusing what f32 cannot hold) overwrites it, as double-single
 * has f64's 8 bytes a component.
 */
export function writeStream(dtype: DType, values: ArrayLike<number>, out: ArrayBuffer, gpuMaySplit: boolean): boolean {
  if (gpuMaySplit && gpuSplitsLength(dtype, values) && copyBelowSplitLimit(values, new Float64Array(out, 0, values.length))) return true;
  encodeInto(dtype, values, new Float32Array(out, 0, streamBytes(dtype, values.length) / 4));
  return false;
}

/** Copies src into dst while every value is ±Inf, NaN or below 2^127 in magnitude; false (dst partly written) at the first that is not. */
function copyBelowSplitLimit(src: Float64Array, dst: Float64Array): boolean {
  for (let i = 0; i < src.length; i++) {
    const v = src[i];
    const a = Math.abs(v);
    if (a >= SPLIT_LIMIT && a !== Infinity) return false;
    dst[i] = v;
  }
  return true;
}
