// The names of the TF.js interop page's checks (test/browser/tfjs-page.ts), shared with the Node side
// (test/browser-tfjs.test.ts), which turns each into one vitest test. No DOM and no TF.js here.
export const TFJS_CHECKS = [
  "tfjs: a runtime on TF.js's GPUDevice",
  'tfjs: tensor → fromGPUBuffer → spmv → gpuBuffer → tensor, no read-back',
  "tfjs: typed errors for TF.js's buffers, and TF.js runs on after rt.dispose()",
] as const;
