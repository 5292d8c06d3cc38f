/**
 * Up-looking LDLᵀ of a symmetric matrix (the scheme of Davis's LDL package): row k of L is the
 * solution of a sparse triangular system whose pattern is the row subtree of k in the elimination tree,
 * so the factor is built row by row into columns sized by the symbolic column counts. It serves
 * Cholesky too: A = L·D·Lᵀ with every D > 0 is A = (L√D)(L√D)ᵀ, and the solve never needs √D.
 * No pivoting: the ordering is fixed by the symbolic phase (a zero or, for Cholesky, non-positive
 * pivot stops the factorization at its column).
 */
import type { Steps } from './steps.js';
import type { Csc } from './pattern.js';
import type { HeldSolve } from './lu.js';

/** The numeric factor: unit lower L by columns (diagonal not stored) and the diagonal D. */
export interface LdlFactor {
  Lp: Int32Array;
  Li: Int32Array;
  Lx: Float64Array;
  D: Float64Array;
  /** a dense factor (denseLdl's): Lx is the n×n array column-major, L below its diagonal; Lp and Li are empty, and the solve reads none of them */
  dense?: boolean;
}

/** Pointers of the unit L from the column counts (which include the diagonal). */
export function ldlPointers(counts: Int32Array): Int32Array {
  const n = counts.length;
  const Lp = new Int32Array(n + 1);
  for (let j = 0; j < n; j++) Lp[j + 1] = Lp[j] + counts[j] - 1;
  return Lp;
}

/**
 * The up-looking numeric phase (assembly/ldl.ts, run by the CPU path's WebAssembly): A (by columns,
 * both triangles) factorized in the order pinv along the elimination tree `parent`, into `f` (Lp from
 * the symbolic column counts; Li, Lx and D preallocated). Returns -1, or the first step whose pivot is
 * zero (not finite), or not positive when `positive`.
 */
export type LdlNumeric = (A: Csc, pinv: Int32Array, parent: Int32Array, f: LdlFactor, positive: boolean) => number;
/** LdlNumeric as steps (steps.ts): with `paused`, the kernel runs as ranges of steps and yields between them; the same factor, bit for bit. */
export type LdlNumericSteps = (A: Csc, pinv: Int32Array, parent: Int32Array, f: LdlFactor, positive: boolean, paused?: boolean) => Steps<number>;

/**
 * x ← A⁻¹·b through a kept factor (assembly/ldl.ts ldl_solve, run by the CPU path's WebAssembly): b
 * gathered into the factor's order perm, L·D·Lᵀ solved, scattered back into x (b is not modified).
 */
export type LdlSolve = (f: LdlFactor, perm: Int32Array, b: Float64Array, x: Float64Array) => void;

/**
 * The dense LDLᵀ (assembly/ldl.ts ldl_dense, run by the CPU path's WebAssembly) of A by columns (both
 * triangles stored, natural order): its lower triangle eliminated in an n×n array, returned with L
 * below its diagonal (column-major) and D. Returns them, or the first column whose pivot is zero (not
 * finite), or not positive when `positive`.
 */
export type DenseLdlKernel = (n: number, Ap: Int32Array, Ai: Int32Array, Ax: Float64Array, positive: boolean) => { W: Float64Array; D: Float64Array } | number;

/** The LDLᵀ kernels the CPU path gives the solver layer: the up-looking sparse one, the dense one, and the kept factor's solve, once or held (copied once into the path's memory). */
export interface LdlKernels {
  sparse: LdlNumeric;
  /** the sparse kernel as steps (rt.factor with a signal pauses at them) */
  sparseSteps: LdlNumericSteps;
  dense: DenseLdlKernel;
  solve: LdlSolve;
  hold: (f: LdlFactor, perm: Int32Array) => HeldSolve;
}

/**
 * LDLᵀ of a small symmetric matrix held dense (A by columns, both triangles stored, natural order):
 * right-looking on the lower triangle of an n×n array (`kernel`), the factor that array (LdlFactor's
 * dense case). Returns the factor, or the first column whose pivot is zero (not finite), or not
 * positive when `positive` — the column the sparse kernel would name.
 */
export function denseLdl(n: number, Ap: Int32Array, Ai: Int32Array, Ax: Float64Array, positive: boolean, kernel: DenseLdlKernel): LdlFactor | number {
  const r = kernel(n, Ap, Ai, Ax, positive);
  if (typeof r === 'number') return r;
  return { Lp: new Int32Array(0), Li: new Int32Array(0), Lx: r.W, D: r.D, dense: true };
}
