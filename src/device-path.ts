/**
 * The Path of a GPU backend, written once: the WebGL2 GpuBackend (gpu/) and the WebGPU WebGpuBackend
 * (webgpu/) have the same shape (DeviceBackend below), so each folder's path.ts only names itself,
 * states its cost profile and capabilities, and its typed loss error. Imports no path folder.
 */
import { isComplex, type DType, type Scalar, type ValueArray } from './dtype.js';
import type { Op, SpmvScalars } from './backend-types.js';
import { DIAMatrix, type FormatName, type SparseMatrix } from './formats/index.js';
import { DenseMatrix } from './formats/dense.js';
import { ROUND } from './formats/common.js';
import type { CostProfile, DenseShape, Path, PathCalibration, PathCapabilities, PathDense, PathId, PathMatrix, PathVector } from './path.js';
import { inverseDiagonal } from './solvers/precond/jacobi.js';
import type { ChebyshevPolynomial, PathRefinement, Preconditioner, SolveOptions, SolveResult, SolverOps, TriangularOptions, TriangularSolver } from './solvers/ops.js';
import type { CSRMatrix } from './formats/csr.js';

/** What a GPU backend offers: resident data, kernels recorded without waiting, reads and scalars by promise. */
export interface DeviceBackend<M extends PathMatrix, V extends PathVector, D extends PathDense> {
  /** true between a loss and the restore */
  readonly contextLost: boolean;
  onContextLost(cb: () => void): () => void;
  onContextRestored(cb: () => void): () => void;
  /** fewProducts: applied a few times a solve (SolverOps.operator), where the backend then skips costly layouts */
  upload(A: SparseMatrix, options: { transpose?: boolean; fewProducts?: boolean }): M;
  /** upload() of several matrices, their contents streamed together (SolverOps.operators), where the backend has it (WebGPU) */
  uploadMany?(list: readonly { matrix: SparseMatrix; options?: { fewProducts?: boolean; transposeOf?: number } }[]): Promise<M[]>;
  vector(dtype: DType, data: ArrayLike<number> | number): V;
  read(v: V): Promise<ValueArray>;
  spmv(A: M, x: V, y: V, options?: { alpha?: Scalar; beta?: Scalar; op?: Op }): void;
  axpy(alpha: Scalar, x: V, y: V): void;
  aypx(alpha: Scalar, x: V, y: V): void;
  scal(alpha: Scalar, x: V): void;
  copy(x: V, y: V): void;
  dot(x: V, y: V, options: { conj?: boolean }): Promise<number | [number, number]>;
  nrm2(x: V): Promise<number>;
  /** the fused CG step (x += α·p, r −= α·q, returns ‖r‖²), where the backend has one */
  cgUpdate?(alpha: Scalar, p: V, q: V, x: V, r: V): Promise<number>;
  /** CG resident on the device (scalars computed there, residuals read every checkEvery iterations), where the backend has it */
  cgResident?(A: M, D: M | null, b: V, options: SolveOptions<V> & { checkEvery: number }): Promise<SolveResult<V>>;
  bicgstabResident?(A: M, D: M | null, b: V, options: SolveOptions<V> & { checkEvery: number }): Promise<SolveResult<V>>;
  /** CG preconditioned by a Chebyshev polynomial in D⁻¹A, resident on the device, where the backend has it */
  cgChebyshevResident?(A: M, D: () => M, b: V, options: SolveOptions<V> & { checkEvery: number }, poly: ChebyshevPolynomial): Promise<SolveResult<V>>;
  /** whether cgChebyshevResident runs the polynomial's steps in f32 at tolerance tol (CG itself in the matrix's precision) */
  chebyshevStepsInF32?(A: M, poly: ChebyshevPolynomial, tol: number): boolean;
  /** a zero solver work vector from a pool of given-back ones, and giving one back (WebGPU; elsewhere vector() and dispose()) */
  scratchVector?(dtype: DType, length: number): V;
  recycle?(v: V): void;
  /** a matrix made from A once (make() runs the first time) and freed with A, where the backend keeps such (WebGPU) */
  companion?(A: M, name: string, make: () => SparseMatrix): M;
  /** iterative refinement kept on the device (SolverOps.refinement), where the backend has it */
  refinement?(A: M, b: Float64Array, x0: Float64Array | undefined, range?: number): Promise<PathRefinement<V> | undefined> | undefined;
  /** a sparse triangular factor resident for repeated solves, where the backend has them (WebGPU; not WebGL2) */
  triangular?(T: CSRMatrix, options: TriangularOptions): TriangularSolver<V>;
  /** loads what the kernels need (their shader sources), where the backend defers it */
  loadShaders?(): Promise<void>;
  /** Path.prewarmSparse, where the backend compiles its kernels ahead (WebGPU) */
  prewarmSparse?(dtype: DType): void;
  uploadDense(A: DenseMatrix): D;
  denseMatrix(dtype: DType, rows: number, cols: number): D;
  readDense(A: D): Promise<DenseMatrix>;
  gemm(A: D, B: D, C: D, options: { alpha?: Scalar; beta?: Scalar; kernel?: 'tiled' | 'naive' }): void;
  add(A: D, B: D, C: D, options: { alpha?: Scalar; beta?: Scalar }): void;
  transpose(A: D, B: D): void;
  dispose(): void;
}

/**
 * A software renderer (SwiftShader, llvmpipe/lavapipe, WARP, Microsoft Basic Render) runs the shaders on
 * the CPU, far slower than the CPU path's own kernels (calibrated on SwiftShader: ~0.01 GB/s for
 * WebGPU, ~0.05 GB/s for WebGL2): 'auto' must never prefer it before a calibration says otherwise. A
 * path on one stays usable when asked for by name (to test it without a GPU).
 */
export const SOFTWARE_RENDERER_COST: CostProfile = {
  kind: 'gpu',
  defaults: { overheadMs: 0.5, bandwidthGBs: 0.05, uploadGBs: 1, readbackGBs: 1 },
};
const SOFTWARE_RENDERER = /swiftshader|llvmpipe|lavapipe|\bwarp\b|basic render/i;

/** A resident solver's default checkEvery: one read-back per 16 iterations (~0.5 ms of GPU work each on the H100 for poisson3D_128). */
const RESIDENT_CHECK_EVERY = 16;

export abstract class DevicePath<M extends PathMatrix, V extends PathVector, D extends PathDense> implements Path<M, V, D> {
  abstract readonly id: PathId;
  abstract readonly label: string;
  /** the default figures on a real GPU */
  protected abstract readonly hardwareCost: CostProfile;
  readonly formats: readonly FormatName[] = ['csr', 'ell', 'dia', 'hyb'];

  constructor(readonly backend: DeviceBackend<M, V, D>) {}

  abstract lostError(what: string): Error;
  /** the device's name (renderer, adapter): for capabilities and a calibration */
  protected abstract deviceName(): string;
  /** what capabilities() says while the device is lost */
  protected abstract readonly lostReason: string;
  /** the path's own figures for capabilities().limits */
  protected abstract limits(): Record<string, number | boolean | string>;
  protected vendor(): string | undefined {
    return undefined;
  }

  /** whether the device is a software renderer on the CPU */
  get software(): boolean {
    return SOFTWARE_RENDERER.test(this.deviceName());
  }

  /** the default figures: the GPU's, or a software renderer's (SOFTWARE_RENDERER_COST) */
  get cost(): CostProfile {
    return this.software ? SOFTWARE_RENDERER_COST : this.hardwareCost;
  }

  capabilities(): PathCapabilities {
    const lost = this.backend.contextLost;
    return {
      available: true,
      lost,
      reason: lost ? this.lostReason : undefined,
      device: this.deviceName(),
      vendor: this.vendor(),
      limits: { software: this.software, ...this.limits() },
    };
  }

  get usable(): boolean {
    return !this.backend.contextLost;
  }
  /** the shader sources, loaded with the path's first operation (Path.prepare) */
  prepare(): Promise<void> {
    return this.backend.loadShaders?.() ?? Promise.resolve();
  }
  prewarmSparse(dtype: DType): void {
    this.backend.prewarmSparse?.(dtype);
  }
  onLost(cb: () => void): () => void {
    return this.backend.onContextLost(cb);
  }
  onRestored(cb: () => void): () => void {
    return this.backend.onContextRestored(cb);
  }

  matrix(A: SparseMatrix, options: { transpose: boolean }): M {
    return this.backend.upload(A, { transpose: options.transpose });
  }
  vector(dtype: DType, data: ValueArray | number): V {
    return this.backend.vector(dtype, data);
  }
  read(v: V): Promise<ValueArray> {
    return this.backend.read(v);
  }
  /** through a copy from a fresh upload (kernels may swap a vector's storage, so it is not written in place) */
  write(v: V, data: ValueArray): void {
    const t = this.backend.vector(v.dtype, data);
    try {
      this.backend.copy(t, v);
    } finally {
      t.dispose();
    }
  }
  dense(A: DenseMatrix | DenseShape): D {
    return A instanceof DenseMatrix ? this.backend.uploadDense(A) : this.backend.denseMatrix(A.dtype, A.rows, A.cols);
  }
  async readDense(A: D, into?: DenseMatrix): Promise<DenseMatrix> {
    const r = await this.backend.readDense(A);
    if (!into) return r;
    into.values.set(r.values);
    return into;
  }
  /** through an add (α = 1, β = 0: B is not read) from a fresh upload */
  writeDense(A: D, from: DenseMatrix): void {
    const t = this.backend.uploadDense(from);
    try {
      this.backend.add(t, t, A, { alpha: 1, beta: 0 });
    } finally {
      t.dispose();
    }
  }

  async spmv(A: M, x: V, y: V, s: SpmvScalars): Promise<void> {
    this.backend.spmv(A, x, y, { alpha: s.alpha, beta: s.beta, op: s.op });
  }
  async axpy(a: [number, number], x: V, y: V): Promise<void> {
    this.backend.axpy(a, x, y);
  }
  async aypx(a: [number, number], x: V, y: V): Promise<void> {
    this.backend.aypx(a, x, y);
  }
  async scal(a: [number, number], x: V): Promise<void> {
    this.backend.scal(a, x);
  }
  async copy(x: V, y: V): Promise<void> {
    this.backend.copy(x, y);
  }
  async dot(x: V, y: V, conj: boolean): Promise<[number, number]> {
    return pair(await this.backend.dot(x, y, { conj }));
  }
  nrm2(x: V): Promise<number> {
    return this.backend.nrm2(x);
  }
  async gemm(A: D, B: D, C: D, o: { alpha: number; beta: number; naive: boolean }): Promise<void> {
    this.backend.gemm(A, B, C, { alpha: o.alpha, beta: o.beta, kernel: o.naive ? 'naive' : 'tiled' });
  }
  async add(A: D, B: D, C: D, o: { alpha: Scalar; beta: Scalar }): Promise<void> {
    this.backend.add(A, B, C, o);
  }
  async transpose(A: D, B: D): Promise<void> {
    this.backend.transpose(A, B);
  }

  /**
   * Solver operations on the device: vectors stay there, only the scalars of dot products and norms
   * are read back. Jacobi's z = D⁻¹·r is an SpMV with a one-diagonal DIA matrix.
   */
  solverOps(A: M, host: SparseMatrix, preconditioner: Preconditioner): SolverOps<V> & { dispose(): void } {
    const B = this.backend;
    const dt = host.dtype;
    const n = host.rows;
    const complex = isComplex(dt);
    let D: M | null = null;
    let ownD = false;
    // made once per matrix where the backend keeps companions (host.toCSR() of a DIA host alone
    // cost ≈ 0.3 s a solve for poisson3D(128) on the H100's host), else for this solve
    const inverseDiagonalOf = (): M => {
      if (D) return D;
      const jacobi = (): DIAMatrix => {
        const dinv = inverseDiagonal(host.toCSR());
        const pitch = Math.ceil(n / 4) * 4;
        const data = new (dinv.constructor as { new (n: number): ValueArray })(pitch * (complex ? 2 : 1));
        data.set(dinv);
        return new DIAMatrix(n, n, dt, new Int32Array([0]), pitch, data);
      };
      if (B.companion) D = B.companion(A, 'jacobi', jacobi);
      else {
        D = B.upload(jacobi(), {});
        ownD = true;
      }
      return D;
    };
    const J = preconditioner === 'jacobi' ? inverseDiagonalOf() : null;
    const cgUpdate = B.cgUpdate?.bind(B);
    const cgResident = B.cgResident?.bind(B);
    const bicgstabResident = B.bicgstabResident?.bind(B);
    const cgChebyshevResident = B.cgChebyshevResident?.bind(B);
    const chebyshevStepsInF32 = B.chebyshevStepsInF32?.bind(B);
    const triangular = B.triangular?.bind(B);
    const refinement = B.refinement?.bind(B);
    const uploadMany = B.uploadMany?.bind(B);
    const resident = (R: M) => ({ apply: async (x: V, y: V, alpha: number, beta: number) => B.spmv(R, x, y, { alpha, beta }), dispose: () => R.dispose() });
    return {
      n,
      complex,
      vector: (length = n) => (B.scratchVector ? B.scratchVector(dt, length) : B.vector(dt, length)),
      spmv: async (x, y, alpha, beta) => B.spmv(A, x, y, { alpha, beta }),
      axpy: async (a, x, y) => B.axpy(complex ? a : a[0], x, y),
      aypx: async (a, x, y) => B.aypx(complex ? a : a[0], x, y),
      copy: async (x, y) => B.copy(x, y),
      scal: async (a, x) => B.scal(complex ? a : a[0], x),
      dot: async (x, y) => pair(await B.dot(x, y, { conj: true })),
      nrm2: (x) => B.nrm2(x),
      precondition: J ? async (r, z) => B.spmv(J, r, z) : undefined,
      cgUpdate: cgUpdate ? (alpha, p, q, x, r) => cgUpdate(alpha, p, q, x, r) : undefined,
      cgResident: cgResident ? (b, o) => cgResident(A, J, b, o) : undefined,
      bicgstabResident: bicgstabResident ? (b, o) => bicgstabResident(A, J, b, o) : undefined,
      cgChebyshevResident: cgChebyshevResident ? (b, o, poly) => cgChebyshevResident(A, inverseDiagonalOf, b, o, poly) : undefined,
      chebyshevStepsInF32: chebyshevStepsInF32 ? (poly, tol) => chebyshevStepsInF32(A, poly, tol) : undefined,
      checkEvery: cgResident || bicgstabResident ? RESIDENT_CHECK_EVERY : undefined,
      label: this.label,
      operator: (Mh, o) => resident(B.upload(Mh.astype(dt, ROUND), { fewProducts: o?.fewProducts })),
      operators: uploadMany
        ? async (list, o) => (await uploadMany(list.map((Mh, i) => ({ matrix: Mh.astype(dt, ROUND), options: { fewProducts: o?.fewProducts, transposeOf: o?.transposes?.[i] } })))).map(resident)
        : undefined,
      // the factor in the solve's dtype (a solver layer may factor in f64 for an f32 solve)
      triangular: triangular ? (T, o) => triangular(T.dtype === dt ? T : T.astype(dt, ROUND), o) : undefined,
      refinement: refinement ? (b, x0, range) => refinement(A, b, x0, range) : undefined,
      release: (v) => (B.recycle ? B.recycle(v) : v.dispose()),
      dispose: () => {
        if (ownD) D?.dispose();
      },
    };
  }

  /**
   * Measures the device in f32: the fixed cost of a kernel (a tiny SpMV plus a 1-element read), the
   * bandwidth of SpMV on a larger matrix (several products, one read), and the upload and read-back rates.
   */
  async calibrate(small: SparseMatrix, large: SparseMatrix): Promise<PathCalibration> {
    await this.prepare();
    const B = this.backend;
    const timeProducts = async (M: SparseMatrix, reps: number): Promise<number> => {
      const g = B.upload(M, {});
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
      device: this.deviceName(),
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
