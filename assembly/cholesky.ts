// Supernodal multifrontal Cholesky, f64 (src/solvers/direct/supernodal.ts has the symbolic side and
// src/cpu/cholesky.ts the wiring).
//
// chol_front_f64(F, m, k, pk) — the dense partial Cholesky of one front: F is m×m column-major (lower
//   triangle read and written), its first k columns become L's and the trailing (m−k)×(m−k) lower
//   triangle the Schur complement F22 − L21·L21ᵀ. Returns −1, or the front column (< k) whose pivot
//   is not positive (or not finite). pk is scratch of ⌈m/4⌉·4·k f64.
//   Left-looking by blocks of 4 columns: each block is first updated by every earlier column (a
//   matrix product), then factorized on its own (4 columns, vectorized down the rows); the Schur
//   complement is the same product over all k columns. The finished columns of L are copied into
//   panels of 4 rows (panel t holds rows 4t..4t+3 of columns 0..k−1, column after column, 32 bytes
//   each, zero above the diagonal and below row m), so the 4×4 micro-kernel streams both of its
//   operands: per column p one 32-byte load of 4 rows and 4 splat loads of the 4 columns' entries,
//   8 f64x2 multiply-adds into 8 accumulators. Every entry of the product is summed over p in order,
//   by mul then add, in the SIMD and the plain build alike (same results).
//
// chol_supernodes(desc, start, end) — the numeric factorization of the supernodes order[start..end)
//   (a run of whole subtrees in postorder, or the top of the tree once its subtrees are done): for
//   each, the front is zeroed, A's columns and the children's update matrices added (extend-add),
//   chol_front run, its m×k block of L copied out and its update matrix (u×u, u = m − k, lower
//   triangle, column-major) stored at the address the caller planned for it (0: a root, none). The
//   workspace is the one in the table whose key is `start` (each range of a job has its own), and
//   its status word is set to −1, or to the first column (permuted numbering) whose pivot failed
//   (the range stops there).
//
// chol_solve(desc, y, t, start, end) — y ← (L·Lᵀ)⁻¹·y in place (y permuted, n f64; t scratch of the
//   largest front's rows), over the factor chol_supernodes left: desc's words 1–4 and 13 are read
//   (start and end are unused: the solve is one pass down the tree and one up). Per supernode, the
//   columns of its diagonal block one after the other, and the rows below them gathered in t once:
//   forward, t += L21·y1 column by column (f64x2 down the column); backward, y1 −= L21ᵀ·t as dot
//   products (two f64x2 partial sums per column).
//
// desc, i32 words (pointers are byte offsets in this memory):
//   0 order  1 super  2 rowPtr  3 rows  4 valPtr (L block offsets, in f64)  5 childPtr  6 children
//   7 colPtr  8 rowIdx (A by columns, both triangles, original numbering)  9 perm  10 pinv (column j
//   of P·A·Pᵀ is column perm[j] of A, row i of A is row pinv[i])  11 updAddr (per supernode)
//   12 values (A's)  13 Lx  14 workspaces  15 workspace table: 6 words each: key, front, panels,
//   rel (n i32), relc, status

// @ts-ignore: decorator
@inline function ld(p: usize, i: i32): i32 {
  return load<i32>(p + (<usize>i << 2));
}

// @ts-ignore: decorator
@inline function at(base: usize, i: i32): usize {
  return base + (<usize>i << 3);
}

/** F[row, col] -= v where the entry is in the front, on or below the diagonal and col in [lo, hi). */
// @ts-ignore: decorator
@inline function subMasked(F: usize, m: i32, row: i32, col: i32, lo: i32, hi: i32, v: f64): void {
  if (row < m && row >= col && col >= lo && col < hi) {
    const p = at(F, row + col * m);
    store<f64>(p, load<f64>(p) - v);
  }
}

/**
 * F[row0..row0+4, col0..col0+4] −= Σ_{p<P} panel_i[p] ⊗ panel_j[p], entries outside the front, above
 * the diagonal or outside columns [lo, hi) left alone.
 */
function block4x4(pi: usize, pj: usize, P: i32, F: usize, m: i32, row0: i32, col0: i32, lo: i32, hi: i32): void {
  if (ASC_FEATURE_SIMD) {
    let c00 = f64x2.splat(0), c01 = f64x2.splat(0), c10 = f64x2.splat(0), c11 = f64x2.splat(0);
    let c20 = f64x2.splat(0), c21 = f64x2.splat(0), c30 = f64x2.splat(0), c31 = f64x2.splat(0);
    for (let p = 0; p < P; p++) {
      const a0 = v128.load(pi), a1 = v128.load(pi, 16);
      let b = v128.load64_splat(pj);
      c00 = f64x2.add(c00, f64x2.mul(a0, b));
      c01 = f64x2.add(c01, f64x2.mul(a1, b));
      b = v128.load64_splat(pj, 8);
      c10 = f64x2.add(c10, f64x2.mul(a0, b));
      c11 = f64x2.add(c11, f64x2.mul(a1, b));
      b = v128.load64_splat(pj, 16);
      c20 = f64x2.add(c20, f64x2.mul(a0, b));
      c21 = f64x2.add(c21, f64x2.mul(a1, b));
      b = v128.load64_splat(pj, 24);
      c30 = f64x2.add(c30, f64x2.mul(a0, b));
      c31 = f64x2.add(c31, f64x2.mul(a1, b));
      pi += 32;
      pj += 32;
    }
    if (row0 + 4 <= m && row0 >= col0 + 4 && col0 >= lo && col0 + 4 <= hi) {
      // a whole block below the diagonal: four columns of four rows
      let q = at(F, row0 + col0 * m);
      const step = <usize>m << 3;
      v128.store(q, f64x2.sub(v128.load(q), c00));
      v128.store(q, f64x2.sub(v128.load(q, 16), c01), 16);
      q += step;
      v128.store(q, f64x2.sub(v128.load(q), c10));
      v128.store(q, f64x2.sub(v128.load(q, 16), c11), 16);
      q += step;
      v128.store(q, f64x2.sub(v128.load(q), c20));
      v128.store(q, f64x2.sub(v128.load(q, 16), c21), 16);
      q += step;
      v128.store(q, f64x2.sub(v128.load(q), c30));
      v128.store(q, f64x2.sub(v128.load(q, 16), c31), 16);
      return;
    }
    subMasked(F, m, row0, col0, lo, hi, f64x2.extract_lane(c00, 0));
    subMasked(F, m, row0 + 1, col0, lo, hi, f64x2.extract_lane(c00, 1));
    subMasked(F, m, row0 + 2, col0, lo, hi, f64x2.extract_lane(c01, 0));
    subMasked(F, m, row0 + 3, col0, lo, hi, f64x2.extract_lane(c01, 1));
    subMasked(F, m, row0, col0 + 1, lo, hi, f64x2.extract_lane(c10, 0));
    subMasked(F, m, row0 + 1, col0 + 1, lo, hi, f64x2.extract_lane(c10, 1));
    subMasked(F, m, row0 + 2, col0 + 1, lo, hi, f64x2.extract_lane(c11, 0));
    subMasked(F, m, row0 + 3, col0 + 1, lo, hi, f64x2.extract_lane(c11, 1));
    subMasked(F, m, row0, col0 + 2, lo, hi, f64x2.extract_lane(c20, 0));
    subMasked(F, m, row0 + 1, col0 + 2, lo, hi, f64x2.extract_lane(c20, 1));
    subMasked(F, m, row0 + 2, col0 + 2, lo, hi, f64x2.extract_lane(c21, 0));
    subMasked(F, m, row0 + 3, col0 + 2, lo, hi, f64x2.extract_lane(c21, 1));
    subMasked(F, m, row0, col0 + 3, lo, hi, f64x2.extract_lane(c30, 0));
    subMasked(F, m, row0 + 1, col0 + 3, lo, hi, f64x2.extract_lane(c30, 1));
    subMasked(F, m, row0 + 2, col0 + 3, lo, hi, f64x2.extract_lane(c31, 0));
    subMasked(F, m, row0 + 3, col0 + 3, lo, hi, f64x2.extract_lane(c31, 1));
    return;
  }
  // plain build: one entry at a time, the same sums in the same order
  for (let q = 0; q < 4; q++) {
    for (let r = 0; r < 4; r++) {
      let s: f64 = 0;
      for (let p = 0; p < P; p++) s += load<f64>(pi + (<usize>p << 5) + (<usize>r << 3)) * load<f64>(pj + (<usize>p << 5) + (<usize>q << 3));
      subMasked(F, m, row0 + r, col0 + q, lo, hi, s);
    }
  }
}

/** x[i] −= y[i]·t for i in [0, len) (x, y f64 arrays). */
// @ts-ignore: decorator
@inline function axpyNeg(x: usize, y: usize, t: f64, len: i32): void {
  let i = 0;
  if (ASC_FEATURE_SIMD) {
    const tv = f64x2.splat(t);
    for (; i + 2 <= len; i += 2) v128.store(at(x, i), f64x2.sub(v128.load(at(x, i)), f64x2.mul(v128.load(at(y, i)), tv)));
  }
  for (; i < len; i++) store<f64>(at(x, i), load<f64>(at(x, i)) - load<f64>(at(y, i)) * t);
}

/** Columns [c0, c0 + w) of F into the panels, rows from the panel of c0 down (zero off the triangle). */
function pack(F: usize, m: i32, k: i32, pk: usize, c0: i32, w: i32): void {
  const panels = (m + 3) >> 2;
  for (let t = c0 >> 2; t < panels; t++) {
    const base = pk + <usize>t * (<usize>k << 5);
    for (let q = 0; q < w; q++) {
      const p = c0 + q;
      const dst = base + (<usize>p << 5);
      for (let r = 0; r < 4; r++) {
        const row = (t << 2) + r;
        store<f64>(dst + (<usize>r << 3), row < m && row >= p ? load<f64>(at(F, row + p * m)) : 0);
      }
    }
  }
}

/** The pivot columns of a front (L11 and L21, packed as they finish): −1, or the failing column. */
function frontPivots(F: usize, m: i32, k: i32, pk: usize): i32 {
  const panels = (m + 3) >> 2;
  const panelB = <usize>k << 5;
  for (let jb = 0; jb < k; jb += 4) {
    const w = min(4, k - jb);
    const J = jb >> 2;
    // the block's columns (rows jb..m) minus the product of the finished columns 0..jb
    if (jb > 0) for (let t = J; t < panels; t++) block4x4(pk + <usize>t * panelB, pk + <usize>J * panelB, jb, F, m, t << 2, jb, jb, jb + w);
    // then its own columns, one after the other
    for (let q = 0; q < w; q++) {
      const c = jb + q;
      const cc = at(F, c * m);
      for (let r = 0; r < q; r++) {
        const cr = at(F, (jb + r) * m);
        axpyNeg(cc + (<usize>c << 3), cr + (<usize>c << 3), load<f64>(cr + (<usize>c << 3)), m - c);
      }
      const d = load<f64>(cc + (<usize>c << 3));
      if (!(d > 0 && d < Infinity)) return c;
      const sd = Math.sqrt(d);
      store<f64>(cc + (<usize>c << 3), sd);
      const inv = 1 / sd;
      let i = c + 1;
      if (ASC_FEATURE_SIMD) {
        const iv = f64x2.splat(inv);
        for (; i + 2 <= m; i += 2) v128.store(cc + (<usize>i << 3), f64x2.mul(v128.load(cc + (<usize>i << 3)), iv));
      }
      for (; i < m; i++) store<f64>(cc + (<usize>i << 3), load<f64>(cc + (<usize>i << 3)) * inv);
    }
    pack(F, m, k, pk, jb, w);
  }
  return -1;
}

/**
 * The Schur complement's column blocks [J0, J1) (blocks of 4 columns of the front, those inside the
 * pivot columns skipped; the first may start inside a panel). Blocks are independent: threads may
 * take different ranges of them.
 */
function frontSchur(F: usize, m: i32, k: i32, pk: usize, J0: i32, J1: i32): void {
  const panels = (m + 3) >> 2;
  const panelB = <usize>k << 5;
  for (let J = max(J0, k >> 2); J < min(J1, panels); J++) {
    if (max(J << 2, k) >= min((J << 2) + 4, m)) continue;
    for (let t = J; t < panels; t++) block4x4(pk + <usize>t * panelB, pk + <usize>J * panelB, k, F, m, t << 2, J << 2, k, m);
  }
}

function frontCholesky(F: usize, m: i32, k: i32, pk: usize): i32 {
  const bad = frontPivots(F, m, k, pk);
  if (bad >= 0) return bad;
  frontSchur(F, m, k, pk, 0, (m + 3) >> 2);
  return -1;
}

export function chol_front_f64(F: usize, m: i32, k: i32, pk: usize): i32 {
  return frontCholesky(F, m, k, pk);
}

/** The workspace entry of the table whose key is `key`. */
function workspace(desc: usize, key: i32): usize {
  const nws = load<i32>(desc, 56);
  const table = <usize>load<u32>(desc, 60);
  for (let w = 0; w < nws; w++) {
    const e = table + <usize>w * 24;
    if (load<i32>(e) == key) return e;
  }
  unreachable();
  return 0;
}

/** Supernode s's front in the workspace: zeroed, then A's columns and the children's updates added. */
function openFront(desc: usize, ws: usize, s: i32): void {
  const sup = <usize>load<u32>(desc, 4), rowPtr = <usize>load<u32>(desc, 8), rows = <usize>load<u32>(desc, 12);
  const childPtr = <usize>load<u32>(desc, 20), children = <usize>load<u32>(desc, 24);
  const Ap = <usize>load<u32>(desc, 28), Ai = <usize>load<u32>(desc, 32), perm = <usize>load<u32>(desc, 36), pinv = <usize>load<u32>(desc, 40);
  const updAddr = <usize>load<u32>(desc, 44), Ax = <usize>load<u32>(desc, 48);
  const F = <usize>load<u32>(ws, 4), rel = <usize>load<u32>(ws, 12), relc = <usize>load<u32>(ws, 16);
  const f = ld(sup, s);
  const k = ld(sup, s + 1) - f;
  const r0 = ld(rowPtr, s);
  const m = ld(rowPtr, s + 1) - r0;
  for (let i = 0; i < m; i++) store<i32>(rel + (<usize>ld(rows, r0 + i) << 2), i);
  for (let c = 0; c < m; c++) memory.fill(at(F, c * m + c), 0, <usize>(m - c) << 3);
  // A's columns, their entries on and below the diagonal of P·A·Pᵀ
  for (let c = 0; c < k; c++) {
    const j = f + c;
    const oj = ld(perm, j);
    const cb = at(F, c * m);
    for (let p = ld(Ap, oj), pe = ld(Ap, oj + 1); p < pe; p++) {
      const i = ld(pinv, ld(Ai, p));
      if (i < j) continue;
      const q = cb + (<usize>ld(rel, i) << 3);
      store<f64>(q, load<f64>(q) + load<f64>(at(Ax, p)));
    }
  }
  // the children's update matrices
  for (let e = ld(childPtr, s), ee = ld(childPtr, s + 1); e < ee; e++) {
    const ch = ld(children, e);
    const cr1 = ld(rowPtr, ch) + ld(sup, ch + 1) - ld(sup, ch);
    const u = ld(rowPtr, ch + 1) - cr1;
    const U = <usize>load<u32>(updAddr + (<usize>ch << 2));
    for (let a = 0; a < u; a++) store<i32>(relc + (<usize>a << 2), ld(rel, ld(rows, cr1 + a)));
    for (let b = 0; b < u; b++) {
      const cb = at(F, ld(relc, b) * m);
      const ub = at(U, b * u);
      for (let a = b; a < u; a++) {
        const q = cb + (<usize>ld(relc, a) << 3);
        store<f64>(q, load<f64>(q) + load<f64>(at(ub, a)));
      }
    }
  }
}

/** The factorized front of s out: its m×k block of L, and its update matrix where it is planned. */
function closeFront(desc: usize, ws: usize, s: i32): void {
  const sup = <usize>load<u32>(desc, 4), rowPtr = <usize>load<u32>(desc, 8), valPtr = <usize>load<u32>(desc, 16);
  const updAddr = <usize>load<u32>(desc, 44), Lx = <usize>load<u32>(desc, 52);
  const F = <usize>load<u32>(ws, 4);
  const k = ld(sup, s + 1) - ld(sup, s);
  const m = ld(rowPtr, s + 1) - ld(rowPtr, s);
  memory.copy(at(Lx, ld(valPtr, s)), F, <usize>m * k << 3);
  const U = <usize>load<u32>(updAddr + (<usize>s << 2));
  const u = m - k;
  if (U != 0) for (let b = 0; b < u; b++) memory.copy(at(U, b * u + b), at(F, k + b + (k + b) * m), <usize>(u - b) << 3);
}

/** (sizes of s's front, for the split steps) */
// @ts-ignore: decorator
@inline function frontRows(desc: usize, s: i32): i32 {
  const rowPtr = <usize>load<u32>(desc, 8);
  return ld(rowPtr, s + 1) - ld(rowPtr, s);
}

// @ts-ignore: decorator
@inline function frontCols(desc: usize, s: i32): i32 {
  const sup = <usize>load<u32>(desc, 4);
  return ld(sup, s + 1) - ld(sup, s);
}

export function chol_supernodes(desc: usize, start: i32, end: i32): void {
  const order = <usize>load<u32>(desc), sup = <usize>load<u32>(desc, 4);
  const ws = workspace(desc, start);
  const F = <usize>load<u32>(ws, 4), pk = <usize>load<u32>(ws, 8);
  store<i32>(ws, -1, 20);
  for (let t = start; t < end; t++) {
    const s = ld(order, t);
    openFront(desc, ws, s);
    const bad = frontCholesky(F, frontRows(desc, s), frontCols(desc, s), pk);
    if (bad >= 0) {
      store<i32>(ws, ld(sup, s) + bad, 20);
      return;
    }
    closeFront(desc, ws, s);
  }
}

// A large front at the top of the tree in three steps, its Schur complement split over the pool:
// chol_front_open(desc, key, s, s + 1) assembles it and factorizes its pivot columns (the status
// word of workspace `key` says whether a pivot failed), chol_front_schur(desc, key, s, J0, J1)
// computes column blocks [J0, J1) of its Schur complement, chol_front_close(desc, key, s, s + 1)
// stores L and the update. The same sums as chol_supernodes, so the same bits.
export function chol_front_open(desc: usize, key: i32, s: i32, end: i32): void {
  const ws = workspace(desc, key);
  store<i32>(ws, -1, 20);
  openFront(desc, ws, s);
  const bad = frontPivots(<usize>load<u32>(ws, 4), frontRows(desc, s), frontCols(desc, s), <usize>load<u32>(ws, 8));
  if (bad >= 0) store<i32>(ws, ld(<usize>load<u32>(desc, 4), s) + bad, 20);
}

export function chol_front_schur(desc: usize, key: i32, s: i32, start: i32, end: i32): void {
  const ws = workspace(desc, key);
  frontSchur(<usize>load<u32>(ws, 4), frontRows(desc, s), frontCols(desc, s), <usize>load<u32>(ws, 8), start, end);
}

export function chol_front_close(desc: usize, key: i32, s: i32, end: i32): void {
  closeFront(desc, workspace(desc, key), s);
}

/** Σ x[i]·y[i] for i in [0, len). */
// @ts-ignore: decorator
@inline function dot(x: usize, y: usize, len: i32): f64 {
  let i = 0;
  let s: f64 = 0;
  if (ASC_FEATURE_SIMD) {
    let a = f64x2.splat(0), b = f64x2.splat(0);
    for (; i + 4 <= len; i += 4) {
      a = f64x2.add(a, f64x2.mul(v128.load(at(x, i)), v128.load(at(y, i))));
      b = f64x2.add(b, f64x2.mul(v128.load(at(x, i), 16), v128.load(at(y, i), 16)));
    }
    a = f64x2.add(a, b);
    s = f64x2.extract_lane(a, 0) + f64x2.extract_lane(a, 1);
  }
  for (; i < len; i++) s += load<f64>(at(x, i)) * load<f64>(at(y, i));
  return s;
}

export function chol_solve(desc: usize, y: usize, t: usize, start: i32, end: i32): void {
  const sup = <usize>load<u32>(desc, 4), rowPtr = <usize>load<u32>(desc, 8), rows = <usize>load<u32>(desc, 12);
  const valPtr = <usize>load<u32>(desc, 16), Lx = <usize>load<u32>(desc, 52);
  const ns = (<i32>load<u32>(desc, 64));
  for (let s = 0; s < ns; s++) {
    const f = ld(sup, s);
    const k = ld(sup, s + 1) - f;
    const r0 = ld(rowPtr, s);
    const m = ld(rowPtr, s + 1) - r0;
    const v = at(Lx, ld(valPtr, s));
    const yf = at(y, f);
    memory.fill(t, 0, <usize>(m - k) << 3);
    for (let c = 0; c < k; c++) {
      const col = v + (<usize>(c * m) << 3);
      const yc = load<f64>(at(yf, c)) / load<f64>(at(col, c));
      store<f64>(at(yf, c), yc);
      // the rest of the diagonal block's column, then the rows below into t
      axpyNeg(at(yf, c + 1), at(col, c + 1), yc, k - c - 1);
      axpyNeg(t, at(col, k), -yc, m - k);
    }
    for (let i = k; i < m; i++) {
      const q = at(y, ld(rows, r0 + i));
      store<f64>(q, load<f64>(q) - load<f64>(at(t, i - k)));
    }
  }
  for (let s = ns - 1; s >= 0; s--) {
    const f = ld(sup, s);
    const k = ld(sup, s + 1) - f;
    const r0 = ld(rowPtr, s);
    const m = ld(rowPtr, s + 1) - r0;
    const v = at(Lx, ld(valPtr, s));
    const yf = at(y, f);
    for (let i = k; i < m; i++) store<f64>(at(t, i - k), load<f64>(at(y, ld(rows, r0 + i))));
    for (let c = k - 1; c >= 0; c--) {
      const col = v + (<usize>(c * m) << 3);
      const r = load<f64>(at(yf, c)) - dot(at(col, c + 1), at(yf, c + 1), k - c - 1) - dot(at(col, k), t, m - k);
      store<f64>(at(yf, c), r / load<f64>(at(col, c)));
    }
  }
}
