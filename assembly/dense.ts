// Dense matrix kernels, row-major, over byte-offset pointers; the last two parameters are always a
// range of rows of the OUTPUT, so the pool gives each worker a contiguous row panel and threads write
// disjoint memory.
//
// gemm — C = α·A·B + β·C, A m×k (row stride lda), B k×n (ldb), C m×n (ldc), strides in elements.
//   BLAS convention: β == 0 → C is not read (NaN/garbage in C never leaks); α == 0 or k == 0 → A and B
//   are not read and C = β·C.
//   Blocking (SIMD build): the k dimension is cut in blocks of KC = 256 and the output rows of the panel
//   in blocks of MC = 64; inside, a register-tiled micro-kernel computes a 4 × NR block of C
//   (NR = 32 bytes of columns: 8 f32 = two f32x4, 4 f64 = two f64x2) in 8 v128 accumulators,
//   from a k-loop that per step loads one 32-byte row of the B micro-panel and splat-loads one value
//   of each of the 4 A rows (8 mul + 8 add per 6 loads). The KC × NR micro-panel of B (8 KiB) stays in
//   L1 while the micro-kernel sweeps the MC rows of the block; the MC × KC block of A (64 KiB f32)
//   stays in L2 while it sweeps the column strips. Per k-block, the first one writes C = α·acc + β·C,
//   the others add α·acc.
//   Two ways to feed B:
//   * gemm_packed_<dt> reads B packed by gemm_pack_<dt> into column strips of NR (strip s holds
//     B[p][s·NR .. s·NR+NR) for p = 0..k−1 contiguously, 32 bytes per p, the last strip zero-padded):
//     the micro-kernel streams its B panel sequentially, and the last, narrower strip runs the same
//     micro-kernel and stores only its valid columns. The packed buffer (k × ceil(n/NR) × 32 bytes) is
//     written once by the pool (range over k rows) and shared read-only by all workers — no per-thread
//     scratch needed.
//   * gemm_<dt> reads B in place (stride ldb): no scratch, same blocking; the n % NR leftover columns
//     run a scalar loop. Slower when ldb·size is a multiple of 4 KiB (the panel's rows alias in L1).
//   Plain build: an i-p-j loop (row of C += α·a[i][p] · row p of B), rows of C first scaled by β.
//   f32 kernels compute in f32 (α, β rounded to f32), f64 in f64. Summation order per element is fixed
//   for a given build and k, independent of the row range (threads do not change results).
//   c64 / c128 run the same drivers with 2-row complex tiles (see "complex" below) and take α, β as
//   (re, im) pairs; a 32-byte strip holds 4 c64 or 2 c128, packed by the same byte-moving routine.
// gemm_naive_<dt> — the textbook triple loop (i, j, then Σ over p down a column of B), the baseline.
// add_<dt> — C = α·A + β·B elementwise over rows [rowStart, rowEnd) of `cols` elements (contiguous rows,
//   i.e. ld = cols). β == 0 → B not read; α == 0 → A not read. C may alias A or B. Complex α, β for
//   c64 / c128 as (re, im) pairs.
// transpose_<dt> — B = Aᵀ with A rows × cols (row-major, ld = cols) and B cols × rows (ld = rows);
//   [rowStart, rowEnd) ranges over rows of B (= columns of A). One scheme for every element size
//   (4, 8, 16 bytes; c64 moves as one 8-byte unit, c128 as 16, no conjugation): tiles, and inside a
//   tile 4V rows × V columns of A (V = elements per v128) go through four V × V register blocks so that
//   each step writes whole 64-byte cache lines of B (see transposeLines).

import { cconstT1_128, cconstT1_64, cconstT2_128, cconstT2_64, cmulByConst128, cmulByConst64, swap_c128, swap_c64 } from './complex';

const KC: i32 = 256;
const MC: i32 = 64;
// Transpose tile: TR_A bytes of each A row (= rows of B) by TR_B bytes of each B row (= rows of A),
// for every element size (f32 256 × 128 elements, 8-byte 128 × 64, c128 64 × 32). See the README's
// transpose table for what the other schemes measured.
const TR_A: i32 = 1024;
const TR_B: i32 = 512;

// ------------------------------------------------------------------------------------------ helpers

// @ts-ignore: decorator
@inline function splatLoad<T>(p: usize): v128 {
  if (sizeof<T>() == 4) return v128.load32_splat(p);
  return v128.load64_splat(p);
}

/** Lane `l` (0 ≤ l < 2V) of the pair (v0, v1), for the partial stores of the last column strip. */
// @ts-ignore: decorator
@inline function laneOf<T>(v0: v128, v1: v128, l: i32): T {
  if (sizeof<T>() == 4) {
    switch (l) {
      case 0: return <T>f32x4.extract_lane(v0, 0);
      case 1: return <T>f32x4.extract_lane(v0, 1);
      case 2: return <T>f32x4.extract_lane(v0, 2);
      case 3: return <T>f32x4.extract_lane(v0, 3);
      case 4: return <T>f32x4.extract_lane(v1, 0);
      case 5: return <T>f32x4.extract_lane(v1, 1);
      case 6: return <T>f32x4.extract_lane(v1, 2);
      default: return <T>f32x4.extract_lane(v1, 3);
    }
  }
  switch (l) {
    case 0: return <T>f64x2.extract_lane(v0, 0);
    case 1: return <T>f64x2.extract_lane(v0, 1);
    case 2: return <T>f64x2.extract_lane(v1, 0);
    default: return <T>f64x2.extract_lane(v1, 1);
  }
}

/** One row of a C tile: c[0..nv) = α·acc (+ β·c when first, + c when not first). */
// @ts-ignore: decorator
@inline function storeRow<T>(c: usize, x0: v128, x1: v128, nv: i32, al: T, be: T, first: bool): void {
  const NR = <i32>(32 / sizeof<T>());
  if (nv == NR) {
    const av = v128.splat<T>(al);
    let v0 = v128.mul<T>(x0, av), v1 = v128.mul<T>(x1, av);
    if (!first) {
      v0 = v128.add<T>(v0, v128.load(c));
      v1 = v128.add<T>(v1, v128.load(c, 16));
    } else if (be != 0) {
      const bv = v128.splat<T>(be);
      v0 = v128.add<T>(v0, v128.mul<T>(v128.load(c), bv));
      v1 = v128.add<T>(v1, v128.mul<T>(v128.load(c, 16), bv));
    }
    v128.store(c, v0);
    v128.store(c, v1, 16);
    return;
  }
  for (let l = 0; l < nv; l++) {
    const p = c + (<usize>l << alignof<T>());
    const s = al * laneOf<T>(x0, x1, l);
    if (!first) store<T>(p, s + load<T>(p));
    else if (be != 0) store<T>(p, s + be * load<T>(p));
    else store<T>(p, s);
  }
}

/**
 * 4 × NR tile of C: Σ_{p<kc} A[r][p]·Bpanel[p][0..NR) for rows r = 0..3, then storeRow. `a` points at
 * A[i][pc], `b` at the panel's first row, `bs` = bytes between panel rows (32 packed, ldb·size in place).
 */
// @ts-ignore: decorator
@inline function tile4<T>(a: usize, ldaB: usize, b: usize, bs: usize, kc: i32, c: usize, ldcB: usize, nv: i32, al: T, be: T, first: bool): void {
  let x00 = v128.splat<T>(0), x01 = x00, x10 = x00, x11 = x00, x20 = x00, x21 = x00, x30 = x00, x31 = x00;
  const a1 = a + ldaB, a2 = a1 + ldaB, a3 = a2 + ldaB;
  const pe = <usize>kc << alignof<T>();
  for (let p: usize = 0; p < pe; p += sizeof<T>()) {
    const b0 = v128.load(b), b1 = v128.load(b, 16);
    let s = splatLoad<T>(a + p);
    x00 = v128.add<T>(x00, v128.mul<T>(s, b0));
    x01 = v128.add<T>(x01, v128.mul<T>(s, b1));
    s = splatLoad<T>(a1 + p);
    x10 = v128.add<T>(x10, v128.mul<T>(s, b0));
    x11 = v128.add<T>(x11, v128.mul<T>(s, b1));
    s = splatLoad<T>(a2 + p);
    x20 = v128.add<T>(x20, v128.mul<T>(s, b0));
    x21 = v128.add<T>(x21, v128.mul<T>(s, b1));
    s = splatLoad<T>(a3 + p);
    x30 = v128.add<T>(x30, v128.mul<T>(s, b0));
    x31 = v128.add<T>(x31, v128.mul<T>(s, b1));
    b += bs;
  }
  storeRow<T>(c, x00, x01, nv, al, be, first);
  storeRow<T>(c + ldcB, x10, x11, nv, al, be, first);
  storeRow<T>(c + 2 * ldcB, x20, x21, nv, al, be, first);
  storeRow<T>(c + 3 * ldcB, x30, x31, nv, al, be, first);
}

/** 1 × NR tile (leftover rows of a block). */
// @ts-ignore: decorator
@inline function tile1<T>(a: usize, b: usize, bs: usize, kc: i32, c: usize, nv: i32, al: T, be: T, first: bool): void {
  let x0 = v128.splat<T>(0), x1 = x0;
  const pe = <usize>kc << alignof<T>();
  for (let p: usize = 0; p < pe; p += sizeof<T>()) {
    const s = splatLoad<T>(a + p);
    x0 = v128.add<T>(x0, v128.mul<T>(s, v128.load(b)));
    x1 = v128.add<T>(x1, v128.mul<T>(s, v128.load(b, 16)));
    b += bs;
  }
  storeRow<T>(c, x0, x1, nv, al, be, first);
}

// ------------------------------------------------------------------------------------------ complex
// Complex gemm (c64: T = f32, c128: T = f64; elements are [re im] pairs of T). The micro-kernel keeps
// the real and the imaginary part of A apart: P = Σ a_re·b and Q = Σ a_im·b over the interleaved B
// row, so the k-loop has no shuffle at all; a·b = P + i·Q is formed once per tile (i·x = swap(x) ⊙
// [−1, 1]). Two rows of C per tile: 8 accumulators (P, Q × 2 rows × 2 v128), like the real 4-row tile.

/** swap(x) ⊙ [−1, 1, …]: i·x for interleaved complex lanes. */
// @ts-ignore: decorator
@inline function timesI<T>(x: v128): v128 {
  if (sizeof<T>() == 4) return f32x4.mul(swap_c64(x), f32x4(-1, 1, -1, 1));
  return f64x2.mul(swap_c128(x), f64x2(-1, 1));
}

/** t·x for a complex constant t = tr + i·ti over interleaved lanes. */
// @ts-ignore: decorator
@inline function cmulConst<T>(x: v128, tr: T, ti: T): v128 {
  if (sizeof<T>() == 4) return cmulByConst64(x, cconstT1_64(<f32>tr, 0), cconstT2_64(<f32>ti, 0));
  return cmulByConst128(x, cconstT1_128(<f64>tr, 0), cconstT2_128(<f64>ti, 0));
}

/** One complex element of C at q ← α·s + (first ? β·C : C), s = sr + i·si (first, β == 0: C not read). */
// @ts-ignore: decorator
@inline function cput<T>(q: usize, sr: T, si: T, ar: T, ai: T, br: T, bi: T, first: bool): void {
  const q1 = q + sizeof<T>();
  let re = ar * sr - ai * si, im = ar * si + ai * sr;
  if (!first) {
    re += load<T>(q);
    im += load<T>(q1);
  } else if (br != 0 || bi != 0) {
    const yr = load<T>(q), yi = load<T>(q1);
    re += br * yr - bi * yi;
    im += br * yi + bi * yr;
  }
  store<T>(q, re);
  store<T>(q1, im);
}

/** One row of a complex C tile from its P, Q accumulators (nv valid elements of the strip). */
// @ts-ignore: decorator
@inline function cstoreRow<T>(c: usize, p0: v128, p1: v128, q0: v128, q1: v128, nv: i32, ar: T, ai: T, br: T, bi: T, first: bool): void {
  const v0 = v128.add<T>(p0, timesI<T>(q0)), v1 = v128.add<T>(p1, timesI<T>(q1));
  if (nv == <i32>(16 / sizeof<T>())) {
    let w0 = cmulConst<T>(v0, ar, ai), w1 = cmulConst<T>(v1, ar, ai);
    if (!first) {
      w0 = v128.add<T>(w0, v128.load(c));
      w1 = v128.add<T>(w1, v128.load(c, 16));
    } else if (br != 0 || bi != 0) {
      w0 = v128.add<T>(w0, cmulConst<T>(v128.load(c), br, bi));
      w1 = v128.add<T>(w1, cmulConst<T>(v128.load(c, 16), br, bi));
    }
    v128.store(c, w0);
    v128.store(c, w1, 16);
    return;
  }
  for (let l = 0; l < nv; l++) cput<T>(c + (<usize>l << (alignof<T>() + 1)), laneOf<T>(v0, v1, 2 * l), laneOf<T>(v0, v1, 2 * l + 1), ar, ai, br, bi, first);
}

/** 2 × NR complex tile: `a` at A[i][pc], `b` at the panel's first row, `bs` bytes between panel rows. */
// @ts-ignore: decorator
@inline function ctile2<T>(a: usize, ldaB: usize, b: usize, bs: usize, kc: i32, c: usize, ldcB: usize, nv: i32, ar: T, ai: T, br: T, bi: T, first: bool): void {
  let p00 = v128.splat<T>(0), p01 = p00, q00 = p00, q01 = p00, p10 = p00, p11 = p00, q10 = p00, q11 = p00;
  const a1 = a + ldaB;
  const pe = <usize>kc << (alignof<T>() + 1);
  for (let p: usize = 0; p < pe; p += 2 * sizeof<T>()) {
    const b0 = v128.load(b), b1 = v128.load(b, 16);
    let s = splatLoad<T>(a + p);
    p00 = v128.add<T>(p00, v128.mul<T>(s, b0));
    p01 = v128.add<T>(p01, v128.mul<T>(s, b1));
    s = splatLoad<T>(a + p + sizeof<T>());
    q00 = v128.add<T>(q00, v128.mul<T>(s, b0));
    q01 = v128.add<T>(q01, v128.mul<T>(s, b1));
    s = splatLoad<T>(a1 + p);
    p10 = v128.add<T>(p10, v128.mul<T>(s, b0));
    p11 = v128.add<T>(p11, v128.mul<T>(s, b1));
    s = splatLoad<T>(a1 + p + sizeof<T>());
    q10 = v128.add<T>(q10, v128.mul<T>(s, b0));
    q11 = v128.add<T>(q11, v128.mul<T>(s, b1));
    b += bs;
  }
  cstoreRow<T>(c, p00, p01, q00, q01, nv, ar, ai, br, bi, first);
  cstoreRow<T>(c + ldcB, p10, p11, q10, q11, nv, ar, ai, br, bi, first);
}

/** 1 × NR complex tile (the leftover row of a block). */
// @ts-ignore: decorator
@inline function ctile1<T>(a: usize, b: usize, bs: usize, kc: i32, c: usize, nv: i32, ar: T, ai: T, br: T, bi: T, first: bool): void {
  let p0 = v128.splat<T>(0), p1 = p0, q0 = p0, q1 = p0;
  const pe = <usize>kc << (alignof<T>() + 1);
  for (let p: usize = 0; p < pe; p += 2 * sizeof<T>()) {
    const b0 = v128.load(b), b1 = v128.load(b, 16);
    let s = splatLoad<T>(a + p);
    p0 = v128.add<T>(p0, v128.mul<T>(s, b0));
    p1 = v128.add<T>(p1, v128.mul<T>(s, b1));
    s = splatLoad<T>(a + p + sizeof<T>());
    q0 = v128.add<T>(q0, v128.mul<T>(s, b0));
    q1 = v128.add<T>(q1, v128.mul<T>(s, b1));
    b += bs;
  }
  cstoreRow<T>(c, p0, p1, q0, q1, nv, ar, ai, br, bi, first);
}

// ------------------------------------------------------------------------------------------ gemm drivers
// One driver per way of feeding B, for real (cx = false: T is the element) and complex (cx = true: an
// element is two T) alike; the exported wrappers pass cx as a literal, so each build is specialised.
// Scalars arrive as (re, im) f64 pairs (the real kernels pass im = 0) and are rounded to T.

/** C rows [r0, r1) ← β·C (β == 0: zeros, C not read; β == 1: untouched). */
// @ts-ignore: decorator
@inline function scaleRows<T>(cx: bool, c: usize, n: i32, ldc: i32, br: T, bi: T, r0: i32, r1: i32): void {
  const SH = alignof<T>() + (cx ? 1 : 0);
  for (let i = r0; i < r1; i++) {
    const row = c + (<usize>i * <usize>ldc << SH);
    if (br == 0 && bi == 0) memory.fill(row, 0, <usize>n << SH);
    else if (br != 1 || bi != 0)
      for (let j = 0; j < n; j++) {
        const p = row + (<usize>j << SH);
        if (cx) cput<T>(p, load<T>(p), load<T>(p + sizeof<T>()), br, bi, 0, 0, true);
        else store<T>(p, br * load<T>(p));
      }
  }
}

/** Plain-build gemm: rows of C scaled by β, then C[i][:] += (α·A[i][p])·B[p][:] (i-p-j order). */
// @ts-ignore: decorator
@inline function gemmScalar<T>(cx: bool, a: usize, b: usize, c: usize, n: i32, k: i32, lda: i32, ldb: i32, ldc: i32, ar: T, ai: T, br: T, bi: T, r0: i32, r1: i32): void {
  const SH = alignof<T>() + (cx ? 1 : 0), O = sizeof<T>();
  scaleRows<T>(cx, c, n, ldc, br, bi, r0, r1);
  for (let i = r0; i < r1; i++) {
    const crow = c + (<usize>i * <usize>ldc << SH);
    const arow = a + (<usize>i * <usize>lda << SH);
    for (let p = 0; p < k; p++) {
      const ap = arow + (<usize>p << SH);
      const brow = b + (<usize>p * <usize>ldb << SH);
      if (cx) {
        const xr = load<T>(ap), xi = load<T>(ap + O);
        const tr = ar * xr - ai * xi, ti = ar * xi + ai * xr;
        for (let j = 0; j < n; j++) {
          const q = crow + (<usize>j << SH), bq = brow + (<usize>j << SH);
          const yr = load<T>(bq), yi = load<T>(bq + O);
          store<T>(q, load<T>(q) + (tr * yr - ti * yi));
          store<T>(q + O, load<T>(q + O) + (tr * yi + ti * yr));
        }
      } else {
        const t = ar * load<T>(ap);
        for (let j = 0; j < n; j++) {
          const q = crow + (<usize>j << SH);
          store<T>(q, load<T>(q) + t * load<T>(brow + (<usize>j << SH)));
        }
      }
    }
  }
}

/** Σ_p A[i][p]·B[p][j] for p < kc from `arow` (element stride 1) and `bq` (byte stride bs), into C at q. */
// @ts-ignore: decorator
@inline function dotPut<T>(cx: bool, arow: usize, bq: usize, bs: usize, kc: i32, q: usize, ar: T, ai: T, br: T, bi: T, first: bool): void {
  const SH = alignof<T>() + (cx ? 1 : 0), O = sizeof<T>();
  if (cx) {
    let sr: T = 0, si: T = 0;
    for (let p = 0; p < kc; p++) {
      const ap = arow + (<usize>p << SH);
      const xr = load<T>(ap), xi = load<T>(ap + O), yr = load<T>(bq), yi = load<T>(bq + O);
      sr += xr * yr - xi * yi;
      si += xr * yi + xi * yr;
      bq += bs;
    }
    cput<T>(q, sr, si, ar, ai, br, bi, first);
    return;
  }
  let s: T = 0;
  for (let p = 0; p < kc; p++) {
    s += load<T>(arow + (<usize>p << SH)) * load<T>(bq);
    bq += bs;
  }
  if (!first) store<T>(q, ar * s + load<T>(q));
  else if (br != 0) store<T>(q, ar * s + br * load<T>(q));
  else store<T>(q, ar * s);
}

/** The register tiles over rows [ic, ie) of one k-block and one strip of B (real 4-row, complex 2-row). */
// @ts-ignore: decorator
@inline function tiles<T>(cx: bool, a: usize, ldaB: usize, b: usize, bs: usize, kc: i32, c: usize, ldcB: usize, ic: i32, ie: i32, nv: i32, ar: T, ai: T, br: T, bi: T, first: bool): void {
  let i = ic;
  if (cx) {
    for (; i + 2 <= ie; i += 2) ctile2<T>(a + <usize>i * ldaB, ldaB, b, bs, kc, c + <usize>i * ldcB, ldcB, nv, ar, ai, br, bi, first);
    if (i < ie) ctile1<T>(a + <usize>i * ldaB, b, bs, kc, c + <usize>i * ldcB, nv, ar, ai, br, bi, first);
    return;
  }
  for (; i + 4 <= ie; i += 4) tile4<T>(a + <usize>i * ldaB, ldaB, b, bs, kc, c + <usize>i * ldcB, ldcB, nv, ar, br, first);
  for (; i < ie; i++) tile1<T>(a + <usize>i * ldaB, b, bs, kc, c + <usize>i * ldcB, nv, ar, br, first);
}

// @ts-ignore: decorator
@inline function gemmInPlace<T>(cx: bool, a: usize, b: usize, c: usize, m: i32, n: i32, k: i32, lda: i32, ldb: i32, ldc: i32, alphaRe: f64, alphaIm: f64, betaRe: f64, betaIm: f64, r0: i32, r1: i32): void {
  if (r1 > m) r1 = m;
  if (r0 >= r1 || n <= 0) return;
  const ar = <T>alphaRe, ai = <T>alphaIm, br = <T>betaRe, bi = <T>betaIm;
  if (k <= 0 || (ar == 0 && ai == 0)) {
    scaleRows<T>(cx, c, n, ldc, br, bi, r0, r1);
    return;
  }
  if (ASC_FEATURE_SIMD) {
    const SH = alignof<T>() + (cx ? 1 : 0);
    const NR = 32 >> <i32>SH;
    const ldaB = <usize>lda << SH, ldbB = <usize>ldb << SH, ldcB = <usize>ldc << SH;
    const nf = n - n % NR; // columns in full strips
    for (let pc = 0; pc < k; pc += KC) {
      const kc = min(KC, k - pc);
      const first = pc == 0;
      const ap = a + (<usize>pc << SH), bp = b + <usize>pc * ldbB;
      for (let ic = r0; ic < r1; ic += MC) {
        const ie = min(ic + MC, r1);
        for (let j = 0; j < nf; j += NR) tiles<T>(cx, ap, ldaB, bp + (<usize>j << SH), ldbB, kc, c + (<usize>j << SH), ldcB, ic, ie, NR, ar, ai, br, bi, first);
        // leftover columns: scalar dot products down the columns of B
        for (let i = ic; i < ie; i++)
          for (let j = nf; j < n; j++) dotPut<T>(cx, ap + <usize>i * ldaB, bp + (<usize>j << SH), ldbB, kc, c + <usize>i * ldcB + (<usize>j << SH), ar, ai, br, bi, first);
      }
    }
    return;
  }
  gemmScalar<T>(cx, a, b, c, n, k, lda, ldb, ldc, ar, ai, br, bi, r0, r1);
}

// @ts-ignore: decorator
@inline function gemmPacked<T>(cx: bool, a: usize, bp: usize, c: usize, m: i32, n: i32, k: i32, lda: i32, ldc: i32, alphaRe: f64, alphaIm: f64, betaRe: f64, betaIm: f64, r0: i32, r1: i32): void {
  if (r1 > m) r1 = m;
  if (r0 >= r1 || n <= 0) return;
  const ar = <T>alphaRe, ai = <T>alphaIm, br = <T>betaRe, bi = <T>betaIm;
  if (k <= 0 || (ar == 0 && ai == 0)) {
    scaleRows<T>(cx, c, n, ldc, br, bi, r0, r1);
    return;
  }
  const SH = alignof<T>() + (cx ? 1 : 0);
  const NR = 32 >> <i32>SH;
  const ldaB = <usize>lda << SH, ldcB = <usize>ldc << SH;
  const stripB = <usize>k << 5; // bytes per packed strip
  if (ASC_FEATURE_SIMD) {
    for (let pc = 0; pc < k; pc += KC) {
      const kc = min(KC, k - pc);
      const first = pc == 0;
      for (let ic = r0; ic < r1; ic += MC) {
        const ie = min(ic + MC, r1);
        for (let j = 0, s = 0; j < n; j += NR, s++) {
          tiles<T>(cx, a + (<usize>pc << SH), ldaB, bp + <usize>s * stripB + (<usize>pc << 5), 32, kc, c + (<usize>j << SH), ldcB, ic, ie, min(NR, n - j), ar, ai, br, bi, first);
        }
      }
    }
    return;
  }
  // plain build: straightforward dot products over the packed strips
  for (let i = r0; i < r1; i++)
    for (let j = 0; j < n; j++) {
      const q = bp + <usize>(j / NR) * stripB + (<usize>(j % NR) << SH);
      dotPut<T>(cx, a + <usize>i * ldaB, q, 32, k, c + <usize>i * ldcB + (<usize>j << SH), ar, ai, br, bi, true);
    }
}

/**
 * Packs rows [p0, p1) of B (k × n elements of 1 << sh bytes, stride ldb) into 32-byte column strips
 * (see the header), zero-padded. Pure byte moves, so one routine serves every dtype.
 */
// @ts-ignore: decorator
@inline function gemmPack(sh: i32, b: usize, bp: usize, n: i32, k: i32, ldb: i32, p0: i32, p1: i32): void {
  if (p1 > k) p1 = k;
  const NR = 32 >> sh;
  const stripB = <usize>k << 5;
  const nf = n - n % NR;
  for (let p = p0; p < p1; p++) {
    const brow = b + (<usize>p * <usize>ldb << sh);
    let dst = bp + (<usize>p << 5);
    let j = 0;
    if (ASC_FEATURE_SIMD) {
      for (; j < nf; j += NR) {
        const src = brow + (<usize>j << sh);
        v128.store(dst, v128.load(src));
        v128.store(dst, v128.load(src, 16), 16);
        dst += stripB;
      }
    } else {
      for (; j < nf; j += NR) {
        const src = brow + (<usize>j << sh);
        store<u64>(dst, load<u64>(src));
        store<u64>(dst, load<u64>(src, 8), 8);
        store<u64>(dst, load<u64>(src, 16), 16);
        store<u64>(dst, load<u64>(src, 24), 24);
        dst += stripB;
      }
    }
    if (j < n) {
      memory.fill(dst, 0, 32);
      memory.copy(dst, brow + (<usize>j << sh), <usize>(n - j) << sh);
    }
  }
}

// @ts-ignore: decorator
@inline function gemmNaive<T>(cx: bool, a: usize, b: usize, c: usize, m: i32, n: i32, k: i32, lda: i32, ldb: i32, ldc: i32, alphaRe: f64, alphaIm: f64, betaRe: f64, betaIm: f64, r0: i32, r1: i32): void {
  if (r1 > m) r1 = m;
  const ar = <T>alphaRe, ai = <T>alphaIm, br = <T>betaRe, bi = <T>betaIm;
  if (k <= 0 || (ar == 0 && ai == 0)) {
    scaleRows<T>(cx, c, n, ldc, br, bi, r0, r1);
    return;
  }
  const SH = alignof<T>() + (cx ? 1 : 0);
  for (let i = r0; i < r1; i++)
    for (let j = 0; j < n; j++) {
      dotPut<T>(cx, a + (<usize>i * <usize>lda << SH), b + (<usize>j << SH), <usize>ldb << SH, k, c + (<usize>(i * ldc + j) << SH), ar, ai, br, bi, true);
    }
}

export function gemm_f32(a: usize, b: usize, c: usize, m: i32, n: i32, k: i32, lda: i32, ldb: i32, ldc: i32, alpha: f64, beta: f64, rowStart: i32, rowEnd: i32): void {
  gemmInPlace<f32>(false, a, b, c, m, n, k, lda, ldb, ldc, alpha, 0, beta, 0, rowStart, rowEnd);
}
export function gemm_f64(a: usize, b: usize, c: usize, m: i32, n: i32, k: i32, lda: i32, ldb: i32, ldc: i32, alpha: f64, beta: f64, rowStart: i32, rowEnd: i32): void {
  gemmInPlace<f64>(false, a, b, c, m, n, k, lda, ldb, ldc, alpha, 0, beta, 0, rowStart, rowEnd);
}
export function gemm_c64(a: usize, b: usize, c: usize, m: i32, n: i32, k: i32, lda: i32, ldb: i32, ldc: i32, alphaRe: f64, alphaIm: f64, betaRe: f64, betaIm: f64, rowStart: i32, rowEnd: i32): void {
  gemmInPlace<f32>(true, a, b, c, m, n, k, lda, ldb, ldc, alphaRe, alphaIm, betaRe, betaIm, rowStart, rowEnd);
}
export function gemm_c128(a: usize, b: usize, c: usize, m: i32, n: i32, k: i32, lda: i32, ldb: i32, ldc: i32, alphaRe: f64, alphaIm: f64, betaRe: f64, betaIm: f64, rowStart: i32, rowEnd: i32): void {
  gemmInPlace<f64>(true, a, b, c, m, n, k, lda, ldb, ldc, alphaRe, alphaIm, betaRe, betaIm, rowStart, rowEnd);
}
export function gemm_pack_f32(b: usize, bp: usize, n: i32, k: i32, ldb: i32, pStart: i32, pEnd: i32): void {
  gemmPack(2, b, bp, n, k, ldb, pStart, pEnd);
}
export function gemm_pack_f64(b: usize, bp: usize, n: i32, k: i32, ldb: i32, pStart: i32, pEnd: i32): void {
  gemmPack(3, b, bp, n, k, ldb, pStart, pEnd);
}
export function gemm_pack_c64(b: usize, bp: usize, n: i32, k: i32, ldb: i32, pStart: i32, pEnd: i32): void {
  gemmPack(3, b, bp, n, k, ldb, pStart, pEnd);
}
export function gemm_pack_c128(b: usize, bp: usize, n: i32, k: i32, ldb: i32, pStart: i32, pEnd: i32): void {
  gemmPack(4, b, bp, n, k, ldb, pStart, pEnd);
}
export function gemm_packed_f32(a: usize, bp: usize, c: usize, m: i32, n: i32, k: i32, lda: i32, ldc: i32, alpha: f64, beta: f64, rowStart: i32, rowEnd: i32): void {
  gemmPacked<f32>(false, a, bp, c, m, n, k, lda, ldc, alpha, 0, beta, 0, rowStart, rowEnd);
}
export function gemm_packed_f64(a: usize, bp: usize, c: usize, m: i32, n: i32, k: i32, lda: i32, ldc: i32, alpha: f64, beta: f64, rowStart: i32, rowEnd: i32): void {
  gemmPacked<f64>(false, a, bp, c, m, n, k, lda, ldc, alpha, 0, beta, 0, rowStart, rowEnd);
}
export function gemm_packed_c64(a: usize, bp: usize, c: usize, m: i32, n: i32, k: i32, lda: i32, ldc: i32, alphaRe: f64, alphaIm: f64, betaRe: f64, betaIm: f64, rowStart: i32, rowEnd: i32): void {
  gemmPacked<f32>(true, a, bp, c, m, n, k, lda, ldc, alphaRe, alphaIm, betaRe, betaIm, rowStart, rowEnd);
}
export function gemm_packed_c128(a: usize, bp: usize, c: usize, m: i32, n: i32, k: i32, lda: i32, ldc: i32, alphaRe: f64, alphaIm: f64, betaRe: f64, betaIm: f64, rowStart: i32, rowEnd: i32): void {
  gemmPacked<f64>(true, a, bp, c, m, n, k, lda, ldc, alphaRe, alphaIm, betaRe, betaIm, rowStart, rowEnd);
}
export function gemm_naive_f32(a: usize, b: usize, c: usize, m: i32, n: i32, k: i32, lda: i32, ldb: i32, ldc: i32, alpha: f64, beta: f64, rowStart: i32, rowEnd: i32): void {
  gemmNaive<f32>(false, a, b, c, m, n, k, lda, ldb, ldc, alpha, 0, beta, 0, rowStart, rowEnd);
}
export function gemm_naive_f64(a: usize, b: usize, c: usize, m: i32, n: i32, k: i32, lda: i32, ldb: i32, ldc: i32, alpha: f64, beta: f64, rowStart: i32, rowEnd: i32): void {
  gemmNaive<f64>(false, a, b, c, m, n, k, lda, ldb, ldc, alpha, 0, beta, 0, rowStart, rowEnd);
}
export function gemm_naive_c64(a: usize, b: usize, c: usize, m: i32, n: i32, k: i32, lda: i32, ldb: i32, ldc: i32, alphaRe: f64, alphaIm: f64, betaRe: f64, betaIm: f64, rowStart: i32, rowEnd: i32): void {
  gemmNaive<f32>(true, a, b, c, m, n, k, lda, ldb, ldc, alphaRe, alphaIm, betaRe, betaIm, rowStart, rowEnd);
}
export function gemm_naive_c128(a: usize, b: usize, c: usize, m: i32, n: i32, k: i32, lda: i32, ldb: i32, ldc: i32, alphaRe: f64, alphaIm: f64, betaRe: f64, betaIm: f64, rowStart: i32, rowEnd: i32): void {
  gemmNaive<f64>(true, a, b, c, m, n, k, lda, ldb, ldc, alphaRe, alphaIm, betaRe, betaIm, rowStart, rowEnd);
}

// ------------------------------------------------------------------------------------------ add

// @ts-ignore: decorator
@inline function addReal<T>(a: usize, b: usize, c: usize, cols: i32, alpha: f64, beta: f64, r0: i32, r1: i32): void {
  if (r0 >= r1) return;
  const al = <T>alpha, be = <T>beta;
  const SH = alignof<T>();
  let e = <usize>r0 * <usize>cols;
  const end = <usize>r1 * <usize>cols;
  if (al == 0 && be == 0) {
    memory.fill(c + (e << SH), 0, (end - e) << SH);
    return;
  }
  if (ASC_FEATURE_SIMD) {
    const V = <usize>(16 / sizeof<T>());
    const av = v128.splat<T>(al), bv = v128.splat<T>(be);
    for (; e + 2 * V <= end; e += 2 * V) {
      const o = e << SH;
      let v0: v128, v1: v128;
      if (be == 0) {
        v0 = v128.mul<T>(v128.load(a + o), av);
        v1 = v128.mul<T>(v128.load(a + o, 16), av);
      } else if (al == 0) {
        v0 = v128.mul<T>(v128.load(b + o), bv);
        v1 = v128.mul<T>(v128.load(b + o, 16), bv);
      } else {
        v0 = v128.add<T>(v128.mul<T>(v128.load(a + o), av), v128.mul<T>(v128.load(b + o), bv));
        v1 = v128.add<T>(v128.mul<T>(v128.load(a + o, 16), av), v128.mul<T>(v128.load(b + o, 16), bv));
      }
      v128.store(c + o, v0);
      v128.store(c + o, v1, 16);
    }
  }
  for (; e < end; e++) {
    const o = e << SH;
    let v: T;
    if (be == 0) v = al * load<T>(a + o);
    else if (al == 0) v = be * load<T>(b + o);
    else v = al * load<T>(a + o) + be * load<T>(b + o);
    store<T>(c + o, v);
  }
}

export function add_f32(a: usize, b: usize, c: usize, cols: i32, alpha: f64, beta: f64, rowStart: i32, rowEnd: i32): void {
  addReal<f32>(a, b, c, cols, alpha, beta, rowStart, rowEnd);
}
export function add_f64(a: usize, b: usize, c: usize, cols: i32, alpha: f64, beta: f64, rowStart: i32, rowEnd: i32): void {
  addReal<f64>(a, b, c, cols, alpha, beta, rowStart, rowEnd);
}

/**
 * Complex C = α·A + β·B with complex α, β, in T (c64: f32, c128: f64); β == 0 + 0i: B not read;
 * α == 0 + 0i: A not read.
 */
// @ts-ignore: decorator
@inline function addComplex<T>(a: usize, b: usize, c: usize, cols: i32, alphaRe: f64, alphaIm: f64, betaRe: f64, betaIm: f64, r0: i32, r1: i32): void {
  if (r0 >= r1) return;
  const ar = <T>alphaRe, ai = <T>alphaIm, br = <T>betaRe, bi = <T>betaIm;
  const useA = ar != 0 || ai != 0, useB = br != 0 || bi != 0;
  const SH = alignof<T>() + 1;
  let e = <usize>r0 * <usize>cols;
  const end = <usize>r1 * <usize>cols;
  if (!useA && !useB) {
    memory.fill(c + (e << SH), 0, (end - e) << SH);
    return;
  }
  if (ASC_FEATURE_SIMD) {
    const V = <usize>(8 / sizeof<T>()); // complex per v128
    for (; e + V <= end; e += V) {
      const o = e << SH;
      let v = v128.splat<T>(0);
      if (useA) v = cmulConst<T>(v128.load(a + o), ar, ai);
      if (useB) v = v128.add<T>(v, cmulConst<T>(v128.load(b + o), br, bi));
      v128.store(c + o, v);
    }
  }
  for (; e < end; e++) {
    const o = e << SH, O = sizeof<T>();
    let re: T = 0, im: T = 0;
    if (useA) {
      const xr = load<T>(a + o), xi = load<T>(a + o + O);
      re = ar * xr - ai * xi;
      im = ar * xi + ai * xr;
    }
    if (useB) {
      const yr = load<T>(b + o), yi = load<T>(b + o + O);
      re += br * yr - bi * yi;
      im += br * yi + bi * yr;
    }
    store<T>(c + o, re);
    store<T>(c + o + O, im);
  }
}

export function add_c64(a: usize, b: usize, c: usize, cols: i32, alphaRe: f64, alphaIm: f64, betaRe: f64, betaIm: f64, rowStart: i32, rowEnd: i32): void {
  addComplex<f32>(a, b, c, cols, alphaRe, alphaIm, betaRe, betaIm, rowStart, rowEnd);
}
export function add_c128(a: usize, b: usize, c: usize, cols: i32, alphaRe: f64, alphaIm: f64, betaRe: f64, betaIm: f64, rowStart: i32, rowEnd: i32): void {
  addComplex<f64>(a, b, c, cols, alphaRe, alphaIm, betaRe, betaIm, rowStart, rowEnd);
}

// ------------------------------------------------------------------------------------------ transpose

/** One element of 1 << sh bytes from s to d. */
// @ts-ignore: decorator
@inline function move(d: usize, s: usize, sh: i32): void {
  if (sh == 2) store<u32>(d, load<u32>(s));
  else {
    store<u64>(d, load<u64>(s));
    if (sh == 4) store<u64>(d, load<u64>(s, 8), 8);
  }
}

/**
 * The V × V block (V = 16 bytes / element: one v128 per row) of A at s → its transpose at d. SIMD: in
 * registers (f32: 4 row loads → 8 shuffles → 4 stores; 8-byte: 2 × 2 of 64-bit lanes; 16-byte: a move).
 */
// @ts-ignore: decorator
@inline function tblock(s: usize, ldaB: usize, d: usize, ldbB: usize, sh: i32): void {
  if (ASC_FEATURE_SIMD) {
    if (sh == 2) {
      const r0 = v128.load(s), r1 = v128.load(s + ldaB), r2 = v128.load(s + 2 * ldaB), r3 = v128.load(s + 3 * ldaB);
      const t0 = f32x4.shuffle(r0, r1, 0, 4, 1, 5), t1 = f32x4.shuffle(r0, r1, 2, 6, 3, 7);
      const t2 = f32x4.shuffle(r2, r3, 0, 4, 1, 5), t3 = f32x4.shuffle(r2, r3, 2, 6, 3, 7);
      v128.store(d, f32x4.shuffle(t0, t2, 0, 1, 4, 5));
      v128.store(d + ldbB, f32x4.shuffle(t0, t2, 2, 3, 6, 7));
      v128.store(d + 2 * ldbB, f32x4.shuffle(t1, t3, 0, 1, 4, 5));
      v128.store(d + 3 * ldbB, f32x4.shuffle(t1, t3, 2, 3, 6, 7));
    } else if (sh == 3) {
      const r0 = v128.load(s), r1 = v128.load(s + ldaB);
      v128.store(d, i64x2.shuffle(r0, r1, 0, 2));
      v128.store(d + ldbB, i64x2.shuffle(r0, r1, 1, 3));
    } else v128.store(d, v128.load(s));
    return;
  }
  const V = 16 >> sh;
  for (let r = 0; r < V; r++) for (let c = 0; c < V; c++) move(d + <usize>c * ldbB + (<usize>r << sh), s + <usize>r * ldaB + (<usize>c << sh), sh);
}

/**
 * B = Aᵀ for elements of 1 << sh bytes, rows [r0, r1) of B. Tiles of TR_A bytes of an A row by TR_B
 * bytes of a B row; inside a tile, 4V rows of A at a time (V = 16 >> sh) move as four stacked blocks,
 * so every step writes one whole 64-byte cache line into each of V rows of B (and reads V columns of
 * 4V rows of A). Leftover rows (< 4V) run blocks, then elements; leftover columns (< V) elements.
 */
// @ts-ignore: decorator
@inline function transposeLines(a: usize, b: usize, rows: i32, cols: i32, r0: i32, r1: i32, sh: i32): void {
  if (r1 > cols) r1 = cols;
  if (r0 >= r1 || rows <= 0) return;
  const V = 16 >> sh, H = 4 * V;
  const TJ = TR_A >> sh, TI = TR_B >> sh;
  const ldaB = <usize>cols << sh, ldbB = <usize>rows << sh;
  for (let jt = r0; jt < r1; jt += TJ) {
    const je = min(jt + TJ, r1);
    const jv = je - (je - jt) % V; // end of the full V-column blocks
    for (let it = 0; it < rows; it += TI) {
      const ie = min(it + TI, rows);
      let i = it;
      for (; i + H <= ie; i += H) {
        for (let j = jt; j < jv; j += V) {
          const s = a + <usize>i * ldaB + (<usize>j << sh), d = b + <usize>j * ldbB + (<usize>i << sh);
          tblock(s, ldaB, d, ldbB, sh);
          tblock(s + <usize>V * ldaB, ldaB, d + 16, ldbB, sh);
          tblock(s + <usize>(2 * V) * ldaB, ldaB, d + 32, ldbB, sh);
          tblock(s + <usize>(3 * V) * ldaB, ldaB, d + 48, ldbB, sh);
        }
      }
      for (; i + V <= ie; i += V) {
        for (let j = jt; j < jv; j += V) tblock(a + <usize>i * ldaB + (<usize>j << sh), ldaB, b + <usize>j * ldbB + (<usize>i << sh), ldbB, sh);
      }
      for (; i < ie; i++) {
        for (let j = jt; j < jv; j++) move(b + <usize>j * ldbB + (<usize>i << sh), a + <usize>i * ldaB + (<usize>j << sh), sh);
      }
      for (let j = jv; j < je; j++) {
        for (i = it; i < ie; i++) move(b + <usize>j * ldbB + (<usize>i << sh), a + <usize>i * ldaB + (<usize>j << sh), sh);
      }
    }
  }
}

export function transpose_f32(a: usize, b: usize, rows: i32, cols: i32, rowStart: i32, rowEnd: i32): void {
  transposeLines(a, b, rows, cols, rowStart, rowEnd, 2);
}
export function transpose_f64(a: usize, b: usize, rows: i32, cols: i32, rowStart: i32, rowEnd: i32): void {
  transposeLines(a, b, rows, cols, rowStart, rowEnd, 3);
}
export function transpose_c64(a: usize, b: usize, rows: i32, cols: i32, rowStart: i32, rowEnd: i32): void {
  transposeLines(a, b, rows, cols, rowStart, rowEnd, 3);
}
export function transpose_c128(a: usize, b: usize, rows: i32, cols: i32, rowStart: i32, rowEnd: i32): void {
  transposeLines(a, b, rows, cols, rowStart, rowEnd, 4);
}
