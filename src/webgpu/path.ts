/**
 * The WebGPU path (src/path.ts) over WebGpuBackend: WGSL compute shaders on storage buffers, in
 * browsers (navigator.gpu) and in Node (the optional `webgpu` package). On a device loss pending calls
 * reject with WebGpuDeviceLostError and the runtime runs elsewhere; the backend asks for a new device
 * and uploads every matrix again, and the path resumes. Everything else is the shared device path
 * (src/device-path.ts), plus the fused CG step the backend offers.
 */
import type { CostProfile } from '../path.js';
import { DIA_MAX_DIAGONALS } from '../formats/diagonal-scan.js';
import type { DType } from '../dtype.js';
import type { SparseMatrix } from '../formats/index.js';
import type { Preconditioner, SolverOps } from '../solvers/ops.js';
import { DevicePath } from '../device-path.js';
import { WebGpuBackend, type WebGpuBackendOptions, type WebGpuUnavailable } from './backend.js';
import type { WebGpuDense } from './dense.js';
import { WebGpuDeviceLostError } from './errors.js';
import type { WebGpuMatrix, WebGpuVector } from './resident.js';

/**
 * Figures before a calibration, measured on an H100 through Dawn + Vulkan in Node (bench/gpu-native,
 * results/run6): a dispatch in a batch costs 6–7.5 µs; CSR SpMV streams at ~2,260 GB/s on poisson3D_128
 * f32 (csr_row) and the adaptive kernel at ~760 GB/s on a 2 M-row power-law matrix, while the padded
 * formats reach 540–700 GB/s there — so CSR, whose upload picks the kernel per matrix (row, vector,
 * adaptive, SELL-32 for f64), is the format of this path; except for a banded matrix of 8-byte or
 * larger elements (f64 and c128 in double-single, c64) that DIA stores with little padding: there DIA
 * reads each value without SELL's 4-byte column index (poisson3D_128 f64: DIA 0.061 ms, SELL 0.089;
 * bench/device/results-2026-11-27-fifth), and f64 values that are all exactly f32 go up as f32
 * (src/webgpu/spmv.ts). rt.calibrate() measures the machine at hand.
 */
export const WEBGPU_COST: CostProfile = {
  kind: 'gpu',
  defaults: { overheadMs: 0.0075, bandwidthGBs: 2000, uploadGBs: 5, readbackGBs: 2 },
  efficiency: { csr: 1, sell: 1, dia: 1, ell: 0.3, hyb: 0.3 },
  prefers: (f) =>
    f.diagonals <= DIA_MAX_DIAGONALS && f.diaFill <= WEBGPU_DIA_FILL && f.xBytes >= 8 * f.cols
      ? { format: 'dia', reason: `${f.diagonals} diagonals, DIA stores ${f.diaFill.toFixed(2)} slots per entry (≤ ${WEBGPU_DIA_FILL}) of 8-byte or larger elements: it reads no column indices (faster than SELL-32 there)` }
      : { format: 'csr', reason: 'CSR: the WebGPU path picks its kernel per matrix at upload (row, vector, adaptive for long rows, SELL-32 for f64), faster than DIA/ELL/HYB there (H100: 2,260 against ≤ 700 GB/s)' },
};

/** DIA's padding (slots per entry) up to which the WebGPU path runs a matrix of 8-byte or larger elements as DIA: at 1.0 it took 0.68× SELL's time. */
const WEBGPU_DIA_FILL = 1.25;


/**
 * createRuntime({ webgpu }): where the WebGPU path's device comes from — a GPU object (`gpu`:
 * navigator.gpu, a Dawn instance), a GPUDevice of your own (`device`; a lost given device is not
 * replaced), and the adapter's power preference.
 * @interface
 */
export type WebGpuPathOptions = Pick<WebGpuBackendOptions, 'gpu' | 'device' | 'powerPreference'>;

export class WebGpuPath extends DevicePath<WebGpuMatrix, WebGpuVector, WebGpuDense> {
  readonly id = 'webgpu' as const;
  readonly label = 'WebGPU';
  protected readonly hardwareCost = WEBGPU_COST;
  protected readonly lostReason = 'the WebGPU device is lost';
  declare readonly backend: WebGpuBackend;

  /**
   * The path, or why WebGPU cannot run here (no navigator.gpu nor `webgpu` package, no adapter, …).
   * `loadDawn` false: in Node without `options.gpu`/`device`, do not load the `webgpu` package.
   */
  static async create(options: WebGpuPathOptions = {}, loadDawn = true): Promise<WebGpuPath | WebGpuUnavailable> {
    // the WGSL sources load with the path's first operation (prepare), not while the runtime probes it
    const b = await WebGpuBackend.create({ ...options, loadDawn, deferShaders: true });
    return b instanceof WebGpuBackend ? new WebGpuPath(b) : b;
  }

  protected limits(): Record<string, number | boolean | string> {
    const c = this.backend.capabilities();
    return {
      source: c.source ?? 'unknown',
      subgroups: c.subgroups,
      timestampQuery: c.timestampQuery,
      maxStorageBufferBindingSize: this.backend.maxStorageBufferBindingSize,
      maxBufferSize: c.maxBufferSize,
    };
  }

  /** The device path's, after starting to make the pipelines a solve of A runs (WebGpuBackend.prewarmSolve), while the host goes on. */
  override solverOps(A: WebGpuMatrix, host: SparseMatrix, preconditioner: Preconditioner): SolverOps<WebGpuVector> & { dispose(): void } {
    this.backend.prewarmSolve(A);
    return super.solverOps(A, host, preconditioner);
  }

  lostError(what: string): Error {
    return new WebGpuDeviceLostError(what);
  }

  wrapBuffer(buffer: GPUBuffer, dtype: DType, length: number): Promise<WebGpuVector> {
    return this.backend.wrapBuffer(buffer, dtype, length);
  }

  bufferOf(v: WebGpuVector): GPUBuffer {
    return this.backend.shareBuffer(v);
  }

  protected deviceName(): string {
    return this.backend.capabilities().adapter;
  }
}
