/**
 * Left-looking sparse LU with partial pivoting (Gilbert & Peierls 1988, as in CSparse's cs_lu and
 * KLU): column k of L and U is the solution of L·x = A(:, q[k]), a sparse triangular solve whose
 * pattern is found first by a depth-first search of L's graph (its cost is proportional to the flops,
 * not to n); the pivot is the largest entry among rows not yet pivotal (|re| + |im| for complex, as
 * LAPACK's izamax: no square root per candidate), except that the diagonal entry is kept when it is
 * within `tol` of that (threshold pivoting: the fill-reducing symmetric
 * ordering survives where the matrix allows). Real and complex (interleaved) values.
 */

import type { BandRows } from './band-lu.js';
import { denseLu } from './dense-lu.js';

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
  /** 1 / U(k, k) (re, im interleaved for complex), made with the factorization (Factorization.numeric), else by the first solve */
  dinv?: Float64Array;
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
export function denseStart(counts: Int32Array): number {
  const n = counts.length;
  let start = n;
  let sum = 0;
  for (let k = n - 1; k >= 0; k--) {
    sum += counts[k];
    const m = n - k;
    if (m >= DENSE_MIN_COLUMNS && sum >= (DENSE_MIN_DENSITY * m * (m + 1)) / 2) start = k;
  }
  return start;
}

/** Growth of the factor's arrays: called with the bytes a larger array adds, before allocating; may throw. */
export type GrowCheck = (bytes: number) => void;

/**
 * Factorizes the n×n matrix by columns (Ap/Ai/Ax, interleaved when complex) in column order q.
 * `guess` is the expected nnz of L (and of U); arrays grow by half when it is exceeded. Columns from
 * step `denseFrom` on are factorized as one dense block (see denseStart; their L and U are stored
 * dense). Returns the factor, or the step k at which no nonzero pivot was left (a singular matrix).
 */
export function luFactor(
  n: number, Ap: Int32Array, Ai: Int32Array, Ax: Float64Array, complex: boolean, q: Int32Array, tol: number, guess: number, grow: GrowCheck, denseFrom = n,
): LuFactor | number {
  const c = complex ? 2 : 1;
  const cap0 = Math.max(guess, n);
  let Li: Int32Array = new Int32Array(cap0);
  let Lx: Float64Array = new Float64Array(cap0 * c);
  let Ui: Int32Array = new Int32Array(cap0);
  let Ux: Float64Array = new Float64Array(cap0 * c);
  const Lp = new Int32Array(n + 1);
  const Up = new Int32Array(n + 1);
  const pinv = new Int32Array(n).fill(-1);
  const x = new Float64Array(n * c);
  // one allocation for the integer work vectors (a small factorization is dominated by allocations)
  const work = new Int32Array(5 * n);
  const xi = work.subarray(0, n);
  const stack = work.subarray(n, 2 * n);
  const pstack = work.subarray(2 * n, 3 * n);
  const mark = work.subarray(3 * n, 4 * n);
  // end of each column's pruned part (-1: not pruned); see the pruning step below
  const Lpend = work.subarray(4 * n).fill(-1);
  let lnz = 0;
  let unz = 0;
  const sparseEnd = Math.min(n, Math.max(0, denseFrom));
  for (let k = 0; k < sparseEnd; k++) {
    Lp[k] = lnz;
    Up[k] = unz;
    if (lnz + n > Li.length) ({ idx: Li, val: Lx } = enlarge(Li, Lx, lnz + n, c, grow));
    if (unz + n > Ui.length) ({ idx: Ui, val: Ux } = enlarge(Ui, Ux, unz + n, c, grow));
    const col = q[k];
    const top = lowerSolve(col, Ap, Ai, Ax, c, Lp, Lpend, Li, Lx, pinv, k + 1, mark, xi, stack, pstack, x, n);
    // pivot: the largest candidate, unless the diagonal is within tol of it
    let ipiv = -1;
    let best = -1;
    for (let p = top; p < n; p++) {
      const i = xi[p];
      if (pinv[i] < 0) {
        const t = c === 1 ? Math.abs(x[i]) : Math.abs(x[2 * i]) + Math.abs(x[2 * i + 1]);
        if (t > best) {
          best = t;
          ipiv = i;
        }
      } else {
        Ui[unz] = pinv[i];
        Ux[c * unz] = x[c * i];
        if (c === 2) Ux[2 * unz + 1] = x[2 * i + 1];
        unz++;
      }
    }
    if (ipiv === -1 || !(best > 0) || !Number.isFinite(best)) return k;
    if (pinv[col] < 0 && mark[col] === k + 1) {
      const t = c === 1 ? Math.abs(x[col]) : Math.abs(x[2 * col]) + Math.abs(x[2 * col + 1]);
      if (t >= tol * best && t > 0) ipiv = col;
    }
    const pr = x[c * ipiv];
    const pim = c === 2 ? x[2 * ipiv + 1] : 0;
    Ui[unz] = k;
    Ux[c * unz] = pr;
    if (c === 2) Ux[2 * unz + 1] = pim;
    unz++;
    pinv[ipiv] = k;
    Li[lnz] = ipiv;
    Lx[c * lnz] = 1;
    if (c === 2) Lx[2 * lnz + 1] = 0;
    lnz++;
    if (c === 1) {
      for (let p = top; p < n; p++) {
        const i = xi[p];
        if (pinv[i] < 0) {
          Li[lnz] = i;
          Lx[lnz++] = x[i] / pr;
        }
        x[i] = 0;
      }
    } else {
      // 1 / pivot
      const den = pr * pr + pim * pim;
      const ir = pr / den;
      const ii = -pim / den;
      for (let p = top; p < n; p++) {
        const i = xi[p];
        if (pinv[i] < 0) {
          const a = x[2 * i];
          const b = x[2 * i + 1];
          Li[lnz] = i;
          Lx[2 * lnz] = a * ir - b * ii;
          Lx[2 * lnz + 1] = a * ii + b * ir;
          lnz++;
        }
        x[2 * i] = 0;
        x[2 * i + 1] = 0;
      }
    }
    // symmetric pruning (Eisenstat & Liu, as KLU): a column J with U(J, k) ≠ 0 whose L part holds
    // k's pivot row reaches, through that row, everything column k holds; later searches need only
    // its rows pivotal by now, which are moved to the front of the column (its values with them)
    for (let p = Up[k]; p < unz - 1; p++) {
      const J = Ui[p];
      if (Lpend[J] >= 0) continue;
      const e = Lp[J + 1];
      let found = false;
      for (let q = Lp[J] + 1; q < e && !found; q++) found = Li[q] === ipiv;
      if (!found) continue;
      let head = Lp[J] + 1;
      let tail = e;
      while (head < tail) {
        const i = Li[head];
        if (pinv[i] >= 0) {
          head++;
          continue;
        }
        tail--;
        Li[head] = Li[tail];
        Li[tail] = i;
        for (let t = 0; t < c; t++) {
          const v = Lx[c * head + t];
          Lx[c * head + t] = Lx[c * tail + t];
          Lx[c * tail + t] = v;
        }
      }
      Lpend[J] = tail;
    }
  }
  if (sparseEnd < n) {
    // the trailing m columns, dense: each one's update by the sparse L so far (the same triangular
    // solve), its rows not yet pivotal scattered into D, the rest kept as U's sparse part
    const k0 = sparseEnd;
    const m = n - k0;
    Lp[k0] = lnz;
    grow(m * m * 8 * c + 8 * m);
    const D = new Float64Array(m * m * c);
    const rows = new Int32Array(m);
    const at = new Int32Array(n);
    for (let i = 0, t = 0; i < n; i++) {
      if (pinv[i] < 0) {
        rows[t] = i;
        at[i] = t++;
      }
    }
    // where each column's dense part of U goes: after its sparse part, diagonal last
    const dpos = new Int32Array(m);
    for (let t = 0; t < m; t++) {
      const k = k0 + t;
      Up[k] = unz;
      if (unz + n > Ui.length) ({ idx: Ui, val: Ux } = enlarge(Ui, Ux, unz + n, c, grow));
      const top = lowerSolve(q[k], Ap, Ai, Ax, c, Lp, Lpend, Li, Lx, pinv, k + 1, mark, xi, stack, pstack, x, n);
      const base = t * m * c;
      for (let p = top; p < n; p++) {
        const i = xi[p];
        const J = pinv[i];
        if (J >= 0) {
          Ui[unz] = J;
          Ux[c * unz] = x[c * i];
          if (c === 2) Ux[2 * unz + 1] = x[2 * i + 1];
          unz++;
        } else {
          D[base + c * at[i]] = x[c * i];
          if (c === 2) D[base + 2 * at[i] + 1] = x[2 * i + 1];
        }
        x[c * i] = 0;
        if (c === 2) x[2 * i + 1] = 0;
      }
      dpos[t] = unz;
      unz += t + 1;
    }
    const bad = denseLu(D, m, complex, rows, at, q.subarray(k0), tol);
    if (bad >= 0) return k0 + bad;
    if (lnz + (m * (m + 1)) / 2 > Li.length) ({ idx: Li, val: Lx } = enlarge(Li, Lx, lnz + (m * (m + 1)) / 2, c, grow));
    for (let t = 0; t < m; t++) {
      const k = k0 + t;
      pinv[rows[t]] = k;
      // U(k0..k, k) from column t of D's upper triangle, diagonal last
      for (let s = 0, u = dpos[t]; s <= t; s++, u++) {
        Ui[u] = k0 + s;
        Ux[c * u] = D[(t * m + s) * c];
        if (c === 2) Ux[c * u + 1] = D[(t * m + s) * c + 1];
      }
      // L(:, k): 1, then the rows below the diagonal (original row numbers, mapped below)
      Lp[k] = lnz;
      Li[lnz] = rows[t];
      Lx[c * lnz] = 1;
      if (c === 2) Lx[c * lnz + 1] = 0;
      lnz++;
      for (let i = t + 1; i < m; i++) {
        Li[lnz] = rows[i];
        Lx[c * lnz] = D[(t * m + i) * c];
        if (c === 2) Lx[c * lnz + 1] = D[(t * m + i) * c + 1];
        lnz++;
      }
    }
  }
  Lp[n] = lnz;
  Up[n] = unz;
  // L's rows in pivot order
  for (let p = 0; p < lnz; p++) Li[p] = pinv[Li[p]];
  return { n, complex, Lp, Li: fitted(Li, lnz), Lx: fitted(Lx, lnz * c), Up, Ui: fitted(Ui, unz), Ux: fitted(Ux, unz * c), pinv, q };
}

/** The first `used` entries of a: a view when that is at least 3/4 of it (a copy costs more than the rest holds), else a copy. */
function fitted<T extends Int32Array | Float64Array>(a: T, used: number): T {
  return (used >= 0.75 * a.length ? a.subarray(0, used) : a.slice(0, used)) as T;
}

/**
 * x = L \ A(:, col) over L's columns so far: its pattern (everything reachable in L's graph from the
 * column's rows) into xi[top..n) in topological order, then the values in x (zero elsewhere; the
 * caller clears what it used). Returns top.
 */
function lowerSolve(
  col: number, Ap: Int32Array, Ai: Int32Array, Ax: Float64Array, c: number, Lp: Int32Array, Lpend: Int32Array, Li: Int32Array, Lx: Float64Array,
  pinv: Int32Array, stamp: number, mark: Int32Array, xi: Int32Array, stack: Int32Array, pstack: Int32Array, x: Float64Array, n: number,
): number {
  let top = n;
  for (let p = Ap[col]; p < Ap[col + 1]; p++) {
    const r = Ai[p];
    if (mark[r] !== stamp) top = reach(r, Lp, Lpend, Li, pinv, stamp, mark, xi, top, stack, pstack);
  }
  for (let p = Ap[col]; p < Ap[col + 1]; p++) {
    const i = Ai[p];
    x[c * i] = Ax[c * p];
    if (c === 2) x[2 * i + 1] = Ax[2 * p + 1];
  }
  // the triangular solve, in the topological order the search produced
  for (let px = top; px < n; px++) {
    const j = xi[px];
    const J = pinv[j];
    if (J < 0) continue;
    const e = Lp[J + 1];
    if (c === 1) {
      const xj = x[j];
      if (xj === 0) continue;
      for (let p = Lp[J] + 1; p < e; p++) x[Li[p]] -= Lx[p] * xj;
    } else {
      const xr = x[2 * j];
      const xim = x[2 * j + 1];
      for (let p = Lp[J] + 1; p < e; p++) {
        const i = Li[p];
        const lr = Lx[2 * p];
        const li = Lx[2 * p + 1];
        x[2 * i] -= lr * xr - li * xim;
        x[2 * i + 1] -= lr * xim + li * xr;
      }
    }
  }
  return top;
}

/**
 * Depth-first search of L's graph from row r (rows not yet pivotal are leaves; a pruned column only
 * up to Lpend): pushes the nodes it finishes onto xi[--top], so xi[top..n) ends in topological order.
 * Nonrecursive.
 */
function reach(
  r: number, Lp: Int32Array, Lpend: Int32Array, Li: Int32Array, pinv: Int32Array, stamp: number, mark: Int32Array, xi: Int32Array, top: number, stack: Int32Array, pstack: Int32Array,
): number {
  let head = 0;
  stack[0] = r;
  while (head >= 0) {
    const j = stack[head];
    const J = pinv[j];
    if (mark[j] !== stamp) {
      mark[j] = stamp;
      pstack[head] = J < 0 ? 0 : Lp[J] + 1;
    }
    let done = true;
    const end = J < 0 ? 0 : Lpend[J] >= 0 ? Lpend[J] : Lp[J + 1];
    for (let p = pstack[head]; p < end; p++) {
      const i = Li[p];
      if (mark[i] === stamp) continue;
      pstack[head] = p + 1;
      stack[++head] = i;
      done = false;
      break;
    }
    if (done) {
      head--;
      xi[--top] = j;
    }
  }
  return top;
}


/** Copies of idx/val with room for at least `need` entries (half as many again as before, at least), after asking `grow`. */
function enlarge(idx: Int32Array, val: Float64Array, need: number, c: number, grow: GrowCheck): { idx: Int32Array; val: Float64Array } {
  const cap = Math.max(need, Math.ceil(idx.length * 1.5));
  grow((cap - idx.length) * (4 + 8 * c));
  const i2 = new Int32Array(cap);
  i2.set(idx);
  const v2 = new Float64Array(cap * c);
  v2.set(val);
  return { idx: i2, val: v2 };
}

/**
 * y ← (L·U)⁻¹·y in place (y already permuted by rows: y[pinv[i]] = b[i]); real or interleaved complex.
 * U's diagonal is applied as a product with its reciprocal (made once, kept on the factor): the
 * backward substitution is a chain through each diagonal, where a division's latency costs several
 * times a product's (olm1000's kept-factor solve: see docs/direct.md).
 */
export function luSolveInPlace(f: LuFactor, y: Float64Array): void {
  const { n, Lp, Li, Lx, Up, Ui, Ux } = f;
  const dinv = (f.dinv ??= reciprocalDiagonal(f));
  if (!f.complex) {
    for (let j = 0; j < n; j++) {
      const yj = y[j];
      if (yj !== 0) for (let p = Lp[j] + 1; p < Lp[j + 1]; p++) y[Li[p]] -= Lx[p] * yj;
    }
    for (let j = n - 1; j >= 0; j--) {
      const d = Up[j + 1] - 1;
      const yj = (y[j] *= dinv[j]);
      if (yj !== 0) for (let p = Up[j]; p < d; p++) y[Ui[p]] -= Ux[p] * yj;
    }
    return;
  }
  for (let j = 0; j < n; j++) {
    const yr = y[2 * j];
    const yi = y[2 * j + 1];
    for (let p = Lp[j] + 1; p < Lp[j + 1]; p++) {
      const i = Li[p];
      const lr = Lx[2 * p];
      const li = Lx[2 * p + 1];
      y[2 * i] -= lr * yr - li * yi;
      y[2 * i + 1] -= lr * yi + li * yr;
    }
  }
  for (let j = n - 1; j >= 0; j--) {
    const d = Up[j + 1] - 1;
    const ir = dinv[2 * j];
    const ii = dinv[2 * j + 1];
    const a = y[2 * j];
    const b = y[2 * j + 1];
    const yr = a * ir - b * ii;
    const yi = a * ii + b * ir;
    y[2 * j] = yr;
    y[2 * j + 1] = yi;
    for (let p = Up[j]; p < d; p++) {
      const i = Ui[p];
      const vr = Ux[2 * p];
      const vi = Ux[2 * p + 1];
      y[2 * i] -= vr * yr - vi * yi;
      y[2 * i + 1] -= vr * yi + vi * yr;
    }
  }
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
    const den = ur * ur + ui * ui;
    r[2 * j] = ur / den;
    r[2 * j + 1] = -ui / den;
  }
  return r;
}
