// DIA SpMV: y[i] = α·Σ_d data[d·pitch + i]·x[i + offsets[d]] + β·y[i] for rows i in [rowStart, rowEnd).
// offsets strictly ascending; pitch ≥ rows, a multiple of 4 elements; slots outside the matrix are 0.
//
// SIMD across rows: a v128 holds V consecutive rows of one diagonal (f32 4, f64 2, c64 2, c128 1), and
// x[i+off ..] is one (unaligned) v128 load. Rows go in blocks of 4 v128 (16 f32 / 8 f64 / 8 c64 / 4
// c128 rows) whose partial sums stay in registers while the loop runs over the diagonals, so y is read
// and written once per block (β == 0: never read; 4 v128 measured faster than 2, and 8 spills).
// Bounds without per-element branches: because the offsets are sorted, the diagonals that touch a block form a contiguous range [dlo, dhi) that only
// moves down as the block advances (two monotone pointers); a diagonal whose columns lie entirely in
// [0, cols) for the block takes the plain-load path, the few that straddle an edge build x with
// out-of-range lanes zeroed (x is never read out of bounds). Block starts are multiples of 4 rows so
// data loads are aligned; the < 4 head rows and the tail go through the scalar code, which is also the
// whole kernel in the plain build (per row, the valid diagonal range is tracked the same way).
import {
  swap_c64, swap_c128, cdotFinish128, cconstT1_64, cconstT2_64, cmulByConst64, cconstT1_128, cconstT2_128,
  cmulByConst128, axpby_f32, axpby_f64, caxpby_c64, caxpby_c128,
} from './complex';

// ---------------------------------------------------------------- shared helpers

/** Walks d down to the first diagonal with offsets[d] ≥ t, given that offsets[d..] are all ≥ t' ≥ t. */
// @ts-ignore: decorator
@inline function lbDown(offsets: usize, d: i32, t: i32): i32 {
  while (d > 0 && load<i32>(offsets + (<usize>(d - 1) << 2)) >= t) d--;
  return d;
}

/** x[j .. j+lanes) for a real T, lanes whose column is outside [0, cols) read as 0 (and are not loaded). */
// @ts-ignore: decorator
@inline function xReal<T>(x: usize, j: i32, cols: i32): v128 {
  if (j >= 0 && j <= cols - <i32>(16 / sizeof<T>())) return v128.load(x + (<usize>j << alignof<T>()));
  let v = v128.splat<T>(0);
  if (<u32>j < <u32>cols) v = v128.replace_lane<T>(v, 0, load<T>(x + (<usize>j << alignof<T>())));
  if (<u32>(j + 1) < <u32>cols) v = v128.replace_lane<T>(v, 1, load<T>(x + (<usize>(j + 1) << alignof<T>())));
  if (sizeof<T>() == 4) {
    if (<u32>(j + 2) < <u32>cols) v = v128.replace_lane<T>(v, 2, load<T>(x + (<usize>(j + 2) << 2)));
    if (<u32>(j + 3) < <u32>cols) v = v128.replace_lane<T>(v, 3, load<T>(x + (<usize>(j + 3) << 2)));
  }
  return v;
}

/**
 * x's lanes as a product reads them: as loaded, or `scaled`, c·x — the bits of the c·x a uniform Jacobi
 * step would have stored (cg_residual_jacobi_scalar_f64 no longer stores z = c·r: the product reads r).
 */
// @ts-ignore: decorator
@inline function xs<T>(v: v128, c: v128, scaled: bool): v128 {
  return scaled ? v128.mul<T>(c, v) : v;
}

/** Complex x[j .. j+V) (component type T; c64 V=2 as 64-bit lanes, c128 V=1), out-of-range lanes 0. */
// @ts-ignore: decorator
@inline function xCplx<T>(x: usize, j: i32, cols: i32): v128 {
  if (sizeof<T>() == 4) {
    if (j >= 0 && j <= cols - 2) return v128.load(x + (<usize>j << 3));
    let v = i64x2.splat(0);
    if (<u32>j < <u32>cols) v = i64x2.replace_lane(v, 0, load<i64>(x + (<usize>j << 3)));
    if (<u32>(j + 1) < <u32>cols) v = i64x2.replace_lane(v, 1, load<i64>(x + (<usize>(j + 1) << 3)));
    return v;
  }
  return <u32>j < <u32>cols ? v128.load(x + (<usize>j << 4)) : i64x2.splat(0);
}

/** Swaps re/im of every complex in v. */
// @ts-ignore: decorator
@inline function cswap<T>(v: v128): v128 {
  if (sizeof<T>() == 4) return swap_c64(v);
  return swap_c128(v);
}

/**
 * c64 rows in pairs: from A = Σ a⊙x, B = Σ a⊙swap(x) (each [row0 pair, row1 pair]) to
 * [re0 im0 re1 im1]; sg = conj ? [1 1 -1 -1] : [-1 -1 1 1] (a.im terms change sign under conj).
 */
// @ts-ignore: decorator
@inline function cpairFinish64(A: v128, B: v128, sg: v128): v128 {
  const e = f32x4.shuffle(A, B, 0, 2, 4, 6); // a.re·x.re (rows 0,1), a.re·x.im (rows 0,1)
  const o = f32x4.shuffle(A, B, 1, 3, 5, 7); // a.im·x.im,            a.im·x.re
  const t = f32x4.add(e, f32x4.mul(o, sg)); // [re0 re1 im0 im1]
  return f32x4.shuffle(t, t, 0, 2, 1, 3);
}

/** Stores α·s + β·y for a v128 of complex rows (β == 0: y not read); s from A/B sums. */
// @ts-ignore: decorator
@inline function cStore<T>(yp: usize, A: v128, B: v128, conj: i32, sg: v128, aT1: v128, aT2: v128, bT1: v128, bT2: v128, useBeta: bool): void {
  let r: v128;
  if (sizeof<T>() == 4) {
    r = cmulByConst64(cpairFinish64(A, B, sg), aT1, aT2);
    if (useBeta) r = f32x4.add(r, cmulByConst64(v128.load(yp), bT1, bT2));
  } else {
    r = cmulByConst128(cdotFinish128(A, B, conj), aT1, aT2);
    if (useBeta) r = f64x2.add(r, cmulByConst128(v128.load(yp), bT1, bT2));
  }
  v128.store(yp, r);
}

// ---------------------------------------------------------------- scalar rows (plain build, head/tail)

/** y[i] = α·s + β·y[i], real T. */
// @ts-ignore: decorator
@inline function diaPut<T>(y: usize, i: i32, s: T, a: T, b: T): void {
  if (sizeof<T>() == 4) axpby_f32(y + (<usize>i << 2), <f32>s, <f32>a, <f32>b);
  else axpby_f64(y + (<usize>i << 3), <f64>s, <f64>a, <f64>b);
}

/**
 * The first row after i at which the valid diagonal range [lo, hi) of row i changes: lo drops once
 * -row ≤ offsets[lo-1], hi once cols - row ≤ offsets[hi-1] (never before r1 if neither can).
 */
// @ts-ignore: decorator
@inline function rangeEnd(offsets: usize, lo: i32, hi: i32, cols: i32, r1: i32): i32 {
  let e = <i64>r1;
  if (lo > 0) e = min(e, -<i64>load<i32>(offsets + (<usize>(lo - 1) << 2)));
  if (hi > 0) e = min(e, <i64>cols - <i64>load<i32>(offsets + (<usize>(hi - 1) << 2)));
  return <i32>e;
}

/** A scalar x value as a product reads it (xs's scalar form). */
// @ts-ignore: decorator
@inline function xv<T>(v: T, c: T, scaled: bool): T {
  return scaled ? c * v : v;
}

/**
 * Scalar rows [r0, r1): the plain build's kernel, the SIMD build's head and tail. Rows go in runs
 * that share one valid diagonal range (all rows but a few near each diagonal's ends), found once per
 * run instead of per row; within a run, 4 rows at a time per diagonal, so each diagonal is read in
 * 16-byte runs: row by row, the `ndiag` lines touched per row lie a multiple of the pitch apart and,
 * with a pitch near a power of two, fall in one cache set and evict each other before the next row
 * reuses them. 4 accumulators and their 8 loads fit the registers (8 rows spilled: V8 issues every
 * load of the loop body before the arithmetic). Every row sums its diagonals in ascending order.
 */
function diaRealScalar<T, D>(offsets: usize, ndiag: i32, data: usize, pitch: i32, cols: i32, x: usize, y: usize, a: T, b: T, r0: i32, r1: i32): void {
  diaRealRows<T, D>(offsets, ndiag, data, pitch, cols, x, y, a, b, r0, r1, 1, false);
}

/** diaRealScalar of c·x (xv): its own function, so that the plain kernels' loop has no test for it (a runtime flag cost them 30%). */
function diaRealScalarScaled<T, D>(offsets: usize, ndiag: i32, data: usize, pitch: i32, cols: i32, x: usize, y: usize, a: T, b: T, r0: i32, r1: i32, c: T): void {
  diaRealRows<T, D>(offsets, ndiag, data, pitch, cols, x, y, a, b, r0, r1, c, true);
}

/** The body of diaRealScalar and diaRealScalarScaled (`scaled` a constant in each). */
// @ts-ignore: decorator
@inline function diaRealRows<T, D>(offsets: usize, ndiag: i32, data: usize, pitch: i32, cols: i32, x: usize, y: usize, a: T, b: T, r0: i32, r1: i32, c: T, scaled: bool): void {
  if (r0 >= r1) return;
  const SH = alignof<T>(), E = sizeof<T>();
  // A's values of type D (compact f64: f32, each widened exactly)
  const DS = alignof<D>(), DE = sizeof<D>();
  const dstep = <usize>pitch << DS;
  let lo = ndiag, hi = ndiag;
  let i = r0;
  while (i < r1) {
    // diagonals valid for row i: -i ≤ off < cols - i; both bounds fall as i grows
    lo = lbDown(offsets, lo, -i);
    hi = lbDown(offsets, hi, cols - i);
    const end = rangeEnd(offsets, lo, hi, cols, r1);
    const o0 = offsets + (<usize>lo << 2), o1 = offsets + (<usize>hi << 2);
    for (; i + 4 <= end; i += 4) {
      let s0: T = 0, s1: T = 0, s2: T = 0, s3: T = 0;
      const xi = x + (<usize>i << SH);
      let dp = data + ((<usize>lo * <usize>pitch + <usize>i) << DS);
      for (let op = o0; op < o1; op += 4, dp += dstep) {
        const xp = xi + (<usize>load<i32>(op) << SH);
        s0 += <T>load<D>(dp) * xv<T>(load<T>(xp), c, scaled);
        s1 += <T>load<D>(dp, DE) * xv<T>(load<T>(xp, E), c, scaled);
        s2 += <T>load<D>(dp, 2 * DE) * xv<T>(load<T>(xp, 2 * E), c, scaled);
        s3 += <T>load<D>(dp, 3 * DE) * xv<T>(load<T>(xp, 3 * E), c, scaled);
      }
      diaPut<T>(y, i, s0, a, b);
      diaPut<T>(y, i + 1, s1, a, b);
      diaPut<T>(y, i + 2, s2, a, b);
      diaPut<T>(y, i + 3, s3, a, b);
    }
    for (; i < end; i++) {
      let s: T = 0;
      const xi = x + (<usize>i << SH);
      let dp = data + ((<usize>lo * <usize>pitch + <usize>i) << DS);
      for (let op = o0; op < o1; op += 4, dp += dstep) s += <T>load<D>(dp) * xv<T>(load<T>(xi + (<usize>load<i32>(op) << SH)), c, scaled);
      diaPut<T>(y, i, s, a, b);
    }
  }
}

/** y[i] = α·(sr + i·si) + β·y[i], complex with component type T. */
// @ts-ignore: decorator
@inline function diaCput<T>(y: usize, i: i32, sr: T, si: T, ar: T, ai: T, br: T, bi: T): void {
  if (sizeof<T>() == 4) caxpby_c64(y + (<usize>i << 3), <f32>sr, <f32>si, <f32>ar, <f32>ai, <f32>br, <f32>bi);
  else caxpby_c128(y + (<usize>i << 4), <f64>sr, <f64>si, <f64>ar, <f64>ai, <f64>br, <f64>bi);
}

/**
 * sr + Σ re, si + Σ im of a·x (conj: conj(a)·x) for one product, as `[vr + i·vi]·[xr + i·xv]`; with
 * conj the a.im terms change sign, written as + / − of the same products (bitwise equal to negating
 * a.im first: (−v)·x = −(v·x) and s − (−p) = s + p are exact), so no multiply by the sign is needed.
 */
// @ts-ignore: decorator
@inline function cre<T>(vr: T, vi: T, xr: T, xv: T, conj: bool): T {
  return conj ? vr * xr + vi * xv : vr * xr - vi * xv;
}
// @ts-ignore: decorator
@inline function cim<T>(vr: T, vi: T, xr: T, xv: T, conj: bool): T {
  return conj ? vr * xv - vi * xr : vr * xv + vi * xr;
}

/** Complex scalar rows, in runs of rows sharing one diagonal range as diaRealScalar, 2 rows at a time. */
// @ts-ignore: decorator
@inline function diaCplxRows<T>(offsets: usize, ndiag: i32, data: usize, pitch: i32, cols: i32, x: usize, y: usize, ar: T, ai: T, br: T, bi: T, conj: bool, r0: i32, r1: i32): void {
  const SH = alignof<T>() + 1, E = sizeof<T>();
  const dstep = <usize>pitch << SH;
  let lo = ndiag, hi = ndiag;
  let i = r0;
  while (i < r1) {
    lo = lbDown(offsets, lo, -i);
    hi = lbDown(offsets, hi, cols - i);
    const end = rangeEnd(offsets, lo, hi, cols, r1);
    const o0 = offsets + (<usize>lo << 2), o1 = offsets + (<usize>hi << 2);
    for (; i + 2 <= end; i += 2) {
      let sr0: T = 0, si0: T = 0, sr1: T = 0, si1: T = 0;
      const xi = x + (<usize>i << SH);
      let dp = data + ((<usize>lo * <usize>pitch + <usize>i) << SH);
      for (let op = o0; op < o1; op += 4, dp += dstep) {
        const xp = xi + (<usize>load<i32>(op) << SH);
        const vr0 = load<T>(dp), vi0 = load<T>(dp, E), xr0 = load<T>(xp), xv0 = load<T>(xp, E);
        const vr1 = load<T>(dp, 2 * E), vi1 = load<T>(dp, 3 * E), xr1 = load<T>(xp, 2 * E), xv1 = load<T>(xp, 3 * E);
        sr0 += cre<T>(vr0, vi0, xr0, xv0, conj);
        si0 += cim<T>(vr0, vi0, xr0, xv0, conj);
        sr1 += cre<T>(vr1, vi1, xr1, xv1, conj);
        si1 += cim<T>(vr1, vi1, xr1, xv1, conj);
      }
      diaCput<T>(y, i, sr0, si0, ar, ai, br, bi);
      diaCput<T>(y, i + 1, sr1, si1, ar, ai, br, bi);
    }
    for (; i < end; i++) {
      let sr: T = 0, si: T = 0;
      const xi = x + (<usize>i << SH);
      let dp = data + ((<usize>lo * <usize>pitch + <usize>i) << SH);
      for (let op = o0; op < o1; op += 4, dp += dstep) {
        const xp = xi + (<usize>load<i32>(op) << SH);
        const vr = load<T>(dp), vi = load<T>(dp, E), xr = load<T>(xp), xv = load<T>(xp, E);
        sr += cre<T>(vr, vi, xr, xv, conj);
        si += cim<T>(vr, vi, xr, xv, conj);
      }
      diaCput<T>(y, i, sr, si, ar, ai, br, bi);
    }
  }
}

function diaCplxScalar<T>(offsets: usize, ndiag: i32, data: usize, pitch: i32, cols: i32, x: usize, y: usize, ar: T, ai: T, br: T, bi: T, conj: i32, r0: i32, r1: i32): void {
  if (r0 >= r1) return;
  if (conj) diaCplxRows<T>(offsets, ndiag, data, pitch, cols, x, y, ar, ai, br, bi, true, r0, r1);
  else diaCplxRows<T>(offsets, ndiag, data, pitch, cols, x, y, ar, ai, br, bi, false, r0, r1);
}

// ---------------------------------------------------------------- kernels

/**
 * The k-th v128 (k a constant 0–3) of A's values from dp, in T's lanes: a plain load, or for compact
 * f64 storage (D = f32) two f32 widened exactly (f64x2.promote_low_f32x4): the f64 values' bits.
 */
// @ts-ignore: decorator
@inline function ldA<T, D>(dp: usize, k: i32): v128 {
  if (sizeof<D>() == sizeof<T>()) {
    if (k == 0) return v128.load(dp);
    if (k == 1) return v128.load(dp, 16);
    if (k == 2) return v128.load(dp, 32);
    return v128.load(dp, 48);
  }
  if (k == 0) return f64x2.promote_low_f32x4(v128.load64_zero(dp));
  if (k == 1) return f64x2.promote_low_f32x4(v128.load64_zero(dp, 8));
  if (k == 2) return f64x2.promote_low_f32x4(v128.load64_zero(dp, 16));
  return f64x2.promote_low_f32x4(v128.load64_zero(dp, 24));
}

/** y[block] = α·c + β·y[block] for a register block of 4 v128 (β == 0: y not read). */
// @ts-ignore: decorator
@inline function diaStoreBlock<T>(yp: usize, c0: v128, c1: v128, c2: v128, c3: v128, va: v128, vb: v128, useBeta: bool): void {
  if (useBeta) {
    c0 = v128.add<T>(v128.mul<T>(c0, va), v128.mul<T>(v128.load(yp), vb));
    c1 = v128.add<T>(v128.mul<T>(c1, va), v128.mul<T>(v128.load(yp, 16), vb));
    c2 = v128.add<T>(v128.mul<T>(c2, va), v128.mul<T>(v128.load(yp, 32), vb));
    c3 = v128.add<T>(v128.mul<T>(c3, va), v128.mul<T>(v128.load(yp, 48), vb));
  } else {
    c0 = v128.mul<T>(c0, va); c1 = v128.mul<T>(c1, va); c2 = v128.mul<T>(c2, va); c3 = v128.mul<T>(c3, va);
  }
  v128.store(yp, c0); v128.store(yp, c1, 16); v128.store(yp, c2, 32); v128.store(yp, c3, 48);
}

// @ts-ignore: decorator
@inline function diaReal<T, D>(offsets: usize, ndiag: i32, data: usize, pitch: i32, cols: i32, x: usize, y: usize, alpha: f64, beta: f64, rowStart: i32, rowEnd: i32, scale: f64 = 1, scaled: bool = false, uni: usize = 0, consts: usize = 0, uniform: bool = false): void {
  const a = <T>alpha, b = <T>beta, c = <T>scale;
  let i = rowStart;
  if (ASC_FEATURE_SIMD) {
    const V = <i32>(16 / sizeof<T>()); // rows per v128
    const B = 4 * V; // rows per register block
    const SH = alignof<T>();
    const DS = alignof<D>();
    const start = (rowStart + 3) & ~3;
    if (start + V <= rowEnd) {
      if (scaled) diaRealScalarScaled<T, D>(offsets, ndiag, data, pitch, cols, x, y, a, b, rowStart, start, c);
      else diaRealScalar<T, D>(offsets, ndiag, data, pitch, cols, x, y, a, b, rowStart, start);
      i = start;
      const useBeta = b != 0;
      const va = v128.splat<T>(a), vb = v128.splat<T>(b), vc = v128.splat<T>(c);
      let dlo = ndiag, dhi = ndiag;
      // interior blocks (every diagonal in range, x read without bounds): from row -off[0] to the row
      // whose block ends at cols - off[last]; nothing to look up or test per block, the same sums in the
      // same order as the general path (poisson3D_128 at 2 threads on the 2-vCPU EPYC: DIA 1.37× native C
      // in f64, bench/results-local/2026-11-23/formats-dia-interior.log, against 1.13–1.16× in the two runs
      // before). The general blocks' dlo/dhi only fall, so they resume correctly after it.
      const inLo = ndiag > 0 ? -load<i32>(offsets) : i32.MAX_VALUE;
      const inHi = ndiag > 0 ? cols - load<i32>(offsets + (<usize>(ndiag - 1) << 2)) - B : i32.MIN_VALUE;
      const dstep = <usize>pitch << DS;
      for (; i + B <= rowEnd; i += B) {
        if (i >= inLo && i <= inHi) {
          let c0 = v128.splat<T>(0), c1 = c0, c2 = c0, c3 = c0;
          const xi = x + (<usize>i << SH);
          let dp = data + (<usize>i << DS);
          // (uniform, f64: the block's 4-row groups flagged in `uni` hold consts[d] on every diagonal d:
          // their values from 8·ndiag bytes instead of the block's slots, the same products and sums)
          const f = uniform ? load<u16>(uni + (<usize>i >> 2)) : 0;
          if (f == 0x0101) {
            let cp = consts;
            for (let op = offsets, oe = offsets + (<usize>ndiag << 2); op < oe; op += 4, cp += 8) {
              const xp = xi + (<usize>load<i32>(op) << SH);
              const a = v128.load64_splat(cp);
              c0 = v128.add<T>(c0, v128.mul<T>(a, xs<T>(v128.load(xp), vc, scaled)));
              c1 = v128.add<T>(c1, v128.mul<T>(a, xs<T>(v128.load(xp, 16), vc, scaled)));
              c2 = v128.add<T>(c2, v128.mul<T>(a, xs<T>(v128.load(xp, 32), vc, scaled)));
              c3 = v128.add<T>(c3, v128.mul<T>(a, xs<T>(v128.load(xp, 48), vc, scaled)));
            }
            diaStoreBlock<T>(y + (<usize>i << SH), c0, c1, c2, c3, va, vb, useBeta);
            continue;
          }
          if (f != 0) {
            // one of the two groups uniform (a grid line's first or last block): its half from consts
            let cp = consts;
            if ((f & 0xff) != 0) {
              for (let op = offsets, oe = offsets + (<usize>ndiag << 2); op < oe; op += 4, cp += 8, dp += dstep) {
                const xp = xi + (<usize>load<i32>(op) << SH);
                const a = v128.load64_splat(cp);
                c0 = v128.add<T>(c0, v128.mul<T>(a, xs<T>(v128.load(xp), vc, scaled)));
                c1 = v128.add<T>(c1, v128.mul<T>(a, xs<T>(v128.load(xp, 16), vc, scaled)));
                c2 = v128.add<T>(c2, v128.mul<T>(ldA<T, D>(dp, 2), xs<T>(v128.load(xp, 32), vc, scaled)));
                c3 = v128.add<T>(c3, v128.mul<T>(ldA<T, D>(dp, 3), xs<T>(v128.load(xp, 48), vc, scaled)));
              }
            } else {
              for (let op = offsets, oe = offsets + (<usize>ndiag << 2); op < oe; op += 4, cp += 8, dp += dstep) {
                const xp = xi + (<usize>load<i32>(op) << SH);
                const a = v128.load64_splat(cp);
                c0 = v128.add<T>(c0, v128.mul<T>(ldA<T, D>(dp, 0), xs<T>(v128.load(xp), vc, scaled)));
                c1 = v128.add<T>(c1, v128.mul<T>(ldA<T, D>(dp, 1), xs<T>(v128.load(xp, 16), vc, scaled)));
                c2 = v128.add<T>(c2, v128.mul<T>(a, xs<T>(v128.load(xp, 32), vc, scaled)));
                c3 = v128.add<T>(c3, v128.mul<T>(a, xs<T>(v128.load(xp, 48), vc, scaled)));
              }
            }
            diaStoreBlock<T>(y + (<usize>i << SH), c0, c1, c2, c3, va, vb, useBeta);
            continue;
          }
          for (let op = offsets, oe = offsets + (<usize>ndiag << 2); op < oe; op += 4, dp += dstep) {
            const xp = xi + (<usize>load<i32>(op) << SH);
            c0 = v128.add<T>(c0, v128.mul<T>(ldA<T, D>(dp, 0), xs<T>(v128.load(xp), vc, scaled)));
            c1 = v128.add<T>(c1, v128.mul<T>(ldA<T, D>(dp, 1), xs<T>(v128.load(xp, 16), vc, scaled)));
            c2 = v128.add<T>(c2, v128.mul<T>(ldA<T, D>(dp, 2), xs<T>(v128.load(xp, 32), vc, scaled)));
            c3 = v128.add<T>(c3, v128.mul<T>(ldA<T, D>(dp, 3), xs<T>(v128.load(xp, 48), vc, scaled)));
          }
          diaStoreBlock<T>(y + (<usize>i << SH), c0, c1, c2, c3, va, vb, useBeta);
          continue;
        }
        // diagonals touching rows [i, i+B): -(i+B-1) ≤ off < cols - i
        dlo = lbDown(offsets, dlo, -(i + B - 1));
        dhi = lbDown(offsets, dhi, cols - i);
        let c0 = v128.splat<T>(0), c1 = c0, c2 = c0, c3 = c0;
        for (let d = dlo; d < dhi; d++) {
          const j = i + load<i32>(offsets + (<usize>d << 2));
          const dp = data + ((<usize>d * <usize>pitch + <usize>i) << DS);
          let x0: v128, x1: v128, x2: v128, x3: v128;
          if (j >= 0 && j <= cols - B) {
            const xp = x + (<usize>j << SH);
            x0 = v128.load(xp); x1 = v128.load(xp, 16); x2 = v128.load(xp, 32); x3 = v128.load(xp, 48);
          } else {
            x0 = xReal<T>(x, j, cols); x1 = xReal<T>(x, j + V, cols);
            x2 = xReal<T>(x, j + 2 * V, cols); x3 = xReal<T>(x, j + 3 * V, cols);
          }
          c0 = v128.add<T>(c0, v128.mul<T>(ldA<T, D>(dp, 0), xs<T>(x0, vc, scaled)));
          c1 = v128.add<T>(c1, v128.mul<T>(ldA<T, D>(dp, 1), xs<T>(x1, vc, scaled)));
          c2 = v128.add<T>(c2, v128.mul<T>(ldA<T, D>(dp, 2), xs<T>(x2, vc, scaled)));
          c3 = v128.add<T>(c3, v128.mul<T>(ldA<T, D>(dp, 3), xs<T>(x3, vc, scaled)));
        }
        diaStoreBlock<T>(y + (<usize>i << SH), c0, c1, c2, c3, va, vb, useBeta);
      }
      for (; i + V <= rowEnd; i += V) {
        dlo = lbDown(offsets, dlo, -(i + V - 1));
        dhi = lbDown(offsets, dhi, cols - i);
        let c0 = v128.splat<T>(0);
        for (let d = dlo; d < dhi; d++) {
          const j = i + load<i32>(offsets + (<usize>d << 2));
          c0 = v128.add<T>(c0, v128.mul<T>(ldA<T, D>(data + ((<usize>d * <usize>pitch + <usize>i) << DS), 0), xs<T>(xReal<T>(x, j, cols), vc, scaled)));
        }
        const yp = y + (<usize>i << SH);
        c0 = v128.mul<T>(c0, va);
        if (useBeta) c0 = v128.add<T>(c0, v128.mul<T>(v128.load(yp), vb));
        v128.store(yp, c0);
      }
    }
  }
  if (scaled) diaRealScalarScaled<T, D>(offsets, ndiag, data, pitch, cols, x, y, a, b, i, rowEnd, c);
  else diaRealScalar<T, D>(offsets, ndiag, data, pitch, cols, x, y, a, b, i, rowEnd);
}

// @ts-ignore: decorator
@inline function diaCplx<T>(offsets: usize, ndiag: i32, data: usize, pitch: i32, cols: i32, x: usize, y: usize, alphaRe: f64, alphaIm: f64, betaRe: f64, betaIm: f64, conj: i32, rowStart: i32, rowEnd: i32): void {
  const ar = <T>alphaRe, ai = <T>alphaIm, br = <T>betaRe, bi = <T>betaIm;
  let i = rowStart;
  if (ASC_FEATURE_SIMD) {
    const V = <i32>(8 / sizeof<T>()); // complex rows per v128
    const B = 4 * V;
    const SH = alignof<T>() + 1; // log2 bytes per complex
    const start = (rowStart + 3) & ~3;
    if (start + V <= rowEnd) {
      diaCplxScalar<T>(offsets, ndiag, data, pitch, cols, x, y, ar, ai, br, bi, conj, rowStart, start);
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
      let dlo = ndiag, dhi = ndiag;
      for (; i + B <= rowEnd; i += B) {
        dlo = lbDown(offsets, dlo, -(i + B - 1));
        dhi = lbDown(offsets, dhi, cols - i);
        // A = Σ a⊙x, Bk = Σ a⊙swap(x): one shuffle per v128, combined once per block (cStore)
        let A0 = v128.splat<T>(0), A1 = A0, A2 = A0, A3 = A0, B0 = A0, B1 = A0, B2 = A0, B3 = A0;
        for (let d = dlo; d < dhi; d++) {
          const j = i + load<i32>(offsets + (<usize>d << 2));
          const dp = data + ((<usize>d * <usize>pitch + <usize>i) << SH);
          let x0: v128, x1: v128, x2: v128, x3: v128;
          if (j >= 0 && j <= cols - B) {
            const xp = x + (<usize>j << SH);
            x0 = v128.load(xp); x1 = v128.load(xp, 16); x2 = v128.load(xp, 32); x3 = v128.load(xp, 48);
          } else {
            x0 = xCplx<T>(x, j, cols); x1 = xCplx<T>(x, j + V, cols);
            x2 = xCplx<T>(x, j + 2 * V, cols); x3 = xCplx<T>(x, j + 3 * V, cols);
          }
          const d0 = v128.load(dp), d1 = v128.load(dp, 16), d2 = v128.load(dp, 32), d3 = v128.load(dp, 48);
          A0 = v128.add<T>(A0, v128.mul<T>(d0, x0)); B0 = v128.add<T>(B0, v128.mul<T>(d0, cswap<T>(x0)));
          A1 = v128.add<T>(A1, v128.mul<T>(d1, x1)); B1 = v128.add<T>(B1, v128.mul<T>(d1, cswap<T>(x1)));
          A2 = v128.add<T>(A2, v128.mul<T>(d2, x2)); B2 = v128.add<T>(B2, v128.mul<T>(d2, cswap<T>(x2)));
          A3 = v128.add<T>(A3, v128.mul<T>(d3, x3)); B3 = v128.add<T>(B3, v128.mul<T>(d3, cswap<T>(x3)));
        }
        const yp = y + (<usize>i << SH);
        cStore<T>(yp, A0, B0, conj, sg, aT1, aT2, bT1, bT2, useBeta);
        cStore<T>(yp + 16, A1, B1, conj, sg, aT1, aT2, bT1, bT2, useBeta);
        cStore<T>(yp + 32, A2, B2, conj, sg, aT1, aT2, bT1, bT2, useBeta);
        cStore<T>(yp + 48, A3, B3, conj, sg, aT1, aT2, bT1, bT2, useBeta);
      }
      for (; i + V <= rowEnd; i += V) {
        dlo = lbDown(offsets, dlo, -(i + V - 1));
        dhi = lbDown(offsets, dhi, cols - i);
        let A0 = v128.splat<T>(0), B0 = A0;
        for (let d = dlo; d < dhi; d++) {
          const j = i + load<i32>(offsets + (<usize>d << 2));
          const d0 = v128.load(data + ((<usize>d * <usize>pitch + <usize>i) << SH));
          const x0 = xCplx<T>(x, j, cols);
          A0 = v128.add<T>(A0, v128.mul<T>(d0, x0)); B0 = v128.add<T>(B0, v128.mul<T>(d0, cswap<T>(x0)));
        }
        cStore<T>(y + (<usize>i << SH), A0, B0, conj, sg, aT1, aT2, bT1, bT2, useBeta);
      }
    }
  }
  diaCplxScalar<T>(offsets, ndiag, data, pitch, cols, x, y, ar, ai, br, bi, conj, i, rowEnd);
}

export function dia_f32(offsets: usize, ndiag: i32, data: usize, pitch: i32, cols: i32, x: usize, y: usize, alpha: f64, beta: f64, rowStart: i32, rowEnd: i32): void {
  diaReal<f32, f32>(offsets, ndiag, data, pitch, cols, x, y, alpha, beta, rowStart, rowEnd);
}

export function dia_f64(offsets: usize, ndiag: i32, data: usize, pitch: i32, cols: i32, x: usize, y: usize, alpha: f64, beta: f64, rowStart: i32, rowEnd: i32): void {
  diaReal<f64, f64>(offsets, ndiag, data, pitch, cols, x, y, alpha, beta, rowStart, rowEnd);
}

// dia_f64 over compact storage: A's f64 values held as f32 where every one is exactly an f32 (a
// stencil's integers; src/cpu/spmv-plan.ts decides at upload), widened on load: the same products and
// sums, bit for bit, from half the matrix's bytes
export function dia_f64f32(offsets: usize, ndiag: i32, data: usize, pitch: i32, cols: i32, x: usize, y: usize, alpha: f64, beta: f64, rowStart: i32, rowEnd: i32): void {
  diaReal<f64, f32>(offsets, ndiag, data, pitch, cols, x, y, alpha, beta, rowStart, rowEnd);
}

export function dia_c64(offsets: usize, ndiag: i32, data: usize, pitch: i32, cols: i32, x: usize, y: usize, alphaRe: f64, alphaIm: f64, betaRe: f64, betaIm: f64, conj: i32, rowStart: i32, rowEnd: i32): void {
  diaCplx<f32>(offsets, ndiag, data, pitch, cols, x, y, alphaRe, alphaIm, betaRe, betaIm, conj, rowStart, rowEnd);
}

export function dia_c128(offsets: usize, ndiag: i32, data: usize, pitch: i32, cols: i32, x: usize, y: usize, alphaRe: f64, alphaIm: f64, betaRe: f64, betaIm: f64, conj: i32, rowStart: i32, rowEnd: i32): void {
  diaCplx<f64>(offsets, ndiag, data, pitch, cols, x, y, alphaRe, alphaIm, betaRe, betaIm, conj, rowStart, rowEnd);
}

/** Rows of q a tile of cg_dia_direction_f64 forms before its direction step reads them back (8 KiB: in L1). */
const DIR_TILE: i32 = 1024;

// The SpMV and the direction step of an f64 CG iteration over a DIA matrix in one call, rows [start,
// end) of the square n×n A: q ← A·z + β·q (dia_f64's rows, α = 1), p ← z + β·p and the
// partial Σ pᵢ·qᵢ at `out`, tile by tile, so q's rows are read back from L1 and not from memory, and one
// pool call is made where there were two. Every value is the pair's bit for bit: the SpMV's rows do not
// depend on how they are split, and the direction step's accumulators carry across the tiles (whose
// starts are 4 rows apart from `start`), so Σ pᵢ·qᵢ is direction_f64's over [start, end).
// @ts-ignore: decorator
@inline function diaDirection<D>(offsets: usize, ndiag: i32, data: usize, pitch: i32, n: i32, z: usize, p: usize, q: usize, x: usize, alpha: f64, beta: f64, out: usize, start: i32, end: i32, withX: bool, scale: f64 = 1, scaled: bool = false, uni: usize = 0, consts: usize = 0, uniform: bool = false): void {
  let s: f64 = 0;
  // direction_f64's split: 4-row blocks from start in lanes, the last < 4 rows after the lanes are summed
  const blocks = ASC_FEATURE_SIMD ? end - ((end - start) & 3) : start;
  if (ASC_FEATURE_SIMD) {
    const b = f64x2.splat(beta);
    const a = f64x2.splat(alpha);
    const c = f64x2.splat(scale);
    let s0 = f64x2.splat(0), s1 = f64x2.splat(0);
    for (let t = start; t < end; t += DIR_TILE) {
      const e = min(end, t + DIR_TILE);
      diaReal<f64, D>(offsets, ndiag, data, pitch, n, z, q, 1.0, beta, t, e, scale, scaled, uni, consts, uniform);
      for (let i = t, be = min(e, blocks); i < be; i += 4) {
        const o = <usize>i << 3;
        const o0 = v128.load(p + o), o1 = v128.load(p + o, 16);
        if (withX) {
          v128.store(x + o, f64x2.add(v128.load(x + o), f64x2.mul(a, o0)));
          v128.store(x + o, f64x2.add(v128.load(x + o, 16), f64x2.mul(a, o1)), 16);
        }
        const p0 = f64x2.add(xs<f64>(v128.load(z + o), c, scaled), f64x2.mul(b, o0));
        const p1 = f64x2.add(xs<f64>(v128.load(z + o, 16), c, scaled), f64x2.mul(b, o1));
        v128.store(p + o, p0);
        v128.store(p + o, p1, 16);
        s0 = f64x2.add(s0, f64x2.mul(p0, v128.load(q + o)));
        s1 = f64x2.add(s1, f64x2.mul(p1, v128.load(q + o, 16)));
      }
    }
    const u = f64x2.add(s0, s1);
    s = f64x2.extract_lane(u, 0) + f64x2.extract_lane(u, 1);
  } else {
    for (let t = start; t < end; t += DIR_TILE) diaReal<f64, D>(offsets, ndiag, data, pitch, n, z, q, 1.0, beta, t, min(end, t + DIR_TILE), scale, scaled);
  }
  // the plain build's every row (q is then formed first, whole), the SIMD build's last < 4
  for (let i = blocks; i < end; i++) {
    const o = <usize>i << 3;
    if (withX) store<f64>(x + o, load<f64>(x + o) + alpha * load<f64>(p + o));
    const pi = xv<f64>(load<f64>(z + o), scale, scaled) + beta * load<f64>(p + o);
    store<f64>(p + o, pi);
    s += pi * load<f64>(q + o);
  }
  store<f64>(out, s);
}

export function cg_dia_direction_f64(offsets: usize, ndiag: i32, data: usize, pitch: i32, n: i32, z: usize, p: usize, q: usize, beta: f64, out: usize, start: i32, end: i32): void {
  diaDirection<f64>(offsets, ndiag, data, pitch, n, z, p, q, 0, 0, beta, out, start, end, false);
}

export function cg_dia_direction_f64f32(offsets: usize, ndiag: i32, data: usize, pitch: i32, n: i32, z: usize, p: usize, q: usize, beta: f64, out: usize, start: i32, end: i32): void {
  diaDirection<f32>(offsets, ndiag, data, pitch, n, z, p, q, 0, 0, beta, out, start, end, false);
}

// cg_dia_direction_f64 that first folds the previous step into x, x ← x + α·p with the p it is about
// to replace (what cg_update_jacobi_f64 did one call earlier, the same products): the update then
// reads neither x nor p (src/solvers/krylov/cg.ts, ops.cgDeferredX).
export function cg_dia_direction_x_f64(offsets: usize, ndiag: i32, data: usize, pitch: i32, n: i32, z: usize, p: usize, q: usize, x: usize, alpha: f64, beta: f64, out: usize, start: i32, end: i32): void {
  diaDirection<f64>(offsets, ndiag, data, pitch, n, z, p, q, x, alpha, beta, out, start, end, true);
}

// the two over compact storage (dia_f64f32's values): the same bits
export function cg_dia_direction_x_f64f32(offsets: usize, ndiag: i32, data: usize, pitch: i32, n: i32, z: usize, p: usize, q: usize, x: usize, alpha: f64, beta: f64, out: usize, start: i32, end: i32): void {
  diaDirection<f32>(offsets, ndiag, data, pitch, n, z, p, q, x, alpha, beta, out, start, end, true);
}

// the four with z = c·r read as r and scaled on the fly (xs): a uniform Jacobi step's z, whose update
// (cg_residual_jacobi_scalar_f64) then stores no z — the same bits, a vector's write less an iteration
export function cg_dia_direction_scaled_f64(offsets: usize, ndiag: i32, data: usize, pitch: i32, n: i32, r: usize, p: usize, q: usize, beta: f64, c: f64, out: usize, start: i32, end: i32): void {
  diaDirection<f64>(offsets, ndiag, data, pitch, n, r, p, q, 0, 0, beta, out, start, end, false, c, true);
}

export function cg_dia_direction_scaled_f64f32(offsets: usize, ndiag: i32, data: usize, pitch: i32, n: i32, r: usize, p: usize, q: usize, beta: f64, c: f64, out: usize, start: i32, end: i32): void {
  diaDirection<f32>(offsets, ndiag, data, pitch, n, r, p, q, 0, 0, beta, out, start, end, false, c, true);
}

export function cg_dia_direction_x_scaled_f64(offsets: usize, ndiag: i32, data: usize, pitch: i32, n: i32, r: usize, p: usize, q: usize, x: usize, alpha: f64, beta: f64, c: f64, out: usize, start: i32, end: i32): void {
  diaDirection<f64>(offsets, ndiag, data, pitch, n, r, p, q, x, alpha, beta, out, start, end, true, c, true);
}

export function cg_dia_direction_x_scaled_f64f32(offsets: usize, ndiag: i32, data: usize, pitch: i32, n: i32, r: usize, p: usize, q: usize, x: usize, alpha: f64, beta: f64, c: f64, out: usize, start: i32, end: i32): void {
  diaDirection<f32>(offsets, ndiag, data, pitch, n, r, p, q, x, alpha, beta, out, start, end, true, c, true);
}

// the four over compact storage with uniform blocks (src/cpu/spmv-plan.ts uniformGroups): `uni` a byte
// per 4-row group, 1 where every diagonal d holds consts[d] (f64) in its 4 rows — a constant-coefficient
// stencil's interior — whose blocks read those 8·ndiag bytes and not their slots: the same bits, a
// stencil's matrix bytes an iteration cut to its boundary blocks'
export function cg_dia_direction_f64f32u(offsets: usize, ndiag: i32, data: usize, pitch: i32, n: i32, z: usize, p: usize, q: usize, uni: usize, consts: usize, beta: f64, out: usize, start: i32, end: i32): void {
  diaDirection<f32>(offsets, ndiag, data, pitch, n, z, p, q, 0, 0, beta, out, start, end, false, 1, false, uni, consts, true);
}

export function cg_dia_direction_x_f64f32u(offsets: usize, ndiag: i32, data: usize, pitch: i32, n: i32, z: usize, p: usize, q: usize, uni: usize, consts: usize, x: usize, alpha: f64, beta: f64, out: usize, start: i32, end: i32): void {
  diaDirection<f32>(offsets, ndiag, data, pitch, n, z, p, q, x, alpha, beta, out, start, end, true, 1, false, uni, consts, true);
}

export function cg_dia_direction_scaled_f64f32u(offsets: usize, ndiag: i32, data: usize, pitch: i32, n: i32, r: usize, p: usize, q: usize, uni: usize, consts: usize, beta: f64, c: f64, out: usize, start: i32, end: i32): void {
  diaDirection<f32>(offsets, ndiag, data, pitch, n, r, p, q, 0, 0, beta, out, start, end, false, c, true, uni, consts, true);
}

export function cg_dia_direction_x_scaled_f64f32u(offsets: usize, ndiag: i32, data: usize, pitch: i32, n: i32, r: usize, p: usize, q: usize, uni: usize, consts: usize, x: usize, alpha: f64, beta: f64, c: f64, out: usize, start: i32, end: i32): void {
  diaDirection<f32>(offsets, ndiag, data, pitch, n, r, p, q, x, alpha, beta, out, start, end, true, c, true, uni, consts, true);
}
