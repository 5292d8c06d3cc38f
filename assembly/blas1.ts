// BLAS-1 kernels (and the elementwise product xmy) over element ranges [start, end) (elements, not bytes; complex: complex elements).
// scal: y = β·y; β == 0 fills zeros (BLAS convention: NaN/Inf already in y do not survive), β == 1 is a
// no-op. Ranges start anywhere, so v128 accesses are unaligned.
import {
  cconstT1_64, cconstT2_64, cmulByConst64, cconstT1_128, cconstT2_128, cmulByConst128, hsum_f64x2, swap_c128, cdotFinish128,
  cmul64, cmul128,
} from './complex';

export function scal_f32(y: usize, beta: f64, start: i32, end: i32): void {
  if (start >= end) return;
  const b = <f32>beta;
  if (b == 1) return;
  if (b == 0) {
    memory.fill(y + (<usize>start << 2), 0, <usize>(end - start) << 2);
    return;
  }
  let i = start;
  if (ASC_FEATURE_SIMD) {
    const bv = f32x4.splat(b);
    for (; i + 8 <= end; i += 8) {
      const p = y + (<usize>i << 2);
      v128.store(p, f32x4.mul(v128.load(p), bv));
      v128.store(p, f32x4.mul(v128.load(p, 16), bv), 16);
    }
  }
  for (; i < end; i++) {
    const p = y + (<usize>i << 2);
    store<f32>(p, load<f32>(p) * b);
  }
}

export function scal_f64(y: usize, beta: f64, start: i32, end: i32): void {
  if (start >= end || beta == 1) return;
  if (beta == 0) {
    memory.fill(y + (<usize>start << 3), 0, <usize>(end - start) << 3);
    return;
  }
  let i = start;
  if (ASC_FEATURE_SIMD) {
    const bv = f64x2.splat(beta);
    for (; i + 4 <= end; i += 4) {
      const p = y + (<usize>i << 3);
      v128.store(p, f64x2.mul(v128.load(p), bv));
      v128.store(p, f64x2.mul(v128.load(p, 16), bv), 16);
    }
  }
  for (; i < end; i++) {
    const p = y + (<usize>i << 3);
    store<f64>(p, load<f64>(p) * beta);
  }
}

export function scal_c64(y: usize, betaRe: f64, betaIm: f64, start: i32, end: i32): void {
  if (start >= end) return;
  const br = <f32>betaRe, bi = <f32>betaIm;
  if (br == 1 && bi == 0) return;
  if (br == 0 && bi == 0) {
    memory.fill(y + (<usize>start << 3), 0, <usize>(end - start) << 3);
    return;
  }
  let i = start;
  if (ASC_FEATURE_SIMD) {
    const T1 = cconstT1_64(br, 0), T2 = cconstT2_64(bi, 0);
    for (; i + 2 <= end; i += 2) {
      const p = y + (<usize>i << 3);
      v128.store(p, cmulByConst64(v128.load(p), T1, T2));
    }
  }
  for (; i < end; i++) {
    const p = y + (<usize>i << 3);
    const yr = load<f32>(p), yi = load<f32>(p, 4);
    store<f32>(p, br * yr - bi * yi);
    store<f32>(p, br * yi + bi * yr, 4);
  }
}

export function scal_c128(y: usize, betaRe: f64, betaIm: f64, start: i32, end: i32): void {
  if (start >= end || (betaRe == 1 && betaIm == 0)) return;
  if (betaRe == 0 && betaIm == 0) {
    memory.fill(y + (<usize>start << 4), 0, <usize>(end - start) << 4);
    return;
  }
  let i = start;
  if (ASC_FEATURE_SIMD) {
    const T1 = cconstT1_128(betaRe, 0), T2 = cconstT2_128(betaIm, 0);
    for (; i < end; i++) {
      const p = y + (<usize>i << 4);
      v128.store(p, cmulByConst128(v128.load(p), T1, T2));
    }
  }
  for (; i < end; i++) {
    const p = y + (<usize>i << 4);
    const yr = load<f64>(p), yi = load<f64>(p, 8);
    store<f64>(p, betaRe * yr - betaIm * yi);
    store<f64>(p, betaRe * yi + betaIm * yr, 8);
  }
}

// ================================================================ axpy / aypx / copy / dot / nrm2
// All over the element range [start, end) (complex: complex elements), ranges start anywhere so v128
// accesses are unaligned. x and y may be the same array (each element is read before it is written)
// but must not otherwise overlap.
//
// axpy / aypx / copy are elementwise: the SIMD and the plain build round exactly alike (same
// operations per element, no FMA), so both builds give bitwise the same y. The SIMD loops load all
// operands of one step (4 v128 per array) before storing, to keep several loads in flight.
//
// dot / nrm2 are reductions with a FIXED summation order for a given range, independent of the
// build: 8 partial sums over the element offsets (i − start) mod 8 (SIMD: 4 f64x2 accumulators
// a0..a3 holding offsets 0,1 | 2,3 | 4,5 | 6,7; plain: 8 scalars with the same layout), combined as
// ((s0+s2)+(s4+s6)) + ((s1+s3)+(s5+s7)) (= hsum((a0+a1)+(a2+a3))), then the < 8 leftover elements
// added one by one in order. So the SIMD and plain builds give bitwise identical results, and the
// result depends only on the values and the range (not on alignment, timing or the worker count of
// the caller, whose chunking fixes the ranges). All accumulation is in f64: f32/c64 products and
// squares of f32 are EXACT in f64 (24+24 < 53 bits), so f32 inputs get an f64-accurate dot at no cost
// — these kernels are memory-bound, the promotion is free.

// ---------------------------------------------------------------- axpy: y ← α·x + y
// α == 0 (complex: 0 + 0i) returns without touching y (reference BLAS ?axpy; NaN/Inf in x do not
// reach y). f32/c64 round α to f32 and compute in f32.

export function axpy_f32(x: usize, y: usize, alpha: f64, start: i32, end: i32): void {
  const a = <f32>alpha;
  if (start >= end || a == 0) return;
  let i = start;
  if (ASC_FEATURE_SIMD) {
    const av = f32x4.splat(a);
    for (; i + 16 <= end; i += 16) {
      const px = x + (<usize>i << 2), py = y + (<usize>i << 2);
      const x0 = v128.load(px), x1 = v128.load(px, 16), x2 = v128.load(px, 32), x3 = v128.load(px, 48);
      const y0 = v128.load(py), y1 = v128.load(py, 16), y2 = v128.load(py, 32), y3 = v128.load(py, 48);
      v128.store(py, f32x4.add(f32x4.mul(x0, av), y0));
      v128.store(py, f32x4.add(f32x4.mul(x1, av), y1), 16);
      v128.store(py, f32x4.add(f32x4.mul(x2, av), y2), 32);
      v128.store(py, f32x4.add(f32x4.mul(x3, av), y3), 48);
    }
    for (; i + 4 <= end; i += 4) {
      const px = x + (<usize>i << 2), py = y + (<usize>i << 2);
      v128.store(py, f32x4.add(f32x4.mul(v128.load(px), av), v128.load(py)));
    }
  }
  for (; i < end; i++) {
    const py = y + (<usize>i << 2);
    store<f32>(py, load<f32>(x + (<usize>i << 2)) * a + load<f32>(py));
  }
}

export function axpy_f64(x: usize, y: usize, alpha: f64, start: i32, end: i32): void {
  if (start >= end || alpha == 0) return;
  let i = start;
  if (ASC_FEATURE_SIMD) {
    const av = f64x2.splat(alpha);
    for (; i + 8 <= end; i += 8) {
      const px = x + (<usize>i << 3), py = y + (<usize>i << 3);
      const x0 = v128.load(px), x1 = v128.load(px, 16), x2 = v128.load(px, 32), x3 = v128.load(px, 48);
      const y0 = v128.load(py), y1 = v128.load(py, 16), y2 = v128.load(py, 32), y3 = v128.load(py, 48);
      v128.store(py, f64x2.add(f64x2.mul(x0, av), y0));
      v128.store(py, f64x2.add(f64x2.mul(x1, av), y1), 16);
      v128.store(py, f64x2.add(f64x2.mul(x2, av), y2), 32);
      v128.store(py, f64x2.add(f64x2.mul(x3, av), y3), 48);
    }
    for (; i + 2 <= end; i += 2) {
      const px = x + (<usize>i << 3), py = y + (<usize>i << 3);
      v128.store(py, f64x2.add(f64x2.mul(v128.load(px), av), v128.load(py)));
    }
  }
  for (; i < end; i++) {
    const py = y + (<usize>i << 3);
    store<f64>(py, load<f64>(x + (<usize>i << 3)) * alpha + load<f64>(py));
  }
}

/** c64: α·x as x ⊙ [αr αr] + swap(x) ⊙ [−αi αi] (cmulByConst64), two complex per v128. */
export function axpy_c64(x: usize, y: usize, alphaRe: f64, alphaIm: f64, start: i32, end: i32): void {
  const ar = <f32>alphaRe, ai = <f32>alphaIm;
  if (start >= end || (ar == 0 && ai == 0)) return;
  let i = start;
  if (ASC_FEATURE_SIMD) {
    const T1 = cconstT1_64(ar, 0), T2 = cconstT2_64(ai, 0);
    for (; i + 8 <= end; i += 8) {
      const px = x + (<usize>i << 3), py = y + (<usize>i << 3);
      const x0 = v128.load(px), x1 = v128.load(px, 16), x2 = v128.load(px, 32), x3 = v128.load(px, 48);
      const y0 = v128.load(py), y1 = v128.load(py, 16), y2 = v128.load(py, 32), y3 = v128.load(py, 48);
      v128.store(py, f32x4.add(cmulByConst64(x0, T1, T2), y0));
      v128.store(py, f32x4.add(cmulByConst64(x1, T1, T2), y1), 16);
      v128.store(py, f32x4.add(cmulByConst64(x2, T1, T2), y2), 32);
      v128.store(py, f32x4.add(cmulByConst64(x3, T1, T2), y3), 48);
    }
    for (; i + 2 <= end; i += 2) {
      const px = x + (<usize>i << 3), py = y + (<usize>i << 3);
      v128.store(py, f32x4.add(cmulByConst64(v128.load(px), T1, T2), v128.load(py)));
    }
  }
  for (; i < end; i++) {
    const px = x + (<usize>i << 3), py = y + (<usize>i << 3);
    const xr = load<f32>(px), xi = load<f32>(px, 4);
    store<f32>(py, (ar * xr - ai * xi) + load<f32>(py));
    store<f32>(py, (ar * xi + ai * xr) + load<f32>(py, 4), 4);
  }
}

export function axpy_c128(x: usize, y: usize, alphaRe: f64, alphaIm: f64, start: i32, end: i32): void {
  if (start >= end || (alphaRe == 0 && alphaIm == 0)) return;
  const ar = alphaRe, ai = alphaIm;
  let i = start;
  if (ASC_FEATURE_SIMD) {
    const T1 = cconstT1_128(ar, 0), T2 = cconstT2_128(ai, 0);
    for (; i + 4 <= end; i += 4) {
      const px = x + (<usize>i << 4), py = y + (<usize>i << 4);
      const x0 = v128.load(px), x1 = v128.load(px, 16), x2 = v128.load(px, 32), x3 = v128.load(px, 48);
      const y0 = v128.load(py), y1 = v128.load(py, 16), y2 = v128.load(py, 32), y3 = v128.load(py, 48);
      v128.store(py, f64x2.add(cmulByConst128(x0, T1, T2), y0));
      v128.store(py, f64x2.add(cmulByConst128(x1, T1, T2), y1), 16);
      v128.store(py, f64x2.add(cmulByConst128(x2, T1, T2), y2), 32);
      v128.store(py, f64x2.add(cmulByConst128(x3, T1, T2), y3), 48);
    }
    for (; i < end; i++) {
      const py = y + (<usize>i << 4);
      v128.store(py, f64x2.add(cmulByConst128(v128.load(x + (<usize>i << 4)), T1, T2), v128.load(py)));
    }
  }
  for (; i < end; i++) {
    const px = x + (<usize>i << 4), py = y + (<usize>i << 4);
    const xr = load<f64>(px), xi = load<f64>(px, 8);
    store<f64>(py, (ar * xr - ai * xi) + load<f64>(py));
    store<f64>(py, (ar * xi + ai * xr) + load<f64>(py, 8), 8);
  }
}

// ---------------------------------------------------------------- aypx: y ← α·y + x
// α == 0 (complex: 0 + 0i) copies x into y without reading y (BLAS β == 0 convention: NaN/Inf in y do
// not survive). f32/c64 round α to f32 and compute in f32.

export function aypx_f32(x: usize, y: usize, alpha: f64, start: i32, end: i32): void {
  const a = <f32>alpha;
  if (start >= end) return;
  if (a == 0) {
    copy_f32(x, y, start, end);
    return;
  }
  let i = start;
  if (ASC_FEATURE_SIMD) {
    const av = f32x4.splat(a);
    for (; i + 16 <= end; i += 16) {
      const px = x + (<usize>i << 2), py = y + (<usize>i << 2);
      const x0 = v128.load(px), x1 = v128.load(px, 16), x2 = v128.load(px, 32), x3 = v128.load(px, 48);
      const y0 = v128.load(py), y1 = v128.load(py, 16), y2 = v128.load(py, 32), y3 = v128.load(py, 48);
      v128.store(py, f32x4.add(f32x4.mul(y0, av), x0));
      v128.store(py, f32x4.add(f32x4.mul(y1, av), x1), 16);
      v128.store(py, f32x4.add(f32x4.mul(y2, av), x2), 32);
      v128.store(py, f32x4.add(f32x4.mul(y3, av), x3), 48);
    }
    for (; i + 4 <= end; i += 4) {
      const px = x + (<usize>i << 2), py = y + (<usize>i << 2);
      v128.store(py, f32x4.add(f32x4.mul(v128.load(py), av), v128.load(px)));
    }
  }
  for (; i < end; i++) {
    const py = y + (<usize>i << 2);
    store<f32>(py, load<f32>(py) * a + load<f32>(x + (<usize>i << 2)));
  }
}

export function aypx_f64(x: usize, y: usize, alpha: f64, start: i32, end: i32): void {
  if (start >= end) return;
  if (alpha == 0) {
    copy_f64(x, y, start, end);
    return;
  }
  let i = start;
  if (ASC_FEATURE_SIMD) {
    const av = f64x2.splat(alpha);
    for (; i + 8 <= end; i += 8) {
      const px = x + (<usize>i << 3), py = y + (<usize>i << 3);
      const x0 = v128.load(px), x1 = v128.load(px, 16), x2 = v128.load(px, 32), x3 = v128.load(px, 48);
      const y0 = v128.load(py), y1 = v128.load(py, 16), y2 = v128.load(py, 32), y3 = v128.load(py, 48);
      v128.store(py, f64x2.add(f64x2.mul(y0, av), x0));
      v128.store(py, f64x2.add(f64x2.mul(y1, av), x1), 16);
      v128.store(py, f64x2.add(f64x2.mul(y2, av), x2), 32);
      v128.store(py, f64x2.add(f64x2.mul(y3, av), x3), 48);
    }
    for (; i + 2 <= end; i += 2) {
      const px = x + (<usize>i << 3), py = y + (<usize>i << 3);
      v128.store(py, f64x2.add(f64x2.mul(v128.load(py), av), v128.load(px)));
    }
  }
  for (; i < end; i++) {
    const py = y + (<usize>i << 3);
    store<f64>(py, load<f64>(py) * alpha + load<f64>(x + (<usize>i << 3)));
  }
}

export function aypx_c64(x: usize, y: usize, alphaRe: f64, alphaIm: f64, start: i32, end: i32): void {
  const ar = <f32>alphaRe, ai = <f32>alphaIm;
  if (start >= end) return;
  if (ar == 0 && ai == 0) {
    copy_c64(x, y, start, end);
    return;
  }
  let i = start;
  if (ASC_FEATURE_SIMD) {
    const T1 = cconstT1_64(ar, 0), T2 = cconstT2_64(ai, 0);
    for (; i + 8 <= end; i += 8) {
      const px = x + (<usize>i << 3), py = y + (<usize>i << 3);
      const x0 = v128.load(px), x1 = v128.load(px, 16), x2 = v128.load(px, 32), x3 = v128.load(px, 48);
      const y0 = v128.load(py), y1 = v128.load(py, 16), y2 = v128.load(py, 32), y3 = v128.load(py, 48);
      v128.store(py, f32x4.add(cmulByConst64(y0, T1, T2), x0));
      v128.store(py, f32x4.add(cmulByConst64(y1, T1, T2), x1), 16);
      v128.store(py, f32x4.add(cmulByConst64(y2, T1, T2), x2), 32);
      v128.store(py, f32x4.add(cmulByConst64(y3, T1, T2), x3), 48);
    }
    for (; i + 2 <= end; i += 2) {
      const px = x + (<usize>i << 3), py = y + (<usize>i << 3);
      v128.store(py, f32x4.add(cmulByConst64(v128.load(py), T1, T2), v128.load(px)));
    }
  }
  for (; i < end; i++) {
    const px = x + (<usize>i << 3), py = y + (<usize>i << 3);
    const yr = load<f32>(py), yi = load<f32>(py, 4);
    store<f32>(py, (ar * yr - ai * yi) + load<f32>(px));
    store<f32>(py, (ar * yi + ai * yr) + load<f32>(px, 4), 4);
  }
}

export function aypx_c128(x: usize, y: usize, alphaRe: f64, alphaIm: f64, start: i32, end: i32): void {
  if (start >= end) return;
  const ar = alphaRe, ai = alphaIm;
  if (ar == 0 && ai == 0) {
    copy_c128(x, y, start, end);
    return;
  }
  let i = start;
  if (ASC_FEATURE_SIMD) {
    const T1 = cconstT1_128(ar, 0), T2 = cconstT2_128(ai, 0);
    for (; i + 4 <= end; i += 4) {
      const px = x + (<usize>i << 4), py = y + (<usize>i << 4);
      const x0 = v128.load(px), x1 = v128.load(px, 16), x2 = v128.load(px, 32), x3 = v128.load(px, 48);
      const y0 = v128.load(py), y1 = v128.load(py, 16), y2 = v128.load(py, 32), y3 = v128.load(py, 48);
      v128.store(py, f64x2.add(cmulByConst128(y0, T1, T2), x0));
      v128.store(py, f64x2.add(cmulByConst128(y1, T1, T2), x1), 16);
      v128.store(py, f64x2.add(cmulByConst128(y2, T1, T2), x2), 32);
      v128.store(py, f64x2.add(cmulByConst128(y3, T1, T2), x3), 48);
    }
    for (; i < end; i++) {
      const py = y + (<usize>i << 4);
      v128.store(py, f64x2.add(cmulByConst128(v128.load(py), T1, T2), v128.load(x + (<usize>i << 4))));
    }
  }
  for (; i < end; i++) {
    const px = x + (<usize>i << 4), py = y + (<usize>i << 4);
    const yr = load<f64>(py), yi = load<f64>(py, 8);
    store<f64>(py, (ar * yr - ai * yi) + load<f64>(px));
    store<f64>(py, (ar * yi + ai * yr) + load<f64>(px, 8), 8);
  }
}

// ---------------------------------------------------------------- copy: y ← x
// One bulk-memory memory.copy (the engine's memmove) — as fast as a copy gets, in both builds.

export function copy_f32(x: usize, y: usize, start: i32, end: i32): void {
  if (start < end) memory.copy(y + (<usize>start << 2), x + (<usize>start << 2), <usize>(end - start) << 2);
}

export function copy_f64(x: usize, y: usize, start: i32, end: i32): void {
  if (start < end) memory.copy(y + (<usize>start << 3), x + (<usize>start << 3), <usize>(end - start) << 3);
}

export function copy_c64(x: usize, y: usize, start: i32, end: i32): void {
  if (start < end) memory.copy(y + (<usize>start << 3), x + (<usize>start << 3), <usize>(end - start) << 3);
}

export function copy_c128(x: usize, y: usize, start: i32, end: i32): void {
  if (start < end) memory.copy(y + (<usize>start << 4), x + (<usize>start << 4), <usize>(end - start) << 4);
}

// ---------------------------------------------------------------- xmy: z ← x ⊙ y (elementwise)
// The Jacobi preconditioner's step z = D⁻¹·r. Complex: the complex product per element.

export function xmy_f32(x: usize, y: usize, z: usize, start: i32, end: i32): void {
  let i = start;
  if (ASC_FEATURE_SIMD) {
    for (; i + 4 <= end; i += 4) {
      const o = <usize>i << 2;
      v128.store(z + o, f32x4.mul(v128.load(x + o), v128.load(y + o)));
    }
  }
  for (; i < end; i++) {
    const o = <usize>i << 2;
    store<f32>(z + o, load<f32>(x + o) * load<f32>(y + o));
  }
}

export function xmy_f64(x: usize, y: usize, z: usize, start: i32, end: i32): void {
  let i = start;
  if (ASC_FEATURE_SIMD) {
    for (; i + 2 <= end; i += 2) {
      const o = <usize>i << 3;
      v128.store(z + o, f64x2.mul(v128.load(x + o), v128.load(y + o)));
    }
  }
  for (; i < end; i++) {
    const o = <usize>i << 3;
    store<f64>(z + o, load<f64>(x + o) * load<f64>(y + o));
  }
}

export function xmy_c64(x: usize, y: usize, z: usize, start: i32, end: i32): void {
  let i = start;
  if (ASC_FEATURE_SIMD) {
    for (; i + 2 <= end; i += 2) {
      const o = <usize>i << 3;
      v128.store(z + o, cmul64(v128.load(x + o), v128.load(y + o)));
    }
  }
  for (; i < end; i++) {
    const o = <usize>i << 3;
    const xr = load<f32>(x + o), xi = load<f32>(x + o, 4), yr = load<f32>(y + o), yi = load<f32>(y + o, 4);
    store<f32>(z + o, xr * yr - xi * yi);
    store<f32>(z + o, xr * yi + xi * yr, 4);
  }
}

export function xmy_c128(x: usize, y: usize, z: usize, start: i32, end: i32): void {
  for (let i = start; i < end; i++) {
    const o = <usize>i << 4;
    if (ASC_FEATURE_SIMD) {
      v128.store(z + o, cmul128(v128.load(x + o), v128.load(y + o)));
    } else {
      const xr = load<f64>(x + o), xi = load<f64>(x + o, 8), yr = load<f64>(y + o), yi = load<f64>(y + o, 8);
      store<f64>(z + o, xr * yr - xi * yi);
      store<f64>(z + o, xr * yi + xi * yr, 8);
    }
  }
}

// ---------------------------------------------------------------- real sums of products (f64)
// The 8-partial-sum layout described at the top of this section. `inv` scales each element before
// squaring in sumsq_f64 (a power of two, so exact; 1 for the unscaled pass).

/** f32 x, f32 y (exact f64 products) */
// @ts-ignore: decorator
@inline export function sumprod_f32(x: usize, y: usize, start: i32, end: i32): f64 {
  let i = start;
  let s: f64 = 0;
  if (end - start >= 8) {
    if (ASC_FEATURE_SIMD) {
      let a0 = f64x2.splat(0), a1 = f64x2.splat(0), a2 = f64x2.splat(0), a3 = f64x2.splat(0);
      for (; i + 8 <= end; i += 8) {
        const px = x + (<usize>i << 2), py = y + (<usize>i << 2);
        a0 = f64x2.add(a0, f64x2.mul(lo2_f32(px, 0), lo2_f32(py, 0)));
        a1 = f64x2.add(a1, f64x2.mul(lo2_f32(px, 8), lo2_f32(py, 8)));
        a2 = f64x2.add(a2, f64x2.mul(lo2_f32(px, 16), lo2_f32(py, 16)));
        a3 = f64x2.add(a3, f64x2.mul(lo2_f32(px, 24), lo2_f32(py, 24)));
      }
      s = hsum_f64x2(f64x2.add(f64x2.add(a0, a1), f64x2.add(a2, a3)));
    } else {
      let s0: f64 = 0, s1: f64 = 0, s2: f64 = 0, s3: f64 = 0, s4: f64 = 0, s5: f64 = 0, s6: f64 = 0, s7: f64 = 0;
      for (; i + 8 <= end; i += 8) {
        const px = x + (<usize>i << 2), py = y + (<usize>i << 2);
        s0 += <f64>load<f32>(px) * <f64>load<f32>(py);
        s1 += <f64>load<f32>(px, 4) * <f64>load<f32>(py, 4);
        s2 += <f64>load<f32>(px, 8) * <f64>load<f32>(py, 8);
        s3 += <f64>load<f32>(px, 12) * <f64>load<f32>(py, 12);
        s4 += <f64>load<f32>(px, 16) * <f64>load<f32>(py, 16);
        s5 += <f64>load<f32>(px, 20) * <f64>load<f32>(py, 20);
        s6 += <f64>load<f32>(px, 24) * <f64>load<f32>(py, 24);
        s7 += <f64>load<f32>(px, 28) * <f64>load<f32>(py, 28);
      }
      s = ((s0 + s2) + (s4 + s6)) + ((s1 + s3) + (s5 + s7));
    }
  }
  for (; i < end; i++) s += <f64>load<f32>(x + (<usize>i << 2)) * <f64>load<f32>(y + (<usize>i << 2));
  return s;
}

/**
 * The two f32 at p + off promoted to an f64x2. A 64-bit load (load port) + cvtps2pd instead of a
 * 128-bit load + a shuffle for the upper half: the promotions and shuffles share one port on x86,
 * which bounded the f32 and c64 reductions; measured 1.3–1.6× faster.
 */
// @ts-ignore: decorator
@inline function lo2_f32(p: usize, off: usize): v128 {
  return f64x2.promote_low_f32x4(v128.load64_zero(p + off));
}

/** Σ x_i² over f32 x[start, end) in f64 (exact squares), in the layout of sumprod_f32. */
// @ts-ignore: decorator
@inline function sumsq_f32(x: usize, start: i32, end: i32): f64 {
  let i = start;
  let s: f64 = 0;
  if (end - start >= 8) {
    if (ASC_FEATURE_SIMD) {
      let a0 = f64x2.splat(0), a1 = f64x2.splat(0), a2 = f64x2.splat(0), a3 = f64x2.splat(0);
      for (; i + 8 <= end; i += 8) {
        const px = x + (<usize>i << 2);
        const x0 = lo2_f32(px, 0), x1 = lo2_f32(px, 8), x2 = lo2_f32(px, 16), x3 = lo2_f32(px, 24);
        a0 = f64x2.add(a0, f64x2.mul(x0, x0));
        a1 = f64x2.add(a1, f64x2.mul(x1, x1));
        a2 = f64x2.add(a2, f64x2.mul(x2, x2));
        a3 = f64x2.add(a3, f64x2.mul(x3, x3));
      }
      s = hsum_f64x2(f64x2.add(f64x2.add(a0, a1), f64x2.add(a2, a3)));
    } else {
      let s0: f64 = 0, s1: f64 = 0, s2: f64 = 0, s3: f64 = 0, s4: f64 = 0, s5: f64 = 0, s6: f64 = 0, s7: f64 = 0;
      for (; i + 8 <= end; i += 8) {
        const px = x + (<usize>i << 2);
        const x0 = <f64>load<f32>(px), x1 = <f64>load<f32>(px, 4), x2 = <f64>load<f32>(px, 8), x3 = <f64>load<f32>(px, 12);
        const x4 = <f64>load<f32>(px, 16), x5 = <f64>load<f32>(px, 20), x6 = <f64>load<f32>(px, 24), x7 = <f64>load<f32>(px, 28);
        s0 += x0 * x0; s1 += x1 * x1; s2 += x2 * x2; s3 += x3 * x3;
        s4 += x4 * x4; s5 += x5 * x5; s6 += x6 * x6; s7 += x7 * x7;
      }
      s = ((s0 + s2) + (s4 + s6)) + ((s1 + s3) + (s5 + s7));
    }
  }
  for (; i < end; i++) {
    const v = <f64>load<f32>(x + (<usize>i << 2));
    s += v * v;
  }
  return s;
}

// @ts-ignore: decorator
@inline export function sumprod_f64(x: usize, y: usize, start: i32, end: i32): f64 {
  let i = start;
  let s: f64 = 0;
  if (end - start >= 8) {
    if (ASC_FEATURE_SIMD) {
      let a0 = f64x2.splat(0), a1 = f64x2.splat(0), a2 = f64x2.splat(0), a3 = f64x2.splat(0);
      for (; i + 8 <= end; i += 8) {
        const px = x + (<usize>i << 3), py = y + (<usize>i << 3);
        a0 = f64x2.add(a0, f64x2.mul(v128.load(px), v128.load(py)));
        a1 = f64x2.add(a1, f64x2.mul(v128.load(px, 16), v128.load(py, 16)));
        a2 = f64x2.add(a2, f64x2.mul(v128.load(px, 32), v128.load(py, 32)));
        a3 = f64x2.add(a3, f64x2.mul(v128.load(px, 48), v128.load(py, 48)));
      }
      s = hsum_f64x2(f64x2.add(f64x2.add(a0, a1), f64x2.add(a2, a3)));
    } else {
      let s0: f64 = 0, s1: f64 = 0, s2: f64 = 0, s3: f64 = 0, s4: f64 = 0, s5: f64 = 0, s6: f64 = 0, s7: f64 = 0;
      for (; i + 8 <= end; i += 8) {
        const px = x + (<usize>i << 3), py = y + (<usize>i << 3);
        s0 += load<f64>(px) * load<f64>(py);
        s1 += load<f64>(px, 8) * load<f64>(py, 8);
        s2 += load<f64>(px, 16) * load<f64>(py, 16);
        s3 += load<f64>(px, 24) * load<f64>(py, 24);
        s4 += load<f64>(px, 32) * load<f64>(py, 32);
        s5 += load<f64>(px, 40) * load<f64>(py, 40);
        s6 += load<f64>(px, 48) * load<f64>(py, 48);
        s7 += load<f64>(px, 56) * load<f64>(py, 56);
      }
      s = ((s0 + s2) + (s4 + s6)) + ((s1 + s3) + (s5 + s7));
    }
  }
  for (; i < end; i++) s += load<f64>(x + (<usize>i << 3)) * load<f64>(y + (<usize>i << 3));
  return s;
}

/** Σ (x_i·inv)² over f64 x[start, end). */
// @ts-ignore: decorator
@inline function sumsq_f64(x: usize, start: i32, end: i32, inv: f64): f64 {
  let i = start;
  let s: f64 = 0;
  if (end - start >= 8) {
    if (ASC_FEATURE_SIMD) {
      const iv = f64x2.splat(inv);
      let a0 = f64x2.splat(0), a1 = f64x2.splat(0), a2 = f64x2.splat(0), a3 = f64x2.splat(0);
      for (; i + 8 <= end; i += 8) {
        const px = x + (<usize>i << 3);
        const x0 = f64x2.mul(v128.load(px), iv), x1 = f64x2.mul(v128.load(px, 16), iv);
        const x2 = f64x2.mul(v128.load(px, 32), iv), x3 = f64x2.mul(v128.load(px, 48), iv);
        a0 = f64x2.add(a0, f64x2.mul(x0, x0));
        a1 = f64x2.add(a1, f64x2.mul(x1, x1));
        a2 = f64x2.add(a2, f64x2.mul(x2, x2));
        a3 = f64x2.add(a3, f64x2.mul(x3, x3));
      }
      s = hsum_f64x2(f64x2.add(f64x2.add(a0, a1), f64x2.add(a2, a3)));
    } else {
      let s0: f64 = 0, s1: f64 = 0, s2: f64 = 0, s3: f64 = 0, s4: f64 = 0, s5: f64 = 0, s6: f64 = 0, s7: f64 = 0;
      for (; i + 8 <= end; i += 8) {
        const px = x + (<usize>i << 3);
        const x0 = load<f64>(px) * inv, x1 = load<f64>(px, 8) * inv, x2 = load<f64>(px, 16) * inv;
        const x3 = load<f64>(px, 24) * inv, x4 = load<f64>(px, 32) * inv, x5 = load<f64>(px, 40) * inv;
        const x6 = load<f64>(px, 48) * inv, x7 = load<f64>(px, 56) * inv;
        s0 += x0 * x0; s1 += x1 * x1; s2 += x2 * x2; s3 += x3 * x3;
        s4 += x4 * x4; s5 += x5 * x5; s6 += x6 * x6; s7 += x7 * x7;
      }
      s = ((s0 + s2) + (s4 + s6)) + ((s1 + s3) + (s5 + s7));
    }
  }
  for (; i < end; i++) {
    const v = load<f64>(x + (<usize>i << 3)) * inv;
    s += v * v;
  }
  return s;
}

/**
 * max |x_i| over f64 x[start, end). x must hold no NaN (nrm2 only calls this when the unscaled sum was
 * not NaN): that lets the SIMD loop use f64x2.pmax (one maxpd) instead of the NaN-propagating
 * f64x2.max, which V8 expands to a long sequence — this pass ran at a quarter of memory speed with it.
 */
// @ts-ignore: decorator
@inline function maxabs_f64(x: usize, start: i32, end: i32): f64 {
  let i = start;
  let m: f64 = 0;
  if (ASC_FEATURE_SIMD) {
    let m0 = f64x2.splat(0), m1 = f64x2.splat(0), m2 = f64x2.splat(0), m3 = f64x2.splat(0);
    for (; i + 8 <= end; i += 8) {
      const px = x + (<usize>i << 3);
      m0 = f64x2.pmax(m0, f64x2.abs(v128.load(px)));
      m1 = f64x2.pmax(m1, f64x2.abs(v128.load(px, 16)));
      m2 = f64x2.pmax(m2, f64x2.abs(v128.load(px, 32)));
      m3 = f64x2.pmax(m3, f64x2.abs(v128.load(px, 48)));
    }
    const t = f64x2.pmax(f64x2.pmax(m0, m1), f64x2.pmax(m2, m3));
    m = f64x2.extract_lane(t, 0);
    const m1s = f64x2.extract_lane(t, 1);
    m = m1s > m ? m1s : m;
  } else {
    // four independent compare/select chains (one chain is latency-bound at a third of this speed)
    let m0: f64 = 0, m1: f64 = 0, m2: f64 = 0, m3: f64 = 0;
    for (; i + 4 <= end; i += 4) {
      const px = x + (<usize>i << 3);
      const v0 = abs(load<f64>(px)), v1 = abs(load<f64>(px, 8)), v2 = abs(load<f64>(px, 16)), v3 = abs(load<f64>(px, 24));
      m0 = v0 > m0 ? v0 : m0;
      m1 = v1 > m1 ? v1 : m1;
      m2 = v2 > m2 ? v2 : m2;
      m3 = v3 > m3 ? v3 : m3;
    }
    m0 = m1 > m0 ? m1 : m0;
    m2 = m3 > m2 ? m3 : m2;
    m = m2 > m0 ? m2 : m0;
  }
  for (; i < end; i++) {
    const v = abs(load<f64>(x + (<usize>i << 3)));
    m = v > m ? v : m;
  }
  return m;
}

/**
 * max |xᵢ| over f64 x[start, end) at `out` and, at `out + 8`, Σ (xᵢ − xᵢ): 0, or NaN where x holds ±Inf
 * or NaN (pmax, which does not propagate NaN, then needs no care): a refinement's answer's largest
 * entry on the pool (src/cpu/refine.ts xmax), where the host's read and pass cost 1–3 ms on 262 144 rows.
 */
export function amax_f64(x: usize, out: usize, start: i32, end: i32): void {
  let i = start;
  let m: f64 = 0;
  let c: f64 = 0;
  if (ASC_FEATURE_SIMD) {
    let m0 = f64x2.splat(0), m1 = f64x2.splat(0), c0 = f64x2.splat(0), c1 = f64x2.splat(0);
    for (; i + 4 <= end; i += 4) {
      const px = x + (<usize>i << 3);
      const v0 = v128.load(px), v1 = v128.load(px, 16);
      m0 = f64x2.pmax(m0, f64x2.abs(v0));
      m1 = f64x2.pmax(m1, f64x2.abs(v1));
      c0 = f64x2.add(c0, f64x2.sub(v0, v0));
      c1 = f64x2.add(c1, f64x2.sub(v1, v1));
    }
    const t = f64x2.pmax(m0, m1);
    const a = f64x2.extract_lane(t, 0), b = f64x2.extract_lane(t, 1);
    m = b > a ? b : a;
    const u = f64x2.add(c0, c1);
    c = f64x2.extract_lane(u, 0) + f64x2.extract_lane(u, 1);
  }
  for (; i < end; i++) {
    const v = load<f64>(x + (<usize>i << 3));
    const a = abs(v);
    m = a > m ? a : m;
    c += v - v;
  }
  store<f64>(out, m);
  store<f64>(out, c, 8);
}

// ---------------------------------------------------------------- dot
// Real: out[0] = Σ x_i·y_i (one f64; f32 inputs accumulate in f64 — exact products, f64 sums).
// An empty range writes 0. NaN anywhere in x or y gives NaN.

export function dot_f32(x: usize, y: usize, out: usize, start: i32, end: i32): void {
  store<f64>(out, sumprod_f32(x, y, start, end));
}

export function dot_f64(x: usize, y: usize, out: usize, start: i32, end: i32): void {
  store<f64>(out, sumprod_f64(x, y, start, end));
}

// Complex: (out[0], out[1]) = (re, im) of Σ x'_i·y_i, x' = conj(x) when conj != 0, accumulated in f64.
// SIMD: each complex promoted to one f64x2, accumulators A_j += x ⊙ y = [xr·yr, xi·yi] and
// B_j += x ⊙ swap(y) = [xr·yi, xi·yr] for the 4 complex offsets j = (i − start) mod 4 (8 v128
// accumulators), combined as A = (A0+A1)+(A2+A3) (same for B) and finished by cdotFinish128
// (re = A.e ∓ A.o, im = B.e ± B.o), then the < 4 leftover complex one by one. The plain build keeps
// the same 16 partial sums as scalars, so both builds give bitwise the same result.

// @ts-ignore: decorator
@inline function cdot<T>(x: usize, y: usize, conj: i32, out: usize, start: i32, end: i32): void {
  const SH: usize = sizeof<T>() == 4 ? 3 : 4; // log2 bytes per complex
  const OFF: usize = sizeof<T>(); // byte offset of the im part
  let i = start;
  let sr: f64 = 0, si: f64 = 0;
  if (end - start >= 4) {
    if (ASC_FEATURE_SIMD) {
      let A0 = f64x2.splat(0), A1 = f64x2.splat(0), A2 = f64x2.splat(0), A3 = f64x2.splat(0);
      let B0 = f64x2.splat(0), B1 = f64x2.splat(0), B2 = f64x2.splat(0), B3 = f64x2.splat(0);
      for (; i + 4 <= end; i += 4) {
        const px = x + (<usize>i << SH), py = y + (<usize>i << SH);
        let x0: v128, x1: v128, x2: v128, x3: v128, y0: v128, y1: v128, y2: v128, y3: v128;
        if (sizeof<T>() == 4) {
          x0 = lo2_f32(px, 0); x1 = lo2_f32(px, 8); x2 = lo2_f32(px, 16); x3 = lo2_f32(px, 24);
          y0 = lo2_f32(py, 0); y1 = lo2_f32(py, 8); y2 = lo2_f32(py, 16); y3 = lo2_f32(py, 24);
        } else {
          x0 = v128.load(px); x1 = v128.load(px, 16); x2 = v128.load(px, 32); x3 = v128.load(px, 48);
          y0 = v128.load(py); y1 = v128.load(py, 16); y2 = v128.load(py, 32); y3 = v128.load(py, 48);
        }
        A0 = f64x2.add(A0, f64x2.mul(x0, y0)); B0 = f64x2.add(B0, f64x2.mul(x0, swap_c128(y0)));
        A1 = f64x2.add(A1, f64x2.mul(x1, y1)); B1 = f64x2.add(B1, f64x2.mul(x1, swap_c128(y1)));
        A2 = f64x2.add(A2, f64x2.mul(x2, y2)); B2 = f64x2.add(B2, f64x2.mul(x2, swap_c128(y2)));
        A3 = f64x2.add(A3, f64x2.mul(x3, y3)); B3 = f64x2.add(B3, f64x2.mul(x3, swap_c128(y3)));
      }
      const r = cdotFinish128(f64x2.add(f64x2.add(A0, A1), f64x2.add(A2, A3)), f64x2.add(f64x2.add(B0, B1), f64x2.add(B2, B3)), conj);
      sr = f64x2.extract_lane(r, 0);
      si = f64x2.extract_lane(r, 1);
    } else {
      // [A.e, A.o, B.e, B.o] of the four complex offsets
      let ae0: f64 = 0, ao0: f64 = 0, be0: f64 = 0, bo0: f64 = 0, ae1: f64 = 0, ao1: f64 = 0, be1: f64 = 0, bo1: f64 = 0;
      let ae2: f64 = 0, ao2: f64 = 0, be2: f64 = 0, bo2: f64 = 0, ae3: f64 = 0, ao3: f64 = 0, be3: f64 = 0, bo3: f64 = 0;
      for (; i + 4 <= end; i += 4) {
        const px = x + (<usize>i << SH), py = y + (<usize>i << SH);
        let xr = <f64>load<T>(px), xi = <f64>load<T>(px, OFF), yr = <f64>load<T>(py), yi = <f64>load<T>(py, OFF);
        ae0 += xr * yr; ao0 += xi * yi; be0 += xr * yi; bo0 += xi * yr;
        xr = <f64>load<T>(px, 2 * OFF); xi = <f64>load<T>(px, 3 * OFF);
        yr = <f64>load<T>(py, 2 * OFF); yi = <f64>load<T>(py, 3 * OFF);
        ae1 += xr * yr; ao1 += xi * yi; be1 += xr * yi; bo1 += xi * yr;
        xr = <f64>load<T>(px, 4 * OFF); xi = <f64>load<T>(px, 5 * OFF);
        yr = <f64>load<T>(py, 4 * OFF); yi = <f64>load<T>(py, 5 * OFF);
        ae2 += xr * yr; ao2 += xi * yi; be2 += xr * yi; bo2 += xi * yr;
        xr = <f64>load<T>(px, 6 * OFF); xi = <f64>load<T>(px, 7 * OFF);
        yr = <f64>load<T>(py, 6 * OFF); yi = <f64>load<T>(py, 7 * OFF);
        ae3 += xr * yr; ao3 += xi * yi; be3 += xr * yi; bo3 += xi * yr;
      }
      const ae = (ae0 + ae1) + (ae2 + ae3), ao = (ao0 + ao1) + (ao2 + ao3);
      const be = (be0 + be1) + (be2 + be3), bo = (bo0 + bo1) + (bo2 + bo3);
      sr = conj ? ae + ao : ae - ao;
      si = conj ? be - bo : be + bo;
    }
  }
  const sg: f64 = conj ? -1 : 1;
  for (; i < end; i++) {
    const px = x + (<usize>i << SH), py = y + (<usize>i << SH);
    const xr = <f64>load<T>(px), xi = sg * <f64>load<T>(px, OFF);
    const yr = <f64>load<T>(py), yi = <f64>load<T>(py, OFF);
    sr += xr * yr - xi * yi;
    si += xr * yi + xi * yr;
  }
  store<f64>(out, sr);
  store<f64>(out, si, 8);
}

export function dot_c64(x: usize, y: usize, conj: i32, out: usize, start: i32, end: i32): void {
  cdot<f32>(x, y, conj, out, start, end);
}

export function dot_c128(x: usize, y: usize, conj: i32, out: usize, start: i32, end: i32): void {
  cdot<f64>(x, y, conj, out, start, end);
}

// ---------------------------------------------------------------- nrm2
// Writes (scale, ssq) as two f64 at out, out+8 with Σ|x_i|² = scale²·ssq (complex: over the 2n real
// parts); the norm of the range is scale·√ssq. An empty or all-zero range writes (0, 0); NaN anywhere
// gives ssq = NaN; ±Inf (and no NaN) gives (Inf, 1) for f64/c128 and (1, Inf) for f32/c64.
//
// Combining chunks on the JS side (chunk k wrote (s_k, q_k)) — no kernel exports this, it is 4 lines:
//     if any q_k is NaN the norm is NaN;  s = max_k s_k;  if s == 0 the norm is 0;  if s == Inf it is Inf;
//     else q = Σ_{k: s_k > 0} q_k·(s_k/s)²,  norm = s·√q
// (s_k/s ≤ 1, so nothing overflows; the scales are powers of two or 1, so the ratios are exact).
//
// f32/c64: squares of f32 are exact in f64 and cannot overflow or underflow there (|x| ≤ 3.4e38,
// |x|² ≥ 2e-90 for the smallest subnormal), so one unscaled f64 pass is already safe: (1, Σ x²).
//
// f64/c128: one unscaled pass first (memory-bound, as fast as dot). Its sum can be trusted whenever it
// is finite and ≥ 2^-968: no square overflowed (a sum of non-negative terms stays Inf once it hits
// Inf), and squares that underflowed (< 2^-1022 each, error ≤ 2^-1075 each) are below n·2^-107
// relative to the sum, so the pass is safe. Otherwise (overflow, underflow, all-zero) the range is
// redone scaled, like LAPACK's dnrm2 but blocked: per block of NRM2_BLOCK elements a SIMD max|x_i|, the running scale
// raised to the power of two 2^e at or below it when it grew (clamped to 2^-1022 so that 2^-e is
// representable; the partial ssq rescaled by (old/new)², exact), then Σ (x_i·2^-e)² of the block, which
// is still in L1. Multiplying by powers of two is exact, so the scaled sum carries the same rounding as
// an unscaled one would without over/underflow.
// Measured (node 20, 1M f64, 2-core Xeon, SIMD build): unscaled pass 0.39 ms (= dot speed per byte);
// always-scaled variants: two passes (max over the whole range, then the scaled sum) 0.80 ms, blocked
// one pass 0.62 ms — hence the unscaled pass first and the blocked one-pass scaled fallback.

/** Elements per block of the scaled nrm2 pass (4 KiB of f64: stays in L1 between its two reads). */
// @ts-ignore: decorator
@inline const NRM2_BLOCK: i32 = 512;

// @ts-ignore: decorator
@inline function nrm2_real64(x: usize, start: i32, end: i32, out: usize): void {
  let scale: f64 = 1;
  let ssq = sumsq_f64(x, start, end, 1.0);
  if (!(ssq >= reinterpret<f64>(<u64>55 << 52) /* 2^-968 */ && ssq < Infinity) && !isNaN(ssq)) {
    // no NaN in x (the sum would be NaN): blocks of NRM2_BLOCK elements, each read from memory once for
    // its max and again from L1 for its scaled squares
    scale = 0;
    ssq = 0;
    let inv: f64 = 0;
    for (let b = start; b < end; b += NRM2_BLOCK) {
      const e = min(b + NRM2_BLOCK, end);
      const m = maxabs_f64(x, b, e);
      if (m > scale) {
        if (m == Infinity) {
          scale = Infinity;
          ssq = 1;
          break;
        }
        // 2^e ≤ m (biased exponent clamped to ≥ 1, i.e. 2^-1022 for subnormal m)
        const ns = reinterpret<f64>(max<u64>(reinterpret<u64>(m) >> 52, 1) << 52);
        if (ns != scale) {
          if (scale != 0) {
            const r = scale / ns; // exact power of two
            ssq *= r * r;
          }
          scale = ns;
          inv = 1.0 / ns;
        }
      }
      if (scale != 0) ssq += sumsq_f64(x, b, e, inv);
    }
  }
  store<f64>(out, scale);
  store<f64>(out, ssq, 8);
}

/** Σ x_i² over f32 x[start, end) in f64 (exact squares). */
// @ts-ignore: decorator
@inline function nrm2_real32(x: usize, start: i32, end: i32, out: usize): void {
  const ssq = sumsq_f32(x, start, end);
  store<f64>(out, ssq == 0 ? 0 : 1);
  store<f64>(out, ssq, 8);
}

export function nrm2_f32(x: usize, out: usize, start: i32, end: i32): void {
  nrm2_real32(x, start, end, out);
}

export function nrm2_f64(x: usize, out: usize, start: i32, end: i32): void {
  nrm2_real64(x, start, end, out);
}

export function nrm2_c64(x: usize, out: usize, start: i32, end: i32): void {
  nrm2_real32(x, start << 1, end << 1, out);
}

export function nrm2_c128(x: usize, out: usize, start: i32, end: i32): void {
  nrm2_real64(x, start << 1, end << 1, out);
}
