/**
 * The GPU path: WebGL2 fragment shaders over float textures (the GPGPU style of the seeds).
 *
 * Data uploaded once stays resident (GpuMatrix, GpuVector); kernels render the output vector into a
 * float render target one layer per draw, into a second texture of the same layout that is then
 * swapped with the vector's (ping-pong: a texture cannot be sampled and rendered in one pass);
 * results come back only through read(). See encoding.ts for the texture layouts.
 *
 * The backend sets the GL state it needs before each draw (program, framebuffer, viewport, its own
 * empty vertex array, blend/depth/stencil/scissor/cull off); a caller sharing its own context must
 * restore its state afterwards.
 */
import * as twgl from 'twgl.js';
import type { DType, Scalar } from '../dtype.js';
import { DisposedError, ShapeError, UnsupportedError } from '../errors.js';
import type { Op } from '../backend-types.js';
import type { CSRMatrix, ELLMatrix } from '../formats/index.js';
import { acquireContext, probeCapabilities, type GpuCanvas, type GpuCapabilities } from './context.js';
import { createArrayTexture, layoutFor, layoutKey, layoutLimits, textureBytes, type LayoutLimits, type TexKind, type TileLayout } from './encoding.js';
import { GpuLimitError, GpuUnavailableError } from './errors.js';
import { GpuMatrix, GpuVector, type GpuOwner, type GpuTexture } from './resident.js';
import * as shaders from './shaders.generated.js';

export interface GpuBackendOptions {
  /** draw on this canvas (HTMLCanvasElement or OffscreenCanvas) */
  canvas?: GpuCanvas;
  /** or use this WebGL2 context */
  context?: WebGL2RenderingContext;
  /** lower the tile side below MAX_TEXTURE_SIZE (rounded down to a power of two): forces tiling, for tests */
  maxTextureSize?: number;
  /** lower the layer limit below MAX_ARRAY_TEXTURE_LAYERS, for tests */
  maxLayers?: number;
}

/** What GpuBackend.create returns when the GPU path cannot run here. */
export interface GpuUnavailable {
  readonly available: false;
  readonly reason: string;
  readonly capabilities: GpuCapabilities;
}

export interface GpuSpmvOptions {
  /** default 1 */
  alpha?: Scalar;
  /** default 0: y is then not read (it may hold NaN) */
  beta?: Scalar;
  /** only 'N' in this version */
  op?: Op;
}

/** Counters, for tests and the cost model. */
export interface GpuStats {
  /** texture uploads with data (matrices: 2–3 per upload; vectors from data: 1) */
  uploads: number;
  uploadBytes: number;
  /** draw calls (one per output layer per kernel) */
  draws: number;
  /** read() calls that went through a pixel-pack buffer and a fence */
  asyncReadbacks: number;
  /** reads through a plain readPixels (readSync, or read() without fences) */
  syncReadbacks: number;
}

type ProgramName = 'csr_row' | 'ell' | 'axpy' | 'aypx' | 'scal' | 'copy';

/** How often read() polls its fence (ms). */
const POLL_MS = 1;
/** Ping-pong targets kept per layout. */
const POOL_PER_LAYOUT = 2;

export class GpuBackend implements GpuOwner {
  readonly available = true as const;
  readonly stats: GpuStats = { uploads: 0, uploadBytes: 0, draws: 0, asyncReadbacks: 0, syncReadbacks: 0 };
  /** bytes of GPU textures held by live matrices and vectors */
  bytesInUse = 0;

  private readonly limits: LayoutLimits;
  private readonly programs = new Map<ProgramName, twgl.ProgramInfo>();
  private readonly pool = new Map<string, WebGLTexture[]>();
  /** live matrices and vectors, disposed with the backend */
  private readonly residents = new Set<GpuVector | GpuMatrix>();
  private readonly fbo: WebGLFramebuffer;
  private readonly vao: WebGLVertexArrayObject;
  private disposed = false;

  private constructor(
    readonly gl: WebGL2RenderingContext,
    private readonly caps: GpuCapabilities,
    opts: GpuBackendOptions,
  ) {
    this.limits = layoutLimits(caps.maxTextureSize, caps.maxArrayLayers, opts);
    this.fbo = gl.createFramebuffer()!;
    this.vao = gl.createVertexArray()!;
  }

  /**
   * A backend on the given canvas/context (or a new OffscreenCanvas), or `{ available: false, reason }`
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

  capabilities(): GpuCapabilities {
    return { ...this.caps };
  }

  /** The layout limits in use (after the maxTextureSize/maxLayers options). */
  get layoutLimits(): Readonly<LayoutLimits> {
    return this.limits;
  }

  // ---- resident data ----------------------------------------------------------------------------

  /** Uploads an f32 CSR or ELL matrix (validated first). Its textures stay resident until dispose(). */
  upload(matrix: CSRMatrix | ELLMatrix): GpuMatrix {
    this.live();
    if (matrix.format !== 'csr' && matrix.format !== 'ell') {
      throw new UnsupportedError(`GPU upload: format ${(matrix as { format: string }).format} is not supported yet (csr, ell)`);
    }
    checkDType(matrix.dtype, 'GPU upload');
    matrix.validate();
    const made: GpuTexture[] = [];
    try {
      if (matrix.format === 'csr') {
        const { rows, rowPtr, colIdx, values } = matrix;
        const nnz = colIdx.length;
        // rowPtr packed 4 per texel, one texel past the last output texel, padded with nnz
        const ptrTexels = Math.ceil(rows / 4) + 1;
        const ptr = new Int32Array(4 * ptrTexels).fill(nnz);
        ptr.set(rowPtr);
        const rp = this.texture('rgba32i', ptrTexels, ptr, 'CSR rowPtr', made);
        const ci = this.texture('r32i', nnz, colIdx, 'CSR colIdx', made);
        const va = this.texture('r32f', nnz, values as Float32Array, 'CSR values', made);
        const bytes = textureBytes('rgba32i', rp.layout) + textureBytes('r32i', ci.layout) + textureBytes('r32f', va.layout);
        return new GpuMatrix(this, 'f32', rows, matrix.cols, nnz, { format: 'csr', rowPtr: rp, colIdx: ci, values: va }, bytes);
      }
      const { rows, width, stride, colIdx, values } = matrix;
      const texels = (width * stride) / 4; // stride is a multiple of 4 (validated)
      const ci = this.texture('rgba32i', texels, colIdx, 'ELL colIdx', made);
      const va = this.texture('rgba32f', texels, values as Float32Array, 'ELL values', made);
      const bytes = textureBytes('rgba32i', ci.layout) + textureBytes('rgba32f', va.layout);
      return new GpuMatrix(this, 'f32', rows, matrix.cols, matrix.nnz, { format: 'ell', width, stride, colIdx: ci, values: va }, bytes);
    } catch (e) {
      for (const t of made) this.gl.deleteTexture(t.texture);
      throw e;
    }
  }

  /**
   * A resident f32 vector: from data (rounded to f32, uploaded once) or zero-filled of a length (no
   * upload: WebGL zero-initialises textures).
   */
  vector(dtype: DType, data: ArrayLike<number> | number): GpuVector {
    this.live();
    checkDType(dtype, 'GPU vector');
    const length = typeof data === 'number' ? data : data.length;
    if (!Number.isInteger(length) || length < 0) throw new ShapeError(`GPU vector: length ${length} must be a nonnegative integer`);
    const layout = layoutFor(Math.ceil(length / 4), this.limits, `a vector of ${length} elements`);
    let values: Float32Array | null = null;
    if (typeof data !== 'number') values = data instanceof Float32Array ? data : Float32Array.from(data);
    const tex = createArrayTexture(this.gl, 'rgba32f', layout, values);
    if (values) this.countUpload(values.byteLength);
    return new GpuVector(this, dtype, length, layout, tex, textureBytes('rgba32f', layout));
  }

  private texture(kind: TexKind, texels: number, data: Float32Array | Int32Array, what: string, made: GpuTexture[]): GpuTexture {
    const layout = layoutFor(texels, this.limits, what);
    const t = { texture: createArrayTexture(this.gl, kind, layout, data), layout };
    made.push(t);
    this.countUpload(data.byteLength);
    return t;
  }

  private countUpload(bytes: number): void {
    this.stats.uploads++;
    this.stats.uploadBytes += bytes;
  }

  // ---- kernels ----------------------------------------------------------------------------------

  /** y = α·A·x + β·y on resident data (renders into y). x may be y itself. */
  spmv(M: GpuMatrix, x: GpuVector, y: GpuVector, opts: GpuSpmvOptions = {}): void {
    this.live();
    const op = opts.op ?? 'N';
    if (op !== 'N') throw new UnsupportedError(`GPU spmv: op ${JSON.stringify(op)} is not supported yet (only 'N')`);
    const d = M.data;
    if ((M as unknown as { owner: unknown }).owner !== this) throw new UnsupportedError('GPU spmv: a matrix of another GpuBackend');
    this.checkVectors('GPU spmv', x, M.cols, 'x', y, M.rows);
    const alpha = realScalar(opts.alpha ?? 1, 'alpha');
    const beta = realScalar(opts.beta ?? 0, 'beta');
    const common = {
      u_x: x.texture,
      u_xShift: x.layout.shift,
      u_y: y.texture,
      u_yShift: y.layout.shift,
      u_alpha: alpha,
      u_beta: beta,
    };
    if (d.format === 'csr') {
      this.render('csr_row', y, {
        ...common,
        u_rowPtr: d.rowPtr.texture,
        u_rowPtrShift: d.rowPtr.layout.shift,
        u_colIdx: d.colIdx.texture,
        u_values: d.values.texture,
        u_entryShift: d.values.layout.shift,
      });
    } else {
      this.render('ell', y, {
        ...common,
        u_colIdx: d.colIdx.texture,
        u_values: d.values.texture,
        u_slotShift: d.values.layout.shift,
        u_width: d.width,
        u_stride4: d.stride / 4,
      });
    }
  }

  /** y ← α·x + y */
  axpy(alpha: number, x: GpuVector, y: GpuVector): void {
    this.live();
    this.checkVectors('GPU axpy', x, y.length, 'x', y, y.length);
    this.render('axpy', y, { u_x: x.texture, u_xShift: x.layout.shift, u_y: y.texture, u_yShift: y.layout.shift, u_alpha: realScalar(alpha, 'alpha') });
  }

  /** y ← α·y + x */
  aypx(alpha: number, x: GpuVector, y: GpuVector): void {
    this.live();
    this.checkVectors('GPU aypx', x, y.length, 'x', y, y.length);
    this.render('aypx', y, { u_x: x.texture, u_xShift: x.layout.shift, u_y: y.texture, u_yShift: y.layout.shift, u_alpha: realScalar(alpha, 'alpha') });
  }

  /** y ← α·y */
  scal(alpha: number, y: GpuVector): void {
    this.live();
    this.checkVectors('GPU scal', y, y.length, 'y', y, y.length);
    this.render('scal', y, { u_y: y.texture, u_yShift: y.layout.shift, u_alpha: realScalar(alpha, 'alpha') });
  }

  /** y ← x */
  copy(x: GpuVector, y: GpuVector): void {
    this.live();
    this.checkVectors('GPU copy', x, y.length, 'x', y, y.length);
    this.render('copy', y, { u_x: x.texture, u_xShift: x.layout.shift });
  }

  private checkVectors(where: string, x: GpuVector, xLen: number, xName: string, y: GpuVector, yLen: number): void {
    for (const v of [x, y]) {
      if (v.disposed) throw new DisposedError('GpuVector');
      if ((v as unknown as { owner: unknown }).owner !== this) throw new UnsupportedError(`${where}: a vector of another GpuBackend`);
    }
    if (x.length !== xLen) throw new ShapeError(`${where}: ${xName} has length ${x.length}, expected ${xLen}`);
    if (y.length !== yLen) throw new ShapeError(`${where}: y has length ${y.length}, expected ${yLen}`);
  }

  /** Runs a kernel into a fresh target of y's layout, one draw per layer, then swaps it into y. */
  private render(name: ProgramName, y: GpuVector, uniforms: Record<string, unknown>): void {
    const gl = this.gl;
    const out = y.layout;
    const target = this.takeTarget(out);
    const pi = this.program(name);
    gl.useProgram(pi.program);
    gl.bindVertexArray(this.vao);
    gl.bindFramebuffer(gl.FRAMEBUFFER, this.fbo);
    for (const cap of [gl.BLEND, gl.DEPTH_TEST, gl.STENCIL_TEST, gl.SCISSOR_TEST, gl.CULL_FACE, gl.RASTERIZER_DISCARD, gl.DITHER]) gl.disable(cap);
    gl.colorMask(true, true, true, true);
    twgl.setUniforms(pi, { ...uniforms, u_outShift: out.shift, u_outTexels: out.texels, u_n: y.length });
    for (let layer = 0; layer < out.layers; layer++) {
      gl.framebufferTextureLayer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, target, 0, layer);
      twgl.setUniforms(pi, { u_outLayer: layer });
      gl.viewport(0, 0, out.width, out.height);
      gl.drawArrays(gl.TRIANGLES, 0, 3);
      this.stats.draws++;
    }
    gl.framebufferTextureLayer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, null, 0, 0);
    this.giveTarget(y.swap(target), out);
  }

  private program(name: ProgramName): twgl.ProgramInfo {
    let pi = this.programs.get(name);
    if (!pi) {
      const errors: string[] = [];
      pi = twgl.createProgramInfo(this.gl, [shaders.quad_vert, shaders[name]], (msg: string) => errors.push(msg)) ?? undefined;
      if (!pi) throw new GpuUnavailableError(`compiling the ${name} shader failed: ${errors.join('\n') || 'no log'}`);
      this.programs.set(name, pi);
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

  // ---- read-back --------------------------------------------------------------------------------

  /**
   * The vector's values, without stalling the thread where the context has fences: readPixels into a
   * pixel-pack buffer, a fenceSync, clientWaitSync polled with timeout 0 between macrotasks, then
   * getBufferSubData. Without fences: a plain readPixels.
   */
  async read(v: GpuVector): Promise<Float32Array> {
    this.live();
    const gl = this.gl;
    if (!this.caps.asyncReadback) return this.readSync(v);
    const l = v.layout;
    const layerBytes = l.width * l.height * 16;
    const pbo = gl.createBuffer()!;
    let sync: WebGLSync | null = null;
    try {
      gl.bindBuffer(gl.PIXEL_PACK_BUFFER, pbo);
      gl.bufferData(gl.PIXEL_PACK_BUFFER, layerBytes * l.layers, gl.STREAM_READ);
      this.forEachLayer(v, (layer) => gl.readPixels(0, 0, l.width, l.height, gl.RGBA, gl.FLOAT, layer * layerBytes));
      gl.bindBuffer(gl.PIXEL_PACK_BUFFER, null);
      sync = gl.fenceSync(gl.SYNC_GPU_COMMANDS_COMPLETE, 0);
      if (!sync) throw new GpuUnavailableError('fenceSync returned null (context lost?)');
      gl.flush();
      for (;;) {
        const r = gl.clientWaitSync(sync, 0, 0);
        if (r === gl.ALREADY_SIGNALED || r === gl.CONDITION_SATISFIED) break;
        if (r === gl.WAIT_FAILED) throw new GpuUnavailableError('clientWaitSync failed while reading a vector back (context lost?)');
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
        if (this.disposed) throw new DisposedError('GpuBackend');
      }
      const out = new Float32Array(v.length);
      gl.bindBuffer(gl.PIXEL_PACK_BUFFER, pbo);
      // texels are in linear order in the buffer: full-width rows, layers one after another
      if (v.length > 0) gl.getBufferSubData(gl.PIXEL_PACK_BUFFER, 0, out, 0, v.length);
      gl.bindBuffer(gl.PIXEL_PACK_BUFFER, null);
      this.stats.asyncReadbacks++;
      return out;
    } finally {
      if (sync) gl.deleteSync(sync);
      gl.deleteBuffer(pbo);
    }
  }

  /** The vector's values through a plain (blocking) readPixels. */
  readSync(v: GpuVector): Float32Array {
    this.live();
    const gl = this.gl;
    const l = v.layout;
    const all = new Float32Array(l.width * l.height * l.layers * 4);
    const layerFloats = l.width * l.height * 4;
    this.forEachLayer(v, (layer) => gl.readPixels(0, 0, l.width, l.height, gl.RGBA, gl.FLOAT, all, layer * layerFloats));
    this.stats.syncReadbacks++;
    return all.slice(0, v.length);
  }

  private forEachLayer(v: GpuVector, fn: (layer: number) => void): void {
    const gl = this.gl;
    gl.bindFramebuffer(gl.FRAMEBUFFER, this.fbo);
    gl.pixelStorei(gl.PACK_ALIGNMENT, 4);
    for (let layer = 0; layer < v.layout.layers; layer++) {
      gl.framebufferTextureLayer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, v.texture, 0, layer);
      fn(layer);
    }
    gl.framebufferTextureLayer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, null, 0, 0);
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
    if (this.gl.isContextLost()) throw new GpuUnavailableError('the WebGL2 context is lost; create a new GpuBackend');
  }

  /**
   * Frees every matrix and vector made here that is still alive, the programs, the ping-pong targets
   * and the framebuffer. The context itself stays (it may be the caller's).
   */
  dispose(): void {
    if (this.disposed) return;
    const gl = this.gl;
    for (const r of [...this.residents]) r.dispose();
    for (const list of this.pool.values()) for (const t of list) gl.deleteTexture(t);
    this.pool.clear();
    for (const pi of this.programs.values()) gl.deleteProgram(pi.program);
    this.programs.clear();
    gl.deleteFramebuffer(this.fbo);
    gl.deleteVertexArray(this.vao);
    this.disposed = true;
  }
}

function checkDType(dtype: DType, where: string): void {
  if (dtype !== 'f32') {
    throw new UnsupportedError(
      `${where}: dtype ${dtype} is not supported on the GPU path yet (f32 only; c64 and f64 as double-single come next)`,
    );
  }
}

function realScalar(s: Scalar, name: string): number {
  if (typeof s === 'number') return s;
  if (s[1] !== 0) throw new UnsupportedError(`GPU path: ${name} = [${s[0]}, ${s[1]}] is complex; the matrix is real`);
  return s[0];
}

export { GpuLimitError, GpuUnavailableError };
