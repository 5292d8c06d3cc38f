/**
 * The float streams both GPU paths upload (src/gpu WebGL2 textures, src/webgpu storage buffers): f32
 * and c64 as they are; f64 and c128 as double-single, each value a pair of f32 (hi, lo) with
 * hi = fround(v), lo = fround(v − hi), carrying about 48 of v's 53 bits. Double-single has f32's
 * exponent range, so a finite value beyond it is refused with the path's own typed limit error;
 * ±Inf and NaN are (v, 0) and come back as they went in (see joinDS).
 * Neutral ground: both paths import it, neither imports the other.
 */
import type { DType } from './dtype.js';

/** f32 floats per element of a dtype on a GPU path. */
export function floatsPerElement(dtype: DType): 1 | 2 | 4 {
  return dtype === 'f32' ? 1 : dtype === 'c128' ? 4 : 2;
}

/**
 * The number a double-single pair (hi, lo) stands for: hi + lo, or hi itself where hi is ±Inf or NaN
 * (the kernels then set lo = 0, but hi alone is the IEEE result whatever lo holds) or ±0: a pair whose
 * hi is zero stands for a zero of hi's sign (the split of −0 is (−0, +0), a kernel's −1·(+0) has hi −0
 * and lo +0 from its error term; hi + lo made both +0, where the CPU path and f32 keep −0).
 */
export function joinDS(hi: number, lo: number): number {
  return Number.isFinite(hi) && (hi !== 0 || lo !== 0) ? hi + lo : hi;
}

/**
 * Whether a scalar is zero as the kernels of `dtype` see it, and so its operand is not read: f32 and
 * c64 round it to f32 first (1e-50 is zero there, as on the CPU path), f64 and c128 take it as it is.
 */
export function isZeroScalar(dtype: DType, re: number, im: number): boolean {
  return dtype === 'f32' || dtype === 'c64' ? Math.fround(re) === 0 && Math.fround(im) === 0 : re === 0 && im === 0;
}

/** Whether a dtype runs as double-single. */
export function isDoubleSingle(dtype: DType): boolean {
  return dtype === 'f64' || dtype === 'c128';
}

export interface DoubleSingleEncoding {
  /** Writes v as (hi, lo) at out[at], out[at + 1]. */
  splitDS(v: number, out: Float32Array, at: number): void;
  /** The float stream of `values` (components, interleaved when complex); f32/c64 Float32Array data is returned as it is. */
  encodeValues(dtype: DType, values: ArrayLike<number>): Float32Array;
  /** encodeValues's stream written into `out` (values.length floats, twice that for f64 / c128), e.g. a buffer's mapped range: no array of its own. */
  encodeInto(dtype: DType, values: ArrayLike<number>, out: Float32Array): void;
  /** A scalar as the kernels take it: one element in the dtype's float order, in a vec4. */
  encodeScalar(dtype: DType, re: number, im: number): Float32Array;
  /** Refuses, as encodeValues does, a finite value the f32 range cannot hold (the GPU split makes it ±Inf). */
  checkRange(values: ArrayLike<number>): void;
  /** Inverse of encodeValues for `components` components (elements × 1 or 2). */
  decodeValues(dtype: DType, floats: Float32Array, components: number): Float32Array | Float64Array;
}

/**
 * f32 values as double-single pairs: (v, 0), the split of each (hi = fround(v) = v, lo = v − v = +0; NaN
 * (NaN, 0)), their bits copied rather than split one by one (an f32 matrix's double-single copy, 14.7 M
 * values for poisson3D(128)).
 */
function widenInto(values: Float32Array, out: Float32Array): void {
  const from = new Uint32Array(values.buffer, values.byteOffset, values.length);
  const to = new Uint32Array(out.buffer, out.byteOffset, 2 * values.length);
  for (let k = 0; k < from.length; k++) {
    to[2 * k] = from[k];
    to[2 * k + 1] = 0;
  }
}

/** The encoding, refusing out-of-range values with `limitError` (GpuLimitError, WebGpuLimitError). */
export function doubleSingleEncoding(limitError: (message: string) => Error): DoubleSingleEncoding {
  const refuse = (v: number) => limitError(`the value ${v} is outside the f32 range, so double-single cannot hold it on the GPU`);
  const split = (v: number, out: Float32Array, at: number): void => {
    const hi = Math.fround(v);
    if (!Number.isFinite(hi) && Number.isFinite(v)) throw refuse(v);
    out[at] = hi;
    out[at + 1] = Number.isFinite(hi) ? Math.fround(v - hi) : 0;
  };
  const encodeInto = (dtype: DType, values: ArrayLike<number>, out: Float32Array): void => {
    if (!isDoubleSingle(dtype)) out.set(values);
    else if (values instanceof Float32Array) widenInto(values, out);
    else for (let k = 0; k < values.length; k++) split(values[k], out, 2 * k);
  };
  return {
    splitDS: split,
    encodeValues(dtype, values) {
      if (!isDoubleSingle(dtype) && values instanceof Float32Array) return values;
      const out = new Float32Array(values.length * (isDoubleSingle(dtype) ? 2 : 1));
      encodeInto(dtype, values, out);
      return out;
    },
    encodeInto,
    checkRange(values) {
      for (let k = 0; k < values.length; k++) {
        const v = values[k];
        if (!Number.isFinite(Math.fround(v)) && Number.isFinite(v)) throw refuse(v);
      }
    },
    encodeScalar(dtype, re, im) {
      const out = new Float32Array(4);
      if (dtype === 'f32') out[0] = re;
      else if (dtype === 'c64') out.set([re, im]);
      else {
        split(re, out, 0);
        if (dtype === 'c128') split(im, out, 2);
      }
      return out;
    },
    decodeValues(dtype, floats, components) {
      if (!isDoubleSingle(dtype)) return floats.length === components ? floats : floats.slice(0, components);
      const out = new Float64Array(components);
      for (let k = 0; k < components; k++) out[k] = joinDS(floats[2 * k], floats[2 * k + 1]);
      return out;
    },
  };
}
