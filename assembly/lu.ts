// Left-looking sparse LU with threshold partial pivoting (Gilbert–Peierls, as CSparse's cs_lu and
// KLU), real f64 or complex (interleaved re, im), with a dense trailing block (src/solvers/direct/lu.ts
// describes the method, src/cpu/lu.ts lays out the memory and grows L and U).
//
// lu_factor(desc, tol) — runs the factorization from step desc[21] on, and returns:
//   −1 done; −2 L or U is full (desc[29], desc[30]: the entries each needs; the caller moves them to
//   larger arrays, updates desc and calls again, which resumes where it stopped); −3 a row outside the
//   dense window's rows met in its columns (a window that is not a diagonal block's tail: the caller's
//   error); −4 paused (desc[39] > 0: the sparse steps reached step desc[39], or the dense window is
//   done; the caller calls again, which resumes there: the steps and their operations those of one
//   call); k ≥ 0: no nonzero (finite) pivot left at step k.
//   Sparse steps (0..denseFrom and denseTo..n): column q[k] solved against L so far (x = L \ A(:, q[k]),
//   its pattern found by a depth-first search of L's graph, pruned as KLU does: the rows already
//   pivotal in topological order, those not yet pivotal apart), the pivot the largest
//   candidate unless the diagonal is within tol of it. Steps denseFrom..denseTo (the dense window, m
//   columns): the same solves, their rows not yet pivotal scattered into the dense block D (m×m
//   column-major); then D's LU with partial pivoting (getrf, unblocked), copied into L and U. The
//   window's rows are those not yet pivotal among rows q[0..denseTo) (all of them when denseTo = n): a
//   window ending before n must be the tail of a diagonal block of a block upper triangular A (the
//   columns after it then find L's window columns complete). At the end L's row numbers are pivot steps.
//
// desc, i32 words (pointers are byte offsets in this memory):
//   0 n  1 c (1 real, 2 complex)  2 Ap  3 Ai  4 Ax (A by columns)  5 q  6 Lp  7 Up  8 pinv (−1 filled)
//   9 x (n·c f64, zero)  10 xi  11 stack  12 pstack  13 mark (zero)  14 Lpend (−1 filled)  15 Li
//   16 Lx  17 capL  18 Ui  19 Ux  20 capU  21 k  22 lnz  23 unz  24 denseFrom  25 D (m·m·c f64, zero)
//   26 rows (m)  27 at (n)  28 dpos (m)  29 needL  30 needU  31 denseTo  32 the window is done (0 at first)
//   38 leaves (n)  39 the step to pause at (0: none; the sparse steps and the window's columns pause there)
//   33 matchOf (0: none)  34 blockOf  35 Bp  36 Bi  37 Bx — ordering 'btf': A's row r is row matchOf[r] of
//   B, and only B's diagonal blocks are factorized. The first call writes them into Bp, Bi, Bx (A's
//   entries of each column whose B row i has blockOf[i] equal to the column's, in A's order, rows
//   renumbered; the others lie above the blocks), points 2–4 at them and sets 33 to 0: the steps then
//   read B as they read A, and pinv and L's rows are B's.

import { ld, st, ldf, stf, colSub, colSubC, copyValue } from './words';

// @ts-ignore: decorator
/** Im(1/z) of the latest recip call. */
let recipIm: f64 = 0;

/**
 * Re(1/z) for z = re + i·im (Im in recipIm): conj(z)/|z|², with z scaled by its larger part where |z|²
 * leaves the range of its squares (|z| beyond ≈ 1e±145: the reciprocal came out 0 or ∞, a complex
 * pivot of 1e160 gave L = 0 and one of 1e-200 NaN, 'singular'); in range the plain formula's rounding.
 */
function recip(re: f64, im: f64): f64 {
  let den = re * re + im * im;
  let a = re;
  let b = im;
  if (!(den > 1e-290 && den < 1e290)) {
    const s = Math.max(Math.abs(re), Math.abs(im));
    a = re / s;
    b = im / s;
    den = s * (a * a + b * b);
  }
  recipIm = -b / den;
  return a / den;
}

/** Where lowerSolve's rows not yet pivotal start in `leaves` (they end at n). */
let leafTop: i32 = 0;

/**
 * Depth-first search of L's graph from row r, pivotal and not yet marked (a pruned column only up to
 * Lpend): the pivotal rows it finishes go to xi[--top], so xi[top..n) ends in topological order; the
 * rows not yet pivotal (leaves, with no edges) to leaves[--leafTop] where they are found. The two
 * lists keep the relative order a single list of both had (a leaf pushed was popped at once): the
 * steps read each list in it, so the factor is the one a single list gave, without a branch on
 * whether a row is pivotal in every loop over the pattern.
 */
function reach(r: i32, Lp: usize, Lpend: usize, Li: usize, pinv: usize, stamp: i32, mark: usize, xi: usize, top: i32, leaves: usize, stack: usize, pstack: usize): i32 {
  let head = 0;
  let lt = leafTop;
  st(stack, 0, r);
  st(mark, r, stamp);
  st(pstack, 0, ld(Lp, ld(pinv, r)) + 1);
  while (head >= 0) {
    const j = ld(stack, head);
    const J = ld(pinv, j);
    const pe = ld(Lpend, J);
    const end = select<i32>(pe, ld(Lp, J + 1), pe >= 0);
    let p = ld(pstack, head);
    for (; p < end; p++) {
      const i = ld(Li, p);
      // without a branch for the rows met before (most of the pattern's edges) or for the leaves:
      // a leaf is written at the front of leaves, which moves on past new leaves only
      const fresh = ld(mark, i) != stamp;
      st(mark, i, stamp);
      const I = ld(pinv, i);
      st(leaves, lt - 1, i);
      lt -= <i32>(fresh & (I < 0));
      if (fresh & (I >= 0)) {
        st(pstack, head, p + 1);
        head++;
        st(stack, head, i);
        st(pstack, head, ld(Lp, I) + 1);
        break;
      }
    }
    if (p >= end) {
      head--;
      top--;
      st(xi, top, j);
    }
  }
  leafTop = lt;
  return top;
}

/**
 * x = L \ A(:, col) over L's columns so far: the rows of its pattern already pivotal into xi[top..n)
 * (topological), the others into leaves[leafTop..n); returns top.
 */
function lowerSolve(desc: usize, col: i32, stamp: i32, Li: usize, Lx: usize): i32 {
  const n = ld(desc, 0);
  const c = ld(desc, 1);
  const Ap = <usize>ld(desc, 2);
  const Ai = <usize>ld(desc, 3);
  const Ax = <usize>ld(desc, 4);
  const Lp = <usize>ld(desc, 6);
  const pinv = <usize>ld(desc, 8);
  const x = <usize>ld(desc, 9);
  const xi = <usize>ld(desc, 10);
  const stack = <usize>ld(desc, 11);
  const pstack = <usize>ld(desc, 12);
  const mark = <usize>ld(desc, 13);
  const Lpend = <usize>ld(desc, 14);
  const leaves = <usize>ld(desc, 38);
  const a0 = ld(Ap, col);
  const a1 = ld(Ap, col + 1);
  let top = n;
  leafTop = n;
  for (let p = a0; p < a1; p++) {
    const r = ld(Ai, p);
    if (ld(mark, r) == stamp) continue;
    if (ld(pinv, r) >= 0) top = reach(r, Lp, Lpend, Li, pinv, stamp, mark, xi, top, leaves, stack, pstack);
    else {
      st(mark, r, stamp);
      leafTop--;
      st(leaves, leafTop, r);
    }
  }
  if (c == 1) {
    for (let p = a0; p < a1; p++) stf(x, ld(Ai, p), ldf(Ax, p));
    for (let px = top; px < n; px++) {
      const j = ld(xi, px);
      const J = ld(pinv, j);
      const xj = ldf(x, j);
      if (xj == 0) continue;
      const e = ld(Lp, J + 1);
      for (let p = ld(Lp, J) + 1; p < e; p++) {
        const i = ld(Li, p);
        stf(x, i, ldf(x, i) - ldf(Lx, p) * xj);
      }
    }
  } else {
    for (let p = a0; p < a1; p++) {
      const i = ld(Ai, p);
      stf(x, 2 * i, ldf(Ax, 2 * p));
      stf(x, 2 * i + 1, ldf(Ax, 2 * p + 1));
    }
    for (let px = top; px < n; px++) {
      const j = ld(xi, px);
      const J = ld(pinv, j);
      const xr = ldf(x, 2 * j);
      const xm = ldf(x, 2 * j + 1);
      const e = ld(Lp, J + 1);
      for (let p = ld(Lp, J) + 1; p < e; p++) {
        const i = ld(Li, p);
        const lr = ldf(Lx, 2 * p);
        const li = ldf(Lx, 2 * p + 1);
        stf(x, 2 * i, ldf(x, 2 * i) - (lr * xr - li * xm));
        stf(x, 2 * i + 1, ldf(x, 2 * i + 1) - (lr * xm + li * xr));
      }
    }
  }
  return top;
}

/** |x[i]| as the pivot search measures it: |re| + |im| for complex (LAPACK's izamax). */
// @ts-ignore: decorator
@inline function mag(x: usize, i: i32, c: i32): f64 {
  return c == 1 ? Math.abs(ldf(x, i)) : Math.abs(ldf(x, 2 * i)) + Math.abs(ldf(x, 2 * i + 1));
}

/** Ordering 'btf': B's diagonal blocks from A (desc 33–37 above), once. */
function splitBlocks(desc: usize): void {
  const n = ld(desc, 0);
  const c = ld(desc, 1);
  const Ap = <usize>ld(desc, 2);
  const Ai = <usize>ld(desc, 3);
  const Ax = <usize>ld(desc, 4);
  const match = <usize>ld(desc, 33);
  const blk = <usize>ld(desc, 34);
  const Bp = <usize>ld(desc, 35);
  const Bi = <usize>ld(desc, 36);
  const Bx = <usize>ld(desc, 37);
  let q = 0;
  for (let j = 0; j < n; j++) {
    st(Bp, j, q);
    const b = ld(blk, j);
    for (let p = ld(Ap, j), e = ld(Ap, j + 1); p < e; p++) {
      const i = ld(match, ld(Ai, p));
      if (ld(blk, i) != b) continue;
      st(Bi, q, i);
      copyValue(Bx, q, Ax, p, c);
      q++;
    }
  }
  st(Bp, n, q);
  st(desc, 2, <i32>Bp);
  st(desc, 3, <i32>Bi);
  st(desc, 4, <i32>Bx);
  st(desc, 33, 0);
}

export function lu_factor(desc: usize, tol: f64): i32 {
  if (ld(desc, 33)) splitBlocks(desc);
  const n = ld(desc, 0);
  const k0 = ld(desc, 24);
  const k1 = ld(desc, 31);
  // desc[39] > 0: a pause once the sparse steps reach step desc[39] (−4), and after the dense window
  const stop = ld(desc, 39);
  if (ld(desc, 21) < k0) {
    const r = sparseSteps(desc, tol, stop > 0 && stop < k0 ? stop : k0);
    if (r != -1) return r;
    if (ld(desc, 21) < k0) return -4;
  }
  if (k0 < k1 && ld(desc, 32) == 0) {
    const r = denseSteps(desc, tol);
    if (r != -1) return r;
    st(desc, 32, 1);
    if (stop > 0 && ld(desc, 21) < n) return -4;
  }
  if (ld(desc, 21) < n) {
    const r = sparseSteps(desc, tol, stop > 0 && stop < n ? max(stop, ld(desc, 21)) : n);
    if (r != -1) return r;
    if (ld(desc, 21) < n) return -4;
  }
  const Lp = <usize>ld(desc, 6);
  const Up = <usize>ld(desc, 7);
  const pinv = <usize>ld(desc, 8);
  const Li = <usize>ld(desc, 15);
  const lnz = ld(desc, 22);
  const unz = ld(desc, 23);
  st(Lp, n, lnz);
  st(Up, n, unz);
  // L's rows in pivot order
  for (let p = 0; p < lnz; p++) st(Li, p, ld(pinv, ld(Li, p)));
  save(desc, n, lnz, unz);
  return -1;
}

/** The sparse steps from desc[21] up to `end`: −1 when there, else lu_factor's −2 or k. */
function sparseSteps(desc: usize, tol: f64, end: i32): i32 {
  const n = ld(desc, 0);
  const c = ld(desc, 1);
  const q = <usize>ld(desc, 5);
  const Lp = <usize>ld(desc, 6);
  const Up = <usize>ld(desc, 7);
  const pinv = <usize>ld(desc, 8);
  const x = <usize>ld(desc, 9);
  const xi = <usize>ld(desc, 10);
  const mark = <usize>ld(desc, 13);
  const Lpend = <usize>ld(desc, 14);
  const leaves = <usize>ld(desc, 38);
  const Li = <usize>ld(desc, 15);
  const Lx = <usize>ld(desc, 16);
  const capL = ld(desc, 17);
  const Ui = <usize>ld(desc, 18);
  const Ux = <usize>ld(desc, 19);
  const capU = ld(desc, 20);
  let k = ld(desc, 21);
  let lnz = ld(desc, 22);
  let unz = ld(desc, 23);
  for (; k < end; k++) {
    // room for the column: U's n at most; L's scaling writes every entry of x's pattern one past the
    // kept ones, up to lnz + n (the pivot row last, all n rows in the pattern), so n + 1 words
    if (lnz + n + 1 > capL || unz + n > capU) {
      st(desc, 29, lnz + n + 1);
      st(desc, 30, unz + n);
      break;
    }
    st(Lp, k, lnz);
    st(Up, k, unz);
    const col = ld(q, k);
    const top = lowerSolve(desc, col, k + 1, Li, Lx);
    const lt = leafTop;
    // U's column: the pivotal rows
    for (let p = top; p < n; p++) {
      const i = ld(xi, p);
      st(Ui, unz, ld(pinv, i));
      copyValue(Ux, unz, x, i, c);
      unz++;
    }
    // pivot: the largest candidate (the first of equals), unless the diagonal is within tol of it
    let ipiv = -1;
    let best: f64 = -1;
    for (let p = lt; p < n; p++) {
      const i = ld(leaves, p);
      const t = mag(x, i, c);
      const better = t > best;
      best = select<f64>(t, best, better);
      ipiv = select<i32>(i, ipiv, better);
    }
    if (ipiv == -1 || !(best > 0) || !isFinite<f64>(best)) return k;
    if (ld(pinv, col) < 0 && ld(mark, col) == k + 1) {
      const t = mag(x, col, c);
      if (t >= tol * best && t > 0) ipiv = col;
    }
    st(Ui, unz, k);
    st(pinv, ipiv, k);
    st(Li, lnz, ipiv);
    if (c == 1) {
      const pr = ldf(x, ipiv);
      stf(Ux, unz, pr);
      stf(Lx, lnz, 1);
      unz++;
      lnz++;
      // without a branch for the pivot row (written first): each entry written at L's end, which
      // moves on past the others only (lnz + n < capL)
      for (let p = lt; p < n; p++) {
        const i = ld(leaves, p);
        st(Li, lnz, i);
        stf(Lx, lnz, ldf(x, i) / pr);
        lnz += <i32>(i != ipiv);
        stf(x, i, 0);
      }
      for (let p = top; p < n; p++) stf(x, ld(xi, p), 0);
    } else {
      const pr = ldf(x, 2 * ipiv);
      const pim = ldf(x, 2 * ipiv + 1);
      stf(Ux, 2 * unz, pr);
      stf(Ux, 2 * unz + 1, pim);
      stf(Lx, 2 * lnz, 1);
      stf(Lx, 2 * lnz + 1, 0);
      unz++;
      lnz++;
      // 1 / pivot
      const ir = recip(pr, pim);
      const ii = recipIm;
      for (let p = lt; p < n; p++) {
        const i = ld(leaves, p);
        if (i != ipiv) {
          const a = ldf(x, 2 * i);
          const b = ldf(x, 2 * i + 1);
          st(Li, lnz, i);
          stf(Lx, 2 * lnz, a * ir - b * ii);
          stf(Lx, 2 * lnz + 1, a * ii + b * ir);
          lnz++;
        }
        stf(x, 2 * i, 0);
        stf(x, 2 * i + 1, 0);
      }
      for (let p = top; p < n; p++) {
        const i = ld(xi, p);
        stf(x, 2 * i, 0);
        stf(x, 2 * i + 1, 0);
      }
    }
    // symmetric pruning (Eisenstat & Liu, as KLU): a column J with U(J, k) ≠ 0 whose L part holds k's
    // pivot row reaches, through that row, everything column k holds; later searches need only its
    // rows pivotal by now, which are moved to the front of the column (its values with them)
    for (let p = ld(Up, k); p < unz - 1; p++) {
      const J = ld(Ui, p);
      if (ld(Lpend, J) >= 0) continue;
      const e = ld(Lp, J + 1);
      let found = false;
      for (let t = ld(Lp, J) + 1; t < e; t++) {
        if (ld(Li, t) == ipiv) {
          found = true;
          break;
        }
      }
      if (!found) continue;
      let head = ld(Lp, J) + 1;
      let tail = e;
      while (head < tail) {
        const i = ld(Li, head);
        if (ld(pinv, i) >= 0) {
          head++;
          continue;
        }
        tail--;
        st(Li, head, ld(Li, tail));
        st(Li, tail, i);
        for (let t = 0; t < c; t++) {
          const v = ldf(Lx, c * head + t);
          stf(Lx, c * head + t, ldf(Lx, c * tail + t));
          stf(Lx, c * tail + t, v);
        }
      }
      st(Lpend, J, tail);
    }
  }
  if (k < end) return save(desc, k, lnz, unz);
  save(desc, k, lnz, unz);
  return -1;
}

/** The dense window's steps (desc[24]..desc[31]) from desc[21]: −1 when done, else lu_factor's −2, −3 or k. */
function denseSteps(desc: usize, tol: f64): i32 {
  const n = ld(desc, 0);
  const c = ld(desc, 1);
  const q = <usize>ld(desc, 5);
  const Lp = <usize>ld(desc, 6);
  const Up = <usize>ld(desc, 7);
  const pinv = <usize>ld(desc, 8);
  const x = <usize>ld(desc, 9);
  const xi = <usize>ld(desc, 10);
  const leaves = <usize>ld(desc, 38);
  const Li = <usize>ld(desc, 15);
  const Lx = <usize>ld(desc, 16);
  const capL = ld(desc, 17);
  const Ui = <usize>ld(desc, 18);
  const Ux = <usize>ld(desc, 19);
  const capU = ld(desc, 20);
  let k = ld(desc, 21);
  let lnz = ld(desc, 22);
  let unz = ld(desc, 23);
  const k0 = ld(desc, 24);
  const k1 = ld(desc, 31);
  {
    // each column's update by the sparse L (the same triangular solve), its rows not yet pivotal
    // scattered into D, the rest kept as U's sparse part
    const m = k1 - k0;
    const D = <usize>ld(desc, 25);
    const rows = <usize>ld(desc, 26);
    const at = <usize>ld(desc, 27);
    const dpos = <usize>ld(desc, 28);
    if (k == k0) {
      st(Lp, k0, lnz);
      // the window's rows: not yet pivotal among rows q[0..k1) (at: a row's position in q, then in rows; −1 outside)
      for (let t = 0; t < n; t++) st(at, ld(q, t), t);
      let t = 0;
      for (let i = 0; i < n; i++) {
        if (ld(pinv, i) < 0 && ld(at, i) < k1) {
          st(rows, t, i);
          st(at, i, t);
          t++;
        } else st(at, i, -1);
      }
      if (t != m) return -3;
    }
    const stop = ld(desc, 39);
    for (; k < k1; k++) {
      // a pause asked for (lu_factor's −4): the window's columns resume here, its LU after them
      if (stop > 0 && k >= stop && k > k0) {
        save(desc, k, lnz, unz);
        return -4;
      }
      if (unz + n > capU) {
        st(desc, 29, 0);
        st(desc, 30, unz + n);
        return save(desc, k, lnz, unz);
      }
      const t = k - k0;
      st(Up, k, unz);
      const top = lowerSolve(desc, ld(q, k), k + 1, Li, Lx);
      const base = t * m * c;
      for (let p = top; p < n; p++) {
        const i = ld(xi, p);
        st(Ui, unz, ld(pinv, i));
        for (let s = 0; s < c; s++) {
          stf(Ux, c * unz + s, ldf(x, c * i + s));
          stf(x, c * i + s, 0);
        }
        unz++;
      }
      for (let p = leafTop; p < n; p++) {
        const i = ld(leaves, p);
        const a = ld(at, i);
        if (a < 0) return -3;
        for (let s = 0; s < c; s++) {
          stf(D, base + c * a + s, ldf(x, c * i + s));
          stf(x, c * i + s, 0);
        }
      }
      st(dpos, t, unz);
      unz += t + 1;
    }
    const need = lnz + (m * (m + 1)) / 2;
    if (need > capL) {
      st(desc, 29, need);
      st(desc, 30, 0);
      return save(desc, k, lnz, unz);
    }
    const bad = c == 1 ? denseLuReal(D, m, rows, at, q + (<usize>k0 << 2), tol) : denseLuComplex(D, m, rows, at, q + (<usize>k0 << 2), tol);
    if (bad >= 0) return k0 + bad;
    for (let t = 0; t < m; t++) {
      const kk = k0 + t;
      st(pinv, ld(rows, t), kk);
      // U(k0..kk, kk) from column t of D's upper triangle, diagonal last
      for (let s = 0, u = ld(dpos, t); s <= t; s++, u++) {
        st(Ui, u, k0 + s);
        for (let e = 0; e < c; e++) stf(Ux, c * u + e, ldf(D, (t * m + s) * c + e));
      }
      // L(:, kk): 1, then the rows below the diagonal (original row numbers, mapped below)
      st(Lp, kk, lnz);
      st(Li, lnz, ld(rows, t));
      stf(Lx, c * lnz, 1);
      if (c == 2) stf(Lx, c * lnz + 1, 0);
      lnz++;
      for (let i = t + 1; i < m; i++) {
        st(Li, lnz, ld(rows, i));
        for (let e = 0; e < c; e++) stf(Lx, c * lnz + e, ldf(D, (t * m + i) * c + e));
        lnz++;
      }
    }
  }
  save(desc, k1, lnz, unz);
  return -1;
}

/** Keeps where the factorization stopped (it resumes there); returns −2. */
function save(desc: usize, k: i32, lnz: i32, unz: i32): i32 {
  st(desc, 21, k);
  st(desc, 22, lnz);
  st(desc, 23, unz);
  return -2;
}

/** Swaps positions t and p of rows (and their entries of at). */
// @ts-ignore: decorator
@inline function swapRows(rows: usize, at: usize, t: i32, p: i32): void {
  const r = ld(rows, t);
  st(rows, t, ld(rows, p));
  st(rows, p, r);
  st(at, ld(rows, t), t);
  st(at, r, p);
}

/**
 * Dense LU with partial pivoting of D (m×m column-major) in place: L unit lower below the diagonal, U
 * upper; rows[t] the original row at position t (at its inverse). The pivot is the largest entry of
 * its column, except that the row diag[t] (the sparse ordering's diagonal) is kept when within tol of
 * it. Returns −1, or the first step whose column has no nonzero pivot or a NaN or infinite candidate.
 */
function denseLuReal(D: usize, m: i32, rows: usize, at: usize, diag: usize, tol: f64): i32 {
  for (let t = 0; t < m; t++) {
    const ct = t * m;
    let p = t;
    let best = Math.abs(ldf(D, ct + t));
    let sum = best;
    for (let i = t + 1; i < m; i++) {
      const v = Math.abs(ldf(D, ct + i));
      sum += v;
      if (v > best) {
        best = v;
        p = i;
      }
    }
    if (!(best > 0) || !(sum < Infinity)) return t;
    const d = ld(at, ld(diag, t));
    if (d >= t && d < m && ld(rows, d) == ld(diag, t)) {
      const v = Math.abs(ldf(D, ct + d));
      if (v >= tol * best && v > 0) p = d;
    }
    if (p != t) {
      for (let j = 0; j < m * m; j += m) {
        const v = ldf(D, j + t);
        stf(D, j + t, ldf(D, j + p));
        stf(D, j + p, v);
      }
      swapRows(rows, at, t, p);
    }
    const inv = 1 / ldf(D, ct + t);
    for (let i = ct + t + 1; i < ct + m; i++) stf(D, i, ldf(D, i) * inv);
    // the rank-1 update of the trailing columns, two at a time (half the passes over column t)
    const lcol = D + (<usize>(ct + t + 1) << 3);
    const len = m - t - 1;
    let j = t + 1;
    for (; j + 1 < m; j += 2) {
      const c0 = j * m;
      const c1 = c0 + m;
      const a0 = ldf(D, c0 + t);
      const a1 = ldf(D, c1 + t);
      if (a0 == 0 && a1 == 0) continue;
      axpy2(lcol, D + (<usize>(c0 + t + 1) << 3), D + (<usize>(c1 + t + 1) << 3), len, a0, a1);
    }
    if (j < m) {
      const c0 = j * m;
      const a0 = ldf(D, c0 + t);
      if (a0 != 0) axpy2(lcol, D + (<usize>(c0 + t + 1) << 3), D + (<usize>(c0 + t + 1) << 3), len, a0, 0);
    }
  }
  return -1;
}

/** y0 −= l·a0 and y1 −= l·a1 over len entries (y1 may be y0 with a1 = 0: then y0 −= l·a0 − l·0). */
// @ts-ignore: decorator
@inline function axpy2(l: usize, y0: usize, y1: usize, len: i32, a0: f64, a1: f64): void {
  if (y1 == y0) {
    for (let i = 0; i < len; i++) stf(y0, i, ldf(y0, i) - ldf(l, i) * a0);
    return;
  }
  let i = 0;
  if (ASC_FEATURE_SIMD) {
    const s0 = f64x2.splat(a0);
    const s1 = f64x2.splat(a1);
    for (; i + 1 < len; i += 2) {
      const o = <usize>i << 3;
      const v = v128.load(l + o);
      v128.store(y0 + o, f64x2.sub(v128.load(y0 + o), f64x2.mul(v, s0)));
      v128.store(y1 + o, f64x2.sub(v128.load(y1 + o), f64x2.mul(v, s1)));
    }
  }
  for (; i < len; i++) {
    const v = ldf(l, i);
    stf(y0, i, ldf(y0, i) - v * a0);
    stf(y1, i, ldf(y1, i) - v * a1);
  }
}

/**
 * y[i] −= l[i]·a over len complex entries (interleaved): re −= lr·ar − li·ai, im −= lr·ai + li·ar, the
 * same roundings in the SIMD form (one lane's sum is the other's commuted).
 */
// @ts-ignore: decorator
@inline function caxpy(l: usize, y: usize, len: i32, ar: f64, ai: f64): void {
  let i = 0;
  if (ASC_FEATURE_SIMD) {
    const sa = f64x2.splat(ar);
    const sb = f64x2(-ai, ai);
    for (; i < len; i++) {
      const o = <usize>i << 4;
      const v = v128.load(l + o);
      const t = f64x2.add(f64x2.mul(v, sa), f64x2.mul(v128.shuffle<f64>(v, v, 1, 0), sb));
      v128.store(y + o, f64x2.sub(v128.load(y + o), t));
    }
  }
  for (; i < len; i++) {
    const lr = ldf(l, 2 * i);
    const li = ldf(l, 2 * i + 1);
    stf(y, 2 * i, ldf(y, 2 * i) - (lr * ar - li * ai));
    stf(y, 2 * i + 1, ldf(y, 2 * i + 1) - (lr * ai + li * ar));
  }
}

/**
 * caxpy into two columns from one pass over l: y0[i] −= l[i]·a, y1[i] −= l[i]·b (the same roundings
 * as two caxpy calls, each entry of l loaded and swapped once).
 */
// @ts-ignore: decorator
@inline function caxpy2(l: usize, y0: usize, y1: usize, len: i32, ar: f64, ai: f64, br: f64, bi: f64): void {
  let i = 0;
  if (ASC_FEATURE_SIMD) {
    const sa = f64x2.splat(ar);
    const sai = f64x2(-ai, ai);
    const sb = f64x2.splat(br);
    const sbi = f64x2(-bi, bi);
    for (; i < len; i++) {
      const o = <usize>i << 4;
      const v = v128.load(l + o);
      const w = v128.shuffle<f64>(v, v, 1, 0);
      v128.store(y0 + o, f64x2.sub(v128.load(y0 + o), f64x2.add(f64x2.mul(v, sa), f64x2.mul(w, sai))));
      v128.store(y1 + o, f64x2.sub(v128.load(y1 + o), f64x2.add(f64x2.mul(v, sb), f64x2.mul(w, sbi))));
    }
  }
  for (; i < len; i++) {
    const lr = ldf(l, 2 * i);
    const li = ldf(l, 2 * i + 1);
    stf(y0, 2 * i, ldf(y0, 2 * i) - (lr * ar - li * ai));
    stf(y0, 2 * i + 1, ldf(y0, 2 * i + 1) - (lr * ai + li * ar));
    stf(y1, 2 * i, ldf(y1, 2 * i) - (lr * br - li * bi));
    stf(y1, 2 * i + 1, ldf(y1, 2 * i + 1) - (lr * bi + li * br));
  }
}

function denseLuComplex(D: usize, m: i32, rows: usize, at: usize, diag: usize, tol: f64): i32 {
  const m2 = 2 * m;
  for (let t = 0; t < m; t++) {
    const ct = t * m2;
    let p = t;
    let best = Math.abs(ldf(D, ct + 2 * t)) + Math.abs(ldf(D, ct + 2 * t + 1));
    let sum = best;
    for (let i = t + 1; i < m; i++) {
      const v = Math.abs(ldf(D, ct + 2 * i)) + Math.abs(ldf(D, ct + 2 * i + 1));
      sum += v;
      if (v > best) {
        best = v;
        p = i;
      }
    }
    if (!(best > 0) || !(sum < Infinity)) return t;
    const d = ld(at, ld(diag, t));
    if (d >= t && d < m && ld(rows, d) == ld(diag, t)) {
      const v = Math.abs(ldf(D, ct + 2 * d)) + Math.abs(ldf(D, ct + 2 * d + 1));
      if (v >= tol * best && v > 0) p = d;
    }
    if (p != t) {
      for (let j = 0; j < m * m2; j += m2) {
        const re = ldf(D, j + 2 * t);
        const im = ldf(D, j + 2 * t + 1);
        stf(D, j + 2 * t, ldf(D, j + 2 * p));
        stf(D, j + 2 * t + 1, ldf(D, j + 2 * p + 1));
        stf(D, j + 2 * p, re);
        stf(D, j + 2 * p + 1, im);
      }
      swapRows(rows, at, t, p);
    }
    const pr = ldf(D, ct + 2 * t);
    const pi = ldf(D, ct + 2 * t + 1);
    const ir = recip(pr, pi);
    const ii = recipIm;
    for (let i = ct + 2 * t + 2; i < ct + m2; i += 2) {
      const a = ldf(D, i);
      const b = ldf(D, i + 1);
      stf(D, i, a * ir - b * ii);
      stf(D, i + 1, a * ii + b * ir);
    }
    // the rank-1 update of the trailing columns
    for (let j = t + 1; j < m; j++) {
      const c0 = j * m2;
      const ar = ldf(D, c0 + 2 * t);
      const ai = ldf(D, c0 + 2 * t + 1);
      if (ar == 0 && ai == 0) continue;
      caxpy(D + (<usize>(ct + 2 * t + 2) << 3), D + (<usize>(c0 + 2 * t + 2) << 3), m - t - 1, ar, ai);
    }
  }
  return -1;
}

// lu_band(desc, tol) — banded LU with partial pivoting (LAPACK's gbtf2, right-looking on a dense band
//   of kl + (kl + ku) + 1 diagonals; src/solvers/direct/band-lu.ts describes it), real or complex, the
//   pivot rule of lu_factor. Returns −1, or the step whose column has no nonzero finite pivot left.
//   desc, i32 words: 0 n  1 c  2 Ap  3 Ai  4 Ax (entries within the band)  5 kl  6 ku  7 W (n·ld·c
//   f64, zero; ld = 2·kl + ku + 1)  8 rowAt  9 posOf  10 Lp  11 Li (n·(kl + 1))  12 Lx  13 Up  14 Ui
//   (n·(kl + ku + 1))  15 Ux  16 pinv  17 lnz, 18 unz (set on return). L's rows are pivot steps.
export function lu_band(desc: usize, tol: f64): i32 {
  const n = ld(desc, 0);
  const c = ld(desc, 1);
  const Ap = <usize>ld(desc, 2);
  const Ai = <usize>ld(desc, 3);
  const Ax = <usize>ld(desc, 4);
  const kl = ld(desc, 5);
  const kv = kl + ld(desc, 6);
  const W = <usize>ld(desc, 7);
  const rowAt = <usize>ld(desc, 8);
  const posOf = <usize>ld(desc, 9);
  const Lp = <usize>ld(desc, 10);
  const Li = <usize>ld(desc, 11);
  const Lx = <usize>ld(desc, 12);
  const Up = <usize>ld(desc, 13);
  const Ui = <usize>ld(desc, 14);
  const Ux = <usize>ld(desc, 15);
  const pinv = <usize>ld(desc, 16);
  // column j holds rows j − kv .. j + kl: row i at (j·ld + kv + i − j)·c
  const lda = kl + kv + 1;
  for (let j = 0; j < n; j++) {
    for (let p = ld(Ap, j), e = ld(Ap, j + 1); p < e; p++) {
      const at = (j * lda + kv + ld(Ai, p) - j) * c;
      for (let s = 0; s < c; s++) stf(W, at + s, ldf(Ax, c * p + s));
    }
  }
  for (let i = 0; i < n; i++) {
    st(rowAt, i, i);
    st(posOf, i, i);
  }
  let lnz = 0;
  let unz = 0;
  for (let j = 0; j < n; j++) {
    const last = min(n - 1, j + kl);
    const cend = min(n - 1, j + kv);
    const col = (j * lda + kv - j) * c; // + i·c: row i of column j
    let p = j;
    let best: f64 = -1;
    let sum: f64 = 0;
    for (let i = j; i <= last; i++) {
      const v = mag(W + (<usize>col << 3), i, c);
      sum += v;
      if (v > best) {
        best = v;
        p = i;
      }
    }
    if (!(best > 0) || !(sum < Infinity)) {
      st(desc, 17, lnz);
      st(desc, 18, unz);
      return j;
    }
    const d = ld(posOf, j);
    if (d >= j && d <= last) {
      const v = mag(W + (<usize>col << 3), d, c);
      if (v >= tol * best && v > 0) p = d;
    }
    if (p != j) {
      for (let k = j; k <= cend; k++) {
        const ck = (k * lda + kv - k) * c;
        for (let t = 0; t < c; t++) {
          const v = ldf(W, ck + c * j + t);
          stf(W, ck + c * j + t, ldf(W, ck + c * p + t));
          stf(W, ck + c * p + t, v);
        }
      }
      const r = ld(rowAt, j);
      st(rowAt, j, ld(rowAt, p));
      st(rowAt, p, r);
      st(posOf, ld(rowAt, j), j);
      st(posOf, r, p);
    }
    st(pinv, ld(rowAt, j), j);
    // U(:, j): rows j − kv .. j − 1 (step numbers) where nonzero, the pivot last
    st(Up, j, unz);
    for (let i = max(0, j - kv); i < j; i++) {
      const re = ldf(W, col + c * i);
      const im = c == 2 ? ldf(W, col + 2 * i + 1) : 0;
      if (re == 0 && im == 0) continue;
      st(Ui, unz, i);
      stf(Ux, c * unz, re);
      if (c == 2) stf(Ux, 2 * unz + 1, im);
      unz++;
    }
    const pr = ldf(W, col + c * j);
    const pi = c == 2 ? ldf(W, col + 2 * j + 1) : 0;
    st(Ui, unz, j);
    stf(Ux, c * unz, pr);
    if (c == 2) stf(Ux, 2 * unz + 1, pi);
    unz++;
    // L(:, j): 1, then the multipliers (original row numbers, mapped by pinv at the end)
    st(Lp, j, lnz);
    st(Li, lnz, ld(rowAt, j));
    stf(Lx, c * lnz, 1);
    if (c == 2) stf(Lx, c * lnz + 1, 0);
    lnz++;
    if (c == 1) {
      const inv = 1 / pr;
      for (let i = j + 1; i <= last; i++) {
        const l = ldf(W, col + i) * inv;
        stf(W, col + i, l);
        if (l == 0) continue;
        st(Li, lnz, ld(rowAt, i));
        stf(Lx, lnz, l);
        lnz++;
      }
      // the rank-1 update, two columns at a time (half the passes over the multipliers)
      const lcol = W + (<usize>(col + j + 1) << 3);
      const len = last - j;
      let k = j + 1;
      for (; k < cend; k += 2) {
        const c0 = k * lda + kv - k;
        const c1 = c0 + lda - 1;
        const a = ldf(W, c0 + j);
        const b = ldf(W, c1 + j);
        if (a == 0 && b == 0) continue;
        axpy2(lcol, W + (<usize>(c0 + j + 1) << 3), W + (<usize>(c1 + j + 1) << 3), len, a, b);
      }
      if (k == cend) {
        const c0 = k * lda + kv - k;
        const a = ldf(W, c0 + j);
        if (a != 0) axpy2(lcol, W + (<usize>(c0 + j + 1) << 3), W + (<usize>(c0 + j + 1) << 3), len, a, 0);
      }
    } else {
      const ir = recip(pr, pi);
      const ii = recipIm;
      for (let i = j + 1; i <= last; i++) {
        const a = ldf(W, col + 2 * i);
        const b = ldf(W, col + 2 * i + 1);
        const lr = a * ir - b * ii;
        const li = a * ii + b * ir;
        stf(W, col + 2 * i, lr);
        stf(W, col + 2 * i + 1, li);
        if (lr == 0 && li == 0) continue;
        st(Li, lnz, ld(rowAt, i));
        stf(Lx, 2 * lnz, lr);
        stf(Lx, 2 * lnz + 1, li);
        lnz++;
      }
      for (let k = j + 1; k <= cend; k++) {
        const c0 = (k * lda + kv - k) * 2;
        const ar = ldf(W, c0 + 2 * j);
        const ai = ldf(W, c0 + 2 * j + 1);
        if (ar == 0 && ai == 0) continue;
        caxpy(W + (<usize>(col + 2 * j + 2) << 3), W + (<usize>(c0 + 2 * j + 2) << 3), last - j, ar, ai);
      }
    }
  }
  st(Lp, n, lnz);
  st(Up, n, unz);
  for (let p = 0; p < lnz; p++) st(Li, p, ld(pinv, ld(Li, p)));
  st(desc, 17, lnz);
  st(desc, 18, unz);
  return -1;
}

// lu_band_ldlt(n, c, Ap, Ai, Ax, kl, tol, W, Lp, Li, Lx, Up, Ui, Ux) — LDLᵀ of a symmetric band
//   (complex symmetric: no conjugation) on its lower band, the factor as L·U with U = D·Lᵀ, when every
//   pivot stays on the diagonal under lu_band's rule (src/solvers/direct/band-lu.ts BandLdltNumeric describes
//   it). Returns the entries of L (= U's), or −1 where a pivot is zero or not within tol of its column's
//   largest entry (the caller runs lu_band). W: n·(kl + 1)·c f64, zero; Li, Ui n·(kl + 1) i32, Lx, Ux
//   n·(kl + 1)·c f64; A's entries within the band, rows ascending. The operations and their order are
//   those of the JavaScript loop this replaced (the 1/d of a complex pivot as its div([1, 0], d)): the same bits.
export function lu_band_ldlt(n: i32, c: i32, Ap: usize, Ai: usize, Ax: usize, kl: i32, tol: f64, W: usize, Lp: usize, Li: usize, Lx: usize, Up: usize, Ui: usize, Ux: usize): i32 {
  const lda = kl + 1;
  // column j holds rows j .. j + kl: row i at (j·lda + i − j)·c
  for (let j = 0; j < n; j++) {
    for (let p = ld(Ap, j), e = ld(Ap, j + 1); p < e; p++) {
      const i = ld(Ai, p);
      if (i < j) continue;
      const at = (j * lda + i - j) * c;
      for (let s = 0; s < c; s++) stf(W, at + s, ldf(Ax, c * p + s));
    }
  }
  for (let j = 0; j < n; j++) {
    const last = min(n - 1, j + kl);
    const col = (j * lda - j) * c; // + i·c: row i of column j
    const cw = W + (<usize>col << 3);
    const dr = ldf(W, col + c * j);
    const di = c == 2 ? ldf(W, col + 2 * j + 1) : 0;
    const dmag = mag(cw, j, c);
    let best = dmag;
    let sum = dmag;
    for (let i = j + 1; i <= last; i++) {
      const v = mag(cw, i, c);
      sum += v;
      if (v > best) best = v;
    }
    if (!(dmag > 0) || dmag < tol * best || !(sum < Infinity)) return -1;
    if (c == 1) {
      const inv = 1 / dr;
      for (let i = j + 1; i <= last; i++) stf(W, col + i, ldf(W, col + i) * inv);
      // W(i, k) −= l_i · (l_k · d): the Schur complement's lower band, two columns at a time
      let k = j + 1;
      for (; k < last; k += 2) {
        const lk = ldf(W, col + k);
        const t0 = lk * dr;
        const t1 = ldf(W, col + k + 1) * dr;
        const c0 = k * lda - k;
        const c1 = c0 + lda - 1;
        stf(W, c0 + k, ldf(W, c0 + k) - lk * t0);
        axpy2(W + (<usize>(col + k + 1) << 3), W + (<usize>(c0 + k + 1) << 3), W + (<usize>(c1 + k + 1) << 3), last - k, t0, t1);
      }
      if (k == last) {
        const lk = ldf(W, col + k);
        stf(W, k * lda, ldf(W, k * lda) - lk * lk * dr);
      }
    } else {
      // div([1, 0], d) of src/solvers/krylov/complex.ts: through |d|² in range, else Smith's method
      let ir: f64;
      let ii: f64;
      const d2 = dr * dr + di * di;
      if (d2 > 1e-290 && d2 < 1e290) {
        ir = (1 * dr + 0 * di) / d2;
        ii = (0 * dr - 1 * di) / d2;
      } else if (Math.abs(di) <= Math.abs(dr)) {
        const t = di / dr;
        const d = dr + di * t;
        ir = (1 + 0 * t) / d;
        ii = (0 - 1 * t) / d;
      } else {
        const t = dr / di;
        const d = dr * t + di;
        ir = (1 * t + 0) / d;
        ii = (0 * t - 1) / d;
      }
      for (let i = j + 1; i <= last; i++) {
        const a = ldf(W, col + 2 * i);
        const b = ldf(W, col + 2 * i + 1);
        stf(W, col + 2 * i, a * ir - b * ii);
        stf(W, col + 2 * i + 1, a * ii + b * ir);
      }
      // two columns at a time, the first one's diagonal apart (caxpy2: the loop's roundings)
      let k = j + 1;
      for (; k < last; k += 2) {
        const lr = ldf(W, col + 2 * k);
        const li = ldf(W, col + 2 * k + 1);
        const tr = lr * dr - li * di;
        const ti = lr * di + li * dr;
        const mr = ldf(W, col + 2 * k + 2);
        const mi = ldf(W, col + 2 * k + 3);
        const ur = mr * dr - mi * di;
        const ui = mr * di + mi * dr;
        const c0 = (k * lda - k) * 2;
        const c1 = c0 + (lda - 1) * 2;
        stf(W, c0 + 2 * k, ldf(W, c0 + 2 * k) - (lr * tr - li * ti));
        stf(W, c0 + 2 * k + 1, ldf(W, c0 + 2 * k + 1) - (lr * ti + li * tr));
        caxpy2(W + (<usize>(col + 2 * k + 2) << 3), W + (<usize>(c0 + 2 * k + 2) << 3), W + (<usize>(c1 + 2 * k + 2) << 3), last - k, tr, ti, ur, ui);
      }
      if (k == last) {
        const lr = ldf(W, col + 2 * k);
        const li = ldf(W, col + 2 * k + 1);
        const c0 = (k * lda - k) * 2;
        stf(W, c0 + 2 * k, ldf(W, c0 + 2 * k) - (lr * (lr * dr - li * di) - li * (lr * di + li * dr)));
        stf(W, c0 + 2 * k + 1, ldf(W, c0 + 2 * k + 1) - (lr * (lr * di + li * dr) + li * (lr * dr - li * di)));
      }
    }
  }
  // L from the band (its nonzeros), U = D·Lᵀ by columns: U(j, k) = d_j · L(k, j), then d_k
  let lnz = 0;
  for (let j = 0; j < n; j++) {
    const last = min(n - 1, j + kl);
    const col = (j * lda - j) * c;
    st(Lp, j, lnz);
    st(Li, lnz, j);
    stf(Lx, c * lnz, 1);
    if (c == 2) stf(Lx, c * lnz + 1, 0);
    lnz++;
    for (let i = j + 1; i <= last; i++) {
      const re = ldf(W, col + c * i);
      const im = c == 2 ? ldf(W, col + 2 * i + 1) : 0;
      if (re == 0 && im == 0) continue;
      st(Li, lnz, i);
      stf(Lx, c * lnz, re);
      if (c == 2) stf(Lx, c * lnz + 1, im);
      lnz++;
    }
  }
  st(Lp, n, lnz);
  let unz = 0;
  for (let k = 0; k < n; k++) {
    st(Up, k, unz);
    for (let j = max(0, k - kl); j < k; j++) {
      const at = (j * lda + k - j) * c;
      const lr = ldf(W, at);
      const li = c == 2 ? ldf(W, at + 1) : 0;
      if (lr == 0 && li == 0) continue;
      const d = j * lda * c;
      const dr = ldf(W, d);
      st(Ui, unz, j);
      if (c == 1) stf(Ux, unz, dr * lr);
      else {
        const di = ldf(W, d + 1);
        stf(Ux, 2 * unz, dr * lr - di * li);
        stf(Ux, 2 * unz + 1, dr * li + di * lr);
      }
      unz++;
    }
    st(Ui, unz, k);
    stf(Ux, c * unz, ldf(W, k * lda * c));
    if (c == 2) stf(Ux, c * unz + 1, ldf(W, k * lda * c + 1));
    unz++;
  }
  st(Up, n, unz);
  return lnz;
}

// lu_solve(n, c, Lp, Li, Lx, Up, Ui, Ux, dinv, pinv, q, b, x, y) — x = A⁻¹·b through a kept factor
//   (c 1 real, 2 complex interleaved): y[pinv[i]] = b[i], L·U·z = y solved in y, x[q[k]] = z[k]. L unit
//   lower by columns (its diagonal stored first, skipped), U by columns (its diagonal last, applied as
//   the product with dinv = 1 / U(k, k)); a column skipped where its y is 0 (real only). The operations
//   and their order are those of the JavaScript solve this replaced: the same bits (complex updates in
//   f64x2 in the SIMD build, colSubC: the same roundings).
export function lu_solve(
  n: i32, c: i32, Lp: usize, Li: usize, Lx: usize, Up: usize, Ui: usize, Ux: usize, dinv: usize,
  pinv: usize, q: usize, b: usize, x: usize, y: usize,
): void {
  if (c == 1) {
    for (let i = 0; i < n; i++) stf(y, ld(pinv, i), ldf(b, i));
    for (let j = 0; j < n; j++) {
      const yj = ldf(y, j);
      if (yj != 0) colSub(y, Li, Lx, ld(Lp, j) + 1, ld(Lp, j + 1), yj);
    }
    for (let j = n - 1; j >= 0; j--) {
      const yj = ldf(y, j) * ldf(dinv, j);
      stf(y, j, yj);
      if (yj != 0) colSub(y, Ui, Ux, ld(Up, j), ld(Up, j + 1) - 1, yj);
    }
    for (let k = 0; k < n; k++) stf(x, ld(q, k), ldf(y, k));
    return;
  }
  for (let i = 0; i < n; i++) {
    const r = ld(pinv, i);
    stf(y, 2 * r, ldf(b, 2 * i));
    stf(y, 2 * r + 1, ldf(b, 2 * i + 1));
  }
  for (let j = 0; j < n; j++) colSubC(y, Li, Lx, ld(Lp, j) + 1, ld(Lp, j + 1), ldf(y, 2 * j), ldf(y, 2 * j + 1));
  for (let j = n - 1; j >= 0; j--) {
    const ir = ldf(dinv, 2 * j);
    const ii = ldf(dinv, 2 * j + 1);
    const a = ldf(y, 2 * j);
    const bi = ldf(y, 2 * j + 1);
    const yr = a * ir - bi * ii;
    const yi = a * ii + bi * ir;
    stf(y, 2 * j, yr);
    stf(y, 2 * j + 1, yi);
    colSubC(y, Ui, Ux, ld(Up, j), ld(Up, j + 1) - 1, yr, yi);
  }
  for (let k = 0; k < n; k++) {
    const t = ld(q, k);
    stf(x, 2 * t, ldf(y, 2 * k));
    stf(x, 2 * t + 1, ldf(y, 2 * k + 1));
  }
}

// lu_band_solve(n, Lptr, L, uw, Uw, U, rowOf, dinv, b, x) — x = A⁻¹·b through a real banded factor by
//   rows (src/solvers/direct/band-lu.ts BandRows: row s of L holds columns s − w .. s − 1 at
//   Lptr[s + 1] − s + j, row i of U columns i + 1 .. i + Uw[i] at i·uw + (k − i − 1)): each unknown one
//   dot product over its contiguous row, the term of the unknown just computed last, read from a
//   register; b's permutation read in the first pass. The same products subtracted in the same order as
//   lu_solve, plus exact zeros (0·x for finite x): the same x.
export function lu_band_solve(n: i32, Lptr: usize, L: usize, uw: i32, Uw: usize, U: usize, rowOf: usize, dinv: usize, b: usize, x: usize): void {
  let t: f64 = 0; // the unknown just computed
  for (let i = 0; i < n; i++) {
    let s = ldf(b, ld(rowOf, i));
    const o = ld(Lptr, i + 1) - i;
    const j0 = ld(Lptr, i) - o;
    if (j0 < i) {
      for (let j = j0; j < i - 1; j++) s -= ldf(L, o + j) * ldf(x, j);
      s -= ldf(L, o + i - 1) * t;
    }
    t = s;
    stf(x, i, s);
  }
  for (let i = n - 1; i >= 0; i--) {
    let s = ldf(x, i);
    const w = ld(Uw, i);
    if (w > 0) {
      const o = i * (uw - 1) - 1;
      for (let k = i + w; k > i + 1; k--) s -= ldf(U, o + k) * ldf(x, k);
      s -= ldf(U, o + i + 1) * t;
    }
    t = s * ldf(dinv, i);
    stf(x, i, t);
  }
}
