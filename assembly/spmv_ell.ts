// ELL SpMV: y[i] = α·Σ_k val[k·stride + i]·x[idx[k·stride + i]] + β·y[i] for rows i in [rowStart, rowEnd).
// Column-major slots, stride ≥ rows and a multiple of 4; padding slots have idx = -1 and value 0.
//
// SIMD across rows: for each slot column k, one v128.load gives the indices of 4 consecutive rows and
// one (or 2/4 for f64/c64/c128) v128.load their values; x is gathered lane by lane at max(idx, 0) (so
// padding reads x[0], never out of bounds) and the padding lanes are then zeroed with a mask from
// idx ≥ 0, so Inf/NaN in x never leaks through a padding slot (0·Inf would be NaN). Real kernels take
// 8 rows per step (two index vectors: more independent accumulators, 32-byte runs of each slot column),
// complex ones 4 (already 4 or 8 accumulators). Steps start at a multiple of 4 rows, so index/value
// loads are aligned; the head (< 4 rows) and tail (< one step) use the scalar code, which is the whole
// kernel in the plain build. (A scalar-index/shuffle-tree gather measured the same as load*_lane here.)
import {
  swap_c64, swap_c128, cdotFinish128, cconstT1_64, cconstT2_64, cmulByConst64, cconstT1_128, cconstT2_128,
  cmulByConst128, axpby_f32, axpby_f64, caxpby_c64, caxpby_c128, padTerm,
} from './complex';

// ---------------------------------------------------------------- SIMD helpers

/** f32 x gathered at the 4 clamped indices jc, padding lanes (mask m = 0) zeroed. */
// @ts-ignore: decorator
@inline function gather4(x: usize, jc: v128, m: v128): v128 {
  let g = v128.load32_zero(x + (<usize>i32x4.extract_lane(jc, 0) << 2));
  g = v128.load32_lane(x + (<usize>i32x4.extract_lane(jc, 1) << 2), g, 1);
  g = v128.load32_lane(x + (<usize>i32x4.extract_lane(jc, 2) << 2), g, 2);
  g = v128.load32_lane(x + (<usize>i32x4.extract_lane(jc, 3) << 2), g, 3);
  return v128.and(g, m);
}

/** 64-bit elements (f64 or c64) at clamped indices ja, jb, padding lanes zeroed (m64: 64-bit mask). */
// @ts-ignore: decorator
@inline function gather2x64(x: usize, ja: i32, jb: i32, m64: v128): v128 {
  let g = v128.load64_zero(x + (<usize>ja << 3));
  g = v128.load64_lane(x + (<usize>jb << 3), g, 1);
  return v128.and(g, m64);
}

/** c64 rows in pairs, [re0 im0 re1 im1] from A = Σ a⊙x, B = Σ a⊙swap(x); sg as in spmv_dia.ts. */
// @ts-ignore: decorator
@inline function cpairFinish64(A: v128, B: v128, sg: v128): v128 {
  const e = f32x4.shuffle(A, B, 0, 2, 4, 6);
  const o = f32x4.shuffle(A, B, 1, 3, 5, 7);
  const t = f32x4.add(e, f32x4.mul(o, sg)); // [re0 re1 im0 im1]
  return f32x4.shuffle(t, t, 0, 2, 1, 3);
}

/** y (one v128 of results r) = α·r + β·y, real. */
// @ts-ignore: decorator
@inline function rStore<T>(yp: usize, r: v128, va: v128, vb: v128, useBeta: bool): void {
  r = v128.mul<T>(r, va);
  if (useBeta) r = v128.add<T>(r, v128.mul<T>(v128.load(yp), vb));
  v128.store(yp, r);
}

/** y (one v128 of complex results s) = α·s + β·y; T1/T2 constants from cconst*. */
// @ts-ignore: decorator
@inline function cStore<T>(yp: usize, s: v128, aT1: v128, aT2: v128, bT1: v128, bT2: v128, useBeta: bool): void {
  if (sizeof<T>() == 4) {
    s = cmulByConst64(s, aT1, aT2);
    if (useBeta) s = f32x4.add(s, cmulByConst64(v128.load(yp), bT1, bT2));
  } else {
    s = cmulByConst128(s, aT1, aT2);
    if (useBeta) s = f64x2.add(s, cmulByConst128(v128.load(yp), bT1, bT2));
  }
  v128.store(yp, s);
}

// ---------------------------------------------------------------- scalar rows (plain build, head/tail)

/** y[i] = α·s + β·y[i], real T. */
// @ts-ignore: decorator
@inline function ellPut<T>(y: usize, i: i32, s: T, a: T, b: T): void {
  if (sizeof<T>() == 4) axpby_f32(y + (<usize>i << 2), <f32>s, <f32>a, <f32>b);
  else axpby_f64(y + (<usize>i << 3), <f64>s, <f64>a, <f64>b);
}

/**
 * Scalar rows [r0, r1) (the plain build's kernel; the SIMD build's head and tail). Rows go 4 at a
 * time (8 measured ~10% slower in f32: V8 runs out of registers for 8 masked terms), slot column by
 * slot column, so each column is read in 16–32-byte runs: one row at a time
 * touches `width` lines per row whose addresses differ by multiples of the stride, and with a stride
 * near a power of two (poisson3D_64: 2¹⁸ rows) they all fall in one cache set and evict each other
 * before the next row reuses them (25× slower). Each row is still summed over k in order, so the
 * blocking changes no bits.
 */
function ellRealScalar<T>(idx: usize, val: usize, width: i32, stride: i32, x: usize, y: usize, a: T, b: T, r0: i32, r1: i32): void {
  const istep = <usize>stride << 2, vstep = <usize>stride << alignof<T>();
  const E = sizeof<T>();
  let i = r0;
  for (; i + 4 <= r1; i += 4) {
    let s0: T = 0, s1: T = 0, s2: T = 0, s3: T = 0;
    let ip = idx + (<usize>i << 2), vp = val + (<usize>i << alignof<T>());
    for (let k = 0; k < width; k++, ip += istep, vp += vstep) {
      s0 += padTerm<T>(ip, vp, x);
      s1 += padTerm<T>(ip + 4, vp + E, x);
      s2 += padTerm<T>(ip + 8, vp + 2 * E, x);
      s3 += padTerm<T>(ip + 12, vp + 3 * E, x);
    }
    ellPut<T>(y, i, s0, a, b);
    ellPut<T>(y, i + 1, s1, a, b);
    ellPut<T>(y, i + 2, s2, a, b);
    ellPut<T>(y, i + 3, s3, a, b);
  }
  for (; i < r1; i++) {
    let s: T = 0;
    let ip = idx + (<usize>i << 2), vp = val + (<usize>i << alignof<T>());
    for (let k = 0; k < width; k++, ip += istep, vp += vstep) s += padTerm<T>(ip, vp, x);
    ellPut<T>(y, i, s, a, b);
  }
}

function ellCplxScalar<T>(idx: usize, val: usize, width: i32, stride: i32, x: usize, y: usize, ar: T, ai: T, br: T, bi: T, conj: i32, r0: i32, r1: i32): void {
  const SH = alignof<T>() + 1;
  const sg: T = conj ? -1 : 1;
  for (let i = r0; i < r1; i++) {
    let sr: T = 0, si: T = 0;
    for (let k = 0; k < width; k++) {
      const o = <usize>k * <usize>stride + <usize>i;
      const j = load<i32>(idx + (o << 2));
      if (j < 0) continue; // padding
      const vp = val + (o << SH), xp = x + (<usize>j << SH);
      const vr = load<T>(vp), vi = sg * load<T>(vp, sizeof<T>());
      const xr = load<T>(xp), xi = load<T>(xp, sizeof<T>());
      sr += vr * xr - vi * xi;
      si += vr * xi + vi * xr;
    }
    if (sizeof<T>() == 4) caxpby_c64(y + (<usize>i << 3), <f32>sr, <f32>si, <f32>ar, <f32>ai, <f32>br, <f32>bi);
    else caxpby_c128(y + (<usize>i << 4), <f64>sr, <f64>si, <f64>ar, <f64>ai, <f64>br, <f64>bi);
  }
}

// ---------------------------------------------------------------- kernels

// @ts-ignore: decorator
@inline function ellReal<T>(idx: usize, val: usize, width: i32, stride: i32, x: usize, y: usize, alpha: f64, beta: f64, rowStart: i32, rowEnd: i32): void {
  const a = <T>alpha, b = <T>beta;
  let i = rowStart;
  if (ASC_FEATURE_SIMD) {
    const SH = alignof<T>();
    const start = (rowStart + 3) & ~3;
    if (start + 4 <= rowEnd) {
      ellRealScalar<T>(idx, val, width, stride, x, y, a, b, rowStart, start);
      i = start;
      const useBeta = b != 0;
      const va = v128.splat<T>(a), vb = v128.splat<T>(b);
      const zero = i32x4.splat(0);
      const istep = <usize>stride << 2, vstep = <usize>stride << SH;
      // 8 rows per step: two index vectors, two (f32) or four (f64) independent accumulators
      for (; i + 8 <= rowEnd; i += 8) {
        let c0 = v128.splat<T>(0), c1 = c0, c2 = c0, c3 = c0;
        let ip = idx + (<usize>i << 2), vp = val + (<usize>i << SH);
        for (let k = 0; k < width; k++, ip += istep, vp += vstep) {
          const j0 = v128.load(ip), j1 = v128.load(ip, 16);
          const m0 = i32x4.ge_s(j0, zero), m1 = i32x4.ge_s(j1, zero); // 0 on padding lanes
          const jc0 = i32x4.max_s(j0, zero), jc1 = i32x4.max_s(j1, zero); // padding → x[0]
          if (sizeof<T>() == 4) {
            c0 = f32x4.add(c0, f32x4.mul(v128.load(vp), gather4(x, jc0, m0)));
            c1 = f32x4.add(c1, f32x4.mul(v128.load(vp, 16), gather4(x, jc1, m1)));
          } else {
            c0 = f64x2.add(c0, f64x2.mul(v128.load(vp), gather2x64(x, i32x4.extract_lane(jc0, 0), i32x4.extract_lane(jc0, 1), i64x2.extend_low_i32x4_s(m0))));
            c1 = f64x2.add(c1, f64x2.mul(v128.load(vp, 16), gather2x64(x, i32x4.extract_lane(jc0, 2), i32x4.extract_lane(jc0, 3), i64x2.extend_high_i32x4_s(m0))));
            c2 = f64x2.add(c2, f64x2.mul(v128.load(vp, 32), gather2x64(x, i32x4.extract_lane(jc1, 0), i32x4.extract_lane(jc1, 1), i64x2.extend_low_i32x4_s(m1))));
            c3 = f64x2.add(c3, f64x2.mul(v128.load(vp, 48), gather2x64(x, i32x4.extract_lane(jc1, 2), i32x4.extract_lane(jc1, 3), i64x2.extend_high_i32x4_s(m1))));
          }
        }
        const yp = y + (<usize>i << SH);
        rStore<T>(yp, c0, va, vb, useBeta);
        rStore<T>(yp + 16, c1, va, vb, useBeta);
        if (sizeof<T>() == 8) {
          rStore<T>(yp + 32, c2, va, vb, useBeta);
          rStore<T>(yp + 48, c3, va, vb, useBeta);
        }
      }
    }
  }
  ellRealScalar<T>(idx, val, width, stride, x, y, a, b, i, rowEnd);
}

// @ts-ignore: decorator
@inline function ellCplx<T>(idx: usize, val: usize, width: i32, stride: i32, x: usize, y: usize, alphaRe: f64, alphaIm: f64, betaRe: f64, betaIm: f64, conj: i32, rowStart: i32, rowEnd: i32): void {
  const ar = <T>alphaRe, ai = <T>alphaIm, br = <T>betaRe, bi = <T>betaIm;
  let i = rowStart;
  if (ASC_FEATURE_SIMD) {
    const SH = alignof<T>() + 1;
    const start = (rowStart + 3) & ~3;
    if (start + 4 <= rowEnd) {
      ellCplxScalar<T>(idx, val, width, stride, x, y, ar, ai, br, bi, conj, rowStart, start);
      i = start;
      const useBeta = br != 0 || bi != 0;
      let aT1: v128, aT2: v128, bT1: v128, bT2: v128, sg: v128;
      if (sizeof<T>() == 4) {
        aT1 = cconstT1_64(<f32>ar, 0); aT2 = cconstT2_64(<f32>ai, 0);
        bT1 = cconstT1_64(<f32>br, 0); bT2 = cconstT2_64(<f32>bi, 0);
        sg = conj ? f32x4(1, 1, -1, -1) : f32x4(-1, -1, 1, 1);
      } else {
        aT1 = cconstT1_128(<f64>ar, 0); aT2 = cconstT2_128(<f64>ai, 0);
        bT1 = cconstT1_128(<f64>br, 0); bT2 = cconstT2_128(<f64>bi, 0);
        sg = aT1; // unused for c128
      }
      const zero = i32x4.splat(0);
      const istep = <usize>stride << 2, vstep = <usize>stride << SH;
      // 4 rows per step: one index vector; A = Σ a⊙x, B = Σ a⊙swap(x) per value v128
      for (; i + 4 <= rowEnd; i += 4) {
        let A0 = v128.splat<T>(0), A1 = A0, A2 = A0, A3 = A0, B0 = A0, B1 = A0, B2 = A0, B3 = A0;
        let ip = idx + (<usize>i << 2), vp = val + (<usize>i << SH);
        for (let k = 0; k < width; k++, ip += istep, vp += vstep) {
          const j = v128.load(ip);
          const m = i32x4.ge_s(j, zero);
          const jc = i32x4.max_s(j, zero);
          if (sizeof<T>() == 4) {
            const g0 = gather2x64(x, i32x4.extract_lane(jc, 0), i32x4.extract_lane(jc, 1), i64x2.extend_low_i32x4_s(m));
            const g1 = gather2x64(x, i32x4.extract_lane(jc, 2), i32x4.extract_lane(jc, 3), i64x2.extend_high_i32x4_s(m));
            const v0 = v128.load(vp), v1 = v128.load(vp, 16);
            A0 = f32x4.add(A0, f32x4.mul(v0, g0)); B0 = f32x4.add(B0, f32x4.mul(v0, swap_c64(g0)));
            A1 = f32x4.add(A1, f32x4.mul(v1, g1)); B1 = f32x4.add(B1, f32x4.mul(v1, swap_c64(g1)));
          } else {
            // one complex per v128: broadcast each row's 32-bit mask lane to the whole vector
            const g0 = v128.and(v128.load(x + (<usize>i32x4.extract_lane(jc, 0) << 4)), i32x4.shuffle(m, m, 0, 0, 0, 0));
            const g1 = v128.and(v128.load(x + (<usize>i32x4.extract_lane(jc, 1) << 4)), i32x4.shuffle(m, m, 1, 1, 1, 1));
            const g2 = v128.and(v128.load(x + (<usize>i32x4.extract_lane(jc, 2) << 4)), i32x4.shuffle(m, m, 2, 2, 2, 2));
            const g3 = v128.and(v128.load(x + (<usize>i32x4.extract_lane(jc, 3) << 4)), i32x4.shuffle(m, m, 3, 3, 3, 3));
            const v0 = v128.load(vp), v1 = v128.load(vp, 16), v2 = v128.load(vp, 32), v3 = v128.load(vp, 48);
            A0 = f64x2.add(A0, f64x2.mul(v0, g0)); B0 = f64x2.add(B0, f64x2.mul(v0, swap_c128(g0)));
            A1 = f64x2.add(A1, f64x2.mul(v1, g1)); B1 = f64x2.add(B1, f64x2.mul(v1, swap_c128(g1)));
            A2 = f64x2.add(A2, f64x2.mul(v2, g2)); B2 = f64x2.add(B2, f64x2.mul(v2, swap_c128(g2)));
            A3 = f64x2.add(A3, f64x2.mul(v3, g3)); B3 = f64x2.add(B3, f64x2.mul(v3, swap_c128(g3)));
          }
        }
        const yp = y + (<usize>i << SH);
        if (sizeof<T>() == 4) {
          cStore<T>(yp, cpairFinish64(A0, B0, sg), aT1, aT2, bT1, bT2, useBeta);
          cStore<T>(yp + 16, cpairFinish64(A1, B1, sg), aT1, aT2, bT1, bT2, useBeta);
        } else {
          cStore<T>(yp, cdotFinish128(A0, B0, conj), aT1, aT2, bT1, bT2, useBeta);
          cStore<T>(yp + 16, cdotFinish128(A1, B1, conj), aT1, aT2, bT1, bT2, useBeta);
          cStore<T>(yp + 32, cdotFinish128(A2, B2, conj), aT1, aT2, bT1, bT2, useBeta);
          cStore<T>(yp + 48, cdotFinish128(A3, B3, conj), aT1, aT2, bT1, bT2, useBeta);
        }
      }
    }
  }
  ellCplxScalar<T>(idx, val, width, stride, x, y, ar, ai, br, bi, conj, i, rowEnd);
}

export function ell_f32(idx: usize, val: usize, width: i32, stride: i32, x: usize, y: usize, alpha: f64, beta: f64, rowStart: i32, rowEnd: i32): void {
  ellReal<f32>(idx, val, width, stride, x, y, alpha, beta, rowStart, rowEnd);
}

export function ell_f64(idx: usize, val: usize, width: i32, stride: i32, x: usize, y: usize, alpha: f64, beta: f64, rowStart: i32, rowEnd: i32): void {
  ellReal<f64>(idx, val, width, stride, x, y, alpha, beta, rowStart, rowEnd);
}

export function ell_c64(idx: usize, val: usize, width: i32, stride: i32, x: usize, y: usize, alphaRe: f64, alphaIm: f64, betaRe: f64, betaIm: f64, conj: i32, rowStart: i32, rowEnd: i32): void {
  ellCplx<f32>(idx, val, width, stride, x, y, alphaRe, alphaIm, betaRe, betaIm, conj, rowStart, rowEnd);
}

export function ell_c128(idx: usize, val: usize, width: i32, stride: i32, x: usize, y: usize, alphaRe: f64, alphaIm: f64, betaRe: f64, betaIm: f64, conj: i32, rowStart: i32, rowEnd: i32): void {
  ellCplx<f64>(idx, val, width, stride, x, y, alphaRe, alphaIm, betaRe, betaIm, conj, rowStart, rowEnd);
}
