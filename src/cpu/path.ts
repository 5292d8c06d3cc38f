/**
 * The CPU path (the Path interface of src/path.ts): AssemblyScript kernels over the runtime's one
 * WebAssembly memory on the worker pool. Data lives in host memory, so nothing is ever transferred
 * and nothing is ever lost; it runs every storage format and is the runtime's home path (uploads and
 * new vectors land here first).
 */
import { FORMATS, type FormatName, type SparseMatrix } from '../formats/index.js';
import { DenseMatrix } from '../formats/dense.js';
import { SimdglError } from '../errors.js';
import { components, type DType, type Scalar, type ValueArray } from '../dtype.js';
import type { SpmvScalars } from '../backend-types.js';
import type { CostProfile, DenseShape, Path, PathCalibration, PathCapabilities } from '../path.js';
import type { Preconditioner, SolverOps } from '../solvers/ops.js';
import { median } from '../metrics.js';
import { CpuBackend, type CpuBackendOptions } from './backend.js';
import { CpuDense, type CpuMatrix, type CpuVector } from './resident.js';
import * as blas from './blas1.js';
import type * as Dense from './dense.js';
import { lazyModule } from '../lazy-module.js';
import { cpuSolverOps } from './solver-ops.js';

/**
 * The dense kernels' glue (dense.ts: gemm, add, transpose on the pool), imported by the first dense
 * operation on the CPU path: a chunk of its own in a page's bundle (docs/bundlers.md), which a page of
 * sparse work never fetches. Called inside the runtime's ordering of the operands' handles (denseOp),
 * with host operands already copied in, so the wait moves no operation of theirs.
 */
export const cpuDenseChunk = lazyModule<typeof Dense>(() => import('./dense.js'), "the CPU path's dense kernels");

async function denseKernels(): Promise<typeof Dense> {
  if (!cpuDenseChunk.loaded()) await cpuDenseChunk.load();
  return cpuDenseChunk.get();
}

/** Before a calibration: one core of a laptop. */
export const CPU_COST: CostProfile = { kind: 'cpu', defaults: { overheadMs: 0.005, bandwidthGBs: 5 }, compactDia: true };
const noop = (): void => {};

export class CpuPath implements Path<CpuMatrix, CpuVector, CpuDense> {
  readonly id = 'cpu' as const;
  readonly label = 'CPU';
  readonly formats: readonly FormatName[] = FORMATS.filter((f) => f !== 'dense');
  readonly cost = CPU_COST;
  readonly usable = true;

  private constructor(readonly backend: CpuBackend) {}

  static async create(options: CpuBackendOptions): Promise<CpuPath> {
    return new CpuPath(await CpuBackend.create(options));
  }

  capabilities(): PathCapabilities {
    const B = this.backend;
    return {
      available: true,
      device: B.flavor === 'simd' ? 'WebAssembly SIMD build' : 'WebAssembly plain build (no SIMD)',
      limits: { threads: B.threads, sharedMemory: B.heap.shared },
    };
  }

  lostError(what: string): Error {
    return new SimdglError('E_CPU', what);
  }
  onLost(): () => void {
    return noop;
  }
  onRestored(): () => void {
    return noop;
  }

  /** The runtime's memory budget in MiB (createRuntime's maxMemoryMB): JS and WebAssembly memory of an upload together. */
  get memoryBudgetMB(): number {
    return this.backend.heap.budgetMB;
  }

  matrix(A: SparseMatrix): CpuMatrix {
    return this.backend.upload(A);
  }

  vector(dtype: DType, data: ValueArray | number): CpuVector {
    const v = this.backend.vector(dtype, typeof data === 'number' ? data : data.length / components(dtype));
    if (typeof data === 'number') v.view().fill(0);
    else v.view().set(data);
    return v;
  }

  /** a view into the WebAssembly memory (valid until it grows) */
  async read(v: CpuVector): Promise<ValueArray> {
    return v.view();
  }

  write(v: CpuVector, data: ValueArray): void {
    v.view().set(data);
  }

  dense(A: DenseMatrix | DenseShape): CpuDense {
    const d = new CpuDense(this.backend.heap, A.dtype, A.rows, A.cols);
    // a shape is zeros: the region may be recycled memory (gemm with β ≠ 0 and no C read it)
    if (A instanceof DenseMatrix) d.view().set(A.values);
    else d.view().fill(0);
    return d;
  }

  async readDense(A: CpuDense, into?: DenseMatrix): Promise<DenseMatrix> {
    if (!into) return new DenseMatrix(A.rows, A.cols, A.dtype, A.view().slice());
    into.values.set(A.view());
    return into;
  }

  writeDense(A: CpuDense, from: DenseMatrix): void {
    A.view().set(from.values);
  }

  spmv(A: CpuMatrix, x: CpuVector, y: CpuVector, s: SpmvScalars): Promise<void> {
    return this.backend.spmv(A, x, y, s);
  }
  async axpy(a: [number, number], x: CpuVector, y: CpuVector): Promise<void> {
    await blas.axpy(this.backend, a, x, y);
  }
  async aypx(a: [number, number], x: CpuVector, y: CpuVector): Promise<void> {
    await blas.aypx(this.backend, a, x, y);
  }
  async scal(a: [number, number], x: CpuVector): Promise<void> {
    await blas.scal(this.backend, a, x);
  }
  async copy(x: CpuVector, y: CpuVector): Promise<void> {
    await blas.copy(this.backend, x, y);
  }
  dot(x: CpuVector, y: CpuVector, conj: boolean): Promise<[number, number]> {
    return blas.dot(this.backend, x, y, conj);
  }
  nrm2(x: CpuVector): Promise<number> {
    return blas.nrm2(this.backend, x);
  }

  async gemm(A: CpuDense, B: CpuDense, C: CpuDense, o: { alpha: number; beta: number; naive: boolean }): Promise<void> {
    const dense = await denseKernels();
    const run = o.naive ? dense.gemmNaive : dense.gemm;
    const r = (M: CpuDense) => ({ ptr: M.ptr, rows: M.rows, cols: M.cols });
    return run(this.backend, A.dtype, r(A), r(B), r(C), o.alpha, o.beta);
  }
  async add(A: CpuDense, B: CpuDense, C: CpuDense, o: { alpha: Scalar; beta: Scalar }): Promise<void> {
    const dense = await denseKernels();
    return dense.add(this.backend, A.dtype, A.rows, A.cols, A.ptr, B.ptr, C.ptr, o.alpha, o.beta);
  }
  async transpose(A: CpuDense, B: CpuDense): Promise<void> {
    const dense = await denseKernels();
    return dense.transpose(this.backend, A.dtype, A.rows, A.cols, A.ptr, B.ptr);
  }

  solverOps(A: CpuMatrix, host: SparseMatrix, preconditioner: Preconditioner): SolverOps<CpuVector> & { dispose(): void } {
    return cpuSolverOps(this.backend, A, preconditioner, true, host);
  }

  /** The fixed cost of an operation (a tiny SpMV) and the bandwidth of SpMV on the larger matrix, with the current threads. */
  async calibrate(small: SparseMatrix, large: SparseMatrix): Promise<PathCalibration & { threads: number }> {
    const B = this.backend;
    const time = async (A: SparseMatrix, reps: number): Promise<number> => {
      const M = B.upload(A);
      const x = this.vector('f64', A.cols);
      const y = B.vector('f64', A.rows);
      x.view().fill(1);
      const t: number[] = [];
      try {
        for (let k = 0; k < reps; k++) {
          const t0 = performance.now();
          await B.spmv(M, x, y, { alpha: [1, 0], beta: [0, 0], op: 'N' });
          t.push(performance.now() - t0);
        }
      } finally {
        M.dispose();
        x.dispose();
        y.dispose();
      }
      return median(t.slice(1));
    };
    const overheadMs = await time(small, 41);
    const largeMs = await time(large, 7);
    const bytes = large.storageBytes() + 2 * large.rows * 8;
    return { threads: B.threads, overheadMs, bandwidthGBs: bytes / 1e6 / Math.max(1e-3, largeMs - overheadMs) };
  }

  /**
   * The time of a product y = A·x on the calling thread, synchronously (the automatic calibration's
   * measurement, src/runtime/auto-calibration.ts: explain is synchronous): after an untimed window, the
   * median over `windows` windows of the mean time of the products that fill `windowMs` (at least
   * `minReps`) — windows, so that a product too short for the clock is still timed, and their median,
   * so that one window in which another process took the core does not set the figure.
   */
  timeInline(A: SparseMatrix, windows: number, windowMs: number, minReps: number): number {
    const B = this.backend;
    const M = B.upload(A);
    const x = this.vector(A.dtype, A.cols);
    const y = B.vector(A.dtype, A.rows);
    try {
      x.view().fill(1);
      // the first window warms caches, pages and the kernel's optimized code (it ran 2× slower): untimed
      const means: number[] = [];
      for (let w = -1; w < windows; w++) {
        const t0 = performance.now();
        let reps = 0;
        let t = t0;
        while (reps < minReps || t - t0 < windowMs) {
          B.spmvInline(M, x, y);
          reps++;
          t = performance.now();
        }
        if (w >= 0) means.push((t - t0) / reps);
      }
      return median(means);
    } finally {
      M.dispose();
      x.dispose();
      y.dispose();
    }
  }

  dispose(): void {
    this.backend.dispose();
  }
}
