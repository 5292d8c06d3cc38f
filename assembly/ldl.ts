// Up-looking LDLᵀ of a symmetric matrix in a fill-reducing order (the scheme of Davis's LDL package;
// src/solvers/direct/ldl.ts has the factor's form and its solve, src/cpu/ldl.ts the wiring). Run here
// so that the factorizations of a process's first calls do not wait for the JavaScript engine to
// optimize the loops (494_bus: 0.33–0.5 ms a call for its first calls as JavaScript).
//
// ldl_factor(n, Ap, Ai, Ax, pinv, parent, Lp, Li, Lx, D, work, positive, k0, k1) — A by columns (both
//   triangles, rows ascending, f64), pinv its ordering (row/column i of A is position pinv[i]), parent
//   the elimination tree and Lp the column pointers of the unit lower L (from the column counts) in
//   that order. First the upper triangle of P·A·Pᵀ is gathered by columns (each entry of A from the
//   triangle that lands above the diagonal), then row k of L is the solution of a sparse triangular
//   system whose pattern is the row subtree of k, written into the columns of L (Li, Lx) and D.
//   Returns −1, or the first step whose pivot is zero or not finite (not positive, or not finite, when
//   `positive`), among steps k0..k1 (0..n: the whole factorization; a range from k0 > 0 resumes where
//   the call for the range before it ended, on the same arrays and work); budget > 0: −2 − k when the
//   steps before k read `budget` or more of L's entries (a pause: the next call resumes from k). work: 4·(n + 1) + 12·nnz(A) bytes aligned to 8, then 8·n (x), then 12·n (three i32 vectors).

import { ld, st, ldf, stf } from './words';

export function ldl_factor(
  n: i32, Ap: usize, Ai: usize, Ax: usize, pinv: usize, parent: usize,
  Lp: usize, Li: usize, Lx: usize, D: usize, work: usize, positive: i32, k0: i32, k1: i32, budget: i32,
): i32 {
  const nnz = ld(Ap, n);
  // the upper triangle of P·A·Pᵀ by columns: Cx (f64) first, then Cp, Ci
  const Cx = work;
  const Cp = Cx + (<usize>nnz << 3);
  const Ci = Cp + (<usize>(n + 1) << 2);
  const x = (Ci + (<usize>nnz << 2) + 7) & ~(<usize>7);
  const s = x + (<usize>n << 3);
  const mark = s + (<usize>n << 2);
  const fill = mark + (<usize>n << 2);
  // steps k0..k1 (a caller that pauses between ranges keeps the work region between its calls; the
  // steps and their operations those of one call over 0..n): the gathering and the work's start first
  if (k0 == 0) {
    for (let j = 0; j <= n; j++) st(Cp, j, 0);
    for (let j = 0; j < n; j++) {
      const pj = ld(pinv, j);
      for (let p = ld(Ap, j), e = ld(Ap, j + 1); p < e; p++) if (ld(pinv, ld(Ai, p)) <= pj) st(Cp, pj + 1, ld(Cp, pj + 1) + 1);
    }
    for (let j = 0; j < n; j++) st(Cp, j + 1, ld(Cp, j + 1) + ld(Cp, j));
    // fill[] is each column's cursor while gathering (the columns of A in their order, as the JavaScript did)
    for (let j = 0; j < n; j++) st(fill, j, ld(Cp, j));
    for (let j = 0; j < n; j++) {
      const pj = ld(pinv, j);
      for (let p = ld(Ap, j), e = ld(Ap, j + 1); p < e; p++) {
        const pi = ld(pinv, ld(Ai, p));
        if (pi <= pj) {
          const q = ld(fill, pj);
          st(fill, pj, q + 1);
          st(Ci, q, pi);
          stf(Cx, q, ldf(Ax, p));
        }
      }
    }

    for (let j = 0; j < n; j++) {
      st(fill, j, ld(Lp, j));
      st(mark, j, 0);
      stf(x, j, 0);
    }
  }
  let done: i64 = 0;
  for (let k = k0; k < k1; k++) {
    // a range's work spent (budget > 0: L's entries read by the steps so far): a pause before step k
    if (budget > 0 && done >= <i64>budget) return -2 - k;
    // the row subtree of k, into s[top..n), every column before its ancestors
    const stamp = k + 1;
    let top = n;
    st(mark, k, stamp);
    stf(x, k, 0);
    for (let p = ld(Cp, k), e = ld(Cp, k + 1); p < e; p++) {
      let i = ld(Ci, p);
      stf(x, i, ldf(Cx, p));
      let len = 0;
      for (; ld(mark, i) != stamp; i = ld(parent, i)) {
        st(s, len++, i);
        st(mark, i, stamp);
      }
      while (len > 0) st(s, --top, ld(s, --len));
    }
    let d = ldf(x, k);
    stf(x, k, 0);
    for (let t = top; t < n; t++) {
      const i = ld(s, t);
      const yi = ldf(x, i);
      stf(x, i, 0);
      const e = ld(fill, i);
      done += <i64>(e - ld(Lp, i) + 1);
      for (let p = ld(Lp, i); p < e; p++) {
        const r = ld(Li, p);
        stf(x, r, ldf(x, r) - ldf(Lx, p) * yi);
      }
      const lki = yi / ldf(D, i);
      d -= lki * yi;
      st(Li, e, k);
      stf(Lx, e, lki);
      st(fill, i, e + 1);
    }
    const finite = d - d == 0;
    if (positive ? !(d > 0 && finite) : !(d != 0 && finite)) return k;
    stf(D, k, d);
  }
  return -1;
}

// ldl_dense(n, Ap, Ai, Ax, W, D, positive) — LDLᵀ of a small symmetric matrix held dense: A's lower
//   triangle (by columns, the natural order) scattered into W, n×n column-major (zeroed first: its
//   upper triangle stays 0); right-looking, four columns per pass over column k (the operations and their order
//   are those of src/solvers/direct/ldl.ts's denseLdl before it moved here), column k scaled into L's
//   below the diagonal, D written. Returns −1, or the first column whose pivot is zero (not finite), or
//   not positive when `positive`.
export function ldl_dense(n: i32, Ap: usize, Ai: usize, Ax: usize, W: usize, D: usize, positive: i32): i32 {
  for (let j = 0; j < n; j++) {
    for (let i = j * n; i < (j + 1) * n; i++) stf(W, i, 0);
    for (let p = ld(Ap, j), e = ld(Ap, j + 1); p < e; p++) {
      const i = ld(Ai, p);
      if (i >= j) stf(W, i + j * n, ldf(Ax, p));
    }
  }
  for (let k = 0; k < n; k++) {
    const ck = k * n;
    const d = ldf(W, ck + k);
    const finite = d - d == 0;
    if (positive ? !(d > 0 && finite) : !(d != 0 && finite)) return k;
    stf(D, k, d);
    let j = k + 1;
    for (; j + 3 < n; j += 4) {
      const l0 = ldf(W, ck + j);
      const l1 = ldf(W, ck + j + 1);
      const l2 = ldf(W, ck + j + 2);
      const l3 = ldf(W, ck + j + 3);
      const t0 = l0 / d;
      const t1 = l1 / d;
      const t2 = l2 / d;
      const t3 = l3 / d;
      if (t0 == 0 && t1 == 0 && t2 == 0 && t3 == 0) continue;
      const c0 = j * n;
      const c1 = c0 + n;
      const c2 = c1 + n;
      const c3 = c2 + n;
      stf(W, c0 + j, ldf(W, c0 + j) - l0 * t0);
      stf(W, c0 + j + 1, ldf(W, c0 + j + 1) - l1 * t0);
      stf(W, c1 + j + 1, ldf(W, c1 + j + 1) - l1 * t1);
      stf(W, c0 + j + 2, ldf(W, c0 + j + 2) - l2 * t0);
      stf(W, c1 + j + 2, ldf(W, c1 + j + 2) - l2 * t1);
      stf(W, c2 + j + 2, ldf(W, c2 + j + 2) - l2 * t2);
      for (let i = j + 3; i < n; i++) {
        const l = ldf(W, ck + i);
        stf(W, c0 + i, ldf(W, c0 + i) - l * t0);
        stf(W, c1 + i, ldf(W, c1 + i) - l * t1);
        stf(W, c2 + i, ldf(W, c2 + i) - l * t2);
        stf(W, c3 + i, ldf(W, c3 + i) - l * t3);
      }
    }
    for (; j < n; j++) {
      const t = ldf(W, ck + j) / d;
      const cj = j * n;
      for (let i = j; i < n; i++) stf(W, cj + i, ldf(W, cj + i) - ldf(W, ck + i) * t);
    }
    for (let i = ck + k + 1; i < ck + n; i++) stf(W, i, ldf(W, i) / d);
  }
  return -1;
}

// ldl_solve(n, Lp, Li, Lx, D, perm, b, x, y, dense) — x = A⁻¹·b through a kept factor: y[k] = b[perm[k]],
//   L·D·Lᵀ·z = y solved in y, x[perm[k]] = z[k]. Sparse: L by columns (Lp, Li, Lx), a column skipped
//   where its y is 0, the backward sums in two partial sums. dense: L below the diagonal of Lx, n×n
//   column-major as ldl_dense leaves it (Lp and Li unread), two columns a pass. The operations and
//   their order are those of the JavaScript solve this replaced (a process's first solves ran it
//   interpreted: ≈ 0.4 ms of each of 494_bus's first calls, where this runs in microseconds).
export function ldl_solve(
  n: i32, Lp: usize, Li: usize, Lx: usize, D: usize, perm: usize, b: usize, x: usize, y: usize, dense: i32,
): void {
  for (let k = 0; k < n; k++) stf(y, k, ldf(b, ld(perm, k)));
  if (dense) denseSolve(n, Lx, D, y);
  else sparseSolve(n, Lp, Li, Lx, D, y);
  for (let k = 0; k < n; k++) stf(x, ld(perm, k), ldf(y, k));
}

function sparseSolve(n: i32, Lp: usize, Li: usize, Lx: usize, D: usize, y: usize): void {
  for (let j = 0; j < n; j++) {
    const yj = ldf(y, j);
    if (yj != 0) {
      for (let p = ld(Lp, j), e = ld(Lp, j + 1); p < e; p++) {
        const i = ld(Li, p);
        stf(y, i, ldf(y, i) - ldf(Lx, p) * yj);
      }
    }
  }
  for (let j = 0; j < n; j++) stf(y, j, ldf(y, j) / ldf(D, j));
  for (let j = n - 1; j >= 0; j--) {
    let s0 = ldf(y, j);
    let s1: f64 = 0;
    let p = ld(Lp, j);
    const e = ld(Lp, j + 1);
    for (; p + 1 < e; p += 2) {
      s0 -= ldf(Lx, p) * ldf(y, ld(Li, p));
      s1 -= ldf(Lx, p + 1) * ldf(y, ld(Li, p + 1));
    }
    if (p < e) s0 -= ldf(Lx, p) * ldf(y, ld(Li, p));
    stf(y, j, s0 + s1);
  }
}

function denseSolve(n: i32, Lx: usize, D: usize, y: usize): void {
  // forward: columns j and j + 1 together; column j's entries below the diagonal start at p, column j + 1's at q
  let j = 0;
  let p = 1;
  for (; j + 1 < n; j += 2) {
    const q = p + n + 1;
    const y0 = ldf(y, j);
    const y1 = ldf(y, j + 1) - ldf(Lx, p) * y0;
    stf(y, j + 1, y1);
    let i = j + 2;
    let a = p + 1;
    let c = q;
    if (ASC_FEATURE_SIMD) {
      // two rows a step, each lane the scalar line's operations: the same bits
      const v0 = f64x2.splat(y0);
      const v1 = f64x2.splat(y1);
      for (; i + 1 < n; i += 2, a += 2, c += 2) {
        const at = y + (<usize>i << 3);
        const t = f64x2.add(f64x2.mul(v128.load(Lx + (<usize>a << 3)), v0), f64x2.mul(v128.load(Lx + (<usize>c << 3)), v1));
        v128.store(at, f64x2.sub(v128.load(at), t));
      }
    }
    for (; i < n; i++, a++, c++) stf(y, i, ldf(y, i) - (ldf(Lx, a) * y0 + ldf(Lx, c) * y1));
    p = q + n + 1;
  }
  for (let k = 0; k < n; k++) stf(y, k, ldf(y, k) / ldf(D, k));
  // backward: rows j and j − 1 together (both sum over rows i > j), then L(j, j − 1)·y_j
  j = n - 1;
  for (; j >= 1; j -= 2) {
    // column j's entries below the diagonal start at p0, column j − 1's (L(j, j − 1) first) at p1
    const p0 = j * n + j + 1;
    const p1 = (j - 1) * n + j;
    let s0 = ldf(y, j);
    let s1 = ldf(y, j - 1);
    for (let i = j + 1, a = p0, c = p1 + 1; i < n; i++, a++, c++) {
      const yi = ldf(y, i);
      s0 -= ldf(Lx, a) * yi;
      s1 -= ldf(Lx, c) * yi;
    }
    stf(y, j, s0);
    stf(y, j - 1, s1 - ldf(Lx, p1) * s0);
  }
  if (j == 0) {
    let s0 = ldf(y, 0);
    for (let i = 1; i < n; i++) s0 -= ldf(Lx, i) * ldf(y, i);
    stf(y, 0, s0);
  }
}
