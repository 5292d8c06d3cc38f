// JDS (jagged diagonal storage) SpMV over positions [posStart, posEnd) of the permuted order. Jagged
// diagonal d holds the d-th entry of every position p < len_d at jdPtr[d] + p, so one diagonal is a
// contiguous run of values and indices that maps onto the contiguous scratch work[p]: the inner loop is
// pure streaming SIMD (v128 loads of values, indices and work; x gathered by lane). Diagonal lengths are
// nonincreasing, so the first diagonal shorter than posStart ends the sweep. The real SIMD kernels take two
// diagonals per pass over work (each position still adds diagonal d before d + 1: the same bits). Finally
// y[perm[p]] = α·work[p] + β·y[perm[p]] (β == 0: y not read).
//
// The exported kernels take the positions in blocks of JDS_BLOCK: a block's slice of work stays in L1
// through all its diagonals, where a sweep over the whole range would stream work through memory once
// per diagonal pair (as much traffic again as the matrix in f64). Every position still adds the same
// diagonals in the same order, so blocking changes no bits.
import {
  axpby_f32, axpby_f64, caxpby_c64, caxpby_c128, cmul64, cmul128, conjMask64, conjMask128,
} from './complex';

function jdsBlock_f32(
  perm: usize, jdPtr: usize, njd: i32, idx: usize, val: usize, x: usize, y: usize, work: usize,
  alpha: f64, beta: f64, posStart: i32, posEnd: i32,
): void {
  if (posStart >= posEnd) return;
  memory.fill(work + (<usize>posStart << 2), 0, <usize>(posEnd - posStart) << 2);
  let d0 = 0;
  if (ASC_FEATURE_SIMD) {
    // two jagged diagonals per pass over work, as jds_f64
    for (; d0 + 2 <= njd; d0 += 2) {
      const base0 = load<i32>(jdPtr + (<usize>d0 << 2));
      const base1 = load<i32>(jdPtr + (<usize>d0 << 2), 4);
      const hi0 = min(base1 - base0, posEnd);
      const hi1 = min(load<i32>(jdPtr + (<usize>d0 << 2), 8) - base1, posEnd);
      if (hi0 <= posStart) break;
      const ib0 = idx + (<usize>base0 << 2), vb0 = val + (<usize>base0 << 2);
      const ib1 = idx + (<usize>base1 << 2), vb1 = val + (<usize>base1 << 2);
      let p = posStart;
      for (; p + 4 <= hi1; p += 4) {
        const o = <usize>p << 2;
        const i0 = v128.load(ib0 + o), i1 = v128.load(ib1 + o);
        let g0 = v128.load32_zero(x + (<usize>i32x4.extract_lane(i0, 0) << 2));
        let g1 = v128.load32_zero(x + (<usize>i32x4.extract_lane(i1, 0) << 2));
        g0 = v128.load32_lane(x + (<usize>i32x4.extract_lane(i0, 1) << 2), g0, 1);
        g1 = v128.load32_lane(x + (<usize>i32x4.extract_lane(i1, 1) << 2), g1, 1);
        g0 = v128.load32_lane(x + (<usize>i32x4.extract_lane(i0, 2) << 2), g0, 2);
        g1 = v128.load32_lane(x + (<usize>i32x4.extract_lane(i1, 2) << 2), g1, 2);
        g0 = v128.load32_lane(x + (<usize>i32x4.extract_lane(i0, 3) << 2), g0, 3);
        g1 = v128.load32_lane(x + (<usize>i32x4.extract_lane(i1, 3) << 2), g1, 3);
        const wp = work + o;
        v128.store(wp, f32x4.add(f32x4.add(v128.load(wp), f32x4.mul(v128.load(vb0 + o), g0)), f32x4.mul(v128.load(vb1 + o), g1)));
      }
      for (; p < hi1; p++) {
        const o = <usize>p << 2;
        const t = load<f32>(work + o) + load<f32>(vb0 + o) * load<f32>(x + (<usize>load<i32>(ib0 + o) << 2));
        store<f32>(work + o, t + load<f32>(vb1 + o) * load<f32>(x + (<usize>load<i32>(ib1 + o) << 2)));
      }
      for (; p + 4 <= hi0; p += 4) {
        const o = <usize>p << 2;
        const i0 = v128.load(ib0 + o);
        let g0 = v128.load32_zero(x + (<usize>i32x4.extract_lane(i0, 0) << 2));
        g0 = v128.load32_lane(x + (<usize>i32x4.extract_lane(i0, 1) << 2), g0, 1);
        g0 = v128.load32_lane(x + (<usize>i32x4.extract_lane(i0, 2) << 2), g0, 2);
        g0 = v128.load32_lane(x + (<usize>i32x4.extract_lane(i0, 3) << 2), g0, 3);
        const wp = work + o;
        v128.store(wp, f32x4.add(v128.load(wp), f32x4.mul(v128.load(vb0 + o), g0)));
      }
      for (; p < hi0; p++) {
        const o = <usize>p << 2;
        store<f32>(work + o, load<f32>(work + o) + load<f32>(vb0 + o) * load<f32>(x + (<usize>load<i32>(ib0 + o) << 2)));
      }
    }
  }
  for (let d = d0; d < njd; d++) {
    const base = load<i32>(jdPtr + (<usize>d << 2));
    const hi = min(load<i32>(jdPtr + (<usize>d << 2), 4) - base, posEnd);
    if (hi <= posStart) break;
    // entry of position p: idx/val at element base + p
    const ib = idx + (<usize>base << 2), vb = val + (<usize>base << 2);
    let p = posStart;
    if (ASC_FEATURE_SIMD) {
      for (; p + 8 <= hi; p += 8) {
        const o = <usize>p << 2;
        const i0 = v128.load(ib + o), i1 = v128.load(ib + o, 16);
        let g0 = v128.load32_zero(x + (<usize>i32x4.extract_lane(i0, 0) << 2));
        let g1 = v128.load32_zero(x + (<usize>i32x4.extract_lane(i1, 0) << 2));
        g0 = v128.load32_lane(x + (<usize>i32x4.extract_lane(i0, 1) << 2), g0, 1);
        g1 = v128.load32_lane(x + (<usize>i32x4.extract_lane(i1, 1) << 2), g1, 1);
        g0 = v128.load32_lane(x + (<usize>i32x4.extract_lane(i0, 2) << 2), g0, 2);
        g1 = v128.load32_lane(x + (<usize>i32x4.extract_lane(i1, 2) << 2), g1, 2);
        g0 = v128.load32_lane(x + (<usize>i32x4.extract_lane(i0, 3) << 2), g0, 3);
        g1 = v128.load32_lane(x + (<usize>i32x4.extract_lane(i1, 3) << 2), g1, 3);
        const wp = work + o;
        v128.store(wp, f32x4.add(v128.load(wp), f32x4.mul(v128.load(vb + o), g0)));
        v128.store(wp, f32x4.add(v128.load(wp, 16), f32x4.mul(v128.load(vb + o, 16), g1)), 16);
      }
      if (p + 4 <= hi) {
        const o = <usize>p << 2;
        const i0 = v128.load(ib + o);
        let g0 = v128.load32_zero(x + (<usize>i32x4.extract_lane(i0, 0) << 2));
        g0 = v128.load32_lane(x + (<usize>i32x4.extract_lane(i0, 1) << 2), g0, 1);
        g0 = v128.load32_lane(x + (<usize>i32x4.extract_lane(i0, 2) << 2), g0, 2);
        g0 = v128.load32_lane(x + (<usize>i32x4.extract_lane(i0, 3) << 2), g0, 3);
        const wp = work + o;
        v128.store(wp, f32x4.add(v128.load(wp), f32x4.mul(v128.load(vb + o), g0)));
        p += 4;
      }
    }
    for (; p < hi; p++) {
      const o = <usize>p << 2;
      store<f32>(work + o, load<f32>(work + o) + load<f32>(vb + o) * load<f32>(x + (<usize>load<i32>(ib + o) << 2)));
    }
  }
  const a = <f32>alpha, b = <f32>beta;
  for (let p = posStart; p < posEnd; p++) {
    const o = <usize>p << 2;
    axpby_f32(y + (<usize>load<i32>(perm + o) << 2), load<f32>(work + o), a, b);
  }
}

function jdsBlock_f64(
  perm: usize, jdPtr: usize, njd: i32, idx: usize, val: usize, x: usize, y: usize, work: usize,
  alpha: f64, beta: f64, posStart: i32, posEnd: i32,
): void {
  if (posStart >= posEnd) return;
  memory.fill(work + (<usize>posStart << 3), 0, <usize>(posEnd - posStart) << 3);
  let d0 = 0;
  if (ASC_FEATURE_SIMD) {
    // two jagged diagonals per pass over work (half the work traffic): work[p] += a·x, then += b·x —
    // the same operations in the same order as two passes, so the same bits
    for (; d0 + 2 <= njd; d0 += 2) {
      const base0 = load<i32>(jdPtr + (<usize>d0 << 2));
      const base1 = load<i32>(jdPtr + (<usize>d0 << 2), 4);
      const hi0 = min(base1 - base0, posEnd);
      const hi1 = min(load<i32>(jdPtr + (<usize>d0 << 2), 8) - base1, posEnd);
      if (hi0 <= posStart) break;
      const ib0 = idx + (<usize>base0 << 2), vb0 = val + (<usize>base0 << 3);
      const ib1 = idx + (<usize>base1 << 2), vb1 = val + (<usize>base1 << 3);
      let p = posStart;
      for (; p + 2 <= hi1; p += 2) {
        const o = <usize>p << 3, oi = <usize>p << 2;
        let g0 = v128.load64_zero(x + (<usize>load<i32>(ib0 + oi) << 3));
        let g1 = v128.load64_zero(x + (<usize>load<i32>(ib1 + oi) << 3));
        g0 = v128.load64_lane(x + (<usize>load<i32>(ib0 + oi, 4) << 3), g0, 1);
        g1 = v128.load64_lane(x + (<usize>load<i32>(ib1 + oi, 4) << 3), g1, 1);
        const wp = work + o;
        v128.store(wp, f64x2.add(f64x2.add(v128.load(wp), f64x2.mul(v128.load(vb0 + o), g0)), f64x2.mul(v128.load(vb1 + o), g1)));
      }
      for (; p < hi1; p++) {
        const o = <usize>p << 3, oi = <usize>p << 2;
        const t = load<f64>(work + o) + load<f64>(vb0 + o) * load<f64>(x + (<usize>load<i32>(ib0 + oi) << 3));
        store<f64>(work + o, t + load<f64>(vb1 + o) * load<f64>(x + (<usize>load<i32>(ib1 + oi) << 3)));
      }
      for (; p + 2 <= hi0; p += 2) {
        const o = <usize>p << 3, oi = <usize>p << 2;
        let g0 = v128.load64_zero(x + (<usize>load<i32>(ib0 + oi) << 3));
        g0 = v128.load64_lane(x + (<usize>load<i32>(ib0 + oi, 4) << 3), g0, 1);
        const wp = work + o;
        v128.store(wp, f64x2.add(v128.load(wp), f64x2.mul(v128.load(vb0 + o), g0)));
      }
      for (; p < hi0; p++) {
        const o = <usize>p << 3;
        store<f64>(work + o, load<f64>(work + o) + load<f64>(vb0 + o) * load<f64>(x + (<usize>load<i32>(ib0 + (<usize>p << 2)) << 3)));
      }
    }
  }
  for (let d = d0; d < njd; d++) {
    const base = load<i32>(jdPtr + (<usize>d << 2));
    const hi = min(load<i32>(jdPtr + (<usize>d << 2), 4) - base, posEnd);
    if (hi <= posStart) break;
    const ib = idx + (<usize>base << 2), vb = val + (<usize>base << 3);
    let p = posStart;
    if (ASC_FEATURE_SIMD) {
      for (; p + 4 <= hi; p += 4) {
        const i0 = v128.load(ib + (<usize>p << 2));
        const o = <usize>p << 3;
        let g0 = v128.load64_zero(x + (<usize>i32x4.extract_lane(i0, 0) << 3));
        let g1 = v128.load64_zero(x + (<usize>i32x4.extract_lane(i0, 2) << 3));
        g0 = v128.load64_lane(x + (<usize>i32x4.extract_lane(i0, 1) << 3), g0, 1);
        g1 = v128.load64_lane(x + (<usize>i32x4.extract_lane(i0, 3) << 3), g1, 1);
        const wp = work + o;
        v128.store(wp, f64x2.add(v128.load(wp), f64x2.mul(v128.load(vb + o), g0)));
        v128.store(wp, f64x2.add(v128.load(wp, 16), f64x2.mul(v128.load(vb + o, 16), g1)), 16);
      }
    }
    for (; p < hi; p++) {
      const o = <usize>p << 3;
      store<f64>(work + o, load<f64>(work + o) + load<f64>(vb + o) * load<f64>(x + (<usize>load<i32>(ib + (<usize>p << 2)) << 3)));
    }
  }
  for (let p = posStart; p < posEnd; p++) {
    axpby_f64(y + (<usize>load<i32>(perm + (<usize>p << 2)) << 3), load<f64>(work + (<usize>p << 3)), alpha, beta);
  }
}

function jdsBlock_c64(
  perm: usize, jdPtr: usize, njd: i32, idx: usize, val: usize, x: usize, y: usize, work: usize,
  alphaRe: f64, alphaIm: f64, betaRe: f64, betaIm: f64, conj: i32, posStart: i32, posEnd: i32,
): void {
  if (posStart >= posEnd) return;
  memory.fill(work + (<usize>posStart << 3), 0, <usize>(posEnd - posStart) << 3);
  const sg: f32 = conj ? -1 : 1;
  for (let d = 0; d < njd; d++) {
    const base = load<i32>(jdPtr + (<usize>d << 2));
    const hi = min(load<i32>(jdPtr + (<usize>d << 2), 4) - base, posEnd);
    if (hi <= posStart) break;
    const ib = idx + (<usize>base << 2), vb = val + (<usize>base << 3);
    let p = posStart;
    if (ASC_FEATURE_SIMD) {
      const cm = conjMask64(conj);
      for (; p + 4 <= hi; p += 4) {
        const i0 = v128.load(ib + (<usize>p << 2));
        const o = <usize>p << 3;
        let g0 = v128.load64_zero(x + (<usize>i32x4.extract_lane(i0, 0) << 3));
        let g1 = v128.load64_zero(x + (<usize>i32x4.extract_lane(i0, 2) << 3));
        g0 = v128.load64_lane(x + (<usize>i32x4.extract_lane(i0, 1) << 3), g0, 1);
        g1 = v128.load64_lane(x + (<usize>i32x4.extract_lane(i0, 3) << 3), g1, 1);
        const wp = work + o;
        v128.store(wp, f32x4.add(v128.load(wp), cmul64(v128.xor(v128.load(vb + o), cm), g0)));
        v128.store(wp, f32x4.add(v128.load(wp, 16), cmul64(v128.xor(v128.load(vb + o, 16), cm), g1)), 16);
      }
    }
    for (; p < hi; p++) {
      const o = <usize>p << 3;
      const xp = x + (<usize>load<i32>(ib + (<usize>p << 2)) << 3);
      const vr = load<f32>(vb + o), vi = sg * load<f32>(vb + o, 4);
      const xr = load<f32>(xp), xi = load<f32>(xp, 4);
      store<f32>(work + o, load<f32>(work + o) + (vr * xr - vi * xi));
      store<f32>(work + o, load<f32>(work + o, 4) + (vr * xi + vi * xr), 4);
    }
  }
  const ar = <f32>alphaRe, ai = <f32>alphaIm, br = <f32>betaRe, bi = <f32>betaIm;
  for (let p = posStart; p < posEnd; p++) {
    const o = <usize>p << 3;
    caxpby_c64(y + (<usize>load<i32>(perm + (<usize>p << 2)) << 3), load<f32>(work + o), load<f32>(work + o, 4), ar, ai, br, bi);
  }
}

function jdsBlock_c128(
  perm: usize, jdPtr: usize, njd: i32, idx: usize, val: usize, x: usize, y: usize, work: usize,
  alphaRe: f64, alphaIm: f64, betaRe: f64, betaIm: f64, conj: i32, posStart: i32, posEnd: i32,
): void {
  if (posStart >= posEnd) return;
  memory.fill(work + (<usize>posStart << 4), 0, <usize>(posEnd - posStart) << 4);
  const sg: f64 = conj ? -1 : 1;
  for (let d = 0; d < njd; d++) {
    const base = load<i32>(jdPtr + (<usize>d << 2));
    const hi = min(load<i32>(jdPtr + (<usize>d << 2), 4) - base, posEnd);
    if (hi <= posStart) break;
    const ib = idx + (<usize>base << 2), vb = val + (<usize>base << 4);
    let p = posStart;
    if (ASC_FEATURE_SIMD) {
      const cm = conjMask128(conj);
      for (; p < hi; p++) {
        const o = <usize>p << 4;
        const g = v128.load(x + (<usize>load<i32>(ib + (<usize>p << 2)) << 4));
        v128.store(work + o, f64x2.add(v128.load(work + o), cmul128(v128.xor(v128.load(vb + o), cm), g)));
      }
    }
    for (; p < hi; p++) {
      const o = <usize>p << 4;
      const xp = x + (<usize>load<i32>(ib + (<usize>p << 2)) << 4);
      const vr = load<f64>(vb + o), vi = sg * load<f64>(vb + o, 8);
      const xr = load<f64>(xp), xi = load<f64>(xp, 8);
      store<f64>(work + o, load<f64>(work + o) + (vr * xr - vi * xi));
      store<f64>(work + o, load<f64>(work + o, 8) + (vr * xi + vi * xr), 8);
    }
  }
  for (let p = posStart; p < posEnd; p++) {
    const o = <usize>p << 4;
    caxpby_c128(y + (<usize>load<i32>(perm + (<usize>p << 2)) << 4), load<f64>(work + o), load<f64>(work + o, 8), alphaRe, alphaIm, betaRe, betaIm);
  }
}

/** Positions per block: work of 8 KiB (f32) to 32 KiB (c128). */
// @ts-ignore: decorator
@inline const JDS_BLOCK: i32 = 2048;

export function jds_f32(
  perm: usize, jdPtr: usize, njd: i32, idx: usize, val: usize, x: usize, y: usize, work: usize,
  alpha: f64, beta: f64, posStart: i32, posEnd: i32,
): void {
  for (let b = posStart; b < posEnd; b += JDS_BLOCK) jdsBlock_f32(perm, jdPtr, njd, idx, val, x, y, work, alpha, beta, b, min(b + JDS_BLOCK, posEnd));
}

export function jds_f64(
  perm: usize, jdPtr: usize, njd: i32, idx: usize, val: usize, x: usize, y: usize, work: usize,
  alpha: f64, beta: f64, posStart: i32, posEnd: i32,
): void {
  for (let b = posStart; b < posEnd; b += JDS_BLOCK) jdsBlock_f64(perm, jdPtr, njd, idx, val, x, y, work, alpha, beta, b, min(b + JDS_BLOCK, posEnd));
}

export function jds_c64(
  perm: usize, jdPtr: usize, njd: i32, idx: usize, val: usize, x: usize, y: usize, work: usize,
  alphaRe: f64, alphaIm: f64, betaRe: f64, betaIm: f64, conj: i32, posStart: i32, posEnd: i32,
): void {
  for (let b = posStart; b < posEnd; b += JDS_BLOCK) {
    jdsBlock_c64(perm, jdPtr, njd, idx, val, x, y, work, alphaRe, alphaIm, betaRe, betaIm, conj, b, min(b + JDS_BLOCK, posEnd));
  }
}

export function jds_c128(
  perm: usize, jdPtr: usize, njd: i32, idx: usize, val: usize, x: usize, y: usize, work: usize,
  alphaRe: f64, alphaIm: f64, betaRe: f64, betaIm: f64, conj: i32, posStart: i32, posEnd: i32,
): void {
  for (let b = posStart; b < posEnd; b += JDS_BLOCK) {
    jdsBlock_c128(perm, jdPtr, njd, idx, val, x, y, work, alphaRe, alphaIm, betaRe, betaIm, conj, b, min(b + JDS_BLOCK, posEnd));
  }
}
