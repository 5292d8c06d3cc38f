/**
 * The path interface: what an execution path (the wasm pool in cpu/, WebGL2 in gpu/, WebGPU in
 * webgpu/) offers the runtime. Each folder implements it once (its path.ts); the runtime only
 * chooses a path per operation (from each path's cost profile), moves data between paths through the
 * host (read on one, vector/write on the other) and explains. Paths never import each other, and
 * this module imports no path, so a new path is one new folder plus one line in runtime/paths.ts.
 *
 * Resident objects (PathMatrix, PathVector, PathDense) are opaque to the runtime: it hands a path only
 * objects that path made. A path that loses its device (a WebGL context, a GPUDevice) reports it
 * through `usable`/onLost, rejects calls with its typed error (lostError) until onRestored, and
 * re-uploads its matrices itself when it gets a device back; vector and dense contents written only
 * there are gone, which the runtime tracks (see runtime/handles.ts).
 */
import type { DType, Scalar, ValueArray } from './dtype.js';
import type { SpmvScalars } from './backend-types.js';
import type { FormatName, SparseMatrix } from './formats/index.js';
import type { DenseMatrix } from './formats/dense.js';
import type { Preconditioner, SolverOps } from './solvers/ops.js';
import type { MatrixFeatures } from './runtime/features.js';

/** The paths there are, in the order the runtime prefers them among GPU paths (webgpu first). */
export const PATH_IDS = ['cpu', 'webgpu', 'webgl2'] as const;
/**
 * An execution path: `'cpu'` (WebAssembly kernels on the worker pool, always there), `'webgpu'` (WGSL
 * compute shaders) or `'webgl2'` (fragment shaders over float textures).
 * @useDeclaredType
 */
export type PathId = (typeof PATH_IDS)[number];
/** What a caller may ask for: a path, or 'gpu' = the best GPU path available (webgpu, else webgl2). */
export type PathChoice = PathId | 'gpu';
/** The class of hardware: it selects the format rules (runtime/features.ts) and whether transfers cost. */
export type PathKind = 'cpu' | 'gpu';

/**
 * What a short calibration measured for one path: the fixed cost of an operation (dispatch, draw
 * call, synchronisation) and the rate at which SpMV streams bytes, plus for device paths the rates of
 * uploads and read-backs. A calibration can be saved (JSON) and passed back to createRuntime.
 */
export interface PathCalibration {
  /** fixed cost of one operation in ms (dispatch, draw call, synchronisation) */
  overheadMs: number;
  /** bytes SpMV streams per second, in GB/s (from a working set that fits in cache where memoryGBs is given) */
  bandwidthGBs: number;
  /** the CPU path's rate beyond cache, in GB/s: bytes past cacheBytes go at this rate (absent: bandwidthGBs throughout) */
  memoryGBs?: number;
  /** the working set, in bytes, up to which bandwidthGBs holds (with memoryGBs) */
  cacheBytes?: number;
  /** device paths: host-to-device copy rate in GB/s */
  uploadGBs?: number;
  /** device paths: device-to-host read-back rate in GB/s */
  readbackGBs?: number;
  /** the device measured (renderer, adapter), for paths that have one */
  device?: string;
}

/** One path's estimate of an operation (runtime/cost.ts computes it from the path's CostProfile). */
export interface PathEstimate {
  /** the path estimated */
  path: PathId;
  /** the storage format the path would run the matrix in */
  format: FormatName;
  /** estimated milliseconds, all included: `overheadMs + kernelMs + transferMs` */
  ms: number;
  /** the kernel's term: bytes / (bandwidth × the format's efficiency on this path) */
  kernelMs: number;
  /** the fixed cost of an operation on this path */
  overheadMs: number;
  /** the cost of moving what is not resident there (see `transfers`) */
  transferMs: number;
  /** bytes one product moves: the matrix's arrays, x once and y once */
  bytes: number;
  /** what the transfer term pays for (nothing when the data is resident there) */
  transfers: string[];
}

/** The numbers a path gives the cost model: estimate = overhead + bytes / (bandwidth · efficiency) + transfers. */
export interface CostProfile {
  readonly kind: PathKind;
  /** the figures used before rt.calibrate() has measured this machine */
  readonly defaults: PathCalibration;
  /** share of the streaming bandwidth each format's SpMV kernel reaches here (absent: 1; a format without an entry: CSR's) */
  readonly efficiency?: Partial<Record<FormatName, number>>;
  /**
   * the path keeps an f64 DIA matrix whose values are all exactly f32 as f32 (the CPU path,
   * src/cpu/spmv-plan.ts): its estimates count those values at 4 bytes
   */
  readonly compactDia?: boolean;
  /**
   * The format this path runs a matrix in unless the caller named one, when its own kernel choice
   * inside that format already adapts to the matrix (WebGPU's CSR upload picks row, vector, adaptive
   * or SELL kernels per matrix), from the matrix's features; absent: the shared rules of
   * runtime/features.ts chooseFormat.
   */
  readonly prefers?: (f: MatrixFeatures) => { format: FormatName; reason: string };
}

/** What a path offers on this machine (rt.capabilities().paths has one per path id). */
export interface PathCapabilities {
  /** whether the path can run here */
  available: boolean;
  /** why the path is unavailable, or lost */
  reason?: string;
  /** the device (context, adapter) is lost right now; operations run elsewhere ('auto') until it is back */
  lost?: boolean;
  /** the device: GPU renderer / adapter, or the CPU kernel build */
  device?: string;
  /** the device's vendor, where the path reports one */
  vendor?: string;
  /** path-specific figures: texture and buffer limits, float extensions, threads, … */
  limits?: Record<string, number | boolean | string>;
}

/** A sparse matrix resident on a path, in one format. */
export interface PathMatrix {
  readonly format: FormatName;
  /** whether op = 'T' / 'H' products can run on it (else the runtime uploads it again with { transpose: true }) */
  readonly hasTranspose: boolean;
  dispose(): void;
}

/** A vector resident on a path. */
export interface PathVector {
  readonly dtype: DType;
  /** elements (a complex element counts once) */
  readonly length: number;
  dispose(): void;
}

/** A row-major dense matrix resident on a path. */
export interface PathDense {
  readonly dtype: DType;
  readonly rows: number;
  readonly cols: number;
  dispose(): void;
}

/** The shape of a zero-filled dense matrix, as `rt.dense({ dtype, rows, cols })` takes it. */
export interface DenseShape {
  /** element type */
  dtype: DType;
  /** number of rows */
  rows: number;
  /** number of columns */
  cols: number;
}

/**
 * One execution path. M, V and D are the path's own resident types; the runtime stores them as the
 * interfaces above and gives each back only to the path that made it.
 */
export interface Path<M extends PathMatrix = PathMatrix, V extends PathVector = PathVector, D extends PathDense = PathDense> {
  readonly id: PathId;
  /** for messages: 'CPU', 'WebGL2', 'WebGPU' */
  readonly label: string;
  /** sparse formats this path has kernels for; the runtime runs other formats here as CSR */
  readonly formats: readonly FormatName[];
  readonly cost: CostProfile;
  /** the kernel a format of `formats` runs with here, in words (for rt.explain), where the path has several */
  kernelFor?(format: FormatName, f: MatrixFeatures): string;

  // ---- state: capabilities, loss and restore --------------------------------------------------
  capabilities(): PathCapabilities;
  /** false while the device is lost */
  readonly usable: boolean;
  /** the typed error an operation gets while the path is lost (GpuContextLostError, …), saying `what` */
  lostError(what: string): Error;
  /** calls cb after a loss (pending calls already rejected); returns an unsubscribe function */
  onLost(cb: () => void): () => void;
  /** calls cb when the device is back and resident matrices are uploaded again */
  onRestored(cb: () => void): () => void;
  /**
   * Loads what the path's kernels need (a GPU path's shader sources) the first time; the runtime
   * awaits it before the first operation there, never to probe or explain, so a page whose work stays
   * elsewhere does not load them. Absent: nothing to load.
   */
  prepare?(): Promise<void>;
  /**
   * Starts making, in the background, what the path's sparse products of `dtype` need on their first
   * run (a GPU path's pipelines), for matrices a host computation is about to make and upload (an AMG
   * hierarchy: its cycle's operators), so that work overlaps with the host's. Absent: nothing to make.
   */
  prewarmSparse?(dtype: DType): void;

  // ---- residency --------------------------------------------------------------------------------
  /** uploads a sparse matrix (a format of `formats`); with transpose, op T/H products can run on it */
  matrix(A: SparseMatrix, options: { transpose: boolean }): M;
  /** a vector from data (copied in) or of `length` zeros */
  vector(dtype: DType, data: ValueArray | number): V;
  /** the contents (interleaved re/im); may be a view valid until the next allocation on this path: copy to keep */
  read(v: V): Promise<ValueArray>;
  /** overwrites the contents */
  write(v: V, data: ValueArray): void;
  /** a dense matrix from a host one (copied in) or of zeros */
  dense(A: DenseMatrix | DenseShape): D;
  /** the dense matrix's contents on the host: written into `into` when given, else a new DenseMatrix */
  readDense(A: D, into?: DenseMatrix): Promise<DenseMatrix>;
  /** overwrites a dense matrix's contents from the host */
  writeDense(A: D, from: DenseMatrix): void;
  /** paths on a GPUDevice (WebGPU): a vector over a caller's buffer of that device, checked, not copied, never destroyed by the path */
  wrapBuffer?(buffer: GPUBuffer, dtype: DType, length: number): Promise<V>;
  /** paths on a GPUDevice: the buffer that holds v, with the work recorded so far submitted (see src/webgpu/interop.ts for the layout) */
  bufferOf?(v: V): GPUBuffer;

  // ---- operations (operands checked by the runtime: shapes, dtypes, ownership) -----------------
  /**
   * y ← α·op(A)·x + β·y. x and y may be the same vector (y ← A·y): the result is the one for x read
   * whole before y is written (a path whose kernels would read rows already written copies x first).
   * The same holds for axpy, aypx and copy with x = y.
   */
  spmv(A: M, x: V, y: V, s: SpmvScalars): Promise<void>;
  axpy(alpha: [number, number], x: V, y: V): Promise<void>;
  aypx(alpha: [number, number], x: V, y: V): Promise<void>;
  scal(alpha: [number, number], x: V): Promise<void>;
  copy(x: V, y: V): Promise<void>;
  /** Σ xᵢ·yᵢ as [re, im] (conj: conjugates x) */
  dot(x: V, y: V, conj: boolean): Promise<[number, number]>;
  nrm2(x: V): Promise<number>;
  /** C ← α·A·B + β·C (β = 0: C is not read) */
  gemm(A: D, B: D, C: D, options: { alpha: number; beta: number; naive: boolean }): Promise<void>;
  /** C ← α·A + β·B */
  add(A: D, B: D, C: D, options: { alpha: Scalar; beta: Scalar }): Promise<void>;
  /** B ← Aᵀ */
  transpose(A: D, B: D): Promise<void>;
  /** the Krylov solvers' operations on A (host: its host matrix, for the Jacobi diagonal) */
  solverOps(A: M, host: SparseMatrix, preconditioner: Preconditioner): SolverOps<V> & { dispose(): void };

  /** measures this path on two f64 Poisson matrices (small: the fixed cost; large: the bandwidth) */
  calibrate(small: SparseMatrix, large: SparseMatrix): Promise<PathCalibration>;
  dispose(): void;
}

/** How a path is made: the runtime's registry (runtime/paths.ts) holds one per path id. */
export interface PathFactory<O> {
  readonly id: PathId;
  readonly label: string;
  /** the path, or why it cannot run here (never throws for a missing device) */
  create(options: O): Promise<Path | { reason: string }>;
}
