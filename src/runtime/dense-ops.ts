import { components, elementBytes, type Scalar } from '../dtype.js';
import { ShapeError } from '../errors.js';
import { DenseMatrix } from '../formats/dense.js';
import type { CpuBackend } from '../cpu/backend.js';
import type { Region } from '../cpu/memory.js';
import * as dense from '../cpu/dense.js';

export interface GemmOptions {
  /** C of C = α·A·B + β·C: updated in place and returned (default: a new zero matrix) */
  C?: DenseMatrix;
  /** default 1 */
  alpha?: number;
  /** default 0 (C is then not read) */
  beta?: number;
  /** the straightforward triple loop instead of the blocked kernel (for the naive-vs-tiled ratio) */
  naive?: boolean;
}

export interface AddOptions {
  alpha?: Scalar;
  beta?: Scalar;
}

/** Shapes and dtypes of C = α·A·B + β·C, checked before any work, as ShapeError naming them. */
export function checkGemm(A: DenseMatrix, B: DenseMatrix, C?: DenseMatrix): void {
  for (const [n, M] of [['A', A], ['B', B], ['C', C]] as const) {
    if (M !== undefined && !(M instanceof DenseMatrix)) throw new TypeError(`gemm: ${n} must be a DenseMatrix`);
    M?.validate(); // the kernels size their reads and writes by rows·cols
  }
  if (A.dtype !== B.dtype || (C && C.dtype !== A.dtype)) throw new ShapeError(`gemm: dtypes differ (A ${A.dtype}, B ${B.dtype}${C ? `, C ${C.dtype}` : ''})`);
  if (A.cols !== B.rows) throw new ShapeError(`gemm: A is ${A.rows}×${A.cols} and B is ${B.rows}×${B.cols}: A's columns must equal B's rows`);
  if (C && (C.rows !== A.rows || C.cols !== B.cols)) throw new ShapeError(`gemm: C is ${C.rows}×${C.cols}, expected ${A.rows}×${B.cols}`);
}

/**
 * The CPU path of the dense operations: the operands are copied into the runtime's memory, the
 * kernels run on the pool by row panels of the output, the result is copied out.
 */
export class CpuDense {
  constructor(private readonly B: CpuBackend) {}

  private put(M: DenseMatrix, regions: Region[]): Region {
    const r = this.B.heap.allocCopy(M.values);
    regions.push(r);
    return r;
  }

  private out(rows: number, cols: number, M: DenseMatrix, regions: Region[]): Region {
    const r = this.B.heap.alloc(rows * cols * elementBytes(M.dtype));
    regions.push(r);
    return r;
  }

  private async withRegions<T>(fn: (regions: Region[]) => Promise<T>): Promise<T> {
    const regions: Region[] = [];
    try {
      return await fn(regions);
    } finally {
      for (const r of regions) r.dispose();
    }
  }

  gemm(A: DenseMatrix, Bm: DenseMatrix, o: GemmOptions): Promise<DenseMatrix> {
    const beta = o.beta ?? 0;
    return this.withRegions(async (regions) => {
      const a = this.put(A, regions);
      const b = this.put(Bm, regions);
      const c = o.C && beta !== 0 ? this.put(o.C, regions) : this.out(A.rows, Bm.cols, A, regions);
      const run = o.naive ? dense.gemmNaive : dense.gemm;
      await run(this.B, A.dtype, { ptr: a.ptr, rows: A.rows, cols: A.cols }, { ptr: b.ptr, rows: Bm.rows, cols: Bm.cols }, { ptr: c.ptr, rows: A.rows, cols: Bm.cols }, o.alpha ?? 1, beta);
      return this.result(c, A.rows, Bm.cols, A, o.C);
    });
  }

  add(A: DenseMatrix, Bm: DenseMatrix, o: AddOptions): Promise<DenseMatrix> {
    return this.withRegions(async (regions) => {
      const a = this.put(A, regions);
      const b = this.put(Bm, regions);
      const c = this.out(A.rows, A.cols, A, regions);
      await dense.add(this.B, A.dtype, A.rows, A.cols, a.ptr, b.ptr, c.ptr, o.alpha ?? 1, o.beta ?? 1);
      return this.result(c, A.rows, A.cols, A);
    });
  }

  transpose(A: DenseMatrix): Promise<DenseMatrix> {
    return this.withRegions(async (regions) => {
      const a = this.put(A, regions);
      const b = this.out(A.cols, A.rows, A, regions);
      await dense.transpose(this.B, A.dtype, A.rows, A.cols, a.ptr, b.ptr);
      return this.result(b, A.cols, A.rows, A);
    });
  }

  private result(r: Region, rows: number, cols: number, like: DenseMatrix, into?: DenseMatrix): DenseMatrix {
    const n = rows * cols * components(like.dtype);
    const view = r.view(like.values instanceof Float32Array ? 'f32' : 'f64', n);
    if (into) {
      into.values.set(view);
      return into;
    }
    return new DenseMatrix(rows, cols, like.dtype, view.slice());
  }
}

/** Shapes and dtypes of C = α·A + β·B. */
export function checkAdd(A: DenseMatrix, B: DenseMatrix): void {
  if (!(A instanceof DenseMatrix) || !(B instanceof DenseMatrix)) throw new TypeError('add: A and B must be DenseMatrix');
  A.validate();
  B.validate();
  if (A.dtype !== B.dtype) throw new ShapeError(`add: dtypes differ (A ${A.dtype}, B ${B.dtype})`);
  if (A.rows !== B.rows || A.cols !== B.cols) throw new ShapeError(`add: A is ${A.rows}×${A.cols} and B is ${B.rows}×${B.cols}`);
}

export function checkTranspose(A: DenseMatrix): void {
  if (!(A instanceof DenseMatrix)) throw new TypeError('transpose: A must be a DenseMatrix');
  A.validate();
}
