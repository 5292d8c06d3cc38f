// COO SpMV: scatter-add y[rowIdx[k]] += α·val[k]·x[colIdx[k]] for entries k in [kStart, kEnd) (op=T: the
// caller swaps rowIdx/colIdx; β was applied by scal_<dt>). SIMD forms 4 (f32) / 2 (f64, c64) products at
// once from v128 loads of values and indices with gathered x; the y updates stay sequential
// read-modify-writes because row indices repeat (COO is usually row-sorted).
import {
  cmul64, cmul128, conjMask64, conjMask128, cconstT1_64, cconstT2_64, cmulByConst64,
  cconstT1_128, cconstT2_128, cmulByConst128,
} from './complex';

export function coo_f32(rowIdx: usize, colIdx: usize, val: usize, x: usize, y: usize, alpha: f64, kStart: i32, kEnd: i32): void {
  const a = <f32>alpha;
  let k = kStart;
  if (ASC_FEATURE_SIMD) {
    const av = f32x4.splat(a);
    for (; k + 4 <= kEnd; k += 4) {
      const c = v128.load(colIdx + (<usize>k << 2));
      const r = v128.load(rowIdx + (<usize>k << 2));
      let g = v128.load32_zero(x + (<usize>i32x4.extract_lane(c, 0) << 2));
      g = v128.load32_lane(x + (<usize>i32x4.extract_lane(c, 1) << 2), g, 1);
      g = v128.load32_lane(x + (<usize>i32x4.extract_lane(c, 2) << 2), g, 2);
      g = v128.load32_lane(x + (<usize>i32x4.extract_lane(c, 3) << 2), g, 3);
      const p = f32x4.mul(av, f32x4.mul(v128.load(val + (<usize>k << 2)), g));
      let yp = y + (<usize>i32x4.extract_lane(r, 0) << 2);
      store<f32>(yp, load<f32>(yp) + f32x4.extract_lane(p, 0));
      yp = y + (<usize>i32x4.extract_lane(r, 1) << 2);
      store<f32>(yp, load<f32>(yp) + f32x4.extract_lane(p, 1));
      yp = y + (<usize>i32x4.extract_lane(r, 2) << 2);
      store<f32>(yp, load<f32>(yp) + f32x4.extract_lane(p, 2));
      yp = y + (<usize>i32x4.extract_lane(r, 3) << 2);
      store<f32>(yp, load<f32>(yp) + f32x4.extract_lane(p, 3));
    }
  }
  for (; k < kEnd; k++) {
    const o = <usize>k << 2;
    const yp = y + (<usize>load<i32>(rowIdx + o) << 2);
    store<f32>(yp, load<f32>(yp) + a * (load<f32>(val + o) * load<f32>(x + (<usize>load<i32>(colIdx + o) << 2))));
  }
}

export function coo_f64(rowIdx: usize, colIdx: usize, val: usize, x: usize, y: usize, alpha: f64, kStart: i32, kEnd: i32): void {
  let k = kStart;
  if (ASC_FEATURE_SIMD) {
    const av = f64x2.splat(alpha);
    for (; k + 2 <= kEnd; k += 2) {
      const o = <usize>k << 2;
      let g = v128.load64_zero(x + (<usize>load<i32>(colIdx + o) << 3));
      g = v128.load64_lane(x + (<usize>load<i32>(colIdx + o, 4) << 3), g, 1);
      const p = f64x2.mul(av, f64x2.mul(v128.load(val + (<usize>k << 3)), g));
      let yp = y + (<usize>load<i32>(rowIdx + o) << 3);
      store<f64>(yp, load<f64>(yp) + f64x2.extract_lane(p, 0));
      yp = y + (<usize>load<i32>(rowIdx + o, 4) << 3);
      store<f64>(yp, load<f64>(yp) + f64x2.extract_lane(p, 1));
    }
  }
  for (; k < kEnd; k++) {
    const o = <usize>k << 2;
    const yp = y + (<usize>load<i32>(rowIdx + o) << 3);
    store<f64>(yp, load<f64>(yp) + alpha * (load<f64>(val + (<usize>k << 3)) * load<f64>(x + (<usize>load<i32>(colIdx + o) << 3))));
  }
}

export function coo_c64(
  rowIdx: usize, colIdx: usize, val: usize, x: usize, y: usize, alphaRe: f64, alphaIm: f64, conj: i32, kStart: i32, kEnd: i32,
): void {
  const ar = <f32>alphaRe, ai = <f32>alphaIm;
  let k = kStart;
  if (ASC_FEATURE_SIMD) {
    const cm = conjMask64(conj);
    const T1 = cconstT1_64(ar, 0), T2 = cconstT2_64(ai, 0);
    for (; k + 2 <= kEnd; k += 2) {
      const o = <usize>k << 2;
      let g = v128.load64_zero(x + (<usize>load<i32>(colIdx + o) << 3));
      g = v128.load64_lane(x + (<usize>load<i32>(colIdx + o, 4) << 3), g, 1);
      // α·(val'·x) for both entries
      const p = cmulByConst64(cmul64(v128.xor(v128.load(val + (<usize>k << 3)), cm), g), T1, T2);
      const y0 = y + (<usize>load<i32>(rowIdx + o) << 3);
      v128.store64_lane(y0, f32x4.add(v128.load64_zero(y0), p), 0);
      const y1 = y + (<usize>load<i32>(rowIdx + o, 4) << 3); // loaded after the store: rows repeat
      v128.store64_lane(y1, f32x4.add(v128.load64_lane(y1, p, 1), p), 1);
    }
  }
  const sg: f32 = conj ? -1 : 1;
  for (; k < kEnd; k++) {
    const o = <usize>k << 2;
    const vp = val + (<usize>k << 3);
    const xp = x + (<usize>load<i32>(colIdx + o) << 3);
    const yp = y + (<usize>load<i32>(rowIdx + o) << 3);
    const vr = load<f32>(vp), vi = sg * load<f32>(vp, 4);
    const xr = load<f32>(xp), xi = load<f32>(xp, 4);
    const pr = vr * xr - vi * xi, pi = vr * xi + vi * xr;
    store<f32>(yp, load<f32>(yp) + (ar * pr - ai * pi));
    store<f32>(yp, load<f32>(yp, 4) + (ar * pi + ai * pr), 4);
  }
}

export function coo_c128(
  rowIdx: usize, colIdx: usize, val: usize, x: usize, y: usize, alphaRe: f64, alphaIm: f64, conj: i32, kStart: i32, kEnd: i32,
): void {
  let k = kStart;
  if (ASC_FEATURE_SIMD) {
    const cm = conjMask128(conj);
    const T1 = cconstT1_128(alphaRe, 0), T2 = cconstT2_128(alphaIm, 0);
    for (; k < kEnd; k++) {
      const o = <usize>k << 2;
      const g = v128.load(x + (<usize>load<i32>(colIdx + o) << 4));
      const p = cmulByConst128(cmul128(v128.xor(v128.load(val + (<usize>k << 4)), cm), g), T1, T2);
      const yp = y + (<usize>load<i32>(rowIdx + o) << 4);
      v128.store(yp, f64x2.add(v128.load(yp), p));
    }
  } else {
    const sg: f64 = conj ? -1 : 1;
    for (; k < kEnd; k++) {
      const o = <usize>k << 2;
      const vp = val + (<usize>k << 4);
      const xp = x + (<usize>load<i32>(colIdx + o) << 4);
      const yp = y + (<usize>load<i32>(rowIdx + o) << 4);
      const vr = load<f64>(vp), vi = sg * load<f64>(vp, 8);
      const xr = load<f64>(xp), xi = load<f64>(xp, 8);
      const pr = vr * xr - vi * xi, pi = vr * xi + vi * xr;
      store<f64>(yp, load<f64>(yp) + (alphaRe * pr - alphaIm * pi));
      store<f64>(yp, load<f64>(yp, 8) + (alphaRe * pi + alphaIm * pr), 8);
    }
  }
}
