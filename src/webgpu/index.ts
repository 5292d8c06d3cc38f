/** The WebGPU path: device acquisition, WGSL kernels over storage buffers, the WebGPU backend. */
export { WebGpuBackend, type WebGpuBackendOptions, type WebGpuUnavailable, type WebGpuSpmvOptions, type WebGpuStats, type WebGpuVectorOptions } from './backend.js';
export { WebGpuMatrix, WebGpuVector, type HostMatrix } from './resident.js';
export { WebGpuDense, type WebGpuGemmOptions, type WebGpuAddOptions, type WebGpuTransposeOptions } from './dense.js';
export { type WebGpuCapabilities, type DeviceOptions } from './device.js';
export { chooseCsrKernel, type CsrKernel, type WebGpuUploadOptions } from './spmv.js';
export { WebGpuDeviceLostError, WebGpuLimitError, WebGpuUnavailableError } from './errors.js';

// Headless Chromium (Debian's /usr/bin/chromium, SwiftShader) gives a WebGPU adapter with
//   --enable-unsafe-webgpu --use-webgpu-adapter=swiftshader
// (checked also with --enable-features=Vulkan --use-vulkan=swiftshader --use-angle=swiftshader added:
// still an adapter, 'subgroups' and 'timestamp-query' offered). navigator.gpu exists only in a
// secure context: serve the page from http://localhost, not about:blank.
