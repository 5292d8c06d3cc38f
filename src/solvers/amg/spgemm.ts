import { isComplex, type DType } from '../../dtype.js';
import { InputTypeError, ShapeError } from '../../errors.js';
import { shownTyped } from '../../shown-value.js';
import { CSRMatrix, isPrivateCanonical } from '../../formats/csr.js';
import type { SparseMatrix } from '../../formats/index.js';
import { withMemoryBudget } from '../../memory-budget.js';
import type { CoarseKernels } from './coarse.js';

/** The most entries an AMG level's Galerkin products may hold (hierarchy.ts OPERATOR_GROWTH), the level's number and the fine level's entries and rows. */
export interface GalerkinLimit {
  entries: number;
  level: number;
  fine: number;
}

/**
 * Sparse kernels for a host-side setup, called synchronously: the CPU path's (src/cpu/spgemm.ts, on
 * the worker pool) is the one the runtime passes. Operands are canonical CSR; each stays where the
 * kernels run (the WebAssembly memory) from its first use until release() or dispose().
 */
export interface SparseSession {
  /**
   * validateCanonical(M) (the same answer, the same FormatError) with its pass over the columns where
   * the kernels run; M, when canonical, stays there for a product of `dtype`
   */
  isCanonical(M: CSRMatrix, dtype: DType): boolean;
  /**
   * C = A·B of dtype `dtype` (A.cols = B.rows), columns ascending in each row, allocation checked
   * against the memory budget in scope; into `out`'s arrays (of C's shape and dtype: checked by the
   * caller) when given, which must have C's entries (else ShapeError, out unchanged)
   */
  spgemm(A: CSRMatrix, B: CSRMatrix, dtype: DType, out?: CSRMatrix): CSRMatrix;
  /**
   * The smoothed prolongator T + diag(scale)·A·T (scale = −ω·D⁻¹: P = (I − ω·D⁻¹A)·T) of a square A in
   * f64, in one product; the result stays where the kernels run for the Galerkin product
   */
  smoothedProlongator(A: CSRMatrix, T: CSRMatrix, scale: Float64Array): CSRMatrix;
  /**
   * fitCandidates(agg, count, 1, [b]) (src/solvers/amg/tentative.ts) and smoothedProlongator(A, T,
   * w·dinv) in one step for one candidate on scalar nodes, T made where the kernels run and never on
   * the host: the same P (kept there for the Galerkin product) and coarse candidate, bit for bit.
   * Undefined, having made nothing, where a node is in no aggregate (the caller takes the two steps).
   */
  smoothedTentative(A: CSRMatrix, agg: Int32Array, count: number, b: Float64Array, dinv: Float64Array, w: number): { P: CSRMatrix; coarse: Float64Array } | undefined;
  /** Mᵀ of a real M (canonical when M is), made where the kernels run, where it stays (the Galerkin product's R) */
  transpose(M: CSRMatrix): CSRMatrix;
  /**
   * R·(A·P) in f64 (A·P is not copied out); the result stays where the kernels run, the next level's A.
   * `limit`: either product holding more than `entries` (from a lower bound, before it is made) is amg's
   * UnsupportedError naming `level`
   */
  galerkin(R: CSRMatrix, A: CSRMatrix, P: CSRMatrix, limit?: GalerkinLimit): CSRMatrix;
  /**
   * lanczosBounds (src/solvers/precond/chebyshev.ts: the same start and steps) of a real A whose
   * inverse diagonal is dinv (all positive), its passes and vectors where the kernels run
   */
  lanczosBounds(A: CSRMatrix, dinv: Float64Array, steps: number): { min: number; max: number };
  /**
   * D⁻¹ of a real canonical square A (0 where the diagonal is not positive or not stored) and whether
   * every diagonal entry is positive, by a pass where the kernels run, which keeps √|aᵢᵢ| there for
   * aggregate(); after retain(), D⁻¹ may be read in place there as the products are (freed with them)
   */
  diagonal(A: CSRMatrix): { dinv: Float64Array; positive: boolean };
  /**
   * strengthAggregation(A, theta, undefined, blocks) (src/solvers/amg/aggregate.ts: the same
   * aggregates; blocks default to amgBlocks) where the kernels run; agg may be a view of their memory,
   * valid until release(agg) or dispose()
   */
  aggregate(A: CSRMatrix, theta: number, blocks?: Int32Array): { agg: Int32Array; count: number };
  /**
   * `sweeps` symmetric Gauss–Seidel sweeps (forward, then backward) on A·x = 0 from x, in place, in
   * blocks of rows (default amgBlocks): Gauss–Seidel within a block, Jacobi between blocks (each
   * half-sweep reads the other blocks' x as it was before it), so the result does not depend on the
   * threads; one block is plain Gauss–Seidel. A row whose diagonal is not positive is left alone
   */
  gaussSeidelOnZero(A: CSRMatrix, x: Float64Array, sweeps: number, blocks?: Int32Array): void;
  /**
   * From now on the products kept where the kernels run (smoothedProlongator, transpose, galerkin)
   * stay there past release() and dispose(), their host matrices read in place where they can be (no
   * copy); the function returned frees them, after which those matrices must not be read
   */
  retain(): () => void;
  /**
   * n ones (the default near-null space) where the kernels run when views of that memory stay valid
   * (gaussSeidelOnZero then smooths it in place and smoothedTentative reads it there: no copies on the
   * calling thread), else a host array; valid until release(v) or dispose()
   */
  ones(n: number): Float64Array;
  /** frees M's copy, or a vector the session handed out (ones(), aggregate()'s agg: not read after) */
  release(M: CSRMatrix | Float64Array | Int32Array): void;
  /** frees every copy */
  dispose(): void;
}

/** Opens a session of sparse kernels (see SparseSession). */
export interface SparseKernels {
  (): SparseSession;
  /** the sparse Cholesky kernels for the coarsest level (absent: it is inverted dense, up to MAX_COARSE rows) */
  coarse?: CoarseKernels;
}

/**
 * C = A·B for sparse matrices of any format (canonical CSR out; explicit zeros that cancel are kept,
 * as SciPy keeps them). Checks the shapes, converts both operands to canonical CSR (once: validated),
 * and runs the product in a session of `kernels` inside the memory budget `maxMemoryMB` (default: the
 * module's). The result's dtype: complex when either is, f32/c64 only when both are
 * single precision. With `out`, a CSRMatrix of C's shape, dtype and number of entries (an earlier
 * product of operands with the same patterns), C is written into its arrays and out returned.
 */
export function spgemm(A: SparseMatrix, B: SparseMatrix, kernels: SparseKernels, maxMemoryMB?: number, out?: CSRMatrix): CSRMatrix {
  return sparseProduct(A, B, kernels, maxMemoryMB, (s, a, b, dtype) => {
    if (out !== undefined) checkOut(out, A, B, dtype);
    return s.spgemm(a, b, dtype, out);
  });
}

/** out's type and shape against the product's (its entries are checked once the product has counted them). */
function checkOut(out: CSRMatrix, A: SparseMatrix, B: SparseMatrix, dtype: DType): void {
  if (!(out instanceof CSRMatrix)) throw new InputTypeError(`spgemm: out must be a CSRMatrix, got ${shownTyped(out)}`);
  // a matrix the library keeps and reads as immutable (a runtime's private copy) is never a caller's to overwrite
  if (isPrivateCanonical(out)) throw new InputTypeError("spgemm: out is a matrix the runtime owns (its private copy), not one of the caller's");
  if (out.rows !== A.rows || out.cols !== B.cols || out.dtype !== dtype) throw new ShapeError(`spgemm: out is ${out.rows}×${out.cols} ${out.dtype} and the product ${A.rows}×${B.cols} ${dtype}`);
}

/** spgemm's checks, operands and session, with `multiply` (rt.spgemm's handle product: one that keeps its result resident) run on them. */
export function sparseProduct<S extends SparseSession, T>(
  A: SparseMatrix,
  B: SparseMatrix,
  kernels: () => S,
  maxMemoryMB: number | undefined,
  multiply: (s: S, a: CSRMatrix, b: CSRMatrix, dtype: DType) => T,
): T {
  if (A.cols !== B.rows) throw new ShapeError(`spgemm: A is ${A.rows}×${A.cols} and B is ${B.rows}×${B.cols}; A's columns must equal B's rows`);
  return withMemoryBudget(maxMemoryMB, () => {
    const s = kernels();
    try {
      const dtype = productDType(A.dtype, B.dtype);
      const a = canonicalCSR(A, s, dtype);
      return multiply(s, a, B === A ? a : canonicalCSR(B, s, dtype), dtype);
    } finally {
      s.dispose();
    }
  });
}

/** M.toCSR(), a canonical CSR validated in one pass rather than two (validate, then the sortedness test), that pass in session `s`. */
function canonicalCSR(M: SparseMatrix, s: SparseSession, dtype: DType): CSRMatrix {
  return M instanceof CSRMatrix && (isPrivateCanonical(M) || s.isCanonical(M, dtype)) ? M : M.toCSR();
}

function productDType(a: DType, b: DType): DType {
  const complex = isComplex(a) || isComplex(b);
  const single = (a === 'f32' || a === 'c64') && (b === 'f32' || b === 'c64');
  return complex ? (single ? 'c64' : 'c128') : single ? 'f32' : 'f64';
}
