import type { DType, Scalar } from '../dtype.js';
import { elementBytes, isComplex, toComplex } from '../dtype.js';
import { ShapeError, UnsupportedError } from '../errors.js';
import type { CpuBackend } from './backend.js';
import type { KernelStep } from './spmv-plan.js';

/**
 * Dense operations on matrices resident in the backend's WebAssembly memory (row-major), split over
 * the pool by rows of the OUTPUT: each thread gets one contiguous row panel (chunk bounds rounded to
 * multiples of 4 rows, the gemm micro-kernel's height). An operation whose cost (multiply-adds for
 * gemm, elements for add/transpose) is under the backend's inlineThreshold runs on the calling thread.
 *
 * Kernels (assembly/dense.ts): gemm_pack_<dt> + gemm_packed_<dt> (SIMD build, m ≥ PACK_MIN_ROWS: B is
 * packed once into 32-byte column strips, shared read-only by all threads), gemm_<dt> (B in place:
 * plain build and short A), add_<dt>, transpose_<dt>, each in f32, f64, c64 and c128. Complex kernels
 * take α and β as (re, im) pairs; real ones refuse an imaginary part (UnsupportedError).
 */

/** A row-major matrix resident in the heap: element (i, j) at ptr + (i·ld + j)·elementBytes. */
export interface DenseRegion {
  /** byte offset of element (0, 0); 16-byte aligned like every heap region */
  ptr: number;
  rows: number;
  cols: number;
  /** leading dimension in elements (default cols) */
  ld?: number;
}

/** Rows of A from which gemm packs B (below it, packing k·n would cost about as much as the product). */
export const PACK_MIN_ROWS = 16;

const ld = (R: DenseRegion): number => R.ld ?? R.cols;

/**
 * Runs one kernel over output rows [0, rows) with cost `rowCost` per row: inline when small, else on
 * the pool in equal contiguous chunks (backend.run with a uniform cost prefix and a partition cache of
 * this call's own, since the bounds depend on the shape).
 */
function runRows(B: CpuBackend, kernel: string, args: number[], rows: number, rowCost: number): Promise<void> {
  if (rows <= 0) return Promise.resolve();
  const step: KernelStep = { kernel, args, start: 0, end: rows, prefix: (i) => i * Math.max(1, rowCost) };
  return B.run(new Map<string, Int32Array>(), () => [step]);
}

function checkLd(name: string, R: DenseRegion): void {
  if (!Number.isInteger(R.rows) || !Number.isInteger(R.cols) || R.rows < 0 || R.cols < 0) throw new ShapeError(`${name}: bad shape ${R.rows}×${R.cols}`);
  if (ld(R) < R.cols) throw new ShapeError(`${name}: leading dimension ${ld(R)} < cols ${R.cols}`);
}

/** The kernel arguments for α and β: (re, im) pairs for complex dtypes, reals (im must be 0) otherwise. */
function scalarArgs(what: string, dtype: DType, alpha: Scalar, beta: Scalar): number[] {
  const [ar, ai] = toComplex(alpha), [br, bi] = toComplex(beta);
  if (isComplex(dtype)) return [ar, ai, br, bi];
  if (ai !== 0 || bi !== 0) throw new UnsupportedError(`${what} on ${dtype} takes real α and β`);
  return [ar, br];
}

/** Multiply-adds of real arithmetic per complex one (the rows' cost for the inline threshold). */
const flopsPer = (dtype: DType): number => (isComplex(dtype) ? 4 : 1);

/**
 * C ← α·A·B + β·C in any dtype (complex α, β as [re, im]). Shapes: A m×k, B k×n, C m×n. β = 0: C is
 * not read (NaN in C does not survive); α = 0 or k = 0: A and B are not read. A, B must not overlap C.
 */
export async function gemm(B: CpuBackend, dtype: DType, A: DenseRegion, Bm: DenseRegion, C: DenseRegion, alpha: Scalar, beta: Scalar): Promise<void> {
  for (const [n, R] of [['A', A], ['B', Bm], ['C', C]] as const) checkLd(n, R);
  const m = A.rows, k = A.cols, n = Bm.cols;
  if (Bm.rows !== k || C.rows !== m || C.cols !== n) {
    throw new ShapeError(`gemm: A ${A.rows}×${A.cols} · B ${Bm.rows}×${Bm.cols} → C ${C.rows}×${C.cols} do not match`);
  }
  const s = scalarArgs('gemm', dtype, alpha, beta);
  if (m === 0 || n === 0) return;
  const rowCost = n * Math.max(k, 1) * flopsPer(dtype);
  const [ar, ai] = toComplex(alpha);
  if (B.flavor === 'simd' && m >= PACK_MIN_ROWS && k > 0 && (ar !== 0 || ai !== 0)) {
    const packed = B.heap.alloc(k * Math.ceil((n * elementBytes(dtype)) / 32) * 32);
    try {
      await runRows(B, `gemm_pack_${dtype}`, [Bm.ptr, packed.ptr, n, k, ld(Bm)], k, n);
      await runRows(B, `gemm_packed_${dtype}`, [A.ptr, packed.ptr, C.ptr, m, n, k, ld(A), ld(C), ...s], m, rowCost);
    } finally {
      packed.dispose();
    }
    return;
  }
  await runRows(B, `gemm_${dtype}`, [A.ptr, Bm.ptr, C.ptr, m, n, k, ld(A), ld(Bm), ld(C), ...s], m, rowCost);
}

/** The textbook triple loop (the baseline of the benchmarks), same contract as gemm. */
export async function gemmNaive(B: CpuBackend, dtype: DType, A: DenseRegion, Bm: DenseRegion, C: DenseRegion, alpha: Scalar, beta: Scalar): Promise<void> {
  if (Bm.rows !== A.cols || C.rows !== A.rows || C.cols !== Bm.cols) throw new ShapeError('gemmNaive: shapes do not match');
  const s = scalarArgs('gemm', dtype, alpha, beta);
  await runRows(B, `gemm_naive_${dtype}`, [A.ptr, Bm.ptr, C.ptr, A.rows, Bm.cols, A.cols, ld(A), ld(Bm), ld(C), ...s], A.rows, Bm.cols * Math.max(A.cols, 1) * flopsPer(dtype));
}

/**
 * C ← α·A + β·B elementwise, all three rows×cols and contiguous (ld = cols). Real dtypes take real α, β;
 * complex ones [re, im] pairs (or reals). β = 0: B not read; α = 0: A not read. C may be A or B.
 */
export async function add(B: CpuBackend, dtype: DType, rows: number, cols: number, a: number, b: number, c: number, alpha: Scalar, beta: Scalar): Promise<void> {
  await runRows(B, `add_${dtype}`, [a, b, c, cols, ...scalarArgs('add', dtype, alpha, beta)], rows, cols);
}

/**
 * B ← Aᵀ (no conjugation): A rows×cols at `a`, B cols×rows at `b`, both contiguous; must not overlap.
 * The pool splits the rows of B (= columns of A).
 */
export async function transpose(B: CpuBackend, dtype: DType, rows: number, cols: number, a: number, b: number): Promise<void> {
  await runRows(B, `transpose_${dtype}`, [a, b, rows, cols], cols, rows);
}
