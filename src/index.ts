/**
 * simdgl — sparse and dense numerical kernels for the web: SpMV in every classic storage format,
 * BLAS-1, dense gemm/add/transpose and linear solvers (CG, BiCGSTAB, GMRES, MINRES with preconditioners), on WebAssembly SIMD over a worker pool, WebGPU or
 * WebGL2. README.md and the guides of docs/ are the user's guide (install, bundlers, concepts,
 * performance); this is the reference.
 *
 * Start with {@link createRuntime}, upload a matrix with {@link Runtime.upload} and run
 * {@link Runtime.spmv}, {@link Runtime.solve} or the dense operations; {@link Runtime.explain} says where
 * and in which format an operation runs. Matrices are instances of the format classes
 * ({@link CSRMatrix} is the hub, {@link convert} goes between any two), read from Matrix Market text
 * ({@link readMatrixMarket}) or generated ({@link poisson3D}, {@link randomMatrix}). Bad input gets a
 * typed error ({@link SimdglError} and its subclasses) that says what and where.
 *
 * @packageDocumentation
 */
export { createRuntime, Runtime } from './runtime/runtime.js';
export type { RuntimeOptions, Backend, Capabilities, SpmvOptions, SpgemmOptions, UploadOptions, VectorLike, SolveOptions, GmresOptions, AutoSolveOptions, ExplainSolveOptions, SolveOutcome } from './runtime/options.js';
export type { Preconditioner, StopReason } from './solvers/ops.js';
export type { PreconditionerKind, PreconditionerOptions } from './solvers/precond/index.js';
export type { AmgOptions, AmgSmoother } from './solvers/amg/hierarchy.js';
export type { AmgInfo } from './solvers/amg/info.js';
export type { SolveMethod, SolveCandidate, SolveExplanation, DirectEstimate } from './solvers/solve.js';
export type { TrueSolveResult } from './solvers/true-residual.js';
export type { SolveStructure } from './solvers/structure.js';
export { PreconditionerHandle } from './runtime/preconditioner.js';
export type { GpuCanvas } from './gpu/context.js';
export type { WebGpuPathOptions } from './webgpu/path.js';
export type { GpuBufferOptions, GpuBufferLayout } from './runtime/gpu-buffers.js';
export type { GemmOptions, AddOptions, DenseLike } from './runtime/dense-ops.js';
export type { Explanation } from './runtime/explain.js';
export type { Calibration, PathCalibration, PathEstimate } from './runtime/cost.js';
export type { MatrixFeatures } from './runtime/features.js';
export type { PathId, PathChoice, PathCapabilities, DenseShape } from './path.js';
export { GpuContextLostError, GpuLimitError } from './gpu/errors.js';
export { WebGpuDeviceLostError, WebGpuLimitError, WebGpuUnavailableError } from './webgpu/errors.js';
export { MatrixHandle, ResidentVector, DenseHandle } from './runtime/handles.js';
export { WorkerError } from './cpu/pool.js';
export type { CacheTilesOption } from './cpu/tiles.js';
export type { CsrLayoutKind } from './cpu/csr-layout.js';
export type { Op } from './backend-types.js';
export * from './formats/index.js';
export * from './io/index.js';
export * from './generators/index.js';
export * from './errors.js';
export { setMemoryBudget, memoryBudgetMB } from './memory-budget.js';
export { Factorization } from './solvers/direct/factorization.js';
export type { FactorKind, FactorOptions, FactorSolveOptions, FactorSolveResult, FactorInfo } from './solvers/direct/factor.js';
export type { FactorEstimate } from './solvers/direct/plan.js';
export type { OrderingName } from './solvers/direct/analysis.js';
export type { FactorCost } from './solvers/direct/symbolic.js';
export { DTYPES, isComplex, type DType, type Scalar, type ValueArray } from './dtype.js';
