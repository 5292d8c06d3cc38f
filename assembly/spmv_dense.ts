// Dense gemv: y[i] = α·Σ_j a[i·cols + j]·x[j] + β·y[i] for rows i in [rowStart, rowEnd), a row-major.
//
// SIMD: 4 rows at a time share each v128 load of x (4 f32 / 2 f64 / 2 c64 / 1 c128 columns), one
// accumulator (pair, for complex) per row; rows start anywhere (cols is arbitrary) so row loads are
// unaligned, which wasm allows. Complex uses the A = Σ a⊙x, B = Σ a⊙swap(x) scheme: the single
// re/im swap of x is shared by the 4 rows and conj costs nothing in the loop (cdotFinish*). Leftover
// columns are a scalar (real) or zero-padded 64-bit (c64) tail; leftover rows run the same loop one row
// at a time. Each row's summation order is fixed. The plain build runs the scalar loop only.
import {
  hsum_f32x4, hsum_f64x2, swap_c64, swap_c128, cdotFinish64, cdotFinish128,
  axpby_f32, axpby_f64, caxpby_c64, caxpby_c128,
} from './complex';

/** Horizontal sum of a real accumulator (fixed order). */
// @ts-ignore: decorator
@inline function hsum<T>(v: v128): T {
  if (sizeof<T>() == 4) return <T>hsum_f32x4(v);
  return <T>hsum_f64x2(v);
}

/** Σ_{j in [j0, cols)} row[j]·x[j], scalar (the < 4 leftover columns, or whole rows in the plain build). */
// @ts-ignore: decorator
@inline function dotTail<T>(row: usize, x: usize, j0: i32, cols: i32): T {
  let s: T = 0;
  for (let j = j0; j < cols; j++) s += load<T>(row + (<usize>j << alignof<T>())) * load<T>(x + (<usize>j << alignof<T>()));
  return s;
}

// @ts-ignore: decorator
@inline function yReal<T>(y: usize, i: i32, s: T, a: T, b: T): void {
  if (sizeof<T>() == 4) axpby_f32(y + (<usize>i << 2), <f32>s, <f32>a, <f32>b);
  else axpby_f64(y + (<usize>i << 3), <f64>s, <f64>a, <f64>b);
}

// @ts-ignore: decorator
@inline function denseReal<T>(a: usize, cols: i32, x: usize, y: usize, alpha: f64, beta: f64, rowStart: i32, rowEnd: i32): void {
  const al = <T>alpha, be = <T>beta;
  const SH = alignof<T>();
  const rowBytes = <usize>cols << SH;
  let i = rowStart;
  if (ASC_FEATURE_SIMD) {
    const V = <i32>(16 / sizeof<T>());
    const cv = cols & ~(V - 1); // columns covered by whole v128s
    for (; i + 4 <= rowEnd; i += 4) {
      const p0 = a + <usize>i * rowBytes, p1 = p0 + rowBytes, p2 = p1 + rowBytes, p3 = p2 + rowBytes;
      let c0 = v128.splat<T>(0), c1 = c0, c2 = c0, c3 = c0;
      for (let j = 0; j < cv; j += V) {
        const o = <usize>j << SH;
        const xv = v128.load(x + o);
        c0 = v128.add<T>(c0, v128.mul<T>(v128.load(p0 + o), xv));
        c1 = v128.add<T>(c1, v128.mul<T>(v128.load(p1 + o), xv));
        c2 = v128.add<T>(c2, v128.mul<T>(v128.load(p2 + o), xv));
        c3 = v128.add<T>(c3, v128.mul<T>(v128.load(p3 + o), xv));
      }
      yReal<T>(y, i, hsum<T>(c0) + dotTail<T>(p0, x, cv, cols), al, be);
      yReal<T>(y, i + 1, hsum<T>(c1) + dotTail<T>(p1, x, cv, cols), al, be);
      yReal<T>(y, i + 2, hsum<T>(c2) + dotTail<T>(p2, x, cv, cols), al, be);
      yReal<T>(y, i + 3, hsum<T>(c3) + dotTail<T>(p3, x, cv, cols), al, be);
    }
    for (; i < rowEnd; i++) {
      const p0 = a + <usize>i * rowBytes;
      let c0 = v128.splat<T>(0);
      for (let j = 0; j < cv; j += V) {
        const o = <usize>j << SH;
        c0 = v128.add<T>(c0, v128.mul<T>(v128.load(p0 + o), v128.load(x + o)));
      }
      yReal<T>(y, i, hsum<T>(c0) + dotTail<T>(p0, x, cv, cols), al, be);
    }
  }
  for (; i < rowEnd; i++) {
    const p0 = a + <usize>i * rowBytes;
    yReal<T>(y, i, dotTail<T>(p0, x, 0, cols), al, be);
  }
}

/** Swaps re/im of every complex in v. */
// @ts-ignore: decorator
@inline function cswap<T>(v: v128): v128 {
  if (sizeof<T>() == 4) return swap_c64(v);
  return swap_c128(v);
}

/** [re, im, ..] of one row's dot product from its A/B accumulators. */
// @ts-ignore: decorator
@inline function cFinish<T>(A: v128, B: v128, conj: i32): v128 {
  if (sizeof<T>() == 4) return cdotFinish64(A, B, conj);
  return cdotFinish128(A, B, conj);
}

// @ts-ignore: decorator
@inline function yCplx<T>(y: usize, i: i32, r: v128, ar: T, ai: T, br: T, bi: T): void {
  if (sizeof<T>() == 4) caxpby_c64(y + (<usize>i << 3), f32x4.extract_lane(r, 0), f32x4.extract_lane(r, 1), <f32>ar, <f32>ai, <f32>br, <f32>bi);
  else caxpby_c128(y + (<usize>i << 4), f64x2.extract_lane(r, 0), f64x2.extract_lane(r, 1), <f64>ar, <f64>ai, <f64>br, <f64>bi);
}

// @ts-ignore: decorator
@inline function denseCplx<T>(a: usize, cols: i32, x: usize, y: usize, alphaRe: f64, alphaIm: f64, betaRe: f64, betaIm: f64, conj: i32, rowStart: i32, rowEnd: i32): void {
  const ar = <T>alphaRe, ai = <T>alphaIm, br = <T>betaRe, bi = <T>betaIm;
  const SH = alignof<T>() + 1; // log2 bytes per complex
  const rowBytes = <usize>cols << SH;
  let i = rowStart;
  if (ASC_FEATURE_SIMD) {
    const V = <i32>(8 / sizeof<T>()); // complex per v128
    const cv = cols & ~(V - 1);
    for (; i + 4 <= rowEnd; i += 4) {
      const p0 = a + <usize>i * rowBytes, p1 = p0 + rowBytes, p2 = p1 + rowBytes, p3 = p2 + rowBytes;
      let A0 = v128.splat<T>(0), A1 = A0, A2 = A0, A3 = A0, B0 = A0, B1 = A0, B2 = A0, B3 = A0;
      for (let j = 0; j < cv; j += V) {
        const o = <usize>j << SH;
        const xv = v128.load(x + o), xs = cswap<T>(xv);
        const a0 = v128.load(p0 + o), a1 = v128.load(p1 + o), a2 = v128.load(p2 + o), a3 = v128.load(p3 + o);
        A0 = v128.add<T>(A0, v128.mul<T>(a0, xv)); B0 = v128.add<T>(B0, v128.mul<T>(a0, xs));
        A1 = v128.add<T>(A1, v128.mul<T>(a1, xv)); B1 = v128.add<T>(B1, v128.mul<T>(a1, xs));
        A2 = v128.add<T>(A2, v128.mul<T>(a2, xv)); B2 = v128.add<T>(B2, v128.mul<T>(a2, xs));
        A3 = v128.add<T>(A3, v128.mul<T>(a3, xv)); B3 = v128.add<T>(B3, v128.mul<T>(a3, xs));
      }
      if (sizeof<T>() == 4 && cv < cols) {
        // c64, odd cols: the last complex alone; load64_zero leaves the upper lanes 0 (they add 0)
        const o = <usize>cv << SH;
        const xv = v128.load64_zero(x + o), xs = swap_c64(xv);
        const a0 = v128.load64_zero(p0 + o), a1 = v128.load64_zero(p1 + o);
        const a2 = v128.load64_zero(p2 + o), a3 = v128.load64_zero(p3 + o);
        A0 = v128.add<T>(A0, v128.mul<T>(a0, xv)); B0 = v128.add<T>(B0, v128.mul<T>(a0, xs));
        A1 = v128.add<T>(A1, v128.mul<T>(a1, xv)); B1 = v128.add<T>(B1, v128.mul<T>(a1, xs));
        A2 = v128.add<T>(A2, v128.mul<T>(a2, xv)); B2 = v128.add<T>(B2, v128.mul<T>(a2, xs));
        A3 = v128.add<T>(A3, v128.mul<T>(a3, xv)); B3 = v128.add<T>(B3, v128.mul<T>(a3, xs));
      }
      yCplx<T>(y, i, cFinish<T>(A0, B0, conj), ar, ai, br, bi);
      yCplx<T>(y, i + 1, cFinish<T>(A1, B1, conj), ar, ai, br, bi);
      yCplx<T>(y, i + 2, cFinish<T>(A2, B2, conj), ar, ai, br, bi);
      yCplx<T>(y, i + 3, cFinish<T>(A3, B3, conj), ar, ai, br, bi);
    }
    for (; i < rowEnd; i++) {
      const p0 = a + <usize>i * rowBytes;
      let A0 = v128.splat<T>(0), B0 = A0;
      for (let j = 0; j < cv; j += V) {
        const o = <usize>j << SH;
        const xv = v128.load(x + o), a0 = v128.load(p0 + o);
        A0 = v128.add<T>(A0, v128.mul<T>(a0, xv)); B0 = v128.add<T>(B0, v128.mul<T>(a0, cswap<T>(xv)));
      }
      if (sizeof<T>() == 4 && cv < cols) {
        const o = <usize>cv << SH;
        const xv = v128.load64_zero(x + o), a0 = v128.load64_zero(p0 + o);
        A0 = v128.add<T>(A0, v128.mul<T>(a0, xv)); B0 = v128.add<T>(B0, v128.mul<T>(a0, swap_c64(xv)));
      }
      yCplx<T>(y, i, cFinish<T>(A0, B0, conj), ar, ai, br, bi);
    }
  }
  // scalar (plain build)
  const sg: T = conj ? -1 : 1;
  for (; i < rowEnd; i++) {
    const p0 = a + <usize>i * rowBytes;
    let sr: T = 0, si: T = 0;
    for (let j = 0; j < cols; j++) {
      const ap = p0 + (<usize>j << SH), xp = x + (<usize>j << SH);
      const vr = load<T>(ap), vi = sg * load<T>(ap, sizeof<T>());
      const xr = load<T>(xp), xi = load<T>(xp, sizeof<T>());
      sr += vr * xr - vi * xi;
      si += vr * xi + vi * xr;
    }
    if (sizeof<T>() == 4) caxpby_c64(y + (<usize>i << 3), <f32>sr, <f32>si, <f32>ar, <f32>ai, <f32>br, <f32>bi);
    else caxpby_c128(y + (<usize>i << 4), <f64>sr, <f64>si, <f64>ar, <f64>ai, <f64>br, <f64>bi);
  }
}

export function dense_f32(a: usize, cols: i32, x: usize, y: usize, alpha: f64, beta: f64, rowStart: i32, rowEnd: i32): void {
  denseReal<f32>(a, cols, x, y, alpha, beta, rowStart, rowEnd);
}

export function dense_f64(a: usize, cols: i32, x: usize, y: usize, alpha: f64, beta: f64, rowStart: i32, rowEnd: i32): void {
  denseReal<f64>(a, cols, x, y, alpha, beta, rowStart, rowEnd);
}

export function dense_c64(a: usize, cols: i32, x: usize, y: usize, alphaRe: f64, alphaIm: f64, betaRe: f64, betaIm: f64, conj: i32, rowStart: i32, rowEnd: i32): void {
  denseCplx<f32>(a, cols, x, y, alphaRe, alphaIm, betaRe, betaIm, conj, rowStart, rowEnd);
}

export function dense_c128(a: usize, cols: i32, x: usize, y: usize, alphaRe: f64, alphaIm: f64, betaRe: f64, betaIm: f64, conj: i32, rowStart: i32, rowEnd: i32): void {
  denseCplx<f64>(a, cols, x, y, alphaRe, alphaIm, betaRe, betaIm, conj, rowStart, rowEnd);
}
