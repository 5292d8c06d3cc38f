import { SimdglError } from '../errors.js';

// path-neutral: the runtime throws it for any GPU path that cannot run here
export { GpuUnavailableError } from '../errors.js';

/**
 * Data that does not fit the GPU's textures: more texels than `maxTextureSize² × maxArrayLayers`
 * (or the int32 texel index range), or the driver ran out of texture memory.
 */
export class GpuLimitError extends SimdglError {
  constructor(message: string) {
    super('E_GPU_LIMIT', message);
  }
}

/**
 * The WebGL2 context was lost (webglcontextlost). Pending read-backs reject with it and every call
 * throws it until the context is restored (webglcontextrestored); GpuBackend.onContextLost /
 * onContextRestored tell the runtime when to fall back to the CPU path and when it may come back.
 */
export class GpuContextLostError extends SimdglError {
  constructor(message = 'the WebGL2 context is lost; calls fail until it is restored') {
    super('E_GPU_LOST', message);
  }
}
