import { SimdglError } from '../errors.js';

/**
 * Data that does not fit the GPU's textures: more texels than `maxTextureSize² × maxArrayLayers`
 * (or the int32 texel index range), or the driver ran out of texture memory.
 */
export class GpuLimitError extends SimdglError {
  constructor(message: string) {
    super('E_GPU_LIMIT', message);
  }
}

/** The GPU path cannot run here (no WebGL2, no float render targets, context lost, ...). */
export class GpuUnavailableError extends SimdglError {
  constructor(message: string) {
    super('E_GPU_UNAVAILABLE', message);
  }
}
