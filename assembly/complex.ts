// Shared inline helpers for the kernels: horizontal sums, complex arithmetic on v128 (c64: two
// complex [re0 im0 re1 im1] per v128; c128: one complex [re im]) and the scalar α/β epilogues.
// Every helper is @inline and this file is NOT re-exported from index.ts: helpers with v128 in their
// signature must only be referenced from inside `if (ASC_FEATURE_SIMD)` blocks, so the plain build
// never compiles them (AssemblyScript compiles functions lazily, on first reference).
//
// Two complex-product schemes, pick by which operand is fixed:
//  * Dot-product accumulation (gather kernels: Σ a_k·x_k): keep two accumulators
//      accA += a ⊙ x          = [ar·xr, ai·xi, …]
//      accB += a ⊙ swap(x)    = [ar·xi, ai·xr, …]
//    i.e. ONE shuffle per v128 (swap re/im of x), and finish once per row with cdotFinish*:
//      re = Σ accA.even − Σ accA.odd,  im = Σ accB.even + Σ accB.odd.
//    conj(a) only flips the signs of the odd (a.im) parts, so it costs nothing in the loop.
//  * Product with a fixed complex scalar t (scatter kernels, α application): precompute
//      T1 = [tr, s·tr, …], T2 = [−s·ti, ti, …]   (s = −1 when a is conjugated, else 1)
//    then t·a' = a ⊙ T1 + swap(a) ⊙ T2 (see cmulByConst*).
//  * General elementwise complex product of two v128s: cmul64 / cmul128 (conj via conjMask* xor).

// ---------------------------------------------------------------- horizontal sums (fixed order)

/** l0+l1+l2+l3 of an f32x4, summed as (l0+l2)+(l1+l3) — deterministic. */
// @ts-ignore: decorator
@inline export function hsum_f32x4(v: v128): f32 {
  const t = f32x4.add(v, f32x4.shuffle(v, v, 2, 3, 0, 1));
  return f32x4.extract_lane(t, 0) + f32x4.extract_lane(t, 1);
}

/** l0+l1 of an f64x2. */
// @ts-ignore: decorator
@inline export function hsum_f64x2(v: v128): f64 {
  return f64x2.extract_lane(v, 0) + f64x2.extract_lane(v, 1);
}

// ---------------------------------------------------------------- re/im swaps and conjugation

/** [re0 im0 re1 im1] → [im0 re0 im1 re1] (c64 pair). */
// @ts-ignore: decorator
@inline export function swap_c64(v: v128): v128 {
  return f32x4.shuffle(v, v, 1, 0, 3, 2);
}

/** [re im] → [im re] (c128). */
// @ts-ignore: decorator
@inline export function swap_c128(v: v128): v128 {
  return f64x2.shuffle(v, v, 1, 0);
}

/** Sign mask that conjugates c64 pairs when xor-ed in (flips the im lanes), or zero when conj == 0. */
// @ts-ignore: decorator
@inline export function conjMask64(conj: i32): v128 {
  return conj ? f32x4(0.0, -0.0, 0.0, -0.0) : i32x4.splat(0);
}

/** Sign mask that conjugates a c128 when xor-ed in, or zero when conj == 0. */
// @ts-ignore: decorator
@inline export function conjMask128(conj: i32): v128 {
  return conj ? f64x2(0.0, -0.0) : i64x2.splat(0);
}

// ---------------------------------------------------------------- dot-product accumulation

/**
 * Finishes a c64 dot product from the two accumulators of the accA/accB scheme (each holding two
 * complex partial sums) into [re, im, re, im] — lanes 0/1 hold the result.
 */
// @ts-ignore: decorator
@inline export function cdotFinish64(accA: v128, accB: v128, conj: i32): v128 {
  // fold the two complex slots: [A.e A.o B.e B.o]
  const t = f32x4.add(f32x4.shuffle(accA, accB, 0, 1, 4, 5), f32x4.shuffle(accA, accB, 2, 3, 6, 7));
  // re = A.e ∓ A.o, im = B.e ± B.o  (conj flips which one gets the minus)
  const s = conj ? f32x4(1, 1, 1, -1) : f32x4(1, -1, 1, 1);
  const u = f32x4.mul(t, s);
  return f32x4.add(f32x4.shuffle(u, u, 0, 2, 0, 2), f32x4.shuffle(u, u, 1, 3, 1, 3));
}

/** Finishes a c128 dot product from accA = Σ a⊙x, accB = Σ a⊙swap(x) into [re, im]. */
// @ts-ignore: decorator
@inline export function cdotFinish128(accA: v128, accB: v128, conj: i32): v128 {
  // re = A.e ∓ A.o, im = B.e ± B.o  (conj flips which one gets the minus)
  const s = conj ? f64x2(1, -1) : f64x2(-1, 1);
  return f64x2.add(f64x2.shuffle(accA, accB, 0, 2), f64x2.mul(f64x2.shuffle(accA, accB, 1, 3), s));
}

// ---------------------------------------------------------------- product with a fixed complex scalar

/** T1 constant for cmulByConst64: [tr, s·tr, tr, s·tr] with s = conj ? −1 : 1. */
// @ts-ignore: decorator
@inline export function cconstT1_64(tr: f32, conj: i32): v128 {
  const str: f32 = conj ? -tr : tr;
  return f32x4.replace_lane(f32x4.replace_lane(f32x4.splat(tr), 1, str), 3, str);
}

/** T2 constant for cmulByConst64: [−s·ti, ti, −s·ti, ti]. */
// @ts-ignore: decorator
@inline export function cconstT2_64(ti: f32, conj: i32): v128 {
  const nti: f32 = conj ? ti : -ti;
  return f32x4.replace_lane(f32x4.replace_lane(f32x4.splat(ti), 0, nti), 2, nti);
}

/** t·a (or t·conj(a)) for the two complex in `a`, given T1/T2 from cconst*_64. */
// @ts-ignore: decorator
@inline export function cmulByConst64(a: v128, T1: v128, T2: v128): v128 {
  return f32x4.add(f32x4.mul(a, T1), f32x4.mul(swap_c64(a), T2));
}

/** T1 constant for cmulByConst128: [tr, s·tr]. */
// @ts-ignore: decorator
@inline export function cconstT1_128(tr: f64, conj: i32): v128 {
  return f64x2.replace_lane(f64x2.splat(tr), 1, conj ? -tr : tr);
}

/** T2 constant for cmulByConst128: [−s·ti, ti]. */
// @ts-ignore: decorator
@inline export function cconstT2_128(ti: f64, conj: i32): v128 {
  return f64x2.replace_lane(f64x2.splat(ti), 0, conj ? ti : -ti);
}

/** t·a (or t·conj(a)) for the complex in `a`, given T1/T2 from cconst*_128. */
// @ts-ignore: decorator
@inline export function cmulByConst128(a: v128, T1: v128, T2: v128): v128 {
  return f64x2.add(f64x2.mul(a, T1), f64x2.mul(swap_c128(a), T2));
}

// ---------------------------------------------------------------- general elementwise complex product

/** a ⊙ b for two c64 pairs (conjugate a first with v128.xor(a, conjMask64(1)) for op=H). */
// @ts-ignore: decorator
@inline export function cmul64(a: v128, b: v128): v128 {
  // [ar·br, ai·br] + [−ai·bi, ar·bi]
  const bre = f32x4.shuffle(b, b, 0, 0, 2, 2);
  const bim = f32x4.mul(f32x4.shuffle(b, b, 1, 1, 3, 3), f32x4(-1, 1, -1, 1));
  return f32x4.add(f32x4.mul(a, bre), f32x4.mul(swap_c64(a), bim));
}

/** a ⊙ b for two c128 values. */
// @ts-ignore: decorator
@inline export function cmul128(a: v128, b: v128): v128 {
  const bre = f64x2.shuffle(b, b, 0, 0);
  const bim = f64x2.mul(f64x2.shuffle(b, b, 1, 1), f64x2(-1, 1));
  return f64x2.add(f64x2.mul(a, bre), f64x2.mul(swap_c128(a), bim));
}

// ---------------------------------------------------------------- scalar epilogues (both builds)

/** y[i] = α·s + β·y[i] for f32 (β == 0: y not read). */
// @ts-ignore: decorator
@inline export function axpby_f32(yp: usize, s: f32, alpha: f32, beta: f32): void {
  store<f32>(yp, beta == 0 ? alpha * s : alpha * s + beta * load<f32>(yp));
}

/** y[i] = α·s + β·y[i] for f64 (β == 0: y not read). */
// @ts-ignore: decorator
@inline export function axpby_f64(yp: usize, s: f64, alpha: f64, beta: f64): void {
  store<f64>(yp, beta == 0 ? alpha * s : alpha * s + beta * load<f64>(yp));
}

/** c64 y = α·(sr + i·si) + β·y at yp, in f32 (β == 0 + 0i: y not read). */
// @ts-ignore: decorator
@inline export function caxpby_c64(yp: usize, sr: f32, si: f32, ar: f32, ai: f32, br: f32, bi: f32): void {
  let re = ar * sr - ai * si;
  let im = ar * si + ai * sr;
  if (br != 0 || bi != 0) {
    const yr = load<f32>(yp), yi = load<f32>(yp, 4);
    re += br * yr - bi * yi;
    im += br * yi + bi * yr;
  }
  store<f32>(yp, re);
  store<f32>(yp, im, 4);
}

/** c128 y = α·(sr + i·si) + β·y at yp (β == 0 + 0i: y not read). */
// @ts-ignore: decorator
@inline export function caxpby_c128(yp: usize, sr: f64, si: f64, ar: f64, ai: f64, br: f64, bi: f64): void {
  let re = ar * sr - ai * si;
  let im = ar * si + ai * sr;
  if (br != 0 || bi != 0) {
    const yr = load<f64>(yp), yi = load<f64>(yp, 8);
    re += br * yr - bi * yi;
    im += br * yi + bi * yr;
  }
  store<f64>(yp, re);
  store<f64>(yp, im, 8);
}

// ---------------------------------------------------------------- sparse row dot products (gather)
// Σ_{k in [k0,k1)} val[k]·x[idx[k]] over one CSR-like row, shared by the CSR and MRS kernels. Row
// segments start anywhere (not 16-byte aligned), so all v128 loads are unaligned (fine in wasm).
// SIMD: values loaded as v128, x gathered per lane (gather4_f32 / gather2_f64, or 64-bit lanes for
// c64); two independent accumulators hide the add latency; then a 4- (or 2-) wide step and a scalar
// tail so rows of any length work. The summation order is fixed per row.
// Column indices: I = i32, the columns themselves (x: the vector); or I = i16, a banded CSR's offsets
// from the diagonal (spmv_csr.ts csr16_*; x: the row's own x[i], so x[i + d] = x + d·size, d < 0 too:
// wasm32 addresses wrap). Either way the same loads of values and x in the same order: the same bits.

/** Byte address of x[column] for the index at ip (see I above). */
// @ts-ignore: decorator
@inline export function xAt<I, T>(x: usize, ip: usize): usize {
  return x + (<usize>load<I>(ip) << alignof<T>());
}

/** Byte address of index k in an index array of I. */
// @ts-ignore: decorator
@inline export function idxAt<I>(idx: usize, k: i32): usize {
  return idx + (<usize>k << alignof<I>());
}

/** Byte step between consecutive rows' x bases: 0 for columns (I = i32), the element size for offsets. */
// @ts-ignore: decorator
@inline export function xStep<I, T>(): usize {
  return sizeof<I>() == 4 ? 0 : sizeof<T>();
}

/**
 * x[ip[0..3]] as an f32x4: four scalar index loads (cheaper than a v128 index load + 4 lane extracts)
 * and four 32-bit loads combined by a shuffle tree, so the lanes do not form a serial insert chain.
 */
// @ts-ignore: decorator
@inline export function gather4_f32<I = i32>(x: usize, ip: usize): v128 {
  const S = sizeof<I>();
  const a = v128.load32_zero(xAt<I, f32>(x, ip));
  const b = v128.load32_zero(xAt<I, f32>(x, ip + S));
  const c = v128.load32_zero(xAt<I, f32>(x, ip + 2 * S));
  const d = v128.load32_zero(xAt<I, f32>(x, ip + 3 * S));
  return i64x2.shuffle(i32x4.shuffle(a, b, 0, 4, 1, 5), i32x4.shuffle(c, d, 0, 4, 1, 5), 0, 2);
}

/** x[ip[0..1]] as an f64x2 (two 64-bit loads joined by one shuffle). */
// @ts-ignore: decorator
@inline export function gather2_f64<I = i32>(x: usize, ip: usize): v128 {
  const a = v128.load64_zero(xAt<I, f64>(x, ip));
  const b = v128.load64_zero(xAt<I, f64>(x, ip + sizeof<I>()));
  return i64x2.shuffle(a, b, 0, 2);
}

/** f32 row dot product: ×8 (two f32x4 accumulators), ×4 step, scalar tail (two accumulators). */
// @ts-ignore: decorator
@inline export function rowdot_f32<I = i32>(idx: usize, val: usize, x: usize, k0: i32, k1: i32): f32 {
  const S = sizeof<I>();
  let k = k0;
  let s: f32 = 0;
  // rows shorter than 8 (Poisson stencils, power-law tails) stay scalar: with one 4-wide step the
  // gather + horizontal sum costs as much as it saves
  if (ASC_FEATURE_SIMD && k1 - k0 >= 8) {
    let a0 = f32x4.splat(0);
    let a1 = f32x4.splat(0);
    for (; k + 8 <= k1; k += 8) {
      const ip = idxAt<I>(idx, k);
      const vp = val + (<usize>k << 2);
      a0 = f32x4.add(a0, f32x4.mul(v128.load(vp), gather4_f32<I>(x, ip)));
      a1 = f32x4.add(a1, f32x4.mul(v128.load(vp, 16), gather4_f32<I>(x, ip + 4 * S)));
    }
    if (k + 4 <= k1) {
      a0 = f32x4.add(a0, f32x4.mul(v128.load(val + (<usize>k << 2)), gather4_f32<I>(x, idxAt<I>(idx, k))));
      k += 4;
    }
    s = hsum_f32x4(f32x4.add(a0, a1));
  }
  // scalar: the < 4 leftover entries (SIMD build) or the whole row (plain build), two accumulators
  let s1: f32 = 0;
  for (; k + 2 <= k1; k += 2) {
    const ip = idxAt<I>(idx, k);
    const vp = val + (<usize>k << 2);
    s += load<f32>(vp) * load<f32>(xAt<I, f32>(x, ip));
    s1 += load<f32>(vp, 4) * load<f32>(xAt<I, f32>(x, ip + S));
  }
  if (k < k1) s += load<f32>(val + (<usize>k << 2)) * load<f32>(xAt<I, f32>(x, idxAt<I>(idx, k)));
  return s + s1;
}

/** f64 row dot product: ×4 (two f64x2 accumulators), ×2 step, scalar tail. */
// @ts-ignore: decorator
@inline export function rowdot_f64<I = i32>(idx: usize, val: usize, x: usize, k0: i32, k1: i32): f64 {
  const S = sizeof<I>();
  let k = k0;
  let s: f64 = 0;
  if (ASC_FEATURE_SIMD) {
    let a0 = f64x2.splat(0);
    let a1 = f64x2.splat(0);
    for (; k + 4 <= k1; k += 4) {
      const ip = idxAt<I>(idx, k);
      const vp = val + (<usize>k << 3);
      a0 = f64x2.add(a0, f64x2.mul(v128.load(vp), gather2_f64<I>(x, ip)));
      a1 = f64x2.add(a1, f64x2.mul(v128.load(vp, 16), gather2_f64<I>(x, ip + 2 * S)));
    }
    if (k + 2 <= k1) {
      a0 = f64x2.add(a0, f64x2.mul(v128.load(val + (<usize>k << 3)), gather2_f64<I>(x, idxAt<I>(idx, k))));
      k += 2;
    }
    s = hsum_f64x2(f64x2.add(a0, a1));
  }
  let s1: f64 = 0;
  for (; k + 2 <= k1; k += 2) {
    const ip = idxAt<I>(idx, k);
    const vp = val + (<usize>k << 3);
    s += load<f64>(vp) * load<f64>(xAt<I, f64>(x, ip));
    s1 += load<f64>(vp, 8) * load<f64>(xAt<I, f64>(x, ip + S));
  }
  if (k < k1) s += load<f64>(val + (<usize>k << 3)) * load<f64>(xAt<I, f64>(x, idxAt<I>(idx, k)));
  return s + s1;
}

// ---------------------------------------------------------------- short rows: SIMD across rows (SIMD build)
// At 2–8 entries per row (Poisson stencils, power-law graphs) the per-row costs of SIMD within a row
// (set-up, horizontal sum) outweigh its arithmetic, and with irregular lengths every row's trip count is
// a mispredicted branch. The SIMD build therefore takes the rows 4 at a time (group4 picks the path):
//  * 4 equally long short rows (stencils) — rowdot4eq_*: the 4 rows interleaved in scalar, 8 independent
//    accumulators and one trip count for the 4 (scalar beats lane gathers here: gathering into lanes
//    costs a shuffle per value and per x, and a regular trip count is predicted anyway);
//  * lengths that differ (power-law) — rowdot4_*, across rows: lane r accumulates row r's entries k,
//    k+1 (two accumulator vectors, even and odd entries), for as many steps as the group's longest
//    short row: no horizontal sums, one trip count per 4 rows, 8 independent x loads per step. Lanes
//    past their row's end (and lanes of long rows) read entries of later rows of the range (in bounds:
//    below the caller's kEnd) and have their products masked to +0, which leaves the sums unchanged
//    (they start at +0, so are never −0) and keeps Inf/NaN in x out; long rows are then done alone;
//  * anything else (4 equally long long rows, groups too near kEnd, the < 4 rows at the end of a
//    range) — row by row, rowdot_any_*.
// Determinism: a row's summation order must not depend on which rows share its group (the worker pool
// splits row ranges anywhere). Every row of at most SHORT_ROW entries is summed in the order of
// rowdot2_* — even entries in s, odd in s1, then s + s1 — in a lane, interleaved or alone (the same IEEE
// operations, so the same bits; also the plain build's bits); longer rows always use rowdot_* (SIMD
// within the row). So the order depends on the row's own length only, whichever path takes it.

/** Rows longer than this use SIMD within the row (rowdot_*); shorter ones the rowdot2_* order. */
// @ts-ignore: decorator
@inline export const SHORT_ROW: i32 = 16;

/** f32 Σ val[k]·x[idx[k]] with two scalar accumulators (even / odd entries): the plain build's row. */
// @ts-ignore: decorator
@inline export function rowdot2_f32<I = i32>(idx: usize, val: usize, x: usize, k0: i32, k1: i32): f32 {
  let s: f32 = 0, s1: f32 = 0;
  let k = k0;
  for (; k + 2 <= k1; k += 2) {
    const ip = idxAt<I>(idx, k);
    const vp = val + (<usize>k << 2);
    s += load<f32>(vp) * load<f32>(xAt<I, f32>(x, ip));
    s1 += load<f32>(vp, 4) * load<f32>(xAt<I, f32>(x, ip + sizeof<I>()));
  }
  if (k < k1) s += load<f32>(val + (<usize>k << 2)) * load<f32>(xAt<I, f32>(x, idxAt<I>(idx, k)));
  return s + s1;
}

/** f64 rowdot2_f32. */
// @ts-ignore: decorator
@inline export function rowdot2_f64<I = i32>(idx: usize, val: usize, x: usize, k0: i32, k1: i32): f64 {
  let s: f64 = 0, s1: f64 = 0;
  let k = k0;
  for (; k + 2 <= k1; k += 2) {
    const ip = idxAt<I>(idx, k);
    const vp = val + (<usize>k << 3);
    s += load<f64>(vp) * load<f64>(xAt<I, f64>(x, ip));
    s1 += load<f64>(vp, 8) * load<f64>(xAt<I, f64>(x, ip + sizeof<I>()));
  }
  if (k < k1) s += load<f64>(val + (<usize>k << 3)) * load<f64>(xAt<I, f64>(x, idxAt<I>(idx, k)));
  return s + s1;
}

/** A long row (SIMD within the row), as a real call: inlined copies would bloat the short-row loops. */
export function rowdot_long_f32<I = i32>(idx: usize, val: usize, x: usize, k0: i32, k1: i32): f32 {
  return rowdot_f32<I>(idx, val, x, k0, k1);
}

/** f64 rowdot_long_f32. */
export function rowdot_long_f64<I = i32>(idx: usize, val: usize, x: usize, k0: i32, k1: i32): f64 {
  return rowdot_f64<I>(idx, val, x, k0, k1);
}

/** One row of the SIMD build outside the across-rows loop: the path its lane would take. */
// @ts-ignore: decorator
@inline export function rowdot_any_f32<I = i32>(idx: usize, val: usize, x: usize, k0: i32, k1: i32): f32 {
  return k1 - k0 <= SHORT_ROW ? rowdot2_f32<I>(idx, val, x, k0, k1) : rowdot_long_f32<I>(idx, val, x, k0, k1);
}

/** f64 rowdot_any_f32. */
// @ts-ignore: decorator
@inline export function rowdot_any_f64<I = i32>(idx: usize, val: usize, x: usize, k0: i32, k1: i32): f64 {
  return k1 - k0 <= SHORT_ROW ? rowdot2_f64<I>(idx, val, x, k0, k1) : rowdot_long_f64<I>(idx, val, x, k0, k1);
}

/**
 * How the SIMD build takes the 4 rows at pp[0..4] (kEnd: the pointer at the end of the caller's range):
 * 0 — equally long short rows: rowdot4eq_*; 1 — lengths differ: across lanes, rowdot4_* (its over-reads,
 * up to SHORT_ROW entries past pp[4], stay below kEnd); 2 — otherwise (equally long long rows, or too
 * near kEnd for the over-reads): row by row.
 */
// @ts-ignore: decorator
@inline export function group4(pp: usize, kEnd: i32): i32 {
  const L = i32x4.sub(v128.load(pp, 4), v128.load(pp));
  const L0 = i32x4.extract_lane(L, 0);
  if (i32x4.all_true(i32x4.eq(L, i32x4.splat(L0)))) return L0 <= SHORT_ROW ? 0 : 2;
  return load<i32>(pp, 16) + SHORT_ROW < kEnd ? 1 : 2;
}

/**
 * Sums of 4 equally long short rows (group4 == 0) as an f32x4: scalar, the 4 rows interleaved (8
 * independent accumulators, one trip count), each row in the rowdot2_f32 order. x: the first row's (for
 * offsets, row r's x[i + r + d] is then reached by a load's constant offset r·4, no extra pointer).
 */
// @ts-ignore: decorator
@inline export function rowdot4eq_f32<I = i32>(pp: usize, idx: usize, val: usize, x: usize): v128 {
  // equal lengths n: the 4 rows are contiguous, row r's entry k at p0 + r·n + k
  const S = sizeof<I>();
  const k0 = load<i32>(pp);
  const n = load<i32>(pp, 4) - k0;
  const ni = <usize>n << alignof<I>(), nv = <usize>n << 2;
  let qi = idxAt<I>(idx, k0), qv = val + (<usize>k0 << 2);
  let s0: f32 = 0, s1: f32 = 0, s2: f32 = 0, s3: f32 = 0, t0: f32 = 0, t1: f32 = 0, t2: f32 = 0, t3: f32 = 0;
  const qe = idxAt<I>(qi, n & ~1);
  for (; qi < qe; qi += 2 * S, qv += 8) {
    const i1 = qi + ni, i2 = i1 + ni, i3 = i2 + ni;
    const v1 = qv + nv, v2 = v1 + nv, v3 = v2 + nv;
    s0 += load<f32>(qv) * load<f32>(xAt<I, f32>(x, qi));
    t0 += load<f32>(qv, 4) * load<f32>(xAt<I, f32>(x, qi + S));
    s1 += load<f32>(v1) * load<f32>(xAt<I, f32>(x, i1), 1 * xStep<I, f32>());
    t1 += load<f32>(v1, 4) * load<f32>(xAt<I, f32>(x, i1 + S), 1 * xStep<I, f32>());
    s2 += load<f32>(v2) * load<f32>(xAt<I, f32>(x, i2), 2 * xStep<I, f32>());
    t2 += load<f32>(v2, 4) * load<f32>(xAt<I, f32>(x, i2 + S), 2 * xStep<I, f32>());
    s3 += load<f32>(v3) * load<f32>(xAt<I, f32>(x, i3), 3 * xStep<I, f32>());
    t3 += load<f32>(v3, 4) * load<f32>(xAt<I, f32>(x, i3 + S), 3 * xStep<I, f32>());
  }
  if (n & 1) {
    const i1 = qi + ni, i2 = i1 + ni, i3 = i2 + ni;
    s0 += load<f32>(qv) * load<f32>(xAt<I, f32>(x, qi));
    s1 += load<f32>(qv + nv) * load<f32>(xAt<I, f32>(x, i1), 1 * xStep<I, f32>());
    s2 += load<f32>(qv + 2 * nv) * load<f32>(xAt<I, f32>(x, i2), 2 * xStep<I, f32>());
    s3 += load<f32>(qv + 3 * nv) * load<f32>(xAt<I, f32>(x, i3), 3 * xStep<I, f32>());
  }
  const r = f32x4.replace_lane(f32x4.replace_lane(f32x4.splat(s0 + t0), 1, s1 + t1), 2, s2 + t2);
  return f32x4.replace_lane(r, 3, s3 + t3);
}

/** rowdot4eq_f32 for f64, with the epilogue of rowdot4_f64 (y = α·(d + s) + β·y at yp). */
// @ts-ignore: decorator
@inline export function rowdot4eq_f64<I = i32>(
  pp: usize, idx: usize, val: usize, x: usize, yp: usize, alpha: f64, beta: f64, hasD: bool, d01: v128, d23: v128,
): void {
  // equal lengths n: the 4 rows are contiguous, row r's entry k at p0 + r·n + k
  const S = sizeof<I>();
  const k0 = load<i32>(pp);
  const n = load<i32>(pp, 4) - k0;
  const ni = <usize>n << alignof<I>(), nv = <usize>n << 3;
  let qi = idxAt<I>(idx, k0), qv = val + (<usize>k0 << 3);
  let s0: f64 = 0, s1: f64 = 0, s2: f64 = 0, s3: f64 = 0, t0: f64 = 0, t1: f64 = 0, t2: f64 = 0, t3: f64 = 0;
  const qe = idxAt<I>(qi, n & ~1);
  for (; qi < qe; qi += 2 * S, qv += 16) {
    s0 += load<f64>(qv) * load<f64>(xAt<I, f64>(x, qi));
    t0 += load<f64>(qv, 8) * load<f64>(xAt<I, f64>(x, qi + S));
    const i1 = qi + ni, v1 = qv + nv;
    s1 += load<f64>(v1) * load<f64>(xAt<I, f64>(x, i1), 1 * xStep<I, f64>());
    t1 += load<f64>(v1, 8) * load<f64>(xAt<I, f64>(x, i1 + S), 1 * xStep<I, f64>());
    const i2 = i1 + ni, v2 = v1 + nv;
    s2 += load<f64>(v2) * load<f64>(xAt<I, f64>(x, i2), 2 * xStep<I, f64>());
    t2 += load<f64>(v2, 8) * load<f64>(xAt<I, f64>(x, i2 + S), 2 * xStep<I, f64>());
    const i3 = i2 + ni, v3 = v2 + nv;
    s3 += load<f64>(v3) * load<f64>(xAt<I, f64>(x, i3), 3 * xStep<I, f64>());
    t3 += load<f64>(v3, 8) * load<f64>(xAt<I, f64>(x, i3 + S), 3 * xStep<I, f64>());
  }
  if (n & 1) {
    s0 += load<f64>(qv) * load<f64>(xAt<I, f64>(x, qi));
    s1 += load<f64>(qv + nv) * load<f64>(xAt<I, f64>(x, qi + ni), 1 * xStep<I, f64>());
    s2 += load<f64>(qv + 2 * nv) * load<f64>(xAt<I, f64>(x, qi + 2 * ni), 2 * xStep<I, f64>());
    s3 += load<f64>(qv + 3 * nv) * load<f64>(xAt<I, f64>(x, qi + 3 * ni), 3 * xStep<I, f64>());
  }
  axpby4_f64(yp, f64x2.replace_lane(f64x2.splat(s0 + t0), 1, s1 + t1), f64x2.replace_lane(f64x2.splat(s2 + t2), 1, s3 + t3), alpha, beta, hasD, d01, d23);
}

/** y[0..4) at yp = α·(d + s) + β·y for f64 row sums s01 / s23 (d when hasD; β == 0: y not read). */
// @ts-ignore: decorator
@inline export function axpby4_f64(yp: usize, s0: v128, s1: v128, alpha: f64, beta: f64, hasD: bool, d01: v128, d23: v128): void {
  if (hasD) {
    s0 = f64x2.add(d01, s0);
    s1 = f64x2.add(d23, s1);
  }
  const av = f64x2.splat(alpha);
  s0 = f64x2.mul(av, s0);
  s1 = f64x2.mul(av, s1);
  if (beta != 0) {
    const bv = f64x2.splat(beta);
    s0 = f64x2.add(s0, f64x2.mul(bv, v128.load(yp)));
    s1 = f64x2.add(s1, f64x2.mul(bv, v128.load(yp, 16)));
  }
  v128.store(yp, s0);
  v128.store(yp, s1, 16);
}

/** Max of the four i32 lanes. */
// @ts-ignore: decorator
@inline function hmax_i32x4(v: v128): i32 {
  const m = i32x4.max_s(v, i32x4.shuffle(v, v, 2, 3, 0, 1));
  return i32x4.extract_lane(i32x4.max_s(m, i32x4.shuffle(m, m, 1, 0, 3, 2)), 0);
}

/**
 * Across-rows sums of the 4 rows whose pointers are pp[0..4] (CSR ptr or MRS index) as an f32x4 (lane
 * r = row r), for a group across4 accepted.
 */
// @ts-ignore: decorator
@inline export function rowdot4_f32(pp: usize, idx: usize, val: usize, x: usize): v128 {
  const P = v128.load(pp);
  const L = i32x4.sub(v128.load(pp, 4), P);
  const long = i32x4.gt_s(L, i32x4.splat(SHORT_ROW));
  const p0 = i32x4.extract_lane(P, 0), p1 = i32x4.extract_lane(P, 1);
  const p2 = i32x4.extract_lane(P, 2), p3 = i32x4.extract_lane(P, 3);
  const Ls = v128.andnot(L, long); // long rows: length 0 in the across loop
  const Ls1 = i32x4.sub(Ls, i32x4.splat(1));
  const n = hmax_i32x4(Ls);
  let A = f32x4.splat(0), B = f32x4.splat(0);
  let kv = i32x4.splat(0);
  const b0 = idx + (<usize>p0 << 2), b1 = idx + (<usize>p1 << 2), b2 = idx + (<usize>p2 << 2), b3 = idx + (<usize>p3 << 2);
  const dv = val - idx;
  for (let o: usize = 0, oe = <usize>n << 2; o < oe; o += 8) {
    let g = v128.load32_zero(x + (<usize>load<i32>(b0 + o) << 2));
    let h = v128.load32_zero(x + (<usize>load<i32>(b0 + o, 4) << 2));
    let v = v128.load32_zero(b0 + o + dv);
    let w = v128.load32_zero(b0 + o + dv, 4);
    g = v128.load32_lane(x + (<usize>load<i32>(b1 + o) << 2), g, 1);
    h = v128.load32_lane(x + (<usize>load<i32>(b1 + o, 4) << 2), h, 1);
    v = v128.load32_lane(b1 + o + dv, v, 1);
    w = v128.load32_lane(b1 + o + dv, w, 1, 4);
    g = v128.load32_lane(x + (<usize>load<i32>(b2 + o) << 2), g, 2);
    h = v128.load32_lane(x + (<usize>load<i32>(b2 + o, 4) << 2), h, 2);
    v = v128.load32_lane(b2 + o + dv, v, 2);
    w = v128.load32_lane(b2 + o + dv, w, 2, 4);
    g = v128.load32_lane(x + (<usize>load<i32>(b3 + o) << 2), g, 3);
    h = v128.load32_lane(x + (<usize>load<i32>(b3 + o, 4) << 2), h, 3);
    v = v128.load32_lane(b3 + o + dv, v, 3);
    w = v128.load32_lane(b3 + o + dv, w, 3, 4);
    A = f32x4.add(A, v128.and(f32x4.mul(v, g), i32x4.lt_s(kv, Ls)));
    B = f32x4.add(B, v128.and(f32x4.mul(w, h), i32x4.lt_s(kv, Ls1)));
    kv = i32x4.add(kv, i32x4.splat(2));
  }
  let s = f32x4.add(A, B);
  if (v128.any_true(long)) {
    if (i32x4.extract_lane(long, 0)) s = f32x4.replace_lane(s, 0, rowdot_long_f32(idx, val, x, p0, p1));
    if (i32x4.extract_lane(long, 1)) s = f32x4.replace_lane(s, 1, rowdot_long_f32(idx, val, x, p1, p2));
    if (i32x4.extract_lane(long, 2)) s = f32x4.replace_lane(s, 2, rowdot_long_f32(idx, val, x, p2, p3));
    if (i32x4.extract_lane(long, 3)) s = f32x4.replace_lane(s, 3, rowdot_long_f32(idx, val, x, p3, load<i32>(pp, 16)));
  }
  return s;
}

/**
 * f64 across-rows sums of the 4 rows at pp[0..4] (group4 == 1), then y = α·(d + s) + β·y
 * stored at yp (d01/d23: the MRS diagonal terms of rows 0–1 / 2–3, when hasD; β == 0: y not read).
 */
// @ts-ignore: decorator
@inline export function rowdot4_f64(
  pp: usize, idx: usize, val: usize, x: usize, yp: usize, alpha: f64, beta: f64, hasD: bool, d01: v128, d23: v128,
): void {
  const P = v128.load(pp);
  const L = i32x4.sub(v128.load(pp, 4), P);
  const long = i32x4.gt_s(L, i32x4.splat(SHORT_ROW));
  const p0 = i32x4.extract_lane(P, 0), p1 = i32x4.extract_lane(P, 1);
  const p2 = i32x4.extract_lane(P, 2), p3 = i32x4.extract_lane(P, 3);
  const Ls = v128.andnot(L, long);
  const Ls1 = i32x4.sub(Ls, i32x4.splat(1));
  const n = hmax_i32x4(Ls);
  let A0 = f64x2.splat(0), A1 = f64x2.splat(0), B0 = f64x2.splat(0), B1 = f64x2.splat(0);
  let kv = i32x4.splat(0);
  const b0 = <usize>p0 << 2, b1 = <usize>p1 << 2, b2 = <usize>p2 << 2, b3 = <usize>p3 << 2;
  for (let o: usize = 0, oe = <usize>n << 2; o < oe; o += 8) {
    // entries k (g, v) and k + 1 (h, w) of rows 0–1 (…0) and rows 2–3 (…1)
    const i0 = idx + b0 + o, i1 = idx + b1 + o, i2 = idx + b2 + o, i3 = idx + b3 + o;
    const v0p = val + ((b0 + o) << 1), v1p = val + ((b1 + o) << 1), v2p = val + ((b2 + o) << 1), v3p = val + ((b3 + o) << 1);
    let g0 = v128.load64_zero(x + (<usize>load<i32>(i0) << 3));
    let g1 = v128.load64_zero(x + (<usize>load<i32>(i2) << 3));
    let h0 = v128.load64_zero(x + (<usize>load<i32>(i0, 4) << 3));
    let h1 = v128.load64_zero(x + (<usize>load<i32>(i2, 4) << 3));
    g0 = v128.load64_lane(x + (<usize>load<i32>(i1) << 3), g0, 1);
    g1 = v128.load64_lane(x + (<usize>load<i32>(i3) << 3), g1, 1);
    h0 = v128.load64_lane(x + (<usize>load<i32>(i1, 4) << 3), h0, 1);
    h1 = v128.load64_lane(x + (<usize>load<i32>(i3, 4) << 3), h1, 1);
    const v0 = v128.load64_lane(v1p, v128.load64_zero(v0p), 1);
    const v1 = v128.load64_lane(v3p, v128.load64_zero(v2p), 1);
    const w0 = v128.load64_lane(v1p, v128.load64_zero(v0p, 8), 1, 8);
    const w1 = v128.load64_lane(v3p, v128.load64_zero(v2p, 8), 1, 8);
    const m = i32x4.lt_s(kv, Ls), m1 = i32x4.lt_s(kv, Ls1);
    A0 = f64x2.add(A0, v128.and(f64x2.mul(v0, g0), i64x2.extend_low_i32x4_s(m)));
    A1 = f64x2.add(A1, v128.and(f64x2.mul(v1, g1), i64x2.extend_high_i32x4_s(m)));
    B0 = f64x2.add(B0, v128.and(f64x2.mul(w0, h0), i64x2.extend_low_i32x4_s(m1)));
    B1 = f64x2.add(B1, v128.and(f64x2.mul(w1, h1), i64x2.extend_high_i32x4_s(m1)));
    kv = i32x4.add(kv, i32x4.splat(2));
  }
  let s0 = f64x2.add(A0, B0);
  let s1 = f64x2.add(A1, B1);
  if (v128.any_true(long)) {
    if (i32x4.extract_lane(long, 0)) s0 = f64x2.replace_lane(s0, 0, rowdot_long_f64(idx, val, x, p0, p1));
    if (i32x4.extract_lane(long, 1)) s0 = f64x2.replace_lane(s0, 1, rowdot_long_f64(idx, val, x, p1, p2));
    if (i32x4.extract_lane(long, 2)) s1 = f64x2.replace_lane(s1, 0, rowdot_long_f64(idx, val, x, p2, p3));
    if (i32x4.extract_lane(long, 3)) s1 = f64x2.replace_lane(s1, 1, rowdot_long_f64(idx, val, x, p3, load<i32>(pp, 16)));
  }
  axpby4_f64(yp, s0, s1, alpha, beta, hasD, d01, d23);
}

/**
 * c64 row: y = α·(d + Σ val'[k]·x[idx[k]]) + β·y at yp, val' = conj(val) when conj. d = (dr, di) is an
 * extra term already multiplied out (MRS diagonal; 0 for CSR). SIMD: 4 complex per step (one index
 * load, two value v128s, x pairs gathered as 64-bit lanes), accA/accB scheme of cdotFinish64.
 */
// @ts-ignore: decorator
@inline export function rowdot_c64(
  idx: usize, val: usize, x: usize, k0: i32, k1: i32, conj: i32, dr: f32, di: f32,
  yp: usize, ar: f32, ai: f32, br: f32, bi: f32,
): void {
  let k = k0;
  let sr: f32 = dr, si: f32 = di;
  if (ASC_FEATURE_SIMD) {
    let A0 = f32x4.splat(0), B0 = f32x4.splat(0), A1 = f32x4.splat(0), B1 = f32x4.splat(0);
    for (; k + 4 <= k1; k += 4) {
      const i0 = v128.load(idx + (<usize>k << 2));
      const vp = val + (<usize>k << 3);
      let g0 = v128.load64_zero(x + (<usize>i32x4.extract_lane(i0, 0) << 3));
      let g1 = v128.load64_zero(x + (<usize>i32x4.extract_lane(i0, 2) << 3));
      g0 = v128.load64_lane(x + (<usize>i32x4.extract_lane(i0, 1) << 3), g0, 1);
      g1 = v128.load64_lane(x + (<usize>i32x4.extract_lane(i0, 3) << 3), g1, 1);
      const v0 = v128.load(vp), v1 = v128.load(vp, 16);
      A0 = f32x4.add(A0, f32x4.mul(v0, g0));
      B0 = f32x4.add(B0, f32x4.mul(v0, swap_c64(g0)));
      A1 = f32x4.add(A1, f32x4.mul(v1, g1));
      B1 = f32x4.add(B1, f32x4.mul(v1, swap_c64(g1)));
    }
    if (k + 2 <= k1) {
      const ip = idx + (<usize>k << 2);
      let g0 = v128.load64_zero(x + (<usize>load<i32>(ip) << 3));
      g0 = v128.load64_lane(x + (<usize>load<i32>(ip, 4) << 3), g0, 1);
      const v0 = v128.load(val + (<usize>k << 3));
      A0 = f32x4.add(A0, f32x4.mul(v0, g0));
      B0 = f32x4.add(B0, f32x4.mul(v0, swap_c64(g0)));
      k += 2;
    }
    if (k < k1) {
      // one complex left: the zeroed upper lanes contribute 0
      const g0 = v128.load64_zero(x + (<usize>load<i32>(idx + (<usize>k << 2)) << 3));
      const v0 = v128.load64_zero(val + (<usize>k << 3));
      A1 = f32x4.add(A1, f32x4.mul(v0, g0));
      B1 = f32x4.add(B1, f32x4.mul(v0, swap_c64(g0)));
      k++;
    }
    const r = cdotFinish64(f32x4.add(A0, A1), f32x4.add(B0, B1), conj);
    sr += f32x4.extract_lane(r, 0);
    si += f32x4.extract_lane(r, 1);
  } else {
    const sg: f32 = conj ? -1 : 1;
    for (; k < k1; k++) {
      const vp = val + (<usize>k << 3);
      const xp = x + (<usize>load<i32>(idx + (<usize>k << 2)) << 3);
      const vr = load<f32>(vp), vi = sg * load<f32>(vp, 4);
      const xr = load<f32>(xp), xi = load<f32>(xp, 4);
      sr += vr * xr - vi * xi;
      si += vr * xi + vi * xr;
    }
  }
  caxpby_c64(yp, sr, si, ar, ai, br, bi);
}

/** c128 row, as rowdot_c64: one complex per v128, ×2 with two accumulator pairs, scalar-free tail. */
// @ts-ignore: decorator
@inline export function rowdot_c128(
  idx: usize, val: usize, x: usize, k0: i32, k1: i32, conj: i32, dr: f64, di: f64,
  yp: usize, ar: f64, ai: f64, br: f64, bi: f64,
): void {
  let k = k0;
  let sr: f64 = dr, si: f64 = di;
  if (ASC_FEATURE_SIMD) {
    let A0 = f64x2.splat(0), B0 = f64x2.splat(0), A1 = f64x2.splat(0), B1 = f64x2.splat(0);
    for (; k + 2 <= k1; k += 2) {
      const ip = idx + (<usize>k << 2);
      const vp = val + (<usize>k << 4);
      const g0 = v128.load(x + (<usize>load<i32>(ip) << 4));
      const g1 = v128.load(x + (<usize>load<i32>(ip, 4) << 4));
      const v0 = v128.load(vp), v1 = v128.load(vp, 16);
      A0 = f64x2.add(A0, f64x2.mul(v0, g0));
      B0 = f64x2.add(B0, f64x2.mul(v0, swap_c128(g0)));
      A1 = f64x2.add(A1, f64x2.mul(v1, g1));
      B1 = f64x2.add(B1, f64x2.mul(v1, swap_c128(g1)));
    }
    if (k < k1) {
      const g0 = v128.load(x + (<usize>load<i32>(idx + (<usize>k << 2)) << 4));
      const v0 = v128.load(val + (<usize>k << 4));
      A0 = f64x2.add(A0, f64x2.mul(v0, g0));
      B0 = f64x2.add(B0, f64x2.mul(v0, swap_c128(g0)));
      k++;
    }
    const r = cdotFinish128(f64x2.add(A0, A1), f64x2.add(B0, B1), conj);
    sr += f64x2.extract_lane(r, 0);
    si += f64x2.extract_lane(r, 1);
  } else {
    const sg: f64 = conj ? -1 : 1;
    for (; k < k1; k++) {
      const vp = val + (<usize>k << 4);
      const xp = x + (<usize>load<i32>(idx + (<usize>k << 2)) << 4);
      const vr = load<f64>(vp), vi = sg * load<f64>(vp, 8);
      const xr = load<f64>(xp), xi = load<f64>(xp, 8);
      sr += vr * xr - vi * xi;
      si += vr * xi + vi * xr;
    }
  }
  caxpby_c128(yp, sr, si, ar, ai, br, bi);
}

// ---------------------------------------------------------------- padded layouts (scalar)

/**
 * One slot's product val·x of a padded layout (ELL, SELL) with padding (idx < 0) as +0, branch-free:
 * the index is clamped to 0 and the x bits are masked by integer ops (a select on a float compiles to
 * a branch in V8, mispredicted wherever rows end irregularly), so x[0] is read but Inf/NaN there
 * never leaks through padding.
 */
// @ts-ignore: decorator
@inline export function padTerm<T>(ip: usize, vp: usize, x: usize): T {
  const j = load<i32>(ip);
  const m = j >> 31; // all ones on padding, 0 otherwise
  const xp = x + (<usize>(j ^ m) << alignof<T>()); // padding (−1) → x[0]
  if (sizeof<T>() == 4) return <T>(load<f32>(vp) * reinterpret<f32>(load<u32>(xp) & ~<u32>m));
  return <T>(load<f64>(vp) * reinterpret<f64>(load<u64>(xp) & ~<u64><i64>m));
}
