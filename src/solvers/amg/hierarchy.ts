import { CSRMatrix } from '../../formats/csr.js';
import { lanczosBounds } from '../precond/chebyshev.js';
import { standardAggregation, symmetricStrength } from './aggregate.js';
import { spgemm } from './spgemm.js';

/** Options of the smoothed-aggregation setup. */
export interface AmgOptions {
  /** strength threshold θ of the symmetric strength of connection (default 0: every off-diagonal is strong) */
  theta?: number;
  /** coarsen until a level has at most this many rows, then solve it directly (default 500) */
  maxCoarse?: number;
  /** most levels, the direct one included (default 10) */
  maxLevels?: number;
  /** Jacobi sweeps before and after the coarse correction (default 1) */
  sweeps?: number;
}

/** One level of the hierarchy: its matrix, D⁻¹, and the transfer to the next coarser level. */
export interface AmgLevel {
  A: CSRMatrix;
  /** inverse of A's diagonal (0 where the diagonal is 0) */
  dinv: Float64Array;
  /** ρ(D⁻¹A) estimated from below by Lanczos, ×1.1 */
  rho: number;
  /** prolongator to this level from the next (absent on the coarsest) */
  P?: CSRMatrix;
  /** restriction Pᵀ */
  R?: CSRMatrix;
}

/** Why coarsening stopped. */
export type AmgStop = 'size' | 'maxLevels' | 'stalled';

export interface AmgHierarchy {
  levels: AmgLevel[];
  /** the coarsest matrix's (pseudo-)inverse, dense row-major */
  coarseInverse: Float64Array;
  stop: AmgStop;
  /** a sentence saying why it stopped */
  stopReason: string;
  options: Required<AmgOptions>;
  setupMs: number;
}

export const AMG_DEFAULTS: Required<AmgOptions> = { theta: 0, maxCoarse: 500, maxLevels: 10, sweeps: 1 };

/**
 * PyAMG's smoothed_aggregation_solver with its defaults for a real symmetric A with a positive
 * diagonal: symmetric strength (θ), standard aggregation, a tentative prolongator from the constant
 * near-null space (each aggregate's column is 1/√|aggregate| on its nodes: the QR of the constant
 * restricted to it), P = (I − ω·D⁻¹A)·T with ω = (4/3)/ρ(D⁻¹A), R = Pᵀ, A_c = R·A·P by SpGEMM.
 * Stops at maxCoarse rows, at maxLevels, or when aggregation no longer shrinks the level.
 */
export function buildHierarchy(A: CSRMatrix, options: AmgOptions = {}): AmgHierarchy {
  const t0 = performance.now();
  const o = { ...AMG_DEFAULTS, ...options };
  const levels: AmgLevel[] = [];
  let cur = A;
  let stop: AmgStop = 'size';
  let stopReason = `the coarsest level has ≤ ${o.maxCoarse} rows`;
  for (;;) {
    const level = levelOf(cur);
    levels.push(level);
    if (cur.rows <= o.maxCoarse) break;
    if (levels.length === o.maxLevels) {
      stop = 'maxLevels';
      stopReason = `maxLevels (${o.maxLevels}) reached with ${cur.rows} rows on the coarsest level`;
      break;
    }
    const { agg, count } = standardAggregation(symmetricStrength(cur, o.theta), cur.rows);
    if (count === 0 || count >= cur.rows) {
      stop = 'stalled';
      stopReason = `coarsening stalled on level ${levels.length - 1}: ${cur.rows} rows make ${count} aggregates`;
      break;
    }
    const T = tentative(agg, count);
    const P = smoothProlongator(cur, level, T);
    const R = P.transpose();
    level.P = P;
    level.R = R;
    cur = spgemm(R, spgemm(cur, P));
  }
  return { levels, coarseInverse: denseInverse(cur), stop, stopReason, options: o, setupMs: performance.now() - t0 };
}

function levelOf(A: CSRMatrix): AmgLevel {
  const n = A.rows;
  const dinv = new Float64Array(n);
  let positive = n > 0;
  for (let i = 0; i < n; i++) {
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) if (A.colIdx[k] === i) dinv[i] = A.values[k];
    positive &&= dinv[i] > 0;
    dinv[i] = dinv[i] > 0 ? 1 / dinv[i] : 0;
  }
  return { A, dinv, rho: positive && n > 1 ? 1.1 * lanczosBounds(A).max : 1 };
}

/** T: row i has 1/√|aggregate| in the column of i's aggregate; rows outside every aggregate are empty. */
function tentative(agg: Int32Array, count: number): CSRMatrix {
  const n = agg.length;
  const size = new Int32Array(count);
  for (let i = 0; i < n; i++) if (agg[i] >= 0) size[agg[i]]++;
  const ptr = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) ptr[i + 1] = ptr[i] + (agg[i] >= 0 ? 1 : 0);
  const idx = new Int32Array(ptr[n]);
  const val = new Float64Array(ptr[n]);
  for (let i = 0; i < n; i++) {
    if (agg[i] < 0) continue;
    idx[ptr[i]] = agg[i];
    val[ptr[i]] = 1 / Math.sqrt(size[agg[i]]);
  }
  return new CSRMatrix(n, count, 'f64', ptr, idx, val);
}

/** P = T − ω·D⁻¹·(A·T), rows merged by column (both canonical). */
function smoothProlongator(A: CSRMatrix, level: AmgLevel, T: CSRMatrix): CSRMatrix {
  const omega = 4 / 3 / level.rho;
  const AT = spgemm(A, T);
  const n = A.rows;
  const ptr = new Int32Array(n + 1);
  const idx = new Int32Array(AT.nnz + T.nnz);
  const val = new Float64Array(AT.nnz + T.nnz);
  let m = 0;
  for (let i = 0; i < n; i++) {
    const s = -omega * level.dinv[i];
    let a = AT.rowPtr[i];
    let t = T.rowPtr[i];
    const [ae, te] = [AT.rowPtr[i + 1], T.rowPtr[i + 1]];
    while (a < ae || t < te) {
      const ca = a < ae ? AT.colIdx[a] : Infinity;
      const ct = t < te ? T.colIdx[t] : Infinity;
      idx[m] = Math.min(ca, ct);
      val[m] = (ca <= ct ? s * AT.values[a++] : 0) + (ct <= ca ? T.values[t++] : 0);
      m++;
    }
    ptr[i + 1] = m;
  }
  return new CSRMatrix(n, T.cols, 'f64', ptr, idx.slice(0, m), val.slice(0, m));
}

/**
 * The coarsest matrix's inverse by a dense Cholesky factorization; a pivot ≤ 1e-12 of the largest
 * diagonal (a semidefinite coarse matrix, e.g. a pure-Neumann Laplacian's constant) drops that
 * unknown, so the result is a symmetric pseudo-inverse and the cycle stays symmetric.
 */
function denseInverse(A: CSRMatrix): Float64Array {
  const n = A.rows;
  const L = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) L[i * n + A.colIdx[k]] = A.values[k];
  let dmax = 0;
  for (let i = 0; i < n; i++) dmax = Math.max(dmax, Math.abs(L[i * n + i]));
  const dropped = new Uint8Array(n);
  for (let j = 0; j < n; j++) {
    let d = L[j * n + j];
    for (let k = 0; k < j; k++) d -= L[j * n + k] ** 2;
    if (!(d > 1e-12 * dmax)) {
      dropped[j] = 1;
      for (let i = j; i < n; i++) L[i * n + j] = 0;
      continue;
    }
    const ljj = Math.sqrt(d);
    L[j * n + j] = ljj;
    for (let i = j + 1; i < n; i++) {
      let s = L[i * n + j];
      for (let k = 0; k < j; k++) s -= L[i * n + k] * L[j * n + k];
      L[i * n + j] = s / ljj;
    }
  }
  // inverse column by column: L·y = eⱼ, Lᵀ·x = y, with dropped unknowns held at 0
  const inv = new Float64Array(n * n);
  const y = new Float64Array(n);
  for (let c = 0; c < n; c++) {
    for (let i = 0; i < n; i++) {
      if (dropped[i]) {
        y[i] = 0;
        continue;
      }
      let s = i === c ? 1 : 0;
      for (let k = 0; k < i; k++) s -= L[i * n + k] * y[k];
      y[i] = s / L[i * n + i];
    }
    for (let i = n - 1; i >= 0; i--) {
      if (dropped[i]) {
        y[i] = 0;
        continue;
      }
      let s = y[i];
      for (let k = i + 1; k < n; k++) s -= L[k * n + i] * y[k];
      y[i] = s / L[i * n + i];
    }
    for (let i = 0; i < n; i++) inv[i * n + c] = y[i];
  }
  return inv;
}
