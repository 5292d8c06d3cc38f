/**
 * The WebGL2 path (the Path interface of src/path.ts) over GpuBackend: fragment shaders on float
 * textures. Vectors and dense matrices live in textures; a lost context rejects pending calls with
 * GpuContextLostError, the backend re-uploads every matrix on restore, and onLost/onRestored tell the
 * runtime to run elsewhere meanwhile.
 */
import { isComplex, type DType, type Scalar, type ValueArray } from '../dtype.js';
import { DIAMatrix, type FormatName, type SparseMatrix } from '../formats/index.js';
import { DenseMatrix } from '../formats/dense.js';
import type { SpmvScalars } from '../backend-types.js';
import type { CostProfile, DenseShape, Path, PathCalibration, PathCapabilities } from '../path.js';
import { inverseDiagonal } from '../solvers/jacobi.js';
import type { Preconditioner, SolverOps } from '../solvers/ops.js';
import { GpuBackend, type GpuUnavailable } from './backend.js';
import type { GpuCanvas } from './context.js';
import type { GpuDense } from './dense.js';
import { GpuContextLostError } from './errors.js';
import type { GpuMatrix, GpuVector, HostMatrix } from './resident.js';

/**
 * What the fragment path reached on a real GPU (bench/gpu-native/RESULTS.md, an H100 through EGL:
 * about 7 µs per pass and 110–130 GB/s for DIA/ELL/HYB — the graphics pipeline, not the card's 3 TB/s,
 * is the limit), plus a browser's WebGL call overhead and PCIe-class transfers; rt.calibrate() replaces
 * them. Per format, the share of that streaming rate each shader reaches (poisson3D_128 f32: DIA 130,
 * ELL 125, HYB 116, CSR row 33 GB/s): the row-per-fragment CSR walks its rows entry by entry and is
 * latency-bound, the others stream.
 */
export const WEBGL2_COST: CostProfile = {
  kind: 'gpu',
  defaults: { overheadMs: 0.05, bandwidthGBs: 110, uploadGBs: 5, readbackGBs: 2 },
  efficiency: { dia: 1, ell: 0.95, hyb: 0.9, csr: 0.25 },
};

export interface WebGl2PathOptions {
  /** draw on this canvas (HTMLCanvasElement or OffscreenCanvas; default: an own OffscreenCanvas) */
  canvas?: GpuCanvas;
  /** or on this WebGL2 context */
  gl?: WebGL2RenderingContext;
}

export class WebGl2Path implements Path<GpuMatrix, GpuVector, GpuDense> {
  readonly id = 'webgl2' as const;
  readonly label = 'WebGL2';
  readonly formats: readonly FormatName[] = ['csr', 'ell', 'dia', 'hyb'];
  readonly cost = WEBGL2_COST;

  private constructor(readonly backend: GpuBackend) {}

  /** The path, or why WebGL2 (with float render targets and read-back) cannot run here. */
  static create(options: WebGl2PathOptions = {}): WebGl2Path | GpuUnavailable {
    const b = GpuBackend.create({ canvas: options.canvas, context: options.gl });
    return b instanceof GpuBackend ? new WebGl2Path(b) : b;
  }

  get usable(): boolean {
    return !this.backend.contextLost;
  }

  capabilities(): PathCapabilities {
    const c = this.backend.capabilities();
    const lost = this.backend.contextLost;
    return {
      available: true,
      lost,
      reason: lost ? 'the WebGL2 context is lost' : undefined,
      device: c.renderer,
      vendor: c.vendor,
      limits: { maxTextureSize: c.maxTextureSize, maxArrayLayers: c.maxArrayLayers, colorBufferFloat: c.colorBufferFloat, floatBlend: c.floatBlend, floatReadback: c.floatReadback },
    };
  }

  lostError(what: string): Error {
    return new GpuContextLostError(what);
  }
  onLost(cb: () => void): () => void {
    return this.backend.onContextLost(cb);
  }
  onRestored(cb: () => void): () => void {
    return this.backend.onContextRestored(cb);
  }

  matrix(A: SparseMatrix, options: { transpose: boolean }): GpuMatrix {
    return this.backend.upload(A as HostMatrix, { transpose: options.transpose });
  }

  vector(dtype: DType, data: ValueArray | number): GpuVector {
    return this.backend.vector(dtype, data);
  }

  read(v: GpuVector): Promise<ValueArray> {
    return this.backend.read(v);
  }

  /** through a copy draw from a fresh texture (a vector's texture is swapped by every kernel) */
  write(v: GpuVector, data: ValueArray): void {
    const t = this.backend.vector(v.dtype, data);
    try {
      this.backend.copy(t, v);
    } finally {
      t.dispose();
    }
  }

  dense(A: DenseMatrix | DenseShape): GpuDense {
    return A instanceof DenseMatrix ? this.backend.uploadDense(A) : this.backend.denseMatrix(A.dtype, A.rows, A.cols);
  }

  async readDense(A: GpuDense, into?: DenseMatrix): Promise<DenseMatrix> {
    const r = await this.backend.readDense(A);
    if (!into) return r;
    into.values.set(r.values);
    return into;
  }

  /** through an add draw (α = 1, β = 0: B is not read) from a fresh upload */
  writeDense(A: GpuDense, from: DenseMatrix): void {
    const t = this.backend.uploadDense(from);
    try {
      this.backend.add(t, t, A, { alpha: 1, beta: 0 });
    } finally {
      t.dispose();
    }
  }

  async spmv(A: GpuMatrix, x: GpuVector, y: GpuVector, s: SpmvScalars): Promise<void> {
    this.backend.spmv(A, x, y, { alpha: s.alpha, beta: s.beta, op: s.op });
  }
  async axpy(a: [number, number], x: GpuVector, y: GpuVector): Promise<void> {
    this.backend.axpy(a, x, y);
  }
  async aypx(a: [number, number], x: GpuVector, y: GpuVector): Promise<void> {
    this.backend.aypx(a, x, y);
  }
  async scal(a: [number, number], x: GpuVector): Promise<void> {
    this.backend.scal(a, x);
  }
  async copy(x: GpuVector, y: GpuVector): Promise<void> {
    this.backend.copy(x, y);
  }
  async dot(x: GpuVector, y: GpuVector, conj: boolean): Promise<[number, number]> {
    return pair(await this.backend.dot(x, y, { conj }));
  }
  nrm2(x: GpuVector): Promise<number> {
    return this.backend.nrm2(x);
  }

  async gemm(A: GpuDense, B: GpuDense, C: GpuDense, o: { alpha: number; beta: number; naive: boolean }): Promise<void> {
    this.backend.gemm(A, B, C, { alpha: o.alpha, beta: o.beta, kernel: o.naive ? 'naive' : 'tiled' });
  }
  async add(A: GpuDense, B: GpuDense, C: GpuDense, o: { alpha: Scalar; beta: Scalar }): Promise<void> {
    this.backend.add(A, B, C, o);
  }
  async transpose(A: GpuDense, B: GpuDense): Promise<void> {
    this.backend.transpose(A, B);
  }

  /**
   * Solver operations on the GPU: vectors stay in textures, only the scalars of dot products and
   * norms are read back. Jacobi's z = D⁻¹·r is an SpMV with a one-diagonal DIA matrix.
   */
  solverOps(A: GpuMatrix, host: SparseMatrix, preconditioner: Preconditioner): SolverOps<GpuVector> & { dispose(): void } {
    const B = this.backend;
    const dt = A.dtype;
    const n = A.rows;
    let D: GpuMatrix | null = null;
    if (preconditioner === 'jacobi') {
      const dinv = inverseDiagonal(host.toCSR());
      const pitch = Math.ceil(n / 4) * 4;
      const data = new (dinv.constructor as { new (n: number): ValueArray })(pitch * (isComplex(dt) ? 2 : 1));
      data.set(dinv);
      D = B.upload(new DIAMatrix(n, n, dt, new Int32Array([0]), pitch, data));
    }
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
   * Measures the GPU in f32: the fixed cost of a draw (a tiny SpMV plus a 1-element read), the
   * bandwidth of SpMV on a larger matrix (several products, one read), and the upload and read-back rates.
   */
  async calibrate(small: SparseMatrix, large: SparseMatrix): Promise<PathCalibration> {
    const B = this.backend;
    const timeProducts = async (M: SparseMatrix, reps: number): Promise<number> => {
      const g = B.upload(M as HostMatrix);
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
    const large32 = large.astype('f32');
    const overheadMs = await timeProducts(small.astype('f32'), 20);
    const largeMs = await timeProducts(large32, 10);
    const largeBytes = large32.storageBytes() + 2 * large.rows * 4;
    const probe = new Float32Array(1 << 20);
    let t0 = performance.now();
    const v = B.vector('f32', probe);
    const uploadMs = performance.now() - t0;
    t0 = performance.now();
    await B.read(v);
    const readMs = performance.now() - t0;
    v.dispose();
    return {
      device: B.capabilities().renderer ?? 'unknown',
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

function pair(r: number | [number, number]): [number, number] {
  return typeof r === 'number' ? [r, 0] : r;
}
