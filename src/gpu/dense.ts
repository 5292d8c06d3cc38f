/**
 * Dense matrices on the GPU path: resident row-major matrices and the kernels gemm, add, transpose
 * (the dense operations of seeds 003/004, as WebGL2 fragment shaders; glsl/gemm*.glsl, add.glsl,
 * transpose.glsl). GpuBackend's uploadDense / denseMatrix / readDense / gemm / add / transpose delegate
 * here.
 *
 * Layout (glsl/gemm_common.glsl). A GpuDense is one RGBA32F TEXTURE_2D_ARRAY. Row i of the matrix is
 * a row of ⌈cols / EPT⌉ texels, and texel c of it holds the EPT consecutive elements
 * EPT·c … EPT·c + EPT − 1 of that row in the dtype's packing (encoding.ts / dtype.glsl):
 *   f32   4 elements per texel (v0, v1, v2, v3)
 *   c64   2 elements           (re0, im0, re1, im1)
 *   f64   2 elements           (hi0, lo0, hi1, lo1), double-single: hi = fround(v), lo = fround(v − hi)
 *   c128  1 element            (re hi, re lo, im hi, im lo)
 * Slots past the last column are 0 (every kernel writes them 0 by selection, so NaN never gets there).
 * Rows run down a layer; a matrix with more rows than the tile side S (the largest power of two ≤
 * MAX_TEXTURE_SIZE, or the backend's maxTextureSize option) continues in the next layer: row i at
 * (c, i mod S, ⌊i / S⌋). Limits: ⌈cols / EPT⌉ ≤ S (32,768 f32 columns at S = 8192) and
 * ⌈rows / S⌉ ≤ MAX_ARRAY_TEXTURE_LAYERS; past them GpuLimitError. Read-back returns the rows in order,
 * so a readPixels of the layers is row-major with ⌈cols / EPT⌉·4 floats per row.
 *
 * Kernels. gemm 'tiled' (default): one fragment per output texel = a 1×EPT block of C (1×4 for f32);
 * per A texel (EPT values of k) it fetches EPT texels of B and does EPT² multiply-adds (f32: 5 fetches
 * per 16 products), k in unrolled blocks of 4 A texels; the shared-memory tiles of the CUDA/OpenCL
 * kernels become blocks of fetches that neighbouring fragments share through the texture cache.
 * The accumulators are plain vec4 variables, never arrays: SwiftShader keeps a dynamically indexed
 * array in memory, and the array version of the f32 kernel measured 7× slower.
 * gemm 'naive': one output element per fragment (element-per-texel target, then gemm_pack packs it
 * into C), a k loop of scalar fetches (two per product); kept for the naive-vs-tiled figure.
 * Measured (browser suite, f32 n = 512, Chromium on SwiftShader, a software rasteriser): naive
 * 1420 ms (0.19 GFLOP/s), tiled 165 ms (1.6 GFLOP/s), 8.6× — the ratio seed 004 reports for
 * shared-memory tiling at n = 512 is 17–36×; on a real GPU the figure will differ.
 * add: C = α·A + β·B, one fragment per texel. transpose: B = Aᵀ (or Aᴴ) as a gather, each output
 * element fetched from its own source position.
 *
 * Results are rendered into a fresh target and then swapped in (a texture cannot be read and written
 * in one pass), so C may be A or B (gemm(A, A, A) on a square A is fine).
 *
 * Precision: f32 and c64 accumulate in f32 (k products in order): |err| ≤ 4·(k + 4)·2^-24·Σ|a||b|
 * componentwise (plus the same for the α/β step), as the SpMV kernels; f64 and c128 use double-single
 * arithmetic throughout (about 48 bits; the browser suite asserts |err| ≤ 1e-12 of the scale
 * |α|·Σ|a||b| + |β|·|c|; measured worst 1.7e-14, k up to 1000). f32 measured worst 0.14 of its bound.
 *
 * Context loss: the textures die with the context. On restore every live GpuDense gets a new texture:
 * the host DenseMatrix it was uploaded from again when it has not been written since (it keeps a
 * reference: do not modify that matrix while the GpuDense lives), zeros with contentsLost = true
 * otherwise.
 */
import * as twgl from 'twgl.js';
import { assertDType, isComplex, toComplex, type DType, type Scalar } from '../dtype.js';
import { DisposedError, ShapeError, UnsupportedError } from '../errors.js';
import { DenseMatrix } from '../formats/dense.js';
import { createArrayTexture, decodeValues, encodeScalar, encodeValues, floatsPerElement, isZeroScalar, type LayoutLimits, type TileLayout } from './encoding.js';
import { GpuLimitError, GpuUnavailableError } from './errors.js';
import { glslSources } from './shader-source.js';
import { shownValue } from '../shown-value.js';

/** @internal what the dense kernels need from their GpuBackend (GpuBackend.denseHost) */
export interface DenseHost {
  readonly gl: WebGL2RenderingContext;
  readonly limits: LayoutLimits;
  readonly stats: { draws: number };
  /** the backend's framebuffer and vertex array (they change on a context restore) */
  readonly fbo: WebGLFramebuffer;
  readonly vao: WebGLVertexArrayObject;
  /** throws DisposedError / GpuContextLostError when the backend cannot run */
  live(): void;
  readFloats(tex: WebGLTexture, l: TileLayout, count: number): Promise<Float32Array>;
  countUpload(bytes: number): void;
  addBytes(bytes: number): void;
  onContextLost(cb: () => void): () => void;
  onContextRestored(cb: () => void): () => void;
}

/** Something that hands out its DenseHost (GpuBackend). */
export interface DenseOwner {
  /** @internal */
  readonly denseHost: DenseHost;
}

/** Where a dense matrix's texels are (see the file comment); a TileLayout for the read-back. */
export interface DenseLayout extends TileLayout {
  /** log2 of the rows per layer (the tile side), the same for every dense matrix of a backend */
  readonly rowShift: number;
}

export interface GpuGemmOptions {
  /** default 1 ([re, im] for complex dtypes) */
  alpha?: Scalar;
  /** default 0: C is then not read (it may hold NaN) */
  beta?: Scalar;
  /** 'tiled' (default): 1×EPT block per fragment; 'naive': one element per fragment, scalar fetches */
  kernel?: 'tiled' | 'naive';
}

export interface GpuAddOptions {
  /** default 1; 0 means A is not read */
  alpha?: Scalar;
  /** default 1; 0 means B is not read */
  beta?: Scalar;
}

export interface GpuTransposeOptions {
  /** B = Aᴴ (conjugate transpose) for complex dtypes; ignored for real ones */
  conj?: boolean;
}

type DenseProgram = 'gemm' | 'gemm_naive' | 'gemm_pack' | 'add' | 'transpose';

const DS_SPLIT = 8193;
const POOL_PER_LAYOUT = 2;

/** The programs are typed structurally here so the published declarations need no twgl.js types. */
interface DenseState {
  readonly host: DenseHost;
  readonly programs: Map<string, { program: WebGLProgram }>;
  readonly pool: Map<string, WebGLTexture[]>;
  readonly live: Set<GpuDense>;
  readonly unsubscribe: (() => void)[];
}

const states = new WeakMap<DenseOwner, DenseState>();

function stateOf(owner: DenseOwner): DenseState {
  let st = states.get(owner);
  if (!st) {
    const host = owner.denseHost;
    const s: DenseState = { host, programs: new Map(), pool: new Map(), live: new Set(), unsubscribe: [] };
    s.unsubscribe.push(
      host.onContextLost(() => {
        // every GL object died with the context
        s.programs.clear();
        s.pool.clear();
      }),
      host.onContextRestored(() => {
        for (const d of [...s.live]) d.restoreAfterLoss();
      }),
    );
    states.set(owner, s);
    st = s;
  }
  return st;
}

/** Elements per RGBA32F texel. */
export function elementsPerTexel(dtype: DType): 1 | 2 | 4 {
  return (4 / floatsPerElement(dtype)) as 1 | 2 | 4;
}

/** The layout of a rows × cols matrix of `perTexel` elements per texel; GpuLimitError past the limits. */
export function denseLayout(limits: LayoutLimits, rows: number, cols: number, perTexel: number, what: string): DenseLayout {
  const side = 2 ** limits.maxShift;
  const width = Math.max(1, Math.ceil(cols / perTexel));
  if (width > side) {
    throw new GpuLimitError(`${what} needs rows of ${width} texels, over the GPU limit of ${side} (${side * perTexel} columns at ${perTexel} per texel)`);
  }
  const height = Math.max(1, Math.min(rows, side));
  const layers = Math.max(1, Math.ceil(rows / side));
  if (layers > limits.maxLayers) {
    throw new GpuLimitError(`${what} needs ${layers} layers of ${side} rows, over the GPU limit of ${limits.maxLayers} layers`);
  }
  return { texels: width * height * layers, shift: limits.maxShift, width, height, layers, rowShift: limits.maxShift };
}

function layoutKey(l: DenseLayout): string {
  return `${l.width}/${l.height}/${l.layers}`;
}

/**
 * A dense matrix resident on the GPU (layout: see the file comment). Kernels that write it render into
 * a second texture and swap, so hold the GpuDense, not its texture.
 */
export class GpuDense {
  #texture: WebGLTexture | null;
  /** @internal bumped by every kernel that writes the matrix */
  version = 0;
  /** true after a context restore that could not bring the contents back (they are zero now) */
  contentsLost = false;

  /** @internal made by GpuBackend.uploadDense / denseMatrix */
  constructor(
    private readonly state: DenseState,
    readonly dtype: DType,
    readonly rows: number,
    readonly cols: number,
    readonly layout: DenseLayout,
    texture: WebGLTexture,
    /** @internal the host matrix it was uploaded from (re-uploaded after a context restore while version is 0) */
    readonly source: DenseMatrix | null,
  ) {
    this.#texture = texture;
    state.live.add(this);
    state.host.addBytes(this.bytes);
  }

  /** bytes of GPU texture memory (padding included) */
  get bytes(): number {
    return this.layout.width * this.layout.height * this.layout.layers * 16;
  }

  /** @internal */
  get owner(): DenseHost {
    return this.state.host;
  }

  /** @internal the current texture */
  get texture(): WebGLTexture {
    if (this.#texture === null) throw new DisposedError('GpuDense');
    return this.#texture;
  }

  /** @internal swaps in the texture just rendered; returns the previous one */
  swap(next: WebGLTexture): WebGLTexture {
    const prev = this.texture;
    this.#texture = next;
    this.version++;
    return prev;
  }

  /** @internal after a context restore: a new texture, from the source while it is unchanged */
  restoreAfterLoss(): void {
    if (this.#texture === null) return;
    const keep = this.source !== null && this.version === 0;
    const data = keep ? encodeDense(this.source!, this.layout) : null;
    this.#texture = createArrayTexture(this.state.host.gl, 'rgba32f', this.layout, data);
    if (data) this.state.host.countUpload(data.byteLength);
    this.contentsLost = !keep;
  }

  get disposed(): boolean {
    return this.#texture === null;
  }

  dispose(): void {
    if (this.#texture === null) return;
    this.state.host.gl.deleteTexture(this.#texture);
    this.#texture = null;
    this.state.live.delete(this);
    this.state.host.addBytes(-this.bytes);
  }
}

/** The float stream of a host matrix in the dense layout (rows padded to whole texels). */
function encodeDense(A: DenseMatrix, l: DenseLayout): Float32Array {
  const floats = encodeValues(A.dtype, A.values);
  const used = A.cols * floatsPerElement(A.dtype);
  const rowFloats = l.width * 4;
  if (used === rowFloats || A.rows === 0) return floats;
  const out = new Float32Array(A.rows * rowFloats);
  for (let i = 0; i < A.rows; i++) out.set(floats.subarray(i * used, (i + 1) * used), i * rowFloats);
  return out;
}


function checkShape(rows: number, cols: number, where: string): void {
  for (const [n, v] of [['rows', rows], ['cols', cols]] as const) {
    if (!Number.isInteger(v) || v < 0) throw new ShapeError(`${where}: ${n} = ${v} must be a nonnegative integer`);
  }
}

/** Uploads a host DenseMatrix (f32, c64, f64 or c128); it stays resident until dispose(). */
export function uploadDense(owner: DenseOwner, A: DenseMatrix): GpuDense {
  const st = stateOf(owner);
  st.host.live();
  if (!(A instanceof DenseMatrix) && (A as { format?: unknown })?.format !== 'dense') {
    throw new UnsupportedError(`GPU uploadDense: expected a DenseMatrix, got format ${shownValue((A as { format?: unknown })?.format)}`);
  }
  assertDType(A.dtype, 'GPU uploadDense');
  A.validate();
  const layout = denseLayout(st.host.limits, A.rows, A.cols, elementsPerTexel(A.dtype), `a dense ${A.rows}×${A.cols} ${A.dtype} matrix`);
  const data = encodeDense(A, layout);
  const tex = createArrayTexture(st.host.gl, 'rgba32f', layout, data);
  st.host.countUpload(data.byteLength);
  return new GpuDense(st, A.dtype, A.rows, A.cols, layout, tex, A);
}

/** A zero rows × cols matrix of `dtype` on the GPU (no upload: WebGL zero-initialises textures). */
export function denseMatrix(owner: DenseOwner, dtype: DType, rows: number, cols: number): GpuDense {
  const st = stateOf(owner);
  st.host.live();
  assertDType(dtype, 'GPU denseMatrix');
  checkShape(rows, cols, 'GPU denseMatrix');
  const layout = denseLayout(st.host.limits, rows, cols, elementsPerTexel(dtype), `a dense ${rows}×${cols} ${dtype} matrix`);
  return new GpuDense(st, dtype, rows, cols, layout, createArrayTexture(st.host.gl, 'rgba32f', layout, null), null);
}

/** The matrix back on the host: Float32Array values for f32/c64, Float64Array (hi + lo) for f64/c128. */
export async function readDense(owner: DenseOwner, A: GpuDense): Promise<DenseMatrix> {
  const st = stateOf(owner);
  st.host.live();
  own(st, 'GPU readDense', A);
  const { rows, cols, dtype, layout } = A;
  const rowFloats = layout.width * 4;
  const floats = await st.host.readFloats(A.texture, layout, rows * rowFloats);
  const used = cols * floatsPerElement(dtype);
  let compact = floats;
  if (used !== rowFloats) {
    compact = new Float32Array(rows * used);
    for (let i = 0; i < rows; i++) compact.set(floats.subarray(i * rowFloats, i * rowFloats + used), i * used);
  }
  const values = decodeValues(dtype, compact, rows * cols * (isComplex(dtype) ? 2 : 1));
  return new DenseMatrix(rows, cols, dtype, values);
}

/** C = α·A·B + β·C (any shapes with A.cols = B.rows, C = A.rows × B.cols; one dtype). */
export function gemm(owner: DenseOwner, A: GpuDense, B: GpuDense, C: GpuDense, opts: GpuGemmOptions = {}): void {
  const st = stateOf(owner);
  st.host.live();
  own(st, 'GPU gemm', A, B, C);
  sameDType('GPU gemm', A, B, C);
  if (A.cols !== B.rows) throw new ShapeError(`GPU gemm: A is ${A.rows}×${A.cols} and B is ${B.rows}×${B.cols} (A.cols must equal B.rows)`);
  if (C.rows !== A.rows || C.cols !== B.cols) throw new ShapeError(`GPU gemm: C is ${C.rows}×${C.cols}, expected ${A.rows}×${B.cols}`);
  const kernel = opts.kernel ?? 'tiled';
  if (kernel !== 'tiled' && kernel !== 'naive') throw new UnsupportedError(`GPU gemm: kernel ${shownValue(kernel)} is not 'tiled' or 'naive'`);
  const dt = C.dtype;
  const [ar, ai] = toComplex(opts.alpha ?? 1);
  const [br, bi] = toComplex(opts.beta ?? 0);
  checkScalar(dt, ai, 'alpha');
  checkScalar(dt, bi, 'beta');
  const uniforms = {
    u_a: A.texture,
    u_b: B.texture,
    u_c: C.texture,
    u_k: A.cols,
    u_alpha: encodeScalar(dt, ar, ai),
    u_beta: encodeScalar(dt, br, bi),
    u_useBeta: isZeroScalar(dt, br, bi) ? 0 : 1,
  };
  if (kernel === 'tiled') {
    render(st, C, draw(st, 'gemm', dt, C.layout, C.rows, C.cols, uniforms));
    return;
  }
  const el = denseLayout(st.host.limits, C.rows, C.cols, 1, `the naive gemm target (${C.rows}×${C.cols}, one element per texel)`);
  const tmp = draw(st, 'gemm_naive', dt, el, C.rows, C.cols, uniforms);
  try {
    render(st, C, draw(st, 'gemm_pack', dt, C.layout, C.rows, C.cols, { u_src: tmp }));
  } finally {
    giveTarget(st, tmp, el);
  }
}

/** C = α·A + β·B (one shape, one dtype). A zero α (β) means A (B) is not read. */
export function add(owner: DenseOwner, A: GpuDense, B: GpuDense, C: GpuDense, opts: GpuAddOptions = {}): void {
  const st = stateOf(owner);
  st.host.live();
  own(st, 'GPU add', A, B, C);
  sameDType('GPU add', A, B, C);
  for (const [n, M] of [['B', B], ['C', C]] as const) {
    if (M.rows !== A.rows || M.cols !== A.cols) throw new ShapeError(`GPU add: ${n} is ${M.rows}×${M.cols}, A is ${A.rows}×${A.cols} (shapes must match)`);
  }
  const dt = C.dtype;
  const [ar, ai] = toComplex(opts.alpha ?? 1);
  const [br, bi] = toComplex(opts.beta ?? 1);
  checkScalar(dt, ai, 'alpha');
  checkScalar(dt, bi, 'beta');
  render(st, C, draw(st, 'add', dt, C.layout, C.rows, C.cols, {
    u_a: A.texture,
    u_b: B.texture,
    u_alpha: encodeScalar(dt, ar, ai),
    u_beta: encodeScalar(dt, br, bi),
    u_useA: isZeroScalar(dt, ar, ai) ? 0 : 1,
    u_useB: isZeroScalar(dt, br, bi) ? 0 : 1,
  }));
}

/** B = Aᵀ (Aᴴ with { conj: true } on complex data); B must be A.cols × A.rows. */
export function transpose(owner: DenseOwner, A: GpuDense, B: GpuDense, opts: GpuTransposeOptions = {}): void {
  const st = stateOf(owner);
  st.host.live();
  own(st, 'GPU transpose', A, B);
  sameDType('GPU transpose', A, B);
  if (B.rows !== A.cols || B.cols !== A.rows) throw new ShapeError(`GPU transpose: B is ${B.rows}×${B.cols}, expected ${A.cols}×${A.rows}`);
  const dt = B.dtype;
  render(st, B, draw(st, 'transpose', dt, B.layout, B.rows, B.cols, { u_a: A.texture, u_conj: opts.conj && isComplex(dt) ? -1 : 1 }));
}

/** Frees every live GpuDense, the programs and pooled targets of this owner (GpuBackend.dispose). */
export function disposeDense(owner: DenseOwner): void {
  const st = states.get(owner);
  if (!st) return;
  for (const d of [...st.live]) d.dispose();
  const gl = st.host.gl;
  for (const list of st.pool.values()) for (const t of list) gl.deleteTexture(t);
  for (const pi of st.programs.values()) gl.deleteProgram(pi.program);
  st.pool.clear();
  st.programs.clear();
  for (const u of st.unsubscribe) u();
  states.delete(owner);
}

function own(st: DenseState, where: string, ...ms: GpuDense[]): void {
  for (const m of ms) {
    if (!(m instanceof GpuDense)) throw new UnsupportedError(`${where}: expected a GpuDense (GpuBackend.uploadDense / denseMatrix)`);
    if (m.disposed) throw new DisposedError('GpuDense');
    if (m.owner !== st.host) throw new UnsupportedError(`${where}: a dense matrix of another GpuBackend`);
  }
}

function sameDType(where: string, ...ms: GpuDense[]): void {
  for (const m of ms) if (m.dtype !== ms[0].dtype) throw new UnsupportedError(`${where}: a ${m.dtype} matrix with ${ms[0].dtype} data (dtypes must match)`);
}

function checkScalar(dtype: DType, im: number, name: string): void {
  if (im !== 0 && !isComplex(dtype)) throw new UnsupportedError(`GPU path: ${name} has imaginary part ${im}, but the data is ${dtype}`);
}

/** Swaps a freshly rendered target into M and pools M's previous texture. */
function render(st: DenseState, M: GpuDense, target: WebGLTexture): void {
  giveTarget(st, M.swap(target), M.layout);
}

/**
 * @internal Draws program pi into `target`, one draw per layer of `out` (blending, depth and the like
 * off; the double-single uniforms' defaults first): the backend's kernels and the dense ones alike.
 */
export function drawLayers(host: Pick<DenseHost, 'gl' | 'stats' | 'fbo' | 'vao'>, program: { program: WebGLProgram }, target: WebGLTexture, out: TileLayout, uniforms: Record<string, unknown>): void {
  // (typed structurally, as DenseState's programs: the published declarations need no twgl.js types)
  const pi = program as twgl.ProgramInfo;
  const gl = host.gl;
  gl.useProgram(pi.program);
  gl.bindVertexArray(host.vao);
  gl.bindFramebuffer(gl.FRAMEBUFFER, host.fbo);
  for (const cap of [gl.BLEND, gl.DEPTH_TEST, gl.STENCIL_TEST, gl.SCISSOR_TEST, gl.CULL_FACE, gl.RASTERIZER_DISCARD, gl.DITHER]) gl.disable(cap);
  gl.colorMask(true, true, true, true);
  twgl.setUniforms(pi, { u_one: 1, u_split: DS_SPLIT, u_conj: 1, ...uniforms });
  for (let layer = 0; layer < out.layers; layer++) {
    gl.framebufferTextureLayer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, target, 0, layer);
    twgl.setUniforms(pi, { u_outLayer: layer });
    gl.viewport(0, 0, out.width, out.height);
    gl.drawArrays(gl.TRIANGLES, 0, 3);
    host.stats.draws++;
  }
  gl.framebufferTextureLayer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, null, 0, 0);
}

/** Runs a dense kernel into a fresh target of layout `out` (one draw per layer). */
function draw(st: DenseState, name: DenseProgram, dt: DType, out: DenseLayout, rows: number, cols: number, uniforms: Record<string, unknown>): WebGLTexture {
  const { host } = st;
  const gl = host.gl;
  const pi = program(st, name, dt);
  const target = st.pool.get(layoutKey(out))?.pop() ?? createArrayTexture(gl, 'rgba32f', out, null);
  drawLayers(host, pi, target, out, { ...uniforms, u_rowShift: out.rowShift, u_outRows: rows, u_outCols: cols });
  return target;
}

function giveTarget(st: DenseState, tex: WebGLTexture, l: DenseLayout): void {
  const key = layoutKey(l);
  const list = st.pool.get(key) ?? [];
  if (list.length >= POOL_PER_LAYOUT) st.host.gl.deleteTexture(tex);
  else {
    list.push(tex);
    st.pool.set(key, list);
  }
}

function program(st: DenseState, name: DenseProgram, dt: DType): twgl.ProgramInfo {
  const key = `${name}/${dt}`;
  let pi = st.programs.get(key) as twgl.ProgramInfo | undefined;
  if (!pi) {
    const gl = st.host.gl;
    const errors: string[] = [];
    const shaders = glslSources();
    const src = shaders[name];
    const nl = src.indexOf('\n') + 1;
    const frag = `${src.slice(0, nl)}#define DT_${dt.toUpperCase()}\n${src.slice(nl)}`;
    pi = twgl.createProgramInfo(gl, [shaders.quad_vert, frag], (msg: string) => errors.push(msg)) ?? undefined;
    if (!pi) {
      st.host.live(); // a lost context is the more likely reason
      throw new GpuUnavailableError(`compiling the ${name} shader for ${dt} failed: ${errors.join('\n') || 'no log'}`);
    }
    st.programs.set(key, pi);
  }
  return pi;
}
