import { SimdglError } from '../errors.js';

// path-neutral: the runtime throws it for any GPU path that cannot run here
export { GpuUnavailableError } from '../errors.js';

/**
 * Data that does not fit the WebGL2 path (code `E_GPU_LIMIT`): more texels than
 * `maxTextureSize² × maxArrayLayers` (or the int32 texel index range), values beyond the f32 range in
 * double-single storage, or the driver ran out of texture memory. The message names the limit.
 *
 * @example
 * ```ts
 * // not run: needs a browser with WebGL2 (the browser suite tests it in Chromium)
 * import { createRuntime, DenseMatrix, GpuLimitError } from 'simdgl';
 *
 * const rt = await createRuntime({ backend: 'webgl2' });
 * const big = new DenseMatrix(1, 1, 'f64', new Float64Array([1e300]));   // beyond the f32 range
 * try {
 *   await rt.transpose(big);
 * } catch (e) {
 *   if (!(e instanceof GpuLimitError)) throw e;
 *   await rt.transpose(big, { path: 'cpu' });                           // the CPU path takes it
 * }
 * ```
 */
export class GpuLimitError extends SimdglError {
  /** The class's name, literal so that minified bundles report it too. */
  override name = 'GpuLimitError';
  /**
   * Makes the error (simdgl throws it; a program rarely needs to).
   * @param message the limit and the request that exceeds it
   */
  constructor(message: string) {
    super('E_GPU_LIMIT', message);
  }
}

/**
 * The WebGL2 context was lost (code `E_GPU_LOST`, event `webglcontextlost`). Pending read-backs reject
 * with it, and calls forced onto the WebGL2 path throw it until the context is restored
 * (`webglcontextrestored`); with `backend: 'auto'` the runtime runs everything on the other paths
 * meanwhile, and a resident vector or dense matrix last written only on the lost context rejects its
 * reads with it until it is written again.
 *
 * @example
 * ```ts
 * // not run: needs a browser with WebGL2 whose context can be lost (the browser suite loses one on purpose)
 * import { createRuntime, GpuContextLostError } from 'simdgl';
 *
 * const rt = await createRuntime({ backend: 'webgl2', canvas });
 * try {
 *   await rt.spmv(A, x);
 * } catch (e) {
 *   if (!(e instanceof GpuContextLostError)) throw e;
 *   await rt.spmv(A, x, { path: 'cpu' });                               // run it elsewhere meanwhile
 * }
 * ```
 */
export class GpuContextLostError extends SimdglError {
  /** The class's name, literal so that minified bundles report it too. */
  override name = 'GpuContextLostError';
  /**
   * Makes the error (simdgl throws it; a program rarely needs to).
   * @param message what was interrupted
   */
  constructor(message = 'the WebGL2 context is lost; calls fail until it is restored') {
    super('E_GPU_LOST', message);
  }
}
