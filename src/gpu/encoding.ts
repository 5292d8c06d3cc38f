/**
 * How matrices and vectors live in textures.
 *
 * Linear arrays, tiled. Every GPU array is a linear run of texels stored in one TEXTURE_2D_ARRAY whose
 * layers are square tiles of 2^s × 2^s texels: texel i sits at (i mod 2^s, (i >> s) mod 2^s) in layer
 * i >> 2s. s is the smallest shift with 4^s ≥ texels, capped at log2 of the largest power of two ≤
 * MAX_TEXTURE_SIZE, so a small array is one near-square layer (height = ⌈texels / 2^s⌉) and a long one
 * is split over several layers — the "several textures" of a matrix larger than one texture, behind one
 * sampler, with shifts and masks instead of divisions in the shader. The limit is
 * maxTextureSize² × MAX_ARRAY_TEXTURE_LAYERS texels per array (16384² × 2048 on most desktop GPUs,
 * far past any memory) and 2^31 − 1 texels (the shader's int index); past either, GpuLimitError.
 * `maxTextureSize`/`maxLayers` options shrink the tile to force (and test) multi-layer arrays.
 *
 * Vectors: RGBA32F, four consecutive elements per texel (element j in texel j >> 2, component j & 3).
 * RGBA pays here: BLAS-1 kernels move 16 bytes per fragment; ELL reads four rows with one vec4
 * (its stride is a multiple of 4, so those slots are one aligned texel); RGBA/FLOAT is the one
 * readPixels combination every float render target must support, so read-back moves no padding; and
 * a tile holds 4× more elements. The cost is a component select in the x gather (`[j & 3]`).
 * Components past the vector's length are kept at 0 by every kernel.
 *
 * Indices: integer textures, read with texelFetch. A float texture holds integers exactly only up to
 * 2^24 = 16,777,216, so a float-encoded column index or row pointer would silently go wrong on any
 * matrix with more than 16.7 M columns or nonzeros. R32I/RGBA32I are exact over the whole int32 range
 * (the formats' own index range), and texelFetch needs no filtering or normalisation.
 *   CSR: rowPtr RGBA32I (texel t = rowPtr[4t..4t+3], padded with nnz so rows past the matrix are
 *        empty and each fragment needs just two fetches); colIdx R32I and values R32F, one entry per
 *        texel (a row starts anywhere, so packing entries 4 per texel would not align).
 *   ELL: colIdx RGBA32I and values RGBA32F, texel s = slots 4s..4s+3 (column-major, as the format).
 * Outputs are RGBA32F render targets (EXT_color_buffer_float), rendered one layer per draw.
 *
 * Element types (dtype.glsl has the shader side). Every vector and every ELL/DIA value array is a
 * stream of f32 "floats", floatsPerElement(dtype) per element, four floats per RGBA32F texel:
 *   f32   1 float  (v)                                  4 elements per texel
 *   c64   2 floats (re, im), the interleaved layout     2 elements per texel
 *   f64   2 floats (hi, lo), double-single               2 elements per texel
 *   c128  4 floats (re hi, re lo, im hi, im lo)          1 element per texel
 * where hi = fround(v) and lo = fround(v − hi): hi + lo carries about 48 bits of v's 53 (values must
 * lie in the f32 range; |v| < ~1e-31 loses bits because lo underflows). CSR values are one element
 * per texel: R32F, RG32F or RGBA32F. Read-back returns Float32Array for f32/c64 and Float64Array
 * (hi + lo) for f64/c128.
 */
import * as twgl from 'twgl.js';
import type { DType } from '../dtype.js';
import { GpuLimitError } from './errors.js';
import { doubleSingleEncoding, floatsPerElement, isZeroScalar, joinDS } from '../double-single.js';

/** Where an array's texels are: see the file comment. */
export interface TileLayout {
  /** texels in use (≥ 1: an empty array still has one texel) */
  readonly texels: number;
  /** log2 of the tile side */
  readonly shift: number;
  readonly width: number;
  /** rows of each layer (a single layer is cut to the rows it needs) */
  readonly height: number;
  readonly layers: number;
}

export interface LayoutLimits {
  /** log2 of the largest tile side (≤ 15) */
  maxShift: number;
  maxLayers: number;
}

/** The int32 texel index of the shaders. */
export const MAX_TEXELS = 0x7fffffff;

/** Limits from a context's MAX_TEXTURE_SIZE / MAX_ARRAY_TEXTURE_LAYERS, optionally lowered. */
export function layoutLimits(maxTextureSize: number, maxArrayLayers: number, opts: { maxTextureSize?: number; maxLayers?: number } = {}): LayoutLimits {
  const size = Math.min(maxTextureSize, opts.maxTextureSize ?? Infinity);
  const layers = Math.min(maxArrayLayers, opts.maxLayers ?? Infinity);
  if (!(size >= 1) || !(layers >= 1)) throw new RangeError(`GPU layout limits must be ≥ 1, got maxTextureSize ${size}, maxLayers ${layers}`);
  return { maxShift: Math.min(15, Math.floor(Math.log2(size))), maxLayers: Math.floor(layers) };
}

/** The layout of `texels` texels; GpuLimitError past the limits. `what` names the array in the message. */
export function layoutFor(texels: number, limits: LayoutLimits, what: string): TileLayout {
  const n = Math.max(1, texels);
  const side = 2 ** limits.maxShift;
  const capacity = side * side * limits.maxLayers;
  if (n > Math.min(capacity, MAX_TEXELS)) {
    throw new GpuLimitError(
      `${what} needs ${n} texels, over the GPU limit of ${Math.min(capacity, MAX_TEXELS)} ` +
        `(${side}×${side} texels × ${limits.maxLayers} layers${capacity > MAX_TEXELS ? ', capped by the int32 texel index' : ''})`,
    );
  }
  let shift = 0;
  while (shift < limits.maxShift && 4 ** shift < n) shift++;
  const width = 2 ** shift;
  const layers = Math.ceil(n / (width * width));
  const height = layers > 1 ? width : Math.ceil(n / width);
  return { texels: n, shift, width, height, layers };
}

export function sameLayout(a: TileLayout, b: TileLayout): boolean {
  return a.shift === b.shift && a.height === b.height && a.layers === b.layers;
}

export function layoutKey(l: TileLayout): string {
  return `${l.shift}/${l.height}/${l.layers}`;
}

/** Texture kinds used by the GPU path. */
export type TexKind = 'r32f' | 'rg32f' | 'rgba32f' | 'r32i' | 'rgba32i';

export function channels(kind: TexKind): 1 | 2 | 4 {
  return kind === 'r32f' || kind === 'r32i' ? 1 : kind === 'rg32f' ? 2 : 4;
}

function formats(gl: WebGL2RenderingContext, kind: TexKind): { internalFormat: number; format: number; type: number } {
  switch (kind) {
    case 'r32f': return { internalFormat: gl.R32F, format: gl.RED, type: gl.FLOAT };
    case 'rg32f': return { internalFormat: gl.RG32F, format: gl.RG, type: gl.FLOAT };
    case 'rgba32f': return { internalFormat: gl.RGBA32F, format: gl.RGBA, type: gl.FLOAT };
    case 'r32i': return { internalFormat: gl.R32I, format: gl.RED_INTEGER, type: gl.INT };
    case 'rgba32i': return { internalFormat: gl.RGBA32I, format: gl.RGBA_INTEGER, type: gl.INT };
  }
}

/** Bytes of a texture of this kind and layout (what the GPU allocates, padding included). */
export function textureBytes(kind: TexKind, l: TileLayout): number {
  return l.width * l.height * l.layers * channels(kind) * 4;
}

/**
 * A TEXTURE_2D_ARRAY of `kind` in layout `l`, filled from `data` (its first elements; the rest of the
 * texture is 0) or left zero (data null: WebGL zero-initialises, no upload). NEAREST, no mipmaps.
 */
export function createArrayTexture(gl: WebGL2RenderingContext, kind: TexKind, l: TileLayout, data: Float32Array | Int32Array | null): WebGLTexture {
  const f = formats(gl, kind);
  const slots = l.width * l.height * l.layers * channels(kind);
  let src: Float32Array | Int32Array | undefined;
  if (data) {
    if (data.length > slots) throw new RangeError(`internal: ${data.length} values do not fit a texture of ${slots} slots`);
    if (data.length === slots) src = data;
    else {
      src = kind === 'r32i' || kind === 'rgba32i' ? new Int32Array(slots) : new Float32Array(slots);
      src.set(data);
    }
  }
  while (gl.getError() !== gl.NO_ERROR) { /* drain */ }
  const tex = twgl.createTexture(gl, {
    target: gl.TEXTURE_2D_ARRAY,
    internalFormat: f.internalFormat,
    format: f.format,
    type: f.type,
    width: l.width,
    height: l.height,
    depth: l.layers,
    src,
    minMag: gl.NEAREST,
    wrap: gl.CLAMP_TO_EDGE,
    auto: false,
    unpackAlignment: 4,
  });
  const err = gl.getError();
  if (err !== gl.NO_ERROR) {
    gl.deleteTexture(tex);
    throw new GpuLimitError(
      `creating a ${kind} texture of ${l.width}×${l.height}×${l.layers} texels failed with GL error 0x${err.toString(16)}` +
        (err === gl.OUT_OF_MEMORY ? ' (out of GPU memory)' : ''),
    );
  }
  return tex;
}

export { floatsPerElement, isZeroScalar, joinDS };

/** The texture kind of a one-element-per-texel value array (CSR values). */
export function elementKind(dtype: DType): TexKind {
  const f = floatsPerElement(dtype);
  return f === 1 ? 'r32f' : f === 2 ? 'rg32f' : 'rgba32f';
}

/** Double-single encoding (src/double-single.ts); values beyond the f32 range are a GpuLimitError. */
export const { encodeValues, encodeScalar, decodeValues } = doubleSingleEncoding((m) => new GpuLimitError(m));
