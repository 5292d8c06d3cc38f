// SELL-C-σ SpMV (Kreutzer et al. 2014) over slices [sliceStart, sliceEnd). Slice s holds positions
// [s·C, s·C + C) of the permuted row order, column-major: entry k of position s·C + r sits at slot
// slicePtr[s] + k·C + r, so one slot column of a slice is C contiguous indices and values and a SIMD
// lane follows one row: no horizontal sums, and padding only up to the slice's longest row (rows are
// sorted by length within windows of σ). Padding slots have idx = −1 and value 0. Position p's result
// goes to y[perm[p]] (ident = 1: perm is the identity, stored with whole-vector writes).
//
// SIMD: strips of 8 rows (f32: two f32x4; f64: four f64x2) and 4 rows (f64 also 2) across a slice, x
// gathered by scalar index loads joined by shuffles (complex.ts gather4_f32/gather2_f64). A padding
// index −1 reads the element just before x (regions start at 64 KiB, so always inside the memory) and
// the lane is then zeroed by a mask from idx ≥ 0, so Inf/NaN there or in x never leaks through
// padding. Rows a strip does not cover (C not a multiple of the strip) and the plain build use the
// scalar row, which adds the same products in the same order (k ascending) with the same padding
// rule, so a row's bits depend on neither the build path nor the slice range of the call.
import {
  axpby_f32, axpby_f64, caxpby_c64, caxpby_c128, gather4_f32, gather2_f64, padTerm,
} from './complex';

// ---------------------------------------------------------------- output

/** y index of position p: p itself (identity) or perm[p]. */
// @ts-ignore: decorator
@inline function target(perm: usize, ident: i32, p: i32): usize {
  return ident ? <usize>p : <usize>load<i32>(perm + (<usize>p << 2));
}

/** y ← α·r + β·y for the 4 (f32) or 2 (f64) positions from p held in r; positions >= rows skipped. */
// @ts-ignore: decorator
@inline function putReal<T>(y: usize, perm: usize, ident: i32, p: i32, rows: i32, r: v128, a: T, b: T): void {
  const L = 16 / sizeof<T>();
  if (ident && p + L <= rows) {
    const yp = y + (<usize>p << alignof<T>());
    let o = v128.mul<T>(r, v128.splat<T>(a));
    if (b != 0) o = v128.add<T>(o, v128.mul<T>(v128.load(yp), v128.splat<T>(b)));
    v128.store(yp, o);
    return;
  }
  if (sizeof<T>() == 4) {
    if (p < rows) axpby_f32(y + (target(perm, ident, p) << 2), f32x4.extract_lane(r, 0), <f32>a, <f32>b);
    if (p + 1 < rows) axpby_f32(y + (target(perm, ident, p + 1) << 2), f32x4.extract_lane(r, 1), <f32>a, <f32>b);
    if (p + 2 < rows) axpby_f32(y + (target(perm, ident, p + 2) << 2), f32x4.extract_lane(r, 2), <f32>a, <f32>b);
    if (p + 3 < rows) axpby_f32(y + (target(perm, ident, p + 3) << 2), f32x4.extract_lane(r, 3), <f32>a, <f32>b);
  } else {
    if (p < rows) axpby_f64(y + (target(perm, ident, p) << 3), f64x2.extract_lane(r, 0), <f64>a, <f64>b);
    if (p + 1 < rows) axpby_f64(y + (target(perm, ident, p + 1) << 3), f64x2.extract_lane(r, 1), <f64>a, <f64>b);
  }
}

// ---------------------------------------------------------------- scalar rows

/** y[target(p)] = α·s + β·y[…], real T. */
// @ts-ignore: decorator
@inline function putOne<T>(y: usize, perm: usize, ident: i32, p: i32, s: T, a: T, b: T): void {
  if (sizeof<T>() == 4) axpby_f32(y + (target(perm, ident, p) << 2), <f32>s, <f32>a, <f32>b);
  else axpby_f64(y + (target(perm, ident, p) << 3), <f64>s, <f64>a, <f64>b);
}

// ---------------------------------------------------------------- kernels

// @ts-ignore: decorator
@inline function sellReal<T>(
  slicePtr: usize, C: i32, perm: usize, ident: i32, idx: usize, val: usize, x: usize, y: usize, rows: i32,
  alpha: f64, beta: f64, sliceStart: i32, sliceEnd: i32,
): void {
  const SH = alignof<T>();
  const a = <T>alpha, b = <T>beta;
  const istep = <usize>C << 2, vstep = <usize>C << SH;
  for (let s = sliceStart; s < sliceEnd; s++) {
    const base = <usize>load<i32>(slicePtr + (<usize>s << 2));
    const ipEnd = idx + (<usize>load<i32>(slicePtr + (<usize>s << 2), 4) << 2);
    const p0 = s * C;
    let g = 0;
    if (ASC_FEATURE_SIMD) {
      const zero = i32x4.splat(0);
      for (; g + 8 <= C; g += 8) {
        let c0 = v128.splat<T>(0), c1 = c0, c2 = c0, c3 = c0;
        let ip = idx + ((base + g) << 2), vp = val + ((base + g) << SH);
        for (; ip < ipEnd; ip += istep, vp += vstep) {
          const m0 = i32x4.ge_s(v128.load(ip), zero), m1 = i32x4.ge_s(v128.load(ip, 16), zero);
          if (sizeof<T>() == 4) {
            c0 = f32x4.add(c0, f32x4.mul(v128.load(vp), v128.and(gather4_f32(x, ip), m0)));
            c1 = f32x4.add(c1, f32x4.mul(v128.load(vp, 16), v128.and(gather4_f32(x, ip + 16), m1)));
          } else {
            c0 = f64x2.add(c0, f64x2.mul(v128.load(vp), v128.and(gather2_f64(x, ip), i64x2.extend_low_i32x4_s(m0))));
            c1 = f64x2.add(c1, f64x2.mul(v128.load(vp, 16), v128.and(gather2_f64(x, ip + 8), i64x2.extend_high_i32x4_s(m0))));
            c2 = f64x2.add(c2, f64x2.mul(v128.load(vp, 32), v128.and(gather2_f64(x, ip + 16), i64x2.extend_low_i32x4_s(m1))));
            c3 = f64x2.add(c3, f64x2.mul(v128.load(vp, 48), v128.and(gather2_f64(x, ip + 24), i64x2.extend_high_i32x4_s(m1))));
          }
        }
        const L = 16 / sizeof<T>();
        putReal<T>(y, perm, ident, p0 + g, rows, c0, a, b);
        putReal<T>(y, perm, ident, p0 + g + L, rows, c1, a, b);
        if (sizeof<T>() == 8) {
          putReal<T>(y, perm, ident, p0 + g + 4, rows, c2, a, b);
          putReal<T>(y, perm, ident, p0 + g + 6, rows, c3, a, b);
        }
      }
      for (; g + 4 <= C; g += 4) {
        let c0 = v128.splat<T>(0), c1 = c0;
        let ip = idx + ((base + g) << 2), vp = val + ((base + g) << SH);
        for (; ip < ipEnd; ip += istep, vp += vstep) {
          const m = i32x4.ge_s(v128.load(ip), zero);
          if (sizeof<T>() == 4) {
            c0 = f32x4.add(c0, f32x4.mul(v128.load(vp), v128.and(gather4_f32(x, ip), m)));
          } else {
            c0 = f64x2.add(c0, f64x2.mul(v128.load(vp), v128.and(gather2_f64(x, ip), i64x2.extend_low_i32x4_s(m))));
            c1 = f64x2.add(c1, f64x2.mul(v128.load(vp, 16), v128.and(gather2_f64(x, ip + 8), i64x2.extend_high_i32x4_s(m))));
          }
        }
        putReal<T>(y, perm, ident, p0 + g, rows, c0, a, b);
        if (sizeof<T>() == 8) putReal<T>(y, perm, ident, p0 + g + 2, rows, c1, a, b);
      }
      if (sizeof<T>() == 8) {
        for (; g + 2 <= C; g += 2) {
          let c0 = v128.splat<T>(0);
          let ip = idx + ((base + g) << 2), vp = val + ((base + g) << SH);
          for (; ip < ipEnd; ip += istep, vp += vstep) {
            const m = i64x2.extend_low_i32x4_s(i32x4.ge_s(v128.load64_zero(ip), zero));
            c0 = f64x2.add(c0, f64x2.mul(v128.load(vp), v128.and(gather2_f64(x, ip), m)));
          }
          putReal<T>(y, perm, ident, p0 + g, rows, c0, a, b);
        }
      }
    }
    // scalar rows (the plain build's kernel): 4 at a time, each summed over k ascending with padding
    // as +0 (padTerm), as the SIMD strips do
    const E = sizeof<T>();
    for (; g + 4 <= C && p0 + g + 4 <= rows; g += 4) {
      let s0: T = 0, s1: T = 0, s2: T = 0, s3: T = 0;
      let vp = val + ((base + g) << SH);
      for (let ip = idx + ((base + g) << 2); ip < ipEnd; ip += istep, vp += vstep) {
        s0 += padTerm<T>(ip, vp, x);
        s1 += padTerm<T>(ip + 4, vp + E, x);
        s2 += padTerm<T>(ip + 8, vp + 2 * E, x);
        s3 += padTerm<T>(ip + 12, vp + 3 * E, x);
      }
      putOne<T>(y, perm, ident, p0 + g, s0, a, b);
      putOne<T>(y, perm, ident, p0 + g + 1, s1, a, b);
      putOne<T>(y, perm, ident, p0 + g + 2, s2, a, b);
      putOne<T>(y, perm, ident, p0 + g + 3, s3, a, b);
    }
    for (; g < C && p0 + g < rows; g++) {
      let s0: T = 0;
      let vp = val + ((base + g) << SH);
      for (let ip = idx + ((base + g) << 2); ip < ipEnd; ip += istep, vp += vstep) s0 += padTerm<T>(ip, vp, x);
      putOne<T>(y, perm, ident, p0 + g, s0, a, b);
    }
  }
}

// @ts-ignore: decorator
@inline function sellCplx<T>(
  slicePtr: usize, C: i32, perm: usize, ident: i32, idx: usize, val: usize, x: usize, y: usize, rows: i32,
  alphaRe: f64, alphaIm: f64, betaRe: f64, betaIm: f64, conj: i32, sliceStart: i32, sliceEnd: i32,
): void {
  const SH = alignof<T>() + 1;
  const ar = <T>alphaRe, ai = <T>alphaIm, br = <T>betaRe, bi = <T>betaIm;
  const sg: T = conj ? -1 : 1;
  const istep = <usize>C << 2, vstep = <usize>C << SH;
  for (let s = sliceStart; s < sliceEnd; s++) {
    const base = <usize>load<i32>(slicePtr + (<usize>s << 2));
    const ipEnd = idx + (<usize>load<i32>(slicePtr + (<usize>s << 2), 4) << 2);
    const p0 = s * C;
    for (let g = 0; g < C && p0 + g < rows; g++) {
      let sr: T = 0, si: T = 0;
      let vp = val + ((base + g) << SH);
      for (let ip = idx + ((base + g) << 2); ip < ipEnd; ip += istep, vp += vstep) {
        const j = load<i32>(ip);
        if (j < 0) break; // padding ends the row
        const xp = x + (<usize>j << SH);
        const vr = load<T>(vp), vi = sg * load<T>(vp, sizeof<T>());
        const xr = load<T>(xp), xi = load<T>(xp, sizeof<T>());
        sr += vr * xr - vi * xi;
        si += vr * xi + vi * xr;
      }
      if (sizeof<T>() == 4) caxpby_c64(y + (target(perm, ident, p0 + g) << 3), <f32>sr, <f32>si, <f32>ar, <f32>ai, <f32>br, <f32>bi);
      else caxpby_c128(y + (target(perm, ident, p0 + g) << 4), <f64>sr, <f64>si, <f64>ar, <f64>ai, <f64>br, <f64>bi);
    }
  }
}

export function sell_f32(
  slicePtr: usize, C: i32, perm: usize, ident: i32, idx: usize, val: usize, x: usize, y: usize, rows: i32,
  alpha: f64, beta: f64, sliceStart: i32, sliceEnd: i32,
): void {
  sellReal<f32>(slicePtr, C, perm, ident, idx, val, x, y, rows, alpha, beta, sliceStart, sliceEnd);
}

export function sell_f64(
  slicePtr: usize, C: i32, perm: usize, ident: i32, idx: usize, val: usize, x: usize, y: usize, rows: i32,
  alpha: f64, beta: f64, sliceStart: i32, sliceEnd: i32,
): void {
  sellReal<f64>(slicePtr, C, perm, ident, idx, val, x, y, rows, alpha, beta, sliceStart, sliceEnd);
}

export function sell_c64(
  slicePtr: usize, C: i32, perm: usize, ident: i32, idx: usize, val: usize, x: usize, y: usize, rows: i32,
  alphaRe: f64, alphaIm: f64, betaRe: f64, betaIm: f64, conj: i32, sliceStart: i32, sliceEnd: i32,
): void {
  sellCplx<f32>(slicePtr, C, perm, ident, idx, val, x, y, rows, alphaRe, alphaIm, betaRe, betaIm, conj, sliceStart, sliceEnd);
}

export function sell_c128(
  slicePtr: usize, C: i32, perm: usize, ident: i32, idx: usize, val: usize, x: usize, y: usize, rows: i32,
  alphaRe: f64, alphaIm: f64, betaRe: f64, betaIm: f64, conj: i32, sliceStart: i32, sliceEnd: i32,
): void {
  sellCplx<f64>(slicePtr, C, perm, ident, idx, val, x, y, rows, alphaRe, alphaIm, betaRe, betaIm, conj, sliceStart, sliceEnd);
}
