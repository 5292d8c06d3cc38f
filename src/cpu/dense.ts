import type { DType } from '../dtype.js';
import { elementBytes } from '../dtype.js';
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
 * plain build and short A), add_<dt>, transpose_<dt>. dtypes: gemm f32/f64, add f32/f64/c64,
 * transpose f32/f64/c64. c64 gemm and all c128 throw UnsupportedError.
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
  return B.run(new Map<string, Int32Array>(), [step]);
}

function checkLd(name: string, R: DenseRegion): void {
  if (!Number.isInteger(R.rows) || !Number.isInteger(R.cols) || R.rows < 0 || R.cols < 0) throw new ShapeError(`${name}: bad shape ${R.rows}×${R.cols}`);
  if (ld(R) < R.cols) throw new ShapeError(`${name}: leading dimension ${ld(R)} < cols ${R.cols}`);
}

/**
 * C ← α·A·B + β·C (real dtypes; α, β real). Shapes: A m×k, B k×n, C m×n. β = 0: C is not read (NaN in
 * C does not survive); α = 0 or k = 0: A and B are not read. A, B must not overlap C.
 */
export async function gemm(B: CpuBackend, dtype: DType, A: DenseRegion, Bm: DenseRegion, C: DenseRegion, alpha: number, beta: number): Promise<void> {
  if (dtype !== 'f32' && dtype !== 'f64') throw new UnsupportedError(`dense gemm on the CPU supports f32 and f64, not ${dtype}`);
  for (const [n, R] of [['A', A], ['B', Bm], ['C', C]] as const) checkLd(n, R);
  const m = A.rows, k = A.cols, n = Bm.cols;
  if (Bm.rows !== k || C.rows !== m || C.cols !== n) {
    throw new ShapeError(`gemm: A ${A.rows}×${A.cols} · B ${Bm.rows}×${Bm.cols} → C ${C.rows}×${C.cols} do not match`);
  }
  if (m === 0 || n === 0) return;
  const rowCost = n * Math.max(k, 1);
  if (B.flavor === 'simd' && m >= PACK_MIN_ROWS && k > 0 && alpha !== 0) {
    const packed = B.heap.alloc(k * Math.ceil((n * elementBytes(dtype)) / 32) * 32);
    try {
      await runRows(B, `gemm_pack_${dtype}`, [Bm.ptr, packed.ptr, n, k, ld(Bm)], k, n);
      await runRows(B, `gemm_packed_${dtype}`, [A.ptr, packed.ptr, C.ptr, m, n, k, ld(A), ld(C), alpha, beta], m, rowCost);
    } finally {
      packed.dispose();
    }
    return;
  }
  await runRows(B, `gemm_${dtype}`, [A.ptr, Bm.ptr, C.ptr, m, n, k, ld(A), ld(Bm), ld(C), alpha, beta], m, rowCost);
}

/** The textbook triple loop (the baseline of the benchmarks), same contract as gemm. */
export async function gemmNaive(B: CpuBackend, dtype: DType, A: DenseRegion, Bm: DenseRegion, C: DenseRegion, alpha: number, beta: number): Promise<void> {
  if (dtype !== 'f32' && dtype !== 'f64') throw new UnsupportedError(`dense gemm on the CPU supports f32 and f64, not ${dtype}`);
  if (Bm.rows !== A.cols || C.rows !== A.rows || C.cols !== Bm.cols) throw new ShapeError('gemmNaive: shapes do not match');
  await runRows(B, `gemm_naive_${dtype}`, [A.ptr, Bm.ptr, C.ptr, A.rows, Bm.cols, A.cols, ld(A), ld(Bm), ld(C), alpha, beta], A.rows, Bm.cols * Math.max(A.cols, 1));
}

/**
 * C ← α·A + β·B elementwise, all three rows×cols and contiguous (ld = cols). f32/f64 take real α, β;
 * c64 takes [re, im] pairs. β = 0: B not read; α = 0: A not read. C may be A or B.
 */
export async function add(
  B: CpuBackend,
  dtype: DType,
  rows: number,
  cols: number,
  a: number,
  b: number,
  c: number,
  alpha: number | readonly [number, number],
  beta: number | readonly [number, number],
): Promise<void> {
  const pair = (s: number | readonly [number, number]): [number, number] => (typeof s === 'number' ? [s, 0] : [s[0], s[1]]);
  let args: number[];
  if (dtype === 'f32' || dtype === 'f64') {
    const [ar, ai] = pair(alpha), [br, bi] = pair(beta);
    if (ai !== 0 || bi !== 0) throw new UnsupportedError(`add on ${dtype} takes real α and β`);
    args = [a, b, c, cols, ar, br];
  } else if (dtype === 'c64') {
    args = [a, b, c, cols, ...pair(alpha), ...pair(beta)];
  } else throw new UnsupportedError(`dense add on the CPU supports f32, f64 and c64, not ${dtype}`);
  await runRows(B, `add_${dtype}`, args, rows, cols);
}

/**
 * B ← Aᵀ (no conjugation): A rows×cols at `a`, B cols×rows at `b`, both contiguous; must not overlap.
 * The pool splits the rows of B (= columns of A).
 */
export async function transpose(B: CpuBackend, dtype: DType, rows: number, cols: number, a: number, b: number): Promise<void> {
  await runRows(B, `transpose_${dtype}`, [a, b, rows, cols], cols, rows);
}
