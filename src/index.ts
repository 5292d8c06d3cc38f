/**
 * simdgl — sparse and dense numerical kernels for the web. See README.md for the guide.
 */
export { createRuntime, Runtime } from './runtime/runtime.js';
export type { RuntimeOptions, Capabilities, SpmvOptions, UploadOptions, VectorLike } from './runtime/runtime.js';
export { MatrixHandle, ResidentVector } from './runtime/handles.js';
export { WorkerError } from './cpu/pool.js';
export type { Op } from './backend-types.js';
export * from './formats/index.js';
export * from './io/index.js';
export * from './generators/index.js';
export * from './errors.js';
export { DTYPES, isComplex, type DType, type Scalar, type ValueArray } from './dtype.js';
