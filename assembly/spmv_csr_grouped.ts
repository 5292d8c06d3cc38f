// CSR in aligned 4-row groups (the CPU backend's layout for stencil-like and banded matrices, see
// src/cpu/csr-layout.ts), real dtypes:
//  * csr16_<dt>: every entry within ±32767 of the diagonal, its column stored as the i16 offset
//    col − row, so row i reads x from its own x[i]: x + (i + d)·size (d < 0 too: wasm32 addresses
//    wrap) — 2 bytes per entry instead of 4;
//  * csrg_<dt>: the i32 columns themselves.
// Group g = rows 4g..4g+3. A uniform group (grp[g] = 1: 4 rows of equal length n ≤ SHORT_ROW whose
// columns are those of the row above plus one, entry by entry — a stencil's interior) stores its
// entries interleaved, entry k of row q at p + 4k + q (p = ptr[4g]). Entry k's x elements of the 4 rows
// are then adjacent, x[c + q] with c row 0's column, so one v128 load fetches them, and one (f32) or two
// (f64) the 4 values: lane q = row q. The other groups keep CSR order and run as csr_<dt> does (4
// equally long rows interleaved in scalar, rows one by one otherwise).
// Every row is summed in the rowdot2 order (even entries in one accumulator, odd in another, then their
// sum; a row longer than SHORT_ROW in rowdot_long's) whatever path takes it, lane or scalar,
// interleaved or not: the same bits as csr_<dt> on the CSR it came from, for any row range.
import {
  axpby_f32, axpby_f64, axpby4_f64, group4, rowdot_any_f32, rowdot_any_f64, rowdot4eq_f32, rowdot4eq_f64,
} from './complex';

/** Where row i's indices count from: its own x[i] for i16 offsets, x itself for i32 columns. */
// @ts-ignore: decorator
@inline function rowX<I, T>(x: usize, i: i32): usize {
  return sizeof<I>() == 2 ? x + (<usize>i << alignof<T>()) : x;
}

/** Row i of a uniform group, alone (range ends that cut a group; the plain build), in the rowdot2 order. */
// @ts-ignore: decorator
@inline function interleavedRow<I, T>(ptr: usize, idx: usize, val: usize, x: usize, i: i32): T {
  const S = sizeof<I>();
  const g = ptr + (<usize>(i & ~3) << 2);
  const p = load<i32>(g) + (i & 3);
  const n = load<i32>(g, 4) - p + (i & 3);
  let o = idx + (<usize>p << alignof<I>()), v = val + (<usize>p << alignof<T>());
  const xi = rowX<I, T>(x, i);
  let s: T = 0, s1: T = 0;
  for (let k = 0; k + 2 <= n; k += 2, o += 8 * S, v += 8 * sizeof<T>()) {
    s += load<T>(v) * load<T>(xi + (<usize>load<I>(o) << alignof<T>()));
    s1 += load<T>(v, 4 * sizeof<T>()) * load<T>(xi + (<usize>load<I>(o, 4 * S) << alignof<T>()));
  }
  if (n & 1) s += load<T>(v) * load<T>(xi + (<usize>load<I>(o) << alignof<T>()));
  return s + s1;
}

/** Row i's sum, from its group's layout. */
// @ts-ignore: decorator
@inline function groupedRow<I, T>(ptr: usize, idx: usize, val: usize, grp: usize, x: usize, i: i32): T {
  if (load<u8>(grp + (<usize>i >> 2))) return interleavedRow<I, T>(ptr, idx, val, x, i);
  const q = ptr + (<usize>i << 2);
  const xi = rowX<I, T>(x, i);
  if (sizeof<T>() == 4) return <T>rowdot_any_f32<I>(idx, val, xi, load<i32>(q), load<i32>(q, 4));
  return <T>rowdot_any_f64<I>(idx, val, xi, load<i32>(q), load<i32>(q, 4));
}

// @ts-ignore: decorator
@inline function grouped_f32<I>(
  ptr: usize, idx: usize, val: usize, grp: usize, x: usize, y: usize, alpha: f64, beta: f64, rowStart: i32, rowEnd: i32,
): void {
  const a = <f32>alpha, b = <f32>beta;
  let i = rowStart;
  // rows before the first whole group and after the last, one by one
  const head = min(rowEnd, (rowStart + 3) & ~3);
  for (; i < head; i++) axpby_f32(y + (<usize>i << 2), groupedRow<I, f32>(ptr, idx, val, grp, x, i), a, b);
  if (ASC_FEATURE_SIMD) {
    const av = f32x4.splat(a), bv = f32x4.splat(b);
    for (; i + 4 <= rowEnd; i += 4) {
      const pp = ptr + (<usize>i << 2);
      const yp = y + (<usize>i << 2);
      let r: v128;
      if (load<u8>(grp + (<usize>i >> 2))) r = uniform4_f32<I>(pp, idx, val, rowX<I, f32>(x, i));
      else if (group4(pp, 0) == 0) r = rowdot4eq_f32<I>(pp, idx, val, rowX<I, f32>(x, i));
      else {
        for (let q = i; q < i + 4; q++) axpby_f32(y + (<usize>q << 2), groupedRow<I, f32>(ptr, idx, val, grp, x, q), a, b);
        continue;
      }
      r = f32x4.mul(av, r);
      v128.store(yp, b == 0 ? r : f32x4.add(r, f32x4.mul(bv, v128.load(yp))));
    }
  }
  for (; i < rowEnd; i++) axpby_f32(y + (<usize>i << 2), groupedRow<I, f32>(ptr, idx, val, grp, x, i), a, b);
}

/** The 4 sums of a uniform group at pp (x: its first row's base, rowX) as an f32x4, lane q = row q. */
// @ts-ignore: decorator
@inline function uniform4_f32<I>(pp: usize, idx: usize, val: usize, x: usize): v128 {
  const S = sizeof<I>();
  const p = load<i32>(pp);
  const n = load<i32>(pp, 4) - p;
  let o = idx + (<usize>p << alignof<I>()), v = val + (<usize>p << 2);
  const oe = o + (<usize>(n & ~1) << (2 + alignof<I>()));
  let A = f32x4.splat(0), B = f32x4.splat(0);
  for (; o < oe; o += 8 * S, v += 32) {
    A = f32x4.add(A, f32x4.mul(v128.load(v), v128.load(x + (<usize>load<I>(o) << 2))));
    B = f32x4.add(B, f32x4.mul(v128.load(v, 16), v128.load(x + (<usize>load<I>(o, 4 * S) << 2))));
  }
  if (n & 1) A = f32x4.add(A, f32x4.mul(v128.load(v), v128.load(x + (<usize>load<I>(o) << 2))));
  return f32x4.add(A, B);
}

// @ts-ignore: decorator
@inline function grouped_f64<I>(
  ptr: usize, idx: usize, val: usize, grp: usize, x: usize, y: usize, alpha: f64, beta: f64, rowStart: i32, rowEnd: i32,
): void {
  let i = rowStart;
  const head = min(rowEnd, (rowStart + 3) & ~3);
  for (; i < head; i++) axpby_f64(y + (<usize>i << 3), groupedRow<I, f64>(ptr, idx, val, grp, x, i), alpha, beta);
  if (ASC_FEATURE_SIMD) {
    const z = f64x2.splat(0);
    for (; i + 4 <= rowEnd; i += 4) {
      const pp = ptr + (<usize>i << 2);
      const yp = y + (<usize>i << 3);
      if (load<u8>(grp + (<usize>i >> 2))) uniform4_f64<I>(pp, idx, val, rowX<I, f64>(x, i), yp, alpha, beta);
      else if (group4(pp, 0) == 0) rowdot4eq_f64<I>(pp, idx, val, rowX<I, f64>(x, i), yp, alpha, beta, false, z, z);
      else for (let q = i; q < i + 4; q++) axpby_f64(y + (<usize>q << 3), groupedRow<I, f64>(ptr, idx, val, grp, x, q), alpha, beta);
    }
  }
  for (; i < rowEnd; i++) axpby_f64(y + (<usize>i << 3), groupedRow<I, f64>(ptr, idx, val, grp, x, i), alpha, beta);
}

/** uniform4_f32 for f64 (rows 0–1 and 2–3 in two f64x2), then y = α·s + β·y at yp. */
// @ts-ignore: decorator
@inline function uniform4_f64<I>(pp: usize, idx: usize, val: usize, x: usize, yp: usize, alpha: f64, beta: f64): void {
  const S = sizeof<I>();
  const p = load<i32>(pp);
  const n = load<i32>(pp, 4) - p;
  let o = idx + (<usize>p << alignof<I>()), v = val + (<usize>p << 3);
  const oe = o + (<usize>(n & ~1) << (2 + alignof<I>()));
  let A0 = f64x2.splat(0), A1 = f64x2.splat(0), B0 = f64x2.splat(0), B1 = f64x2.splat(0);
  for (; o < oe; o += 8 * S, v += 64) {
    const xa = x + (<usize>load<I>(o) << 3), xb = x + (<usize>load<I>(o, 4 * S) << 3);
    A0 = f64x2.add(A0, f64x2.mul(v128.load(v), v128.load(xa)));
    A1 = f64x2.add(A1, f64x2.mul(v128.load(v, 16), v128.load(xa, 16)));
    B0 = f64x2.add(B0, f64x2.mul(v128.load(v, 32), v128.load(xb)));
    B1 = f64x2.add(B1, f64x2.mul(v128.load(v, 48), v128.load(xb, 16)));
  }
  if (n & 1) {
    const xa = x + (<usize>load<I>(o) << 3);
    A0 = f64x2.add(A0, f64x2.mul(v128.load(v), v128.load(xa)));
    A1 = f64x2.add(A1, f64x2.mul(v128.load(v, 16), v128.load(xa, 16)));
  }
  const z = f64x2.splat(0);
  axpby4_f64(yp, f64x2.add(A0, B0), f64x2.add(A1, B1), alpha, beta, false, z, z);
}

export function csr16_f32(ptr: usize, off: usize, val: usize, grp: usize, x: usize, y: usize, alpha: f64, beta: f64, rowStart: i32, rowEnd: i32): void {
  grouped_f32<i16>(ptr, off, val, grp, x, y, alpha, beta, rowStart, rowEnd);
}

export function csr16_f64(ptr: usize, off: usize, val: usize, grp: usize, x: usize, y: usize, alpha: f64, beta: f64, rowStart: i32, rowEnd: i32): void {
  grouped_f64<i16>(ptr, off, val, grp, x, y, alpha, beta, rowStart, rowEnd);
}

export function csrg_f32(ptr: usize, idx: usize, val: usize, grp: usize, x: usize, y: usize, alpha: f64, beta: f64, rowStart: i32, rowEnd: i32): void {
  grouped_f32<i32>(ptr, idx, val, grp, x, y, alpha, beta, rowStart, rowEnd);
}

export function csrg_f64(ptr: usize, idx: usize, val: usize, grp: usize, x: usize, y: usize, alpha: f64, beta: f64, rowStart: i32, rowEnd: i32): void {
  grouped_f64<i32>(ptr, idx, val, grp, x, y, alpha, beta, rowStart, rowEnd);
}
