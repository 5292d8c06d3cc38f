/**
 * Banded LU with partial pivoting (LAPACK's gbtf2: right-looking on a dense band of kl + (kl + ku) + 1
 * diagonals, U widening by kl through the row interchanges), for matrices that store most of their
 * band, where it needs no ordering, no symbolic phase and no graph searches (MATLAB's backslash takes
 * its banded solver there too). The result is the same LuFactor as the sparse kernel's, natural
 * column order, so solve, refactor and info do not know which kernel ran. The general band's kernel
 * is WebAssembly (BandLuNumeric); the symmetric band's LDLᵀ and the rows for the solve are here.
 */
import { reciprocalDiagonal, type LuFactor } from './lu.js';
import { div } from '../krylov/complex.js';
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
 * LU's flops: no exchanges widen U), returned as the LuFactor L·U with U = D·Lᵀ. A pivot is kept
 * under bandLu's rule (within `tol` of its column's largest entry, |re| + |im|); when one is not, or
 * is zero, it returns null and the caller runs bandLu, so the factor is always the one threshold
 * pivoting would give.
 */
export function bandLdlt(n: number, Ap: Int32Array, Ai: Int32Array, Ax: Float64Array, complex: boolean, lower: number, tol: number): LuFactor | null {
  const c = complex ? 2 : 1;
  const kl = lower;
  const ld = kl + 1;
  // column j holds rows j .. j + kl: row i at (j·ld + i − j)
  const W = new Float64Array(n * ld * c);
  for (let j = 0; j < n; j++) for (let p = Ap[j]; p < Ap[j + 1]; p++) {
    const i = Ai[p];
    if (i < j) continue;
    const at = (j * ld + i - j) * c;
    W[at] = Ax[c * p];
    if (c === 2) W[at + 1] = Ax[2 * p + 1];
  }
  for (let j = 0; j < n; j++) {
    const last = Math.min(n - 1, j + kl);
    const col = (j * ld - j) * c; // + i·c: row i of column j
    const dr = W[col + c * j];
    const di = c === 2 ? W[col + 2 * j + 1] : 0;
    const dmag = Math.abs(dr) + Math.abs(di);
    let best = dmag;
    let sum = dmag;
    for (let i = j + 1; i <= last; i++) {
      const v = c === 1 ? Math.abs(W[col + i]) : Math.abs(W[col + 2 * i]) + Math.abs(W[col + 2 * i + 1]);
      sum += v;
      if (v > best) best = v;
    }
    if (!(dmag > 0) || dmag < tol * best || !(sum < Infinity)) return null;
    if (c === 1) {
      const inv = 1 / dr;
      for (let i = j + 1; i <= last; i++) W[col + i] *= inv;
      // W(i, k) −= l_i · (l_k · d): the Schur complement's lower band
      let k = j + 1;
      for (; k < last; k += 2) {
        const t0 = W[col + k] * dr;
        const t1 = W[col + k + 1] * dr;
        const c0 = k * ld - k;
        const c1 = c0 + ld - 1;
        W[c0 + k] -= W[col + k] * t0;
        for (let i = k + 1; i <= last; i++) {
          const l = W[col + i];
          W[c0 + i] -= l * t0;
          W[c1 + i] -= l * t1;
        }
      }
      if (k === last) W[k * ld] -= W[col + k] * W[col + k] * dr;
    } else {
      // range-safe: |d|² over- or underflows beyond 1e±154
      const [ir, ii] = div([1, 0], [dr, di]);
      for (let i = j + 1; i <= last; i++) {
        const a = W[col + 2 * i];
        const b = W[col + 2 * i + 1];
        W[col + 2 * i] = a * ir - b * ii;
        W[col + 2 * i + 1] = a * ii + b * ir;
      }
      // two columns at a time (half the passes over the multipliers), the first one's diagonal apart
      let k = j + 1;
      for (; k < last; k += 2) {
        const lr = W[col + 2 * k];
        const li = W[col + 2 * k + 1];
        const tr = lr * dr - li * di;
        const ti = lr * di + li * dr;
        const mr = W[col + 2 * k + 2];
        const mi = W[col + 2 * k + 3];
        const ur = mr * dr - mi * di;
        const ui = mr * di + mi * dr;
        const c0 = (k * ld - k) * 2;
        const c1 = c0 + (ld - 1) * 2;
        W[c0 + 2 * k] -= lr * tr - li * ti;
        W[c0 + 2 * k + 1] -= lr * ti + li * tr;
        for (let i = k + 1; i <= last; i++) {
          const ar = W[col + 2 * i];
          const ai = W[col + 2 * i + 1];
          W[c0 + 2 * i] -= ar * tr - ai * ti;
          W[c0 + 2 * i + 1] -= ar * ti + ai * tr;
          W[c1 + 2 * i] -= ar * ur - ai * ui;
          W[c1 + 2 * i + 1] -= ar * ui + ai * ur;
        }
      }
      if (k === last) {
        const lr = W[col + 2 * k];
        const li = W[col + 2 * k + 1];
        const c0 = (k * ld - k) * 2;
        W[c0 + 2 * k] -= lr * (lr * dr - li * di) - li * (lr * di + li * dr);
        W[c0 + 2 * k + 1] -= lr * (lr * di + li * dr) + li * (lr * dr - li * di);
      }
    }
  }
  // L from the band (nonzeros), U = D·Lᵀ by columns: U(j, k) = d_j · L(k, j), then d_k
  const Lp = new Int32Array(n + 1);
  const Up = new Int32Array(n + 1);
  let lnz = 0;
  let unz = 0;
  for (let j = 0; j < n; j++) {
    const last = Math.min(n - 1, j + kl);
    const col = (j * ld - j) * c;
    lnz++;
    for (let i = j + 1; i <= last; i++) if (W[col + c * i] !== 0 || (c === 2 && W[col + 2 * i + 1] !== 0)) lnz++;
  }
  unz = lnz; // the same pattern, transposed
  const Li = new Int32Array(lnz);
  const Lx = new Float64Array(lnz * c);
  const Ui = new Int32Array(unz);
  const Ux = new Float64Array(unz * c);
  lnz = 0;
  for (let j = 0; j < n; j++) {
    const last = Math.min(n - 1, j + kl);
    const col = (j * ld - j) * c;
    Lp[j] = lnz;
    Li[lnz] = j;
    Lx[c * lnz] = 1;
    lnz++;
    for (let i = j + 1; i <= last; i++) {
      const re = W[col + c * i];
      const im = c === 2 ? W[col + 2 * i + 1] : 0;
      if (re === 0 && im === 0) continue;
      Li[lnz] = i;
      Lx[c * lnz] = re;
      if (c === 2) Lx[c * lnz + 1] = im;
      lnz++;
    }
  }
  Lp[n] = lnz;
  unz = 0;
  for (let k = 0; k < n; k++) {
    Up[k] = unz;
    for (let j = Math.max(0, k - kl); j < k; j++) {
      const at = (j * ld + k - j) * c;
      const lr = W[at];
      const li = c === 2 ? W[at + 1] : 0;
      if (lr === 0 && li === 0) continue;
      const d = (j * ld) * c;
      const dr = W[d];
      const di = c === 2 ? W[d + 1] : 0;
      Ui[unz] = j;
      Ux[c * unz] = dr * lr - di * li;
      if (c === 2) Ux[c * unz + 1] = dr * li + di * lr;
      unz++;
    }
    Ui[unz] = k;
    Ux[c * unz] = W[k * ld * c];
    if (c === 2) Ux[c * unz + 1] = W[k * ld * c + 1];
    unz++;
  }
  Up[n] = unz;
  const q = new Int32Array(n);
  for (let k = 0; k < n; k++) q[k] = k;
  return { n, complex, Lp, Li, Lx, Up, Ui, Ux, pinv: q.slice(), q };
}

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
 * bandLdlt's, and the dense kernel's with the whole matrix as band), or null when the rows would hold
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
 */
export function keepBandRows(f: LuFactor, band: Band): void {
  f.rows = f.complex ? null : bandRows(f, band);
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
