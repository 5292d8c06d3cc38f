/**
 * The rules of sharing GPUBuffers with other code on one GPUDevice (rt.fromGPUBuffer, v.gpuBuffer();
 * docs/interop.md): the options, and the layout a dtype has in a buffer. f32 and c64 are plain f32
 * streams (c64 interleaved re, im). WGSL has no f64, so the WebGPU path holds f64 and c128 as
 * double-single (hi, lo) f32 pairs: a caller must say it means that layout, never an IEEE f64 buffer
 * misread as pairs.
 */
import { isDoubleSingle } from '../double-single.js';
import type { DType } from '../dtype.js';
import { UnsupportedError } from '../errors.js';
import { shownTyped } from '../shown-value.js';

/**
 * Options of {@link Runtime.fromGPUBuffer}: the vector's length and dtype, and for f64 / c128 the
 * layout the buffer holds.
 */
export interface GpuBufferOptions {
  /** elements of the vector (a complex element counts once); the buffer may be larger (bytes past the vector are never touched) */
  length: number;
  /** 'f32' (default) or 'c64' (re, im interleaved f32); 'f64' and 'c128' only with `layout: 'double-single'` */
  dtype?: DType;
  /** 'double-single': an f64 / c128 buffer holds each value as two f32, hi = fround(v) then lo = fround(v − hi) */
  layout?: 'double-single';
}

/** Options of {@link ResidentVector.gpuBuffer}. */
export interface GpuBufferLayout {
  /** 'double-single': required for an f64 / c128 vector, whose buffer holds (hi, lo) f32 pairs */
  layout?: 'double-single';
}

export const GPU_BUFFER_OPTION_KEYS = ['length', 'dtype', 'layout'] as const;
export const GPU_BUFFER_LAYOUT_KEYS = ['layout'] as const;

/** Refuses a layout that does not fit the dtype: f64 / c128 need 'double-single' said, f32 / c64 take none. */
export function checkLayout(where: string, dtype: DType, layout: unknown): void {
  if (layout !== undefined && layout !== 'double-single') {
    throw new UnsupportedError(`${where}: layout must be 'double-single' (or left out for f32 and c64), got ${shownTyped(layout)}`);
  }
  if (isDoubleSingle(dtype) && layout !== 'double-single') {
    const single = dtype === 'f64' ? 'f32' : 'c64';
    throw new UnsupportedError(
      `${where}: the WebGPU path holds ${dtype} as double-single (each value two f32: hi = fround(v), then lo = fround(v − hi); WGSL has no f64), ` +
        `not as IEEE doubles: use dtype '${single}' for a buffer of f32 values, or pass { layout: 'double-single' } for a buffer laid out so`,
    );
  }
  if (!isDoubleSingle(dtype) && layout !== undefined) {
    throw new UnsupportedError(`${where}: layout 'double-single' is the layout of f64 and c128; a ${dtype} buffer is plain f32${dtype === 'c64' ? ' (re, im interleaved)' : ''}`);
  }
}
