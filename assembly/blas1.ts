// BLAS-1 kernels over element ranges [start, end) (elements, not bytes; complex: complex elements).
// scal: y = β·y; β == 0 fills zeros (BLAS convention: NaN/Inf already in y do not survive), β == 1 is a
// no-op. Ranges start anywhere, so v128 accesses are unaligned.
import { cconstT1_64, cconstT2_64, cmulByConst64, cconstT1_128, cconstT2_128, cmulByConst128 } from './complex';

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
