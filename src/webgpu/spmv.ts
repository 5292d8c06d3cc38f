/**
 * SpMV on the WebGPU path: what each format becomes in storage buffers, the per-matrix choice of CSR
 * kernel, and the dispatches of y = α·op(A)·x + β·y.
 *
 * CSR kernels (wgsl/csr_*.wgsl, sell.wgsl), chosen per matrix from its row lengths and dtype ('auto'),
 * by the H100 measurements of bench/gpu-native/results/run6 (Dawn + NVIDIA Vulkan):
 *   csr_adaptive  blocks of ≈ CHUNK nonzeros per workgroup (CSR-Adaptive): rows of very different
 *                 lengths, power-law matrices (longest > 8·max(mean, 4)); a row past PIECE entries
 *                 is cut into pieces and finished by csr_fixup. (The power-law 2M matrix: 0.19 ms f32,
 *                 every other kernel ≥ 1.5 ms.)
 *   sell          even rows in f64/c128 (double-single) whose SELL-32-σ stores ≤ 10% padding: built
 *                 from the CSR on upload, a slice of 32 rows per warp, column-major, so the 8-byte
 *                 values are read coalesced (poisson3D_128 f64: 0.098 ms, csr_row 0.24 ms)
 *   csr_row       one thread per row: other even rows with mean < 8 (poisson3D_128 f32: 0.062 ms;
 *                 SELL 0.16, csr_vector 0.07–0.09)
 *   csr_vector    TPR threads per row (TPR the power of two nearest mean/2, 2..64): longer even rows;
 *                 summed by subgroupShuffleXor where 'subgroups' is offered and TPR ≤ the smallest
 *                 subgroup, else tree-reduced in workgroup memory
 * ELL (column-major, a thread per row), DIA (a thread per row, offsets in a buffer: all diagonals in
 * one dispatch; f64 values that are all exactly f32 stored as f32, dia_compact), HYB (ELL + the COO remainder as CSR, a thread per row). op = 'T' / 'H' runs a CSR of
 * Aᵀ built on the host at upload ({ transpose: true }) with the same kernel choice; 'H' conjugates.
 */
import type { DType } from '../dtype.js';
import { CSRMatrix, SELLMatrix, defaultSortWindow, sellSlots } from '../formats/index.js';
import { longestRow } from '../formats/csr.js';
import { exactlyF32, takeSmallIntegers, writeSmallIntegers } from '../formats/dia.js';
import { reduceGroups, type Engine, type KernelName, type Params, type StreamJob } from './engine.js';
import { encodeInto, floatsPerElement, gpuSplitsLength, streamBytes, writeStream } from './encoding.js';
import { wgslLoaded } from './shader-source.js';
import type { HostMatrix, WebGpuCSRArrays, WebGpuCSRPart, WebGpuCSRSimplePart, WebGpuDIAPart, WebGpuELLPart, WebGpuMatrixData, WebGpuPart, WebGpuSELLPart } from './resident.js';

export type CsrKernel = 'auto' | 'row' | 'vector' | 'adaptive' | 'sell';

export interface WebGpuUploadOptions {
  /** CSR (and Aᵀ): 'auto' (default) chooses from the row lengths, see spmv.ts */
  kernel?: CsrKernel;
  /** csr_vector: threads per row (a power of two, 2..256); default from the mean row length */
  threadsPerRow?: number;
  /** also upload Aᵀ as CSR (built on the host at upload), so spmv can run op = 'T' / 'H' */
  transpose?: boolean;
  /**
   * @internal applied a few times a solve (a multigrid cycle's P, R and coarse levels): 'auto' keeps CSR
   * and skips SELL-C-σ, whose host conversion (sorting, padding) cost ≈ 1.3 s of the 2.1 s that
   * poisson3D(128)'s AMG levels took to upload on the H100 machine's host (results-2026-11-27-gpu/call7)
   */
  fewProducts?: boolean;
  /**
   * @internal uploadMany only: this CSR is exactly the transpose of the batch's CSR at this index (an
   * earlier one, of the same dtype; a multigrid level's R = Pᵀ): its values, a third of its bytes, are
   * not sent but copied from that matrix's on the GPU (wgsl/csr_transpose_values.wgsl), bit for bit
   */
  transposeOf?: number;
  /**
   * @internal an f32 CSR, or DIA of several diagonals, uploaded as its f64 copy (the refinement's,
   * WebGpuBackend.wideOf; see widens): without astype('f64')'s host copy. A DIA's values are exactly f32,
   * so they go up as they are or as bytes (the compact kernels widen them): the buffers astype's copy
   * gave. A CSR's go up in double-single, (v, 0) as astype's would; where 'auto' would give that copy
   * SELL-C-σ it runs the row kernel, whose sums are SELL's in the same order, without SELL's host
   * conversion (sorting, padding: ≈ 0.3 s of poisson3D(128)'s first refined solve on the H200 host)
   */
  widen?: boolean;
}

/** csr_adaptive constants (wgsl/csr_adaptive.wgsl): workgroup size, products per stream block, entries per piece. */
const WG = 256;
const CHUNK = 1024;
const PIECE = 4096;
/** csr_adaptive: most entries one thread sums from workgroup memory in a streamed block. */
const SUM_PER_THREAD = 16;

/**
 * Contents left for Engine.stream() (WebGpuBackend.uploadMany): `jobs` to stream, then `after` (the GPU
 * splits of f64 values that went up as IEEE bytes), recorded once the copies are; those splits set
 * `flags` (made by the first) where a finite value f32 cannot hold came out ±Inf.
 */
export interface DeferredUpload {
  readonly jobs: StreamJob[];
  readonly after: (() => void)[];
  flags?: GPUBuffer;
}

/** Buffers made for one upload; `limit` is maxStorageBufferBindingSize. With `deferred`, their contents are streamed later. */
class Maker {
  readonly buffers: GPUBuffer[] = [];
  constructor(
    private readonly engine: Engine,
    private readonly limit: number,
    private readonly deferred?: DeferredUpload,
  ) {}
  make(what: string, data: ArrayBufferView | number): GPUBuffer {
    const d = this.deferred;
    const b = d && typeof data !== 'number' ? this.engine.filledBuffer(what, data.byteLength, this.limit, null) : this.engine.buffer(what, data, this.limit);
    this.buffers.push(b);
    if (d && typeof data !== 'number' && data.byteLength > 0) {
      const src = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      d.jobs.push({ dst: b, bytes: data.byteLength, fill: (mapped, at, from, len) => (new Uint8Array(mapped, at, len).set(src.subarray(from, from + len)), true) });
    }
    return b;
  }
  /**
   * A matrix's values: f64 / c128 data (a long Float64Array within f32's range) goes up as its IEEE
   * bytes and the GPU splits it into double-single in place, as vectors do — the host's split of
   * poisson3D(128)'s 14.7 M SELL values and its Float32Array cost ≈ 0.4 s of a first solve on the
   * H100 machine's host (call 3's profile); else the host encodes (and refuses what f32 cannot hold).
   */
  values(what: string, dt: DType, data: ArrayLike<number>): GPUBuffer {
    if (this.deferred) return this.deferredValues(what, dt, data, this.deferred);
    let gpuSplit = false;
    // a matrix may be uploaded before the path's first kernel has loaded the shader sources (rt.upload, or
    // the first solve's choice of method): the host splits it then
    const b = this.engine.filledBuffer(what, streamBytes(dt, data.length), this.limit, (mapped) => (gpuSplit = writeStream(dt, data, mapped, wgslLoaded())));
    this.buffers.push(b);
    if (gpuSplit) splitOnGpu(this.engine, b, data.length);
    return b;
  }
  /**
   * values() streamed: f64 / c128 data as its IEEE bytes, a plain copy with no host pass over the
   * values (≈ 280 ms for an AMG hierarchy's 27 M values on the H100 host): the GPU's split flags what
   * f32 cannot hold, and the batch is refused after (uploadMany). Else the host's encoding, piece by piece.
   */
  private deferredValues(what: string, dt: DType, data: ArrayLike<number>, d: DeferredUpload): GPUBuffer {
    const bytes = streamBytes(dt, data.length);
    const b = this.engine.filledBuffer(what, bytes, this.limit, null);
    this.buffers.push(b);
    if (bytes === 0) return b;
    const per = bytes / data.length;
    if (wgslLoaded() && gpuSplitsLength(dt, data)) {
      const src = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      d.jobs.push({ dst: b, bytes, fill: (mapped, at, from, len) => new Uint8Array(mapped, at, len).set(src.subarray(from, from + len)) });
      d.after.push(() => {
        d.flags ??= this.engine.buffer('range flag', 16, Infinity);
        this.engine.dispatch('ds_convert', 'f64', Math.ceil(data.length / 256), { n: data.length }, [{ binding: 1, buffer: b, write: true }, { binding: 7, buffer: d.flags, write: true }], undefined, 'split_checked_main');
      });
    } else {
      d.jobs.push({ dst: b, bytes, fill: (mapped, at, from, len) => encodeInto(dt, sliceOf(data, from / per, (from + len) / per), new Float32Array(mapped, at, len / 4)) });
    }
    return b;
  }
  /**
   * The values of c, the transpose of `of` (uploaded before it in this batch: its values are in their
   * final form once the batch's copies and splits ran), copied from of's on the GPU after them; c's row
   * pointers and columns are the buffers given. Not streamed: a third of a CSR's bytes.
   */
  transposedValues(what: string, c: CSRMatrix, rowPtr: GPUBuffer, colIdx: GPUBuffer, of: WebGpuCSRArrays): GPUBuffer {
    const d = this.deferred;
    if (!d) throw new Error('internal: transposed values outside a batch upload');
    const dt = c.dtype;
    const b = this.engine.filledBuffer(what, streamBytes(dt, c.values.length), this.limit, null);
    this.buffers.push(b);
    if (c.nnz === 0) return b;
    d.after.push(() => {
      d.flags ??= this.engine.buffer('range flag', 16, Infinity);
      const bindings = [rowPtr, colIdx, of.rowPtr, of.colIdx, of.values].map((buffer, k) => ({ binding: k + 1, buffer }));
      this.engine.dispatch('csr_transpose_values', 'f32', Math.ceil(c.rows / 128), { n: c.rows, w: floatsPerElement(dt) }, [...bindings, { binding: 6, buffer: b, write: true }, { binding: 7, buffer: d.flags, write: true }]);
    });
    return b;
  }
  /**
   * f64 values that are all integers in [-128, 127] as one byte each, or null (nothing kept) where one
   * is not: the test and the bytes in one pass, written into the new buffer's mapped range (a test pass,
   * an Int8Array and its copy were ≈ 2× that on 14.7 M values), the pass given up at the first value
   * that fails. Streamed (uploadMany) as a plain copy of such an array.
   */
  smallIntegers(what: string, values: Float64Array | Float32Array): GPUBuffer | null {
    // (where the conversion that wrote the values recorded them as bytes: a copy, no test)
    const known = takeSmallIntegers(values);
    if (this.deferred) {
      const bytes = known ?? new Int8Array(values.length);
      return known || writeSmallIntegers(values, bytes) ? this.make(what, bytes) : null;
    }
    let small = true;
    const fill = (out: Int8Array) => (known ? (out.set(known), true) : writeSmallIntegers(values, out));
    const b = this.engine.filledBuffer(what, values.length, this.limit, (mapped) => (small = fill(new Int8Array(mapped, 0, values.length))));
    if (small) {
      this.buffers.push(b);
      return b;
    }
    b.destroy();
    return null;
  }
  get bytes(): number {
    return this.buffers.reduce((s, b) => s + b.size, 0);
  }
}

const sliceOf = (a: ArrayLike<number>, from: number, to: number): ArrayLike<number> => ('subarray' in a ? (a as Float64Array).subarray(from, to) : Array.prototype.slice.call(a, from, to));

/** Records the split of `components` IEEE f64 values at the start of buf into double-single pairs, in place (wgsl/ds_convert.wgsl's split_main). */
export function splitOnGpu(engine: Engine, buf: GPUBuffer, components: number): void {
  engine.dispatch('ds_convert', 'f64', Math.ceil(components / 256), { n: components }, [{ binding: 1, buffer: buf, write: true }], undefined, 'split_main');
}

/**
 * The buffers of a matrix; with `deferred`, their contents are left to stream (uploadMany), and a CSR
 * given `transposeOf` (the arrays of the batch's matrix options.transposeOf names) takes its values from
 * that one's on the GPU.
 */
export function buildMatrix(engine: Engine, matrix: HostMatrix, options: WebGpuUploadOptions, limit: number, deferred?: DeferredUpload, transposeOf?: WebGpuCSRArrays): WebGpuMatrixData {
  const mk = new Maker(engine, limit, deferred);
  try {
    const widen = options.widen === true && widens(matrix);
    if (options.widen && !widen) throw new Error('internal: widen is for an f32 CSR or DIA of several diagonals');
    const dt = widen ? 'f64' : matrix.dtype;
    let main: WebGpuPart;
    switch (matrix.format) {
      case 'csr':
        main = csrPart(mk, matrix, options, deferred ? transposeOf : undefined);
        break;
      case 'sell':
        main = sellPart(mk, matrix);
        break;
      case 'ell':
        main = ellPart(mk, matrix.rows, matrix.width, matrix.stride, matrix.colIdx, matrix.values, dt);
        break;
      case 'dia': {
        // f64 values that are all exactly f32 go up as f32: half the value bytes the SpMV streams (as the
        // CPU path keeps them). A one-diagonal matrix keeps E values: the solvers' D⁻¹, which the CG
        // kernels read elementwise (cg_update.wgsl, chebyshev.wgsl)
        const data = matrix.data as Float64Array | Float32Array;
        // (f32 values widened: exactly f32 but for NaN, which astype's copy holds as f64 — its test is only
        // needed where they are not all small integers)
        const candidate = widen || (dt === 'f64' && matrix.offsets.length > 1 && matrix.data instanceof Float64Array && exactlyF32(matrix.data));
        // and where they are all integers in [-128, 127] (a stencil's), one byte each: poisson3D(128)'s
        // SpMV then streams 23 bytes a row where f32 values made it 44
        const offsets = mk.make('DIA offsets', matrix.offsets);
        const bytes = candidate ? mk.smallIntegers('DIA data (i8)', data) : null;
        const int8 = bytes !== null;
        const compact = int8 || (candidate && (!widen || !hasNaN(data)));
        main = {
          kind: 'dia',
          rows: matrix.rows,
          cols: matrix.cols,
          ndiag: matrix.offsets.length,
          pitch: matrix.pitch,
          offsets,
          values: bytes ?? (compact ? mk.make('DIA data (f32)', data instanceof Float32Array ? data : Float32Array.from(data)) : mk.values('DIA data', dt, data)),
          compact,
          int8,
        };
        break;
      }
      case 'hyb': {
        const { coo } = matrix;
        const rest = CSRMatrix.fromTriplets(matrix.rows, matrix.cols, dt, coo.rowIdx, coo.colIdx, coo.values);
        main = { kind: 'hyb', rows: matrix.rows, ell: ellPart(mk, matrix.rows, matrix.ell.width, matrix.ell.stride, matrix.ell.colIdx, matrix.ell.values, dt), rest: csrArrays(mk, rest, 'HYB remainder') };
        break;
      }
    }
    let transposed: WebGpuCSRPart | null = null;
    if (options.transpose) {
      const csr = (matrix.format === 'csr' ? matrix : matrix.toCSR()) as CSRMatrix;
      transposed = csrPart(mk, csr.transpose(), options);
    }
    return { main, transposed, buffers: mk.buffers, bytes: mk.bytes };
  } catch (e) {
    for (const b of mk.buffers) b.destroy();
    throw e;
  }
}

/** Whether WebGpuUploadOptions.widen can upload this matrix as its f64 copy: an f32 CSR, or DIA of several diagonals. */
export function widens(m: HostMatrix): boolean {
  return m.dtype === 'f32' && (m.format === 'csr' || (m.format === 'dia' && m.offsets.length > 1));
}

function csrArrays(mk: Maker, c: CSRMatrix, what: string, transposeOf?: WebGpuCSRArrays, dt: DType = c.dtype): WebGpuCSRArrays {
  const rowPtr = mk.make(`${what} row pointers`, c.rowPtr);
  const colIdx = mk.make(`${what} column indices`, c.colIdx);
  const values = transposeOf ? mk.transposedValues(`${what} values`, c, rowPtr, colIdx, transposeOf) : mk.values(`${what} values`, dt, c.values);
  return { rows: c.rows, rowPtr, colIdx, values };
}

/** The slice height of the SELL-C-σ the GPU builds from a CSR (kernel 'sell'): one NVIDIA warp. */
export const SELL_C = 32;

function sellPart(mk: Maker, s: SELLMatrix): WebGpuSELLPart {
  const permuted = s.sortWindow > 1;
  return {
    kind: 'sell',
    rows: s.rows,
    sliceHeight: s.sliceHeight,
    permuted,
    slicePtr: mk.make('SELL slice pointers', s.slicePtr),
    colIdx: mk.make('SELL column indices', s.colIdx),
    values: mk.values('SELL values', s.dtype, s.values),
    perm: mk.make('SELL permutation', permuted ? s.perm : 4),
  };
}

function ellPart(mk: Maker, rows: number, width: number, stride: number, colIdx: Int32Array, values: ArrayLike<number>, dt: DType): WebGpuELLPart {
  return { kind: 'ell', rows, width, stride, colIdx: mk.make('ELL column indices', colIdx), values: mk.values('ELL values', dt, values) };
}

/** The CSR kernel for these row lengths and dtype (the 'auto' rule of the file comment). */
export function chooseCsrKernel(c: CSRMatrix, fewProducts = false): { kernel: 'row' | 'vector' | 'adaptive' | 'sell'; tpr: number } {
  return csrKernelFor(c, fewProducts, c.dtype);
}

/** chooseCsrKernel for c's pattern in dtype dt (a widened copy's). */
function csrKernelFor(c: CSRMatrix, fewProducts: boolean | undefined, dt: DType): { kernel: 'row' | 'vector' | 'adaptive' | 'sell'; tpr: number } {
  const mean = c.rows > 0 ? c.nnz / c.rows : 0;
  // recorded where the matrix was made (an AMG setup's products), else a pass over the row pointers
  const longest = longestRow(c);
  if (longest > 8 * Math.max(mean, 4)) return { kernel: 'adaptive', tpr: 1 };
  if (!fewProducts && (dt === 'f64' || dt === 'c128') && sellSlots(c.rowPtr, c.rows, SELL_C, defaultSortWindow(c, SELL_C)) <= 1.1 * c.nnz) return { kernel: 'sell', tpr: 1 };
  if (mean < 8) return { kernel: 'row', tpr: 1 };
  return { kernel: 'vector', tpr: Math.min(64, Math.max(2, 2 ** Math.round(Math.log2(mean / 2)))) };
}

function csrPart(mk: Maker, c: CSRMatrix, options: WebGpuUploadOptions, transposeOf?: WebGpuCSRArrays): WebGpuCSRPart {
  const dt = options.widen ? 'f64' : c.dtype;
  const auto = csrKernelFor(c, options.fewProducts, dt);
  let kernel = !options.kernel || options.kernel === 'auto' ? auto.kernel : options.kernel;
  // (a widened copy: the row kernel sums each row in SELL's order, without SELL's conversion)
  if (kernel === 'sell' && options.widen) kernel = 'row';
  if (kernel === 'sell') return sellPart(mk, SELLMatrix.fromCSR(c, { sliceHeight: SELL_C, sortWindow: defaultSortWindow(c, SELL_C) }));
  const arrays = csrArrays(mk, c, 'CSR', transposeOf, dt);
  if (kernel === 'row') return { kind: 'csr_row', ...arrays, tpr: 1 };
  if (kernel === 'vector') {
    const t = options.threadsPerRow ?? (auto.kernel === 'vector' ? auto.tpr : 32);
    if (!(Number.isInteger(Math.log2(t)) && t >= 2 && t <= 256)) throw new RangeError(`threadsPerRow = ${t} must be a power of two in 2..256`);
    return { kind: 'csr_vector', ...arrays, tpr: t };
  }
  const { blocks, fix, slots } = adaptiveBlocks(c.rowPtr, c.rows);
  return {
    kind: 'csr_adaptive',
    ...arrays,
    blocks: mk.make('CSR-adaptive blocks', blocks),
    nBlocks: blocks.length / 4,
    fix: mk.make('CSR-adaptive long rows', fix),
    nFix: fix.length / 4,
    partials: mk.make('CSR-adaptive partial sums', slots * floatsPerElement(c.dtype) * 4),
  };
}

/**
 * Rows in blocks for csr_adaptive: (r0, r1, e0, e1) per block. Consecutive rows join a block while
 * its nonzeros fit CHUNK and it has at most WG rows; a row longer than CHUNK gets blocks of its own,
 * one when it fits PIECE, else pieces (r1 = −1 − slot) listed in `fix` as (row, first slot, pieces, 0).
 */
export function adaptiveBlocks(rowPtr: Int32Array, rows: number): { blocks: Int32Array; fix: Int32Array; slots: number } {
  const blocks: number[] = [];
  const fix: number[] = [];
  let slots = 0;
  let i = 0;
  while (i < rows) {
    const e0 = rowPtr[i];
    const len = rowPtr[i + 1] - e0;
    if (len > CHUNK) {
      if (len <= PIECE) blocks.push(i, i + 1, e0, e0 + len);
      else {
        const pieces = Math.ceil(len / PIECE);
        fix.push(i, slots, pieces, 0);
        for (let p = 0; p < pieces; p++) blocks.push(i, -1 - slots++, e0 + p * PIECE, Math.min(e0 + len, e0 + (p + 1) * PIECE));
      }
      i++;
      continue;
    }
    // a streamed block gives WG / pow2ceil(rows) threads to each row: each must sum at most SUM_PER_THREAD entries
    const start = i;
    let longest = 0;
    while (i < rows && i - start < WG && rowPtr[i + 1] - e0 <= CHUNK) {
      const l = Math.max(longest, rowPtr[i + 1] - rowPtr[i]);
      if (i > start && pow2ceil(i + 1 - start) * Math.ceil(l / SUM_PER_THREAD) > WG) break;
      longest = l;
      i++;
    }
    blocks.push(start, i, e0, rowPtr[i]);
  }
  return { blocks: Int32Array.from(blocks), fix: Int32Array.from(fix), slots };
}

const pow2ceil = (n: number) => 2 ** Math.ceil(Math.log2(Math.max(1, n)));

function hasNaN(values: Float32Array | Float64Array): boolean {
  for (let k = 0; k < values.length; k++) if (values[k] !== values[k]) return true;
  return false;
}

const ROW_KERNELS: ReadonlySet<WebGpuPart['kind']> = new Set(['csr_row', 'sell', 'ell', 'hyb', 'dia']);

function dotGroups(engine: Engine, part: WebGpuPart): number {
  return Math.min(engine.dotGroups, Math.ceil(part.rows / 128));
}

/** The partials runSpmv({ dot }) writes for this part at most: a buffer for them holds that many vec4. */
export function spmvDotPartials(engine: Engine, part: WebGpuPart): number {
  return ROW_KERNELS.has(part.kind) ? dotGroups(engine, part) : reduceGroups(part.rows);
}

/**
 * Records y = α·part·x + β·y. `common` carries alpha, beta, useBeta, conj. With `dot` (a square
 * part, x and y of one length), also the partial sums of xᴴy into that buffer: the row kernels in the
 * same pass (their dot_main), the others by a first reduction pass after the product; returns how many
 * partials were written (0 without `dot`).
 */
export function runSpmv(engine: Engine, part: WebGpuPart, dt: DType, x: GPUBuffer, y: GPUBuffer, common: Params, dot?: GPUBuffer): number {
  const xy = [
    { binding: 1, buffer: x },
    { binding: 2, buffer: y, write: true },
  ];
  const rows = part.rows;
  const fused = dot !== undefined && ROW_KERNELS.has(part.kind);
  if (fused) xy.push({ binding: 9, buffer: dot, write: true });
  const entry = fused ? 'dot_main' : undefined;
  const rowGroups = fused ? dotGroups(engine, part) : Math.ceil(rows / 128);
  switch (part.kind) {
    case 'csr_row':
      engine.dispatch('csr_row', dt, rowGroups, { ...common, n: rows }, [...xy, ...csrBindings(part)], undefined, entry);
      break;
    case 'csr_vector':
      engine.dispatch(vectorKernel(engine, part.tpr), dt, Math.ceil((rows * part.tpr) / 256), { ...common, n: rows }, [...xy, ...csrBindings(part)], { TPR: part.tpr });
      break;
    case 'csr_adaptive':
      engine.dispatch('csr_adaptive', dt, part.nBlocks, { ...common, n: rows, m: part.nBlocks }, [
        ...xy,
        ...csrBindings(part),
        { binding: 6, buffer: part.blocks },
        { binding: 7, buffer: part.partials, write: true },
      ]);
      if (part.nFix > 0) {
        engine.dispatch('csr_fixup', dt, Math.ceil(part.nFix / 64), { ...common, n: part.nFix }, [
          xy[1],
          { binding: 3, buffer: part.fix },
          { binding: 4, buffer: part.partials },
        ]);
      }
      break;
    case 'sell':
      engine.dispatch('sell', dt, rowGroups, { ...common, n: rows, m: part.sliceHeight, w: part.permuted ? 1 : 0 }, [
        ...xy,
        { binding: 3, buffer: part.slicePtr },
        { binding: 4, buffer: part.colIdx },
        { binding: 5, buffer: part.values },
        { binding: 6, buffer: part.perm },
      ], undefined, entry);
      break;
    case 'ell':
      engine.dispatch('ell', dt, rowGroups, { ...common, n: rows, m: part.width, k: part.stride }, [...xy, ...ellBindings(part)], undefined, entry);
      break;
    case 'hyb':
      engine.dispatch('hyb', dt, rowGroups, { ...common, n: rows, m: part.ell.width, k: part.ell.stride }, [
        ...xy,
        ...ellBindings(part.ell),
        { binding: 5, buffer: part.rest.rowPtr },
        { binding: 6, buffer: part.rest.colIdx },
        { binding: 7, buffer: part.rest.values },
      ], undefined, entry);
      break;
    case 'dia':
      engine.dispatch(diaKernel(part), dt, rowGroups, { ...common, n: rows, m: part.ndiag, k: part.pitch, w: part.cols }, [
        ...xy,
        { binding: 3, buffer: part.offsets },
        { binding: 4, buffer: part.values },
      ], undefined, entry);
      break;
  }
  if (!dot) return 0;
  if (fused) return rowGroups;
  const groups = reduceGroups(rows);
  engine.dispatch('dot', dt, groups, { n: rows, k: groups * 256, conj: -1 }, [
    { binding: 1, buffer: x },
    { binding: 2, buffer: y },
    { binding: 3, buffer: dot, write: true },
  ]);
  return groups;
}

/** Whether runChebyshevStep runs on this part: a kernel that has the fused step (wgsl/spmv_cheb.wgsl). */
export const chebyshevFusable = (part: WebGpuPart): part is WebGpuDIAPart => part.kind === 'dia';

/**
 * Records one fused Chebyshev step of the resident Chebyshev-CG (wgsl/spmv_cheb.wgsl):
 * zo ← zk + c1·(zk − zo) + c2·dinv·(r − part·zk). `flags`: 1 first step (zo not read), 2 last (the
 * partials of rᴴzo, after as many others as it writes: at [G, 2G) for its G workgroups, G at least
 * `after`, the partials written before it that must stay), 4 dinv per row (else not read). S: the
 * resident state (nothing runs once its flag is set). Returns G with flag 2, else 0.
 */
export function runChebyshevStep(engine: Engine, part: WebGpuDIAPart, dt: DType, zk: GPUBuffer, zo: GPUBuffer, r: GPUBuffer, dinv: GPUBuffer, S: GPUBuffer, partials: GPUBuffer, c: readonly [Float32Array, Float32Array], flags: number, after: number): number {
  const rows = part.rows;
  // the last step as many workgroups as the fused SpMV + dot (a thread a row up to dotGroups): its partials then fit cg_scalars' one workgroup
  const groups = flags & 2 ? Math.max(dotGroups(engine, part), after) : Math.ceil(rows / 128);
  engine.dispatch(diaKernel(part), dt, groups, { n: rows, m: part.ndiag, k: part.pitch, w: part.cols, alpha: c[0], beta: c[1], flags }, [
    { binding: 1, buffer: zk },
    { binding: 3, buffer: part.offsets },
    { binding: 4, buffer: part.values },
    { binding: 9, buffer: partials, write: true },
    { binding: 10, buffer: zo, write: true },
    { binding: 11, buffer: r },
    { binding: 12, buffer: dinv },
    { binding: 13, buffer: S },
  ], undefined, 'cheb_main');
  return flags & 2 ? groups : 0;
}

/** The kernel of the f32 Chebyshev steps (wgsl/cheb32.wgsl) of an f64 DIA part whose values are all exactly f32, else null. */
export const chebyshev32Kernel = (part: WebGpuPart): KernelName | null => (part.kind !== 'dia' ? null : part.int8 ? 'dia_i8_cheb32' : part.compact ? 'dia_compact_cheb32' : null);

/** The DIA part and chebyshev32Kernel(part), which the f32 steps' callers have checked (fusedChebyshev32): a part without it is an internal error. */
function cheb32Part(part: WebGpuPart): [KernelName, WebGpuDIAPart] {
  const kernel = chebyshev32Kernel(part);
  if (!kernel || part.kind !== 'dia') throw new Error('internal: the f32 Chebyshev steps need a DIA part of f32 values');
  return [kernel, part];
}

/**
 * Records one fused Chebyshev step with the polynomial's vectors in f32 (wgsl/cheb32.wgsl): zo ←
 * zk + c1·(zk − zo) + c2·dinv·(r − part·zk), zk and zo f32, r and dinv double-single. With `zds` (the
 * last step) the result goes there in double-single instead, with the partials of rᴴz after as many
 * others as the step has workgroups (≥ `after`); returns that count, else 0. `flags`: 1 zo not read
 * (zero), 4 dinv per row. S: the resident state (nothing runs once its flag is set).
 */
export function runChebyshevStep32(engine: Engine, main: WebGpuPart, zk: GPUBuffer, zo: GPUBuffer, r: GPUBuffer, dinv: GPUBuffer, S: GPUBuffer, partials: GPUBuffer, c: readonly [Float32Array, Float32Array], flags: number, zds: GPUBuffer | null, after: number): number {
  const [kernel, part] = cheb32Part(main);
  const rows = part.rows;
  const groups = zds ? Math.max(dotGroups(engine, part), after) : Math.ceil(rows / 128);
  engine.dispatch(kernel, 'f32', groups, { n: rows, m: part.ndiag, k: part.pitch, w: part.cols, alpha: c[0], beta: c[1], flags }, [
    { binding: 1, buffer: zk },
    { binding: 3, buffer: part.offsets },
    { binding: 4, buffer: part.values },
    { binding: 10, buffer: zo, write: !zds },
    { binding: 11, buffer: r },
    { binding: 12, buffer: dinv },
    { binding: 13, buffer: S },
    ...(zds ? [{ binding: 9, buffer: partials, write: true }, { binding: 14, buffer: zds, write: true }] : []),
  ], undefined, zds ? 'last_main' : 'step_main');
  return zds ? groups : 0;
}

/** Records the f32 Chebyshev steps' first, z ← c2·dinv·r (wgsl/cheb32.wgsl first_main; dinv per row with flag 4, else not read). */
export function runChebyshevFirst32(engine: Engine, main: WebGpuPart, r: GPUBuffer, dinv: GPUBuffer, z: GPUBuffer, c2: Float32Array, flags: number): void {
  const [kernel, part] = cheb32Part(main);
  engine.dispatch(kernel, 'f32', Math.ceil(part.rows / 128), { n: part.rows, beta: c2, flags }, [
    { binding: 10, buffer: z, write: true },
    { binding: 11, buffer: r },
    { binding: 12, buffer: dinv },
  ], undefined, 'first_main');
}

const vectorKernel = (engine: Engine, tpr: number): KernelName => (tpr <= engine.subgroupSize ? 'csr_vector_sg' : 'csr_vector');
const diaKernel = (part: WebGpuDIAPart): KernelName => (part.int8 ? 'dia_i8' : part.compact ? 'dia_compact' : 'dia');

/**
 * Starts making, in the background (Engine.prewarm), the pipelines of every CSR product an operator
 * uploaded with fewProducts may run (chooseCsrKernel's: row, each threads-per-row of vector it picks (4–64), adaptive
 * with its fix-up), of a DIA one, and uploadMany's checked split of f64 values: for operators not made
 * yet, whose kernels are not known (an AMG hierarchy set up on the host while Dawn compiles these).
 */
export function prewarmSparse(engine: Engine, dt: DType): void {
  if (!wgslLoaded()) return;
  engine.prewarm('csr_row', dt);
  for (let tpr = 4; tpr <= 64; tpr *= 2) engine.prewarm(vectorKernel(engine, tpr), dt, { TPR: tpr });
  engine.prewarm('csr_adaptive', dt);
  engine.prewarm('csr_fixup', dt);
  engine.prewarm('dia', dt);
  if (dt === 'f64' || dt === 'c128') engine.prewarm('ds_convert', 'f64', {}, 'split_checked_main');
  // the restrictions' values, copied from the prolongators' (uploadMany's transposeOf)
  engine.prewarm('csr_transpose_values', 'f32');
}

/** Starts making the pipelines of runSpmv's product y = α·part·x + β·y (no dot) in the background (Engine.prewarm). */
export function prewarmSpmv(engine: Engine, part: WebGpuPart, dt: DType): void {
  switch (part.kind) {
    case 'csr_vector':
      return engine.prewarm(vectorKernel(engine, part.tpr), dt, { TPR: part.tpr });
    case 'csr_adaptive':
      engine.prewarm('csr_adaptive', dt);
      if (part.nFix > 0) engine.prewarm('csr_fixup', dt);
      return;
    case 'dia':
      return engine.prewarm(diaKernel(part), dt);
    default:
      return engine.prewarm(part.kind, dt);
  }
}

/**
 * Starts making the pipeline of the product of a single-precision A's double-single copy (the
 * refinement's residual, WebGpuBackend.wideOf), made at its first refined solve: for an f32 DIA of
 * several diagonals the compact kernel, bytes where 64 of A's slots spread over it are small integers
 * (a guess: a wrong one only leaves that pipeline to its first dispatch); for an f32 CSR run by the row
 * or adaptive kernel that kernel; for SELL and ELL the same kernel in double-single.
 */
export function prewarmWideSpmv(engine: Engine, part: WebGpuPart, source: HostMatrix, wide: DType): void {
  if (part.kind === 'dia' && source.format === 'dia' && widens(source)) {
    const d = source.data;
    const sample = new Float32Array(64);
    for (let k = 0; k < 64 && d.length > 0; k++) sample[k] = d[Math.floor(((d.length - 1) * k) / 63)];
    engine.prewarm(writeSmallIntegers(sample, new Int8Array(64)) ? 'dia_i8' : 'dia_compact', wide);
  } else if (source.format === 'csr' && widens(source) && (part.kind === 'csr_row' || part.kind === 'csr_adaptive')) {
    // (an f32 CSR's row kernel stays the row kernel in f64, or becomes SELL, which the widened copy runs
    // as the row kernel; the adaptive one stays adaptive. The vector kernel's copy may be either)
    prewarmSpmv(engine, part, wide);
  } else if (part.kind === 'sell' || part.kind === 'ell') engine.prewarm(part.kind, wide);
}

/**
 * Starts making (Engine.prewarm) the pipelines of runSpmv's product of `part` fused with the partial
 * sums of xᴴy (the row kernels' dot_main; the others' product and a 'dot' pass), and of its fused
 * Chebyshev step where it has one (runChebyshevStep's cheb_main, f64).
 */
export function prewarmSpmvDot(engine: Engine, part: WebGpuPart, dt: DType): void {
  if (!ROW_KERNELS.has(part.kind)) {
    prewarmSpmv(engine, part, dt);
    engine.prewarm('dot', dt);
    return;
  }
  const kernel = part.kind === 'dia' ? diaKernel(part) : part.kind;
  engine.prewarm(kernel, dt, {}, 'dot_main');
  // the resident Chebyshev-CG's fused steps (the runtime plans them for f64 DIA)
  if (chebyshevFusable(part) && dt === 'f64') {
    engine.prewarm(kernel, dt, {}, 'cheb_main');
    const k32 = chebyshev32Kernel(part);
    if (k32) for (const entry of ['first_main', 'step_main', 'last_main']) engine.prewarm(k32, 'f32', {}, entry);
  }
}

function csrBindings(p: WebGpuCSRArrays) {
  return [
    { binding: 3, buffer: p.rowPtr },
    { binding: 4, buffer: p.colIdx },
    { binding: 5, buffer: p.values },
  ];
}

function ellBindings(p: WebGpuELLPart) {
  return [
    { binding: 3, buffer: p.colIdx },
    { binding: 4, buffer: p.values },
  ];
}
