/**
 * Up-looking LDLᵀ of a symmetric matrix (the scheme of Davis's LDL package): row k of L is the
 * solution of a sparse triangular system whose pattern is the row subtree of k in the elimination tree,
 * so the factor is built row by row into columns sized by the symbolic column counts. It serves
 * Cholesky too: A = L·D·Lᵀ with every D > 0 is A = (L√D)(L√D)ᵀ, and the solve never needs √D.
 * No pivoting: the ordering is fixed by the symbolic phase (a zero or, for Cholesky, non-positive
 * pivot stops the factorization at its column).
 */
import type { Csc } from './pattern.js';

/** The numeric factor: unit lower L by columns (diagonal not stored) and the diagonal D. */
export interface LdlFactor {
  Lp: Int32Array;
  Li: Int32Array;
  Lx: Float64Array;
  D: Float64Array;
  /** every column full (denseLdl's: column j holds rows j + 1 … n − 1 in order), solved without reading Li */
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

/** y ← (L·D·Lᵀ)⁻¹·y in place, for one right-hand side held in y (already permuted). */
export function ldlSolveInPlace(f: LdlFactor, y: Float64Array): void {
  const { Lp, Li, Lx, D } = f;
  const n = D.length;
  if (f.dense) {
    denseLdlSolve(Lx, D, y);
    return;
  }
  for (let j = 0; j < n; j++) {
    const yj = y[j];
    if (yj !== 0) for (let p = Lp[j]; p < Lp[j + 1]; p++) y[Li[p]] -= Lx[p] * yj;
  }
  for (let j = 0; j < n; j++) y[j] /= D[j];
  // two partial sums: half the chain of dependent subtractions
  for (let j = n - 1; j >= 0; j--) {
    let s0 = y[j];
    let s1 = 0;
    let p = Lp[j];
    const e = Lp[j + 1];
    for (; p + 1 < e; p += 2) {
      s0 -= Lx[p] * y[Li[p]];
      s1 -= Lx[p + 1] * y[Li[p + 1]];
    }
    if (p < e) s0 -= Lx[p] * y[Li[p]];
    y[j] = s0 + s1;
  }
}

/**
 * The dense LDLᵀ's elimination (assembly/ldl.ts ldl_dense, run by the CPU path's WebAssembly): W, n×n
 * column-major holding A's lower triangle, is overwritten with the unit L below its diagonal, D
 * written. Returns -1, or the first column whose pivot is zero (not finite), or not positive when
 * `positive`.
 */
export type DenseLdlKernel = (n: number, W: Float64Array, D: Float64Array, positive: boolean) => number;

/** The LDLᵀ kernels the CPU path gives the solver layer: the up-looking sparse one and the dense one. */
export interface LdlKernels {
  sparse: LdlNumeric;
  dense: DenseLdlKernel;
}

/**
 * LDLᵀ of a small symmetric matrix held dense (A by columns, both triangles stored, natural order):
 * right-looking on the lower triangle of an n×n array (`kernel`), the factor then packed as
 * LdlFactor with every column full (ldlSolveInPlace solves with it). Returns the factor, or the first
 * column whose pivot is zero (not finite), or not positive when `positive` — the column the sparse kernel
 * would name.
 */
export function denseLdl(n: number, Ap: Int32Array, Ai: Int32Array, Ax: Float64Array, positive: boolean, kernel: DenseLdlKernel): LdlFactor | number {
  const W = new Float64Array(n * n);
  for (let j = 0; j < n; j++) for (let p = Ap[j]; p < Ap[j + 1]; p++) if (Ai[p] >= j) W[Ai[p] + j * n] = Ax[p];
  const D = new Float64Array(n);
  const k = kernel(n, W, D, positive);
  if (k >= 0) return k;
  const Lp = new Int32Array(n + 1);
  for (let j = 0; j < n; j++) Lp[j + 1] = Lp[j] + n - 1 - j;
  const Li = new Int32Array(Lp[n]);
  const Lx = new Float64Array(Lp[n]);
  for (let j = 0, p = 0; j < n; j++) {
    for (let i = j + 1; i < n; i++, p++) {
      Li[p] = i;
      Lx[p] = W[i + j * n];
    }
  }
  return { Lp, Li, Lx, D, dense: true };
}

/**
 * ldlSolveInPlace for denseLdl's factor: the rows are known, so the loops run over contiguous ranges,
 * two columns (forward) and two rows (backward) per pass over y.
 */
function denseLdlSolve(Lx: Float64Array, D: Float64Array, y: Float64Array): void {
  const n = D.length;
  // column j's entries (rows j + 1 … n − 1) start at p; column j + 1's at p + n − 1 − j
  let j = 0;
  let p = 0;
  for (; j + 1 < n; j += 2) {
    const q = p + n - 1 - j;
    const y0 = y[j];
    const y1 = (y[j + 1] -= Lx[p] * y0);
    for (let i = j + 2, a = p + 1, b = q; i < n; i++, a++, b++) y[i] -= Lx[a] * y0 + Lx[b] * y1;
    p = q + n - 2 - j;
  }
  for (let k = 0; k < n; k++) y[k] /= D[k];
  // backward: rows j and j − 1 together (both sum over rows i > j), then L(j, j − 1)·y_j
  j = n - 1;
  p = Lx.length;
  for (; j >= 1; j -= 2) {
    const p0 = p - (n - 1 - j); // column j
    const p1 = p0 - (n - j); // column j − 1: rows j … n − 1
    let s0 = y[j];
    let s1 = y[j - 1];
    for (let i = j + 1, a = p0, b = p1 + 1; i < n; i++, a++, b++) {
      const yi = y[i];
      s0 -= Lx[a] * yi;
      s1 -= Lx[b] * yi;
    }
    y[j] = s0;
    y[j - 1] = s1 - Lx[p1] * s0;
    p = p1;
  }
  if (j === 0) {
    let s0 = y[0];
    for (let i = 1, a = p - (n - 1); i < n; i++, a++) s0 -= Lx[a] * y[i];
    y[0] = s0;
  }
}
