/**
 * The WebGPU path: WGSL compute shaders over storage buffers (wgsl/, one file per kernel), in
 * browsers (navigator.gpu) and in Node (the optional `webgpu` package, Dawn). Its public shape follows
 * the WebGL2 GpuBackend (src/gpu/backend.ts) so the runtime can treat both alike; differences: create()
 * is async (adapters come by promise), vectors are written in place (no ping-pong), there is no
 * readSync, and flush() / kernelTime() / cgUpdate() / cgResident() / bicgstabResident() exist.
 *
 * Kernels: SpMV in CSR (csr_row, csr_vector, csr_adaptive + csr_fixup; chosen per matrix, spmv.ts),
 * ELL, DIA, HYB; op T/H through a CSR of Aᵀ; axpy, aypx, scal, copy (a buffer copy); dot / nrm2 and
 * the fused CG step as workgroup tree reductions in double-single (dot.wgsl, cg_update.wgsl,
 * reduce_final.wgsl); dense gemm / add / transpose (dense.ts); f64 data split into double-single on
 * the GPU and read back joined into f64 there, and the conversions of iterative refinement (ds_convert.wgsl, refine.ts). dtypes: f32 and c64 natively, f64 and
 * c128 as double-single (about 48 bits, encoding.ts, wgsl/ds.wgsl).
 *
 * Precision, as the WebGL2 path: f32/c64 SpMV and BLAS-1 accumulate in f32 (the bound
 * 4·(terms + 4)·2⁻²⁴·Σ|a||x| of test/reference.ts); double-single within 1e-12 of the scale
 * |α|Σ|a||x| + |β||y0| (the WebGL2 suite's DS_BOUND); dot/nrm2 accumulate in double-single for every
 * dtype (f32 and c64 products exact there). Measured figures: test/webgpu-*.test.ts print them.
 *
 * Work is recorded and submitted in batches (engine.ts); only reads wait for the GPU.
 *
 * Device loss (GPUDevice.lost): pending reads reject with WebGpuDeviceLostError (E_GPU_LOST), every
 * call throws it, onContextLost callbacks run; then a new device is requested from the same GPU
 * object, every live matrix is uploaded again from its host matrix, every vector gets a new buffer
 * (see WebGpuVector), and onContextRestored callbacks run. When no new device can be had, the backend
 * stays lost.
 */
import { assertDType, isComplex, toComplex, type DType, type Scalar } from '../dtype.js';
import { DisposedError, InputTypeError, ShapeError, UnsupportedError } from '../errors.js';
import type { Op } from '../backend-types.js';
import type { DenseMatrix } from '../formats/dense.js';
import * as dense from './dense.js';
import { acquireDevice, noCapabilities, type DeviceOptions, type WebGpuCapabilities } from './device.js';
import { Engine, REDUCE_GROUPS, reduceGroups, type Binding, type EngineStats, type Params } from './engine.js';
import { chebyshevStepsInF32, residentCg, residentChebyshevCg, type CgRecorder, type ChebyshevDinv } from './cg.js';
import { residentBicgstab } from './bicgstab.js';
import { webgpuTriangular, type WebGpuTriangularOptions } from './trisolve.js';
import { isPrivateCanonical, type CSRMatrix } from '../formats/csr.js';
import type { ChebyshevPolynomial, PathRefinement, SolveOptions, SolveResult, TriangularSolver } from '../solvers/ops.js';
import { webgpuRefinement, wideType, type RefineBackend } from './refine.js';
import { noteLargestComponent } from '../largest-component.js';
import { LossHooks, restorableShadow } from '../device-resident.js';
import { decodeValues, encodeScalar, encodeValues, floatsPerElement, GPU_SPLIT_FROM, gpuSplits, gpuSplitsLength, isDoubleSingle, isZeroScalar, joinDS, streamBytes, writeStream } from './encoding.js';
import { WebGpuDeviceLostError, WebGpuLimitError, WebGpuUnavailableError } from './errors.js';
import { WebGpuMatrix, WebGpuVector, type HostMatrix, type WebGpuCSRArrays, type WebGpuMatrixData, type WebGpuOwner } from './resident.js';
import { buildMatrix, chebyshev32Kernel, chebyshevFusable, prewarmSparse, prewarmSpmv, prewarmSpmvDot, prewarmWideSpmv, widens, runChebyshevFirst32, runChebyshevStep, runChebyshevStep32, runSpmv, splitOnGpu, spmvDotPartials, type DeferredUpload, type WebGpuUploadOptions } from './spmv.js';
import { checkSharedBuffer } from './interop.js';
import { loadWgsl, wgslLoaded } from './shader-source.js';
import { shownTyped, shownValue } from '../shown-value.js';

export interface WebGpuBackendOptions extends DeviceOptions {
  /** use this device (no adapter is requested; the backend cannot replace it after a loss) */
  device?: GPUDevice;
  /** lower maxStorageBufferBindingSize (bytes) below the device's, for tests */
  maxStorageBufferBindingSize?: number;
  /** for tests: cap the workgroups of the resident CG's fused SpMV + dot (default 2048), so small matrices exercise its row strides */
  maxDotGroups?: number;
  /** for tests: bytes of each staging buffer uploadMany streams through (a multiple of 16; default 16 MB), so small matrices cross several */
  stagingBytes?: number;
  /** do not load the WGSL sources in create(): loadShaders() must resolve before the first kernel (the WebGPU path defers them to its first operation) */
  deferShaders?: boolean;
}

/** What WebGpuBackend.create resolves to when the WebGPU path cannot run here. */
export interface WebGpuUnavailable {
  readonly available: false;
  readonly reason: string;
  readonly capabilities: WebGpuCapabilities;
}

export interface WebGpuSpmvOptions {
  /** default 1 ([re, im] for complex dtypes) */
  alpha?: Scalar;
  /** default 0: y is then not read (it may hold NaN) */
  beta?: Scalar;
  /** 'N' (default); 'T' and 'H' need a matrix uploaded with { transpose: true } */
  op?: Op;
}

export interface WebGpuVectorOptions {
  /** keep a host copy of the contents as of the upload and of every read(), for a device restore */
  shadow?: boolean;
}

/** Counters, for tests and the cost model. */
export interface WebGpuStats extends EngineStats {
  deviceLosses: number;
  deviceRestores: number;
}


export class WebGpuBackend implements WebGpuOwner {
  readonly available = true as const;
  readonly stats: WebGpuStats = { dispatches: 0, submits: 0, uploads: 0, uploadBytes: 0, readbacks: 0, bindGroups: 0, deviceLosses: 0, deviceRestores: 0 };
  /** bytes of GPU buffers held by live matrices, vectors and dense matrices */
  bytesInUse = 0;

  private engine: Engine;
  private partials!: GPUBuffer;
  private result!: GPUBuffer;
  /** the word join_max_main raises to the largest high word of a vector read back (read()), cleared before each */
  private largestWord!: GPUBuffer;
  private readonly residents = new Set<WebGpuVector | WebGpuMatrix | dense.WebGpuDense>();
  /** solver work vectors given back, by `${dtype}:${length}`, least recently used size first */
  private readonly pool = new Map<string, WebGpuVector[]>();
  /**
   * each pooled vector's place, by when the pool made it (or it first came back): a size's list is kept in this order, the
   * first taken first, so a repeated solve gets its vectors in the same roles as the last one did and
   * the engine's cached bind groups serve it (handed out in the order they came back, the roles moved
   * between solves: 120–190 new bind groups a solve of poisson3D(12) with Chebyshev for its first six)
   */
  private readonly poolRank = new WeakMap<WebGpuVector, number>();
  private nextRank = 0;
  private pooled = 0;
  /** matrices made from a matrix and freed with it (companion()), by matrix and name */
  private readonly companions = new Map<WebGpuMatrix, Map<string, WebGpuMatrix>>();
  private disposed = false;
  private lost = false;
  private lostReason = '';
  private readonly hooks = new LossHooks();

  private constructor(
    private device: GPUDevice,
    private caps: WebGpuCapabilities,
    private readonly opts: WebGpuBackendOptions,
  ) {
    this.engine = this.setUp(device);
  }

  /**
   * A backend on a new device (navigator.gpu, else the `webgpu` package in Node), or
   * `{ available: false, reason }`. Never throws or rejects for a missing GPU.
   */
  static async create(opts: WebGpuBackendOptions = {}): Promise<WebGpuBackend | WebGpuUnavailable> {
    let got: Awaited<ReturnType<typeof acquireDevice>>;
    if (opts.device != null) {
      // bad input, not a missing GPU: 5 or {} threw V8's "opts.device.features is not iterable"
      if (!isDeviceLike(opts.device)) throw new InputTypeError(`createRuntime: webgpu.device: expected a GPUDevice (features, limits, queue, createBuffer), got ${shownTyped(opts.device)}`);
      const l = opts.device.limits;
      got = {
        device: opts.device,
        caps: {
          ...noCapabilities(''),
          webgpu: true,
          source: 'given',
          adapter: 'the device passed',
          features: [...opts.device.features] as string[],
          subgroups: opts.device.features.has('subgroups'),
          subgroupMinSize: opts.device.features.has('subgroups') ? 4 : 0,
          timestampQuery: opts.device.features.has('timestamp-query'),
          maxStorageBufferBindingSize: l.maxStorageBufferBindingSize,
          maxBufferSize: l.maxBufferSize,
          maxComputeWorkgroupStorageSize: l.maxComputeWorkgroupStorageSize,
          maxComputeInvocationsPerWorkgroup: l.maxComputeInvocationsPerWorkgroup,
          reason: null,
        },
      };
    } else got = await acquireDevice(opts);
    if ('reason' in got) return { available: false, reason: got.reason, capabilities: noCapabilities(got.reason) };
    const need = { maxComputeInvocationsPerWorkgroup: 256, maxComputeWorkgroupStorageSize: 16384 };
    for (const [k, v] of Object.entries(need)) {
      const have = got.caps[k as keyof typeof need];
      if (have < v) {
        const reason = `the WebGPU device offers ${k} = ${have}, the kernels need ${v}`;
        got.device.destroy();
        return { available: false, reason, capabilities: { ...got.caps, reason } };
      }
    }
    try {
      if (!opts.deferShaders) await loadWgsl();
      return new WebGpuBackend(got.device, got.caps, opts);
    } catch (e) {
      const reason = `setting up the WebGPU backend failed: ${(e as Error)?.message ?? String(e)}`;
      return { available: false, reason, capabilities: { ...got.caps, reason } };
    }
  }

  private setUp(device: GPUDevice): Engine {
    const engine = new Engine(device, this.stats, () => this.live());
    engine.subgroupSize = this.caps.subgroupMinSize;
    if (this.opts.maxDotGroups !== undefined) engine.dotGroups = this.opts.maxDotGroups;
    if (this.opts.stagingBytes !== undefined) engine.streamBytes = this.opts.stagingBytes;
    this.partials = device.createBuffer({ size: REDUCE_GROUPS * 16, usage: 128 | 4 | 8 });
    this.result = device.createBuffer({ size: 16, usage: 128 | 4 | 8 });
    this.largestWord = device.createBuffer({ size: 16, usage: 128 | 4 | 8 });
    device.lost.then((info) => this.handleLost(device, info));
    return engine;
  }

  capabilities(): WebGpuCapabilities {
    return { ...this.caps, features: [...this.caps.features] };
  }

  /** Starts making the pipelines of the sparse products operators about to be uploaded may run (spmv.ts, prewarmSparse), in the background. */
  prewarmSparse(dtype: DType): void {
    if (!this.disposed && !this.lost) prewarmSparse(this.engine, dtype);
  }

  /**
   * Starts making, on Dawn's threads (Engine.prewarm), the pipelines a solve of A on this backend
   * runs: the refinement's (b split into double-single, its norms, x joined back; f32 and c64 A
   * through the double-single kernels and the narrowing), the resident CG's (A's product fused with
   * its dot, the scalars, the updates, Jacobi's and f64 DIA's fused Chebyshev steps) — while the host
   * still works before the solve's first dispatch (rt.solve's structure pass). Each was made on first
   * use, the solve waiting: 12 for poisson3D(128) f64, 0.1–0.2 s of an H100 host's first solve where
   * the driver's shader cache is cold. The solves wait for them (afterPrewarm), not make them again.
   * Not below PREWARM_SOLVE_FROM rows: there the host has little to do before the first dispatch, and
   * the set (a few pipelines more than one solve runs) costs more than it hides where compiling is slow
   * and cores few (Dawn + SwiftShader on 2 cores: runtime-webgpu's CG test of 900 rows 13 → 28 s).
   */
  prewarmSolve(A: WebGpuMatrix): void {
    if (this.disposed || this.lost || A.disposed || A.rows < PREWARM_SOLVE_FROM || !wgslLoaded()) return;
    const e = this.engine;
    const dt = A.dtype;
    const wide = wideType(dt);
    if (isDoubleSingle(wide)) for (const entry of ['split_main', 'join_main', 'join_max_main', ...(wide !== dt ? ['single_main', 'add_single_main'] : [])]) e.prewarm('ds_convert', 'f64', {}, entry);
    for (const t of wide !== dt ? [wide, dt] : [dt]) {
      e.prewarm('dot', t);
      e.prewarm('reduce_final', t);
    }
    prewarmSpmv(e, A.data.main, dt);
    if (wide !== dt) prewarmWideSpmv(e, A.data.main, A.source.matrix as HostMatrix, wide);
    prewarmSpmvDot(e, A.data.main, dt);
    e.prewarm('cg_scalars', dt);
    e.prewarm('cg_update', dt);
    e.prewarm('cg_update', dt, {}, 'jacobi_main');
    for (const k of ['axpy', 'aypx', 'scal'] as const) e.prewarm(k, dt);
    if (dt === 'f64' && chebyshevFusable(A.data.main)) e.prewarm('chebyshev', dt, {}, 'first_main');
  }

  /** fn() once the pipelines prewarmSolve() started are made (at once where none is being made). */
  private afterPrewarm<T>(fn: () => Promise<T>): Promise<T> {
    const wait = this.engine.prewarmed();
    if (!wait) return fn();
    return wait.then(() => {
      this.live();
      return fn();
    });
  }

  /** Loads the WGSL sources (once per page or process); kernels need them (see deferShaders). */
  loadShaders(): Promise<void> {
    return loadWgsl();
  }

  /** The storage-buffer limit in force (bytes): the device's, or the lower one of the options. */
  get maxStorageBufferBindingSize(): number {
    return Math.min(this.caps.maxStorageBufferBindingSize, this.opts.maxStorageBufferBindingSize ?? Infinity);
  }

  /** Validation and out-of-memory errors the device reported outside any call (newest last, at most 20). */
  get deviceErrors(): readonly string[] {
    return this.engine.errors;
  }

  /** true from a device loss until a new device is set up */
  get contextLost(): boolean {
    return this.lost;
  }

  /** Calls `cb` when the device is lost (after pending calls were rejected). Returns an unsubscribe function. */
  onContextLost(cb: () => void): () => void {
    return this.hooks.onLost(cb);
  }

  /** Calls `cb` when a new device is set up and every live matrix was uploaded again. Returns an unsubscribe function. */
  onContextRestored(cb: () => void): () => void {
    return this.hooks.onRestored(cb);
  }

  // ---- resident data ----------------------------------------------------------------------------

  /** Uploads a CSR, SELL-C-σ, ELL, DIA or HYB matrix of dtype f32, c64, f64 or c128 (validated first). */
  upload(matrix: HostMatrix, options: WebGpuUploadOptions = {}): WebGpuMatrix {
    this.live();
    this.checkUpload(matrix);
    const data = buildMatrix(this.engine, matrix, options, this.maxStorageBufferBindingSize);
    return new WebGpuMatrix(this, options.widen ? wideType(matrix.dtype) : matrix.dtype, matrix.rows, matrix.cols, matrix.nnz, matrix.format, data, { matrix, options: { ...options } });
  }

  private checkUpload(matrix: HostMatrix): void {
    const f = (matrix as { format: string }).format;
    if (f !== 'csr' && f !== 'sell' && f !== 'ell' && f !== 'dia' && f !== 'hyb') throw new UnsupportedError(`WebGPU upload: format ${f} is not supported (csr, sell, ell, dia, hyb)`);
    assertDType(matrix.dtype, 'WebGPU upload');
    // the library's own validated CSRs (an AMG hierarchy's levels: ≈ 0.3 s of poisson3D(128)'s first solve) are not scanned again
    if (!(matrix.format === 'csr' && isPrivateCanonical(matrix))) matrix.validate();
  }

  /**
   * Uploads several matrices as upload() does (the same buffers, kernels and products), their contents
   * streamed through the engine's two kept staging buffers (Engine.stream): no fresh mapped memory per
   * matrix, the host filling one staging buffer while the GPU copies out of the other; f64 values go as
   * their IEEE bytes with no host pass, the GPU's split testing their range (one flag read back for the
   * batch). For many matrices used together (a multigrid hierarchy's levels); resolves once they are up.
   */
  async uploadMany(list: readonly { matrix: HostMatrix; options?: WebGpuUploadOptions }[]): Promise<WebGpuMatrix[]> {
    this.live();
    for (const { matrix } of list) this.checkUpload(matrix);
    const deferred: DeferredUpload = { jobs: [], after: [] };
    const built: WebGpuMatrixData[] = [];
    try {
      for (const { matrix, options } of list) built.push(buildMatrix(this.engine, matrix, options ?? {}, this.maxStorageBufferBindingSize, deferred, this.transposeSource(list, built, matrix, options)));
      // their products' pipelines are made on Dawn's threads while the host streams the contents
      if (wgslLoaded()) for (let i = 0; i < built.length; i++) prewarmSpmv(this.engine, built[i].main, list[i].matrix.dtype);
      if (wgslLoaded() && list.some((e) => e.options?.transposeOf !== undefined)) this.engine.prewarm('csr_transpose_values', 'f32');
      await this.engine.stream(deferred.jobs);
      this.live();
      for (const a of deferred.after) a();
      const flags = deferred.flags ? new Uint32Array(await this.engine.read(deferred.flags, 4))[0] : 0;
      if (flags & 2) throw new Error('internal: WebGPU uploadMany: a matrix given as the transpose of another (transposeOf) is not its transpose');
      if (flags !== 0) {
        // a value f32 cannot hold (rare): upload() of each finds it and throws its error, naming the value
        for (const { matrix, options } of list) for (const b of buildMatrix(this.engine, matrix, options ?? {}, this.maxStorageBufferBindingSize).buffers) this.engine.release(b);
        throw new WebGpuLimitError('WebGPU uploadMany: a value is outside the f32 range, so double-single cannot hold it on the GPU');
      }
    } catch (e) {
      for (const d of built) for (const b of d.buffers) this.engine.release(b);
      throw e;
    } finally {
      if (deferred.flags) this.engine.release(deferred.flags);
    }
    return list.map(({ matrix, options }, i) => new WebGpuMatrix(this, matrix.dtype, matrix.rows, matrix.cols, matrix.nnz, matrix.format, built[i], { matrix, options: { ...options } }));
  }

  /**
   * The GPU arrays a batch entry's values are copied from (options.transposeOf: an earlier CSR entry of
   * the same dtype and transposed shape, uploaded as CSR with its values in their final form), where the
   * shaders are loaded; else undefined, and its values are sent.
   */
  private transposeSource(list: readonly { matrix: HostMatrix; options?: WebGpuUploadOptions }[], built: readonly WebGpuMatrixData[], matrix: HostMatrix, options?: WebGpuUploadOptions): WebGpuCSRArrays | undefined {
    const j = options?.transposeOf;
    if (j === undefined || !wgslLoaded() || options?.transpose) return undefined;
    const of = list[j]?.matrix;
    const part = built[j]?.main;
    if (!of || !part || of.format !== 'csr' || matrix.format !== 'csr' || of.dtype !== matrix.dtype || of.rows !== matrix.cols || of.cols !== matrix.rows || of.nnz !== matrix.nnz) return undefined;
    return part.kind === 'csr_row' || part.kind === 'csr_vector' || part.kind === 'csr_adaptive' ? part : undefined;
  }

  /**
   * A resident vector of `dtype`: from data (components, interleaved re/im when complex; rounded to
   * f32, or split into double-single for f64/c128) or zero-filled of a length in elements.
   */
  vector(dtype: DType, data: ArrayLike<number> | number, options: WebGpuVectorOptions = {}): WebGpuVector {
    this.live();
    assertDType(dtype, 'WebGPU vector');
    const comp = isComplex(dtype) ? 2 : 1;
    const length = typeof data === 'number' ? data : data.length / comp;
    if (!Number.isInteger(length) || length < 0) {
      throw new ShapeError(typeof data === 'number' ? `WebGPU vector: length ${length} must be a nonnegative integer` : `WebGPU vector: ${data.length} components do not make whole ${dtype} elements`);
    }
    const what = `a vector of ${length} ${dtype} elements`;
    if (!options.shadow && typeof data !== 'number') {
      // one pass writes the mapped range: IEEE bytes the GPU splits into double-single in place, or the host's encoding
      let gpuSplit = false;
      const buf = this.engine.filledBuffer(what, streamBytes(dtype, data.length), this.maxStorageBufferBindingSize, (mapped) => (gpuSplit = writeStream(dtype, data, mapped, true)));
      if (gpuSplit) this.splitInPlace(buf, data.length);
      return new WebGpuVector(this, dtype, length, buf, buf.size, null);
    }
    const floats = typeof data === 'number' ? null : encodeValues(dtype, data);
    const bytes = length * floatsPerElement(dtype) * 4;
    const buf = this.engine.buffer(what, floats ?? bytes, this.maxStorageBufferBindingSize);
    const shadow = options.shadow ? (floats ? floats.slice() : new Float32Array(bytes / 4)) : null;
    return new WebGpuVector(this, dtype, length, buf, buf.size, shadow);
  }

  /** Records the split of `components` IEEE f64 values at the start of buf into double-single pairs (wgsl/ds_convert.wgsl). */
  private splitInPlace(buf: GPUBuffer, components: number): void {
    splitOnGpu(this.engine, buf, components);
  }

  /**
   * Overwrites a vector's contents with host values (components, as vector() takes them): for a
   * pooled solver vector, no new buffer. In call order with the work recorded around it.
   */
  writeVector(v: WebGpuVector, data: ArrayLike<number>, o: { deferRangeCheck?: boolean } = {}): void {
    this.live();
    this.checkVectors('WebGPU writeVector', v.dtype, v, v.length, 'v', v, v.length);
    if (data.length !== v.length * (isComplex(v.dtype) ? 2 : 1)) throw new ShapeError(`WebGPU writeVector: ${data.length} components for ${v.length} ${v.dtype} elements`);
    // deferRangeCheck (@internal, iterative refinement): no host scan of the data; a finite value f32
    // cannot hold arrives as ±Inf, and the caller, seeing a norm of Inf or NaN, refuses it (checkRange)
    if (o.deferRangeCheck ? gpuSplitsLength(v.dtype, data) : gpuSplits(v.dtype, data)) {
      this.engine.write(v.buffer, data as Float64Array);
      this.splitInPlace(v.buffer, data.length);
    } else this.engine.write(v.buffer, encodeValues(v.dtype, data));
    v.version++;
  }

  // ---- solver work vectors ----------------------------------------------------------------------

  /**
   * A zero vector for a solver's work, from the pool of vectors earlier solves gave back (recycle),
   * else a new one: repeated solves of one size create no buffers. Pooled vectors stay allocated
   * (and counted in bytesInUse) until freeScratch() or dispose().
   */
  scratchVector(dtype: DType, length: number): WebGpuVector {
    return this.pooledVector(dtype, length, true);
  }

  /** A vector from the pool (zeroed when `zero`; else holding whatever it held), else a new zero one. */
  private pooledVector(dtype: DType, length: number, zero: boolean): WebGpuVector {
    this.live();
    const key = `${dtype}:${length}`;
    const free = this.pool.get(key);
    const v = free?.pop();
    if (v) {
      this.pooled--;
      if (!v.disposed) {
        if (zero) this.engine.clear(v.buffer, v.bytes);
        v.version++;
        return v;
      }
    }
    const made = this.vector(dtype, length);
    this.poolRank.set(made, this.nextRank++);
    return made;
  }

  /** Gives a vector from scratchVector() back to the pool (a caller's buffer, or a disposed vector, is let go of). */
  recycle(v: WebGpuVector): void {
    if (v.disposed) return;
    if (this.disposed || this.lost || !v.owned || (v as unknown as { owner: unknown }).owner !== this) {
      v.dispose();
      return;
    }
    const key = `${v.dtype}:${v.length}`;
    const free = this.pool.get(key) ?? [];
    // the most recently used size last: the first one is dropped first
    this.pool.delete(key);
    this.pool.set(key, free);
    let rank = this.poolRank.get(v);
    if (rank === undefined) this.poolRank.set(v, (rank = this.nextRank++));
    // descending rank: pop() takes the first-ranked
    let at = free.length;
    while (at > 0 && this.poolRank.get(free[at - 1])! < rank) at--;
    free.splice(at, 0, v);
    this.pooled++;
    for (const [k, list] of this.pool) {
      if (this.pooled <= SCRATCH_POOL_MAX) break;
      while (list.length > 0 && this.pooled > SCRATCH_POOL_MAX) {
        list.shift()!.dispose();
        this.pooled--;
      }
      if (list.length === 0) this.pool.delete(k);
    }
  }

  /** Frees the pooled solver work vectors (they are made again by the next solve). */
  freeScratch(): void {
    for (const list of this.pool.values()) for (const v of list) v.dispose();
    this.pool.clear();
    this.pooled = 0;
  }

  /**
   * A vector over a caller's GPUBuffer of this device, not copied (interop.ts checks it and states the
   * layout). The buffer stays the caller's: dispose() lets go of it without destroying it. Work that
   * names it is submitted as soon as it is recorded (Engine.share).
   */
  async wrapBuffer(buffer: GPUBuffer, dtype: DType, length: number): Promise<WebGpuVector> {
    this.live();
    assertDType(dtype, 'WebGPU wrapBuffer');
    const b = await checkSharedBuffer(this.device, buffer, dtype, length, this.maxStorageBufferBindingSize);
    this.live();
    this.engine.share(b);
    return new WebGpuVector(this, dtype, length, b, b.size, null, false);
  }

  /**
   * The buffer that holds `v` (the layout of interop.ts), marked shared: what was recorded so far is
   * submitted now, and later work that names it as soon as it is recorded. It stays `v`'s: destroyed
   * by v.dispose() unless it was the caller's.
   */
  shareBuffer(v: WebGpuVector): GPUBuffer {
    this.live();
    this.checkVectors('WebGPU shareBuffer', v.dtype, v, v.length, 'v', v, v.length);
    this.engine.share(v.buffer);
    return v.buffer;
  }

  // ---- kernels ----------------------------------------------------------------------------------

  /** y = α·op(A)·x + β·y on resident data. x may be y itself. */
  spmv(M: WebGpuMatrix, x: WebGpuVector, y: WebGpuVector, opts: WebGpuSpmvOptions = {}): void {
    this.live();
    const op = opts.op ?? 'N';
    if (op !== 'N' && op !== 'T' && op !== 'H') throw new UnsupportedError(`WebGPU spmv: op ${shownValue(op)} is not one of 'N', 'T', 'H'`);
    if ((M as unknown as { owner: unknown }).owner !== this) throw new UnsupportedError('WebGPU spmv: a matrix of another WebGpuBackend');
    const d = M.data;
    const part = op === 'N' ? d.main : d.transposed;
    if (!part) throw new UnsupportedError(`WebGPU spmv: op ${shownValue(op)} needs the matrix uploaded with { transpose: true }`);
    const [outLen, inLen] = op === 'N' ? [M.rows, M.cols] : [M.cols, M.rows];
    this.checkVectors('WebGPU spmv', M.dtype, x, inLen, 'x', y, outLen);
    const dt = M.dtype;
    const [br, bi] = toComplex(opts.beta ?? 0);
    const common: Params = {
      alpha: this.scalar(dt, opts.alpha ?? 1, 'alpha'),
      beta: this.scalar(dt, opts.beta ?? 0, 'beta'),
      useBeta: !isZeroScalar(dt, br, bi),
      conj: op === 'H' && isComplex(dt) ? -1 : 1,
    };
    runSpmv(this.engine, part, dt, x.buffer, y.buffer, common);
    y.version++;
  }

  /** y ← α·x + y (α = 0 leaves y as it is: Inf/NaN in x do not reach it, as on the CPU path) */
  axpy(alpha: Scalar, x: WebGpuVector, y: WebGpuVector): void {
    this.blas1('axpy', alpha, x, y);
  }

  /** y ← α·y + x (α = 0 copies x: y is not read, as on the CPU path) */
  aypx(alpha: Scalar, x: WebGpuVector, y: WebGpuVector): void {
    this.blas1('aypx', alpha, x, y);
  }

  /** y ← α·y (α = 0 writes zeros: NaN in y does not survive, as on the CPU path) */
  scal(alpha: Scalar, y: WebGpuVector): void {
    this.blas1('scal', alpha, y, y);
  }

  /** y ← x (a buffer copy) */
  copy(x: WebGpuVector, y: WebGpuVector): void {
    this.live();
    this.checkVectors('WebGPU copy', x.dtype, x, y.length, 'x', y, y.length);
    // a buffer cannot be copied onto itself (a validation error); y ← y has nothing to do
    if (x.buffer !== y.buffer) this.engine.copy(x.buffer, y.buffer, x.length * floatsPerElement(x.dtype) * 4);
    y.version++;
  }

  private blas1(name: 'axpy' | 'aypx' | 'scal', alpha: Scalar, x: WebGpuVector, y: WebGpuVector): void {
    this.live();
    this.checkVectors(`WebGPU ${name}`, x.dtype, x, y.length, 'x', y, y.length);
    const [ar, ai] = toComplex(alpha);
    const enc = this.scalar(y.dtype, alpha, 'alpha');
    const zero = isZeroScalar(y.dtype, ar, ai);
    // α = 0: axpy leaves y as it is (reference BLAS, and the CPU path: Inf/NaN in x never reach y)
    if (name === 'axpy' && zero) return;
    // α = 0: aypx is y = x, y not read (as on the CPU path: Inf/NaN in y do not survive)
    if (name === 'aypx' && zero) return this.copy(x, y);
    const n = y.length;
    const bindings = [{ binding: 2, buffer: y.buffer, write: true }];
    if (name !== 'scal') bindings.unshift({ binding: 1, buffer: x.buffer, write: false });
    // axpy and aypx read α from a solver's state buffer when P.m = 1 (resident solvers); here it is P.alpha
    if (name !== 'scal') bindings.push({ binding: 3, buffer: this.result, write: false });
    this.engine.dispatch(name, y.dtype, Math.ceil(n / 256), { n, alpha: enc, w: zero ? 1 : 0 }, bindings);
    y.version++;
  }

  /**
   * Σ x_i·y_i (conj: Σ conj(x_i)·y_i, complex only), a workgroup tree reduction in double-single;
   * only the 16-byte result is read back. A number for real dtypes, [re, im] for complex ones.
   */
  async dot(x: WebGpuVector, y: WebGpuVector, options: { conj?: boolean } = {}): Promise<number | [number, number]> {
    this.live();
    this.checkVectors('WebGPU dot', x.dtype, x, y.length, 'x', y, y.length);
    const [re, im] = await this.reduce('dot', x.dtype, x.length, { conj: options.conj && isComplex(x.dtype) ? -1 : 1 }, [
      { binding: 1, buffer: x.buffer },
      { binding: 2, buffer: y.buffer },
      { binding: 3, buffer: this.partials, write: true },
    ]);
    return isComplex(x.dtype) ? [re, im] : re;
  }

  /** ‖x‖₂ = sqrt(Σ|x_i|²), the sum as in dot (|x_i|² must stay within the f32 range). */
  async nrm2(x: WebGpuVector): Promise<number> {
    this.live();
    this.checkVectors('WebGPU nrm2', x.dtype, x, x.length, 'x', x, x.length);
    const [re] = await this.reduce('dot', x.dtype, x.length, { conj: -1 }, [
      { binding: 1, buffer: x.buffer },
      { binding: 2, buffer: x.buffer },
      { binding: 3, buffer: this.partials, write: true },
    ]);
    return Math.sqrt(Math.max(0, re));
  }

  /**
   * The fused CG step: x ← x + α·p, r ← r − α·q and ‖r‖² of the new r, in one pass over the four
   * vectors plus one small reduction (SolverOps.cgUpdate).
   */
  async cgUpdate(alpha: Scalar, p: WebGpuVector, q: WebGpuVector, x: WebGpuVector, r: WebGpuVector): Promise<number> {
    this.live();
    this.checkVectors('WebGPU cgUpdate', p.dtype, p, r.length, 'p', q, r.length);
    this.checkVectors('WebGPU cgUpdate', p.dtype, x, r.length, 'x', r, r.length);
    const [ar, ai] = toComplex(alpha);
    const [re] = await this.reduce('cg_update', p.dtype, r.length, { alpha: this.scalar(p.dtype, alpha, 'alpha'), beta: this.scalar(p.dtype, [-ar, -ai], 'alpha') }, [
      { binding: 1, buffer: p.buffer },
      { binding: 2, buffer: q.buffer },
      { binding: 3, buffer: x.buffer, write: true },
      { binding: 4, buffer: r.buffer, write: true },
      { binding: 5, buffer: this.partials, write: true },
      { binding: 6, buffer: this.result },
    ]);
    x.version++;
    r.version++;
    return re;
  }

  private async reduce(kernel: 'dot' | 'cg_update', dt: DType, n: number, params: Params, bindings: Binding[]): Promise<[number, number]> {
    this.reduceInto(kernel, dt, n, params, bindings, this.result, 0);
    const f = new Float32Array(await this.engine.read(this.result, 16));
    return [joinDS(f[0], f[1]), joinDS(f[2], f[3])];
  }

  /** Records a reduction whose sum lands in out[slot] (a vec4 of complex double-single); nothing waits. */
  private reduceInto(kernel: 'dot' | 'cg_update', dt: DType, n: number, params: Params, bindings: Binding[], out: GPUBuffer, slot: number): void {
    const groups = reduceGroups(n);
    this.engine.dispatch(kernel, dt, groups, { ...params, n, k: groups * 256 }, bindings);
    this.engine.dispatch('reduce_final', dt, 1, { n: groups, m: slot }, [
      { binding: 1, buffer: this.partials },
      { binding: 2, buffer: out, write: true },
    ]);
  }

  /**
   * CG that stays on the GPU (src/webgpu/cg.ts): α and β are computed there, the host reads the
   * residuals every `checkEvery` iterations. D: the Jacobi preconditioner as a one-diagonal matrix.
   */
  cgResident(A: WebGpuMatrix, D: WebGpuMatrix | null, b: WebGpuVector, options: SolveOptions<WebGpuVector> & { checkEvery: number }): Promise<SolveResult<WebGpuVector>> {
    this.live();
    return this.afterPrewarm(() => residentCg(this.cgRecorder, A, D, b, options));
  }

  /**
   * Iterative refinement of A·x = b on the GPU (src/webgpu/refine.ts, SolverOps.refinement): b, x and
   * r = b − A·x in double-single on pooled vectors; for an f32 / c64 A through its double-single copy.
   * Undefined where A's host format has no astype (its copy cannot be made); `range`: see SolverOps.refinement.
   */
  refinement(A: WebGpuMatrix, b: Float64Array, x0: Float64Array | undefined): Promise<PathRefinement<WebGpuVector>> | undefined;
  refinement(A: WebGpuMatrix, b: Float64Array, x0: Float64Array | undefined, range?: number): Promise<PathRefinement<WebGpuVector> | undefined> | undefined;
  refinement(A: WebGpuMatrix, b: Float64Array, x0: Float64Array | undefined, range?: number): Promise<PathRefinement<WebGpuVector> | undefined> | undefined {
    this.live();
    if (!isDoubleSingle(A.dtype) && typeof (A.source.matrix as { astype?: unknown }).astype !== 'function') return undefined;
    return this.afterPrewarm(() => webgpuRefinement(this.refineHost, A, b, x0, range));
  }

  private readonly refineHost: RefineBackend = ((be: WebGpuBackend): RefineBackend => ({
    scratchVector: (dt, n) => be.scratchVector(dt, n),
    recycle: (v) => be.recycle(v),
    writeVector: (v, data) => be.writeVector(v, data, { deferRangeCheck: true }),
    copy: (x, y) => be.copy(x, y),
    spmv: (A, x, y, o) => be.spmv(A, x, y, o),
    axpy: (a, x, y) => be.axpy(a, x, y),
    nrm2: (x) => be.nrm2(x),
    read: (v) => be.read(v),
    narrow: (w, out) => be.convert('single_main', w, [{ binding: 2, buffer: w.buffer }, { binding: 3, buffer: out.buffer, write: true }], out),
    addNarrow: (d, x) => be.convert('add_single_main', x, [{ binding: 4, buffer: x.buffer, write: true }, { binding: 5, buffer: d.buffer }], x),
    wideOf: (A) => {
      if (isDoubleSingle(A.dtype)) return A;
      const source = A.source.matrix as HostMatrix & { astype(dt: DType): HostMatrix };
      const options = A.source.options as WebGpuUploadOptions;
      // an f32 CSR or DIA: from its own values, without an f64 host copy (poisson3D(128) on the H200 host:
      // astype's 118 MB 0.2 s, then 'auto''s SELL-C-σ of it 0.3 s and its upload 0.1 s; spmv.ts widen)
      if (widens(source)) return be.companion(A, 'double-single', () => source, { ...options, widen: true });
      return be.companion(A, 'double-single', () => source.astype(wideType(A.dtype)), options);
    },
  }))(this);

  /**
   * A matrix made from A (its double-single copy, its Jacobi diagonal) and uploaded once: later calls
   * with the same name return it, and it is freed with A. `make` runs only the first time.
   */
  companion(A: WebGpuMatrix, name: string, make: () => HostMatrix, options: WebGpuUploadOptions = {}): WebGpuMatrix {
    this.live();
    let made = this.companions.get(A);
    let m = made?.get(name);
    if (m && !m.disposed) return m;
    if (A.disposed) throw new DisposedError('WebGpuMatrix');
    m = this.upload(make(), options);
    if (!made) this.companions.set(A, (made = new Map()));
    made.set(name, m);
    return m;
  }

  /** One pass of wgsl/ds_convert.wgsl over the components of `w` (double-single) and a single-precision vector of its length. */
  private convert(entry: 'single_main' | 'add_single_main', w: WebGpuVector, bindings: Binding[], written: WebGpuVector): void {
    this.live();
    const comps = w.length * (isComplex(w.dtype) ? 2 : 1);
    this.engine.dispatch('ds_convert', 'f64', Math.ceil(comps / 256), { n: comps }, bindings, undefined, entry);
    written.version++;
  }

  /**
   * CG preconditioned by the Chebyshev polynomial `poly` in D⁻¹A, staying on the GPU as cgResident does
   * (src/webgpu/cg.ts, residentChebyshevCg). D: the inverse diagonal as a one-diagonal DIA matrix (or
   * what makes it, called only where it is read); where A's kernel has the fused step and `poly.dinv`
   * gives a constant D⁻¹, it goes into the coefficients and no D⁻¹ is read.
   */
  cgChebyshevResident(A: WebGpuMatrix, D: WebGpuMatrix | (() => WebGpuMatrix), b: WebGpuVector, options: SolveOptions<WebGpuVector> & { checkEvery: number }, poly: ChebyshevPolynomial): Promise<SolveResult<WebGpuVector>> {
    this.live();
    const G = this.cgRecorder;
    let dinv: ChebyshevDinv;
    if (poly.dinv !== undefined && G.fusedChebyshev(A)) dinv = { value: poly.dinv };
    else {
      const dm = (typeof D === 'function' ? D() : D).data.main;
      if (dm.kind !== 'dia') throw new UnsupportedError("WebGPU resident CG: the Chebyshev preconditioner's inverse diagonal must be a one-diagonal DIA matrix");
      dinv = { buffer: dm.values };
    }
    return this.afterPrewarm(() => residentChebyshevCg(poly, (c) => this.scalar(b.dtype, c, 'a Chebyshev coefficient'))(G, A, dinv, b, options));
  }

  /** Whether cgChebyshevResident runs `poly`'s steps on A in f32 at tolerance `tol` (src/webgpu/cg.ts chebyshevStepsInF32). */
  chebyshevStepsInF32(A: WebGpuMatrix, poly: ChebyshevPolynomial, tol: number): boolean {
    return chebyshevStepsInF32(this.cgRecorder, A, poly.degree, tol);
  }

  /** BiCGSTAB that stays on the GPU (src/webgpu/bicgstab.ts), as cgResident. */
  bicgstabResident(A: WebGpuMatrix, D: WebGpuMatrix | null, b: WebGpuVector, options: SolveOptions<WebGpuVector> & { checkEvery: number }): Promise<SolveResult<WebGpuVector>> {
    this.live();
    return residentBicgstab(this.cgRecorder, A, D, b, options);
  }

  /**
   * A sparse triangular factor (host CSR, square) resident for repeated solves x = T⁻¹·b
   * (SolverOps.triangular): level-scheduled or by Jacobi sweeps, chosen per matrix (trisolve.ts;
   * `method` says which). Every dtype (f64/c128 in double-single).
   */
  triangular(T: CSRMatrix, options: WebGpuTriangularOptions): TriangularSolver<WebGpuVector> {
    this.live();
    assertDType(T.dtype, 'WebGPU triangular');
    return webgpuTriangular(
      {
        engine: this.engine,
        bindingLimit: this.maxStorageBufferBindingSize,
        live: () => this.live(),
        check: (where, v, dt, n) => this.checkVectors(where, dt, v, n, 'x', v, n),
      },
      T,
      options,
    );
  }

  private readonly cgRecorder: CgRecorder = ((be: WebGpuBackend): CgRecorder => ({
    backend: be,
    state: (data) => be.engine.smallBuffer('the CG state', data),
    partials: (count) => be.engine.smallBuffer('the partial sums of a resident solve', count * 16),
    partialsFor: (A) => Math.max(spmvDotPartials(be.engine, A.data.main), 2 * reduceGroups(A.rows)),
    spmvDot: (A, p, q, partials) => {
      be.live();
      const n = runSpmv(be.engine, A.data.main, A.dtype, p.buffer, q.buffer, { alpha: be.scalar(A.dtype, 1, 'alpha') }, partials);
      q.version++;
      return n;
    },
    dot: (x, y, S, slot) => {
      be.live();
      be.reduceInto('dot', x.dtype, x.length, { conj: -1 }, [
        { binding: 1, buffer: x.buffer },
        { binding: 2, buffer: y.buffer },
        { binding: 3, buffer: be.partials, write: true },
      ], S, slot);
    },
    scalars: (kernel, dt, S, phase, ring, jacobi) => {
      be.live();
      be.engine.dispatch(kernel, dt, 1, { m: phase, n: ring, w: jacobi ? 1 : 0, k: coefKind(dt) }, [{ binding: 1, buffer: S, write: true }]);
    },
    cgScalars: (dt, S, partials, count, phase, ring, jacobi, second = 0) => {
      be.live();
      be.engine.dispatch('cg_scalars', dt, 1, { m: phase, n: ring, w: jacobi ? 1 : 0, k: coefKind(dt), alpha: Float32Array.of(count, second, 0, 0) }, [
        { binding: 1, buffer: S, write: true },
        { binding: 2, buffer: partials },
      ]);
    },
    update: (p, q, x, r, S, partials, jacobi) => {
      be.live();
      const n = r.length;
      const groups = reduceGroups(n);
      const bindings: Binding[] = [
        { binding: 1, buffer: p.buffer },
        { binding: 2, buffer: q.buffer },
        { binding: 3, buffer: x.buffer, write: true },
        { binding: 4, buffer: r.buffer, write: true },
        { binding: 5, buffer: partials, write: true },
        { binding: 6, buffer: S },
      ];
      if (jacobi) {
        const d = jacobi.D.data.main;
        if (d.kind !== 'dia') throw new UnsupportedError('WebGPU resident CG: the Jacobi preconditioner must be a one-diagonal DIA matrix');
        bindings.push({ binding: 7, buffer: d.values }, { binding: 8, buffer: jacobi.z.buffer, write: true });
        jacobi.z.version++;
      }
      be.engine.dispatch('cg_update', p.dtype, groups, { n, m: 1, k: groups * 256 }, bindings, undefined, jacobi ? 'jacobi_main' : undefined);
      x.version++;
      r.version++;
      return groups;
    },
    chebyshev: (first, last, r, dinv, res, d, z, c, partials) => {
      be.live();
      const n = r.length;
      const groups = reduceGroups(n);
      be.engine.dispatch('chebyshev', r.dtype, groups, { n, m: first ? 0 : 1, k: groups * 256, w: last ? 1 : 0, alpha: c[0], beta: c[1] }, [
        { binding: 1, buffer: r.buffer },
        { binding: 2, buffer: dinv },
        { binding: 3, buffer: res.buffer, write: true },
        { binding: 4, buffer: d.buffer, write: true },
        { binding: 5, buffer: z.buffer, write: true },
        { binding: 6, buffer: partials, write: true },
      ]);
      res.version++;
      d.version++;
      z.version++;
    },
    chebyshevFirst: (r, dinv, z, c2, last, partials) => {
      be.live();
      const n = r.length;
      // with `last`, cg_update's grid (its partials of rᴴz follow as many of ‖r‖²); else an element a thread
      const groups = last ? reduceGroups(n) : Math.ceil(n / 256);
      // without D⁻¹ (folded into c2) r fills its binding, unread
      be.engine.dispatch('chebyshev', r.dtype, groups, { n, m: dinv ? 1 : 0, k: groups * 256, w: last ? 1 : 0, beta: c2 }, [
        { binding: 1, buffer: r.buffer },
        { binding: 2, buffer: dinv ?? r.buffer },
        { binding: 5, buffer: z.buffer, write: true },
        { binding: 6, buffer: partials, write: true },
      ], undefined, 'first_main');
      z.version++;
    },
    chebyshevStep: (A, zk, zo, r, dinv, c, first, last, S, partials, after) => {
      be.live();
      const part = A.data.main;
      if (!chebyshevFusable(part)) throw new UnsupportedError(`WebGPU resident CG: no fused Chebyshev step for a ${part.kind} matrix`);
      const n = runChebyshevStep(be.engine, part, A.dtype, zk.buffer, zo.buffer, r.buffer, dinv ?? r.buffer, S, partials, c, (first ? 1 : 0) | (last ? 2 : 0) | (dinv ? 4 : 0), after);
      zo.version++;
      return n;
    },
    fusedChebyshev: (A) => chebyshevFusable(A.data.main),
    fusedChebyshev32: (A) => A.dtype === 'f64' && chebyshev32Kernel(A.data.main) !== null,
    chebyshevFirst32: (A, r, dinv, z, c2) => {
      be.live();
      runChebyshevFirst32(be.engine, A.data.main, r.buffer, dinv ?? r.buffer, z.buffer, c2, dinv ? 4 : 0);
      z.version++;
    },
    chebyshevStep32: (A, zk, zo, r, dinv, c, first, zds, S, partials, after) => {
      be.live();
      const n = runChebyshevStep32(be.engine, A.data.main, zk.buffer, zo.buffer, r.buffer, dinv ?? r.buffer, S, partials, c, (first ? 1 : 0) | (dinv ? 4 : 0), zds?.buffer ?? null, after);
      (zds ?? zo).version++;
      return n;
    },
    blas1: (name, x, y, S, slot, whileConverging) => {
      be.live();
      be.engine.dispatch(name, y.dtype, Math.ceil(y.length / 256), { n: y.length, m: 1, k: slot, w: whileConverging ? 1 : 0 }, [
        { binding: 1, buffer: x.buffer },
        { binding: 2, buffer: y.buffer, write: true },
        { binding: 3, buffer: S },
      ]);
      y.version++;
    },
    read: async (S, bytes) => {
      be.live();
      return new Float32Array(await be.engine.read(S, bytes));
    },
    release: (S) => {
      if (!be.lost) be.engine.keep(S); // else it died with the device
    },
    flush: () => be.engine.flush(),
  }))(this);

  // ---- read-back, batching, timing -------------------------------------------------------------

  /** The vector's values: Float32Array for f32/c64, Float64Array (hi + lo) for f64/c128. */
  async read(v: WebGpuVector): Promise<Float32Array | Float64Array> {
    this.live();
    if (v.disposed) throw new DisposedError('WebGpuVector');
    const comps = v.length * (isComplex(v.dtype) ? 2 : 1);
    if (isDoubleSingle(v.dtype) && !v.shadow && comps >= GPU_SPLIT_FROM) {
      // joined into IEEE f64 bits on the GPU (wgsl/ds_convert.wgsl's join_main, bit for bit joinDS):
      // what comes back is the answer, no decoding on the host
      // with max |xᵢ| of a real vector beside it (the largest high word of the joined bits, one word read
      // back with x): a solve's finiteness test and certificate make no host pass over x
      // (one buffer for every read: its bind groups are cached, and the queue runs each read's clear,
      // join and copy before the next read's)
      const f = this.pooledVector(v.dtype, v.length, false);
      const top = isComplex(v.dtype) ? null : this.largestWord;
      if (top) this.engine.clear(top, 16);
      try {
        const joined: Binding[] = [{ binding: 6, buffer: v.buffer }, { binding: 1, buffer: f.buffer, write: true }];
        if (top) joined.push({ binding: 7, buffer: top, write: true });
        this.engine.dispatch('ds_convert', 'f64', Math.ceil(comps / 256), { n: comps }, joined, undefined, top ? 'join_max_main' : 'join_main');
        const [bits, word] = await Promise.all([this.engine.read(f.buffer, comps * 8), top && this.engine.read(top, 4)]);
        const x = new Float64Array(bits);
        if (word) noteLargestComponent(x, largestOfWord(new Uint32Array(word)[0]));
        return x;
      } finally {
        this.recycle(f);
      }
    }
    const version = v.version;
    const floats = new Float32Array(await this.engine.read(v.buffer, v.length * floatsPerElement(v.dtype) * 4));
    if (v.shadow && !v.disposed && v.version === version) {
      v.shadow.set(floats);
      v.shadowVersion = version;
    }
    return decodeValues(v.dtype, floats, comps);
  }

  /** Submits the work recorded so far without waiting for it (reads do this themselves). */
  flush(): void {
    this.live();
    this.engine.flush();
  }

  /**
   * Runs `fn` (which records kernels on this backend) and returns the GPU time in ms from the start
   * of its first compute pass to the end of its last, from timestamp queries; null without the
   * 'timestamp-query' feature. Buffer copies inside `fn` run but are outside the passes measured.
   */
  kernelTime(fn: () => void): Promise<number | null> {
    return this.engine.kernelTime(fn, this.caps.timestampQuery);
  }

  // ---- dense matrices (dense.ts) ----------------------------------------------------------------

  /** Uploads a row-major DenseMatrix (f32, c64, f64, c128); resident until dispose(). */
  uploadDense(A: DenseMatrix): dense.WebGpuDense {
    return dense.uploadDense(this.denseHost, A);
  }

  /** A zero rows × cols dense matrix of `dtype` on the GPU. */
  denseMatrix(dtype: DType, rows: number, cols: number): dense.WebGpuDense {
    assertDType(dtype, 'WebGPU dense matrix');
    return dense.denseMatrix(this.denseHost, dtype, rows, cols);
  }

  /** The dense matrix back on the host (Float32Array values for f32/c64, Float64Array for f64/c128). */
  readDense(A: dense.WebGpuDense): Promise<DenseMatrix> {
    return dense.readDense(this.denseHost, A);
  }

  /** C = α·A·B + β·C (β = 0 by default: C is then not read). */
  gemm(A: dense.WebGpuDense, B: dense.WebGpuDense, C: dense.WebGpuDense, opts: dense.WebGpuGemmOptions = {}): void {
    dense.gemm(this.denseHost, A, B, C, opts);
  }

  /** C = α·A + β·B (α = β = 1 by default; a zero scalar means that operand is not read). */
  add(A: dense.WebGpuDense, B: dense.WebGpuDense, C: dense.WebGpuDense, opts: dense.WebGpuAddOptions = {}): void {
    dense.add(this.denseHost, A, B, C, opts);
  }

  /** B = Aᵀ ({ conj: true }: Aᴴ for complex data). */
  transpose(A: dense.WebGpuDense, B: dense.WebGpuDense, opts: dense.WebGpuTransposeOptions = {}): void {
    dense.transpose(this.denseHost, A, B, opts);
  }

  private readonly denseHost: dense.DenseHost = ((b: WebGpuBackend): dense.DenseHost => ({
    get engine() {
      return b.engine;
    },
    get bindingLimit() {
      return b.maxStorageBufferBindingSize;
    },
    live: () => b.live(),
    track: (bytes, obj) => b.track(bytes, obj),
  }))(this);

  // ---- device loss ------------------------------------------------------------------------------

  /** For tests: destroys the device, as a driver reset would lose it (a new one is then requested). */
  loseDevice(): void {
    this.live();
    this.device.destroy();
  }

  private async handleLost(device: GPUDevice, info: GPUDeviceLostInfo): Promise<void> {
    if (this.disposed || device !== this.device) return;
    this.lost = true;
    this.lostReason = ` (${info.reason}: ${info.message})`;
    this.stats.deviceLosses++;
    this.engine.abandon(new WebGpuDeviceLostError(`the WebGPU device was lost${this.lostReason}`));
    this.hooks.lost();
    if (this.opts.device) return; // a device the caller gave cannot be replaced here
    const got = await acquireDevice(this.opts);
    if (this.disposed) {
      if (!('reason' in got)) got.device.destroy();
      return;
    }
    if ('reason' in got) {
      this.lostReason += ` (no new device: ${got.reason})`;
      return;
    }
    try {
      this.device = got.device;
      this.caps = got.caps;
      this.engine = this.setUp(got.device);
      this.rebuild();
    } catch (e) {
      this.lostReason += ` (restoring failed: ${(e as Error)?.message ?? String(e)})`;
      return;
    }
    this.lost = false;
    this.stats.deviceRestores++;
    this.hooks.restored();
  }

  /** On a new device: every resident object gets new buffers. */
  private rebuild(): void {
    for (const r of [...this.residents]) {
      if (r instanceof WebGpuMatrix) {
        const data = buildMatrix(this.engine, r.source.matrix, r.source.options as WebGpuUploadOptions, Infinity);
        this.bytesInUse += data.bytes - r.bytes;
        r.restore(data);
      } else if (r instanceof WebGpuVector) {
        const shadow = restorableShadow(r);
        // a caller's buffer died with the device: the new one is ours
        r.owned = true;
        r.restore(this.engine.buffer('a vector', shadow ?? r.bytes, Infinity), shadow === null);
      } else dense.restoreDense(this.denseHost, r);
    }
  }

  // ---- lifetime ---------------------------------------------------------------------------------

  /** @internal WebGpuOwner */
  releaseBuffer(buf: GPUBuffer): void {
    if (this.lost) return; // died with the device
    this.engine.release(buf);
  }

  /** @internal WebGpuOwner */
  track(bytes: number, obj: WebGpuVector | WebGpuMatrix | dense.WebGpuDense): void {
    this.bytesInUse += bytes;
    if (bytes >= 0) this.residents.add(obj);
    else {
      this.residents.delete(obj);
      const made = obj instanceof WebGpuMatrix ? this.companions.get(obj) : undefined;
      if (made) {
        this.companions.delete(obj as WebGpuMatrix);
        for (const m of made.values()) m.dispose();
      }
    }
  }

  private live(): void {
    if (this.disposed) throw new DisposedError('WebGpuBackend');
    if (this.lost) throw new WebGpuDeviceLostError(`the WebGPU device is lost; calls fail until a new device is obtained${this.lostReason}`);
  }

  private scalar(dt: DType, s: Scalar, name: string): Float32Array {
    const [re, im] = toComplex(s);
    if (im !== 0 && !isComplex(dt)) throw new UnsupportedError(`WebGPU path: ${name} has imaginary part ${im}, but the data is ${dt}`);
    return encodeScalar(dt, re, im);
  }

  private checkVectors(where: string, dt: DType, x: WebGpuVector, xLen: number, xName: string, y: WebGpuVector, yLen: number): void {
    for (const v of [x, y]) {
      if (v.disposed) throw new DisposedError('WebGpuVector');
      if ((v as unknown as { owner: unknown }).owner !== this) throw new UnsupportedError(`${where}: a vector of another WebGpuBackend`);
      if (v.dtype !== dt) throw new UnsupportedError(`${where}: a ${v.dtype} vector with ${dt} data (dtypes must match)`);
    }
    if (x.length !== xLen) throw new ShapeError(`${where}: ${xName} has length ${x.length}, expected ${xLen}`);
    if (y.length !== yLen) throw new ShapeError(`${where}: y has length ${y.length}, expected ${yLen}`);
  }

  /** Frees every matrix and vector made here, the scratch buffers and the device (unless it was given). */
  dispose(): void {
    if (this.disposed) return;
    for (const r of [...this.residents]) r.dispose();
    if (!this.lost) this.engine.flush();
    this.engine.dispose();
    this.disposed = true;
    if (!this.opts.device) this.device.destroy();
    else {
      this.partials.destroy();
      this.result.destroy();
      this.largestWord.destroy();
    }
  }
}


/** Rows from which WebGpuBackend.prewarmSolve starts a solve's pipelines in the background. */
export const PREWARM_SOLVE_FROM = 1 << 15;

/** Solver work vectors the pool keeps at most (WebGpuBackend.recycle): a refined CG solve uses 10 of one size. */
const SCRATCH_POOL_MAX = 16;
/** How a solver's coefficient is stored for dtype dt (wgsl/scalars.wgsl's P.k). */
function coefKind(dt: DType): number {
  return dt === 'c64' ? 1 : dt === 'c128' ? 2 : 0;
}

export { WebGpuDeviceLostError, WebGpuLimitError, WebGpuUnavailableError };

/** Whether `d` has what a GPUDevice of the caller's is read for here (its features, limits, queue, buffers). */
function isDeviceLike(d: unknown): d is GPUDevice {
  const o = d as GPUDevice | null;
  return typeof o === 'object' && o !== null && typeof o.features?.has === 'function' && typeof o.limits === 'object' && o.limits !== null && typeof o.queue === 'object' && typeof o.createBuffer === 'function';
}

/**
 * The bound of max |xᵢ| from the largest high word of the |xᵢ| (wgsl/ds_convert.wgsl join_max_main):
 * the f64 of that word over 0xffffffff (2^-20 of it above the largest at most; 2^-1042 for a subnormal
 * largest), NaN where the word is that of
 * ±Inf or NaN.
 */
function largestOfWord(word: number): number {
  if (word >= 0x7ff00000) return NaN;
  const b = new Uint32Array([0xffffffff, word]);
  return new Float64Array(b.buffer)[0];
}
