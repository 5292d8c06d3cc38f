/**
 * Dense LU with partial pivoting (LAPACK's getrf, right-looking, unblocked) of a column-major m×m
 * block, real or interleaved complex: the trailing part of a sparse LU once it is dense enough (the
 * classic switch to dense code of MA48 and UMFPACK), where index-free loops run several times faster
 * than the sparse kernel's gathers.
 */

/**
 * Factorizes D (m×m, column-major, leading dimension m; interleaved re/im when complex) in place
 * into L (unit lower, below the diagonal) and U (upper, diagonal included), swapping whole rows:
 * rows[t] is then the original row at position t (rows is permuted along, as given; at[rows[t]] = t
 * is kept with it). The pivot is the largest entry of its column (|re| + |im| for complex, as LAPACK's
 * izamax), except that the row `diag[t]` (an original row number, the diagonal of the sparse ordering)
 * is kept when its entry is within `tol` of that, as the sparse kernel does. Returns -1, or the first
 * step t whose column has no nonzero pivot left or a NaN or infinite candidate.
 */
export function denseLu(D: Float64Array, m: number, complex: boolean, rows: Int32Array, at: Int32Array, diag: Int32Array, tol: number): number {
  return complex ? denseLuComplex(D, m, rows, at, diag, tol) : denseLuReal(D, m, rows, at, diag, tol);
}

/** Swaps positions t and p of rows (and their entries of at). */
function swapRows(rows: Int32Array, at: Int32Array, t: number, p: number): void {
  const r = rows[t];
  rows[t] = rows[p];
  rows[p] = r;
  at[rows[t]] = t;
  at[r] = p;
}

function denseLuReal(D: Float64Array, m: number, rows: Int32Array, at: Int32Array, diag: Int32Array, tol: number): number {
  for (let t = 0; t < m; t++) {
    const ct = t * m;
    let p = t;
    let best = Math.abs(D[ct + t]);
    let sum = best;
    for (let i = t + 1; i < m; i++) {
      const v = Math.abs(D[ct + i]);
      sum += v;
      if (v > best) {
        best = v;
        p = i;
      }
    }
    if (!(best > 0) || !(sum < Infinity)) return t;
    const d = at[diag[t]];
    if (d >= t && d < m && rows[d] === diag[t]) {
      const v = Math.abs(D[ct + d]);
      if (v >= tol * best && v > 0) p = d;
    }
    if (p !== t) {
      for (let j = 0; j < m * m; j += m) {
        const v = D[j + t];
        D[j + t] = D[j + p];
        D[j + p] = v;
      }
      swapRows(rows, at, t, p);
    }
    const inv = 1 / D[ct + t];
    for (let i = ct + t + 1; i < ct + m; i++) D[i] *= inv;
    // the rank-1 update of the trailing columns, two at a time (half the passes over column t)
    let j = t + 1;
    for (; j + 1 < m; j += 2) {
      const c0 = j * m;
      const c1 = c0 + m;
      const a0 = D[c0 + t];
      const a1 = D[c1 + t];
      if (a0 === 0 && a1 === 0) continue;
      for (let i = t + 1; i < m; i++) {
        const l = D[ct + i];
        D[c0 + i] -= l * a0;
        D[c1 + i] -= l * a1;
      }
    }
    if (j < m) {
      const c0 = j * m;
      const a0 = D[c0 + t];
      if (a0 !== 0) for (let i = t + 1; i < m; i++) D[c0 + i] -= D[ct + i] * a0;
    }
  }
  return -1;
}

function denseLuComplex(D: Float64Array, m: number, rows: Int32Array, at: Int32Array, diag: Int32Array, tol: number): number {
  const m2 = 2 * m;
  for (let t = 0; t < m; t++) {
    const ct = t * m2;
    let p = t;
    let best = Math.abs(D[ct + 2 * t]) + Math.abs(D[ct + 2 * t + 1]);
    let sum = best;
    for (let i = t + 1; i < m; i++) {
      const v = Math.abs(D[ct + 2 * i]) + Math.abs(D[ct + 2 * i + 1]);
      sum += v;
      if (v > best) {
        best = v;
        p = i;
      }
    }
    if (!(best > 0) || !(sum < Infinity)) return t;
    const d = at[diag[t]];
    if (d >= t && d < m && rows[d] === diag[t]) {
      const v = Math.abs(D[ct + 2 * d]) + Math.abs(D[ct + 2 * d + 1]);
      if (v >= tol * best && v > 0) p = d;
    }
    if (p !== t) {
      for (let j = 0; j < m * m2; j += m2) {
        const re = D[j + 2 * t];
        const im = D[j + 2 * t + 1];
        D[j + 2 * t] = D[j + 2 * p];
        D[j + 2 * t + 1] = D[j + 2 * p + 1];
        D[j + 2 * p] = re;
        D[j + 2 * p + 1] = im;
      }
      swapRows(rows, at, t, p);
    }
    const pr = D[ct + 2 * t];
    const pi = D[ct + 2 * t + 1];
    const den = pr * pr + pi * pi;
    const ir = pr / den;
    const ii = -pi / den;
    for (let i = ct + 2 * t + 2; i < ct + m2; i += 2) {
      const a = D[i];
      const b = D[i + 1];
      D[i] = a * ir - b * ii;
      D[i + 1] = a * ii + b * ir;
    }
    // the rank-1 update of the trailing columns, two at a time (half the passes over column t)
    let j = t + 1;
    for (; j + 1 < m; j += 2) {
      const c0 = j * m2;
      const c1 = c0 + m2;
      const ar = D[c0 + 2 * t];
      const ai = D[c0 + 2 * t + 1];
      const br = D[c1 + 2 * t];
      const bi = D[c1 + 2 * t + 1];
      if (ar === 0 && ai === 0 && br === 0 && bi === 0) continue;
      for (let i = 2 * t + 2; i < m2; i += 2) {
        const lr = D[ct + i];
        const li = D[ct + i + 1];
        D[c0 + i] -= lr * ar - li * ai;
        D[c0 + i + 1] -= lr * ai + li * ar;
        D[c1 + i] -= lr * br - li * bi;
        D[c1 + i + 1] -= lr * bi + li * br;
      }
    }
    if (j < m) {
      const c0 = j * m2;
      const ar = D[c0 + 2 * t];
      const ai = D[c0 + 2 * t + 1];
      for (let i = 2 * t + 2; i < m2; i += 2) {
        const lr = D[ct + i];
        const li = D[ct + i + 1];
        D[c0 + i] -= lr * ar - li * ai;
        D[c0 + i + 1] -= lr * ai + li * ar;
      }
    }
  }
  return -1;
}
