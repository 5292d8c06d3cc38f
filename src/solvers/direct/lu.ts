/**
 * Left-looking sparse LU with partial pivoting (Gilbert & Peierls 1988, as in CSparse's cs_lu and
 * KLU): column k of L and U is the solution of L·x = A(:, q[k]), a sparse triangular solve whose
 * pattern is found first by a depth-first search of L's graph (its cost is proportional to the flops,
 * not to n); the pivot is the largest entry among rows not yet pivotal (|re| + |im| for complex, as
 * LAPACK's izamax: no square root per candidate), except that the diagonal entry is kept when it is
 * within `tol` of that (threshold pivoting: the fill-reducing symmetric
 * ordering survives where the matrix allows). Real and complex (interleaved) values. Once the trailing
 * block is nearly full (denseStart) it is factorized dense, LAPACK's getrf unblocked with the same
 * pivot rule (the classic switch to dense code of MA48 and UMFPACK: index-free loops run several times
 * faster than the sparse kernel's gathers). The kernel itself is WebAssembly (assembly/lu.ts).
 */

import type { BandLdltNumeric, BandLuNumeric, BandRows } from './band-lu.js';
import type { Steps } from './steps.js';
import { div } from '../krylov/complex.js';

/** The factor P·A·Q = L·U: L unit lower (diagonal stored first, = 1), U upper (diagonal last). */
export interface LuFactor {
  n: number;
  complex: boolean;
  Lp: Int32Array;
  Li: Int32Array;
  Lx: Float64Array;
  Up: Int32Array;
  Ui: Int32Array;
  Ux: Float64Array;
  /** pinv[row] = the step at which that row was the pivot */
  pinv: Int32Array;
  /** q[k] = the column of A eliminated at step k */
  q: Int32Array;
  /** 1 / U(k, k) (re, im interleaved for complex), made with the factorization (Factorization.numeric); the solve needs it */
  dinv?: Float64Array;
  /**
   * ordering 'btf': L and U are those of the diagonal blocks only (block t: steps starts[t] ..
   * starts[t + 1]), and F the entries above them as A holds them, by step columns (Fp, Fi: rows as
   * pivot steps; Fx): no fill, and no update by L. Its solves run block by block from the last
   * (assembly/btf.ts btf_solve), each block's F entries times its solution taken off the blocks before.
   */
  blocks?: { starts: Int32Array; Fp: Int32Array; Fi: Int32Array; Fx: Float64Array };
  /**
   * L's and U's arrays (Li, Lx, Ui, Ux: views) left in the path's memory where the numeric phase wrote
   * them: their byte addresses there, which a held solve reads in place (LuKernels.hold), and release(),
   * which frees them (the factor's arrays are then unusable): the Factorization calls it when it lets
   * the factor go, else the collection of this object does.
   */
  inPlace?: { Li: number; Lx: number; Ui: number; Ux: number; release(): void };
  /** a banded or dense factor's L and U by rows (null: complex or too wide), from keepBandRows (band-lu.ts) */
  rows?: BandRows | null;
}

/** A trailing block of the factor is factorized dense when its columns' symbolic counts fill at least this fraction of it… */
const DENSE_MIN_DENSITY = 0.8;
/** …and it has at least this many columns (below, the switch saves nothing measurable). */
const DENSE_MIN_COLUMNS = 16;

/**
 * The step from which luFactor goes dense: the largest trailing block whose Cholesky column counts
 * (of the ordered pattern: `counts[k]` entries in column k, diagonal included) fill at least
 * DENSE_MIN_DENSITY of its lower triangle; n when there is none. Measured (min CPU time, 2026-11-26):
 * young1c's LU 1.62 → 1.38 ms (the last 48 columns dense), west0479's 0.55 → 0.38 ms (64), qc324's
 * 8.7 → 8.0 ms (128); making the whole of qc324 dense costs 12.2 ms.
 */
export function denseStart(counts: Int32Array, from = 0, to = counts.length): number {
  // within counts[from .. to) (a diagonal block's own columns: denseWindow)
  let start = to;
  let sum = 0;
  for (let k = to - 1; k >= from; k--) {
    sum += counts[k];
    const m = to - k;
    if (m >= DENSE_MIN_COLUMNS && sum >= (DENSE_MIN_DENSITY * m * (m + 1)) / 2) start = k;
  }
  return start;
}

/**
 * The dense window of a block triangular ordering ('btf'): denseStart within each diagonal block (a
 * tree of the postordered forest `parent`, rooted at its last column: `counts` are its own), the
 * block with the most dense columns kept. [from, to), or [n, n) when no block has a dense tail.
 */
export function denseWindow(counts: Int32Array, parent: Int32Array): [number, number] {
  const n = counts.length;
  let best: [number, number] = [n, n];
  for (let s = 0, e = 0; e < n; e++) {
    if (parent[e] !== -1) continue;
    // offsets, not a subarray per tree (west0479's 166: 16 KB of garbage a factorization)
    const from = denseStart(counts, s, e + 1);
    if (e + 1 - from > best[1] - best[0]) best = [from, e + 1];
    s = e + 1;
  }
  return best;
}

/**
 * Ordering 'btf' for the sparse LU (LuNumeric's `rows`): A's row r is row matchOf[r] of B, whose
 * diagonal is the transversal's, and blockOf[j] is the diagonal block of B's column (and row) j. The
 * kernel then factorizes B's diagonal blocks only, leaving out the entries above them (LuFactor.blocks
 * keeps those apart), and the factor's pinv is over A's rows.
 */
export interface BlockRows {
  matchOf: Int32Array;
  blockOf: Int32Array;
  /** the entries of A above the diagonal blocks (the factor's `blocks` holds them) */
  above: number;
}

/** Growth of the factor's arrays: called with the bytes a larger array adds, before allocating; may throw. */
export type GrowCheck = (bytes: number) => void;

/**
 * The numeric phase: factorizes the n×n matrix by columns (Ap/Ai/Ax, interleaved when complex) in
 * column order q, with the pivot rule above and threshold `tol`. `guess` is the expected nnz of L (and
 * of U); they grow by half when it is exceeded, `grow` told of the bytes first (it may throw). Columns
 * from step `denseFrom` (default n) to `denseTo` (default n) are factorized as one dense block (see
 * denseStart and denseWindow; their L and U are stored dense); a window that ends before n must be the
 * tail of a diagonal block of a block upper triangular matrix (ordering 'btf', `rows`: BlockRows, the
 * kernel reading A's columns through it; the factor's `blocks` then holds the entries above the blocks). Returns the factor, or
 * the step k at which no nonzero pivot was left (a singular matrix). The CPU path runs it in WebAssembly (src/cpu/lu.ts, assembly/lu.ts); the solver layer
 * receives it from the runtime.
 */
export type LuNumeric = (
  n: number, Ap: Int32Array, Ai: Int32Array, Ax: Float64Array, complex: boolean, q: Int32Array, tol: number, guess: number, grow: GrowCheck, denseFrom?: number, denseTo?: number, rows?: BlockRows,
) => LuFactor | number;

/** LuNumeric as steps (steps.ts): with `paused`, the kernel runs as ranges of steps and yields between them; the same factor, bit for bit. */
export type LuNumericSteps = (
  n: number, Ap: Int32Array, Ai: Int32Array, Ax: Float64Array, complex: boolean, q: Int32Array, tol: number, guess: number, grow: GrowCheck, denseFrom?: number, denseTo?: number, rows?: BlockRows, paused?: boolean,
) => Steps<LuFactor | number>;

/**
 * x ← A⁻¹·b through a kept factor (assembly/lu.ts lu_solve, run by the CPU path's WebAssembly), real or
 * interleaved complex: b scattered by pinv, L·U solved, gathered into x by q (b is not modified).
 * f.dinv must be set (reciprocalDiagonal): U's diagonal is applied as a product with it — the backward
 * substitution is a chain through each diagonal, where a division's latency costs several times a
 * product's (olm1000's kept-factor solve: see docs/direct.md).
 */
export type LuSolve = (f: LuFactor, b: Float64Array, x: Float64Array) => void;

/**
 * A kept factor copied once into a path's memory with the solve's work vectors (LuKernels.hold): each
 * solve then copies only b in and x out, where LuSolve copies the whole factor every call.
 */
export interface HeldSolve {
  /** bytes it holds in the path's memory */
  bytes: number;
  /** x ← A⁻¹·b, the same operations as LuSolve (b is not modified) */
  solve(b: Float64Array, x: Float64Array): void;
  /** frees what it holds (later solves throw DisposedError) */
  dispose(): void;
}

/** The LU kernels the runtime gives the solver layer: the sparse one, the banded ones (band-lu.ts), and the kept factor's solve, once or held. */
export interface LuKernels {
  sparse: LuNumeric;
  /** the sparse kernel as steps (rt.factor with a signal pauses at them) */
  sparseSteps: LuNumericSteps;
  band: BandLuNumeric;
  bandLdlt: BandLdltNumeric;
  solve: LuSolve;
  hold: (f: LuFactor) => HeldSolve;
}

/** 1 / U(k, k) for every k (U's diagonal is each column's last entry). */
export function reciprocalDiagonal(f: LuFactor): Float64Array {
  const { n, Up, Ux } = f;
  if (!f.complex) {
    const r = new Float64Array(n);
    for (let j = 0; j < n; j++) r[j] = 1 / Ux[Up[j + 1] - 1];
    return r;
  }
  const r = new Float64Array(2 * n);
  for (let j = 0; j < n; j++) {
    const d = Up[j + 1] - 1;
    const ur = Ux[2 * d];
    const ui = Ux[2 * d + 1];
    // range-safe: |u|² over- or underflows beyond 1e±154
    [r[2 * j], r[2 * j + 1]] = div([1, 0], [ur, ui]);
  }
  return r;
}
