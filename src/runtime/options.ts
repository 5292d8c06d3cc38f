import type { DType, Scalar, ValueArray } from '../dtype.js';
import type { Op } from '../backend-types.js';
import type { AstypeOptions, ConvertOptions, FormatName } from '../formats/index.js';
import type { GpuCanvas } from '../gpu/index.js';
import type { WebGpuPathOptions } from '../webgpu/path.js';
import type { SolveOptions as SolverOptions } from '../solvers/ops.js';
import type { PreconditionerKind, PreconditionerOptions } from '../solvers/precond/index.js';
import type { SolveMethod } from '../solvers/solve.js';
import type { TrueSolveResult } from '../solvers/true-residual.js';
import type { PreconditionerHandle } from './preconditioner.js';
import type { FactorInfo } from '../solvers/direct/factor.js';
import type { Calibration } from './cost.js';
import type { PathCapabilities, PathChoice, PathId } from '../path.js';
import type { ResidentVector } from './handles.js';
import type { CSRMatrix } from '../formats/csr.js';
import { optionKeys } from '../options-check.js';
import type { CacheTilesOption } from '../cpu/tiles.js';

/** The options and results of the public Runtime (src/runtime/runtime.ts). */

/** The backend option: 'auto', one path, or 'gpu' (the best GPU path available). */
export type Backend = 'auto' | PathChoice;

/** Options of {@link createRuntime}. */
export interface RuntimeOptions {
  /**
   * 'auto' (default): each operation runs on the path estimated fastest (see explain) among those
   * available; 'cpu', 'webgpu' or 'webgl2' force one path; 'gpu' forces the best GPU path available
   * (WebGPU, else WebGL2). A forced GPU path that cannot run here throws GpuUnavailableError with the
   * reason; 'auto' simply leaves it out.
   */
  backend?: Backend;
  /** the WebGL2 path draws on this canvas (HTMLCanvasElement or OffscreenCanvas; default: its own OffscreenCanvas, or a canvas element where OffscreenCanvas has no WebGL2, as in WebKit) */
  canvas?: GpuCanvas;
  /** or on this WebGL2 context (any WebGL2 implementation, e.g. in Node) */
  gl?: WebGL2RenderingContext;
  /**
   * where the WebGPU path's device comes from: a GPU object (navigator.gpu, a Dawn instance) or a
   * GPUDevice. Default: navigator.gpu; in Node, the optional `webgpu` package (Dawn) only under
   * backend 'webgpu' or 'gpu' — under 'auto', hand in `{ gpu: create([]) }` from 'webgpu' to use it.
   */
  webgpu?: WebGpuPathOptions;
  /** WebAssembly SIMD: 'auto' (default) detects it, false forces the plain build */
  simd?: boolean | 'auto';
  /** the most memory the CPU path may use, in MiB (default 2048, at most 4096) */
  maxMemoryMB?: number;
  /**
   * Threads that compute on the CPU path, the calling thread included: a number, or 'auto' for the
   * cores the engine reports (os.availableParallelism() in Node, navigator.hardwareConcurrency in
   * browsers). Default 'auto' where threads can share memory (Node; cross-origin isolated pages), else 1,
   * with the reason in capabilities().notes.
   */
  workers?: number | 'auto';
  /**
   * operations whose cost (entries + rows, or elements) is below this run on the calling thread alone,
   * the others on the pool; 'auto' (default): each SpMV and vector kernel goes where it measures faster
   * on this machine, per size (docs/paths-and-runtime.md), other operations by 32768
   */
  inlineThreshold?: number | 'auto';
  /**
   * how long an idle worker spins before it sleeps on Atomics.wait, in µs (default 200); also the most the
   * calling thread spins for its workers after its own chunk (as long as that chunk took) before it blocks
   */
  spinUs?: number;
  /** a call on the pool still running after this many ms rejects with WorkerError (default 60000; 0 = never) */
  timeoutMs?: number;
  /** a calibration saved from rt.calibrate() on this machine, so none has to run */
  calibration?: Calibration;
  /**
   * CSR in cache tiles on the CPU path (large irregular matrices whose columns scatter, see the
   * README): 'auto' (default) where the rule applies, with the measured band height and tile width;
   * false never (CSR runs row by row and format 'auto' picks JDS for such matrices); { rows, cols }
   * where the rule applies, with this band height and tile width (each 1 to 65536).
   */
  cacheTiles?: CacheTilesOption;
}

/** What {@link Runtime.capabilities} reports: the kernel build, threads, shared memory and every path. */
export interface Capabilities {
  /** the kernel build in use */
  wasm: 'simd' | 'plain';
  /** whether the engine validates WebAssembly SIMD */
  simd: boolean;
  /** whether the runtime's memory is a shared WebAssembly.Memory */
  sharedMemory: boolean;
  /** number of threads operations run on (the calling thread included) */
  threads: number;
  /** whether a pool of workers is running */
  workers: boolean;
  /** in a browser: whether the page is cross-origin isolated (undefined in Node) */
  crossOriginIsolated?: boolean;
  /** the backend option the runtime was created with */
  backend: Backend;
  /** every path: whether it can run here (and why not), its device and limits */
  paths: Record<PathId, PathCapabilities>;
  /**
   * the best GPU path (WebGPU, else WebGL2): `path` says which, with its device as `renderer`, its
   * limits spread in (WebGL2: maxTextureSize, colorBufferFloat, floatBlend, floatReadback) and
   * `contextLost` while its device is lost; or why there is none
   */
  gpu: PathCapabilities & {
    /** which path this is */
    path?: PathId;
    /** its device: the GPU renderer or adapter */
    renderer?: string;
    /** whether its device is lost right now */
    contextLost?: boolean;
    /** WebGL2: the largest texture side */
    maxTextureSize?: number;
    /** WebGL2: whether float render targets exist (EXT_color_buffer_float) */
    colorBufferFloat?: boolean;
    /** WebGL2: whether float render targets blend (EXT_float_blend) */
    floatBlend?: boolean;
    /** WebGL2: whether floats can be read back exactly */
    floatReadback?: boolean;
  };
  /** human-readable notes on what is missing and why */
  notes: string[];
}

/** A vector operand: a typed array (copied in and out per call) or a resident vector (used in place). */
export type VectorLike = ValueArray | ResidentVector;

/** Options of {@link Runtime.spmv}: y = α·op(A)·x + β·y. */
export interface SpmvOptions<Y extends VectorLike | undefined = VectorLike | undefined> {
  /** output vector; when a typed array is given it is updated in place and returned */
  y?: Y;
  /** default 1 */
  alpha?: Scalar;
  /** default 0 (y is then not read, so it may hold anything) */
  beta?: Scalar;
  /** 'N' (default), 'T' or 'H' (conjugate transpose) */
  op?: Op;
  /** run on this path instead of the runtime's choice ('gpu': the best GPU path) */
  path?: PathChoice;
}

/** Options of {@link Runtime.spgemm}. */
export interface SpgemmOptions {
  /**
   * a CSRMatrix to write the product into, returned: of the product's shape, dtype and number of
   * entries (an earlier product of operands with the same patterns, as in a loop of products whose
   * values change). Its arrays are overwritten in place, so no fresh memory is touched.
   */
  out?: CSRMatrix;
}

/**
 * Options of rt.cg / rt.bicgstab / rt.minres: the solvers' own (tol, maxIter, onIteration, signal,
 * checkEvery; see src/solvers/ops.ts) with the initial guess as a typed array, plus the preconditioner
 * and the path.
 */
export interface SolveOptions extends Omit<SolverOptions<never>, 'x0' | 'rhsNorm'> {
  /** initial guess (default zero): vector data or a resident vector, read once at the start */
  x0?: VectorLike | ArrayLike<number>;
  /**
   * a preconditioner kind set up for this solve ('none', the default of rt.cg/bicgstab/gmres/minres;
   * 'auto' chooses as rt.solve does), or one made by rt.preconditioner(A, …) and reused
   */
  preconditioner?: PreconditionerKind | 'auto' | PreconditionerHandle;
  /** run on this path instead of the runtime's choice ('gpu': the best GPU path) */
  path?: PathChoice;
  /**
   * true (default): a factor or preconditioner the solve sets up (a kind, not a handle) is kept with A
   * and used again by A's next solve that needs the same — a time-stepping loop's set-up is paid once
   * ({@link SolveOutcome.reused}); A's dispose() frees it. false: this solve sets up its own and keeps
   * nothing (what an earlier solve kept stays).
   */
  reuse?: boolean;
}

/** Options of rt.gmres: those of every method plus the restart length. */
export interface GmresOptions extends SolveOptions {
  /** Krylov vectors per cycle before a restart (default 30) */
  restart?: number;
}

/** Options of rt.solve and explain('solve'): the method, whether A is known positive definite, and GMRES's restart. */
export interface AutoSolveOptions extends GmresOptions {
  /** 'auto' (default) chooses from the matrix: a direct factorization where its estimated cost is affordable, else CG, MINRES or GMRES (see explain('solve')); 'direct' factorizes (on the host) whatever it costs */
  method?: SolveMethod | 'auto' | 'direct';
  /** the caller knows A is Hermitian positive definite: CG without the symmetry check's verdict */
  spd?: boolean;
}

/** Options of explain('solve', A): the choices rt.solve would be given. */
export interface ExplainSolveOptions {
  /** the method rt.solve would be given ('auto': chosen from the matrix) */
  method?: SolveMethod | 'auto' | 'direct';
  /** the preconditioner rt.solve would be given ('auto': chosen from the matrix and the path) */
  preconditioner?: PreconditionerKind | 'auto';
  /** the caller would say A is Hermitian positive definite */
  spd?: boolean;
  /** the path the solve would be asked to run on */
  path?: PathChoice;
}

/**
 * The outcome of a solve. `x` is the answer accumulated in f64 and the residuals are what it satisfies:
 * ‖b − A·x‖ recomputed in f64 from x at the end, whatever the matrix's precision.
 */
export interface SolveOutcome extends TrueSolveResult {
  /** the method that ran ('direct': a sparse factorization on the host, see `factor`) */
  method: SolveMethod | 'direct';
  /** the factorization that ran, for method 'direct' (kind, ordering, fill, flops, time per phase) */
  factor?: FactorInfo;
  /** why 'auto' left its factorization for the Krylov candidates (a singular factor, a residual above tol), when it did */
  directFallback?: string;
  /**
   * Where an f32 / c64 matrix's solve went on in f64: its f32 corrections stagnated (A's condition beyond
   * what they resolve, ≈ 10⁷ and up), so the same method ran on A's values widened to f64 (exact) from
   * that iterate, within the same maxIter and signal — why, and where the f32 solve had got to. `iterations`,
   * `history` and `refinements` count both.
   */
  precisionFallback?: string;
  /**
   * Where 'auto''s first method gave way to its second with the iterate it had: BiCGSTAB's recurrence met
   * tol while its true residual did not (it stagnated), and GMRES(30) went on from its x within the same
   * maxIter and signal — why, and where BiCGSTAB had got to. `iterations`, `history` and `refinements` count both.
   * Also where 'auto''s last Krylov candidate ended without an answer (stagnated above f64's rounding, broke
   * down, past the default maxIter) and A's factorization was tried after it: what the Krylov solve ended at,
   * and whether the factorization answered (the outcome is then its own, method 'direct') or why not.
   */
  methodFallback?: string;
  /** the preconditioner that ran ('none' for method 'direct') */
  preconditioner: PreconditionerKind;
  /** the preconditioner in words: its parameters, any diagonal shift it needed, how the path applied it */
  preconditionerDetail: string;
  /** the path the solve ran on */
  path: PathId;
  /**
   * What an earlier solve of A set up and kept with it (the `reuse` option), used again here: its direct
   * factor (method 'direct'; `factor` says how long it took to make) or its preconditioner; absent
   * where this solve set up its own.
   */
  reused?: 'factor' | 'preconditioner';
  /**
   * Where the Krylov solve ran on a copy of A scaled by 2^matrixExponent (exact in binary; A's largest
   * |aᵢⱼ| outside 2^±16 on a GPU path, 2^±128 on the CPU path): that power. x and the residuals are A's.
   */
  matrixExponent?: number;
}

/** Options of {@link Runtime.upload}: the storage format, and the conversion options of {@link convert}. */
export interface UploadOptions extends ConvertOptions {
  /**
   * The storage format on the CPU path. 'auto' (default) chooses from the matrix's features, as
   * explain says (each GPU path then chooses its own); 'keep' keeps the format the matrix arrives in
   * (readMatrixMarket gives COO); a format name converts to it.
   */
  format?: FormatName | 'auto' | 'keep';
  /** convert the values to this dtype on the way (real → complex sets im = 0; complex → real is refused) */
  dtype?: DType;
  /**
   * With `dtype` 'f32' or 'c64': what a value f32 cannot hold does, as in `astype` — `'throw'` (default)
   * an InputRangeError naming the first such entry, `'round'` IEEE rounding (±Infinity, 0).
   */
  outOfRange?: AstypeOptions['outOfRange'];
}

/*
 * The keys of every options object of the public Runtime, checked against the interfaces at compile
 * time (optionKeys): an unknown key is an OptionError naming the nearest valid one, never ignored.
 */
export const RUNTIME_OPTION_KEYS = optionKeys<RuntimeOptions>({
  backend: true, canvas: true, gl: true, webgpu: true, simd: true, maxMemoryMB: true, workers: true,
  inlineThreshold: true, spinUs: true, timeoutMs: true, calibration: true, cacheTiles: true,
});
export const WEBGPU_OPTION_KEYS = optionKeys<WebGpuPathOptions>({ gpu: true, device: true, powerPreference: true });
export const SPGEMM_OPTION_KEYS = optionKeys<SpgemmOptions>({ out: true });
export const UPLOAD_OPTION_KEYS = optionKeys<UploadOptions>({ format: true, dtype: true, outOfRange: true, maxFill: true, maxSlots: true, width: true, sliceHeight: true, sortWindow: true });
export const SPMV_OPTION_KEYS = optionKeys<SpmvOptions>({ y: true, alpha: true, beta: true, op: true, path: true });
const SOLVE_KEYS = { x0: true, tol: true, maxIter: true, onIteration: true, signal: true, checkEvery: true, preconditioner: true, path: true, reuse: true } as const;
export const SOLVE_OPTION_KEYS = optionKeys<SolveOptions>(SOLVE_KEYS);
export const GMRES_OPTION_KEYS = optionKeys<GmresOptions>({ ...SOLVE_KEYS, restart: true });
export const AUTO_SOLVE_OPTION_KEYS = optionKeys<AutoSolveOptions>({ ...SOLVE_KEYS, restart: true, method: true, spd: true });
export const PRECONDITIONER_OPTION_KEYS = optionKeys<PreconditionerOptions & { path?: PathChoice }>({ kind: true, omega: true, blockSize: true, degree: true, amg: true, path: true });
export const DOT_OPTION_KEYS = optionKeys<{ conj?: boolean }>({ conj: true });
export const EXPLAIN_SOLVE_OPTION_KEYS = optionKeys<ExplainSolveOptions>({ method: true, preconditioner: true, spd: true, path: true });
export const EXPLAIN_OPTION_KEYS = optionKeys<{ format?: FormatName; x?: VectorLike; readBack?: boolean }>({ format: true, x: true, readBack: true });
