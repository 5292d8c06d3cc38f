/**
 * The GPU path: WebGL2 fragment shaders over float textures (the GPGPU style of the seeds).
 *
 * Data uploaded once stays resident (GpuMatrix, GpuVector); kernels render the output vector into a
 * float render target one layer per draw, into a second texture of the same layout that is then
 * swapped with the vector's (ping-pong: a texture cannot be sampled and rendered in one pass);
 * results come back only through read() (vectors) or as scalars (dot, nrm2).
 *
 * Kernels (glsl/, one program per kernel and dtype, see dtype.glsl): csr_row (one fragment per
 * output texel), csr_segmented (csr_row over segments of at most L entries, then segsum per row:
 * for matrices with long rows), ell, sell (SELL-C-σ slices as ELL runs; sell_gather brings sorted
 * rows back to row order), dia (offsets as a uniform array, chunked), hyb (ELL part + CSR remainder), axpy/aypx/scal/copy, dot_first/dot_reduce (multi-pass reductions).
 * dtypes: f32, c64 (complex f32), f64 and c128 as double-single (hi + lo, about 48 bits; see
 * encoding.ts and ds.glsl). op = 'T' / 'H' runs a transposed CSR built on upload with
 * { transpose: true } ('H' conjugates its values in the shader).
 *
 * Precision. f32/c64 SpMV and BLAS-1 accumulate in f32 (within 4·(len+4)·2^-24·Σ|a||x| of the exact
 * result, measured worst 0.12 of that bound). Double-single (f64, c128) SpMV, measured on the shared
 * matrices in Chromium/SwiftShader over all five kernels: max |err| / (|α|Σ|a||x| + |β||y0|) =
 * 2.0e-14 at worst (qc324, c128; 1.7e-14 bcsstk13 f64), i.e. about 45.5 bits; two_prod is exact and a lone product carries 46 bits (the
 * operands' own hi + lo rounding). Per component |err|/|y| reaches 3e-12 only where a row sum cancels
 * (|y| down to 1e-3 of its scale). dot/nrm2 accumulate in double-single for every dtype (f32 and c64
 * products are exact there): measured |err| / Σ|x||y| ≤ 3e-17 on 100,003 elements.
 *
 * Context loss: the backend listens for webglcontextlost / webglcontextrestored on the context's
 * canvas (HTMLCanvasElement or OffscreenCanvas). On loss, pending read-backs reject with
 * GpuContextLostError (E_GPU_LOST) and every call throws it until the restore; on restore the
 * programs and targets are rebuilt, every live GpuMatrix is uploaded again from its host matrix, and
 * every live GpuVector gets a new texture (see GpuVector for what survives). onContextLost /
 * onContextRestored let the runtime switch to the CPU path and back. Observed in Chromium
 * (SwiftShader): when a read-back is in flight at the loss and an earlier one had completed on the
 * same context, the browser refuses restoreContext() ("context restoration not allowed"); the
 * backend then simply stays lost (contextLost true, every call throws E_GPU_LOST).
 *
 * The backend sets the GL state it needs before each draw (program, framebuffer, viewport, its own
 * empty vertex array, blend/depth/stencil/scissor/cull off); a caller sharing its own context must
 * restore its state afterwards.
 */
import * as twgl from 'twgl.js';
import { assertDType, isComplex, toComplex, type DType, type Scalar } from '../dtype.js';
import { DisposedError, ShapeError, UnsupportedError } from '../errors.js';
import type { Op } from '../backend-types.js';
import { SELL_PAD, type CSRMatrix, type SELLMatrix } from '../formats/index.js';
import { isPrivateCanonical, longestRow } from '../formats/csr.js';
import { acquireContext, probeCapabilities, type GpuCanvas, type GpuCapabilities } from './context.js';
import {
  createArrayTexture, decodeValues, elementKind, encodeScalar, encodeValues, floatsPerElement, isZeroScalar, joinDS, layoutFor, layoutKey, layoutLimits, MAX_TEXELS, textureBytes,
  type LayoutLimits, type TexKind, type TileLayout,
} from './encoding.js';
import { GpuContextLostError, GpuLimitError, GpuUnavailableError } from './errors.js';
import {
  GpuMatrix, GpuVector, type GpuCSRPart, type GpuCSRRowPart, type GpuDIAPart, type GpuELLPart, type GpuMatrixData, type GpuOwner, type GpuPart,
  type GpuSELLPart, type GpuTexture, type HostMatrix,
} from './resident.js';
import { glslSources, loadGlsl } from './shader-source.js';
import * as dense from './dense.js';
import { LossHooks, restorableShadow } from '../device-resident.js';
import type { DenseMatrix } from '../formats/dense.js';
import { shownValue } from '../shown-value.js';

export interface GpuBackendOptions {
  /** draw on this canvas (HTMLCanvasElement or OffscreenCanvas) */
  canvas?: GpuCanvas;
  /** or use this WebGL2 context */
  context?: WebGL2RenderingContext;
  /** lower the tile side below MAX_TEXTURE_SIZE (rounded down to a power of two): forces tiling, for tests */
  maxTextureSize?: number;
  /** lower the layer limit below MAX_ARRAY_TEXTURE_LAYERS, for tests */
  maxLayers?: number;
  /** at most this many DIA diagonals per draw (default: what the uniform space allows, ≤ 256), for tests */
  diaChunk?: number;
}

/** What GpuBackend.create returns when the GPU path cannot run here. */
export interface GpuUnavailable {
  readonly available: false;
  readonly reason: string;
  readonly capabilities: GpuCapabilities;
}

export interface GpuSpmvOptions {
  /** default 1 ([re, im] for complex dtypes) */
  alpha?: Scalar;
  /** default 0: y is then not read (it may hold NaN) */
  beta?: Scalar;
  /** 'N' (default); 'T' and 'H' need a matrix uploaded with { transpose: true } */
  op?: Op;
}

export interface GpuUploadOptions {
  /**
   * CSR only: 'row' (one fragment per output texel), 'segmented' (long rows split into segments,
   * two passes), or 'auto' (default): segmented when the longest row has more than 256 entries.
   * Also used for the transposed CSR.
   */
  kernel?: 'auto' | 'row' | 'segmented';
  /** entries per segment of the segmented kernel, default 64 */
  segmentLength?: number;
  /** also upload Aᵀ as CSR (built on the host at upload), so spmv can run op = 'T' / 'H' */
  transpose?: boolean;
}

export interface GpuVectorOptions {
  /**
   * keep a host copy of the contents as of the upload and of every read(), so a context restore
   * can bring them back when the vector has not been written since (default false)
   */
  shadow?: boolean;
}

/** Counters, for tests and the cost model. */
export interface GpuStats {
  /** texture uploads with data (matrices: 2–6 per upload; vectors from data: 1) */
  uploads: number;
  uploadBytes: number;
  /** draw calls (one per output layer per pass) */
  draws: number;
  /** read() / dot() / nrm2() calls that went through a pixel-pack buffer and a fence */
  asyncReadbacks: number;
  /** reads through a plain readPixels (readSync, or read() without fences) */
  syncReadbacks: number;
  /** webglcontextlost / webglcontextrestored events seen */
  contextLosses: number;
  contextRestores: number;
}

type ProgramName = 'csr_row' | 'segsum' | 'ell' | 'sell' | 'sell_gather' | 'hyb' | 'dia' | 'axpy' | 'aypx' | 'scal' | 'copy' | 'dot_first' | 'dot_reduce';

/** How often read() polls its fence (ms). */
const POLL_MS = 1;
/**
 * How long read() waits for its fence before it reads the pixel-pack buffer anyway (getBufferSubData
 * then waits for the GPU itself): a fence that never reports signalled must not hang a read, as one
 * did now and then in Firefox on Mesa's llvmpipe under load.
 */
const FENCE_PATIENCE_MS = 2000;
/** Ping-pong targets kept per layout. */
const POOL_PER_LAYOUT = 2;
/** CSR 'auto': rows longer than this select the segmented kernel. */
export const LONG_ROW = 256;

/** SELL slices are laid out at C rounded up to whole texels (4 lanes), so slot columns stay aligned. */
export function sellLanes(C: number): number {
  return Math.ceil(C / 4) * 4;
}

/** Whether a SELL product needs the sell_gather pass: positions are not rows (sorted, or re-laid lanes). */
export function sellGathers(C: number, sortWindow: number): boolean {
  return sortWindow !== 1 || sellLanes(C) !== C;
}
const DEFAULT_SEGMENT = 64;
/** Input texels summed per fragment and pass of a reduction (dot_first.glsl / dot_reduce.glsl). */
const REDUCE_BLOCK = 16;

/** Host-side CSR parts, before upload. */
interface HostCSR {
  rows: number;
  rowPtr: Int32Array;
  colIdx: Int32Array;
  values: ArrayLike<number>;
}

export class GpuBackend implements GpuOwner {
  readonly available = true as const;
  readonly stats: GpuStats = { uploads: 0, uploadBytes: 0, draws: 0, asyncReadbacks: 0, syncReadbacks: 0, contextLosses: 0, contextRestores: 0 };
  /** bytes of GPU textures held by live matrices and vectors */
  bytesInUse = 0;

  private readonly limits: LayoutLimits;
  private readonly programs = new Map<string, twgl.ProgramInfo>();
  private readonly pool = new Map<string, WebGLTexture[]>();
  /** live matrices and vectors, disposed with the backend */
  private readonly residents = new Set<GpuVector | GpuMatrix>();
  private fbo: WebGLFramebuffer;
  private vao: WebGLVertexArrayObject;
  private disposed = false;
  /** ivec4 entries of the DIA offsets uniform array */
  private readonly diaVec4: number;
  private readonly diaChunk: number;
  private lost = false;
  private lostReason = '';
  private epoch = 0;
  private readonly pending = new Set<(e: Error) => void>();
  private readonly hooks = new LossHooks();
  private readonly canvas: EventTarget | null;

  private constructor(
    readonly gl: WebGL2RenderingContext,
    private caps: GpuCapabilities,
    opts: GpuBackendOptions,
  ) {
    this.limits = layoutLimits(caps.maxTextureSize, caps.maxArrayLayers, opts);
    this.fbo = gl.createFramebuffer()!;
    this.vao = gl.createVertexArray()!;
    const fragVectors = Number(gl.getParameter(gl.MAX_FRAGMENT_UNIFORM_VECTORS)) || 224;
    this.diaVec4 = Math.max(1, Math.min(64, fragVectors - 32));
    this.diaChunk = Math.max(1, Math.min(4 * this.diaVec4, Math.floor(opts.diaChunk ?? Infinity)));
    const c = (gl as { canvas?: unknown }).canvas as EventTarget | undefined;
    this.canvas = c && typeof c.addEventListener === 'function' ? c : null;
    this.canvas?.addEventListener('webglcontextlost', this.handleLost, false);
    this.canvas?.addEventListener('webglcontextrestored', this.handleRestored, false);
  }

  /**
   * A backend on the given canvas/context (or a canvas of its own: an OffscreenCanvas, or a canvas element where OffscreenCanvas has no WebGL2), or `{ available: false, reason }`
   * when WebGL2, float render targets or float read-back are missing. Never throws for a missing GPU.
   */
  static create(opts: GpuBackendOptions = {}): GpuBackend | GpuUnavailable {
    const got = acquireContext(opts);
    const caps = probeCapabilities(got.gl, got.gl ? undefined : got.reason);
    if (!got.gl || caps.reason !== null) return { available: false, reason: caps.reason ?? 'WebGL2 is unavailable', capabilities: caps };
    try {
      return new GpuBackend(got.gl, caps, opts);
    } catch (e) {
      return { available: false, reason: `setting up the GPU backend failed: ${(e as Error)?.message ?? String(e)}`, capabilities: caps };
    }
  }

  /**
   * Loads the GLSL sources (once per page or worker), which kernels need: await it before the first
   * kernel of a backend you made with create() (the runtime's WebGL2 path does so on its first operation).
   */
  loadShaders(): Promise<void> {
    return loadGlsl();
  }

  capabilities(): GpuCapabilities {
    return { ...this.caps };
  }

  /** The layout limits in use (after the maxTextureSize/maxLayers options). */
  get layoutLimits(): Readonly<LayoutLimits> {
    return this.limits;
  }

  /** DIA diagonals per draw. */
  get diaDiagonalsPerDraw(): number {
    return this.diaChunk;
  }

  /** true between webglcontextlost and a successful webglcontextrestored */
  get contextLost(): boolean {
    return this.lost || this.gl.isContextLost();
  }

  /** Calls `cb` when the context is lost (after pending calls were rejected). Returns an unsubscribe function. */
  onContextLost(cb: () => void): () => void {
    return this.hooks.onLost(cb);
  }

  /** Calls `cb` when the context is back and every live matrix was uploaded again. Returns an unsubscribe function. */
  onContextRestored(cb: () => void): () => void {
    return this.hooks.onRestored(cb);
  }

  // ---- resident data ----------------------------------------------------------------------------

  /**
   * Uploads a CSR, SELL, ELL, DIA or HYB matrix of dtype f32, c64, f64 or c128 (validated first). Its
   * textures stay resident until dispose(). The GpuMatrix keeps a reference to `matrix` for
   * re-upload after a context loss.
   */
  upload(matrix: HostMatrix, options: GpuUploadOptions = {}): GpuMatrix {
    this.live();
    const f = (matrix as { format: string }).format;
    if (f !== 'csr' && f !== 'sell' && f !== 'ell' && f !== 'dia' && f !== 'hyb') {
      throw new UnsupportedError(`GPU upload: format ${f} is not supported (csr, sell, ell, dia, hyb)`);
    }
    assertDType(matrix.dtype, 'GPU upload');
    // the library's own validated CSRs (an AMG hierarchy's levels) are not scanned again
    if (!(matrix.format === 'csr' && isPrivateCanonical(matrix))) matrix.validate();
    const data = this.buildMatrix(matrix, options);
    return new GpuMatrix(this, matrix.dtype, matrix.rows, matrix.cols, matrix.nnz, matrix.format, data, { matrix, options: { ...options } });
  }

  private buildMatrix(matrix: HostMatrix, options: GpuUploadOptions): GpuMatrixData {
    const made: MadeTexture[] = [];
    try {
      const dt = matrix.dtype;
      let main: GpuPart;
      switch (matrix.format) {
        case 'csr':
          main = this.csrPart(matrix, dt, options, made);
          break;
        case 'sell':
          main = this.sellPart(matrix, dt, made);
          break;
        case 'ell':
          main = this.ellPart(matrix.width, matrix.stride, matrix.colIdx, matrix.values, dt, made);
          break;
        case 'dia': {
          const values = this.texture('rgba32f', (matrix.offsets.length * matrix.pitch * floatsPerElement(dt)) / 4, encodeValues(dt, matrix.data), 'DIA data', made);
          main = { kind: 'dia', offsets: matrix.offsets.slice(), pitch: matrix.pitch, values };
          break;
        }
        case 'hyb': {
          const ell = this.ellPart(matrix.ell.width, matrix.ell.stride, matrix.ell.colIdx, matrix.ell.values, dt, made);
          const { rows } = matrix;
          const rowPtr = new Int32Array(rows + 1);
          for (const r of matrix.coo.rowIdx) rowPtr[r + 1]++;
          for (let i = 0; i < rows; i++) rowPtr[i + 1] += rowPtr[i];
          const rest = this.csrRowPart({ rows, rowPtr, colIdx: matrix.coo.colIdx, values: matrix.coo.values }, dt, made, 'HYB remainder');
          main = { kind: 'hyb', ell, rest };
          break;
        }
      }
      let transposed: GpuCSRPart | null = null;
      if (options.transpose) {
        const csr = (matrix.format === 'csr' ? matrix : matrix.toCSR()) as CSRMatrix;
        transposed = this.csrPart(csr.transpose(), dt, options, made);
      }
      const bytes = made.reduce((b, t) => b + t.bytes, 0);
      return { main, transposed, textures: made.map(({ texture, layout }) => ({ texture, layout })), bytes };
    } catch (e) {
      for (const t of made) this.gl.deleteTexture(t.texture);
      throw e;
    }
  }

  private csrPart(c: CSRMatrix, dt: DType, options: GpuUploadOptions, made: MadeTexture[]): GpuCSRPart {
    const { rows, rowPtr } = c;
    const longest = longestRow(c);
    const kernel = options.kernel ?? 'auto';
    const L = options.segmentLength ?? DEFAULT_SEGMENT;
    if (!Number.isInteger(L) || L < 1) throw new ShapeError(`GPU upload: segmentLength = ${L} must be a positive integer`);
    if (kernel === 'row' || (kernel === 'auto' && longest <= LONG_ROW)) return this.csrRowPart(c, dt, made, 'CSR');
    // segments: rows of length <= L are one segment, longer rows ceil(len / L); empty rows none
    const segPtr = new Int32Array(rows + 1);
    for (let i = 0; i < rows; i++) segPtr[i + 1] = segPtr[i] + Math.ceil((rowPtr[i + 1] - rowPtr[i]) / L);
    const segments = segPtr[rows];
    const nnz = c.colIdx.length;
    const segBound = new Int32Array(4 * (Math.ceil(segments / 4) + 1)).fill(nnz);
    for (let i = 0, s = 0; i < rows; i++) for (let k = rowPtr[i]; k < rowPtr[i + 1]; k += L) segBound[s++] = k;
    const segPtrTex = new Int32Array(4 * (Math.ceil(rows / 4) + 1)).fill(segments);
    segPtrTex.set(segPtr);
    return {
      kind: 'csr_segmented',
      rows,
      segments,
      segmentLength: L,
      segBound: this.texture('rgba32i', segBound.length / 4, segBound, 'CSR segment bounds', made),
      segPtr: this.texture('rgba32i', segPtrTex.length / 4, segPtrTex, 'CSR segment pointers', made),
      colIdx: this.texture('r32i', nnz, c.colIdx, 'CSR colIdx', made),
      values: this.texture(elementKind(dt), nnz, encodeValues(dt, c.values), 'CSR values', made),
    };
  }

  private csrRowPart(c: HostCSR, dt: DType, made: MadeTexture[], what: string): GpuCSRRowPart {
    const { rows, rowPtr, colIdx } = c;
    const nnz = colIdx.length;
    // rowPtr packed 4 per texel, one texel past the last, padded with nnz: rows past the matrix are empty
    const ptr = new Int32Array(4 * (Math.ceil(rows / 4) + 1)).fill(nnz);
    ptr.set(rowPtr.subarray(0, rows + 1));
    return {
      kind: 'csr_row',
      rows,
      rowPtr: this.texture('rgba32i', ptr.length / 4, ptr, `${what} rowPtr`, made),
      colIdx: this.texture('r32i', nnz, colIdx, `${what} colIdx`, made),
      values: this.texture(elementKind(dt), nnz, encodeValues(dt, c.values), `${what} values`, made),
    };
  }

  private ellPart(width: number, stride: number, colIdx: Int32Array, values: ArrayLike<number>, dt: DType, made: MadeTexture[]): GpuELLPart {
    const slots = width * stride; // stride is a multiple of 4 (validated)
    return {
      kind: 'ell',
      width,
      stride,
      colIdx: this.texture('rgba32i', slots / 4, colIdx, 'ELL colIdx', made),
      values: this.texture('rgba32f', (slots * floatsPerElement(dt)) / 4, encodeValues(dt, values), 'ELL values', made),
    };
  }

  /**
   * SELL in textures: each slice re-laid with C rounded up to 4 lanes when C is not a multiple of 4
   * (so a fragment's EPT positions are one aligned texel, sell.glsl), and the row → position map when
   * positions are not rows.
   */
  private sellPart(m: SELLMatrix, dt: DType, made: MadeTexture[]): GpuSELLPart {
    const { rows, sliceHeight: C, slices, perm } = m;
    const lanes = sellLanes(C);
    const fpe = floatsPerElement(dt);
    let slicePtr = m.slicePtr;
    let colIdx = m.colIdx;
    let values = encodeValues(dt, m.values);
    if (lanes !== C) {
      const total = (m.colIdx.length / C) * lanes;
      if (total > MAX_TEXELS) throw new GpuLimitError(`SELL on the GPU: ${total} slots at ${lanes} lanes per slice, over the int32 slot index`);
      slicePtr = new Int32Array(slices + 1);
      colIdx = new Int32Array(total).fill(SELL_PAD);
      const v = new Float32Array(total * fpe);
      for (let s = 0; s < slices; s++) {
        const width = (m.slicePtr[s + 1] - m.slicePtr[s]) / C;
        slicePtr[s + 1] = slicePtr[s] + width * lanes;
        for (let k = 0; k < width; k++) {
          const from = m.slicePtr[s] + k * C;
          const to = slicePtr[s] + k * lanes;
          colIdx.set(m.colIdx.subarray(from, from + C), to);
          v.set(values.subarray(from * fpe, (from + C) * fpe), to * fpe);
        }
      }
      values = v;
    }
    const slots = colIdx.length;
    const ptr = new Int32Array(4 * Math.ceil((slices + 2) / 4)).fill(slots); // slices past the last are empty
    ptr.set(slicePtr);
    let pos: GpuTexture | null = null;
    if (sellGathers(C, m.sortWindow)) {
      const at = new Int32Array(rows);
      for (let p = 0; p < rows; p++) at[perm[p]] = Math.floor(p / C) * lanes + (p % C);
      pos = this.texture('rgba32i', Math.ceil(rows / 4), at, 'SELL positions', made);
    }
    return {
      kind: 'sell',
      lanes,
      positions: slices * lanes,
      slicePtr: this.texture('rgba32i', ptr.length / 4, ptr, 'SELL slicePtr', made),
      colIdx: this.texture('rgba32i', Math.ceil(slots / 4), colIdx, 'SELL colIdx', made),
      values: this.texture('rgba32f', Math.ceil((slots * fpe) / 4), values, 'SELL values', made),
      pos,
    };
  }

  /**
   * A resident vector of `dtype`: from data (components, interleaved re/im when complex; rounded to
   * f32, or split into double-single for f64/c128; uploaded once) or zero-filled of a length in
   * elements (no upload: WebGL zero-initialises textures).
   */
  vector(dtype: DType, data: ArrayLike<number> | number, options: GpuVectorOptions = {}): GpuVector {
    this.live();
    assertDType(dtype, 'GPU vector');
    const comp = isComplex(dtype) ? 2 : 1;
    const length = typeof data === 'number' ? data : data.length / comp;
    if (!Number.isInteger(length) || length < 0) {
      throw new ShapeError(
        typeof data === 'number' ? `GPU vector: length ${length} must be a nonnegative integer` : `GPU vector: ${data.length} components do not make whole ${dtype} elements`,
      );
    }
    const fpe = floatsPerElement(dtype);
    const layout = layoutFor(Math.ceil((length * fpe) / 4), this.limits, `a vector of ${length} ${dtype} elements`);
    const floats = typeof data === 'number' ? null : encodeValues(dtype, data);
    const tex = createArrayTexture(this.gl, 'rgba32f', layout, floats);
    if (floats) this.countUpload(floats.byteLength);
    const shadow = options.shadow ? (floats ? floats.slice() : new Float32Array(length * fpe)) : null;
    return new GpuVector(this, dtype, length, layout, tex, textureBytes('rgba32f', layout), shadow);
  }

  private texture(kind: TexKind, texels: number, data: Float32Array | Int32Array, what: string, made: MadeTexture[]): GpuTexture {
    const layout = layoutFor(texels, this.limits, what);
    const t = { texture: createArrayTexture(this.gl, kind, layout, data), layout, bytes: textureBytes(kind, layout) };
    made.push(t);
    this.countUpload(data.byteLength);
    return t;
  }

  private countUpload(bytes: number): void {
    this.stats.uploads++;
    this.stats.uploadBytes += bytes;
  }

  // ---- kernels ----------------------------------------------------------------------------------

  /** y = α·op(A)·x + β·y on resident data (renders into y). x may be y itself. */
  spmv(M: GpuMatrix, x: GpuVector, y: GpuVector, opts: GpuSpmvOptions = {}): void {
    this.live();
    const op = opts.op ?? 'N';
    if (op !== 'N' && op !== 'T' && op !== 'H') throw new UnsupportedError(`GPU spmv: op ${shownValue(op)} is not one of 'N', 'T', 'H'`);
    if ((M as unknown as { owner: unknown }).owner !== this) throw new UnsupportedError('GPU spmv: a matrix of another GpuBackend');
    const d = M.data;
    const part = op === 'N' ? d.main : d.transposed;
    if (!part) throw new UnsupportedError(`GPU spmv: op ${shownValue(op)} needs the matrix uploaded with { transpose: true }`);
    const [outLen, inLen] = op === 'N' ? [M.rows, M.cols] : [M.cols, M.rows];
    this.checkVectors('GPU spmv', x, inLen, 'x', y, outLen);
    this.checkSameDType('GPU spmv', M.dtype, x, y);
    const dt = M.dtype;
    const [ar, ai] = toComplex(opts.alpha ?? 1);
    const [br, bi] = toComplex(opts.beta ?? 0);
    checkScalar(dt, ai, 'alpha');
    checkScalar(dt, bi, 'beta');
    const useBeta = !isZeroScalar(dt, br, bi);
    const common = {
      u_x: x.texture,
      u_xShift: x.layout.shift,
      u_alpha: encodeScalar(dt, ar, ai),
      u_beta: encodeScalar(dt, br, bi),
      u_useBeta: useBeta ? 1 : 0,
      u_conj: op === 'H' && isComplex(dt) ? -1 : 1,
      u_partialSums: 0,
    };
    const withY = () => ({ u_y: y.texture, u_yShift: y.layout.shift });
    switch (part.kind) {
      case 'csr_row':
        this.render('csr_row', dt, y, { ...common, ...withY(), ...csrUniforms(part) });
        break;
      case 'csr_segmented': {
        // pass 1: one plain partial sum per segment (csr_row over the segment bounds, no alpha or beta)
        const pl = layoutFor(Math.ceil((part.segments * floatsPerElement(dt)) / 4), this.limits, 'the segment partial sums');
        const partial = this.draw('csr_row', dt, pl, part.segments * floatsPerElement(dt), {
          ...common,
          u_partialSums: 1,
          u_useBeta: 0,
          u_y: x.texture,
          u_yShift: x.layout.shift,
          u_rowPtr: part.segBound.texture,
          u_rowPtrShift: part.segBound.layout.shift,
          u_colIdx: part.colIdx.texture,
          u_values: part.values.texture,
          u_entryShift: part.values.layout.shift,
        });
        // pass 2: each row sums its partials
        try {
          this.render('segsum', dt, y, {
            ...common,
            ...withY(),
            u_segPtr: part.segPtr.texture,
            u_segPtrShift: part.segPtr.layout.shift,
            u_partial: partial,
            u_partialShift: pl.shift,
          });
        } finally {
          this.giveTarget(partial, pl);
        }
        break;
      }
      case 'ell':
        this.render('ell', dt, y, { ...common, ...withY(), ...ellUniforms(part) });
        break;
      case 'sell':
        this.sell(part, dt, x, y, common);
        break;
      case 'hyb':
        this.render('hyb', dt, y, { ...common, ...withY(), ...ellUniforms(part.ell), ...csrUniforms(part.rest) });
        break;
      case 'dia':
        this.dia(part, dt, M.cols, x, y, common);
        break;
    }
  }

  /** SELL: one pass straight into y when positions are rows, else row sums by position, then the gather. */
  private sell(part: GpuSELLPart, dt: DType, x: GpuVector, y: GpuVector, common: Record<string, unknown>): void {
    const slices = {
      ...common,
      ...slotUniforms(part),
      u_slicePtr: part.slicePtr.texture,
      u_slicePtrShift: part.slicePtr.layout.shift,
      u_sliceHeight: part.lanes,
    };
    if (!part.pos) {
      this.render('sell', dt, y, { ...slices, u_y: y.texture, u_yShift: y.layout.shift });
      return;
    }
    const floats = part.positions * floatsPerElement(dt);
    const pl = layoutFor(Math.ceil(floats / 4), this.limits, 'the SELL row sums');
    // y is not read (beta 0): x stands in for the sampler
    const sums = this.draw('sell', dt, pl, floats, { ...slices, u_partialSums: 1, u_useBeta: 0, u_y: x.texture, u_yShift: x.layout.shift });
    try {
      this.render('sell_gather', dt, y, {
        ...common,
        u_y: y.texture,
        u_yShift: y.layout.shift,
        u_pos: part.pos.texture,
        u_posShift: part.pos.layout.shift,
        u_partial: sums,
        u_partialShift: pl.shift,
      });
    } finally {
      this.giveTarget(sums, pl);
    }
  }

  /**
   * DIA: one draw per chunk of diagonals. Every chunk but the last writes the plain row sums so far
   * into a scratch target, the next starts from them, and the last applies alpha and beta once (as a
   * one-pass product: alpha·(s1 + s2) is Inf where alpha·s1 + alpha·s2 may be Inf + NaN). y is
   * written only by the last draw, so x may be y.
   */
  private dia(part: GpuDIAPart, dt: DType, cols: number, x: GpuVector, y: GpuVector, common: Record<string, unknown>): void {
    const nd = part.offsets.length;
    const chunks = Math.max(1, Math.ceil(nd / this.diaChunk));
    let prev: WebGLTexture | null = null;
    try {
      const offs = new Int32Array(4 * this.diaVec4);
      for (let c = 0; c < chunks; c++) {
        const d0 = c * this.diaChunk;
        const n = Math.min(this.diaChunk, nd - d0);
        offs.fill(0);
        offs.set(part.offsets.subarray(d0, d0 + n));
        const uniforms = {
          ...common,
          u_x: x.texture,
          u_xShift: x.layout.shift,
          u_y: y.texture,
          u_yShift: y.layout.shift,
          u_diaVal: part.values.texture,
          u_diaValShift: part.values.layout.shift,
          u_offsets: offs,
          u_ndiag: n,
          u_diag0: d0,
          u_pitch: part.pitch,
          u_cols: cols,
          u_xTexels: x.layout.texels,
          u_addPrev: prev ? 1 : 0,
          u_prev: prev ?? x.texture, // bound either way: x is sampled anyway
          u_prevShift: y.layout.shift,
        };
        if (c === chunks - 1) {
          this.render('dia', dt, y, uniforms);
        } else {
          const sums = this.draw('dia', dt, y.layout, y.length * floatsPerElement(dt), { ...uniforms, u_partialSums: 1 });
          if (prev) this.giveTarget(prev, y.layout);
          prev = sums;
        }
      }
    } finally {
      if (prev && !this.contextLost) this.giveTarget(prev, y.layout);
    }
  }

  /** y ← α·x + y (α = 0 leaves y as it is: Inf/NaN in x do not reach it, as on the CPU path) */
  axpy(alpha: Scalar, x: GpuVector, y: GpuVector): void {
    this.blas1('axpy', alpha, x, y);
  }

  /** y ← α·y + x (α = 0 copies x: y is not read, as on the CPU path) */
  aypx(alpha: Scalar, x: GpuVector, y: GpuVector): void {
    this.blas1('aypx', alpha, x, y);
  }

  /** y ← α·y (α = 0 writes zeros: NaN in y does not survive, as on the CPU path) */
  scal(alpha: Scalar, y: GpuVector): void {
    this.blas1('scal', alpha, y, y);
  }

  /** y ← x */
  copy(x: GpuVector, y: GpuVector): void {
    this.blas1('copy', 0, x, y);
  }

  private blas1(name: 'axpy' | 'aypx' | 'scal' | 'copy', alpha: Scalar, x: GpuVector, y: GpuVector): void {
    this.live();
    this.checkVectors(`GPU ${name}`, x, y.length, 'x', y, y.length);
    this.checkSameDType(`GPU ${name}`, x.dtype, x, y);
    const [ar, ai] = toComplex(alpha);
    checkScalar(x.dtype, ai, 'alpha');
    const zero = isZeroScalar(x.dtype, ar, ai);
    // α = 0: axpy leaves y as it is (reference BLAS, and the CPU path: Inf/NaN in x never reach y)
    if (name === 'axpy' && zero) return;
    // α = 0: aypx is y = x, y not read (as on the CPU path: Inf/NaN in y do not survive)
    this.render(name === 'aypx' && zero ? 'copy' : name, x.dtype, y, {
      u_x: x.texture,
      u_xShift: x.layout.shift,
      u_y: y.texture,
      u_yShift: y.layout.shift,
      u_alpha: encodeScalar(x.dtype, ar, ai),
      u_alphaZero: zero ? 1 : 0,
    });
  }

  /**
   * Σ x_i·y_i (conj: Σ conj(x_i)·y_i, complex only) computed on the GPU by multi-pass reduction
   * (16 texels per fragment per pass, double-single accumulation for every dtype); only the final
   * texel is read back. A number for real dtypes, [re, im] for complex ones.
   */
  async dot(x: GpuVector, y: GpuVector, options: { conj?: boolean } = {}): Promise<number | [number, number]> {
    this.live();
    this.checkVectors('GPU dot', x, y.length, 'x', y, y.length);
    this.checkSameDType('GPU dot', x.dtype, x, y);
    const [re, im] = await this.reduce(x, y, options.conj ?? false);
    return isComplex(x.dtype) ? [re, im] : re;
  }

  /** ‖x‖₂ = sqrt(Σ|x_i|²), the sum as in dot (no scaling: |x_i|² must stay within the f32 range). */
  async nrm2(x: GpuVector): Promise<number> {
    this.live();
    this.checkVectors('GPU nrm2', x, x.length, 'x', x, x.length);
    const [re] = await this.reduce(x, x, true);
    return Math.sqrt(Math.max(0, re));
  }

  private async reduce(x: GpuVector, y: GpuVector, conj: boolean): Promise<[number, number]> {
    const dt = x.dtype;
    let inTexels = x.layout.texels;
    let prev: { tex: WebGLTexture; layout: TileLayout } | null = null;
    try {
      do {
        const m = Math.ceil(inTexels / REDUCE_BLOCK);
        const layout = layoutFor(m, this.limits, 'the partial sums of a reduction');
        const tex = this.draw(prev ? 'dot_reduce' : 'dot_first', dt, layout, 4 * m, {
          u_x: prev ? prev.tex : x.texture,
          u_xShift: prev ? prev.layout.shift : x.layout.shift,
          u_y: y.texture,
          u_yShift: y.layout.shift,
          u_inTexels: inTexels,
          u_conj: conj && isComplex(dt) ? -1 : 1,
        });
        if (prev) this.giveTarget(prev.tex, prev.layout);
        prev = { tex, layout };
        inTexels = m;
      } while (inTexels > 1);
      const f = await this.readFloats(prev.tex, prev.layout, 4);
      return [joinDS(f[0], f[1]), joinDS(f[2], f[3])];
    } finally {
      if (prev && !this.contextLost) this.giveTarget(prev.tex, prev.layout);
    }
  }

  private checkVectors(where: string, x: GpuVector, xLen: number, xName: string, y: GpuVector, yLen: number): void {
    for (const v of [x, y]) {
      if (v.disposed) throw new DisposedError('GpuVector');
      if ((v as unknown as { owner: unknown }).owner !== this) throw new UnsupportedError(`${where}: a vector of another GpuBackend`);
    }
    if (x.length !== xLen) throw new ShapeError(`${where}: ${xName} has length ${x.length}, expected ${xLen}`);
    if (y.length !== yLen) throw new ShapeError(`${where}: y has length ${y.length}, expected ${yLen}`);
  }

  private checkSameDType(where: string, dt: DType, x: GpuVector, y: GpuVector): void {
    for (const v of [x, y]) if (v.dtype !== dt) throw new UnsupportedError(`${where}: a ${v.dtype} vector with ${dt} data (dtypes must match)`);
  }

  /** Runs a kernel into a fresh target of y's layout and swaps it into y. */
  private render(name: ProgramName, dt: DType, y: GpuVector, uniforms: Record<string, unknown>): void {
    const target = this.draw(name, dt, y.layout, y.length * floatsPerElement(dt), uniforms);
    this.giveTarget(y.swap(target), y.layout);
  }

  /** Runs a kernel into a fresh target of layout `out` (one draw per layer) and returns the target. */
  private draw(name: ProgramName, dt: DType, out: TileLayout, floats: number, uniforms: Record<string, unknown>): WebGLTexture {
    const pi = this.program(name, dt);
    const target = this.takeTarget(out);
    dense.drawLayers({ gl: this.gl, stats: this.stats, fbo: this.fbo, vao: this.vao }, pi, target, out, { ...uniforms, u_outShift: out.shift, u_outTexels: out.texels, u_n: floats });
    return target;
  }

  private program(name: ProgramName, dt: DType): twgl.ProgramInfo {
    const key = `${name}/${dt}`;
    let pi = this.programs.get(key);
    if (!pi) {
      const errors: string[] = [];
      const shaders = glslSources();
      const src = shaders[name];
      const nl = src.indexOf('\n') + 1;
      const frag = `${src.slice(0, nl)}#define DT_${dt.toUpperCase()}\n#define DIA_VEC4 ${this.diaVec4}\n${src.slice(nl)}`;
      pi = twgl.createProgramInfo(this.gl, [shaders.quad_vert, frag], (msg: string) => errors.push(msg)) ?? undefined;
      if (!pi) {
        if (this.gl.isContextLost()) throw new GpuContextLostError();
        throw new GpuUnavailableError(`compiling the ${name} shader for ${dt} failed: ${errors.join('\n') || 'no log'}`);
      }
      this.programs.set(key, pi);
    }
    return pi;
  }

  private takeTarget(l: TileLayout): WebGLTexture {
    return this.pool.get(layoutKey(l))?.pop() ?? createArrayTexture(this.gl, 'rgba32f', l, null);
  }

  private giveTarget(tex: WebGLTexture, l: TileLayout): void {
    const key = layoutKey(l);
    const list = this.pool.get(key) ?? [];
    if (list.length >= POOL_PER_LAYOUT) this.gl.deleteTexture(tex);
    else {
      list.push(tex);
      this.pool.set(key, list);
    }
  }

  // ---- dense matrices (dense.ts: layout, kernels, precision) -----------------------------------

  /** Uploads a row-major DenseMatrix (f32, c64, f64, c128) into the dense layout of dense.ts; resident until dispose(). */
  uploadDense(A: DenseMatrix): dense.GpuDense {
    return dense.uploadDense(this, A);
  }

  /** A zero rows × cols dense matrix of `dtype` on the GPU (a gemm / add / transpose target). */
  denseMatrix(dtype: DType, rows: number, cols: number): dense.GpuDense {
    return dense.denseMatrix(this, dtype, rows, cols);
  }

  /** The dense matrix back on the host (Float32Array values for f32/c64, Float64Array hi + lo for f64/c128). */
  readDense(A: dense.GpuDense): Promise<DenseMatrix> {
    return dense.readDense(this, A);
  }

  /** C = α·A·B + β·C (β = 0 by default: C is then not read); kernel 'tiled' (default) or 'naive'. */
  gemm(A: dense.GpuDense, B: dense.GpuDense, C: dense.GpuDense, opts: dense.GpuGemmOptions = {}): void {
    dense.gemm(this, A, B, C, opts);
  }

  /** C = α·A + β·B (α = β = 1 by default; a zero scalar means that operand is not read). */
  add(A: dense.GpuDense, B: dense.GpuDense, C: dense.GpuDense, opts: dense.GpuAddOptions = {}): void {
    dense.add(this, A, B, C, opts);
  }

  /** B = Aᵀ ({ conj: true }: Aᴴ for complex data). */
  transpose(A: dense.GpuDense, B: dense.GpuDense, opts: dense.GpuTransposeOptions = {}): void {
    dense.transpose(this, A, B, opts);
  }

  /** @internal what dense.ts runs on */
  get denseHost(): dense.DenseHost {
    const self = this;
    return {
      gl: this.gl,
      limits: this.limits,
      stats: this.stats,
      get fbo() { return self.fbo; },
      get vao() { return self.vao; },
      live: () => this.live(),
      readFloats: (tex, l, count) => this.readFloats(tex, l, count),
      countUpload: (bytes) => this.countUpload(bytes),
      addBytes: (bytes) => { this.bytesInUse += bytes; },
      onContextLost: (cb) => this.onContextLost(cb),
      onContextRestored: (cb) => this.onContextRestored(cb),
    };
  }

  // ---- read-back --------------------------------------------------------------------------------

  /**
   * The vector's values (components, interleaved when complex): Float32Array for f32/c64,
   * Float64Array (hi + lo) for f64/c128. Without stalling the thread where the context has fences:
   * readPixels into a pixel-pack buffer, a fenceSync, clientWaitSync polled with timeout 0 between
   * macrotasks, then getBufferSubData. Without fences: a plain readPixels. Rejects with
   * GpuContextLostError when the context is lost before the data is there.
   */
  async read(v: GpuVector): Promise<Float32Array | Float64Array> {
    this.live();
    if (v.disposed) throw new DisposedError('GpuVector');
    if (!this.caps.asyncReadback) return this.readSync(v);
    const version = v.version;
    const floats = await this.readFloats(v.texture, v.layout, v.length * floatsPerElement(v.dtype));
    this.updateShadow(v, floats, version);
    return decodeValues(v.dtype, floats, v.length * (isComplex(v.dtype) ? 2 : 1));
  }

  /** The vector's values through a plain (blocking) readPixels. */
  readSync(v: GpuVector): Float32Array | Float64Array {
    this.live();
    const gl = this.gl;
    const l = v.layout;
    const all = new Float32Array(l.width * l.height * l.layers * 4);
    const layerFloats = l.width * l.height * 4;
    this.forEachLayer(v.texture, l, (layer) => gl.readPixels(0, 0, l.width, l.height, gl.RGBA, gl.FLOAT, all, layer * layerFloats));
    this.stats.syncReadbacks++;
    const floats = all.subarray(0, v.length * floatsPerElement(v.dtype));
    this.updateShadow(v, floats, v.version);
    return decodeValues(v.dtype, floats.slice(), v.length * (isComplex(v.dtype) ? 2 : 1));
  }

  private updateShadow(v: GpuVector, floats: Float32Array, version: number): void {
    if (v.shadow && !v.disposed && v.version === version) {
      v.shadow.set(floats);
      v.shadowVersion = version;
    }
  }

  /** The first `count` floats of a texture, through a PBO and a fence. */
  private readFloats(tex: WebGLTexture, l: TileLayout, count: number): Promise<Float32Array> {
    const gl = this.gl;
    const layerBytes = l.width * l.height * 16;
    const pbo = gl.createBuffer()!;
    let sync: WebGLSync | null = null;
    const cleanup = () => {
      if (gl.isContextLost()) return; // the objects died with the context
      if (sync) gl.deleteSync(sync);
      gl.deleteBuffer(pbo);
    };
    try {
      gl.bindBuffer(gl.PIXEL_PACK_BUFFER, pbo);
      gl.bufferData(gl.PIXEL_PACK_BUFFER, layerBytes * l.layers, gl.STREAM_READ);
      this.forEachLayer(tex, l, (layer) => gl.readPixels(0, 0, l.width, l.height, gl.RGBA, gl.FLOAT, layer * layerBytes));
      gl.bindBuffer(gl.PIXEL_PACK_BUFFER, null);
      sync = gl.fenceSync(gl.SYNC_GPU_COMMANDS_COMPLETE, 0);
      if (!sync) throw this.contextLost ? new GpuContextLostError() : new GpuUnavailableError('fenceSync returned null');
      gl.flush();
    } catch (e) {
      cleanup();
      throw e;
    }
    const epoch = this.epoch;
    return new Promise<Float32Array>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const fail = (e: Error) => {
        clearTimeout(timer);
        this.pending.delete(fail);
        cleanup();
        reject(e);
      };
      this.pending.add(fail);
      const poll = () => {
        if (this.epoch !== epoch || this.contextLost) return fail(new GpuContextLostError('the WebGL2 context was lost while reading back'));
        if (this.disposed) return fail(new DisposedError('GpuBackend'));
        const r = gl.clientWaitSync(sync!, 0, 0);
        if (r === gl.WAIT_FAILED) {
          return fail(this.contextLost ? new GpuContextLostError() : new GpuUnavailableError('clientWaitSync failed while reading back'));
        }
        if (r !== gl.ALREADY_SIGNALED && r !== gl.CONDITION_SATISFIED && performance.now() - started < FENCE_PATIENCE_MS) {
          timer = setTimeout(poll, POLL_MS);
          return;
        }
        this.pending.delete(fail);
        const out = new Float32Array(count);
        gl.bindBuffer(gl.PIXEL_PACK_BUFFER, pbo);
        // texels are in linear order in the buffer: full-width rows, layers one after another
        if (count > 0) gl.getBufferSubData(gl.PIXEL_PACK_BUFFER, 0, out, 0, count);
        gl.bindBuffer(gl.PIXEL_PACK_BUFFER, null);
        cleanup();
        this.stats.asyncReadbacks++;
        resolve(out);
      };
      const started = performance.now();
      timer = setTimeout(poll, 0);
    });
  }

  private forEachLayer(tex: WebGLTexture, l: TileLayout, fn: (layer: number) => void): void {
    const gl = this.gl;
    gl.bindFramebuffer(gl.FRAMEBUFFER, this.fbo);
    gl.pixelStorei(gl.PACK_ALIGNMENT, 4);
    for (let layer = 0; layer < l.layers; layer++) {
      gl.framebufferTextureLayer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, tex, 0, layer);
      fn(layer);
    }
    gl.framebufferTextureLayer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, null, 0, 0);
  }

  // ---- context loss -----------------------------------------------------------------------------

  private readonly handleLost = (e: Event): void => {
    e.preventDefault(); // without this the browser never restores the context
    if (this.disposed) return;
    this.lost = true;
    this.lostReason = '';
    this.epoch++;
    this.stats.contextLosses++;
    const err = new GpuContextLostError('the WebGL2 context was lost while reading back');
    for (const fail of [...this.pending]) fail(err);
    // every GL object died with the context
    this.programs.clear();
    this.pool.clear();
    this.hooks.lost();
  };

  private readonly handleRestored = (): void => {
    if (this.disposed) return;
    try {
      this.rebuild();
    } catch (e) {
      this.lostReason = ` (restoring failed: ${(e as Error)?.message ?? String(e)})`;
      return;
    }
    this.lost = false;
    this.epoch++;
    this.stats.contextRestores++;
    this.hooks.restored();
  };

  /** After a restore: capabilities (extensions must be enabled again), GL objects, resident data. */
  private rebuild(): void {
    const gl = this.gl;
    const caps = probeCapabilities(gl);
    if (caps.reason !== null) throw new GpuUnavailableError(caps.reason);
    this.caps = caps;
    this.programs.clear();
    this.pool.clear();
    this.fbo = gl.createFramebuffer()!;
    this.vao = gl.createVertexArray()!;
    for (const r of [...this.residents]) {
      if (r instanceof GpuMatrix) {
        const data = this.buildMatrix(r.source.matrix, r.source.options as GpuUploadOptions);
        this.bytesInUse += data.bytes - r.bytes;
        r.restore(data);
      } else {
        const shadow = restorableShadow(r);
        const tex = createArrayTexture(gl, 'rgba32f', r.layout, shadow);
        if (shadow !== null) this.countUpload(shadow.byteLength);
        r.restore(tex, shadow === null);
      }
    }
  }

  // ---- lifetime ---------------------------------------------------------------------------------

  /** @internal GpuOwner */
  releaseTexture(tex: WebGLTexture): void {
    this.gl.deleteTexture(tex);
  }

  /** @internal GpuOwner */
  track(bytes: number, obj: GpuVector | GpuMatrix): void {
    this.bytesInUse += bytes;
    if (bytes >= 0) this.residents.add(obj);
    else this.residents.delete(obj);
  }

  private live(): void {
    if (this.disposed) throw new DisposedError('GpuBackend');
    if (this.lost || this.gl.isContextLost()) {
      throw new GpuContextLostError(`the WebGL2 context is lost; calls fail until it is restored${this.lostReason}`);
    }
  }

  /**
   * Frees every matrix and vector made here that is still alive, the programs, the ping-pong targets
   * and the framebuffer, and stops listening for context events. The context itself stays (it may
   * be the caller's).
   */
  dispose(): void {
    if (this.disposed) return;
    const gl = this.gl;
    dense.disposeDense(this);
    for (const r of [...this.residents]) r.dispose();
    for (const list of this.pool.values()) for (const t of list) gl.deleteTexture(t);
    this.pool.clear();
    for (const pi of this.programs.values()) gl.deleteProgram(pi.program);
    this.programs.clear();
    gl.deleteFramebuffer(this.fbo);
    gl.deleteVertexArray(this.vao);
    this.canvas?.removeEventListener('webglcontextlost', this.handleLost, false);
    this.canvas?.removeEventListener('webglcontextrestored', this.handleRestored, false);
    const err = new DisposedError('GpuBackend');
    for (const fail of [...this.pending]) fail(err);
    this.disposed = true;
  }
}

interface MadeTexture extends GpuTexture {
  readonly bytes: number;
}

function csrUniforms(p: GpuCSRRowPart): Record<string, unknown> {
  return {
    u_rowPtr: p.rowPtr.texture,
    u_rowPtrShift: p.rowPtr.layout.shift,
    u_colIdx: p.colIdx.texture,
    u_values: p.values.texture,
    u_entryShift: p.values.layout.shift,
  };
}

/** The slot arrays of ell_part.glsl (ELL, HYB's ELL part, SELL). */
function slotUniforms(p: { colIdx: GpuTexture; values: GpuTexture }): Record<string, unknown> {
  return {
    u_ellIdx: p.colIdx.texture,
    u_ellIdxShift: p.colIdx.layout.shift,
    u_ellVal: p.values.texture,
    u_ellValShift: p.values.layout.shift,
  };
}

function ellUniforms(p: GpuELLPart): Record<string, unknown> {
  return { ...slotUniforms(p), u_width: p.width, u_stride: p.stride };
}


function checkScalar(dtype: DType, im: number, name: string): void {
  if (im !== 0 && !isComplex(dtype)) throw new UnsupportedError(`GPU path: ${name} has imaginary part ${im}, but the data is ${dtype}`);
}

export { GpuContextLostError, GpuLimitError, GpuUnavailableError };
