import { components, isComplex, type DType } from '../../dtype.js';
import { CSRMatrix } from '../../formats/csr.js';
import { div } from '../krylov/complex.js';

/** Zero-fill incomplete factors: L (unit lower, the unit diagonal not stored) and U (upper with its diagonal). */
export interface IncompleteFactors {
  L: CSRMatrix;
  U: CSRMatrix;
  /**
   * The diagonal shift that made the factorization succeed: each aᵢᵢ became aᵢᵢ + shift·sᵢ (sᵢ = |aᵢᵢ|,
   * or the row's largest |aᵢⱼ| where aᵢᵢ = 0). 0 when none was needed.
   */
  shift: number;
  /** why each smaller shift failed (empty when none was needed) */
  why: string;
}

/** The shifts tried after a breakdown, in order (PETSc's shift of the diagonal, grown tenfold). */
export const SHIFTS = [0, 1e-3, 1e-2, 1e-1, 1, 10];

/**
 * The largest ‖(LU)⁻¹·|A|·1‖∞ (1 where L·U = A, invariant under scaling A's rows) an incomplete factor
 * may have: beyond 1/ε of f64 the preconditioned vectors are rounding, and in f32 they overflow
 * (west0479's ILU(0), shifted by 0.001·|aᵢᵢ|: 8.8e87, f32 GMRES and BiCGSTAB ended 'nan' at iteration 0;
 * the shared matrices' factors measure 1.5–3.9e9).
 */
const GROWTH_MAX = 1e16;

/**
 * ILU(0) of a canonical square CSR, computed in f64 (c128 for complex) on the host, IKJ order: each row
 * eliminates with the finished rows above it, updating only entries in A's pattern (plus the diagonal,
 * added where absent). A pivot that is zero (|uᵢᵢ| ≤ 1e-14·row scale) or not finite, or for
 * `positivePivots` (IC(0)) not real and positive, is a breakdown, and so is a factor whose inverse
 * amplifies beyond GROWTH_MAX: the factorization restarts with a larger diagonal shift (SHIFTS).
 * Returns why each shift failed when every one does.
 */
export function ilu0(A: CSRMatrix, positivePivots = false): IncompleteFactors | string {
  const n = A.rows;
  const c = components(A.dtype);
  const complex = isComplex(A.dtype);
  const single = A.dtype === 'f32' || A.dtype === 'c64';
  const P = withDiagonal(A);
  const { rowPtr, colIdx } = P;
  const diag = new Int32Array(n);
  const scale = new Float64Array(n);
  /** |A|·1 */
  const rowAbs = new Float64Array(n);
  // the values read from a local, |aᵢⱼ| once an entry: a closure over P.values called twice an entry made
  // this pass 14–15 ms of a 262 144-row 3-D convection's 60–70 ms set-up, 6.3 ms so
  const values = P.values;
  for (let i = 0; i < n; i++) {
    let m = 0;
    let sum = 0;
    let d = 0;
    for (let k = rowPtr[i], e = rowPtr[i + 1]; k < e; k++) {
      const a = complex ? Math.hypot(values[2 * k], values[2 * k + 1]) : Math.abs(values[k]);
      if (colIdx[k] === i) {
        diag[i] = k;
        d = a;
      }
      m = Math.max(m, a);
      sum += a;
    }
    rowAbs[i] = sum;
    scale[i] = d > 0 ? d : m > 0 ? m : 1;
  }
  const pos = new Int32Array(n).fill(-1);
  const failed: string[] = [];
  for (const shift of SHIFTS) {
    const v = new Float64Array(P.values);
    if (shift) for (let i = 0; i < n; i++) v[c * diag[i]] += shift * scale[i];
    const at = shift ? `${shift}·|aᵢᵢ|` : 'no shift';
    const row = factor(n, rowPtr, colIdx, v, diag, pos, complex, scale, positivePivots);
    if (row >= 0) {
      failed.push(`${at}: ${positivePivots ? 'pivot not real and positive' : 'zero pivot'}, row ${row}`);
      continue;
    }
    const past = single ? pastSingle(rowPtr, v, diag, complex) : -1;
    if (past >= 0) {
      failed.push(`${at}: row ${past} of the factor outside ${A.dtype}'s range, where its solves run`);
      continue;
    }
    const g = growth(n, rowPtr, colIdx, v, diag, complex, rowAbs);
    if (!(g <= GROWTH_MAX)) {
      failed.push(`${at}: unstable, ‖(LU)⁻¹·|A|·1‖∞ = ${g.toExponential(1)}`);
      continue;
    }
    return { ...split(n, rowPtr, colIdx, v, diag, complex ? 'c128' : 'f64'), shift, why: failed.join('; ') };
  }
  return failed.join('; ');
}

/**
 * The row of the first entry of the factors in v that f32 cannot hold as the solves read it — past
 * F32_MAX, or a pivot whose inverse is (below 2^-126) — else −1. An f32 or c64 matrix's triangular solves
 * run in f32: ILU(0) of [[1e-20, 1e20], [1e20, 1]] has the pivot −1e40, and rt.solve threw 'triangular
 * solve: the diagonal entry T[1,1] is not finite', naming neither ILU(0) nor its refusal.
 */
function pastSingle(rowPtr: Int32Array, v: Float64Array, diag: Int32Array, complex: boolean): number {
  for (let i = 0; i + 1 < rowPtr.length; i++) {
    for (let k = rowPtr[i]; k < rowPtr[i + 1]; k++) {
      const m = complex ? Math.hypot(v[2 * k], v[2 * k + 1]) : Math.abs(v[k]);
      if (m > F32_MAX || (k === diag[i] && m < 2 ** -126)) return i;
    }
  }
  return -1;
}

/** The largest finite f32 */
const F32_MAX = 3.4028234663852886e38;

/** ‖(LU)⁻¹·r‖∞ (r real) for the factors held in v as factor() leaves them: two triangular solves in f64 (c128). */
function growth(n: number, rowPtr: Int32Array, colIdx: Int32Array, v: Float64Array, diag: Int32Array, complex: boolean, r: Float64Array): number {
  const c = complex ? 2 : 1;
  const y = new Float64Array(c * n);
  for (let i = 0; i < n; i++) {
    let sr = r[i];
    let si = 0;
    for (let k = rowPtr[i]; k < diag[i]; k++) {
      const j = colIdx[k];
      if (!complex) sr -= v[k] * y[j];
      else {
        sr -= v[2 * k] * y[2 * j] - v[2 * k + 1] * y[2 * j + 1];
        si -= v[2 * k] * y[2 * j + 1] + v[2 * k + 1] * y[2 * j];
      }
    }
    y[c * i] = sr;
    if (complex) y[2 * i + 1] = si;
  }
  let m = 0;
  for (let i = n - 1; i >= 0; i--) {
    let sr = y[c * i];
    let si = complex ? y[2 * i + 1] : 0;
    for (let k = diag[i] + 1; k < rowPtr[i + 1]; k++) {
      const j = colIdx[k];
      if (!complex) sr -= v[k] * y[j];
      else {
        sr -= v[2 * k] * y[2 * j] - v[2 * k + 1] * y[2 * j + 1];
        si -= v[2 * k] * y[2 * j + 1] + v[2 * k + 1] * y[2 * j];
      }
    }
    const d = diag[i];
    if (!complex) {
      y[i] = sr / v[d];
      m = Math.max(m, Math.abs(y[i]));
    } else {
      [y[2 * i], y[2 * i + 1]] = div([sr, si], [v[2 * d], v[2 * d + 1]]);
      m = Math.max(m, Math.hypot(y[2 * i], y[2 * i + 1]));
    }
  }
  return m;
}

/** The elimination in place on v; the row of the first bad pivot, or −1. */
function factor(
  n: number,
  rowPtr: Int32Array,
  colIdx: Int32Array,
  v: Float64Array,
  diag: Int32Array,
  pos: Int32Array,
  complex: boolean,
  scale: Float64Array,
  positivePivots: boolean,
): number {
  for (let i = 0; i < n; i++) {
    const s = rowPtr[i];
    const e = rowPtr[i + 1];
    for (let k = s; k < e; k++) pos[colIdx[k]] = k;
    for (let p = s; p < diag[i]; p++) {
      const k = colIdx[p];
      const d = diag[k];
      const ke = rowPtr[k + 1];
      if (!complex) {
        const m = v[p] / v[d];
        v[p] = m;
        for (let q = d + 1; q < ke; q++) {
          const t = pos[colIdx[q]];
          if (t >= 0) v[t] -= m * v[q];
        }
      } else {
        // range-safe: |pivot|² overflows from 1e154
        const [mr, mi] = div([v[2 * p], v[2 * p + 1]], [v[2 * d], v[2 * d + 1]]);
        v[2 * p] = mr;
        v[2 * p + 1] = mi;
        for (let q = d + 1; q < ke; q++) {
          const t = pos[colIdx[q]];
          if (t < 0) continue;
          const ur = v[2 * q];
          const ui = v[2 * q + 1];
          v[2 * t] -= mr * ur - mi * ui;
          v[2 * t + 1] -= mr * ui + mi * ur;
        }
      }
    }
    for (let k = s; k < e; k++) pos[colIdx[k]] = -1;
    const pr = v[complex ? 2 * diag[i] : diag[i]];
    const pi = complex ? v[2 * diag[i] + 1] : 0;
    const mag = complex ? Math.hypot(pr, pi) : Math.abs(pr);
    if (!Number.isFinite(mag) || mag <= 1e-14 * scale[i]) return i;
    if (positivePivots && (!(pr > 0) || Math.abs(pi) > 1e-12 * mag)) return i;
  }
  return -1;
}

/** A's pattern with every diagonal entry present (an explicit zero where A has none). */
function withDiagonal(A: CSRMatrix): CSRMatrix {
  const n = A.rows;
  let missing = 0;
  for (let i = 0; i < n; i++) if (!hasEntry(A, i, i)) missing++;
  const f64 = A.astype(isComplex(A.dtype) ? 'c128' : 'f64');
  if (!missing) return f64;
  const c = components(A.dtype);
  const ptr = new Int32Array(n + 1);
  const idx = new Int32Array(A.nnz + missing);
  const val = new Float64Array((A.nnz + missing) * c);
  let p = 0;
  for (let i = 0; i < n; i++) {
    let placed = hasEntry(A, i, i);
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
      if (!placed && A.colIdx[k] > i) {
        idx[p++] = i;
        placed = true;
      }
      idx[p] = A.colIdx[k];
      for (let q = 0; q < c; q++) val[c * p + q] = f64.values[c * k + q];
      p++;
    }
    if (!placed) idx[p++] = i;
    ptr[i + 1] = p;
  }
  return new CSRMatrix(n, n, f64.dtype, ptr, idx, val);
}

function hasEntry(A: CSRMatrix, i: number, j: number): boolean {
  for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) if (A.colIdx[k] === j) return true;
  return false;
}

/** The factored values cut into L (strictly lower) and U (diagonal and above). */
function split(n: number, rowPtr: Int32Array, colIdx: Int32Array, v: Float64Array, diag: Int32Array, dtype: DType): { L: CSRMatrix; U: CSRMatrix } {
  const c = components(dtype);
  const lp = new Int32Array(n + 1);
  const up = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) {
    lp[i + 1] = lp[i] + diag[i] - rowPtr[i];
    up[i + 1] = up[i] + rowPtr[i + 1] - diag[i];
  }
  const L = new CSRMatrix(n, n, dtype, lp, new Int32Array(lp[n]), new Float64Array(lp[n] * c));
  const U = new CSRMatrix(n, n, dtype, up, new Int32Array(up[n]), new Float64Array(up[n] * c));
  let l = 0;
  let u = 0;
  for (let i = 0; i < n; i++) {
    for (let k = rowPtr[i]; k < rowPtr[i + 1]; k++) {
      const below = k < diag[i];
      const M = below ? L : U;
      const t = below ? l++ : u++;
      M.colIdx[t] = colIdx[k];
      M.values[c * t] = v[c * k];
      if (c === 2) M.values[2 * t + 1] = v[2 * k + 1];
    }
  }
  return { L, U };
}
