import { SimdglError } from '../errors.js';

/**
 * Data that does not fit one WebGPU storage buffer binding (the device's maxStorageBufferBindingSize),
 * or a buffer the device refused. Same code as the WebGL2 path's GpuLimitError.
 */
export class WebGpuLimitError extends SimdglError {
  /** The class's name, literal so that minified bundles report it too. */
  override name = 'WebGpuLimitError';
  constructor(message: string) {
    super('E_GPU_LIMIT', message);
  }
}

/** The WebGPU path cannot run here (no navigator.gpu and no `webgpu` package, no adapter, ...). */
export class WebGpuUnavailableError extends SimdglError {
  /** The class's name, literal so that minified bundles report it too. */
  override name = 'WebGpuUnavailableError';
  constructor(message: string) {
    super('E_GPU_UNAVAILABLE', message);
  }
}

/**
 * The GPUDevice was lost. Pending read-backs reject with it and every call throws it until a new
 * device is obtained (WebGpuBackend.onContextRestored); same code as the WebGL2 path's GpuContextLostError.
 */
export class WebGpuDeviceLostError extends SimdglError {
  /** The class's name, literal so that minified bundles report it too. */
  override name = 'WebGpuDeviceLostError';
  constructor(message = 'the WebGPU device is lost; calls fail until a new device is obtained') {
    super('E_GPU_LOST', message);
  }
}
