// MRS (modified row storage, Saad's MSR) SpMV: y[i] = α·(D_i·x[i] + Σ_k val[k]·x[index[k]]) + β·y[i] for
// rows [rowStart, rowEnd); val[0..n) is the diagonal (D_i used only for i < ndiag = min(rows, cols)),
// index[0..n] the row pointers of the off-diagonal part. The off-diagonal part is exactly a CSR row
// (column indices and values share the index/val arrays), so it reuses the CSR row dot products and,
// in the SIMD build, csr_f32/f64's 4-row groups (the group pointers are index[i..i+4]).
import {
  rowdot_f32, rowdot_f64, rowdot_c64, rowdot_c128, axpby_f32, axpby_f64, rowdot_any_f32, rowdot_any_f64,
  group4, rowdot4_f32, rowdot4_f64, rowdot4eq_f32, rowdot4eq_f64,
} from './complex';

export function mrs_f32(index: usize, val: usize, ndiag: i32, x: usize, y: usize, alpha: f64, beta: f64, rowStart: i32, rowEnd: i32): void {
  const a = <f32>alpha, b = <f32>beta;
  if (rowStart >= rowEnd) return;
  if (ASC_FEATURE_SIMD) {
    // 4 rows at a time as csr_f32 (complex.ts, group4), the diagonal term added per lane: d + Σ
    const kEnd = load<i32>(index + (<usize>rowEnd << 2));
    const av = f32x4.splat(a), bv = f32x4.splat(b);
    let i = rowStart;
    for (; i + 4 <= rowEnd; i += 4) {
      const pp = index + (<usize>i << 2);
      const g = group4(pp, kEnd);
      if (g == 2) {
        mrs_rows_f32(index, val, ndiag, x, y, a, b, i, i + 4);
        continue;
      }
      const o = <usize>i << 2;
      let d: v128;
      if (i + 4 <= ndiag) {
        d = f32x4.mul(v128.load(val + o), v128.load(x + o));
      } else {
        d = f32x4.splat(0);
        if (i < ndiag) d = f32x4.replace_lane(d, 0, load<f32>(val + o) * load<f32>(x + o));
        if (i + 1 < ndiag) d = f32x4.replace_lane(d, 1, load<f32>(val + o, 4) * load<f32>(x + o, 4));
        if (i + 2 < ndiag) d = f32x4.replace_lane(d, 2, load<f32>(val + o, 8) * load<f32>(x + o, 8));
      }
      const s = g == 0 ? rowdot4eq_f32(pp, index, val, x) : rowdot4_f32(pp, index, val, x);
      const r = f32x4.mul(av, f32x4.add(d, s));
      v128.store(y + o, b == 0 ? r : f32x4.add(r, f32x4.mul(bv, v128.load(y + o))));
    }
    mrs_rows_f32(index, val, ndiag, x, y, a, b, i, rowEnd);
    return;
  }
  let k0 = load<i32>(index + (<usize>rowStart << 2));
  for (let i = rowStart; i < rowEnd; i++) {
    const o = <usize>i << 2;
    const k1 = load<i32>(index + o, 4);
    const d: f32 = i < ndiag ? load<f32>(val + o) * load<f32>(x + o) : 0;
    axpby_f32(y + o, d + rowdot_f32(index, val, x, k0, k1), a, b);
    k0 = k1;
  }
}

/** SIMD build: rows [i0, i1) one by one, each in the order its lane would use. */
function mrs_rows_f32(index: usize, val: usize, ndiag: i32, x: usize, y: usize, a: f32, b: f32, i0: i32, i1: i32): void {
  for (let i = i0; i < i1; i++) {
    const o = <usize>i << 2;
    const d: f32 = i < ndiag ? load<f32>(val + o) * load<f32>(x + o) : 0;
    axpby_f32(y + o, d + rowdot_any_f32(index, val, x, load<i32>(index + o), load<i32>(index + o, 4)), a, b);
  }
}

export function mrs_f64(index: usize, val: usize, ndiag: i32, x: usize, y: usize, alpha: f64, beta: f64, rowStart: i32, rowEnd: i32): void {
  if (rowStart >= rowEnd) return;
  if (ASC_FEATURE_SIMD) {
    const kEnd = load<i32>(index + (<usize>rowEnd << 2));
    let i = rowStart;
    for (; i + 4 <= rowEnd; i += 4) {
      const pp = index + (<usize>i << 2);
      const g = group4(pp, kEnd);
      if (g == 2) {
        mrs_rows_f64(index, val, ndiag, x, y, alpha, beta, i, i + 4);
        continue;
      }
      const o = <usize>i << 3;
      let d01: v128, d23: v128;
      if (i + 4 <= ndiag) {
        d01 = f64x2.mul(v128.load(val + o), v128.load(x + o));
        d23 = f64x2.mul(v128.load(val + o, 16), v128.load(x + o, 16));
      } else {
        d01 = f64x2.splat(0);
        d23 = f64x2.splat(0);
        if (i < ndiag) d01 = f64x2.replace_lane(d01, 0, load<f64>(val + o) * load<f64>(x + o));
        if (i + 1 < ndiag) d01 = f64x2.replace_lane(d01, 1, load<f64>(val + o, 8) * load<f64>(x + o, 8));
        if (i + 2 < ndiag) d23 = f64x2.replace_lane(d23, 0, load<f64>(val + o, 16) * load<f64>(x + o, 16));
      }
      if (g == 0) rowdot4eq_f64(pp, index, val, x, y + o, alpha, beta, true, d01, d23);
      else rowdot4_f64(pp, index, val, x, y + o, alpha, beta, true, d01, d23);
    }
    mrs_rows_f64(index, val, ndiag, x, y, alpha, beta, i, rowEnd);
    return;
  }
  let k0 = load<i32>(index + (<usize>rowStart << 2));
  for (let i = rowStart; i < rowEnd; i++) {
    const k1 = load<i32>(index + (<usize>i << 2), 4);
    const o = <usize>i << 3;
    const d: f64 = i < ndiag ? load<f64>(val + o) * load<f64>(x + o) : 0;
    axpby_f64(y + o, d + rowdot_f64(index, val, x, k0, k1), alpha, beta);
    k0 = k1;
  }
}

/** mrs_rows_f32 for f64. */
function mrs_rows_f64(index: usize, val: usize, ndiag: i32, x: usize, y: usize, a: f64, b: f64, i0: i32, i1: i32): void {
  for (let i = i0; i < i1; i++) {
    const o = <usize>i << 3;
    const d: f64 = i < ndiag ? load<f64>(val + o) * load<f64>(x + o) : 0;
    axpby_f64(y + o, d + rowdot_any_f64(index, val, x, load<i32>(index + (<usize>i << 2)), load<i32>(index + (<usize>i << 2), 4)), a, b);
  }
}

export function mrs_c64(
  index: usize, val: usize, ndiag: i32, x: usize, y: usize,
  alphaRe: f64, alphaIm: f64, betaRe: f64, betaIm: f64, conj: i32, rowStart: i32, rowEnd: i32,
): void {
  const ar = <f32>alphaRe, ai = <f32>alphaIm, br = <f32>betaRe, bi = <f32>betaIm;
  const sg: f32 = conj ? -1 : 1;
  if (rowStart >= rowEnd) return;
  let k0 = load<i32>(index + (<usize>rowStart << 2));
  for (let i = rowStart; i < rowEnd; i++) {
    const k1 = load<i32>(index + (<usize>i << 2), 4);
    const o = <usize>i << 3;
    let dr: f32 = 0, di: f32 = 0;
    if (i < ndiag) {
      const vr = load<f32>(val + o), vi = sg * load<f32>(val + o, 4);
      const xr = load<f32>(x + o), xi = load<f32>(x + o, 4);
      dr = vr * xr - vi * xi;
      di = vr * xi + vi * xr;
    }
    rowdot_c64(index, val, x, k0, k1, conj, dr, di, y + o, ar, ai, br, bi);
    k0 = k1;
  }
}

export function mrs_c128(
  index: usize, val: usize, ndiag: i32, x: usize, y: usize,
  alphaRe: f64, alphaIm: f64, betaRe: f64, betaIm: f64, conj: i32, rowStart: i32, rowEnd: i32,
): void {
  const sg: f64 = conj ? -1 : 1;
  if (rowStart >= rowEnd) return;
  let k0 = load<i32>(index + (<usize>rowStart << 2));
  for (let i = rowStart; i < rowEnd; i++) {
    const k1 = load<i32>(index + (<usize>i << 2), 4);
    const o = <usize>i << 4;
    let dr: f64 = 0, di: f64 = 0;
    if (i < ndiag) {
      const vr = load<f64>(val + o), vi = sg * load<f64>(val + o, 8);
      const xr = load<f64>(x + o), xi = load<f64>(x + o, 8);
      dr = vr * xr - vi * xi;
      di = vr * xi + vi * xr;
    }
    rowdot_c128(index, val, x, k0, k1, conj, dr, di, y + o, alphaRe, alphaIm, betaRe, betaIm);
    k0 = k1;
  }
}
