/**
 * Banded LU with partial pivoting (LAPACK's gbtf2: right-looking on a dense band of kl + (kl + ku) + 1
 * diagonals, U widening by kl through the row interchanges), for matrices that store most of their
 * band, where it needs no ordering, no symbolic phase and no graph searches (MATLAB's backslash takes
 * its banded solver there too). The result is the same LuFactor as the sparse kernel's, natural
 * column order, so solve, refactor and info do not know which kernel ran. The kernels are WebAssembly
 * (BandLuNumeric, BandLdltNumeric: the symmetric band's LDLᵀ); the rows for the solve are here.
 */
import { reciprocalDiagonal, type LuFactor } from './lu.js';
import { MemoryLimitError } from '../../errors.js';
import { reserveMemory } from '../../memory-budget.js';

/** The band of A: its lower and upper bandwidths (max i − j and max j − i over the entries). */
export interface Band {
  lower: number;
  upper: number;
}

/**
 * The banded LU: factorizes the n×n matrix by columns (Ap/Ai/Ax, rows ascending, interleaved when
 * complex) whose entries lie within `band`. Rows are exchanged for the largest entry of the column
 * (|re| + |im| for complex), except that the diagonal row is kept when its entry is within `tol` of
 * that. Returns the factor (natural column order), or the step (= column) at which no nonzero finite
 * pivot was left. The CPU path runs it in WebAssembly (assembly/lu.ts lu_band); the band's bytes and
 * the factor's are in bandAnalysis's estimate, which the caller reserves before.
 */
export type BandLuNumeric = (n: number, Ap: Int32Array, Ai: Int32Array, Ax: Float64Array, complex: boolean, band: Band, tol: number) => LuFactor | number;

/**
 * The same factorization for a symmetric banded A (A = Aᵀ; complex symmetric too, without
 * conjugation) when every pivot stays on the diagonal: LDLᵀ on the lower band (a quarter of the band
 * LU's flops: no exchanges widen U), returned as the LuFactor L·U with U = D·Lᵀ (natural order, L's
 * zeros dropped). A pivot is kept under bandLu's rule (within `tol` of its column's largest entry,
 * |re| + |im|); when one is not, or is zero, it returns null and the caller runs bandLu, so the factor
 * is always the one threshold pivoting would give. A complex pivot's reciprocal is div([1, 0], d) of
 * krylov/complex.ts (range-safe: |d|² over- or underflows beyond 1e±154). The CPU path runs it in
 * WebAssembly (assembly/lu.ts lu_band_ldlt), within bandAnalysis's estimate like bandLu.
 */
export type BandLdltNumeric = (n: number, Ap: Int32Array, Ai: Int32Array, Ax: Float64Array, complex: boolean, lower: number, tol: number) => LuFactor | null;

/**
 * A real LU factor's strictly lower and upper triangles by rows, each row one contiguous run of
 * columns next to the diagonal (zeros stored where a row skips a column). U's rows lie within the
 * band widened by the exchanges (lower + upper); L's (in step order) need not: the row pivoted at step
 * s, row r of A, takes a multiplier from every step from r − lower on (when it entered the band)
 * until it is the pivot, so an exchange that carried it down widens its row.
 */
export interface BandRows {
  /** row s of L holds columns s − w .. s − 1 (w = Lptr[s + 1] − Lptr[s]), column j at Lptr[s + 1] − s + j */
  Lptr: Int32Array;
  L: Float64Array;
  /** row i of U holds columns i + 1 .. i + Uw[i], column k at i·uw + (k − i − 1) */
  uw: number;
  Uw: Int32Array;
  U: Float64Array;
  /** the row of A pivoted at each step (pinv's inverse) */
  rowOf: Int32Array;
}

/**
 * L and U by rows of a real factor in natural column order of a matrix within `band` (bandLu's,
 * BandLdltNumeric's, and the dense kernel's with the whole matrix as band), or null when the rows would hold
 * more than twice the factor's entries or exceed the memory budget. Two passes over the factor: the widths come from the band.
 */
export function bandRows(f: LuFactor, band: Band): BandRows | null {
  const { n, Lp, Li, Lx, Up, Ui, Ux, pinv } = f;
  const rowOf = new Int32Array(n);
  for (let r = 0; r < n; r++) rowOf[pinv[r]] = r;
  const Lptr = new Int32Array(n + 1);
  for (let s = 0; s < n; s++) Lptr[s + 1] = Lptr[s] + s - Math.max(0, Math.min(s, rowOf[s] - band.lower));
  const uw = Math.min(Math.max(0, n - 1), band.lower + band.upper);
  if (Lptr[n] + n * uw > 2 * (Lp[n] + Up[n])) return null;
  // counted in the factorization's memory budget; rows that would not fit are skipped (the column solve serves)
  try {
    reserveMemory(8 * (Lptr[n] + n * uw) + 4 * n, "factor: L and U by rows for the kept factor's solves");
  } catch (e) {
    if (e instanceof MemoryLimitError) return null;
    throw e;
  }
  const L = new Float64Array(Lptr[n]);
  const U = new Float64Array(n * uw);
  const Uw = new Int32Array(n);
  for (let j = 0; j < n; j++) {
    for (let p = Lp[j] + 1; p < Lp[j + 1]; p++) L[Lptr[Li[p] + 1] - Li[p] + j] = Lx[p];
    // columns in order: a row's last entry sets its width
    for (let p = Up[j]; p < Up[j + 1] - 1; p++) {
      const i = Ui[p];
      U[i * (uw - 1) + j - 1] = Ux[p];
      Uw[i] = j - i;
    }
  }
  return { Lptr, L, uw, Uw, U, rowOf };
}

/**
 * Gives a factor of a matrix within `band` (natural column order) its rows for bandSolve (null when
 * complex or too wide) and its reciprocal diagonal, with the factorization: made lazily by the first
 * solve they left the optimized solve compiled for that branch only, and the kept-factor solves after
 * a run of factorizations ran unoptimized (≈ 300 µs for olm1000's 25) until it was compiled again.
 * `once`: the factor serves one solve (rt.solve's), where the rows of a factor of BAND_KERNEL_MIN
 * entries or more (solved in the CPU path either way) cost more to make than they save: none then, and
 * the column form's solve (lu_solve, the same operations: the same x) runs instead — olm1000's
 * rt.solve ≈ 9 % less CPU; a smaller one keeps its rows, whose solve in JavaScript needs no region.
 */
export function keepBandRows(f: LuFactor, band: Band, once = false): void {
  f.rows = f.complex || (once && f.Lp[f.n] + f.Up[f.n] >= BAND_KERNEL_MIN) ? null : bandRows(f, band);
  f.dinv ??= reciprocalDiagonal(f);
}

/** A real factor's rows (keepBandRows) of at least this many entries (L's and U's stored) are solved in the CPU path (lu_band_solve), fewer by bandSolve here: t1's 4×4 ≈ 0.5 µs a solve slower in the kernel, olm1000's 1000 rows 22.9 → 19.3 µs faster. */
export const BAND_KERNEL_MIN = 1000;

/** Whether `f` is solved by bandSolve in JavaScript (a real factor with few rows' entries), not held in the CPU path. */
export function solvedInJs(f: LuFactor): boolean {
  const R = f.rows;
  return !!R && R.L.length + R.U.length < BAND_KERNEL_MIN;
}

/**
 * x ← A⁻¹·b through a real factor with rows from keepBandRows (b is not modified) by rows: each
 * unknown one dot product over its contiguous row, summed in a register, the term of the unknown
 * just computed last and read from a register (the column form's chain went through a store and a
 * load of x per update, and an index per entry), b's permutation read in the first pass. The same
 * products subtracted in the same order as lu_solve (assembly/lu.ts), plus exact zeros (0·x for finite x): the
 * same x. Returns false, having done nothing, when the factor has no rows. A factor of BAND_KERNEL_MIN
 * stored row entries or more solves by its rows in the CPU path instead (assembly/lu.ts lu_band_solve,
 * the same operations): below, this loop costs less than the kernel's call and copies.
 */
export function bandSolve(f: LuFactor, b: Float64Array, x: Float64Array): boolean {
  const R = f.rows;
  if (!R) return false;
  const dinv = f.dinv!;
  const { Lptr, L, uw, Uw, U, rowOf } = R;
  const n = f.n;
  let t = 0; // the unknown just computed
  for (let i = 0; i < n; i++) {
    let s = b[rowOf[i]];
    const o = Lptr[i + 1] - i;
    const j0 = Lptr[i] - o;
    if (j0 < i) {
      for (let j = j0; j < i - 1; j++) s -= L[o + j] * x[j];
      s -= L[o + i - 1] * t;
    }
    x[i] = t = s;
  }
  for (let i = n - 1; i >= 0; i--) {
    let s = x[i];
    const w = Uw[i];
    if (w > 0) {
      const o = i * (uw - 1) - 1;
      for (let k = i + w; k > i + 1; k--) s -= U[o + k] * x[k];
      s -= U[o + i + 1] * t;
    }
    x[i] = t = s * dinv[i];
  }
  return true;
}
