// The true residual of a direct solve (src/solvers/direct/factor.ts: F.solve measures it after each
// solve and refinement step).
//
// direct_residual(n, c, rowPtr, colIdx, values, b, x, r, w, out) — r = b − A·x gathered along A's rows (c 1
//   real, 2 complex interleaved), w (n f64, unless w is 0) = each row's |bᵢ| + Σⱼ|aᵢⱼ||xⱼ| (|re| + |im|
//   for complex; the residual's rounding bound, src/solvers/solve.ts rowwiseResidualBound, reads it: no
//   pass of its own over A; ≈ 8 % of the pass where it is not needed), and out (5 f64) = Σ|bᵢ|², ‖b‖∞, ‖x‖∞, ‖r‖∞, Σ|rᵢ|² (∞ norms of complex entries as
//   |re| + |im|). The operations and their order are those of the JavaScript residual (factor.ts) and
//   of directResidualBound's sums: the same bits. A NaN entry is skipped by the maxima, as there.

//
// direct_row_abs_max(n, c, rowPtr, values) — ‖A‖∞ of A by rows: the largest Σⱼ|aᵢⱼ| (|re| + |im| for
//   complex), each row summed in order from 0 and a NaN row skipped, as factor.ts infNorm (the same
//   bits): F.solve's refinement test and bound read it; the held rows' copy computes it once.

import { ld, ldf, stf } from './words';

export function direct_row_abs_max(n: i32, c: i32, rowPtr: usize, values: usize): f64 {
  let s: f64 = 0;
  for (let i = 0; i < n; i++) {
    let t: f64 = 0;
    if (c == 1) for (let p = ld(rowPtr, i), e = ld(rowPtr, i + 1); p < e; p++) t += Math.abs(ldf(values, p));
    else for (let p = ld(rowPtr, i), e = ld(rowPtr, i + 1); p < e; p++) t += Math.abs(ldf(values, 2 * p)) + Math.abs(ldf(values, 2 * p + 1));
    if (t > s) s = t;
  }
  return s;
}

export function direct_residual(n: i32, c: i32, rowPtr: usize, colIdx: usize, values: usize, b: usize, x: usize, r: usize, w: usize, out: usize): void {
  let b2: f64 = 0;
  let bInf: f64 = 0;
  let xInf: f64 = 0;
  let r2: f64 = 0;
  let rInf: f64 = 0;
  const sums = w != 0;
  if (c == 1) {
    for (let i = 0; i < n; i++) {
      const bi = ldf(b, i);
      let s = bi;
      const ab = Math.abs(bi);
      // a branch a row, not an entry: its test in the inner loop kept 5–8 % of the sums' cost
      if (sums) {
        let wi = ab;
        for (let p = ld(rowPtr, i), e = ld(rowPtr, i + 1); p < e; p++) {
          const a = ldf(values, p);
          const xj = ldf(x, ld(colIdx, p));
          s -= a * xj;
          wi += Math.abs(a) * Math.abs(xj);
        }
        stf(w, i, wi);
      } else {
        for (let p = ld(rowPtr, i), e = ld(rowPtr, i + 1); p < e; p++) s -= ldf(values, p) * ldf(x, ld(colIdx, p));
      }
      stf(r, i, s);
      b2 += bi * bi;
      r2 += s * s;
      const ax = Math.abs(ldf(x, i));
      const ar = Math.abs(s);
      if (ab > bInf) bInf = ab;
      if (ax > xInf) xInf = ax;
      if (ar > rInf) rInf = ar;
    }
  } else {
    for (let i = 0; i < n; i++) {
      const br = ldf(b, 2 * i);
      const bi = ldf(b, 2 * i + 1);
      let sr = br;
      let si = bi;
      const ab = Math.abs(br) + Math.abs(bi);
      if (sums) {
        let wi = ab;
        for (let p = ld(rowPtr, i), e = ld(rowPtr, i + 1); p < e; p++) {
          const j = ld(colIdx, p);
          const ar = ldf(values, 2 * p);
          const ai = ldf(values, 2 * p + 1);
          const xr = ldf(x, 2 * j);
          const xi = ldf(x, 2 * j + 1);
          sr -= ar * xr - ai * xi;
          si -= ar * xi + ai * xr;
          wi += (Math.abs(ar) + Math.abs(ai)) * (Math.abs(xr) + Math.abs(xi));
        }
        stf(w, i, wi);
      } else {
        for (let p = ld(rowPtr, i), e = ld(rowPtr, i + 1); p < e; p++) {
          const j = ld(colIdx, p);
          const ar = ldf(values, 2 * p);
          const ai = ldf(values, 2 * p + 1);
          const xr = ldf(x, 2 * j);
          const xi = ldf(x, 2 * j + 1);
          sr -= ar * xr - ai * xi;
          si -= ar * xi + ai * xr;
        }
      }
      stf(r, 2 * i, sr);
      stf(r, 2 * i + 1, si);
      b2 += br * br + bi * bi;
      r2 += sr * sr + si * si;
      const ax = Math.abs(ldf(x, 2 * i)) + Math.abs(ldf(x, 2 * i + 1));
      const ar = Math.abs(sr) + Math.abs(si);
      if (ab > bInf) bInf = ab;
      if (ax > xInf) xInf = ax;
      if (ar > rInf) rInf = ar;
    }
  }
  stf(out, 0, b2);
  stf(out, 1, bInf);
  stf(out, 2, xInf);
  stf(out, 3, rInf);
  stf(out, 4, r2);
}
