/** The WebGL2 GPU path: context and capabilities, texture encoding, the GPU backend. */
export { GpuBackend, type GpuBackendOptions, type GpuUnavailable, type GpuSpmvOptions, type GpuStats, type GpuUploadOptions, type GpuVectorOptions } from './backend.js';
export { GpuMatrix, GpuVector, type HostMatrix } from './resident.js';
export { acquireContext, probeCapabilities, type GpuCapabilities, type GpuCanvas, type ContextOptions } from './context.js';
export { layoutFor, layoutLimits, floatsPerElement, MAX_TEXELS, type TileLayout, type LayoutLimits } from './encoding.js';
export { GpuContextLostError, GpuLimitError, GpuUnavailableError } from './errors.js';
export { GpuDense, type GpuGemmOptions, type GpuAddOptions, type GpuTransposeOptions, type DenseLayout } from './dense.js';
