import { checkMemoryFloor, withMemoryBudget } from '../memory-budget.js';
import { F64_MATRIX_RANGE, rhsExponent, scaleBy, scaledCsr } from '../host-spmv.js';
import { ANY_NUMBER, FINITE_NON_NEGATIVE, NON_NEGATIVE, NON_NEGATIVE_INTEGER, POSITIVE_INTEGER, checkBoolean, checkChoice, checkFunction, checkNumber, checkOptions, checkScalar, checkSignal, inRange, requireNumber } from '../options-check.js';
import { checkSingleRange, vectorData } from '../vector-data.js';
import { DOT_OPTION_KEYS, EXPLAIN_OPTION_KEYS, RUNTIME_OPTION_KEYS, SOLVE_OPTION_KEYS, SPGEMM_OPTION_KEYS, SPMV_OPTION_KEYS, UPLOAD_OPTION_KEYS, WEBGPU_OPTION_KEYS } from './options.js';
import { ADD_OPTION_KEYS, GEMM_OPTION_KEYS, TRANSPOSE_OPTION_KEYS } from './dense-ops.js';
import { allocValues, componentBytes, components, elementBytes, isComplex, type DType, type Scalar, type ValueArray, assertDType } from '../dtype.js';
import { DisposedError, GpuUnavailableError, InputRangeError, InputTypeError, MemoryLimitError, OptionError, PaddingLimitError, ShapeError, UnsupportedError, SimdglError } from '../errors.js';
import type { SpmvScalars } from '../backend-types.js';
import { convert, FORMATS, type FormatName, type SparseMatrix } from '../formats/index.js';
import { ownedCopyCanonical, sparseMatrix } from '../formats/owned.js';
import { DenseMatrix } from '../formats/dense.js';
import { compactValues, type DIAMatrix } from '../formats/dia.js';
import { PATH_IDS, type DenseShape, type Path, type PathCapabilities, type PathChoice, type PathDense, type PathId, type PathMatrix, type PathVector } from '../path.js';
import { CpuPath } from '../cpu/path.js';
import type { CpuBackend } from '../cpu/backend.js';
import type { AutoSolveOptions, Backend, Capabilities, ExplainSolveOptions, GmresOptions, RuntimeOptions, SolveOptions, SolveOutcome, SpgemmOptions, SpmvOptions, UploadOptions, VectorLike } from './options.js';
import { AUTO_SOLVE_OPTION_KEYS, EXPLAIN_SOLVE_OPTION_KEYS, GMRES_OPTION_KEYS, PRECONDITIONER_OPTION_KEYS } from './options.js';
import { PreconditionerHandle } from './preconditioner.js';
import { keptOf, releaseKept } from './kept-setup.js';
import type { DirectEstimate, PathSolveInfo, SolveExplanation } from '../solvers/solve.js';
import { autoChooses, DIRECT_MAX_N, SADDLE_KRYLOV_MIN_N, SOLVE_METHODS, type SolveMethod } from '../solvers/solve-methods.js';
import type { PreconditionerKind, PreconditionerOptions, PreconditionerPlan } from '../solvers/precond/index.js';
import { constantInverseDiagonal, inverseDiagonal } from '../solvers/precond/jacobi.js';
import type { SolveStructure } from '../solvers/structure.js';
import { diagonalSums, isPrivateCanonical, markPrivateCanonical, type CSRMatrix } from '../formats/csr.js';
import { DenseHandle, inOrder, MatrixHandle, ResidentVector, type HandleOwner } from './handles.js';
import { checkLayout, GPU_BUFFER_OPTION_KEYS, type GpuBufferOptions } from './gpu-buffers.js';
import { DEVICE_PATHS } from './paths.js';
import { nodeBuiltin } from '../node-builtins.js';
import { wasmLoad } from '../cpu/wasm.js';
import { checkAdd, checkGemm, checkTranspose, type AddOptions, type DenseLike, type GemmOptions } from './dense-ops.js';
import { matrixFeatures, chooseFormat, withFeatures, type MatrixFeatures } from './features.js';
import { checkCacheTiles } from '../cpu/tiles.js';
import { explainSpmv, formatOn, type Explanation } from './explain.js';
import type { Calibration, PathCalibration } from './cost.js';
import { poisson3D } from '../generators/poisson.js';
import { cpuCallCost, cpuFigures, deviceFigures, measuredDeviceFigures, type TinyProducts } from './auto-calibration.js';
import { shownTyped, shownValue } from '../shown-value.js';
import type { SparseKernels } from '../solvers/amg/spgemm.js';
import { residentCsr } from '../cpu/spmv-plan.js';
import type { CpuSparseSession } from '../cpu/spgemm.js';
import type { AmgOptions } from '../solvers/amg/hierarchy.js';
import { AMG_KEYS } from '../solvers/amg/keys.js';
import type { FactorEstimate, FactorPlan } from '../solvers/direct/plan.js';
import type { FactorOptions } from '../solvers/direct/factor.js';
import type { Factorization } from '../solvers/direct/factorization.js';
import { directSolvers } from './direct-solvers.js';
import { krylovSolvers } from './krylov-solvers.js';
import { solveRun } from './solve-chunk.js';
import { checkPreconditionerOptions, chooseDirect, chooseDirectAgain, factorFitsBudget, factorizeAboveCap, planAgain, planAgainAfterMs, fusedChebyshevDegree, chooseSolve, cpuDenseInverse, cpuLdlKernels, cpuSparseSession, cpuSymbolicKernels, diaCopyWithStructure, estimateFactorCost, looseNormsOf, planFactor, planPreconditioner, seedScaledLooseNorms, solverSetup, solveStructure, sparseProduct, spgemm, structuralRefusal } from './solver-setup-chunk.js';
import type { OrderingName } from '../solvers/direct/analysis.js';

type Handle = MatrixHandle | ResidentVector | DenseHandle | PreconditionerHandle;

/** rt.amg's option keys: AMG's and the path. */
const AMG_OPTION_KEYS = [...AMG_KEYS, 'path'];

/** What a handle is, for a message that got one where another kind was expected. */
function handleKind(h: Handle): string {
  return h instanceof MatrixHandle ? 'a matrix handle' : h instanceof ResidentVector ? 'a resident vector' : h instanceof DenseHandle ? 'a dense matrix handle' : 'a preconditioner handle';
}

/** explain's line on the CPU path's compact DIA values (src/cpu/spmv-plan.ts, decided at its upload) */
const COMPACT_DIA = 'CPU: the f64 values are all exactly f32, so DIA keeps them as f32 and widens them on load: the same products from half the bytes';

/** Copies of b a Runtime keeps for later solves (runSolve): one length of solve after another, or two at once. */
const HOST_COPIES_KEPT = 2;
/**
 * rt.solve's Chebyshev degree on a GPU path where its steps are not fused into A's SpMV (there the
 * path's figures choose it: Runtime.chebyshevDegreeOn): CG's iterations fall about as the degree rises
 * (its products with A stay ≈ plain CG's), and each saves an iteration's fixed passes (dots, scalar
 * steps, updates: ≈ 60 % of a plain CG iteration on an H100)
 */
export const GPU_CHEBYSHEV_DEGREE = 6;
/** Chebyshev's λmax/λmin on a GPU path (chebyshevPlan) */
export const CHEBYSHEV_RATIO = 100;

/**
 * A runtime owns one WebAssembly memory (the CPU path, its home) and whatever device paths this engine
 * offers (src/path.ts: WebGPU, WebGL2), and the data uploaded to them. Create it with
 * `createRuntime()`, upload matrices once, run many operations, and `dispose()` it at the end. The
 * runtime only chooses a path per operation, moves data between paths and explains; the paths compute.
 *
 * Operations may be started without awaiting each other: on the CPU path they run one at a time in
 * arrival order, with the results of the same calls in series. Every method of a disposed runtime
 * throws (or rejects with) {@link DisposedError}; a handle from another runtime is refused with a
 * {@link SimdglError} of code `E_FOREIGN`.
 *
 * @example
 * ```js
 * // Upload once, run many products, solve, and free everything at the end
 * import { createRuntime, poisson2D } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * const rt = await createRuntime();
 * const A = rt.upload(poisson2D(10));                        // 100×100, SPD
 * const x = new Float64Array(100).fill(1);
 * const y = await rt.spmv(A, x);                              // y = A·x
 * const { x: z, converged } = await rt.cg(A, y);              // solve A·z = y: z ≈ x
 * assert.ok(converged && z.every((v) => Math.abs(v - 1) < 1e-6));
 * rt.dispose();
 * ```
 */
export class Runtime implements HandleOwner {
  private disposed = false;
  /** live handles, disposed with the runtime */
  private readonly handles = new Set<Handle>();
  /** solves' copies of b, kept for the next solve of their length (runSolve) */
  private hostCopies: Float64Array[] = [];
  /** buffers of disposed uploads' host arrays that nothing reads any more, held weakly for the next uploads (solve-run.ts keepSpares) */
  private readonly spares: WeakRef<ArrayBufferLike>[] = [];
  /** the CPU path first, then the device paths in order of preference */
  private readonly paths: Path[];
  private readonly unsubscribe: (() => void)[] = [];
  private calibrationData: Calibration | null = null;
  private readonly featureCache = new WeakMap<SparseMatrix, MatrixFeatures>();
  /** device paths that have run an operation (their shaders are loaded): their automatic calibration may start */
  private readonly prepared = new Set<Path>();
  private readonly structureCache = new WeakMap<SparseMatrix, SolveAnalysis>();
  private requestedThreads = 1;

  private constructor(
    /** @internal the CPU path (rt.solve's driver, solve-run.ts) */
    readonly cpu: CpuPath,
    devices: Path[],
    /** why each path this runtime lacks is missing */
    private readonly missingPaths: Map<PathId, string>,
    private readonly mode: Backend,
    /** the path every operation runs on, when the backend option names one */
    private readonly forced: PathId | null,
  ) {
    this.paths = [cpu, ...devices];
    // where the CPU path's memory cannot grow, the set-ups rt.solve keeps only for speed go first
    cpu.backend.heap.relieve = () => releaseKept(this);
    for (const p of devices) {
      // contents written only on a lost device are gone; copies elsewhere become the current ones
      this.unsubscribe.push(
        p.onLost(() => {
          for (const h of this.handles) {
            if (h instanceof PreconditionerHandle) h.forgetPath(p.id);
            else if (!(h instanceof MatrixHandle)) h.pathLost(p);
          }
        }),
      );
    }
  }

  /** @internal use createRuntime() */
  static async create(options: RuntimeOptions = {}): Promise<Runtime> {
    checkOptions('createRuntime', options, RUNTIME_OPTION_KEYS);
    checkOptions('createRuntime: webgpu', options.webgpu, WEBGPU_OPTION_KEYS);
    const mode = options.backend ?? 'auto';
    if (mode !== 'auto' && mode !== 'gpu' && !PATH_IDS.includes(mode)) {
      throw new UnsupportedError(`createRuntime: backend must be 'auto', ${PATH_IDS.map((p) => `'${p}'`).join(', ')} or 'gpu', got ${shownValue(options.backend)}`);
    }
    checkNumber('createRuntime', 'maxMemoryMB', options.maxMemoryMB, inRange(1, 4096));
    if (options.inlineThreshold !== 'auto') checkNumber('createRuntime', "inlineThreshold (or 'auto')", options.inlineThreshold, NON_NEGATIVE);
    checkNumber('createRuntime', 'spinUs', options.spinUs, inRange(0, 1e6));
    checkNumber('createRuntime', 'timeoutMs', options.timeoutMs, NON_NEGATIVE);
    if (options.simd !== undefined && options.simd !== 'auto') checkBoolean('createRuntime', "simd (or 'auto')", options.simd);
    const cacheTiles = checkCacheTiles(options.cacheTiles, 'createRuntime');
    // the solver layer's set-up (solver-setup-chunk.ts), fetched now beside the kernels and waited for
    // below: the synchronous methods (explain('solve'), rt.preconditioner, rt.amg, rt.spgemm) need it. A
    // failed fetch rejects createRuntime with the fetch's error; the next call fetches again
    const setup = solverSetup.load();
    setup.catch(() => {});
    // rt.solve's driver (solve-chunk.ts) fetched now, beside the set-up and the kernels, and not
    // waited for: a page's first solve then rarely waits a round trip for it (a failed fetch is tried
    // again by that solve)
    if (!solveRun.loaded()) solveRun.load().catch(() => {});
    const threads = await resolveWorkers(options.workers, 'createRuntime');
    const devices: Path[] = [];
    const missing = new Map<PathId, string>();
    try {
      for (const f of DEVICE_PATHS) {
        if (mode === 'gpu' && devices.length) missing.set(f.id, `backend: gpu runs on the ${devices[0].label} path`);
        else if (mode !== 'auto' && mode !== 'gpu' && mode !== f.id) missing.set(f.id, `backend: ${mode} was asked for`);
        else {
          const r = await f.create(options);
          if ('reason' in r) missing.set(f.id, r.reason);
          else devices.push(r);
        }
      }
      const forced: PathId | null = mode === 'auto' ? null : mode === 'gpu' ? (devices[0]?.id ?? null) : mode;
      if (mode !== 'auto' && mode !== 'cpu' && !devices.some((p) => p.id === forced)) {
        const why = mode === 'gpu' ? DEVICE_PATHS.map((f) => `${f.label}: ${missing.get(f.id)}`).join('; ') : missing.get(mode);
        throw new GpuUnavailableError(`createRuntime: ${mode === 'gpu' ? 'no GPU path is available' : `the ${labelOf(mode)} path is unavailable`}: ${why}`);
      }
      const cpu = await CpuPath.create({ ...options, threads, cacheTiles, inlineThreshold: options.inlineThreshold ?? 'auto' });
      await setup.catch((e: unknown) => {
        cpu.dispose();
        throw e;
      });
      const rt = new Runtime(cpu, devices, missing, mode, forced);
      rt.requestedThreads = threads;
      if (options.calibration) rt.calibrationData = withLegacyKeys(options.calibration);
      return rt;
    } catch (e) {
      for (const p of devices) p.dispose();
      throw e;
    }
  }

  /** @internal HandleOwner: the CPU path, where uploads and new vectors land */
  get home(): Path {
    return this.cpu;
  }

  /** @internal HandleOwner */
  pathById(id: PathId): Path | undefined {
    return this.paths.find((p) => p.id === id);
  }

  /** @internal HandleOwner */
  missing(id: PathId): string {
    return this.missingPaths.get(id) ?? 'unknown';
  }

  /**
   * What this runtime runs on: the kernel build (SIMD or plain), shared memory and threads, and for
   * every path whether it is available (and why not), its device and limits, with notes in words on
   * whatever is missing (no SIMD, no shared memory and the headers that fix it in a page, a lost device).
   *
   * @example
   * ```js
   * import { createRuntime } from 'simdgl';
   * import assert from 'node:assert/strict';
   *
   * const rt = await createRuntime({ workers: 2 });
   * const caps = rt.capabilities();
   * assert.equal(caps.sharedMemory, true);               // always in Node
   * assert.equal(caps.threads, 2);
   * assert.equal(caps.paths.cpu.available, true);
   * assert.equal(caps.paths.webgl2.available, false);    // Node has no WebGL2: the reason says so
   * assert.equal(typeof caps.paths.webgl2.reason, 'string');
   * rt.dispose();
   * ```
   */
  capabilities(): Capabilities {
    const B = this.cpu.backend;
    const simd = B.flavor === 'simd';
    const notes: string[] = [];
    if (!simd) notes.push('running the plain WebAssembly build (no SIMD)');
    if (wasmLoad.source === 'embedded') notes.push(wasmLoad.reason);
    const isolated = (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated;
    if (!B.heap.shared) {
      notes.push(
        isolated === false
          ? 'this page is not cross-origin isolated, so SharedArrayBuffer is unavailable and the runtime runs on one thread; ' +
              'serve it with the headers "Cross-Origin-Opener-Policy: same-origin" and "Cross-Origin-Embedder-Policy: require-corp"'
          : isolated === true
            ? 'this engine has no SharedArrayBuffer even though the page is cross-origin isolated (WebKitGTK, for one): the memory is not shared and the runtime runs on one thread'
            : 'SharedArrayBuffer is unavailable: the memory is not shared and the runtime runs on one thread',
      );
    }
    if (this.requestedThreads > B.threads) notes.push(`asked for ${this.requestedThreads} threads, running on ${B.threads}`);
    const paths = {} as Record<PathId, PathCapabilities>;
    for (const id of PATH_IDS) paths[id] = this.pathById(id)?.capabilities() ?? { available: false, reason: this.missingPaths.get(id) ?? 'unknown' };
    for (const p of this.paths) if (!p.usable) notes.push(`the ${p.label} path's device is lost: operations run on other paths until it is restored`);
    const best = this.paths.find((p) => p.cost.kind === 'gpu');
    const g = best ? paths[best.id] : null;
    return {
      wasm: B.flavor,
      simd,
      sharedMemory: B.heap.shared,
      threads: B.threads,
      workers: B.threads > 1,
      crossOriginIsolated: isolated,
      notes,
      backend: this.mode,
      paths,
      gpu: g
        ? { ...g, ...g.limits, path: best!.id, renderer: g.device, contextLost: g.lost ?? false }
        : { available: false, reason: DEVICE_PATHS.map((f) => `${f.label}: ${this.missingPaths.get(f.id)}`).join('; ') },
    };
  }

  /**
   * Resizes the worker pool: `workers` threads compute, the calling thread included (1 closes the
   * pool; `'auto'` is one per core). Pending work must be awaited first.
   *
   * @throws {@link InputRangeError} (a RangeError) when `workers` is not an integer in [1, 256] or `'auto'`;
   * {@link InputTypeError} when it is not a number.
   * @throws {@link DisposedError} once the runtime is disposed.
   *
   * @example
   * ```js
   * import { createRuntime } from 'simdgl';
   * import assert from 'node:assert/strict';
   *
   * const rt = await createRuntime();
   * await rt.setWorkers(2);
   * assert.equal(rt.capabilities().threads, 2);
   * await rt.setWorkers(1);                              // closes the pool
   * assert.equal(rt.capabilities().workers, false);
   * rt.dispose();
   * ```
   */
  async setWorkers(workers: number | 'auto'): Promise<void> {
    this.live();
    this.requestedThreads = await resolveWorkers(workers, 'setWorkers');
    await this.cpu.backend.setThreads(this.requestedThreads);
  }

  /**
   * Sets the cost (entries + rows, or elements) below which operations run on the calling thread alone,
   * because a round trip through the pool would cost more than they do (`createRuntime({ inlineThreshold })`);
   * `'auto'` (the default) lets each SpMV and vector kernel go where it measures faster, per size.
   *
   * @throws {@link InputRangeError} (a RangeError) when `cost` is negative or NaN; {@link InputTypeError} when it is neither a number nor `'auto'`.
   *
   * @example
   * ```js
   * import { createRuntime } from 'simdgl';
   *
   * const rt = await createRuntime({ workers: 2 });
   * rt.setInlineThreshold(0);                            // every operation goes through the pool
   * rt.setInlineThreshold('auto');                       // back to the measured choice
   * rt.dispose();
   * ```
   */
  setInlineThreshold(cost: number | 'auto'): void {
    if (cost !== 'auto') requireNumber('setInlineThreshold', "cost (or 'auto')", cost, NON_NEGATIVE);
    this.cpu.backend.setInlineThreshold(cost);
  }

  /**
   * Sets how long idle workers spin before they sleep in `Atomics.wait`, in µs (0 sleeps at once):
   * spinning keeps the next call of an iterative solver fast, sleeping frees the core.
   *
   * @throws {@link InputRangeError} (a RangeError) when `us` is outside [0, 10⁶]; {@link InputTypeError} when it is not a number.
   *
   * @example
   * ```js
   * import { createRuntime } from 'simdgl';
   * import assert from 'node:assert/strict';
   *
   * const rt = await createRuntime({ workers: 2 });
   * rt.setSpin(0);                                       // idle workers sleep at once
   * assert.throws(() => rt.setSpin(-1), RangeError);
   * rt.dispose();
   * ```
   */
  setSpin(us: number): void {
    requireNumber('setSpin', 'us', us, inRange(0, 1e6));
    this.cpu.backend.workerPool?.setSpin(us);
  }

  /** @internal the CPU backend, for tests and benchmarks */
  get cpuBackend(): CpuBackend {
    return this.cpu.backend;
  }

  /** Bytes of WebAssembly memory currently held by uploaded matrices and vectors. */
  get memoryInUse(): number {
    return this.cpu.backend.heap.liveBytes;
  }

  /**
   * Uploads a matrix (any format class) and returns a resident handle. The runtime keeps a validated
   * private copy, so later changes to `matrix` cannot reach the kernels. On the way it converts the
   * values to `options.dtype` and the storage to `options.format` ({@link UploadOptions}): by default
   * the format the runtime chooses from the matrix's features (`rt.explain` says why), `'keep'` for the
   * matrix's own. A format named (or kept) is converted at upload; with the default the upload keeps the
   * canonical CSR, and the format is chosen and the resident copy in it made when an operation first needs
   * them (a solve that factorizes never does), so their memory errors come from that operation.
   *
   * @throws {@link FormatError} or {@link ShapeError} when the matrix breaks an invariant of its format
   * (validated on upload).
   * @throws {@link UnsupportedError} for an unknown format or dtype, or a complex matrix asked to become real.
   * @throws {@link InputTypeError} when `matrix` is not a matrix of this library (a SciPy-like object, an
   * ndarray, a number[][]: the message names the `from` that reads it).
   * @throws {@link PaddingLimitError} when the conversion to a padded format would exceed its limit.
   * @throws {@link MemoryLimitError} when the private copy, the conversion and the resident arrays together
   * would pass the runtime's memory budget (`maxMemoryMB`), checked before each allocation (for the
   * default format, the conversion and the resident arrays are counted by the first operation that makes them).
   * @throws {@link DisposedError} once the runtime is disposed.
   * @throws {@link OptionError} for an option key it does not know (TypeError when the options are not an object).
   *
   * @example
   * ```js
   * // The runtime chooses the format from the matrix's features, unless told
   * import { createRuntime, poisson3D } from 'simdgl';
   * import assert from 'node:assert/strict';
   *
   * const rt = await createRuntime();
   * const A = rt.upload(poisson3D(16));                        // 7 diagonals: DIA on the CPU
   * assert.equal(A.format, 'dia');
   * assert.equal(A.format, rt.explain('spmv', A).format);
   * const B = rt.upload(poisson3D(16), { format: 'keep', dtype: 'f32' });   // the CSR it is, in f32
   * assert.deepEqual([B.format, B.dtype], ['csr', 'f32']);
   * rt.dispose();
   * ```
   */
  upload(matrix: SparseMatrix, options: UploadOptions = {}): MatrixHandle {
    this.live();
    checkOptions('upload', options, UPLOAD_OPTION_KEYS);
    for (const k of ['maxFill', 'maxSlots'] as const) checkNumber('upload', k, options[k], NON_NEGATIVE);
    for (const k of ['width', 'sliceHeight', 'sortWindow'] as const) checkNumber('upload', k, options[k], ANY_NUMBER);
    // the copy, the conversions and the WebAssembly regions count against one budget, checked before each allocation
    return withMemoryBudget(this.cpu.memoryBudgetMB, () => this.uploadInBudget(matrix, options), this.spare);
  }

  private uploadInBudget(matrix: SparseMatrix, options: UploadOptions): MatrixHandle {
    // kernels trust only a validated private copy: later changes to `matrix` cannot reach them; a large
    // CSR's on SharedArrayBuffers where the pool's workers can copy it into their memory (cpu/copy-in.ts)
    // an 'auto' upload's validation pass also makes the format choice's scan and the loose norms (one pass over A)
    const owned = ownedCopyCanonical(matrix, this.cpu.backend.copiesIn, (options.format ?? 'auto') === 'auto');
    matrix = owned.matrix;
    if (options.dtype !== undefined && options.dtype !== matrix.dtype) {
      assertDType(options.dtype, 'upload');
      matrix = matrix.astype(options.dtype, { outOfRange: options.outOfRange });
    }
    const asked = options.format ?? 'auto';
    checkMemoryFloor(uploadFloorBytes(matrix, asked), `upload of a ${matrix.rows}×${matrix.cols} ${matrix.format}`);
    const { format: _format, dtype: _dtype, outOfRange: _outOfRange, ...convertOptions } = options;
    if (asked === 'auto') {
      // the canonical CSR serves the features, every conversion and the solvers' structure check; the
      // format is chosen, and the copy in it made, when an operation first needs them: a solve that
      // factorizes never does (the SELL copy and its conversion back to CSR were ≈ 25% of a small one)
      const csr = markPrivateCanonical(owned.canonical ? (matrix as CSRMatrix) : matrix.toCSR());
      if (csr === owned.matrix) owned.keepScan?.();
      const lazy = {
        format: () => chooseFormat(this.featuresOf(csr), 'cpu').format,
        convert: (format: FormatName) => {
          const target = withMemoryBudget(this.cpu.memoryBudgetMB, () => convert(csr, format, convertOptions), this.spare);
          this.featuresOf(target, csr);
          return target;
        },
      };
      return this.track(new MatrixHandle(csr, null, this, null, lazy));
    }
    const format = asked === 'keep' ? matrix.format : asked;
    // the validated copy kept in CSR as asked (or kept), canonical: private as an 'auto' upload's is (no
    // caller holds its arrays), so its scans, conversions and layout skip what a caller's CSR needs
    if (format === 'csr' && owned.canonical) markPrivateCanonical(matrix as CSRMatrix);
    const target = format !== matrix.format ? convert(matrix.format === 'csr' ? matrix : matrix.toCSR(), format, convertOptions) : matrix;
    // a format the caller named (or kept) is used on every path that has it, converted at upload
    return this.track(new MatrixHandle(target, this.cpu.matrix(target), this, format));
  }

  /**
   * A resident dense matrix: from a DenseMatrix (copied in) or zero-filled of a shape. gemm, add and
   * transpose take it and return new ones without copies.
   *
   * @throws {@link FormatError} when the DenseMatrix's value array has the wrong type or length.
   * @throws {@link ShapeError} when `rows` or `cols` of a shape is not a non-negative integer.
   * @throws {@link UnsupportedError} for an unknown dtype.
   * @throws {@link MemoryLimitError} when the runtime's memory cannot grow to hold it.
   * @throws {@link DisposedError} once the runtime is disposed.
   *
   * @example
   * ```js
   * import { createRuntime, DenseMatrix } from 'simdgl';
   * import assert from 'node:assert/strict';
   *
   * const rt = await createRuntime();
   * const A = rt.dense(new DenseMatrix(2, 2, 'f64', new Float64Array([1, 2, 3, 4])));
   * const Z = rt.dense({ dtype: 'f64', rows: 2, cols: 2 });        // zeros
   * const S = await rt.add(A, Z);                                  // a handle: A + 0
   * assert.deepEqual(Array.from((await S.read()).values), [1, 2, 3, 4]);
   * rt.dispose();
   * ```
   */
  dense(from: DenseMatrix | DenseShape): DenseHandle {
    this.live();
    if (from instanceof DenseMatrix) from.validate();
    else {
      assertDType(from?.dtype, 'dense');
      for (const k of ['rows', 'cols'] as const) {
        if (!Number.isInteger(from[k]) || from[k] < 0) throw new ShapeError(`dense: ${k} must be a non-negative integer, got ${from[k]}`);
      }
    }
    return this.track(new DenseHandle(from.dtype, from.rows, from.cols, this, this.cpu, this.cpu.dense(from)));
  }

  /**
   * Which path and format an operation would use for a matrix, and the numbers behind the choice:
   * the matrix's features, each path's estimate (overhead + bytes / bandwidth + transfers) and the
   * reasons in words. Estimates use figures measured on this machine: rt.calibrate()'s or a saved
   * calibration when given, else a short automatic calibration run on first need and kept for the
   * process or page (docs/paths-and-runtime.md; a GPU path's defaults stand until its own ends).
   * `options.format` fixes the format, `options.x` tells where x lives and `options.readBack` whether
   * y comes back to the host (default true).
   *
   * `explain('solve', A, options)` says what rt.solve would run for A (a handle) and why, PETSc
   * `-ksp_view` style: the path, whether a direct factorization is affordable (its estimated fill and
   * flops, docs/solvers.md), the method (from A's symmetry and diagonal, checked once per matrix,
   * or the caller's `method`/`spd`), the preconditioner (from the structure and whether the path has a
   * triangular solve), the fallbacks a breakdown moves to, and `text`, all of it in lines.
   *
   * @throws {@link UnsupportedError} when `op` is not `'spmv'` or `'solve'`.
   * @throws {@link FormatError} when `A` is a matrix that breaks an invariant of its format.
   * @throws {@link DisposedError} once the runtime or the handle A is disposed.
   * @throws {@link InputTypeError} when `readBack` is not a boolean or `x` is not vector data.
   * @throws {@link OptionError} for an option key it does not know (TypeError when the options are not an object).
   *
   * @example
   * ```js
   * // Why a matrix gets the path and format it gets
   * import { createRuntime, randomMatrix, poisson2D } from 'simdgl';
   * import assert from 'node:assert/strict';
   *
   * const rt = await createRuntime();
   * const A = randomMatrix({ rows: 2000, meanRowLength: 8, distribution: 'powerlaw', seed: 3 });
   * const e = rt.explain('spmv', A);
   * assert.equal(e.path, 'cpu');
   * assert.ok(e.features.rowCv >= 0.3);                      // irregular rows …
   * assert.equal(e.format, 'sell');                          // … and a small x: SELL-C-σ
   * assert.ok(e.reasons.length > 0 && e.estimates.cpu.ms > 0);
   * const s = rt.explain('solve', rt.upload(poisson2D(16)));   // small: factorized on the host …
   * assert.equal(s.method, 'direct');
   * assert.deepEqual([s.fallbacks[0].method, s.fallbacks[0].preconditioner], ['cg', 'jacobi']);   // … else CG + Jacobi (diagonally dominant)
   * rt.dispose();
   * ```
   */
  explain(op: 'spmv', A: MatrixHandle | SparseMatrix, options?: { format?: FormatName; x?: VectorLike; readBack?: boolean }): Explanation;
  explain(op: 'solve', A: MatrixHandle, options?: ExplainSolveOptions): SolveExplanation;
  explain(
    op: 'spmv' | 'solve',
    A: MatrixHandle | SparseMatrix,
    options: { format?: FormatName; x?: VectorLike; readBack?: boolean } | ExplainSolveOptions = {},
  ): Explanation | SolveExplanation {
    this.live();
    if (op === 'solve') {
      checkOptions('explain', options, EXPLAIN_SOLVE_OPTION_KEYS);
      return this.explainSolve(A as MatrixHandle, options as ExplainSolveOptions);
    }
    checkOptions('explain', options, EXPLAIN_OPTION_KEYS);
    if (op !== 'spmv') {
      const hint = typeof op === 'object' && op !== null ? " (the first argument names the operation: rt.explain('spmv', A))" : '';
      throw new UnsupportedError(`explain: 'spmv' and 'solve' are explained, not ${shownValue(op)}${hint}`);
    }
    return this.explainSpmv(A, options as { format?: FormatName; x?: VectorLike; readBack?: boolean }, true);
  }

  /**
   * explain('spmv')'s answer. A device path's automatic calibration starts with its first operation,
   * or (`measureDevices`, a user's explain) when its default figures put it within 8× of the CPU; the
   * runtime's own choices pass false. Until measured, a device path has its default figures, and a
   * page whose work stays on the CPU never loads a GPU path's shaders (test/browser-lazy-shaders.test.ts).
   */
  private explainSpmv(A: MatrixHandle | SparseMatrix, options: { format?: FormatName; x?: VectorLike; readBack?: boolean }, measureDevices: boolean): Explanation {
    checkBoolean('explain', 'readBack', options.readBack);
    // the format as upload takes it (explain explained 'xyz', 42 or 'CSR' as "no xyz kernel")
    if (options.format != null && !FORMATS.includes(options.format)) throw new UnsupportedError(`explain: unknown format ${shownValue(options.format)}, expected one of ${FORMATS.join(', ')}`);
    const handle = A instanceof MatrixHandle || A instanceof ResidentVector || A instanceof DenseHandle || A instanceof PreconditionerHandle ? this.matrixHandle(A, 'explain: A') : null;
    const host = handle ? (handle.canonicalCsr ?? handle.host) : sparseMatrix(A, 'explain: A');
    // a user's x as rt.spmv(A, x) takes it: A's columns, its dtype (a 3-entry x explained A of 16 columns);
    // rt.spmv's own calls pass the x it checked (Aᵀ's length for op 'T')
    if (measureDevices && options.x !== undefined) this.operand(options.x, host.dtype, host.cols, 'explain: x');
    const features = this.featuresOf(host);
    const x = options.x;
    const bound = x instanceof ResidentVector ? x.pinned : null;
    const eb = elementBytes(host.dtype);
    // the working set as CSR: the CPU figures' rate beyond cache is measured at its octave
    const workingSet = features.nnz * (4 + eb) + (features.rows + 1) * 4 + (features.rows + features.cols) * eb;
    const uncalibrated: string[] = [];
    const candidates = this.paths.map((p) => ({
      path: p,
      calibration: this.calibrationFor(p, workingSet, uncalibrated),
      available: bound && bound !== p.id && !this.forced ? `x is in a GPUBuffer shared on the ${labelOf(bound)} path (rt.fromGPUBuffer, gpuBuffer())` : this.availability(p),
      resident: {
        // the home copy of an 'auto' upload is made by its first operation from the CSR in memory, as every upload was
        matrix: handle && p !== this.home ? handle.copies.has(`${p.id}:${this.formatFor(handle, p)}`) : p === this.home,
        x: x instanceof ResidentVector ? x.current.has(p.id) : p === this.home,
      },
    }));
    const e = explainSpmv({
      features,
      elementBytes: eb,
      calibrated: uncalibrated.length === 0,
      uncalibrated,
      candidates,
      readBack: options.readBack ?? true,
      format: options.format ?? handle?.requestedFormat ?? undefined,
    });
    for (const f of DEVICE_PATHS) if (this.missingPaths.has(f.id)) e.reasons.unshift(`${f.label} path unavailable: ${this.missingPaths.get(f.id)}`);
    if (e.estimates.cpu?.format === 'dia' && features.valuesF32) e.reasons.push(COMPACT_DIA);
    // asked for estimates: measure a device path that could matter here — within 8× of the CPU by its
    // default figures — in the background (it loads that path's shaders); one that cannot keeps them
    const cpuMs = e.estimates.cpu?.ms;
    // ...and the CPU's fixed cost of a call, through tiny products of this runtime's (once per process)
    if (measureDevices && !this.calibrationData?.cpu && this.availability(this.home) === true) void cpuCallCost(this.cpu, () => this.tinyProducts());
    if (measureDevices && cpuMs !== undefined) {
      for (const p of this.paths) {
        const ms = e.estimates[p.id]?.ms;
        if (p !== this.home && this.availability(p) === true && ms !== undefined && ms <= 8 * cpuMs) void deviceFigures(p);
      }
    }
    return e;
  }

  /** true, or why `p` cannot run an operation now */
  private availability(p: Path): true | string {
    if (this.forced && this.forced !== p.id) return `backend: ${this.mode} was asked for`;
    if (!p.usable) return p.capabilities().reason ?? 'its device is lost';
    return true;
  }

  /** Tiny resident products through rt.spmv on the CPU path: what a call costs beside its kernel (auto-calibration.ts cpuCallCost). */
  private tinyProducts(): TinyProducts {
    const A = poisson3D(2);
    const [h, x, y] = [this.upload(A), this.vector(new Float64Array(A.cols).fill(1)), this.vector(A.rows, 'f64')];
    return {
      product: async () => void (await this.spmv(h, x, { y, path: 'cpu' })),
      operations: () => this.cpu.backend.operations,
      dispose: () => [h, x, y].forEach((v) => v.dispose()),
    };
  }

  /**
   * A path's figures: rt.calibrate()'s or createRuntime's, else the automatic calibration's
   * (auto-calibration.ts: the CPU's measured now if this process has none; a device's once measured,
   * its defaults until then — their labels go to `uncalibrated`).
   */
  private calibrationFor(p: Path, workingSet: number, uncalibrated: string[]): PathCalibration {
    const c = this.calibrationData?.[p.id];
    if (c) return c;
    if (p === this.home) return cpuFigures(this.cpu, workingSet);
    if (this.availability(p) !== true) return p.cost.defaults;
    // a path that has run an operation has its shaders: its measurement may start (once)
    const { figures: f, failed } = this.prepared.has(p) ? deviceFigures(p) : { figures: measuredDeviceFigures(p), failed: undefined };
    if (!f) uncalibrated.push(failed ? `${p.label} (its last calibration failed: ${failed})` : p.label);
    return f ?? p.cost.defaults;
  }

  /** @internal Resolves when the CPU call's and every usable device path's automatic calibration have ended (starting those not started): for tests and benchmarks. */
  async autoCalibrated(): Promise<void> {
    if (this.availability(this.home) === true) await cpuCallCost(this.cpu, () => this.tinyProducts());
    for (const p of this.paths) if (p !== this.home && p.usable) await deviceFigures(p).done;
  }

  /**
   * Measures this machine (about 50 ms per path): the fixed cost of an operation and the bandwidth
   * SpMV reaches on each usable path (the CPU path with the current threads). Save the result and pass
   * it as createRuntime({ calibration }) to skip the measurement next time.
   *
   * @throws {@link DisposedError} once the runtime is disposed.
   *
   * @example
   * ```js
   * import { createRuntime, poisson2D } from 'simdgl';
   * import assert from 'node:assert/strict';
   *
   * const rt = await createRuntime();
   * const calibration = await rt.calibrate();
   * assert.ok(calibration.cpu.bandwidthGBs > 0 && calibration.cpu.overheadMs >= 0);
   * rt.dispose();
   * const saved = JSON.parse(JSON.stringify(calibration));     // e.g. from localStorage
   * const rt2 = await createRuntime({ calibration: saved });   // no measurement needed
   * assert.equal(rt2.explain('spmv', poisson2D(8)).calibrated, true);
   * rt2.dispose();
   * ```
   */
  async calibrate(): Promise<Calibration> {
    this.live();
    const small = poisson3D(2);
    const large = poisson3D(40);
    const cal = { cpu: await this.cpu.calibrate(small, large) } as Calibration;
    for (const p of this.paths) if (p !== this.home && p.usable) cal[p.id as Exclude<PathId, 'cpu'>] = await p.calibrate(small, large);
    this.calibrationData = cal;
    return cal;
  }

  /** The features of A; a SELLMatrix runs as it is wherever SELL is chosen, so its own C, σ and slots replace the defaults. */
  private featuresOf(A: SparseMatrix, same?: SparseMatrix): MatrixFeatures {
    let f = this.featureCache.get(A);
    if (!f) {
      // `same`: this matrix in another format, already measured (upload's hub): measuring the converted
      // copy again cost the first product on it 20–100 ms at 40,000 rows (a CSR rebuilt, then scanned)
      const known = same && this.featureCache.get(same);
      if (known) f = withFeatures(known);
      else {
        const csr = A.toCSR();
        // scans on first read only of the runtime's private CSR: a caller's may change meanwhile, and a
        // converted copy would stay alive in their closures
        f = matrixFeatures(csr, isPrivateCanonical(csr));
      }
      if (this.cpu.backend.cacheTiles === false) f = withFeatures(f, { cacheTiles: false });
      if (A.format === 'sell') f = withFeatures(f, { sellC: A.sliceHeight, sellSigma: A.sortWindow, sellSlots: A.colIdx.length });
      this.featureCache.set(A, f);
    }
    return f;
  }

  /** @internal The format a handle runs in on `p`: as uploaded on the home path, else that path's choice. */
  formatFor(h: MatrixHandle, p: Path): FormatName {
    return p === this.home ? h.format : formatOn(p, this.featuresOf(h.canonicalCsr ?? h.host), h.requestedFormat).format;
  }

  /**
   * @internal
   * The handle's matrix on `p`, uploaded on first use there (with Aᵀ too when a product needs it). On
   * the home path the format's choice, the conversion and the copy count against the memory budget as
   * one operation, as an upload's did.
   */
  matrixOn(h: MatrixHandle, p: Path, op: SpmvScalars['op'], offer?: (copy: SparseMatrix) => void): PathMatrix {
    return p === this.home ? withMemoryBudget(this.cpu.memoryBudgetMB, () => this.matrixOnNow(h, p, op), this.spare) : this.matrixOnNow(h, p, op, offer);
  }

  /** `offer`: given the host copy converted for the upload, where one was made. */
  private matrixOnNow(h: MatrixHandle, p: Path, op: SpmvScalars['op'], offer?: (copy: SparseMatrix) => void): PathMatrix {
    // disposed while an operation waited: a copy made now would never be freed (a solve leaked A's)
    h.live();
    const format = this.formatFor(h, p);
    const key = `${p.id}:${format}`;
    let m = h.copies.get(key);
    if (m && (op === 'N' || m.hasTranspose)) return m;
    m?.dispose();
    h.copies.delete(key);
    let src: SparseMatrix;
    // the home path's copy is the handle's own; another path's is converted from the CSR an 'auto' upload keeps
    const from = p === this.home ? h.host : (h.canonicalCsr ?? h.host);
    try {
      // (a copy offered to A's structure pass, DIA: that pass, the diagonal and the WebGPU upload's bytes made as it is written)
      src = from.format === format ? from : offer && format === 'dia' && from.format === 'csr' ? diaCopyWithStructure(from) : convert(from, format);
    } catch (e) {
      // a padded format over its limit runs as CSR instead
      if (!(e instanceof PaddingLimitError)) throw e;
      src = from.toCSR();
    }
    m = p.matrix(src, { transpose: op !== 'N' });
    h.copies.set(key, m);
    if (src !== from) offer?.(src);
    return m;
  }

  /**
   * A resident vector: from data (copied in; the dtype defaults to f32 for a Float32Array, else f64)
   * or zero-filled of `data` elements of `dtype` (default f64). For complex dtypes the data interleave
   * re, im and the vector has half as many elements. Data is any array of numbers or typed array
   * (docs/errors.md, "Vector data": the rule every operand follows).
   *
   * @throws {@link InputTypeError} when data is not an array of numbers or a typed array (the message
   * shows its type, and the index of an element that is not a number).
   * @throws {@link InputRangeError} for a BigInt64Array or BigUint64Array element beyond ±(2⁵³ − 1), or, for an f32 or c64 vector, a value f32 cannot hold (beyond ±3.4e38, or nonzero below 1.4e-45), naming its index.
   * @throws {@link ShapeError} when a length is not a non-negative integer, or complex data has an odd length.
   * @throws {@link UnsupportedError} for an unknown dtype.
   * @throws {@link MemoryLimitError} when the runtime's memory cannot grow to hold it.
   * @throws {@link DisposedError} once the runtime is disposed.
   *
   * @example
   * ```js
   * import { createRuntime } from 'simdgl';
   * import assert from 'node:assert/strict';
   *
   * const rt = await createRuntime();
   * const x = rt.vector(new Float32Array([1, 2, 3]));          // f32, from the array
   * const z = rt.vector(3, 'c128');                            // three complex zeros
   * const w = rt.vector(new Float64Array([1, 0, 0, 1]), 'c128'); // [1, i]
   * assert.deepEqual([x.dtype, x.length, z.length, w.length], ['f32', 3, 3, 2]);
   * assert.deepEqual(await rt.dot(w, w, { conj: true }), [2, 0]);
   * rt.dispose();
   * ```
   */
  vector(data: ArrayLike<number> | BigInt64Array | BigUint64Array | number, dtype?: DType): ResidentVector {
    this.live();
    if (typeof data === 'number') {
      if (!Number.isInteger(data) || data < 0) throw new ShapeError(`vector: length must be a non-negative integer, got ${data}`);
      const dt = dtype ?? 'f64';
      assertDType(dt, 'vector');
      return this.track(new ResidentVector(dt, data, this, data));
    }
    const values = vectorData(data, 'vector: data');
    const dt = dtype ?? (values instanceof Float32Array ? 'f32' : 'f64');
    assertDType(dt, 'vector');
    const c = components(dt);
    if (values.length % c !== 0) throw new ShapeError(`vector: ${values.length} numbers cannot be ${dt} pairs`);
    checkSingleRange(values, dt, 'vector: data');
    return this.track(new ResidentVector(dt, values.length / c, this, values));
  }

  /**
   * A resident vector over a GPUBuffer of yours (TF.js's `tensor.dataToGPU().buffer`, an ONNX Runtime
   * Web GPU tensor), not copied: the runtime must run on the device that made it
   * (`createRuntime({ webgpu: { device } })`). Operations on the vector run on the WebGPU path, read
   * the buffer and write into it; `v.gpuBuffer()` returns it. Layout: the elements from byte 0, f32
   * plain, c64 (re, im) interleaved f32; f64 and c128 only as double-single (hi, lo) f32 pairs, with
   * `layout: 'double-single'` (WGSL has no f64). The buffer may be larger than the vector.
   *
   * Ownership: the buffer stays yours; `dispose()` (of the vector or the runtime) lets go of it and
   * never destroys it. Keep it alive, unmapped and unchanged by others while an operation on it is
   * pending. Order: the work simdgl records on the buffer is submitted to the device's queue before the
   * call returns, so work you submit afterwards runs after it, and work you submitted before runs
   * before it. docs/interop.md has the whole contract.
   *
   * @throws {@link GpuUnavailableError} when the runtime has no WebGPU path.
   * @throws {@link InputTypeError} when `buffer` is not a GPUBuffer or `length` not a number.
   * @throws {@link InputRangeError} when `length` is not a non-negative integer.
   * @throws {@link ShapeError} when the buffer is smaller than the vector.
   * @throws {@link UnsupportedError} when the buffer lacks STORAGE, COPY_SRC or COPY_DST usage, is mapped,
   * or belongs to another device (or was destroyed); for f64 / c128 without `layout: 'double-single'`;
   * for an unknown dtype.
   * @throws {@link WebGpuLimitError} when the buffer is over the device's maxStorageBufferBindingSize.
   * @throws {@link WebGpuDeviceLostError} while the device is lost.
   * @throws {@link OptionError} for an option key it does not know.
   * @throws {@link DisposedError} once the runtime is disposed.
   *
   * @example
   * ```js
   * // Without a WebGPU path: the checks that need no device, then why there is no path
   * import { createRuntime, GpuUnavailableError } from 'simdgl';
   * import assert from 'node:assert/strict';
   *
   * const rt = await createRuntime({ backend: 'cpu' });
   * const buffer = { size: 64, usage: 0x8c, destroy() {} };      // stands in for a GPUBuffer
   * await assert.rejects(rt.fromGPUBuffer(buffer, { length: 8, dtype: 'f64' }), /layout: 'double-single'/);
   * await assert.rejects(rt.fromGPUBuffer(buffer, { length: 8 }), GpuUnavailableError);
   * rt.dispose();
   * ```
   *
   * @example
   * ```ts
   * // not run: Dawn on SwiftShader crashes at process exit after compute work here (test/webgpu-interop.test.ts runs these calls)
   * // y = A·x inside a WebGPU pipeline: x and y stay GPUBuffers of the caller's device (Dawn here)
   * import { createRuntime, poisson2D } from 'simdgl';
   * import { create, globals } from 'webgpu';
   * import assert from 'node:assert/strict';
   *
   * Object.assign(globalThis, globals);                     // GPUBufferUsage, GPUMapMode in Node
   * const device = await (await create([]).requestAdapter()).requestDevice();
   * const rt = await createRuntime({ webgpu: { device } });
   * const A = rt.upload(poisson2D(4).astype('f32'));         // 16×16
   * // the caller's buffer: 16 f32 ones
   * const xb = device.createBuffer({ size: 64, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
   * device.queue.writeBuffer(xb, 0, new Float32Array(16).fill(1));
   * const x = await rt.fromGPUBuffer(xb, { length: 16 });    // f32 by default
   * const y = rt.vector(16, 'f32');
   * await rt.spmv(A, x, { y });                              // on the WebGPU path: x's buffer is there
   * const yb = await y.gpuBuffer();                          // y's own buffer, the product submitted
   * // a row sum of the 2-D Laplacian: 0 inside, 1 or 2 on the border
   * const staging = device.createBuffer({ size: 64, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
   * const enc = device.createCommandEncoder();
   * enc.copyBufferToBuffer(yb, 0, staging, 0, 64);
   * device.queue.submit([enc.finish()]);
   * await staging.mapAsync(GPUMapMode.READ);
   * const got = new Float32Array(staging.getMappedRange().slice(0));
   * assert.deepEqual([got[0], got[1], got[5]], [2, 1, 0]);
   * await assert.rejects(rt.fromGPUBuffer(xb, { length: 16, dtype: 'f64' }), /double-single/);   // f64 is not plain there
   * rt.dispose();                                            // xb stays the caller's
   * xb.destroy();
   * device.destroy();
   * ```
   */
  async fromGPUBuffer(buffer: GPUBuffer, options: GpuBufferOptions): Promise<ResidentVector> {
    this.live();
    if (options === undefined) throw new InputTypeError('fromGPUBuffer: options { length, dtype? } are required (the vector\'s length)');
    checkOptions('fromGPUBuffer', options, GPU_BUFFER_OPTION_KEYS);
    const length = requireNumber('fromGPUBuffer', 'length', options.length, NON_NEGATIVE_INTEGER);
    const dtype = options.dtype ?? 'f32';
    assertDType(dtype, 'fromGPUBuffer');
    checkLayout('fromGPUBuffer', dtype, options.layout);
    const p = this.pathById('webgpu');
    if (!p?.wrapBuffer) throw new GpuUnavailableError(`fromGPUBuffer: this runtime has no WebGPU path (${this.missing('webgpu')})`);
    if (!p.usable) throw p.lostError("fromGPUBuffer: the WebGPU path's device is lost");
    const copy = await p.wrapBuffer(buffer, dtype, length);
    this.live();
    const v = new ResidentVector(dtype, length, this, { path: p, copy });
    v.pinned = p.id;
    return this.track(v);
  }

  /**
   * y = α·op(A)·x + β·y. x and y are typed arrays (copied in and out) or resident vectors (used in
   * place). Returns y: the resident vector or typed array given, or a new typed array. Runs on the
   * path the runtime estimates fastest (rt.explain says why), or on options.path. With `beta = 0`
   * (the default) y is not read, so it may hold anything, as in BLAS; complex scalars are `[re, im]`.
   *
   * @throws {@link ShapeError} when x or y has the wrong length or dtype for A and `op`.
   * @throws {@link UnsupportedError} for an `op` other than `'N'`, `'T'`, `'H'` (null included), or a complex
   * `alpha` or `beta` on a real matrix.
   * @throws {@link InputTypeError} when x is not vector data (docs/errors.md: any array of numbers or typed
   * array, or a resident vector), y is not a resident vector or the dtype's Float32Array / Float64Array,
   * or `alpha` / `beta` is neither a number nor `[re, im]`.
   * @throws {@link InputRangeError} for a BigInt64Array x holding a value beyond ±(2⁵³ − 1).
   * @throws {@link GpuUnavailableError} when `options.path` names a GPU path this runtime lacks, or the
   * lost path's error ({@link GpuContextLostError} on WebGL2) while its device is lost.
   * @throws {@link WorkerError} when a worker of the pool fails during the call.
   * @throws {@link DisposedError} once the runtime, A or a resident operand is disposed.
   * @throws {@link InputTypeError} when A is not a handle from `rt.upload()`.
   * @throws {@link OptionError} for an option key it does not know (TypeError when the options are not an
   * object), or a `path` that names no path.
   *
   * @example
   * ```js
   * // y = 2·Aᵀ·x + y, in place on a typed array
   * import { createRuntime, CSRMatrix } from 'simdgl';
   * import assert from 'node:assert/strict';
   *
   * const rt = await createRuntime();
   * // A = [[1, 2, 0], [0, 0, 3]]
   * const A = rt.upload(new CSRMatrix(2, 3, 'f64', new Int32Array([0, 2, 3]), new Int32Array([0, 1, 2]), new Float64Array([1, 2, 3])));
   * const y = new Float64Array([1, 1, 1]);
   * const r = await rt.spmv(A, new Float64Array([1, 1]), { op: 'T', alpha: 2, beta: 1, y });
   * assert.equal(r, y);                                              // the given y, updated
   * assert.deepEqual(Array.from(y), [3, 5, 7]);                      // Aᵀ·[1, 1] = [1, 2, 3]
   * rt.dispose();
   * ```
   */
  async spmv<Y extends VectorLike | undefined = undefined>(
    A: MatrixHandle,
    x: VectorLike | ArrayLike<number>,
    options: SpmvOptions<Y> = {},
  ): Promise<Y extends ResidentVector ? ResidentVector : ValueArray> {
    this.live();
    checkOptions('spmv', options, SPMV_OPTION_KEYS);
    const h = this.matrixHandle(A, 'spmv: A');
    const s = resolveScalars(h.dtype, options);
    checkPath('spmv', options.path);
    const [inLen, outLen] = s.op === 'N' ? [h.cols, h.rows] : [h.rows, h.cols];
    const readY = s.beta[0] !== 0 || s.beta[1] !== 0;
    const y = options.y;
    const xIn = this.operand(x, h.dtype, inLen, 'spmv: x');
    if (y !== undefined) this.checkOutput(y, h.dtype, outLen, 'spmv: y');
    // an operand in a shared GPUBuffer keeps the product on its path (rt.fromGPUBuffer)
    const bound = (y instanceof ResidentVector ? y.pinned : null) ?? (xIn instanceof ResidentVector ? xIn.pinned : null);
    const path = options.path || this.forced || bound ? this.usable(options.path ?? bound ?? undefined) : this.pathById(this.explainSpmv(h, { x: xIn, readBack: !(y instanceof ResidentVector) }, false).path)!;
    // x and y given as arrays are read now, at the call: the caller may change them as soon as it
    // returns (copies where it must wait: for operations called before it on x or y, or for a GPU
    // path's shaders on its first operation)
    const resident = [xIn, y].filter((v): v is ResidentVector => v instanceof ResidentVector);
    let xHost = xIn instanceof ResidentVector ? null : xIn;
    let yHost = readY && y && !(y instanceof ResidentVector) ? (y as ValueArray) : null;
    if ((path.prepare && !this.prepared.has(path)) || resident.some((v) => v.pending)) [xHost, yHost] = [xHost && xHost.slice(), yHost && yHost.slice()];
    return await inOrder(resident, async () => {
      if (path.prepare && !this.prepared.has(path)) await this.ready(path);
      const M = this.matrixOn(h, path, s.op);
      const temps: PathVector[] = [];
      try {
        const xh = xHost && keep(temps, path.vector(h.dtype, xHost));
        let yv = y instanceof ResidentVector ? null : keep(temps, path.vector(h.dtype, yHost ?? outLen));
        const xv = xh ?? (await (xIn as ResidentVector).on(path));
        if (y instanceof ResidentVector) yv = readY ? await y.on(path) : y.target(path);
        await path.spmv(M, xv, yv!, s);
        if (y instanceof ResidentVector) {
          await y.wrote(path);
          return y as never;
        }
        const result = (y as ValueArray | undefined) ?? allocValues(h.dtype, outLen);
        result.set(await path.read(yv!));
        return result as never;
      } finally {
        for (const t of temps) t.dispose();
      }
    });
  }

  /** @internal `p` once it can run kernels: a GPU path loads its shaders with its first operation (Path.prepare) */
  async ready(p: Path): Promise<Path> {
    if (p.prepare) {
      await p.prepare();
      this.prepared.add(p);
    }
    return p;
  }

  /**
   * The path asked for (an operation's `path` option, else the backend option), usable now: a GPU
   * path this runtime lacks is a GpuUnavailableError, a lost one its path's typed error.
   */
  private usable(choice: PathChoice | undefined): Path {
    const want = choice ?? this.forced ?? 'cpu';
    const id = want === 'gpu' ? (this.paths.find((p) => p.cost.kind === 'gpu' && p.usable) ?? this.paths.find((p) => p.cost.kind === 'gpu'))?.id : want;
    const p = id && this.pathById(id);
    if (!p) {
      const why = want === 'gpu' ? DEVICE_PATHS.map((f) => `${f.label}: ${this.missingPaths.get(f.id)}`).join('; ') : this.missingPaths.get(want);
      throw new GpuUnavailableError(`the ${want === 'gpu' ? 'GPU' : labelOf(want)} path is unavailable: ${why}`);
    }
    if (!p.usable) throw p.lostError(`the ${p.label} path's device is lost; the path resumes when it is restored`);
    return p;
  }

  /**
   * The path of a vector or dense operation: the forced one, else where an operand is current only
   * on a device (bringing it home would cost a read-back), else the home path.
   */
  private operandPath(choice: PathChoice | undefined, ...vs: (ResidentVector | DenseHandle)[]): Path {
    if (choice || this.forced) return this.usable(choice);
    for (const v of vs) {
      if (v.current.has(this.home.id)) continue;
      const p = this.paths.find((q) => q.usable && v.current.has(q.id));
      if (p) return p;
    }
    return this.home;
  }

  /**
   * y ← α·x + y on resident vectors of one dtype and length (α is `[re, im]` for complex).
   *
   * @throws {@link ShapeError} when x and y differ in dtype or length.
   * @throws {@link DisposedError} once the runtime or a vector is disposed.
   * @throws {@link InputTypeError} when an operand is not a resident vector, or α is neither a number nor `[re, im]`.
   * @throws {@link UnsupportedError} for a complex α on real vectors.
   *
   * @example
   * ```js
   * import { createRuntime } from 'simdgl';
   * import assert from 'node:assert/strict';
   *
   * const rt = await createRuntime();
   * const x = rt.vector(new Float64Array([1, 2, 3]));
   * const y = rt.vector(new Float64Array([10, 10, 10]));
   * await rt.axpy(-2, x, y);                            // y ← −2·x + y
   * assert.deepEqual(Array.from(await y.read()), [8, 6, 4]);
   * rt.dispose();
   * ```
   */
  async axpy(alpha: Scalar, x: ResidentVector, y: ResidentVector): Promise<void> {
    const a = blasScalar('axpy', this.pair('axpy', x, y), alpha);
    return await inOrder([x, y], async () => {
      const p = this.operandPath(undefined, x, y);
      await p.axpy(a, await x.on(p), await y.on(p));
      await y.wrote(p);
    });
  }

  /**
   * y ← α·y + x on resident vectors of one dtype and length (the update of CG's search direction).
   *
   * @throws {@link ShapeError} when x and y differ in dtype or length.
   * @throws {@link DisposedError} once the runtime or a vector is disposed.
   * @throws {@link InputTypeError} when an operand is not a resident vector, or α is neither a number nor `[re, im]`.
   * @throws {@link UnsupportedError} for a complex α on real vectors.
   *
   * @example
   * ```js
   * import { createRuntime } from 'simdgl';
   * import assert from 'node:assert/strict';
   *
   * const rt = await createRuntime();
   * const x = rt.vector(new Float64Array([1, 2, 3]));
   * const y = rt.vector(new Float64Array([10, 10, 10]));
   * await rt.aypx(0.5, x, y);                           // y ← 0.5·y + x
   * assert.deepEqual(Array.from(await y.read()), [6, 7, 8]);
   * rt.dispose();
   * ```
   */
  async aypx(alpha: Scalar, x: ResidentVector, y: ResidentVector): Promise<void> {
    const a = blasScalar('aypx', this.pair('aypx', x, y), alpha);
    return await inOrder([x, y], async () => {
      const p = this.operandPath(undefined, x, y);
      await p.aypx(a, await x.on(p), await y.on(p));
      await y.wrote(p);
    });
  }

  /**
   * x ← α·x on a resident vector (α = 0 writes zeros).
   *
   * @throws {@link UnsupportedError} for a complex α on real vectors.
   * @throws {@link DisposedError} once the runtime or x is disposed.
   * @throws {@link InputTypeError} when x is not a resident vector, or α is neither a number nor `[re, im]`.
   *
   * @example
   * ```js
   * // Complex scaling: multiply by i
   * import { createRuntime } from 'simdgl';
   * import assert from 'node:assert/strict';
   *
   * const rt = await createRuntime();
   * const x = rt.vector(new Float64Array([1, 2, 3, 4]), 'c128');   // [1+2i, 3+4i]
   * await rt.scal([0, 1], x);
   * assert.deepEqual(Array.from(await x.read()), [-2, 1, -4, 3]);
   * rt.dispose();
   * ```
   */
  async scal(alpha: Scalar, x: ResidentVector): Promise<void> {
    const a = blasScalar('scal', this.pair('scal', x, x), alpha);
    return await inOrder([x], async () => {
      const p = this.operandPath(undefined, x);
      await p.scal(a, await x.on(p));
      await x.wrote(p);
    });
  }

  /**
   * y ← x on resident vectors of one dtype and length.
   *
   * @throws {@link ShapeError} when x and y differ in dtype or length.
   * @throws {@link DisposedError} once the runtime or a vector is disposed.
   * @throws {@link InputTypeError} when an operand is not a resident vector (dot: or `conj` is not a boolean).
   *
   * @example
   * ```js
   * import { createRuntime } from 'simdgl';
   * import assert from 'node:assert/strict';
   *
   * const rt = await createRuntime();
   * const x = rt.vector(new Float32Array([1, 2, 3]));
   * const y = rt.vector(3, 'f32');
   * await rt.copy(x, y);
   * assert.deepEqual(Array.from(await y.read()), [1, 2, 3]);
   * rt.dispose();
   * ```
   */
  async copy(x: ResidentVector, y: ResidentVector): Promise<void> {
    this.pair('copy', x, y);
    return await inOrder([x, y], async () => {
      const p = this.operandPath(undefined, x);
      await p.copy(await x.on(p), y.target(p));
      await y.wrote(p);
    });
  }

  /**
   * Σ xᵢ·yᵢ (a number; `[re, im]` for complex, where `conj: true` conjugates x). Accumulated in f64 on
   * the CPU path (deterministic for a given number of threads) and in double-single on the GPU paths.
   *
   * @throws {@link ShapeError} when x and y differ in dtype or length.
   * @throws {@link DisposedError} once the runtime or a vector is disposed.
   * @throws {@link InputTypeError} when an operand is not a resident vector (dot: or `conj` is not a boolean).
   * @throws {@link OptionError} for an option key it does not know (TypeError when the options are not an object).
   *
   * @example
   * ```js
   * import { createRuntime } from 'simdgl';
   * import assert from 'node:assert/strict';
   *
   * const rt = await createRuntime();
   * const x = rt.vector(new Float64Array([1, 2, 3]));
   * assert.equal(await rt.dot(x, x), 14);
   * const z = rt.vector(new Float64Array([0, 1]), 'c128');        // [i]
   * assert.deepEqual(await rt.dot(z, z), [-1, 0]);                 // i·i
   * assert.deepEqual(await rt.dot(z, z, { conj: true }), [1, 0]);  // conj(i)·i
   * rt.dispose();
   * ```
   */
  async dot(x: ResidentVector, y: ResidentVector, options: { conj?: boolean } = {}): Promise<number | [number, number]> {
    checkOptions('dot', options, DOT_OPTION_KEYS);
    checkBoolean('dot', 'conj', options.conj);
    const dt = this.pair('dot', x, y);
    return await inOrder([x, y], async () => {
      const p = this.operandPath(undefined, x, y);
      const r = await p.dot(await x.on(p), await y.on(p), options.conj ?? false);
      return isComplex(dt) ? r : r[0];
    });
  }

  /**
   * ‖x‖₂ of a resident vector (on the CPU path without overflow or underflow in the squares).
   *
   * @throws {@link DisposedError} once the runtime or x is disposed.
   * @throws {@link InputTypeError} when x is not a resident vector.
   *
   * @example
   * ```js
   * import { createRuntime } from 'simdgl';
   * import assert from 'node:assert/strict';
   *
   * const rt = await createRuntime();
   * assert.equal(await rt.nrm2(rt.vector(new Float64Array([3, 4]))), 5);
   * const big = await rt.nrm2(rt.vector(new Float64Array([3e200, 4e200])));   // no overflow
   * assert.ok(Math.abs(big - 5e200) <= 1e-15 * 5e200);
   * rt.dispose();
   * ```
   */
  async nrm2(x: ResidentVector): Promise<number> {
    this.pair('nrm2', x, x);
    return await inOrder([x], async () => {
      const p = this.operandPath(undefined, x);
      return p.nrm2(await x.on(p));
    });
  }

  /**
   * Solves A·x = b with Conjugate Gradient (A Hermitian positive definite). Vectors stay resident
   * during the iteration; only scalars come back each step. At the end the true residual ‖b − A·x‖ is
   * recomputed in f64 from x (accumulated in f64): `converged` means it meets tol; when the recurrence
   * drifted, correction solves follow (iterative refinement: an f32 matrix reaches an f64 tolerance this
   * way) and `'stagnated'` says when they could not close the gap. It never hangs and never throws for a
   * matrix that is not positive definite: the outcome's `reason` says `'breakdown'` (a non-positive
   * curvature pᴴAp, or a preconditioned ρ = rᴴM⁻¹r ≤ 0), `'maxIter'`, `'nan'` (NaN in the data) or `'aborted'`
   * (options.signal fired) instead of `'converged'`. b and x0 are vector data or resident vectors (they may be
   * one and the same), read once at the start and never written.
   *
   * @throws {@link ShapeError} when A is not square, b or x0 has the wrong length or dtype, a preconditioner belongs to another matrix, or a diagonal entry Jacobi/SSOR divides by is zero.
   * @throws {@link UnsupportedError} for an unknown preconditioner, or one the path cannot run (IC(0)/ILU(0)/SSOR need a triangular solve).
   * @throws {@link InputTypeError} when an option has the wrong type (`tol: '1e-3'`, `onIteration: 5`, a
   * `signal` that is not an AbortSignal) or b / x0 is not vector data or a resident vector — all checked
   * before the solve starts.
   * @throws {@link InputRangeError} when tol is not a finite number ≥ 0, maxIter not a non-negative integer
   * or checkEvery not a positive integer, or when the solution leaves the f64 range (naming its entry: scale b down).
   * @throws {@link GpuUnavailableError} when `options.path` names a GPU path this runtime lacks.
   * @throws {@link WorkerError} when a worker of the pool fails during the solve.
   * @throws {@link DisposedError} once the runtime or A is disposed.
   * @throws {@link OptionError} for an option key it does not know (TypeError when the options are not an object).
   *
   * @example
   * ```js
   * // Jacobi-preconditioned CG, stopped early by an AbortSignal
   * import { createRuntime, poisson2D } from 'simdgl';
   * import assert from 'node:assert/strict';
   *
   * const rt = await createRuntime();
   * const A = rt.upload(poisson2D(20));                                  // 400 unknowns, SPD
   * const b = new Float64Array(400).fill(1);
   * const r = await rt.cg(A, b, { tol: 1e-10, preconditioner: 'jacobi' });
   * assert.equal(r.reason, 'converged');
   * assert.ok(r.relativeResidual <= 1e-10);                              // the true residual, in f64
   * assert.ok(r.history.length === r.iterations + 1);
   * const stop = new AbortController();
   * const partial = await rt.cg(A, b, { onIteration: (it) => { if (it === 5) stop.abort(); }, signal: stop.signal });
   * assert.equal(partial.reason, 'aborted');
   * rt.dispose();
   * ```
   */
  async cg(A: MatrixHandle, b: VectorLike | ArrayLike<number>, options: SolveOptions = {}): Promise<SolveOutcome> {
    checkOptions('cg', options, SOLVE_OPTION_KEYS);
    return await this.runSolve('cg', A, b, options, 'cg');
  }

  /**
   * Solves A·x = b with BiCGSTAB (any square nonsingular A); same options and result as cg. A zero
   * ρ, r̂ᴴv or tᴴt ends it with reason `'breakdown'` rather than an exception.
   *
   * @throws {@link ShapeError} when A is not square, b or x0 has the wrong length or dtype, or a preconditioner belongs to another matrix.
   * @throws {@link UnsupportedError} for an unknown preconditioner, or one the path cannot run.
   * @throws {@link InputTypeError} when an option has the wrong type (`tol: '1e-3'`, `onIteration: 5`, a
   * `signal` that is not an AbortSignal) or b / x0 is not vector data or a resident vector — all checked
   * before the solve starts.
   * @throws {@link InputRangeError} when tol is not a finite number ≥ 0, maxIter not a non-negative integer
   * or checkEvery not a positive integer, or when the solution leaves the f64 range (naming its entry: scale b down).
   * @throws {@link GpuUnavailableError} when `options.path` names a GPU path this runtime lacks.
   * @throws {@link WorkerError} when a worker of the pool fails during the solve.
   * @throws {@link DisposedError} once the runtime or A is disposed.
   * @throws {@link OptionError} for an option key it does not know (TypeError when the options are not an object).
   *
   * @example
   * ```js
   * // A nonsymmetric system: the Poisson matrix plus a convection term
   * import { createRuntime, poisson2D, COOMatrix } from 'simdgl';
   * import assert from 'node:assert/strict';
   *
   * const P = poisson2D(10), n = P.rows, coo = COOMatrix.fromCSR(P);
   * const rows = [...coo.rowIdx], cols = [...coo.colIdx], vals = [...coo.values];
   * for (let i = 0; i + 1 < n; i++) { rows.push(i); cols.push(i + 1); vals.push(0.5); }   // duplicates add up
   * const A = new COOMatrix(n, n, 'f64', new Int32Array(rows), new Int32Array(cols), new Float64Array(vals));
   * const rt = await createRuntime();
   * const h = rt.upload(A, { format: 'csr' });
   * const b = new Float64Array(n).fill(1);
   * const r = await rt.bicgstab(h, b, { tol: 1e-10, preconditioner: 'ilu0' });
   * assert.equal(r.converged, true);
   * const Ax = await rt.spmv(h, r.x);
   * assert.ok(Ax.every((v) => Math.abs(v - 1) < 1e-8));
   * rt.dispose();
   * ```
   */
  async bicgstab(A: MatrixHandle, b: VectorLike | ArrayLike<number>, options: SolveOptions = {}): Promise<SolveOutcome> {
    checkOptions('bicgstab', options, SOLVE_OPTION_KEYS);
    return await this.runSolve('bicgstab', A, b, options, 'bicgstab');
  }

  /**
   * Solves A·x = b with restarted GMRES(m) (any square nonsingular A, real or complex): right
   * preconditioning, so the residual it minimises is the true one; CGS2 orthogonalisation
   * (docs/solvers.md). `restart` sets m (default 30). Same result and honest residual as cg.
   *
   * @throws {@link ShapeError} when A is not square, b or x0 has the wrong length or dtype, or a preconditioner belongs to another matrix.
   * @throws {@link UnsupportedError} for an unknown preconditioner, or one the path cannot run.
   * @throws {@link InputTypeError} when an option has the wrong type (`tol: '1e-3'`, `onIteration: 5`, a
   * `signal` that is not an AbortSignal) or b / x0 is not vector data or a resident vector — all checked
   * before the solve starts.
   * @throws {@link InputRangeError} when tol is not a finite number ≥ 0, or maxIter, restart or checkEvery
   * is not a valid integer, or when the solution leaves the f64 range (naming its entry: scale b down).
   * @throws {@link GpuUnavailableError} when `options.path` names a GPU path this runtime lacks.
   * @throws {@link DisposedError} once the runtime or A is disposed.
   * @throws {@link OptionError} for an option key it does not know (TypeError when the options are not an object).
   *
   * @example
   * ```js
   * // GMRES(20) with ILU(0) on a nonsymmetric shared matrix
   * import { createRuntime, parseMatrixMarket } from 'simdgl';
   * import { readFileSync } from 'node:fs';
   * import assert from 'node:assert/strict';
   *
   * const { matrix } = parseMatrixMarket(readFileSync('data/matrices/olm1000.mtx'));
   * const rt = await createRuntime();
   * const A = rt.upload(matrix);
   * const r = await rt.gmres(A, new Float64Array(1000).fill(1), { restart: 20, preconditioner: 'ilu0', tol: 1e-10 });
   * assert.ok(r.converged && r.relativeResidual <= 1e-10);
   * rt.dispose();
   * ```
   */
  async gmres(A: MatrixHandle, b: VectorLike | ArrayLike<number>, options: GmresOptions = {}): Promise<SolveOutcome> {
    checkOptions('gmres', options, GMRES_OPTION_KEYS);
    return await this.runSolve('gmres', A, b, options, 'gmres');
  }

  /**
   * Solves A·x = b with MINRES (A Hermitian, definite or indefinite); the preconditioner must be
   * Hermitian positive definite (jacobi, block-jacobi, chebyshev on an SPD matrix, ic0). An indefinite
   * preconditioner ends it with `'breakdown'`. Same result and honest residual as cg.
   *
   * @throws {@link ShapeError} when A is not square, b or x0 has the wrong length or dtype, or a preconditioner belongs to another matrix.
   * @throws {@link UnsupportedError} for an unknown preconditioner, or one the path cannot run.
   * @throws {@link InputTypeError} when an option has the wrong type (`tol: '1e-3'`, `onIteration: 5`, a
   * `signal` that is not an AbortSignal) or b / x0 is not vector data or a resident vector — all checked
   * before the solve starts.
   * @throws {@link InputRangeError} when tol is not a finite number ≥ 0, maxIter not a non-negative integer
   * or checkEvery not a positive integer, or when the solution leaves the f64 range (naming its entry: scale b down).
   * @throws {@link GpuUnavailableError} when `options.path` names a GPU path this runtime lacks.
   * @throws {@link DisposedError} once the runtime or A is disposed.
   * @throws {@link OptionError} for an option key it does not know (TypeError when the options are not an object).
   *
   * @example
   * ```js
   * // A symmetric indefinite system: CG breaks down, MINRES solves it
   * import { createRuntime, CSRMatrix } from 'simdgl';
   * import assert from 'node:assert/strict';
   *
   * const A = new CSRMatrix(3, 3, 'f64', Int32Array.of(0, 2, 4, 5), Int32Array.of(0, 1, 0, 1, 2), Float64Array.of(1, 2, 2, 1, -3));
   * const rt = await createRuntime();
   * const h = rt.upload(A);
   * const b = Float64Array.of(1, 2, 3);
   * assert.equal((await rt.cg(h, b)).reason, 'breakdown');
   * const r = await rt.minres(h, b, { tol: 1e-12 });
   * assert.ok(r.converged && Math.abs(r.x[2] + 1) < 1e-10);
   * rt.dispose();
   * ```
   */
  async minres(A: MatrixHandle, b: VectorLike | ArrayLike<number>, options: SolveOptions = {}): Promise<SolveOutcome> {
    checkOptions('minres', options, SOLVE_OPTION_KEYS);
    return await this.runSolve('minres', A, b, options, 'minres');
  }

  /**
   * Solves A·x = b, choosing the method and the preconditioner from the matrix and the path (what
   * `explain('solve', A)` says): a sparse direct factorization on the host where its estimated fill
   * and flops are affordable (a singular factor, or the direct solvers' module failing to load, falls back to the Krylov candidates, `directFallback`
   * says so; `method: 'direct'` factorizes whatever it costs, and rejects with the load's error), else CG + IC(0) for a Hermitian positive definite A on the CPU path
   * (Chebyshev where the path has no triangular solve), MINRES for Hermitian indefinite, BiCGSTAB + ILU(0)
   * for a nonsymmetric A that is diagonally dominant with a positive diagonal, GMRES(30) + ILU(0) otherwise;
   * a breakdown moves to the next candidate (CG → MINRES, GMRES ↔ BiCGSTAB), and so does BiCGSTAB's
   * stagnation (GMRES goes on from its x, `methodFallback` says so). `spd:
   * true` skips the symmetry verdict, `method` and `preconditioner` fix either choice. The result is
   * honest: `relativeResidual` is ‖b − A·x‖/‖b‖ recomputed in f64, and an f32 matrix with a tolerance
   * below f32's reach is refined in f64 until it meets it. The factor or preconditioner a solve sets up
   * is kept with A and used again by A's next solve that needs the same (`reused` says so; `reuse: false`
   * sets up afresh; A's dispose() frees it): a loop solving A for a new b each step sets up once.
   *
   * @throws {@link ShapeError} when A is not square, b or x0 has the wrong length or dtype, or a preconditioner belongs to another matrix.
   * @throws {@link UnsupportedError} for an unknown method or preconditioner, one the path cannot run, or a preconditioner with method 'direct'.
   * @throws {@link SingularMatrixError} or {@link MemoryLimitError} for method 'direct' when A is singular or its factor exceeds the memory budget.
   * (A holding NaN or ±Inf ends with reason `'nan'`, method 'direct' included.)
   * @throws {@link InputTypeError} when an option has the wrong type (`tol: '1e-3'`, `onIteration: 5`, a
   * `signal` that is not an AbortSignal) or b / x0 is not vector data or a resident vector — all checked
   * before the solve starts.
   * @throws {@link InputRangeError} when tol is not a finite number ≥ 0, or maxIter, restart or checkEvery
   * is not a valid integer, or when the solution leaves the f64 range (naming its entry: scale b down).
   * @throws {@link GpuUnavailableError} when `options.path` names a GPU path this runtime lacks.
   * @throws {@link WorkerError} when a worker of the pool fails during the solve.
   * @throws {@link DisposedError} once the runtime or A is disposed.
   * @throws {@link OptionError} for an option key it does not know (TypeError when the options are not an object).
   *
   * @example
   * ```js
   * // One call: f32 storage, an f64 answer (CG asked for: 'auto' factorizes a matrix this small, in f64)
   * import { createRuntime, poisson2D } from 'simdgl';
   * import assert from 'node:assert/strict';
   *
   * const rt = await createRuntime();
   * const A = rt.upload(poisson2D(64).astype('f32'));
   * const b = new Float64Array(64 * 64).fill(1);
   * const r = await rt.solve(A, b, { tol: 1e-10, method: 'cg' });
   * assert.equal(r.reason, 'converged');
   * assert.ok(r.relativeResidual <= 1e-10 && r.refinements > 0);         // refined in f64
   * const d = await rt.solve(A, b);                                      // 'auto': a Cholesky factor
   * assert.deepEqual([d.method, d.factor.kind, d.iterations], ['direct', 'cholesky', 0]);
   * assert.ok(d.relativeResidual <= 1e-8);
   * const e = await rt.solve(A, b.map((v, i) => v + i / 4096));         // a new b: the factor kept with A
   * assert.deepEqual([e.method, e.reused, e.converged], ['direct', 'factor', true]);
   * rt.dispose();
   * ```
   */
  async solve(A: MatrixHandle, b: VectorLike | ArrayLike<number>, options: AutoSolveOptions = {}): Promise<SolveOutcome> {
    checkOptions('solve', options, AUTO_SOLVE_OPTION_KEYS);
    return await this.runSolve('solve', A, b, options);
  }

  /**
   * Sets up a preconditioner of A once, to reuse across solves with any method: `jacobi`,
   * `block-jacobi` (`blockSize`), `ssor` (`omega`), `ic0`, `ilu0`, `chebyshev` (`degree`), or `'auto'`
   * (rt.solve's choice for the path). IC(0)/ILU(0) breakdowns are repaired by a diagonal shift, which
   * the handle's `shift` and `description` report.
   *
   * @throws {@link ShapeError} when A is not square, or a diagonal entry Jacobi/SSOR/block-Jacobi needs is zero.
   * @throws {@link UnsupportedError} for an unknown kind, IC(0) or Chebyshev of a nonsymmetric matrix, a factorization no shift repairs, or a kind the path cannot run.
   * @throws RangeError when omega, blockSize or degree is out of range.
   * @throws {@link DisposedError} once the runtime or A is disposed.
   * @throws {@link OptionError} for an option key it does not know (TypeError when the options are not an object).
   *
   * @example
   * ```js
   * // IC(0) set up once, used by CG and MINRES
   * import { createRuntime, poisson2D } from 'simdgl';
   * import assert from 'node:assert/strict';
   *
   * const rt = await createRuntime();
   * const A = rt.upload(poisson2D(32));
   * const M = rt.preconditioner(A, { kind: 'ic0' });
   * const b = new Float64Array(1024).fill(1);
   * const a = await rt.cg(A, b, { preconditioner: M });
   * const c = await rt.minres(A, b, { preconditioner: M });
   * const plain = await rt.cg(A, b);
   * assert.ok(a.converged && c.converged && a.iterations < plain.iterations);
   * assert.equal(M.shift, 0);
   * M.dispose();
   * rt.dispose();
   * ```
   */
  preconditioner(A: MatrixHandle, options: PreconditionerOptions & { path?: PathChoice }): PreconditionerHandle {
    return this.preconditionerAs('preconditioner', A, options);
  }

  /** @internal A handle around a plan rt.solve made for h and keeps with it (kept-setup.ts), tracked as rt.preconditioner's are (a lost device's copy dropped, freed by rt.dispose()). */
  keptPreconditioner(h: MatrixHandle, plan: PreconditionerPlan): PreconditionerHandle {
    return this.track(new PreconditionerHandle(h, plan, this));
  }

  /** rt.preconditioner, its errors named after the call the user made (`where`: rt.amg's are 'amg: …'). */
  private preconditionerAs(where: 'preconditioner' | 'amg', A: MatrixHandle, options: PreconditionerOptions & { path?: PathChoice }): PreconditionerHandle {
    this.live();
    checkOptions(where, options, PRECONDITIONER_OPTION_KEYS);
    if (typeof options !== 'object' || options === null) throw new InputTypeError(`${where}: options must be an object such as { kind: 'ic0' }`);
    const h = this.matrixHandle(A, `${where}: A`);
    if (h.rows !== h.cols) throw new ShapeError(`${where}: A must be square, it is ${h.rows}×${h.cols}`);
    checkPreconditionerOptions(options, where);
    const analysis = this.solveStructureOf(h);
    // before an AMG setup on the host, the GPU paths start making the pipelines of its cycle's products
    // (Path.prewarmSparse: none on a path whose shaders are not loaded), which its first solve made after
    // the setup (≈ 80 ms of poisson3D(128)'s on the H100 machine)
    if (options.kind === 'amg' || options.kind === 'saddle') for (const p of this.paths) if (p.usable) p.prewarmSparse?.(h.dtype);
    // AMG's setup copies A to the pool: the structure check, where it is still to make, runs on that copy
    const session = options.kind === 'amg' ? cpuSparseSession(this.cpu.backend) : undefined;
    try {
      return this.planned(h, analysis.csr, analysis.structureIn(session), options, session);
    } finally {
      session?.dispose();
    }
  }

  /** rt.preconditioner's plan of h, its structure read; AMG's setup runs in `session` where given. */
  private planned(h: MatrixHandle, csr: CSRMatrix, structure: SolveStructure, options: PreconditionerOptions & { path?: PathChoice }, session?: CpuSparseSession): PreconditionerHandle {
    let kind = options.kind;
    const at = () => {
      const p = this.solvePath(h, options.path);
      return { p, info: this.pathSolveInfo(p, h) };
    };
    let where: { p: Path; info: PathSolveInfo } | undefined;
    if (kind === 'auto') {
      where = at();
      kind = chooseSolve(structure, where.info, {}).candidates[0].preconditioner;
    }
    // Chebyshev for a path whose resident CG fuses its steps into A's SpMV: rt.solve's plan there (free
    // bounds, the degree from the path's figures unless given), where it needs no product (a first solve with the CPU pool's Lanczos plan of
    // poisson3D(128) cost 0.3–0.6 s more, and its interval took CG 124 iterations of degree 4 against 56)
    if (kind === 'chebyshev' && (where ??= at()).info.chebyshevFused) {
      const plan = this.gershgorinChebyshev(h, csr, structure, options.degree, where.p, performance.now());
      if (plan) return this.track(new PreconditionerHandle(h, plan, this, options));
    }
    return this.track(new PreconditionerHandle(h, planPreconditioner(csr, structure, { ...options, kind }, this.sparseKernels, undefined, session), this, options));
  }

  /** @internal The path a solve of h runs on: the one asked for, else the one that wins a resident SpMV. */
  solvePath(h: MatrixHandle, choice: PathChoice | undefined): Path {
    if (choice || this.forced) return this.usable(choice);
    // one path able to run it: nothing to compare (explain's CPU figures at A's working set, its features
    // and estimates took 0.6 s of rt.solve on poisson3D(128) in Node)
    const able = this.paths.filter((p) => this.availability(p) === true);
    return able.length === 1 ? able[0] : this.pathById(this.explainSpmv(h, { readBack: false }, false).path)!;
  }

  /** @internal A's canonical CSR and its symmetry/diagonal, computed once per uploaded matrix. */
  solveStructureOf(h: MatrixHandle): SolveAnalysis {
    let s = this.structureCache.get(h.source);
    if (!s) {
      const csr = (h.canonicalCsr ?? h.host.toCSR()) as CSRMatrix;
      let structure: SolveStructure | undefined;
      // computed on first read: a factorization that meets tol never reads it (≈ 7% of a small direct solve)
      // from the resident DIA copy where one is made (solveStructure: the diagonals' pass, not the CSR's)
      // the pool's pass over a large real A where its chunk is loaded (a pool of several threads;
      // src/cpu/tier-up.ts poolStructure): the DIA pass took 250 ms of a first rt.cg of poisson3D(128)
      // on the H100 machine's 16-core host, the pool's 19–35 (bench/device/results-2026-11-27-eighth/
      // amggpu); on 2 threads at load 8, copy and pass 34 against 53 ms (poisson3D(64)), 53 against 90
      // (poisson2D(1024))
      // (in `session` where given: one about to hold A, AMG's, which then copies A no more)
      // else from a GPU path's DIA copy its first upload made (pathCopy, then dropped): the diagonals'
      // pass and a grid's diameter by formula, where the CSR's pass and the two breadth-first searches took
      // 268 + 651 ms of poisson3D(128)'s first rt.solve on the H100 machine's host (bench/device/
      // results-2026-11-28-tenth/gpufirst/call1)
      const B = this.cpu.backend;
      const structureIn = (session?: CpuSparseSession) => {
        const chunk = B.startChunk;
        const copy = h.madeHost ?? a.pathCopy ?? null;
        return (structure ??= solveStructure(csr, copy, chunk && (() => chunk.poolStructure(B, csr, session ?? (() => cpuSparseSession(B)), h)), copy !== h.madeHost));
      };
      // (no getter: an object literal's accessor kept each upload's analysis, plan and factor through V8's
      // young-generation collections, to the next full one: t1's upload + solve spent 46% in the collector)
      const a: SolveAnalysis = {
        csr,
        structureIn,
        offer(copy) { if (!structure && copy.format === 'dia') a.pathCopy = copy; },
      };
      s = a;
      this.structureCache.set(h.source, s);
    }
    return s;
  }

  /**
   * @internal
   * Whether Jacobi on `p` runs as none: an f64 matrix on a GPU path with a constant diagonal (see
   * preconditionedOps). Not f32: there the unpreconditioned answer's certificate fell back to a host
   * product (poisson3D(128) on the H100, 78be4be: rt.cg f32 without Jacobi 214–253 ms, 138 of them after
   * the last block, with it 112; bench/device/results-2026-11-27-fifth/call5).
   */
  scalarJacobi(h: MatrixHandle, p: Path, csr: CSRMatrix): boolean {
    if (h.dtype !== 'f64' || p.cost.kind !== 'gpu') return false;
    return this.inverseDiagonalValue(h, csr) !== null;
  }

  /**
   * @internal
   * A's inverse diagonal where it is one value, else null (constantInverseDiagonal), once per matrix:
   * from the GPU path's DIA copy where rt.solve holds it still (its main diagonal, where the CSR's pass
   * read every entry: ≈ 0.1 s of poisson3D(128)'s first solve on the H100 machine's host).
   */
  inverseDiagonalValue(h: MatrixHandle, csr: CSRMatrix): number | null {
    const analysis = this.solveStructureOf(h);
    return (analysis.inverseDiagonalValue ??= constantInverseDiagonal(analysis.pathCopy ?? csr));
  }

  /** @internal */
  pathSolveInfo(p: Path, A: MatrixHandle): PathSolveInfo {
    // the copy the path's solves run (solveMatrixOn): A's own values may be past f32's range on a GPU path
    const h = this.solveMatrixOn(A, p).h;
    // the host matrix matrixOn made p's copy from: on another path than the CPU the canonical CSR, not
    // h.host (its CPU format made for nothing: a DIA conversion, 218 ms of a first WebGPU solve of
    // poisson3D(128) on the H100 machine's host, bench/device/results-2026-11-27-eighth/amggpu/call2)
    // its host copy (made for the upload, then garbage) offered to A's structure pass where that is still
    // to run (rt.solve's first: a DIA copy serves it and the diagonal, solveStructureOf); not a scaled copy's
    const offer = h === A && p !== this.home ? this.structureCache.get(A.source)?.offer : undefined;
    const ops = p.solverOps(this.matrixOn(h, p, 'N', offer), p === this.home ? h.host : (h.canonicalCsr ?? h.host), 'none');
    ops.dispose();
    // the resident Chebyshev-CG fuses its steps into the SpMV of a DIA matrix (src/webgpu/cg.ts); measured in f64
    const chebyshevFused = typeof ops.cgChebyshevResident === 'function' && this.fusedChebyshevOn(h, p);
    return { label: p.label, triangular: typeof ops.triangular === 'function', gpu: p.cost.kind === 'gpu', chebyshevFused };
  }

  /**
   * The factorization 'auto' or 'direct' would run, planned once per matrix (ordering and counts kept
   * for the factorization itself): its estimate and chooseDirect's verdict. Not planned for 'auto'
   * above DIRECT_MAX_N unknowns (the ordering alone would cost more than a Krylov solve).
   */
  private directPlan(h: MatrixHandle, csr: CSRMatrix, asked: boolean): DirectPlan {
    const cached = this.solveStructureOf(h);
    if (cached.direct && (cached.direct.plan || !asked)) return cached.direct;
    const n = csr.rows;
    let d: DirectPlan;
    if (!asked && n > DIRECT_MAX_N) {
      d = { plan: null, direct: false, reason: () => `no direct factorization: ${n} unknowns > ${DIRECT_MAX_N}, where the ordering alone costs more than a preconditioned Krylov solve` };
    } else if (!asked && n >= SADDLE_KRYLOV_MIN_N && this.saddlePoint(h, csr)) {
      d = { plan: null, direct: false, reason: () => `no direct factorization: a symmetric saddle point of ${n} ≥ ${SADDLE_KRYLOV_MIN_N} unknowns, whose MINRES with the saddle preconditioner costs less than its LU` };
    } else {
      d = this.plannedDirect(csr);
    }
    cached.direct = d;
    return d;
  }

  /**
   * Whether A is a real symmetric saddle point (a zero diagonal entry, A = Aᵀ): a scan of the diagonal
   * first, so that the structure pass (which a factorization meeting tol never needs) runs only for such an A.
   */
  private saddlePoint(h: MatrixHandle, csr: CSRMatrix): boolean {
    return !isComplex(csr.dtype) && diagonalSums(csr).includes(0) && this.solveStructureOf(h).structureIn().hermitian;
  }

  /**
   * @internal
   * The factorization 'auto' weighs for a matrix above DIRECT_MAX_N whose Krylov candidate would be
   * the one factorizeAboveCap names (from A's `structure`; null for any other): planned now, once (kept as
   * A's plan: the next solve's verdict too), and weighed by chooseDirect as below the cap; a plan past the
   * memory floor is no factorization.
   */
  directAboveCap(h: MatrixHandle, csr: CSRMatrix, structure: SolveStructure, gpu: boolean, spd: boolean | undefined): DirectPlan | null {
    if (!factorizeAboveCap(structure, gpu, spd)) return null;
    const a = this.solveStructureOf(h);
    if (a.direct?.plan || a.direct?.aboveCap) return a.direct;
    const why = `above ${DIRECT_MAX_N} unknowns, weighed as its Krylov candidate would be cg + ic0, whose iterations grow with the mesh`;
    const d = this.plannedOrRefused(csr);
    return (a.direct = { ...d, aboveCap: true, reason: () => `${d.reason()} (${why})` });
  }

  /**
   * @internal
   * The factorization 'auto' falls back on, once per matrix, where its Krylov candidates ended without an
   * answer (stagnated, broke down, or ran out of the default maxIter): A's plan (planned now where it has
   * none), where its factor fits in half the memory budget; else null. directSettled records the outcome:
   * once it did not answer, null; once it did, the plan again (solves that ran beside the one that settled it).
   */
  directAfterKrylov(h: MatrixHandle, csr: CSRMatrix): DirectPlan | null {
    const a = this.solveStructureOf(h);
    // settled: where it answered (for a solve that ran beside this one), its factor kept with A answers this one too
    if (a.direct?.afterKrylov) return a.direct.direct ? a.direct : null;
    const d = a.direct?.plan ? a.direct : this.plannedOrRefused(csr);
    if (d.plan && factorFitsBudget(d.estimate!.bytes, this.cpu.memoryBudgetMB * 1048576)) return d;
    a.direct = { ...d, afterKrylov: true };
    return null;
  }

  /**
   * @internal
   * What the factorization directAfterKrylov gave did (`failed`: why it did not answer, null where it did): where it answered, it is A's first choice from now
   * on (its factor kept with A); where it did not, it is not tried again, after the Krylov candidates or
   * by the rent-or-buy rule.
   */
  directSettled(h: MatrixHandle, d: DirectPlan, failed: string | null, why: string): void {
    const a = this.solveStructureOf(h);
    a.direct = { ...d, direct: failed === null, afterKrylov: true, reason: failed === null ? () => `method direct: an earlier solve's Krylov candidates did not answer (${why}) and A's factorization did` : () => `no direct factorization: after an earlier solve's Krylov candidates (${why}) it did not answer either (${failed})` };
    if (failed !== null) (a.again ??= { solves: 0, spentMs: 0 }).never = () => `A's factorization did not answer after the Krylov candidates: not tried again`;
  }

  /** A's factorization planned, or no factorization where planning it passes the memory budget. */
  private plannedOrRefused(csr: CSRMatrix): DirectPlan {
    try {
      return this.plannedDirect(csr);
    } catch (e) {
      if (!(e instanceof MemoryLimitError)) throw e;
      return { plan: null, direct: false, reason: () => `no direct factorization: ${e.message}` };
    }
  }

  /** A's factorization planned (ordering, counts), its estimate and chooseDirect's verdict. */
  private plannedDirect(csr: CSRMatrix): DirectPlan {
    const plan = planFactor(csr, 'auto', 'auto', cpuSymbolicKernels(this.cpu.backend));
    const { fillNnz, flops, bytes } = plan.a.cost;
    const estimate = { fillNnz, flops, bytes, ordering: plan.a.ordering };
    const c = chooseDirect(estimate, csr.rows, csr.nnz, plan.C.complex, this.cpu.memoryBudgetMB * 1048576);
    // the reason read only by explain
    return { plan, estimate, direct: c.direct, reason: c.reason };
  }

  /**
   * 'auto''s factorization for a matrix it keeps solving with a Krylov method (solveAnalysis.again),
   * where chooseDirectAgain's rent-or-buy rule buys it now (`plan`), else where the rule stands in words
   * (`why`; none before A's first Krylov solve). The ordering is planned once the solves so far reach
   * its estimated cost (planAgain), and timed (`plannedMs`: the ordering planned by this call).
   */
  private directAgain(h: MatrixHandle, csr: CSRMatrix, d: DirectPlan): { plan: DirectPlan | null; why?: () => string; plannedMs: number } {
    const a = this.solveStructureOf(h).again;
    if (!a || a.solves === 0) return { plan: null, plannedMs: 0 };
    if (a.never) return { plan: null, why: a.never, plannedMs: 0 };
    let plannedMs = 0;
    if (!a.plan) {
      if (!planAgain(csr.nnz, a.solves, a.spentMs)) {
        const { solves, spentMs } = a;
        return {
          plan: null,
          why: () => `after ${solves} Krylov solve${solves > 1 ? 's' : ''} of A (${spentMs.toFixed(0)} ms): a factorization for the solves to come is weighed once a few of them reach its ordering's estimated cost (≈ ${planAgainAfterMs(csr.nnz).toFixed(0)} ms; rent or buy)`,
          plannedMs,
        };
      }
      // (planned apart from directPlan's cache: 'auto''s verdict for one solve stays its own)
      const t0 = performance.now();
      const planned = d.plan ? d : this.plannedOrRefused(csr);
      plannedMs = a.planMs = d.plan ? 0 : performance.now() - t0;
      if (!planned.plan) {
        // planning it passed the memory budget: no factorization for A's solves to come either
        a.never = planned.reason;
        return { plan: null, why: a.never, plannedMs };
      }
      a.plan = planned;
    }
    const plan = a.plan;
    const c = chooseDirectAgain(plan.estimate!, a.planMs!, a.solves, a.spentMs, this.cpu.memoryBudgetMB * 1048576);
    if (c.direct === 'never') {
      // (its plan, the ordering and A's column copy, let go)
      a.never = c.reason;
      a.plan = undefined;
    }
    return c.direct === true ? { plan: { ...plan, direct: true, again: true, reason: c.reason }, plannedMs } : { plan: null, why: c.reason, plannedMs };
  }

  /**
   * The factorization a solve with these options runs (`d`; null or not `direct`: the Krylov
   * candidates), as solveOn and explain('solve') decide it: wantsDirect's, and for 'auto' (`auto`: no
   * method or preconditioner given, `reuse` not false) the rent-or-buy rule's for a matrix it keeps
   * solving (directAgain: `why` where it did not buy, `plannedMs` of ordering it planned now).
   */
  private solveDirect(h: MatrixHandle, csr: CSRMatrix, method: SolveMethod | 'auto' | 'direct' | undefined, pre: unknown, reuse: boolean): { d: DirectPlan | null; auto: boolean; why?: () => string; plannedMs: number } {
    const wanted = this.wantsDirect(h, csr, method, pre);
    const auto = wanted !== null && method !== 'direct' && reuse;
    if (!auto || wanted.direct) return { d: wanted, auto, plannedMs: 0 };
    const again = this.directAgain(h, csr, wanted);
    return { d: again.plan ?? wanted, auto, why: again.why, plannedMs: again.plannedMs };
  }

  /** Whether a solve with these options factorizes: method 'direct', or 'auto' (no preconditioner given) where chooseDirect says so. */
  private wantsDirect(h: MatrixHandle, csr: CSRMatrix, method: SolveMethod | 'auto' | 'direct' | undefined, pre: unknown): DirectPlan | null {
    if (method === 'direct') return this.directPlan(h, csr, true);
    if (autoChooses(method, pre)) return this.directPlan(h, csr, false);
    return null;
  }

  private explainSolve(A: MatrixHandle, o: ExplainSolveOptions): SolveExplanation {
    const h = this.matrixHandle(A, "explain('solve', A)");
    if (h.rows !== h.cols) throw new ShapeError(`explain: A must be square to solve with it, it is ${h.rows}×${h.cols}`);
    const given = solveChoices('explain', h, o, (p) => this.own(p, 'explain: preconditioner'));
    const p = this.solvePath(h, o.path);
    const a = this.solveStructureOf(h);
    const csr = a.csr;
    const structure = a.structureIn();
    // as rt.solve decides: 'auto' for a matrix it keeps solving may factorize it now
    const solved = this.solveDirect(h, csr, o.method, o.preconditioner, true);
    const { why } = solved;
    const choice = chooseSolve(structure, this.pathSolveInfo(p, h), { method: o.method === 'direct' ? 'auto' : o.method, preconditioner: o.preconditioner, spd: o.spd });
    const [first, ...rest] = choice.candidates;
    // and above DIRECT_MAX_N it weighs a factorization where its candidate is one factorizeAboveCap names
    const autoChoice = autoChooses(o.method, o.preconditioner);
    const d = (autoChoice && solved.d && !solved.d.direct && !solved.d.plan && this.directAboveCap(h, csr, structure, p.cost.kind === 'gpu', o.spd)) || solved.d;
    const direct = o.method === 'direct' || d?.direct === true;
    // a kind the caller gives that A's structure rules out is rt.solve's refusal (its setup's), not an
    // explanation of a solve that never runs (gmres + ic0 of a nonsymmetric A; jacobi of a zero diagonal)
    if (!direct && typeof o.preconditioner === 'string' && o.preconditioner !== 'auto') {
      const refused = structuralRefusal(csr, structure, o.preconditioner);
      if (refused) throw refused;
      if (o.preconditioner === 'jacobi' && (structure.zeroDiagonals > 0 || !structure.finite)) inverseDiagonal(csr);
    }
    const fallbacks = direct ? choice.candidates : rest;
    const reasons = [`path ${p.label}: ${o.path || this.forced ? 'asked for' : 'the path a resident SpMV of A runs on (explain spmv)'}`];
    if (o.method === 'direct') reasons.push(`method direct given by the caller: a sparse factorization on the host CPU, whatever the path${d?.estimate ? ` (${d.reason().replace(/^[^:]*: /, '')})` : ''}`);
    else if (d) reasons.push(d.reason());
    if (why) reasons.push(why());
    if (direct) reasons.push(o.method === 'direct' ? 'a singular factor is a SingularMatrixError' : 'a singular factor (or a residual above tol) moves to the Krylov candidates');
    if (autoChoice && !direct && !d?.afterKrylov) reasons.push("where the Krylov candidates end without an answer (stagnated above f64's rounding, broken down, or past the default maxIter), A's factorization is tried once if its factor fits in half the memory budget (planned then where it was not)");
    if (direct && o.method !== 'direct' && !o.spd && first.method === 'cg' && rest.length > 0) {
      reasons.push(`a factorization that finds A singular or not positive definite skips cg (it would break down): ${rest[0].method} + ${rest[0].preconditioner} first`);
    }
    reasons.push(...choice.reasons);
    // solve-run.ts: an automatic preconditioner whose solve ends 'nan' on finite data is dropped
    const nanFallback = o.method !== 'direct' && (o.preconditioner === undefined || o.preconditioner === 'auto') && choice.candidates.some((c) => c.preconditioner !== 'none');
    if (nanFallback) reasons.push("a preconditioner chosen here whose solve ends 'nan' on finite A and b (its arithmetic overflowed: an ILU(0) pivot shifted from zero in a tiny row) is dropped: the same method runs again without one");
    if (!direct && first.preconditioner === 'jacobi' && this.scalarJacobi(h, p, csr)) reasons.push(JACOBI_AS_NONE);
    // the fused polynomial's degree, from the path's figures (rt.solve's plan: gershgorinChebyshev)
    if (!direct && first.preconditioner === 'chebyshev' && !given && structure.diagonallyDominant && this.fusedChebyshevOn(h, p)) reasons.push(`chebyshev ${this.chebyshevDegreeOn(h, p).why}`);
    if (!direct && p === this.home && h.format === 'dia' && compactValues(csr)) reasons.push(COMPACT_DIA);
    // a saddle point's LU and its ordering, which the estimate above assumed
    if (direct && d?.plan?.saddle) reasons.push(`kind lu: ${d.plan.saddle}; ordering ${d.plan.a.ordering}: ${d.plan.a.orderingReason}`);
    const run = direct ? null : this.solveMatrixOn(h, p);
    const e = run?.e ?? 0;
    if (e) reasons.push(`runs A·2^${-e} (exact)`);
    // what an earlier solve kept with A (src/runtime/kept-setup.ts), which the next one uses
    const kept = direct ? keptOf(h)?.factor : keptOf(run!.h)?.preconditioner;
    if (kept && (direct || (!given && kept.key === first.preconditioner))) reasons.push(`the ${direct ? 'factor' : `${kept.key} preconditioner`} an earlier solve of A set up is kept with A: the next solve uses it again (no set-up; reuse: false sets up afresh)`);
    const text = [
      direct
        ? `DIRECT factorization (cholesky, ldlt or lu as rt.factor's kind 'auto' decides) on the host CPU, ${A.rows}×${A.cols} ${A.dtype}, ${A.nnz} nonzeros${d?.estimate ? `; estimated fill ${d.estimate.fillNnz}, ${d.estimate.flops.toExponential(2)} flops, ${d.estimate.ordering} ordering` : ''}`
        : `KSP ${first.method}${first.method === 'gmres' ? '(30), right preconditioning, CGS2' : ''} on the ${p.label} path, ${A.rows}×${A.cols} ${A.dtype}, ${A.nnz} nonzeros`,
      `  stop: true ‖b − A·x‖/‖b‖ ≤ tol in f64${!direct && componentBytes(A.dtype) === 4 ? ' (f32 inner solves, refined in f64 below 1e-5; where they stagnate, A widened to f64 once and solved on from that iterate)' : ''}`,
      ...(direct ? [] : [`PC ${first.preconditioner}`]),
      ...fallbacks.map((c) => `  after a ${direct ? 'singular factor' : 'breakdown'}: ${c.method} + ${c.preconditioner}`),
      ...(nanFallback ? [`  after 'nan' on finite A and b: the same method + none`] : []),
      ...reasons.map((r) => `  - ${r}`),
    ].join('\n');
    return {
      op: 'solve', path: p.id, method: direct ? 'direct' : first.method, preconditioner: direct ? 'none' : first.preconditioner, fallbacks, structure, reasons, text, ...(e ? { matrixExponent: -e } : {}),
      ...(d?.estimate ? { direct: d.estimate } : {}),
    };
  }

  private async runSolve(where: string, A: MatrixHandle, b: unknown, o: AutoSolveOptions, method?: SolveMethod): Promise<SolveOutcome> {
    this.live();
    // counted while it runs: A's arrays are reused after its dispose() only where no solve still reads them
    const h = this.matrixHandle(A, `${where}: A`, true);
    h.solving(1);
    try {
      return await this.solveOn(where, h, b, o, method);
    } finally {
      h.solving(-1);
    }
  }

  private async solveOn(where: string, h: MatrixHandle, b: unknown, o: AutoSolveOptions, method?: SolveMethod): Promise<SolveOutcome> {
    const t0 = performance.now();
    if (h.rows !== h.cols) throw new ShapeError(`${where}: A must be square, it is ${h.rows}×${h.cols}`);
    // every option checked before any work (docs/errors.md)
    checkNumber(where, 'tol', o.tol, FINITE_NON_NEGATIVE);
    checkNumber(where, 'maxIter', o.maxIter, NON_NEGATIVE_INTEGER);
    checkNumber(where, 'checkEvery', o.checkEvery, POSITIVE_INTEGER);
    checkNumber(where, 'restart', o.restart, POSITIVE_INTEGER);
    checkFunction(where, 'onIteration', o.onIteration);
    checkBoolean(where, 'reuse', o.reuse);
    checkSignal(where, o.signal);
    const handle = solveChoices(where, h, o, (p) => this.own(p, `${where}: preconditioner`));
    const pre = handle ? handle.kind : ((o.preconditioner as PreconditionerKind | 'auto' | undefined) ?? (method ? 'none' : 'auto'));
    const bIn = this.operand(b, h.dtype, h.rows, `${where}: b`);
    const x0In = o.x0 === undefined ? undefined : this.operand(o.x0, h.dtype, h.rows, `${where}: x0`);
    // a path asked for is checked now (its errors come before any work); the SpMV race that picks
    // one otherwise, and the solver ops that tell its preconditioners, wait until a Krylov solve runs:
    // a factorization that meets tol needs neither (≈ 0.1–0.5 ms of a small direct solve)
    const asked = o.path || this.forced ? this.usable(o.path) : null;
    // refused from sizes before any pass over A: a Krylov solve on the CPU path holds b, x and r in its
    // memory at least (an empty 10⁸×10⁸ matrix: 3 s and 2.9 GB of structure pass and copies first)
    // (a factorization's floor is stricter: planFactor)
    if (asked ? asked === this.home : !this.paths[1]) checkMemoryFloor(this.memoryInUse + 3 * h.rows * elementBytes(h.dtype), `${where}: b, x and r`, this.cpu.memoryBudgetMB);
    // the driver's chunk (solve-chunk.ts): fetched while A is planned and b read (awaited below; a failed
    // import rejects this solve, and the next imports again)
    if (!solveRun.loaded()) solveRun.load().catch(() => {});
    const analysis = this.solveStructureOf(h);
    const csr = analysis.csr;
    // 'auto', its set-ups kept: a matrix it keeps solving with a Krylov method may be factorized now
    // (directAgain's rent or buy; the ordering it plans is the factorization's cost, not this solve's)
    const { d, auto, plannedMs } = method ? { d: null, auto: false, plannedMs: 0 } : this.solveDirect(h, csr, o.method, o.preconditioner, o.reuse !== false);
    // a Krylov solve: its chunk's import starts now, so a page fetches it while the path's copy of A,
    // the structure pass and the preconditioner are made (a failed import is retried and reported below)
    if (!d || (!d.direct && o.method !== 'direct')) krylovSolvers.load().catch(() => {});
    // b and x0 (vector data or resident vectors, possibly one) are read once, at the start; b into a
    // host copy kept for the next solve of its length (given back when this one returns: a fresh 16 MB
    // array and the garbage it leaves cost ≈ 10 ms of a 90 ms WebGPU solve of 2 M unknowns)
    // (both reads start now, in the order of the calls, so a write or operation called after this one
    // is not seen)
    const host = async (v: VectorLike) => new Float64Array(v instanceof ResidentVector ? await v.read() : v);
    const bRead = bIn instanceof ResidentVector ? bIn.read().then((v) => this.hostCopy(v)) : this.hostCopy(bIn);
    const x0Read = x0In === undefined ? undefined : host(x0In);
    // a resident b or x0 disposed before its read ran: named as passed (it said 'memory region was used after dispose()')
    // (host data alone: copied now, without a turn of the event loop)
    const [b64, x0Data] = x0Read === undefined && bRead instanceof Float64Array ? [bRead] : await Promise.all([bRead, x0Read]).catch((e) => {
      throw e instanceof DisposedError ? new DisposedError(`${where}: ${(bIn as ResidentVector).disposed ? 'b' : 'x0'}`) : e;
    });
    if (!solveRun.loaded()) {
      await solveRun.load();
      this.live();
    }
    const out = await solveRun.get().solveAfterReads(this, { where, h, o, method, handle, pre, asked, analysis, csr, d, b64, x0: x0Data });
    if (auto) {
      // the rent the rule weighs: 'auto''s Krylov solves of A, whole; a factorization it bought that
      // left the system to them (singular, a residual above tol) is not tried again
      const a = (analysis.again ??= { solves: 0, spentMs: 0 });
      if (d!.again && out.method !== 'direct') a.never = () => `the factorization bought after ${a.solves} Krylov solves of A did not answer (${out.directFallback ?? out.reason}): not tried again`;
      else if (out.method !== 'direct') {
        a.solves++;
        a.spentMs += performance.now() - t0 - plannedMs;
      }
    }
    return out;
  }

  /** An f64 copy of `v` in an array a finished solve gave back (keepHostCopy), else a new one. */
  private hostCopy(v: ArrayLike<number>): Float64Array {
    const at = this.hostCopies.findIndex((a) => a.length === v.length);
    const out = at >= 0 ? this.hostCopies.splice(at, 1)[0] : new Float64Array(v.length);
    out.set(v);
    return out;
  }

  /** @internal Keeps a solve's copy of b for the next solve (HOST_COPIES_KEPT at most; nothing of it may be in use). */
  keepHostCopy(a: Float64Array): void {
    this.hostCopies.push(a);
    if (this.hostCopies.length > HOST_COPIES_KEPT) this.hostCopies.shift();
  }

  /**
   * @internal
   * A as p's Krylov solve runs it: where max |aᵢⱼ| leaves the path's range — a GPU path's 2^±RHS_RANGE,
   * the CPU path's 2^±F64_MATRIX_RANGE — a copy scaled by 2^-e to max ≈ 1 (rhsExponent) — exact in
   * binary, so its iterates are the unscaled ones' wherever those stay in range — made once per matrix
   * and disposed with h; else h itself (e = 0). A GPU path's dot products have f32's exponent: a
   * permittivity-scaled Poisson matrix (8.85e-12) or a stiffness of 1e11 ended 'breakdown' or 'nan' there
   * (docs/special-values.md); the CPU path's dot products of squares over- or underflow from ≈ 2^±500
   * (494_bus·2^1000: CG 'nan' after 19 iterations, BiCGSTAB + SSOR 'maxIter' at a relative residual of
   * 2e-2 where A converges in 264). Its structure is A's (scale-invariant). max |aᵢⱼ| is looseNormsOf's,
   * a pass a WebGPU solve's certificate makes anyway; on the CPU path only where a strided sample of ≤ 1024
   * values is out of range (no pass, no copy for a matrix of ordinary scale). NaN or ±Inf in A: no scaling.
   */
  solveMatrixOn(h: MatrixHandle, p: Path): { h: MatrixHandle; csr: CSRMatrix; e: number } {
    const analysis = this.solveStructureOf(h);
    const v = analysis.csr.values;
    let m = 0;
    for (let k = 0; k < v.length; k += 1 + (v.length >> 10)) m = Math.max(m, Math.abs(v[k]));
    const gpu = p.cost.kind === 'gpu';
    if (analysis.gpuScaled === undefined && (gpu || rhsExponent(m, F64_MATRIX_RANGE))) {
      let e = rhsExponent(looseNormsOf(analysis.csr).maxAbs);
      // the CPU path's copy keeps every nonzero entry normal: diag(1e300, 1e-10) scaled by 2^-997 held a
      // subnormal 7e-311 (Jacobi refused that value, not in A; every method failed where A converged)
      if (!gpu && e > 0) e = Math.max(0, Math.min(e, normalRoom(v)));
      let scaled: SolveAnalysis['gpuScaled'] = null;
      const copy = e !== 0 ? scaledCsr(analysis.csr, -e) : null;
      // an f32 or c64 copy holds what the scaling takes below f32's least subnormal as 0 (A[1,0] =
      // 0.99·2^-50 of a matrix scaled by 2^-100): its solves were certified for that copy ('converged'
      // at 1.3e-18 for an exact 9.2e-10), so none is made unless it scales back to A exactly
      if (copy && (!(copy.values instanceof Float32Array) || scaleBy(Float64Array.from(copy.values), e).every((x, k) => x === v[k]))) {
        const csr = markPrivateCanonical(copy);
        seedScaledLooseNorms(csr, analysis.csr, -e);
        // the format h runs in on each path, from h's own features (value-free: the pattern's)
        this.featuresOf(csr, h.canonicalCsr ?? h.host);
        const lazy = { format: () => h.format, convert: (format: FormatName) => convert(csr, format) };
        // (shared: its rowPtr and colIdx are A's, never to be reused at its dispose())
        const hs = new MatrixHandle(csr, null, this, h.requestedFormat, lazy).share();
        // A's structure (a solve has read it by now: no pass of its own, in no AMG session)
        this.structureCache.set(csr, { csr, structureIn: () => analysis.structureIn() });
        h.derived.push(hs);
        scaled = { h: hs, csr, e };
      }
      analysis.gpuScaled = scaled;
    }
    const s = analysis.gpuScaled;
    // (the CPU path: a copy made for a GPU path, within its own range, is not run)
    // (nor one made there that flushed entries of A)
    return s && (gpu || (Math.abs(s.e) > F64_MATRIX_RANGE && (s.e < 0 || s.e <= normalRoom(v)))) ? s : { h, csr: analysis.csr, e: 0 };
  }


  /**
   * @internal
   * The f64 (c128) twin of an f32 (c64) matrix's solve copy `s` (solveMatrixOn's): its entries widened,
   * exactly, made once per matrix and disposed with h — what rt.solve goes on with where the f32
   * corrections stagnate (solve-run.ts wideFallback). The format h runs in, and h's structure.
   */
  solveMatrixWide(h: MatrixHandle, s: { h: MatrixHandle; csr: CSRMatrix }): { h: MatrixHandle; csr: CSRMatrix } {
    const analysis = this.solveStructureOf(h);
    if (analysis.wide?.of !== s.csr) {
      const csr = markPrivateCanonical(s.csr.astype(isComplex(h.dtype) ? 'c128' : 'f64'));
      this.featuresOf(csr, s.h.canonicalCsr ?? s.h.host);
      const lazy = { format: () => s.h.format, convert: (format: FormatName) => convert(csr, format) };
      const hw = new MatrixHandle(csr, null, this, s.h.requestedFormat, lazy).share();
      this.structureCache.set(csr, { csr, structureIn: () => analysis.structureIn() });
      h.derived.push(hw);
      analysis.wide = { of: s.csr, h: hw, csr };
    }
    return analysis.wide;
  }

  /**
   * @internal
   * chebyshevPlan's plan of a real, Hermitian, diagonally dominant A with a positive diagonal (of
   * `degree`, else chebyshevDegreeOn's where the steps run fused, else GPU_CHEBYSHEV_DEGREE; on
   * [2/CHEBYSHEV_RATIO, 2] from Gershgorin's discs: no product), else null; shared with
   * rt.preconditioner on a path where the polynomial's steps run fused (`p`, named in the description).
   */
  gershgorinChebyshev(h: MatrixHandle, csr: CSRMatrix, structure: SolveStructure, degree: number | undefined, p: Path, t0: number): PreconditionerPlan | null {
    if (isComplex(h.dtype) || !structure.hermitian || !structure.positiveDiagonal || !structure.diagonallyDominant) return null;
    const dinvValue = this.inverseDiagonalValue(h, csr) ?? undefined;
    const chosen = degree === undefined && this.fusedChebyshevOn(h, p) ? this.chebyshevDegreeOn(h, p) : null;
    return planPreconditioner(csr, structure, { kind: 'chebyshev', degree: degree ?? chosen?.degree ?? GPU_CHEBYSHEV_DEGREE }, this.sparseKernels, {
      lo: 2 / CHEBYSHEV_RATIO,
      hi: 2,
      how: `from Gershgorin's discs (A is diagonally dominant: D⁻¹A's lie in [0, 2]), λmin taken as λmax/${CHEBYSHEV_RATIO}: the ${p.label} path's plan for its fused steps${chosen ? `; ${chosen.why}` : ''}`,
      ms: performance.now() - t0,
      dinvValue,
    });
  }

  /** @internal Whether p runs h's Chebyshev-CG resident with each step fused into A's SpMV, read without making p's ops (pathSolveInfo's chebyshevFused: this, where the ops have the resident solve). */
  fusedChebyshevOn(h: MatrixHandle, p: Path): boolean {
    return p.cost.kind === 'gpu' && p.id === 'webgpu' && h.dtype === 'f64' && this.formatFor(h, p) === 'dia';
  }

  /**
   * @internal
   * The fused Chebyshev-CG's degree for h on p (src/solvers/precond/chebyshev-degree.ts), from p's
   * figures — rt.calibrate()'s or the automatic calibration's where measured, else the path's defaults
   * (no measurement starts here): its rate and fixed cost of an operation — and why, in words.
   */
  chebyshevDegreeOn(h: MatrixHandle, p: Path): { degree: number; why: string } {
    const cal = this.calibrationData?.[p.id] ?? measuredDeviceFigures(p) ?? p.cost.defaults;
    const eb = elementBytes(h.dtype);
    // A as DIA (fusedChebyshevOn): its diagonals, x and y, at the path's rate for DIA (as estimateSpmv,
    // whose record of every format's bytes would read features a DIA matrix never needs: SELL's slots)
    const msPerByte = 1 / (cal.bandwidthGBs * (p.cost.efficiency?.dia ?? 1) * 1e6);
    const vectorMs = h.rows * eb * msPerByte;
    const spmvMs = (this.featuresOf(h.canonicalCsr ?? h.host).diagonals + 2) * vectorMs;
    return fusedChebyshevDegree({ spmvMs, vectorMs, dispatchMs: cal.overheadMs });
  }

  /**
   * A sparse direct factorization of a square matrix (any format class, or an uploaded handle): 
   * Cholesky, LDLᵀ or LU with partial pivoting after a fill-reducing ordering (AMD or nested
   * dissection), to solve with many times — see docs/direct.md. `kind: 'auto'` (default) takes
   * Cholesky for a symmetric matrix (LDLᵀ, then LU, when it is not positive definite) and LU
   * otherwise; f32/c64 data are factorized in f64/c128. The factor's memory, estimated by the symbolic
   * phase, is checked against the runtime's memory budget (`maxMemoryMB`) before the numeric phase.
   *
   * @throws {@link ShapeError} when A is not square.
   * @throws {@link SingularMatrixError} naming the column where no nonzero pivot was left.
   * @throws {@link InputRangeError} when A holds NaN or ±Inf, naming its row and column.
   * @throws {@link NotPositiveDefiniteError} for `kind: 'cholesky'` when a pivot is not positive, naming its column.
   * @throws {@link UnsupportedError} for an unknown kind or ordering, Cholesky/LDLᵀ of a nonsymmetric or complex matrix.
   * @throws {@link MemoryLimitError} when the factor would exceed the runtime's memory budget.
   * @throws {@link DisposedError} once the runtime or the handle is disposed.
   * @throws {@link OptionError} for an option key it does not know (TypeError when the options are not an object).
   *
   * @example
   * ```js
   * // Factor once, solve for as many right-hand sides as needed
   * import { createRuntime, poisson2D } from 'simdgl';
   * import assert from 'node:assert/strict';
   *
   * const rt = await createRuntime();
   * const A = poisson2D(50);                                          // 2500 unknowns, SPD
   * const F = await rt.factor(A, { kind: 'cholesky', ordering: 'nd' });
   * assert.deepEqual([F.info.kind, F.info.ordering], ['cholesky', 'nd']);
   * const { x, relativeResidual } = await F.solve(new Float64Array(2500).fill(1));
   * assert.ok(relativeResidual < 1e-12 && x.length === 2500);
   * F.dispose();
   * rt.dispose();
   * ```
   */
  async factor(A: SparseMatrix | MatrixHandle, options: FactorOptions = {}): Promise<Factorization> {
    this.live();
    const M = this.hostMatrix(A, 'factor: A');
    if (!directSolvers.loaded()) {
      await directSolvers.load();
      this.live();
    }
    const direct = directSolvers.get();
    return direct.factorize(M, options, this.cpu.memoryBudgetMB, direct.directKernels(this.cpu.backend));
  }

  /**
   * The cost of factorizing A (any format class, or an uploaded handle), from the symbolic phase
   * alone (ordering, elimination tree, column counts: roughly the time of a few SpMVs plus the
   * ordering, no numeric work): entries of the factor, flops and bytes, and the ordering that would
   * be used. For LU ordered on A + Aᵀ the estimate assumes pivots on the diagonal, and partial
   * pivoting can make the true fill larger; under the column ordering 'amd-ata' (LU's 'auto' for a
   * pattern far from symmetric) it comes from the Cholesky factor of AᵀA, a bound on the fill of any
   * row pivoting unless dense rows were left out of AᵀA. rt.solve's 'auto' weighs these against an
   * iterative solve.
   *
   * @throws {@link ShapeError} when A is not square.
   * @throws {@link FormatError} when A breaks an invariant of its format.
   * @throws {@link MemoryLimitError} when the symbolic phase's arrays (7 of A's rows, 2 of its entries, 4 bytes each) pass the runtime's memory budget, before it runs.
   * @throws {@link DisposedError} once the runtime or the handle is disposed.
   *
   * @example
   * ```js
   * import { createRuntime, poisson2D } from 'simdgl';
   * import assert from 'node:assert/strict';
   *
   * const rt = await createRuntime();
   * const c = rt.estimateFactorCost(poisson2D(64), 'cholesky');
   * assert.ok(c.fillNnz > 4096 && c.flops > c.fillNnz && c.bytes > 12 * c.fillNnz);
   * assert.ok(['amd', 'nd'].includes(c.ordering));
   * rt.dispose();
   * ```
   */
  estimateFactorCost(A: SparseMatrix | MatrixHandle, kind: 'cholesky' | 'ldlt' | 'lu' = 'lu', ordering: OrderingName | 'auto' = 'auto'): FactorEstimate {
    this.live();
    // under the runtime's budget, as rt.factor's symbolic phase
    return withMemoryBudget(this.cpu.memoryBudgetMB, () => estimateFactorCost(this.hostMatrix(A, 'estimateFactorCost: A'), kind, ordering, cpuSymbolicKernels(this.cpu.backend)));
  }

  /** A handle's host matrix (its canonical CSR where it has one), or A itself if it is a sparse matrix; else a typed error at `where`. */
  private hostMatrix(A: SparseMatrix | MatrixHandle, where: string): SparseMatrix {
    if (!(A instanceof MatrixHandle)) return sparseMatrix(A, where);
    const h = this.own(A, where).live();
    return h.canonicalCsr ?? h.host;
  }

  /**
   * A smoothed-aggregation algebraic multigrid hierarchy of A, set up once on the host (docs/amg.md):
   * the same as `rt.preconditioner(A, { kind: 'amg', amg: options })`. Pass it as the `preconditioner`
   * of rt.cg / rt.solve; its V-cycle runs on the solve's path. `amg` tells its levels and complexities;
   * `dispose()` frees it.
   *
   * @throws {@link UnsupportedError} when A is complex, not symmetric, or has a diagonal entry ≤ 0.
   * @throws RangeError for an option out of range; {@link OptionError} for an option key it does not know.
   * @throws {@link DisposedError} once the runtime or the handle is disposed.
   *
   * @example
   * ```js
   * import { createRuntime, poisson3D } from 'simdgl';
   * import assert from 'node:assert/strict';
   *
   * const rt = await createRuntime();
   * const A = rt.upload(poisson3D(24));                               // 13824 unknowns
   * const M = rt.amg(A);
   * assert.ok(M.amg.levels.length >= 2 && M.amg.operatorComplexity < 2);
   * const r = await rt.cg(A, new Float64Array(13824).fill(1), { preconditioner: M });
   * assert.ok(r.converged && r.iterations <= 20);
   * M.dispose();
   * rt.dispose();
   * ```
   */
  amg(A: MatrixHandle, options: AmgOptions & { path?: PathChoice } = {}): PreconditionerHandle {
    checkOptions('amg', options, AMG_OPTION_KEYS);
    const { path, ...amg } = options;
    return this.preconditionerAs('amg', A, { kind: 'amg', amg, ...(path === undefined ? {} : { path }) });
  }

  /**
   * C = A·B for sparse matrices of any format (canonical CSR out): Gustavson's two-pass product, a
   * WebAssembly kernel on the CPU path's worker pool (src/cpu/spgemm.ts), its size counted exactly and
   * checked against the runtime's memory budget before the values are computed. Synchronous: the
   * calling thread waits for the pool. The result is complex when either operand is, single precision
   * only when both are.
   *
   * Sparse matrices in, a new CSRMatrix out (the product copied into JavaScript arrays). Two handles
   * in (read from their host copy), a new handle out, CSR as if uploaded with `format: 'keep'`: its
   * storage is the product's arrays where the kernels wrote them, in the runtime's memory (nothing
   * copied out; single precision, which the kernels sum in f64, is rounded into a copy), counted in
   * `rt.memoryInUse` until `dispose()`. Pass it to rt.spmv, rt.cg, rt.solve, rt.explain or another
   * rt.spgemm, read it back with its `toCSR()`; dispose each product once done with it, as in a loop of products.
   *
   * `options.out`, a CSRMatrix of the product's shape, dtype and number of entries (an earlier product
   * of operands with the same patterns): the product is written into its arrays and out returned,
   * whatever the operands. A product's fresh arrays cost about a third of it in first touches of new
   * memory pages (docs/amg.md); a loop of products whose values change reuses one matrix instead.
   *
   * @throws {@link ShapeError} when A's columns differ from B's rows; when `out`'s shape, dtype or number of entries is not the product's (out unchanged).
   * @throws {@link MemoryLimitError} when the product does not fit the runtime's memory budget.
   * @throws {@link DisposedError} once the runtime or a handle is disposed.
   * @throws {@link InputTypeError} when `out` is not a CSRMatrix; {@link OptionError} for an option key it does not know.
   *
   * @example
   * ```js
   * import { createRuntime, CSRMatrix } from 'simdgl';
   * import assert from 'node:assert/strict';
   *
   * const rt = await createRuntime();
   * // A = [[1, 2], [0, 3]], B = [[4, 0], [5, 6]]
   * const A = new CSRMatrix(2, 2, 'f64', new Int32Array([0, 2, 3]), new Int32Array([0, 1, 1]), new Float64Array([1, 2, 3]));
   * const B = new CSRMatrix(2, 2, 'f64', new Int32Array([0, 1, 3]), new Int32Array([0, 0, 1]), new Float64Array([4, 5, 6]));
   * const C = rt.spgemm(A, B);                                        // [[14, 12], [15, 18]]
   * assert.deepEqual([...C.rowPtr], [0, 2, 4]);
   * assert.deepEqual([...C.colIdx], [0, 1, 0, 1]);
   * assert.deepEqual([...C.values], [14, 12, 15, 18]);
   * rt.dispose();
   * ```
   *
   * @example
   * ```js
   * // Resident operands: the product stays in the runtime's memory, a handle to dispose
   * import { createRuntime, poisson2D } from 'simdgl';
   * import assert from 'node:assert/strict';
   *
   * const rt = await createRuntime();
   * const A = rt.upload(poisson2D(32));
   * const before = rt.memoryInUse;
   * const A2 = rt.spgemm(A, A);                                       // a MatrixHandle, CSR
   * assert.deepEqual([A2.format, A2.rows, A2.nnz], ['csr', 1024, 12676]);
   * const y = await rt.spmv(A2, new Float64Array(1024).fill(1));      // A²·1: the row sums of A², 0 inside
   * assert.equal(y[500], 0);
   * A2.dispose();                                                     // frees its memory now
   * assert.equal(rt.memoryInUse, before);
   * rt.dispose();
   * ```
   *
   * @example
   * ```js
   * // A loop of products whose values change: each written into the first one's arrays
   * import { createRuntime, poisson2D } from 'simdgl';
   * import assert from 'node:assert/strict';
   *
   * const rt = await createRuntime();
   * const A = poisson2D(32);
   * const C = rt.spgemm(A, A);
   * for (let step = 1; step <= 3; step++) {
   *   A.values.forEach((v, k) => (A.values[k] = v * 2));                // the same pattern, new values
   *   assert.equal(rt.spgemm(A, A, { out: C }), C);                     // C's arrays, overwritten
   * }
   * assert.equal(C.values[0], 18 * 64);                                 // a corner: (4·8)² + 2·8²
   * rt.dispose();
   * ```
   */
  spgemm(A: MatrixHandle, B: MatrixHandle, options?: Omit<SpgemmOptions, 'out'>): MatrixHandle;
  spgemm(A: SparseMatrix | MatrixHandle, B: SparseMatrix | MatrixHandle, options: SpgemmOptions & { out: CSRMatrix }): CSRMatrix;
  spgemm(A: SparseMatrix, B: SparseMatrix | MatrixHandle, options?: SpgemmOptions): CSRMatrix;
  spgemm(A: SparseMatrix | MatrixHandle, B: SparseMatrix, options?: SpgemmOptions): CSRMatrix;
  spgemm(A: SparseMatrix | MatrixHandle, B: SparseMatrix | MatrixHandle, options?: SpgemmOptions): CSRMatrix | MatrixHandle;
  spgemm(A: SparseMatrix | MatrixHandle, B: SparseMatrix | MatrixHandle, options: SpgemmOptions = {}): CSRMatrix | MatrixHandle {
    this.live();
    checkOptions('spgemm', options, SPGEMM_OPTION_KEYS);
    const [a, b] = [this.hostMatrix(A, 'spgemm: A'), this.hostMatrix(B, 'spgemm: B')];
    const { out } = options;
    if (out !== undefined || !(A instanceof MatrixHandle && B instanceof MatrixHandle)) return spgemm(a, b, this.sparseKernels, this.cpu.memoryBudgetMB, out);
    const backend = this.cpu.backend;
    const C = sparseProduct(a, b, () => cpuSparseSession(backend), this.cpu.memoryBudgetMB, (s, a, b, dtype) => s.residentProduct(a, b, dtype));
    // canonical, and private: no caller holds its arrays. CSR as if kept at upload (explain and every path
    // run it so); the CPU path's copy is the product's own regions (plain CSR layout), a single-precision
    // product's is uploaded from its host copy on first use
    const host = markPrivateCanonical(C.host);
    return this.track(new MatrixHandle(host, C.regions && residentCsr(host, C.regions), this, 'csr'));
  }

  /** The CPU path's sparse kernels on its pool (src/cpu/spgemm.ts): rt.spgemm's and the AMG setup's. */
  /** @internal the CPU path's SpGEMM sessions (AMG, rt.spgemm, the preconditioners' set-up); the coarsest AMG level's sparse Cholesky runs on the direct solvers' kernels */
  readonly sparseKernels: SparseKernels = Object.defineProperty(() => cpuSparseSession(this.cpu.backend), 'coarse', {
    get: () => ({ symbolic: cpuSymbolicKernels(this.cpu.backend), ldl: cpuLdlKernels(this.cpu.backend).sparse, inverse: cpuDenseInverse(this.cpu.backend) }),
  });

  /**
   * C = α·A·B + β·C for dense matrices (any shape). CPU path: a cache-blocked, register-tiled SIMD
   * kernel split over the workers by row panels (f32, f64); WebGL2: a tiled shader (f32, c64, and f64,
   * c128 in double-single). Operands are DenseMatrix (copied in, the result copied out) or resident
   * handles from rt.dense() (used in place). Runs where resident operands are current, else on the CPU
   * path, unless a path is asked for. Returns C when given (updated in place), else a new matrix: a
   * handle when A or B is one, a DenseMatrix otherwise.
   *
   * @throws {@link ShapeError} when the operands' dtypes or shapes do not fit, or C is A or B.
   * @throws {@link FormatError} when a DenseMatrix's value array has the wrong type or length.
   * @throws {@link GpuUnavailableError} when `options.path` names a GPU path this runtime lacks.
   * @throws {@link MemoryLimitError} when the runtime's memory cannot grow to hold the operands.
   * @throws {@link DisposedError} once the runtime or a handle is disposed.
   * @throws {@link InputTypeError} when an operand is neither a DenseMatrix nor a handle from `rt.dense()`;
   * {@link InputTypeError} when `alpha` or `beta` has the wrong type.
   * @throws {@link OptionError} for an option key it does not know (TypeError when the options are not an object).
   *
   * @example
   * ```js
   * // C ← 2·A·B + C in place, then a fresh product
   * import { createRuntime, DenseMatrix } from 'simdgl';
   * import assert from 'node:assert/strict';
   *
   * const rt = await createRuntime();
   * const A = new DenseMatrix(2, 2, 'f64', new Float64Array([1, 2, 3, 4]));
   * const I = new DenseMatrix(2, 2, 'f64', new Float64Array([1, 0, 0, 1]));
   * const C = new DenseMatrix(2, 2, 'f64', new Float64Array([1, 1, 1, 1]));
   * await rt.gemm(A, I, { C, alpha: 2, beta: 1 });
   * assert.deepEqual(Array.from(C.values), [3, 5, 7, 9]);
   * const AA = await rt.gemm(A, A);                                   // a new DenseMatrix
   * assert.deepEqual(Array.from(AA.values), [7, 10, 15, 22]);
   * rt.dispose();
   * ```
   */
  gemm(A: DenseMatrix, B: DenseMatrix, options?: GemmOptions & { C?: undefined; path?: PathChoice }): Promise<DenseMatrix>;
  gemm<C extends DenseLike>(A: DenseLike, B: DenseLike, options: GemmOptions & { C: C; path?: PathChoice }): Promise<C>;
  gemm(A: DenseLike, B: DenseLike, options?: GemmOptions & { path?: PathChoice }): Promise<DenseHandle>;
  async gemm(A: DenseLike, B: DenseLike, options: GemmOptions & { path?: PathChoice } = {}): Promise<DenseLike> {
    this.live();
    checkOptions('gemm', options, GEMM_OPTION_KEYS);
    const alpha = checkNumber('gemm', 'alpha', options.alpha, ANY_NUMBER) ?? 1;
    const beta = checkNumber('gemm', 'beta', options.beta, ANY_NUMBER) ?? 0;
    checkBoolean('gemm', 'naive', options.naive);
    checkPath('gemm', options.path);
    checkGemm(A, B, options.C);
    return this.denseOp([A, B], options.C, beta !== 0, { dtype: A.dtype, rows: A.rows, cols: B.cols }, options.path, (p, [a, b], c) =>
      p.gemm(a, b, c, { alpha, beta, naive: options.naive ?? false }),
    );
  }

  /**
   * C = α·A + β·B for dense matrices or handles of one shape and dtype (defaults α = β = 1; `[re, im]`
   * for complex). Returns a new handle when A or B is one, else a new DenseMatrix.
   *
   * @throws {@link ShapeError} when the operands' dtypes or shapes do not fit.
   * @throws {@link FormatError} when a DenseMatrix's value array has the wrong type or length.
   * @throws {@link GpuUnavailableError} when `options.path` names a GPU path this runtime lacks.
   * @throws {@link MemoryLimitError} when the runtime's memory cannot grow to hold the operands.
   * @throws {@link DisposedError} once the runtime or a handle is disposed.
   * @throws {@link InputTypeError} when an operand is neither a DenseMatrix nor a handle from `rt.dense()`;
   * {@link InputTypeError} when `alpha` or `beta` has the wrong type.
   * @throws {@link OptionError} for an option key it does not know (TypeError when the options are not an object).
   *
   * @example
   * ```js
   * import { createRuntime, DenseMatrix } from 'simdgl';
   * import assert from 'node:assert/strict';
   *
   * const rt = await createRuntime();
   * const A = new DenseMatrix(1, 3, 'f32', new Float32Array([1, 2, 3]));
   * const B = new DenseMatrix(1, 3, 'f32', new Float32Array([1, 1, 1]));
   * const D = await rt.add(A, B, { alpha: 1, beta: -1 });            // A − B
   * assert.deepEqual(Array.from(D.values), [0, 1, 2]);
   * rt.dispose();
   * ```
   */
  add(A: DenseMatrix, B: DenseMatrix, options?: AddOptions & { path?: PathChoice }): Promise<DenseMatrix>;
  add(A: DenseLike, B: DenseLike, options?: AddOptions & { path?: PathChoice }): Promise<DenseHandle>;
  async add(A: DenseLike, B: DenseLike, options: AddOptions & { path?: PathChoice } = {}): Promise<DenseLike> {
    this.live();
    checkOptions('add', options, ADD_OPTION_KEYS);
    checkPath('add', options.path);
    checkAdd(A, B);
    const alpha = checkedScalar('add', 'alpha', A.dtype, options.alpha, 1);
    const beta = checkedScalar('add', 'beta', A.dtype, options.beta, 1);
    return this.denseOp([A, B], undefined, false, { dtype: A.dtype, rows: A.rows, cols: A.cols }, options.path, (p, [a, b], c) =>
      p.add(a, b, c, { alpha, beta }),
    );
  }

  /**
   * Aᵀ of a dense matrix or handle: a blocked copy on the CPU path (reads and writes both contiguous),
   * a gather shader on WebGL2. Returns a new handle for a handle, else a new DenseMatrix.
   *
   * @throws {@link FormatError} when a DenseMatrix's value array has the wrong type or length.
   * @throws {@link GpuUnavailableError} when `options.path` names a GPU path this runtime lacks.
   * @throws {@link MemoryLimitError} when the runtime's memory cannot grow to hold the operands.
   * @throws {@link DisposedError} once the runtime or the handle is disposed.
   * @throws {@link InputTypeError} when A is neither a DenseMatrix nor a handle from `rt.dense()`.
   * @throws {@link OptionError} for a `path` that names no path.
   * @throws {@link OptionError} for an option key it does not know (TypeError when the options are not an object).
   *
   * @example
   * ```js
   * import { createRuntime, DenseMatrix } from 'simdgl';
   * import assert from 'node:assert/strict';
   *
   * const rt = await createRuntime();
   * const A = new DenseMatrix(2, 3, 'f64', new Float64Array([1, 2, 3, 4, 5, 6]));
   * const T = await rt.transpose(A);
   * assert.deepEqual([T.rows, T.cols, ...T.values], [3, 2, 1, 4, 2, 5, 3, 6]);
   * rt.dispose();
   * ```
   */
  transpose(A: DenseMatrix, options?: { path?: PathChoice }): Promise<DenseMatrix>;
  transpose(A: DenseHandle, options?: { path?: PathChoice }): Promise<DenseHandle>;
  async transpose(A: DenseLike, options: { path?: PathChoice } = {}): Promise<DenseLike> {
    this.live();
    checkOptions('transpose', options, TRANSPOSE_OPTION_KEYS);
    checkPath('transpose', options.path);
    checkTranspose(A);
    return this.denseOp([A], undefined, false, { dtype: A.dtype, rows: A.cols, cols: A.rows }, options.path, (p, [a], c) => p.transpose(a, c));
  }

  /**
   * Runs one dense kernel on the chosen path: handles are brought up to date there, DenseMatrix
   * operands copied in; the output is C (read when `readC`), or a new handle when an input is one, or
   * a temporary copied out into a new DenseMatrix.
   */
  private async denseOp(
    inputs: DenseLike[],
    C: DenseLike | undefined,
    readC: boolean,
    shape: DenseShape,
    choice: PathChoice | undefined,
    run: (p: Path, ins: PathDense[], out: PathDense) => Promise<void>,
  ): Promise<DenseLike> {
    const handles = [...inputs, ...(C ? [C] : [])].filter((m): m is DenseHandle => m instanceof DenseHandle);
    for (const m of handles) this.own(m, 'dense operand').live();
    const first = this.operandPath(choice, ...handles);
    // DenseMatrix operands are read now, at the call: the caller may change them as soon as it returns
    // (copies where it must wait: for operations called before it on its handles, or for a GPU path's
    // shaders on its first operation)
    let hostIns = inputs.map((m) => (m instanceof DenseHandle ? null : m));
    let hostC = C && !(C instanceof DenseHandle) && readC ? C : null;
    if ((first.prepare && !this.prepared.has(first)) || handles.some((m) => m.pending)) {
      const copy = (m: DenseMatrix | null) => m && new DenseMatrix(m.rows, m.cols, m.dtype, m.values.slice());
      [hostIns, hostC] = [hostIns.map(copy), copy(hostC)];
    }
    return await inOrder(handles, async () => {
      // where its handles are current now (operations before it may have moved them)
      const p = this.operandPath(choice, ...handles);
      if (p.prepare && !this.prepared.has(p)) await this.ready(p);
      const temps: PathDense[] = [];
      let made: DenseHandle | null = null;
      try {
        const copied = hostIns.map((m) => m && keep(temps, p.dense(m)));
        const hostOut = C && !(C instanceof DenseHandle) ? keep(temps, p.dense(hostC ?? shape)) : null;
        const ins: PathDense[] = [];
        for (const [k, m] of inputs.entries()) ins.push(copied[k] ?? (await (m as DenseHandle).on(p)));
        let out: PathDense;
        if (C instanceof DenseHandle) out = readC ? await C.on(p) : C.target(p);
        else if (hostOut) out = hostOut;
        else if (handles.length) {
          out = p.dense(shape);
          made = this.track(new DenseHandle(shape.dtype, shape.rows, shape.cols, this, p, out));
        } else out = keep(temps, p.dense(shape));
        await run(p, ins, out);
        if (C instanceof DenseHandle) {
          C.wrote(p);
          return C;
        }
        if (made) return made;
        return await p.readDense(out, C);
      } catch (e) {
        made?.dispose();
        throw e;
      } finally {
        for (const t of temps) t.dispose();
      }
    });
  }

  /**
   * Releases everything this runtime holds, its handles included: the memory, the workers (Node then
   * exits on its own) and the GPU paths. Calls still running reject, and later calls throw,
   * {@link DisposedError}. A second call does nothing.
   *
   * @example
   * ```js
   * import { createRuntime, poisson2D, DisposedError } from 'simdgl';
   * import assert from 'node:assert/strict';
   *
   * const rt = await createRuntime({ workers: 2 });
   * const A = rt.upload(poisson2D(4));
   * rt.dispose();
   * assert.equal(A.disposed, true);                          // its handles go with it
   * assert.throws(() => rt.upload(poisson2D(4)), DisposedError);
   * ```
   */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.hostCopies = [];
    for (const u of this.unsubscribe) u();
    this.cpu.dispose();
    for (const h of [...this.handles]) h.dispose();
    for (const p of this.paths) if (p !== this.home) p.dispose();
  }

  /** @internal called by a handle's dispose() */
  forget(handle: object): void {
    const tracked = this.handles.delete(handle as Handle);
    // a WeakMap's entry stays through V8's young-generation collections until a full one: dropped now
    if (handle instanceof MatrixHandle) {
      this.structureCache.delete(handle.source);
      // its arrays are kept by the solve chunk's code, which a handle only rt.solve read has loaded (an
      // upload's own handle: a solve's scaled copy, untracked, holds A's index arrays)
      if (tracked && handle.recyclable && !this.disposed && solveRun.loaded()) solveRun.get().keepSpares(this.spares, handle);
    }
  }

  /** The upload's and conversions' withMemoryBudget `spare`: a kept buffer of exactly `bytes` (solve-run.ts keepSpares), taken out of the list, else null. */
  private readonly spare = (bytes: number, shared: boolean): ArrayBufferLike | null => (this.spares.length ? solveRun.get().takeSpare(this.spares, bytes, shared) : null);

  private track<H extends Handle>(h: H): H {
    this.handles.add(h);
    return h;
  }

  /** @internal */
  live(): void {
    if (this.disposed) throw new DisposedError('runtime');
  }

  /** h, checked to be a live handle of this runtime; a matrix handle is marked shared (its arrays never reused) unless `solve` (rt.solve's read). */
  private own<T extends Handle>(h: T, what: string, solve = false): T {
    if (!(h instanceof MatrixHandle) && !(h instanceof ResidentVector) && !(h instanceof DenseHandle) && !(h instanceof PreconditionerHandle)) {
      throw new InputTypeError(`${what}: expected a handle from rt.upload(), rt.vector(), rt.dense() or rt.preconditioner(), got ${shownTyped(h)}`);
    }
    if (h.owner !== this) {
      // disposed with its runtime: E_FOREIGN would send the caller looking for a second live runtime
      if (h.disposed) throw new DisposedError(`${what} (a handle of another runtime)`);
      throw new SimdglError('E_FOREIGN', `${what} belongs to another runtime`);
    }
    // named as the caller passed it ('solve: b'), not by its kind ('resident vector was used after dispose()')
    if (h.disposed) throw new DisposedError(what);
    if (h instanceof MatrixHandle && !solve) h.share();
    return h;
  }

  /** A matrix handle of this runtime, live (another handle there was read as one: 'x.on is not a function'). */
  private matrixHandle(A: unknown, what: string, solve = false): MatrixHandle {
    const h = this.own(A as Handle, what, solve);
    if (!(h instanceof MatrixHandle)) throw new InputTypeError(`${what}: expected a matrix handle from rt.upload(), got ${handleKind(h)}`);
    return h.live();
  }

  /** A resident vector of this runtime, live. */
  private residentVector(v: unknown, what: string): ResidentVector {
    const h = this.own(v as Handle, what);
    if (!(h instanceof ResidentVector)) throw new InputTypeError(`${what}: expected a resident vector from rt.vector(), got ${handleKind(h)}`);
    return h.live();
  }

  /** Checks two resident vectors of this runtime have one dtype and length; returns the dtype. */
  private pair(op: string, x: ResidentVector, y: ResidentVector): DType {
    this.live();
    const xv = this.residentVector(x, `${op}: x`);
    const yv = this.residentVector(y, `${op}: y`);
    if (xv.dtype !== yv.dtype) throw new ShapeError(`${op}: x is ${xv.dtype} and y is ${yv.dtype}`);
    if (xv.length !== yv.length) throw new ShapeError(`${op}: x has ${xv.length} elements and y has ${yv.length}`);
    return xv.dtype;
  }

  /**
   * An input operand: a resident vector of this runtime, or vector data (the one rule of vectorData:
   * any array of numbers or typed array), of the right dtype and length; data comes back as a
   * Float32Array or Float64Array.
   */
  private operand(v: unknown, dtype: DType, length: number, name: string): VectorLike {
    if (v instanceof ResidentVector) {
      const r = this.own(v, name).live();
      if (r.dtype !== dtype) throw new ShapeError(`${name} is ${r.dtype}, the matrix is ${dtype}`);
      if (r.length !== length) throw new ShapeError(`${name} has ${r.length} elements, expected ${length}`);
      return r;
    }
    const data = vectorData(v, name);
    const want = length * components(dtype);
    if (data.length !== want) {
      throw new ShapeError(`${name} has length ${data.length}, expected ${want} (${length} ${dtype} elements)`);
    }
    return data;
  }

  /** An output operand: a resident vector, or the Float32Array / Float64Array the dtype's results are written into. */
  private checkOutput(v: unknown, dtype: DType, length: number, name: string): void {
    if (v instanceof ResidentVector) {
      this.operand(v, dtype, length, name);
      return;
    }
    const want = componentBytes(dtype) === 4 ? 'Float32Array' : 'Float64Array';
    if (!(v instanceof Float32Array || v instanceof Float64Array)) {
      throw new InputTypeError(`${name} (the output) must be a resident vector or a ${want}, got ${shownTyped(v)}`);
    }
    if (v.BYTES_PER_ELEMENT !== componentBytes(dtype)) throw new ShapeError(`${name} is a ${v.constructor.name}, a ${dtype} result needs a ${want}`);
    this.operand(v, dtype, length, name);
  }
}

/**
 * What an upload cannot do without, from the declared shape alone: the hub CSR's row pointers when it
 * converts, the features' diagonal marks when it chooses, and the resident format's row (or column)
 * pointers. Checked before any work, so a shape no budget holds is refused at once.
 */
function uploadFloorBytes(A: SparseMatrix, asked: string): number {
  const target = asked === 'keep' ? A.format : asked;
  const hub = A.format !== 'csr' && target !== A.format ? 4 * (A.rows + 1) : 0;
  const marks = asked === 'auto' ? A.rows + A.cols : 0;
  const resident = target === 'coo' ? 0 : target === 'dense' ? A.rows * A.cols * elementBytes(A.dtype) : 4 * ((target === 'csc' ? A.cols : A.rows) + 1);
  return hub + marks + resident;
}

function keep<T>(list: T[], v: T): T {
  list.push(v);
  return v;
}

function labelOf(id: PathId): string {
  return id === 'cpu' ? 'CPU' : (DEVICE_PATHS.find((f) => f.id === id)?.label ?? id);
}

/** A calibration saved before the paths had ids: its `gpu` figures were the WebGL2 path's. */
function withLegacyKeys(c: Calibration): Calibration {
  const legacy = (c as { gpu?: PathCalibration }).gpu;
  return legacy && !c.webgl2 ? { ...c, webgl2: legacy } : c;
}

/**
 * A scalar argument or option as [re, im] (`fallback` when undefined): a number or `[re, im]`, else an
 * InputTypeError; a complex one on real data is an UnsupportedError naming the operation.
 */
function checkedScalar(where: string, name: string, dtype: DType, s: unknown, fallback: number): [number, number] {
  const c = checkScalar(where, name, s, fallback);
  if (!isComplex(dtype) && c[1] !== 0) throw new UnsupportedError(`${where}: ${name}: a complex scalar needs complex data, this is ${dtype}`);
  return c;
}

/** The α of axpy, aypx and scal: required, a number or [re, im]. */
function blasScalar(op: string, dtype: DType, alpha: unknown): [number, number] {
  if (alpha === undefined) throw new InputTypeError(`${op}: alpha must be a number or [re, im] (two numbers), got undefined`);
  return checkedScalar(op, 'alpha', dtype, alpha, 0);
}

function resolveScalars(dtype: DType, o: SpmvOptions): SpmvScalars {
  const op = checkChoice('spmv', 'op', o.op, ['N', 'T', 'H'] as const) ?? 'N';
  return { alpha: checkedScalar('spmv', 'alpha', dtype, o.alpha, 1), beta: checkedScalar('spmv', 'beta', dtype, o.beta, 0), op };
}

/** The largest e (less one, for log2's rounding) with 2^-e·|vₖ| ≥ 2^-1022 for every nonzero vₖ: a downscale that leaves none subnormal. */
function normalRoom(v: ArrayLike<number>): number {
  let min = Infinity;
  for (let k = 0; k < v.length; k++) {
    const a = Math.abs(v[k]);
    if (a > 0 && a < min) min = a;
  }
  return Math.floor(Math.log2(min)) + 1021;
}

/**
 * rt.solve's and explain('solve')'s choices checked alike (explain explained 'KSP foo' and 'PC 42' and
 * took spd: 'yes', options rt.solve refuses): spd, path, method, preconditioner (a kind, or a handle of
 * this runtime — `own` checks that — set up for h, returned), and no preconditioner for method 'direct'.
 */
function solveChoices(where: string, h: MatrixHandle, o: ExplainSolveOptions | AutoSolveOptions, own: (p: PreconditionerHandle) => PreconditionerHandle): PreconditionerHandle | null {
  checkBoolean(where, 'spd', o.spd);
  checkPath(where, o.path);
  const p = o.preconditioner;
  if (p !== undefined && typeof p !== 'string' && !(p instanceof PreconditionerHandle)) {
    throw new UnsupportedError(`${where}: preconditioner must be a kind ('none', 'jacobi', …, 'auto') or a handle from rt.preconditioner(), got ${shownTyped(p)}`);
  }
  if (o.method !== undefined && o.method !== 'auto' && o.method !== 'direct' && !SOLVE_METHODS.includes(o.method)) {
    throw new UnsupportedError(`${where}: method must be 'auto', 'direct' or one of ${SOLVE_METHODS.map((m) => `'${m}'`).join(', ')}, got ${shownValue(o.method)}`);
  }
  if (o.method === 'direct' && p !== undefined && p !== 'none' && p !== 'auto') {
    throw new UnsupportedError(`${where}: method 'direct' factorizes A and takes no preconditioner, got preconditioner ${p instanceof PreconditionerHandle ? 'a handle' : shownValue(p)}`);
  }
  const handle = p instanceof PreconditionerHandle ? own(p).live() : null;
  if (handle && handle.matrix !== h) throw new ShapeError(`${where}: the preconditioner was set up for another matrix`);
  if (!handle && p !== undefined) checkPreconditionerOptions({ kind: p as PreconditionerKind | 'auto' }, where);
  return handle;
}

/** The `path` option: a path id or 'gpu'; anything else is an OptionError listing them (the value is checked before the path's availability). */
function checkPath(where: string, v: unknown): void {
  const valid: readonly string[] = [...PATH_IDS, 'gpu'];
  if (v !== undefined && !valid.includes(v as string)) {
    const near = typeof v === 'string' ? valid.find((p) => p.toLowerCase() === v.toLowerCase()) : undefined;
    throw new OptionError(where, 'path', near, valid, { got: v });
  }
}

/** Whether this engine can share a WebAssembly memory between threads (Node; cross-origin isolated pages). */
function sharedMemoryAvailable(): boolean {
  return typeof SharedArrayBuffer === 'function' && (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated !== false;
}

async function resolveWorkers(w: number | 'auto' | undefined, where: string): Promise<number> {
  // default: every core where threads can share memory; one thread (with the reason in capabilities().notes) where not
  if (w === undefined) w = sharedMemoryAvailable() ? 'auto' : 1;
  if (w === 'auto') {
    const os = nodeBuiltin('node:os');
    if (os) return os.availableParallelism();
    const nav = (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator;
    return nav?.hardwareConcurrency ?? 1;
  }
  return requireNumber(where, 'workers', w, { what: "an integer in [1, 256] or 'auto'", ok: (n) => Number.isInteger(n) && n >= 1 && n <= 256 });
}

/**
 * Creates a runtime: detects SIMD and shared memory, compiles the kernels, sets up the memory and the
 * worker pool, and the device paths this engine offers ({@link RuntimeOptions}).
 *
 * @throws {@link UnsupportedError} for a `backend` other than `'auto'`, `'cpu'`, `'webgpu'`, `'webgl2'` or `'gpu'`.
 * @throws {@link GpuUnavailableError} when `backend` forces a GPU path that cannot run here (the message says why).
 * @throws {@link InputTypeError} when a numeric option is not a number (`maxMemoryMB: '2'`) or `simd` is not
 * a boolean or `'auto'`.
 * @throws RangeError ({@link InputRangeError}) when `maxMemoryMB` is outside [1, 4096], `inlineThreshold` or
 * `timeoutMs` negative, `spinUs` outside [0, 10⁶], `workers` is not an integer in [1, 256] or `'auto'`,
 * or `cacheTiles` is not `'auto'`, `false` or `{ rows, cols }` with cols in [1, 65536] and rows in [1, 2³² / the
 * next power of two ≥ cols] (a 32-bit pair packs both).
 * @throws {@link OptionError} for an option key it does not know (TypeError when the options are not an object).
 * @throws the bundler's or engine's import error (webpack's ChunkLoadError, a TypeError) when the solver
 * layer's set-up, a chunk of its own in a page's bundle, cannot be fetched; the next call fetches it again
 * (docs/bundlers.md).
 *
 * @example
 * ```js
 * // One thread per core, every path this engine has
 * import { createRuntime, poisson2D } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * const rt = await createRuntime({ workers: 'auto', backend: 'auto' });
 * assert.ok(rt.capabilities().threads >= 1);
 * const y = await rt.spmv(rt.upload(poisson2D(3)), new Float64Array(9).fill(1));
 * assert.deepEqual(Array.from(y), [2, 1, 2, 1, 0, 1, 2, 1, 2]);
 * rt.dispose();
 * ```
 */
export function createRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  return Runtime.create(options);
}

/** The factorization rt.solve would run for a matrix: its symbolic phase (null when not planned), estimate and verdict. */
export interface DirectPlan {
  plan: FactorPlan | null;
  estimate?: DirectEstimate;
  direct: boolean;
  /** taken by the rent-or-buy rule for a matrix 'auto' keeps solving (Runtime.directAgain) */
  again?: true;
  /** planned above DIRECT_MAX_N for a Krylov candidate factorizeAboveCap names (Runtime.directAboveCap) */
  aboveCap?: true;
  /** tried after the Krylov candidates did not answer (Runtime.directSettled: `direct` says whether it did) */
  afterKrylov?: true;
  /** words for explain('solve'), written when asked */
  reason: () => string;
}

/** What rt.solve and explain say where Jacobi of a constant diagonal runs as none on a GPU path. */
export const JACOBI_AS_NONE = 'jacobi: the diagonal is constant (D⁻¹ = I/c), whose iterates are those without it: none runs, sparing the read of D⁻¹ and the write of z each iteration on the GPU (f64)';

/** A matrix's canonical CSR, with its structure (computed on first read) and the factorization planned for it. */
export interface SolveAnalysis {
  readonly csr: CSRMatrix;
  /** the structure (made on first call), its pool pass (where still to make) run in `session` (poolStructure's `open`) */
  structureIn(session?: CpuSparseSession): SolveStructure;
  direct?: DirectPlan;
  /** a Chebyshev plan rt.solve made (its Lanczos bounds: 20 host SpMVs, ≈ 0.5 s for 2 M rows), kept for the next solve */
  chebyshev?: PreconditionerPlan;
  /** the same on a GPU path (chebyshevPlan) */
  chebyshevGpu?: PreconditionerPlan;
  /** A's inverse diagonal where it is one value, else null (constantInverseDiagonal), once per matrix */
  inverseDiagonalValue?: number | null;
  /**
   * A GPU path's host DIA copy of A (its upload's source, else garbage), offered before the structure
   * pass: that pass and the inverse diagonal read it; rt.solve drops it once its preconditioner is made
   */
  pathCopy?: DIAMatrix;
  /** keeps `copy` as pathCopy where the structure is still to make and it is DIA (a scaled copy's entry has none) */
  offer?(copy: SparseMatrix): void;
  /** the copy a solve runs, scaled by 2^-e (solveMatrixOn); null where A needs none */
  gpuScaled?: { h: MatrixHandle; csr: CSRMatrix; e: number } | null;
  /**
   * 'auto''s Krylov solves of A so far (their count and wall ms), the factorization planned for the
   * rent-or-buy rule once they cost its ordering (planMs: what the ordering took), or `never` where it
   * cannot pay or failed (Runtime.directAgain)
   */
  again?: { solves: number; spentMs: number; planMs?: number; plan?: DirectPlan; never?: () => string };
  /** the f64 twin of the solve copy `of` (solveMatrixWide), where an f32 solve fell back to it */
  wide?: { of: CSRMatrix; h: MatrixHandle; csr: CSRMatrix };
}
