// The AMG coarsest level's dense Cholesky (pseudo-)inverse (src/solvers/amg/coarse.ts denseInverse,
// the JavaScript it matches bit for bit; src/cpu/coarse-inverse.ts runs it). L is the n×n matrix,
// row-major, f64.
//
// coarse_cholesky (one thread): L's lower triangle becomes the factor, rows of L four at a time, each
// with its sums in the order of a one-row loop; a pivot ≤ 1e-12·dmax drops its unknown (dropped[j] = 1,
// its column of L zero); returns −1, or the first j whose pivot is < −1e-10·dmax (A indefinite), that
// pivot at `out`.
//
// coarse_inverse_columns (blocks [start, end) of four columns, any split): L·y = e_c, then Lᵀ·x = y,
// dropped unknowns held at 0, into the inverse's columns 4·start … Each chunk's workspace of 4n f64 is
// at the u32 at `slot` (the pool offsets the slot by 16 bytes a chunk).

// @ts-ignore: decorator
@inline function at(M: usize, n: i32, i: i32, k: i32): usize {
  return M + ((<usize>i * <usize>n + <usize>k) << 3);
}

export function coarse_cholesky(L: usize, dropped: usize, n: i32, dmax: f64, out: usize): i32 {
  for (let j = 0; j < n; j++) {
    const rj = at(L, n, j, 0);
    let d = load<f64>(rj + (<usize>j << 3));
    for (let k = 0; k < j; k++) {
      const l = load<f64>(rj + (<usize>k << 3));
      d -= l * l;
    }
    if (d < -1e-10 * dmax) {
      store<f64>(out, d);
      return j;
    }
    if (!(d > 1e-12 * dmax)) {
      store<u8>(dropped + <usize>j, 1);
      for (let i = j; i < n; i++) store<f64>(at(L, n, i, j), 0);
      continue;
    }
    store<u8>(dropped + <usize>j, 0);
    const ljj = Math.sqrt(d);
    store<f64>(rj + (<usize>j << 3), ljj);
    let i = j + 1;
    for (; i + 3 < n; i += 4) {
      const r0 = at(L, n, i, 0);
      const r1 = at(L, n, i + 1, 0);
      const r2 = at(L, n, i + 2, 0);
      const r3 = at(L, n, i + 3, 0);
      const q = <usize>j << 3;
      let s0 = load<f64>(r0 + q);
      let s1 = load<f64>(r1 + q);
      let s2 = load<f64>(r2 + q);
      let s3 = load<f64>(r3 + q);
      for (let k = 0; k < j; k++) {
        const p = <usize>k << 3;
        const l = load<f64>(rj + p);
        s0 -= load<f64>(r0 + p) * l;
        s1 -= load<f64>(r1 + p) * l;
        s2 -= load<f64>(r2 + p) * l;
        s3 -= load<f64>(r3 + p) * l;
      }
      store<f64>(r0 + q, s0 / ljj);
      store<f64>(r1 + q, s1 / ljj);
      store<f64>(r2 + q, s2 / ljj);
      store<f64>(r3 + q, s3 / ljj);
    }
    for (; i < n; i++) {
      const ri = at(L, n, i, 0);
      let s = load<f64>(ri + (<usize>j << 3));
      for (let k = 0; k < j; k++) s -= load<f64>(ri + (<usize>k << 3)) * load<f64>(rj + (<usize>k << 3));
      store<f64>(ri + (<usize>j << 3), s / ljj);
    }
  }
  return -1;
}

export function coarse_inverse_columns(L: usize, dropped: usize, n: i32, inv: usize, slot: usize, start: i32, end: i32): void {
  const y0 = <usize>load<u32>(slot);
  const y1 = y0 + (<usize>n << 3);
  const y2 = y1 + (<usize>n << 3);
  const y3 = y2 + (<usize>n << 3);
  for (let blk = start; blk < end; blk++) {
    const c = blk << 2;
    memory.fill(y0, 0, <usize>n << 5);
    for (let i = c; i < n; i++) {
      if (load<u8>(dropped + <usize>i)) continue;
      const row = at(L, n, i, 0);
      let s0: f64 = i == c ? 1 : 0;
      let s1: f64 = i == c + 1 ? 1 : 0;
      let s2: f64 = i == c + 2 ? 1 : 0;
      let s3: f64 = i == c + 3 ? 1 : 0;
      for (let k = c; k < i; k++) {
        const p = <usize>k << 3;
        const l = load<f64>(row + p);
        s0 -= l * load<f64>(y0 + p);
        s1 -= l * load<f64>(y1 + p);
        s2 -= l * load<f64>(y2 + p);
        s3 -= l * load<f64>(y3 + p);
      }
      const d = load<f64>(row + (<usize>i << 3));
      const p = <usize>i << 3;
      // a column's rows above its own stay 0
      store<f64>(y0 + p, s0 / d);
      if (i >= c + 1) store<f64>(y1 + p, s1 / d);
      if (i >= c + 2) store<f64>(y2 + p, s2 / d);
      if (i >= c + 3) store<f64>(y3 + p, s3 / d);
    }
    for (let i = n - 1; i >= 0; i--) {
      const p = <usize>i << 3;
      if (load<u8>(dropped + <usize>i)) {
        store<f64>(y0 + p, 0);
        store<f64>(y1 + p, 0);
        store<f64>(y2 + p, 0);
        store<f64>(y3 + p, 0);
        continue;
      }
      const row = at(L, n, i, 0);
      const d = load<f64>(row + p);
      const x0 = load<f64>(y0 + p) / d;
      const x1 = load<f64>(y1 + p) / d;
      const x2 = load<f64>(y2 + p) / d;
      const x3 = load<f64>(y3 + p) / d;
      store<f64>(y0 + p, x0);
      store<f64>(y1 + p, x1);
      store<f64>(y2 + p, x2);
      store<f64>(y3 + p, x3);
      for (let k = 0; k < i; k++) {
        const q = <usize>k << 3;
        const l = load<f64>(row + q);
        store<f64>(y0 + q, load<f64>(y0 + q) - l * x0);
        store<f64>(y1 + q, load<f64>(y1 + q) - l * x1);
        store<f64>(y2 + q, load<f64>(y2 + q) - l * x2);
        store<f64>(y3 + q, load<f64>(y3 + q) - l * x3);
      }
    }
    const m = min(4, n - c);
    for (let b = 0; b < m; b++) {
      const y = y0 + ((<usize>b * <usize>n) << 3);
      for (let i = 0; i < n; i++) store<f64>(at(inv, n, i, c + b), load<f64>(y + (<usize>i << 3)));
    }
  }
}
