import { SimdglError } from '../errors.js';

/**
 * Data that does not fit one WebGPU storage buffer binding (the device's maxStorageBufferBindingSize),
 * or a buffer the device refused (code `E_GPU_LIMIT`, the code of the WebGL2 path's
 * {@link GpuLimitError}: switch on the code to handle either path's limit).
 *
 * @example
 * ```js
 * // One code for both GPU paths' limits: a program switches on it
 * import { WebGpuLimitError, GpuLimitError, SimdglError } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * const e = new WebGpuLimitError('x needs 3 GB, the device binds at most 2 GB');
 * assert.ok(e instanceof SimdglError);
 * assert.equal(e.code, new GpuLimitError('').code);          // 'E_GPU_LIMIT'
 * ```
 */
export class WebGpuLimitError extends SimdglError {
  /** The class's name, literal so that minified bundles report it too. */
  override name = 'WebGpuLimitError';
  /**
   * Makes the error (simdgl throws it; a program rarely needs to).
   * @param message the limit and the request that exceeds it
   */
  constructor(message: string) {
    super('E_GPU_LIMIT', message);
  }
}

/**
 * The WebGPU path cannot run here (code `E_GPU_UNAVAILABLE`): no navigator.gpu and no `webgpu`
 * package, no adapter, … The runtime reports it as a {@link GpuUnavailableError} (same code) when a
 * forced WebGPU path cannot start; the WebGPU backend throws this one.
 *
 * @example
 * ```js
 * import { WebGpuUnavailableError, GpuUnavailableError } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * const e = new WebGpuUnavailableError('requestAdapter() returned null');
 * assert.equal(e.code, new GpuUnavailableError('').code);    // 'E_GPU_UNAVAILABLE'
 * assert.equal(e.name, 'WebGpuUnavailableError');
 * ```
 */
export class WebGpuUnavailableError extends SimdglError {
  /** The class's name, literal so that minified bundles report it too. */
  override name = 'WebGpuUnavailableError';
  /**
   * Makes the error (simdgl throws it; a program rarely needs to).
   * @param message why the path cannot run
   */
  constructor(message: string) {
    super('E_GPU_UNAVAILABLE', message);
  }
}

/**
 * The GPUDevice was lost (code `E_GPU_LOST`, the code of the WebGL2 path's {@link GpuContextLostError}).
 * Pending read-backs reject with it and every call forced onto the WebGPU path throws it until a new
 * device is obtained; with `backend: 'auto'` the runtime runs on the other paths meanwhile.
 *
 * @example
 * ```js
 * // Handle a lost device of either GPU path by its code
 * import { WebGpuDeviceLostError } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * const e = new WebGpuDeviceLostError();
 * assert.equal(e.code, 'E_GPU_LOST');
 * assert.match(e.message, /device is lost/);
 * ```
 */
export class WebGpuDeviceLostError extends SimdglError {
  /** The class's name, literal so that minified bundles report it too. */
  override name = 'WebGpuDeviceLostError';
  /**
   * Makes the error (simdgl throws it; a program rarely needs to).
   * @param message what was interrupted
   */
  constructor(message = 'the WebGPU device is lost; calls fail until a new device is obtained') {
    super('E_GPU_LOST', message);
  }
}
