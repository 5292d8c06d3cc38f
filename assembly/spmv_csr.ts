// CSR SpMV kernels. Gather (csr_<dt>): one dot product per row, y = α·A·x + β·y over rows
// [rowStart, rowEnd) — CSR op=N and CSC op=T/H. Scatter (csr_scatter_<dt>): y[idx[k]] += α·val[k]·x[i]
// over segments [segStart, segEnd) — CSR op=T/H and CSC op=N; the caller has scaled y by β (scal_<dt>).
// The row dot products live in complex.ts (shared with MRS). f32/c64 round α, β to f32 and compute in f32.
import {
  rowdot_f32, rowdot_f64, rowdot_c64, rowdot_c128, axpby_f32, axpby_f64,
  cconstT1_64, cconstT2_64, cmulByConst64, cconstT1_128, cconstT2_128, cmulByConst128,
} from './complex';

export function csr_f32(ptr: usize, idx: usize, val: usize, x: usize, y: usize, alpha: f64, beta: f64, rowStart: i32, rowEnd: i32): void {
  const a = <f32>alpha, b = <f32>beta;
  if (rowStart >= rowEnd) return;
  let k0 = load<i32>(ptr + (<usize>rowStart << 2));
  for (let i = rowStart; i < rowEnd; i++) {
    const k1 = load<i32>(ptr + (<usize>i << 2), 4);
    axpby_f32(y + (<usize>i << 2), rowdot_f32(idx, val, x, k0, k1), a, b);
    k0 = k1;
  }
}

export function csr_f64(ptr: usize, idx: usize, val: usize, x: usize, y: usize, alpha: f64, beta: f64, rowStart: i32, rowEnd: i32): void {
  if (rowStart >= rowEnd) return;
  let k0 = load<i32>(ptr + (<usize>rowStart << 2));
  for (let i = rowStart; i < rowEnd; i++) {
    const k1 = load<i32>(ptr + (<usize>i << 2), 4);
    axpby_f64(y + (<usize>i << 3), rowdot_f64(idx, val, x, k0, k1), alpha, beta);
    k0 = k1;
  }
}

export function csr_c64(
  ptr: usize, idx: usize, val: usize, x: usize, y: usize,
  alphaRe: f64, alphaIm: f64, betaRe: f64, betaIm: f64, conj: i32, rowStart: i32, rowEnd: i32,
): void {
  const ar = <f32>alphaRe, ai = <f32>alphaIm, br = <f32>betaRe, bi = <f32>betaIm;
  if (rowStart >= rowEnd) return;
  let k0 = load<i32>(ptr + (<usize>rowStart << 2));
  for (let i = rowStart; i < rowEnd; i++) {
    const k1 = load<i32>(ptr + (<usize>i << 2), 4);
    rowdot_c64(idx, val, x, k0, k1, conj, 0, 0, y + (<usize>i << 3), ar, ai, br, bi);
    k0 = k1;
  }
}

export function csr_c128(
  ptr: usize, idx: usize, val: usize, x: usize, y: usize,
  alphaRe: f64, alphaIm: f64, betaRe: f64, betaIm: f64, conj: i32, rowStart: i32, rowEnd: i32,
): void {
  if (rowStart >= rowEnd) return;
  let k0 = load<i32>(ptr + (<usize>rowStart << 2));
  for (let i = rowStart; i < rowEnd; i++) {
    const k1 = load<i32>(ptr + (<usize>i << 2), 4);
    rowdot_c128(idx, val, x, k0, k1, conj, 0, 0, y + (<usize>i << 4), alphaRe, alphaIm, betaRe, betaIm);
    k0 = k1;
  }
}

// ---------------------------------------------------------------- scatter
// Column indices may repeat within a segment (user-built CSR), so every y update is a sequential
// read-modify-write: the SIMD part only forms the products val·t four (or two) at a time, then the
// lanes are added to y one after the other — never two loads of y before the matching stores.

export function csr_scatter_f32(ptr: usize, idx: usize, val: usize, x: usize, y: usize, alpha: f64, segStart: i32, segEnd: i32): void {
  const a = <f32>alpha;
  for (let i = segStart; i < segEnd; i++) {
    const t = a * load<f32>(x + (<usize>i << 2));
    let k = load<i32>(ptr + (<usize>i << 2));
    const k1 = load<i32>(ptr + (<usize>i << 2), 4);
    if (ASC_FEATURE_SIMD) {
      const tv = f32x4.splat(t);
      for (; k + 4 <= k1; k += 4) {
        const p = f32x4.mul(v128.load(val + (<usize>k << 2)), tv);
        const iv = v128.load(idx + (<usize>k << 2));
        let yp = y + (<usize>i32x4.extract_lane(iv, 0) << 2);
        store<f32>(yp, load<f32>(yp) + f32x4.extract_lane(p, 0));
        yp = y + (<usize>i32x4.extract_lane(iv, 1) << 2);
        store<f32>(yp, load<f32>(yp) + f32x4.extract_lane(p, 1));
        yp = y + (<usize>i32x4.extract_lane(iv, 2) << 2);
        store<f32>(yp, load<f32>(yp) + f32x4.extract_lane(p, 2));
        yp = y + (<usize>i32x4.extract_lane(iv, 3) << 2);
        store<f32>(yp, load<f32>(yp) + f32x4.extract_lane(p, 3));
      }
    }
    for (; k < k1; k++) {
      const yp = y + (<usize>load<i32>(idx + (<usize>k << 2)) << 2);
      store<f32>(yp, load<f32>(yp) + load<f32>(val + (<usize>k << 2)) * t);
    }
  }
}

export function csr_scatter_f64(ptr: usize, idx: usize, val: usize, x: usize, y: usize, alpha: f64, segStart: i32, segEnd: i32): void {
  for (let i = segStart; i < segEnd; i++) {
    const t = alpha * load<f64>(x + (<usize>i << 3));
    let k = load<i32>(ptr + (<usize>i << 2));
    const k1 = load<i32>(ptr + (<usize>i << 2), 4);
    if (ASC_FEATURE_SIMD) {
      const tv = f64x2.splat(t);
      for (; k + 2 <= k1; k += 2) {
        const p = f64x2.mul(v128.load(val + (<usize>k << 3)), tv);
        const ip = idx + (<usize>k << 2);
        let yp = y + (<usize>load<i32>(ip) << 3);
        store<f64>(yp, load<f64>(yp) + f64x2.extract_lane(p, 0));
        yp = y + (<usize>load<i32>(ip, 4) << 3);
        store<f64>(yp, load<f64>(yp) + f64x2.extract_lane(p, 1));
      }
    }
    for (; k < k1; k++) {
      const yp = y + (<usize>load<i32>(idx + (<usize>k << 2)) << 3);
      store<f64>(yp, load<f64>(yp) + load<f64>(val + (<usize>k << 3)) * t);
    }
  }
}

export function csr_scatter_c64(
  ptr: usize, idx: usize, val: usize, x: usize, y: usize, alphaRe: f64, alphaIm: f64, conj: i32, segStart: i32, segEnd: i32,
): void {
  const ar = <f32>alphaRe, ai = <f32>alphaIm;
  const sg: f32 = conj ? -1 : 1;
  for (let i = segStart; i < segEnd; i++) {
    // t = α·x[i]; every entry of the segment adds t·val'[k]
    const xp = x + (<usize>i << 3);
    const xr = load<f32>(xp), xi = load<f32>(xp, 4);
    const tr = ar * xr - ai * xi, ti = ar * xi + ai * xr;
    let k = load<i32>(ptr + (<usize>i << 2));
    const k1 = load<i32>(ptr + (<usize>i << 2), 4);
    if (ASC_FEATURE_SIMD) {
      const T1 = cconstT1_64(tr, conj), T2 = cconstT2_64(ti, conj);
      for (; k + 2 <= k1; k += 2) {
        const p = cmulByConst64(v128.load(val + (<usize>k << 3)), T1, T2);
        const ip = idx + (<usize>k << 2);
        const y0 = y + (<usize>load<i32>(ip) << 3);
        v128.store64_lane(y0, f32x4.add(v128.load64_zero(y0), p), 0);
        // reload after the store: idx[k+1] may equal idx[k]
        const y1 = y + (<usize>load<i32>(ip, 4) << 3);
        v128.store64_lane(y1, f32x4.add(v128.load64_lane(y1, p, 1), p), 1);
      }
    }
    for (; k < k1; k++) {
      const vp = val + (<usize>k << 3);
      const yp = y + (<usize>load<i32>(idx + (<usize>k << 2)) << 3);
      const vr = load<f32>(vp), vi = sg * load<f32>(vp, 4);
      store<f32>(yp, load<f32>(yp) + (vr * tr - vi * ti));
      store<f32>(yp, load<f32>(yp, 4) + (vr * ti + vi * tr), 4);
    }
  }
}

export function csr_scatter_c128(
  ptr: usize, idx: usize, val: usize, x: usize, y: usize, alphaRe: f64, alphaIm: f64, conj: i32, segStart: i32, segEnd: i32,
): void {
  const sg: f64 = conj ? -1 : 1;
  for (let i = segStart; i < segEnd; i++) {
    const xp = x + (<usize>i << 4);
    const xr = load<f64>(xp), xi = load<f64>(xp, 8);
    const tr = alphaRe * xr - alphaIm * xi, ti = alphaRe * xi + alphaIm * xr;
    let k = load<i32>(ptr + (<usize>i << 2));
    const k1 = load<i32>(ptr + (<usize>i << 2), 4);
    if (ASC_FEATURE_SIMD) {
      const T1 = cconstT1_128(tr, conj), T2 = cconstT2_128(ti, conj);
      for (; k < k1; k++) {
        const yp = y + (<usize>load<i32>(idx + (<usize>k << 2)) << 4);
        v128.store(yp, f64x2.add(v128.load(yp), cmulByConst128(v128.load(val + (<usize>k << 4)), T1, T2)));
      }
    } else {
      for (; k < k1; k++) {
        const vp = val + (<usize>k << 4);
        const yp = y + (<usize>load<i32>(idx + (<usize>k << 2)) << 4);
        const vr = load<f64>(vp), vi = sg * load<f64>(vp, 8);
        store<f64>(yp, load<f64>(yp) + (vr * tr - vi * ti));
        store<f64>(yp, load<f64>(yp, 8) + (vr * ti + vi * tr), 8);
      }
    }
  }
}
