/**
 * The WebGL2 path (src/path.ts) over GpuBackend: fragment shaders on float textures. A lost context
 * rejects pending calls with GpuContextLostError; the backend re-uploads every matrix on restore.
 * Everything else is the shared device path (src/device-path.ts).
 */
import type { CostProfile } from '../path.js';
import type { FormatName } from '../formats/index.js';
import type { MatrixFeatures } from '../runtime/features.js';
import { DevicePath } from '../device-path.js';
import { GpuBackend, LONG_ROW, sellGathers, type GpuUnavailable } from './backend.js';
import type { GpuCanvas } from './context.js';
import type { GpuDense } from './dense.js';
import { GpuContextLostError } from './errors.js';
import type { GpuMatrix, GpuVector } from './resident.js';

/**
 * What the fragment path reached on a real GPU (bench/gpu-native/RESULTS.md, an H100 through EGL:
 * about 7 µs per pass and 110–130 GB/s for DIA/ELL/HYB — the graphics pipeline, not the card's 3 TB/s,
 * is the limit), plus a browser's WebGL call overhead and PCIe-class transfers; rt.calibrate() replaces
 * them. Per format, the share of that streaming rate each shader reaches (poisson3D_128 f32: DIA 130,
 * ELL 125, HYB 116, CSR row 33 GB/s): the row-per-fragment CSR walks its rows entry by entry and is
 * latency-bound, the others stream. SELL runs ELL's loop per slice (sell.glsl), plus a gather pass over
 * y when rows are sorted; on the H100 it tied HYB on poisson3D_128 and lost 30× to the segmented CSR
 * kernel on irregular rows (bench/device/results-2026-11-23b/gpu.tsv), so it keeps HYB's figure and the
 * format rules (runtime/features.ts) do not pick it for 'auto' here; a matrix uploaded as SELL runs it.
 */
export const WEBGL2_COST: CostProfile = {
  kind: 'gpu',
  defaults: { overheadMs: 0.05, bandwidthGBs: 110, uploadGBs: 5, readbackGBs: 2 },
  efficiency: { dia: 1, ell: 0.95, hyb: 0.9, sell: 0.9, csr: 0.25 },
};

export interface WebGl2PathOptions {
  /** draw on this canvas (HTMLCanvasElement or OffscreenCanvas; default: its own OffscreenCanvas, or a canvas element where OffscreenCanvas has no WebGL2) */
  canvas?: GpuCanvas;
  /** or on this WebGL2 context */
  gl?: WebGL2RenderingContext;
}

export class WebGl2Path extends DevicePath<GpuMatrix, GpuVector, GpuDense> {
  readonly id = 'webgl2' as const;
  readonly label = 'WebGL2';
  protected readonly hardwareCost = WEBGL2_COST;
  protected readonly lostReason = 'the WebGL2 context is lost';
  override readonly formats: readonly FormatName[] = ['csr', 'sell', 'ell', 'dia', 'hyb'];
  declare readonly backend: GpuBackend;

  /** The shader(s) a format runs with, as GpuBackend.upload picks them for the runtime's conversion (default options). */
  kernelFor(format: FormatName, f: MatrixFeatures): string {
    switch (format) {
      case 'csr':
        return f.maxRow > LONG_ROW ? `csr_segmented shader (a row of ${f.maxRow} entries > ${LONG_ROW}: segment sums, then segsum per row)` : 'csr_row shader';
      case 'sell': {
        const sell = `SELL-${f.sellC}-${f.sellSigma}`;
        return sellGathers(f.sellC, f.sellSigma)
          ? `sell shader (${sell}: row sums in sorted order, then sell_gather back to row order)`
          : `sell shader (${sell}: one pass, positions are rows)`;
      }
      case 'hyb':
        return 'hyb shader (ELL part + CSR remainder in one pass)';
      default:
        return `${format} shader`;
    }
  }

  /** The path, or why WebGL2 (with float render targets and read-back) cannot run here. */
  static create(options: WebGl2PathOptions = {}): WebGl2Path | GpuUnavailable {
    const b = GpuBackend.create({ canvas: options.canvas, context: options.gl });
    return b instanceof GpuBackend ? new WebGl2Path(b) : b;
  }

  protected limits(): Record<string, number | boolean | string> {
    const c = this.backend.capabilities();
    return { maxTextureSize: c.maxTextureSize, maxArrayLayers: c.maxArrayLayers, colorBufferFloat: c.colorBufferFloat, floatBlend: c.floatBlend, floatReadback: c.floatReadback };
  }

  protected override vendor(): string | undefined {
    return this.backend.capabilities().vendor;
  }

  lostError(what: string): Error {
    return new GpuContextLostError(what);
  }

  protected deviceName(): string {
    return this.backend.capabilities().renderer ?? 'unknown';
  }
}
