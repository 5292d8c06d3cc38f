import { isComplex, type DType, type ValueArray } from '../dtype.js';
import { PaddingLimitError } from '../errors.js';
import { convert, DIAMatrix, type FormatName, type SparseMatrix } from '../formats/index.js';
import type { SpmvScalars } from '../backend-types.js';
import { GpuBackend, type GpuMatrix, type GpuVector, type GpuCanvas, type GpuUnavailable } from '../gpu/index.js';
import type { Preconditioner, SolverOps } from '../solvers/ops.js';
import { chooseFormat, type MatrixFeatures } from './features.js';
import type { MatrixHandle, ResidentVector } from './handles.js';
import type { PathCalibration } from './cost.js';

/** Formats the GPU path has kernels for; others run there as CSR. */
const GPU_FORMATS: readonly FormatName[] = ['csr', 'ell', 'dia', 'hyb'];

/**
 * The runtime's side of the GPU path: which format a matrix runs in there, uploads made on first use
 * and kept with the handle, the GPU copies of resident vectors, and the solver operations.
 */
export class GpuPath {
  private constructor(readonly backend: GpuBackend) {}

  static create(options: { canvas?: GpuCanvas; gl?: WebGL2RenderingContext }): GpuPath | GpuUnavailable {
    const b = GpuBackend.create({ canvas: options.canvas, context: options.gl });
    return b instanceof GpuBackend ? new GpuPath(b) : b;
  }

  get usable(): boolean {
    return !this.backend.contextLost;
  }

  /** The GPU format of a matrix: the one asked for at upload when the GPU has it, else the choice. */
  formatFor(h: MatrixHandle, features: MatrixFeatures): FormatName {
    if (h.requestedFormat && GPU_FORMATS.includes(h.requestedFormat)) return h.requestedFormat;
    return chooseFormat(features, 'gpu').format;
  }

  isResident(h: MatrixHandle, format: FormatName): boolean {
    return h.gpu.has(format);
  }

  /** The handle's matrix on the GPU in `format`, uploaded once (with Aᵀ too when a product needs it). */
  matrix(h: MatrixHandle, format: FormatName, op: SpmvScalars['op']): GpuMatrix {
    const needT = op !== 'N';
    let g = h.gpu.get(format);
    if (g && (!needT || g.hasTranspose)) return g;
    g?.dispose();
    const host = h.resident().host;
    let m: SparseMatrix;
    try {
      m = host.format === format ? host : convert(host, format);
    } catch (e) {
      // a padded format over its limit runs as CSR instead
      if (!(e instanceof PaddingLimitError)) throw e;
      m = host.toCSR();
    }
    g = this.backend.upload(m as Parameters<GpuBackend['upload']>[0], { transpose: needT });
    h.gpu.set(format, g);
    return g;
  }

  /** The vector's GPU copy, brought up to date from the CPU copy when that one is newer. */
  vectorOf(v: ResidentVector): GpuVector {
    if (!v.gpu || v.gpu.disposed || v.where === 'cpu') {
      v.gpu?.dispose();
      v.gpu = this.backend.vector(v.dtype, v.resident().view());
      v.where = 'both';
    }
    return v.gpu;
  }

  /** The vector's GPU copy as an output about to be overwritten: its contents need not be current. */
  targetOf(v: ResidentVector): GpuVector {
    if (!v.gpu || v.gpu.disposed) v.gpu = this.backend.vector(v.dtype, v.length);
    return v.gpu;
  }

  /** Reads a GPU vector back into the CPU copy. */
  async pull(v: ResidentVector): Promise<void> {
    const data = await this.backend.read(v.gpu!);
    v.resident().view().set(data);
    v.where = 'both';
  }

  temp(dtype: DType, data: ValueArray | number): GpuVector {
    return this.backend.vector(dtype, data);
  }

  read(v: GpuVector): Promise<Float32Array | Float64Array> {
    return this.backend.read(v);
  }

  /**
   * Solver operations on the GPU: vectors stay in textures, only the scalars of dot products and
   * norms are read back. Jacobi's z = D⁻¹·r is an SpMV with a one-diagonal DIA matrix.
   */
  solverOps(h: MatrixHandle, format: FormatName, preconditioner: Preconditioner, dinv: ValueArray | null): SolverOps<GpuVector> & { dispose(): void } {
    const B = this.backend;
    const A = this.matrix(h, format, 'N');
    const dt = h.dtype;
    const n = h.rows;
    let D: GpuMatrix | null = null;
    if (preconditioner === 'jacobi' && dinv) {
      const pitch = Math.ceil(n / 4) * 4;
      const data = new (dinv.constructor as { new (n: number): ValueArray })(pitch * (isComplex(dt) ? 2 : 1));
      data.set(dinv);
      D = B.upload(new DIAMatrix(n, n, dt, new Int32Array([0]), pitch, data));
    }
    const pair = (r: number | [number, number]): [number, number] => (typeof r === 'number' ? [r, 0] : r);
    return {
      n,
      complex: isComplex(dt),
      vector: () => B.vector(dt, n),
      spmv: async (x, y, alpha, beta) => B.spmv(A, x, y, { alpha, beta }),
      axpy: async (a, x, y) => B.axpy(isComplex(dt) ? a : a[0], x, y),
      aypx: async (a, x, y) => B.aypx(isComplex(dt) ? a : a[0], x, y),
      copy: async (x, y) => B.copy(x, y),
      dot: async (x, y) => pair(await B.dot(x, y, { conj: true })),
      nrm2: (x) => B.nrm2(x),
      precondition: D ? async (r, z) => B.spmv(D!, r, z) : undefined,
      release: (v) => v.dispose(),
      dispose: () => D?.dispose(),
    };
  }

  /**
   * Measures the GPU: the fixed cost of a draw (a tiny SpMV plus a 1-element read), the bandwidth of
   * SpMV on a larger matrix (several products, one read), and the upload and read-back rates.
   */
  async calibrate(small: SparseMatrix, large: SparseMatrix, largeBytes: number): Promise<PathCalibration & { renderer: string }> {
    const B = this.backend;
    const timeProducts = async (M: SparseMatrix, reps: number): Promise<number> => {
      const g = B.upload(M as Parameters<GpuBackend['upload']>[0]);
      const x = B.vector('f32', M.cols);
      const y = B.vector('f32', M.rows);
      try {
        B.spmv(g, x, y);
        await B.read(y);
        const t0 = performance.now();
        for (let k = 0; k < reps; k++) B.spmv(g, x, y);
        await B.read(y);
        return (performance.now() - t0) / reps;
      } finally {
        g.dispose();
        x.dispose();
        y.dispose();
      }
    };
    const overheadMs = await timeProducts(small, 20);
    const largeMs = await timeProducts(large, 10);
    const probe = new Float32Array(1 << 20);
    let t0 = performance.now();
    const v = B.vector('f32', probe);
    const uploadMs = performance.now() - t0;
    t0 = performance.now();
    await B.read(v);
    const readMs = performance.now() - t0;
    v.dispose();
    const caps = B.capabilities();
    return {
      renderer: caps.renderer ?? 'unknown',
      overheadMs,
      bandwidthGBs: largeBytes / 1e6 / Math.max(1e-3, largeMs - overheadMs),
      uploadGBs: probe.byteLength / 1e6 / Math.max(1e-3, uploadMs),
      readbackGBs: probe.byteLength / 1e6 / Math.max(1e-3, readMs),
    };
  }

  dispose(): void {
    this.backend.dispose();
  }
}
