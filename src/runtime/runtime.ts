import { allocValues, componentBytes, components, elementBytes, isComplex, toComplex, type DType, type Scalar, type ValueArray, assertDType } from '../dtype.js';
import { DisposedError, ShapeError, UnsupportedError, SimdglError } from '../errors.js';
import type { SpmvScalars } from '../backend-types.js';
import { convert, type FormatName, type SparseMatrix } from '../formats/index.js';
import { ownedCopy } from '../formats/owned.js';
import { CpuBackend, DEFAULT_INLINE_THRESHOLD } from '../cpu/backend.js';
import type { CpuVector } from '../cpu/resident.js';
import * as blas from '../cpu/blas1.js';
import { cpuSolverOps } from './cpu-solver-ops.js';
import { cg } from '../solvers/cg.js';
import { bicgstab } from '../solvers/bicgstab.js';
import type { SolveResult } from '../solvers/ops.js';
import type { Capabilities, RuntimeOptions, SolveOptions, SolveOutcome, SpmvOptions, UploadOptions, VectorLike } from './options.js';
import { MatrixHandle, ResidentVector, type HandleOwner } from './handles.js';
import { GpuPath } from './gpu-path.js';
import { GpuContextLostError, GpuUnavailableError, type GpuVector } from '../gpu/index.js';
import { inverseDiagonal } from '../solvers/jacobi.js';
import { nodeBuiltin } from '../node-builtins.js';
import { CpuDense, checkAdd, checkGemm, checkTranspose, type AddOptions, type GemmOptions } from './dense-ops.js';
import type { DenseMatrix } from '../formats/dense.js';
import { matrixFeatures, chooseFormat, type MatrixFeatures, type Path } from './features.js';
import { DEFAULT_CALIBRATION, explainSpmv, type Explanation } from './explain.js';
import type { Calibration } from './cost.js';
import { poisson3D } from '../generators/poisson.js';
import { median } from '../metrics.js';

/**
 * A runtime owns one WebAssembly memory and the data uploaded to it. Create it with
 * `createRuntime()`, upload matrices once, run many operations, and `dispose()` it at the end.
 */
export class Runtime implements HandleOwner {
  private disposed = false;
  /** live handles, disposed with the runtime */
  private readonly handles = new Set<MatrixHandle | ResidentVector>();
  private constructor(
    private readonly cpu: CpuBackend,
    private readonly gpu: GpuPath | null,
    private readonly gpuReason: string | null,
    private readonly mode: 'auto' | 'cpu' | 'gpu',
  ) {}

  /** @internal use createRuntime() */
  static async create(options: RuntimeOptions = {}): Promise<Runtime> {
    const mode = options.backend ?? 'auto';
    if (mode !== 'auto' && mode !== 'cpu' && mode !== 'gpu') {
      throw new UnsupportedError(`createRuntime: backend must be 'auto', 'cpu' or 'gpu', got ${JSON.stringify(options.backend)}`);
    }
    if (options.maxMemoryMB !== undefined && !(options.maxMemoryMB >= 1 && options.maxMemoryMB <= 4096)) {
      throw new RangeError(`createRuntime: maxMemoryMB must be in [1, 4096], got ${options.maxMemoryMB}`);
    }
    const threads = await resolveWorkers(options.workers);
    let gpu: GpuPath | null = null;
    let reason: string | null = mode === 'cpu' ? 'backend: cpu was asked for' : null;
    if (mode !== 'cpu') {
      const g = GpuPath.create({ canvas: options.canvas, gl: options.gl });
      if (g instanceof GpuPath) gpu = g;
      else reason = g.reason;
      if (!gpu && mode === 'gpu') throw new GpuUnavailableError(`createRuntime: the GPU path is unavailable: ${reason}`);
    }
    const rt = new Runtime(
      await CpuBackend.create({ ...options, threads, inlineThreshold: options.inlineThreshold ?? DEFAULT_INLINE_THRESHOLD }),
      gpu,
      reason,
      mode,
    );
    rt.requestedThreads = threads;
    if (options.calibration) rt.calibrationData = options.calibration;
    return rt;
  }

  private requestedThreads = 1;

  capabilities(): Capabilities {
    const simd = this.cpu.flavor === 'simd';
    const notes: string[] = [];
    if (!simd) notes.push('running the plain WebAssembly build (no SIMD)');
    const isolated = (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated;
    if (!this.cpu.heap.shared) {
      notes.push(
        isolated === false
          ? 'this page is not cross-origin isolated, so SharedArrayBuffer is unavailable and the runtime runs on one thread; ' +
              'serve it with the headers "Cross-Origin-Opener-Policy: same-origin" and "Cross-Origin-Embedder-Policy: require-corp"'
          : 'SharedArrayBuffer is unavailable: the memory is not shared and the runtime runs on one thread',
      );
    }
    if (this.requestedThreads > this.cpu.threads) notes.push(`asked for ${this.requestedThreads} threads, running on ${this.cpu.threads}`);
    const g = this.gpu?.backend.capabilities();
    if (this.gpu && !this.gpu.usable) notes.push('the WebGL context is lost: operations run on the CPU path until it is restored');
    return {
      wasm: this.cpu.flavor,
      simd,
      sharedMemory: this.cpu.heap.shared,
      threads: this.cpu.threads,
      workers: this.cpu.threads > 1,
      crossOriginIsolated: isolated,
      notes,
      backend: this.mode,
      gpu: g
        ? {
            available: true,
            renderer: g.renderer ?? undefined,
            vendor: g.vendor ?? undefined,
            maxTextureSize: g.maxTextureSize,
            colorBufferFloat: g.colorBufferFloat,
            floatBlend: g.floatBlend,
            floatReadback: g.floatReadback,
            contextLost: !this.gpu!.usable,
          }
        : { available: false, reason: this.gpuReason ?? 'unknown' },
    };
  }

  /** Resizes the worker pool (1 closes it); pending work must be awaited first. */
  async setWorkers(workers: number | 'auto'): Promise<void> {
    this.live();
    this.requestedThreads = await resolveWorkers(workers);
    await this.cpu.setThreads(this.requestedThreads);
  }

  /** Sets the size below which operations run on the calling thread alone. */
  setInlineThreshold(cost: number): void {
    if (!(cost >= 0)) throw new RangeError(`inlineThreshold must be ≥ 0, got ${cost}`);
    this.cpu.inlineThreshold = cost;
  }

  /** Sets how long idle workers spin before sleeping (µs); 0 sleeps at once. */
  setSpin(us: number): void {
    if (!(us >= 0 && us <= 1e6)) throw new RangeError(`spinUs must be in [0, 1e6], got ${us}`);
    this.cpu.workerPool?.setSpin(us);
  }

  /** @internal the CPU backend, for tests and benchmarks */
  get cpuBackend(): CpuBackend {
    return this.cpu;
  }

  /** Bytes of WebAssembly memory currently held by uploaded matrices and vectors. */
  get memoryInUse(): number {
    return this.cpu.heap.liveBytes;
  }

  /** Uploads a matrix (any format class) and returns a resident handle. */
  upload(matrix: SparseMatrix, options: UploadOptions = {}): MatrixHandle {
    this.live();
    // kernels trust only a validated private copy: later changes to `matrix` cannot reach them
    matrix = ownedCopy(matrix);
    let format = options.format;
    if (format === 'auto') format = chooseFormat(this.featuresOf(matrix), 'cpu').format;
    const target = format && format !== matrix.format ? convert(matrix, format, options) : matrix;
    return this.track(new MatrixHandle(this.cpu.upload(target), this, options.format && options.format !== 'auto' ? options.format : null));
  }

  /**
   * Which path and format an operation would use for a matrix, and the numbers behind the choice:
   * the matrix's features, each path's estimate (overhead + bytes / bandwidth + transfers) and the
   * reasons in words. Estimates use this machine's calibration once rt.calibrate() has run.
   */
  explain(
    op: 'spmv',
    A: MatrixHandle | SparseMatrix,
    options: { format?: FormatName; x?: VectorLike; readBack?: boolean } = {},
  ): Explanation {
    this.live();
    if (op !== 'spmv') throw new UnsupportedError(`explain: only 'spmv' is explained, not ${JSON.stringify(op)}`);
    const handle = A instanceof MatrixHandle ? this.own(A, 'explain: A') : null;
    const host = handle ? handle.resident().host : (A as SparseMatrix);
    const features = this.featuresOf(host);
    const cal = this.calibrationData ?? { ...DEFAULT_CALIBRATION, cpu: { ...DEFAULT_CALIBRATION.cpu, threads: this.cpu.threads } };
    const gpuFormat = this.gpu && handle ? this.gpu.formatFor(handle, features) : null;
    const available: Partial<Record<Path, true | string>> = {
      cpu: this.mode === 'gpu' && this.gpu?.usable ? 'backend: gpu was asked for' : true,
      gpu: !this.gpu ? this.gpuReason ?? 'unavailable' : !this.gpu.usable ? 'the WebGL context is lost' : this.mode === 'cpu' ? 'backend: cpu' : true,
    };
    return explainSpmv({
      features,
      elementBytes: elementBytes(host.dtype),
      calibration: cal,
      calibrated: this.calibrationData !== null,
      available,
      gpuResident: {
        matrix: !!(handle && gpuFormat && this.gpu!.isResident(handle, gpuFormat)),
        x: options.x instanceof ResidentVector && options.x.where !== 'cpu',
      },
      readBack: options.readBack ?? true,
      format: options.format ?? handle?.requestedFormat ?? undefined,
    });
  }

  /**
   * Measures this machine (about 50 ms): the fixed cost of an operation and the bandwidth SpMV
   * reaches on the CPU path with the current threads. Save the result and pass it as
   * createRuntime({ calibration }) to skip the measurement next time.
   */
  async calibrate(): Promise<Calibration> {
    this.live();
    const B = this.cpu;
    const time = async (A: SparseMatrix, reps: number): Promise<number> => {
      const M = B.upload(A);
      const x = B.vector('f64', A.cols);
      const y = B.vector('f64', A.rows);
      x.view().fill(1);
      const t: number[] = [];
      try {
        for (let k = 0; k < reps; k++) {
          const t0 = performance.now();
          await B.spmv(M, x, y, { alpha: [1, 0], beta: [0, 0], op: 'N' });
          t.push(performance.now() - t0);
        }
      } finally {
        M.dispose();
        x.dispose();
        y.dispose();
      }
      return median(t.slice(1));
    };
    const small = poisson3D(2);
    const large = poisson3D(40);
    const overheadMs = await time(small, 41);
    const largeMs = await time(large, 7);
    const bytes = large.storageBytes() + 2 * large.rows * 8;
    const cpu = { threads: B.threads, overheadMs, bandwidthGBs: bytes / 1e6 / Math.max(1e-3, largeMs - overheadMs) };
    let gpu: Calibration['gpu'];
    if (this.gpu?.usable) {
      const small32 = small.astype('f32');
      const large32 = large.astype('f32');
      gpu = await this.gpu.calibrate(small32, large32, large32.storageBytes() + 2 * large.rows * 4);
    }
    this.calibrationData = { cpu, gpu };
    return this.calibrationData;
  }

  private calibrationData: Calibration | null = null;
  private readonly featureCache = new WeakMap<SparseMatrix, MatrixFeatures>();

  private featuresOf(A: SparseMatrix): MatrixFeatures {
    let f = this.featureCache.get(A);
    if (!f) this.featureCache.set(A, (f = matrixFeatures(A.toCSR())));
    return f;
  }

  /** A resident vector: from data (copied in) or zero-filled of `length` elements of `dtype`. */
  vector(data: ValueArray | number, dtype?: DType): ResidentVector {
    this.live();
    if (typeof data === 'number') {
      if (!Number.isInteger(data) || data < 0) throw new ShapeError(`vector: length must be a non-negative integer, got ${data}`);
      const dt = dtype ?? 'f64';
      assertDType(dt, 'vector');
      const v = this.cpu.vector(dt, data);
      v.view().fill(0);
      return this.track(new ResidentVector(v, this));
    }
    const dt = dtype ?? (data instanceof Float32Array ? 'f32' : 'f64');
    assertDType(dt, 'vector');
    const c = components(dt);
    if (data.length % c !== 0) throw new ShapeError(`vector: ${data.length} numbers cannot be ${dt} pairs`);
    const v = this.cpu.vector(dt, data.length / c);
    v.view().set(data);
    return this.track(new ResidentVector(v, this));
  }

  /**
   * y = α·op(A)·x + β·y. x and y are typed arrays (copied in and out) or resident vectors (used in
   * place). Returns y: the resident vector or typed array given, or a new typed array. Runs on the
   * path the runtime estimates faster (rt.explain says why), or on options.path.
   */
  async spmv<Y extends VectorLike | undefined = undefined>(
    A: MatrixHandle,
    x: VectorLike,
    options: SpmvOptions<Y> = {},
  ): Promise<Y extends ResidentVector ? ResidentVector : ValueArray> {
    this.live();
    const M = this.own(A, 'spmv: A').resident();
    const s = resolveScalars(M.dtype, options);
    const [inLen, outLen] = s.op === 'N' ? [M.cols, M.rows] : [M.rows, M.cols];
    const readY = s.beta[0] !== 0 || s.beta[1] !== 0;
    const temps: CpuVector[] = [];
    this.checkOperand(x, M.dtype, inLen, 'spmv: x');
    if (options.y !== undefined) this.checkOperand(options.y, M.dtype, outLen, 'spmv: y');
    const path = this.pathFor(A, options.path, x, options.y);
    if (path === 'gpu') return (await this.spmvGpu(A, x, options.y, s, outLen, readY)) as never;
    try {
      const xv = await this.operand(x, M.dtype, inLen, 'spmv: x', temps, true);
      const yv = options.y === undefined ? null : await this.operand(options.y, M.dtype, outLen, 'spmv: y', temps, readY);
      const out = yv ?? this.temp(M.dtype, outLen, temps);
      await this.cpu.spmv(M, xv, out, s);
      if (options.y instanceof ResidentVector) {
        options.y.where = 'cpu';
        return options.y as never;
      }
      const result = options.y ?? allocValues(M.dtype, outLen);
      (result as ValueArray).set(out.view());
      return result as never;
    } finally {
      for (const t of temps) t.dispose();
    }
  }

  /** The SpMV on the GPU path: resident vectors stay there, typed arrays go up and y comes back. */
  private async spmvGpu(A: MatrixHandle, x: VectorLike, y: VectorLike | undefined, s: SpmvScalars, outLen: number, readY: boolean): Promise<VectorLike> {
    const gpu = this.gpu!;
    const format = gpu.formatFor(A, this.featuresOf(A.resident().host));
    const G = gpu.matrix(A, format, s.op);
    const temps: GpuVector[] = [];
    try {
      const xg = x instanceof ResidentVector ? gpu.vectorOf(x) : track(temps, gpu.temp(A.dtype, x));
      let yg: GpuVector;
      if (y instanceof ResidentVector) {
        if (readY) yg = gpu.vectorOf(y);
        else yg = gpu.targetOf(y);
      } else yg = track(temps, readY && y ? gpu.temp(A.dtype, y) : gpu.temp(A.dtype, outLen));
      gpu.backend.spmv(G, xg, yg, { alpha: s.alpha, beta: s.beta, op: s.op });
      if (y instanceof ResidentVector) {
        y.where = 'gpu';
        return y;
      }
      const data = await gpu.read(yg);
      const result = y ?? allocValues(A.dtype, outLen);
      result.set(data);
      return result;
    } finally {
      for (const t of temps) t.dispose();
    }
  }

  /**
   * Where an operation on A runs: the caller's path, the forced backend, or the cheaper estimate.
   * A lost WebGL context sends everything to the CPU path ('auto') or fails ('gpu').
   */
  private pathFor(A: MatrixHandle, forced: Path | undefined, x?: VectorLike, y?: VectorLike): Path {
    const want = forced ?? (this.mode === 'auto' ? undefined : this.mode);
    if (want === 'cpu' || !this.gpu) {
      if (want === 'gpu') throw new GpuUnavailableError(`the GPU path is unavailable: ${this.gpuReason}`);
      return 'cpu';
    }
    if (!this.gpu.usable) {
      if (want === 'gpu') throw new GpuContextLostError('the WebGL context is lost; the GPU path resumes when it is restored');
      return 'cpu';
    }
    if (want === 'gpu') return 'gpu';
    return this.explain('spmv', A, { x, readBack: !(y instanceof ResidentVector) }).path;
  }

  /** The path of a vector operation: where its operands are current, or the forced backend. */
  private vectorPath(...vs: ResidentVector[]): Path {
    if (!this.gpu || !this.gpu.usable || this.mode === 'cpu') {
      if (this.mode === 'gpu') throw new GpuContextLostError('the WebGL context is lost; the GPU path resumes when it is restored');
      return 'cpu';
    }
    if (this.mode === 'gpu') return 'gpu';
    return vs.some((v) => v.where === 'gpu') ? 'gpu' : 'cpu';
  }

  /** @internal makes the CPU copy of a vector current (HandleOwner) */
  async pullToCpu(v: ResidentVector): Promise<CpuVector> {
    if (v.where === 'gpu') {
      if (!this.gpu?.usable) {
        throw new GpuContextLostError('the vector was last written on the GPU and the WebGL context is lost: its contents are gone');
      }
      await this.gpu.pull(v);
    }
    return v.resident();
  }

  /** y ← α·x + y on resident vectors. */
  async axpy(alpha: Scalar, x: ResidentVector, y: ResidentVector): Promise<void> {
    const a = checkedScalar('axpy', this.pair('axpy', x, y), alpha);
    if (this.vectorPath(x, y) === 'gpu') return this.gpuWrite(y, () => this.gpu!.backend.axpy(a, this.gpu!.vectorOf(x), this.gpu!.vectorOf(y)));
    await blas.axpy(this.cpu, a, await this.pullToCpu(x), await this.cpuWrite(y));
  }

  /** y ← α·y + x on resident vectors. */
  async aypx(alpha: Scalar, x: ResidentVector, y: ResidentVector): Promise<void> {
    const a = checkedScalar('aypx', this.pair('aypx', x, y), alpha);
    if (this.vectorPath(x, y) === 'gpu') return this.gpuWrite(y, () => this.gpu!.backend.aypx(a, this.gpu!.vectorOf(x), this.gpu!.vectorOf(y)));
    await blas.aypx(this.cpu, a, await this.pullToCpu(x), await this.cpuWrite(y));
  }

  /** x ← α·x on a resident vector (α = 0 writes zeros). */
  async scal(alpha: Scalar, x: ResidentVector): Promise<void> {
    const a = checkedScalar('scal', this.pair('scal', x, x), alpha);
    if (this.vectorPath(x) === 'gpu') return this.gpuWrite(x, () => this.gpu!.backend.scal(a, this.gpu!.vectorOf(x)));
    await blas.scal(this.cpu, a, await this.cpuWrite(x));
  }

  /** y ← x on resident vectors. */
  async copy(x: ResidentVector, y: ResidentVector): Promise<void> {
    this.pair('copy', x, y);
    if (this.vectorPath(x) === 'gpu') {
      const xg = this.gpu!.vectorOf(x);
      const yg = this.gpu!.targetOf(y);
      return this.gpuWrite(y, () => this.gpu!.backend.copy(xg, yg));
    }
    await blas.copy(this.cpu, await this.pullToCpu(x), await this.cpuWrite(y, false));
  }

  /**
   * Σ xᵢ·yᵢ (a number; `[re, im]` for complex, where `conj: true` conjugates x). Accumulated in f64 on
   * the CPU path (deterministic for a given number of threads) and in double-single on the GPU path.
   */
  async dot(x: ResidentVector, y: ResidentVector, options: { conj?: boolean } = {}): Promise<number | [number, number]> {
    const dt = this.pair('dot', x, y);
    if (this.vectorPath(x, y) === 'gpu') return this.gpu!.backend.dot(this.gpu!.vectorOf(x), this.gpu!.vectorOf(y), options);
    const r = await blas.dot(this.cpu, await this.pullToCpu(x), await this.pullToCpu(y), options.conj ?? false);
    return isComplex(dt) ? r : r[0];
  }

  /** ‖x‖₂ of a resident vector (on the CPU path without overflow or underflow in the squares). */
  async nrm2(x: ResidentVector): Promise<number> {
    this.pair('nrm2', x, x);
    if (this.vectorPath(x) === 'gpu') return this.gpu!.backend.nrm2(this.gpu!.vectorOf(x));
    return blas.nrm2(this.cpu, await this.pullToCpu(x));
  }

  /** The CPU copy of a vector about to be written there (current first unless `keep` is false). */
  private async cpuWrite(v: ResidentVector, keep = true): Promise<CpuVector> {
    const c = keep ? await this.pullToCpu(v) : v.resident();
    v.where = 'cpu';
    return c;
  }

  private gpuWrite(v: ResidentVector, run: () => void): void {
    run();
    v.where = 'gpu';
  }

  /**
   * Solves A·x = b with Conjugate Gradient (A Hermitian positive definite). Vectors stay resident
   * during the iteration; only scalars come back each step.
   */
  cg(A: MatrixHandle, b: ValueArray, options: SolveOptions = {}): Promise<SolveOutcome> {
    return this.solve('cg', A, b, options);
  }

  /** Solves A·x = b with BiCGSTAB (any square nonsingular A); same options and result as cg. */
  bicgstab(A: MatrixHandle, b: ValueArray, options: SolveOptions = {}): Promise<SolveOutcome> {
    return this.solve('bicgstab', A, b, options);
  }

  private async solve(method: 'cg' | 'bicgstab', A: MatrixHandle, b: ValueArray, o: SolveOptions): Promise<SolveOutcome> {
    this.live();
    const M = this.own(A, `${method}: A`).resident();
    if (M.rows !== M.cols) throw new ShapeError(`${method}: A must be square, it is ${M.rows}×${M.cols}`);
    const pre = o.preconditioner ?? 'none';
    if (pre !== 'none' && pre !== 'jacobi') throw new UnsupportedError(`${method}: preconditioner must be 'none' or 'jacobi', got ${JSON.stringify(pre)}`);
    if (o.tol !== undefined && !(o.tol >= 0)) throw new RangeError(`${method}: tol must be ≥ 0, got ${o.tol}`);
    if (o.maxIter !== undefined && !(Number.isInteger(o.maxIter) && o.maxIter >= 0)) {
      throw new RangeError(`${method}: maxIter must be a non-negative integer, got ${o.maxIter}`);
    }
    this.checkOperand(b, M.dtype, M.rows, `${method}: b`);
    if (o.x0 !== undefined) this.checkOperand(o.x0, M.dtype, M.rows, `${method}: x0`);
    const run = method === 'cg' ? cg : bicgstab;
    // the iteration keeps its vectors resident: the path that wins for a resident SpMV runs it
    const want = o.path ?? (this.mode === 'auto' ? undefined : this.mode);
    const path = want ?? (this.gpu?.usable ? this.explain('spmv', A, { readBack: false }).path : 'cpu');
    if (path === 'gpu') {
      this.pathFor(A, 'gpu');
      const gpu = this.gpu!;
      const format = gpu.formatFor(A, this.featuresOf(M.host));
      const ops = gpu.solverOps(A, format, pre, pre === 'jacobi' ? inverseDiagonal(M.host.toCSR()) : null);
      const bg = gpu.temp(M.dtype, b);
      const x0 = o.x0 === undefined ? undefined : gpu.temp(M.dtype, o.x0);
      try {
        const r = await run(ops, bg, { ...o, x0 });
        const x = await gpu.read(r.x);
        ops.release(r.x);
        return { ...r, x, path };
      } finally {
        bg.dispose();
        x0?.dispose();
        ops.dispose();
      }
    }
    const temps: CpuVector[] = [];
    const ops = cpuSolverOps(this.cpu, M, pre);
    try {
      const bv = await this.operand(b, M.dtype, M.rows, `${method}: b`, temps, true);
      const x0 = o.x0 === undefined ? undefined : await this.operand(o.x0, M.dtype, M.rows, `${method}: x0`, temps, true);
      const r: SolveResult<CpuVector> = await run(ops, bv, { ...o, x0 });
      const x = r.x.view().slice();
      ops.release(r.x);
      return { ...r, x, path };
    } finally {
      for (const t of temps) t.dispose();
      ops.dispose();
    }
  }

  /**
   * C = α·A·B + β·C for dense matrices (any shape). CPU path: a cache-blocked, register-tiled SIMD
   * kernel split over the workers by row panels (f32, f64); GPU path: a tiled shader (f32, c64, and f64,
   * c128 in double-single). Dense operations run on the CPU path unless the GPU is asked for
   * (backend: 'gpu' or path: 'gpu'). Returns C (the one given, updated in place, or a new matrix).
   */
  async gemm(A: DenseMatrix, B: DenseMatrix, options: GemmOptions & { path?: Path } = {}): Promise<DenseMatrix> {
    this.live();
    checkGemm(A, B, options.C);
    if (this.densePath(options.path) === 'cpu') return new CpuDense(this.cpu).gemm(A, B, options);
    return this.onGpuDense([A, B, ...(options.C && options.beta ? [options.C] : [])], A.rows, B.cols, A.dtype, options.C, (g, [a, b, c], out) =>
      g.gemm(a, b, c ?? out, { alpha: options.alpha ?? 1, beta: options.beta ?? 0, kernel: options.naive ? 'naive' : 'tiled' }),
    );
  }

  /** C = α·A + β·B for dense matrices of one shape (defaults α = β = 1). */
  async add(A: DenseMatrix, B: DenseMatrix, options: AddOptions & { path?: Path } = {}): Promise<DenseMatrix> {
    this.live();
    checkAdd(A, B);
    if (this.densePath(options.path) === 'cpu') return new CpuDense(this.cpu).add(A, B, options);
    return this.onGpuDense([A, B], A.rows, A.cols, A.dtype, undefined, (g, [a, b], out) => g.add(a, b, out, { alpha: options.alpha ?? 1, beta: options.beta ?? 1 }));
  }

  /** Aᵀ of a dense matrix: a blocked copy on the CPU path (reads and writes both contiguous), a gather shader on the GPU. */
  async transpose(A: DenseMatrix, options: { path?: Path } = {}): Promise<DenseMatrix> {
    this.live();
    checkTranspose(A);
    if (this.densePath(options.path) === 'cpu') return new CpuDense(this.cpu).transpose(A);
    return this.onGpuDense([A], A.cols, A.rows, A.dtype, undefined, (g, [a], out) => g.transpose(a, out));
  }

  private densePath(forced: Path | undefined): Path {
    const want = forced ?? (this.mode === 'gpu' ? 'gpu' : 'cpu');
    if (want === 'gpu') {
      if (!this.gpu) throw new GpuUnavailableError(`the GPU path is unavailable: ${this.gpuReason}`);
      if (!this.gpu.usable) throw new GpuContextLostError('the WebGL context is lost; the GPU path resumes when it is restored');
    }
    return want;
  }

  /** Uploads the operands, runs one dense kernel into a new target, reads the result back. */
  private async onGpuDense(
    inputs: DenseMatrix[],
    rows: number,
    cols: number,
    dtype: DType,
    into: DenseMatrix | undefined,
    run: (g: GpuPath['backend'], ins: ReturnType<GpuPath['backend']['uploadDense']>[], out: ReturnType<GpuPath['backend']['denseMatrix']>) => void,
  ): Promise<DenseMatrix> {
    const g = this.gpu!.backend;
    const ins = inputs.map((m) => g.uploadDense(m));
    const out = g.denseMatrix(dtype, rows, cols);
    try {
      run(g, ins, ins.length > 2 ? ins[2] : out);
      const r = await g.readDense(ins.length > 2 ? ins[2] : out);
      if (into) {
        into.values.set(r.values);
        return into;
      }
      return r;
    } finally {
      for (const m of ins) m.dispose();
      out.dispose();
    }
  }

  /** Releases everything this runtime holds, its handles included. Later calls throw DisposedError. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.cpu.dispose();
    for (const h of [...this.handles]) h.dispose();
    this.gpu?.dispose();
  }

  /** @internal called by a handle's dispose() */
  forget(handle: MatrixHandle | ResidentVector): void {
    this.handles.delete(handle);
  }

  private track<H extends MatrixHandle | ResidentVector>(h: H): H {
    this.handles.add(h);
    return h;
  }

  private live(): void {
    if (this.disposed) throw new DisposedError('runtime');
  }

  private own<T extends MatrixHandle | ResidentVector>(h: T, what: string): T {
    if (!(h instanceof MatrixHandle) && !(h instanceof ResidentVector)) {
      throw new TypeError(`${what}: expected a handle from rt.upload() or a vector from rt.vector()`);
    }
    if (h.owner !== this) throw new SimdglError('E_FOREIGN', `${what} belongs to another runtime`);
    return h;
  }

  /** Checks two resident vectors of this runtime have one dtype and length; returns the dtype. */
  private pair(op: string, x: ResidentVector, y: ResidentVector): DType {
    this.live();
    const xv = this.own(x, `${op}: x`).resident();
    const yv = this.own(y, `${op}: y`).resident();
    if (xv.dtype !== yv.dtype) throw new ShapeError(`${op}: x is ${xv.dtype} and y is ${yv.dtype}`);
    if (xv.length !== yv.length) throw new ShapeError(`${op}: x has ${xv.length} elements and y has ${yv.length}`);
    return xv.dtype;
  }

  private temp(dtype: DType, length: number, temps: CpuVector[]): CpuVector {
    const v = this.cpu.vector(dtype, length);
    temps.push(v);
    return v;
  }

  /** Checks an operand: a resident vector of this runtime, or a typed array, of the right dtype and length. */
  private checkOperand(v: VectorLike, dtype: DType, length: number, name: string): void {
    if (v instanceof ResidentVector) {
      const r = this.own(v, name).resident();
      if (r.dtype !== dtype) throw new ShapeError(`${name} is ${r.dtype}, the matrix is ${dtype}`);
      if (r.length !== length) throw new ShapeError(`${name} has ${r.length} elements, expected ${length}`);
      return;
    }
    if (!(v instanceof Float32Array || v instanceof Float64Array)) {
      throw new TypeError(`${name} must be a Float32Array, a Float64Array or a resident vector`);
    }
    const want = length * components(dtype);
    if (v.length !== want) {
      throw new ShapeError(`${name} has length ${v.length}, expected ${want} (${length} ${dtype} elements)`);
    }
    if (name.endsWith(': y') && v.BYTES_PER_ELEMENT !== componentBytes(dtype)) {
      throw new ShapeError(`${name} is a ${v.constructor.name}, a ${dtype} result needs a ${componentBytes(dtype) === 4 ? 'Float32Array' : 'Float64Array'}`);
    }
  }

  /** The CPU-path operand (checked by checkOperand): the vector's current CPU copy, or a temporary copy of a typed array. */
  private async operand(v: VectorLike, dtype: DType, length: number, name: string, temps: CpuVector[], copyIn: boolean): Promise<CpuVector> {
    this.checkOperand(v, dtype, length, name);
    if (v instanceof ResidentVector) return copyIn ? this.pullToCpu(v) : v.resident();
    const t = this.temp(dtype, length, temps);
    if (copyIn) t.view().set(v);
    return t;
  }
}

function track<T>(list: T[], v: T): T {
  list.push(v);
  return v;
}

/** A scalar as [re, im]; a complex one on real data is an UnsupportedError naming the operation. */
function checkedScalar(op: string, dtype: DType, s: Scalar): [number, number] {
  const c = toComplex(s);
  if (!isComplex(dtype) && c[1] !== 0) throw new UnsupportedError(`${op}: a complex scalar needs complex data, this is ${dtype}`);
  return c;
}

function resolveScalars(dtype: DType, o: SpmvOptions): SpmvScalars {
  const op = o.op ?? 'N';
  if (op !== 'N' && op !== 'T' && op !== 'H') throw new UnsupportedError(`spmv: op must be 'N', 'T' or 'H', got ${JSON.stringify(op)}`);
  return { alpha: checkedScalar('spmv: alpha', dtype, o.alpha ?? 1), beta: checkedScalar('spmv: beta', dtype, o.beta ?? 0), op };
}

async function resolveWorkers(w: number | 'auto' | undefined): Promise<number> {
  if (w === undefined) return 1;
  if (w === 'auto') {
    const os = nodeBuiltin('node:os');
    if (os) return os.availableParallelism();
    const nav = (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator;
    return nav?.hardwareConcurrency ?? 1;
  }
  if (!Number.isInteger(w) || w < 1 || w > 256) throw new RangeError(`workers must be an integer in [1, 256] or 'auto', got ${w}`);
  return w;
}

/** Creates a runtime: detects SIMD and shared memory, compiles the kernels, sets up the memory and the pool. */
export function createRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  return Runtime.create(options);
}
