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

/**
 * x[ip[0..3]] as an f32x4: four scalar index loads (cheaper than a v128 index load + 4 lane extracts)
 * and four 32-bit loads combined by a shuffle tree, so the lanes do not form a serial insert chain.
 */
// @ts-ignore: decorator
@inline export function gather4_f32(x: usize, ip: usize): v128 {
  const a = v128.load32_zero(x + (<usize>load<i32>(ip) << 2));
  const b = v128.load32_zero(x + (<usize>load<i32>(ip, 4) << 2));
  const c = v128.load32_zero(x + (<usize>load<i32>(ip, 8) << 2));
  const d = v128.load32_zero(x + (<usize>load<i32>(ip, 12) << 2));
  return i64x2.shuffle(i32x4.shuffle(a, b, 0, 4, 1, 5), i32x4.shuffle(c, d, 0, 4, 1, 5), 0, 2);
}

/** x[ip[0..1]] as an f64x2 (two 64-bit loads joined by one shuffle). */
// @ts-ignore: decorator
@inline export function gather2_f64(x: usize, ip: usize): v128 {
  const a = v128.load64_zero(x + (<usize>load<i32>(ip) << 3));
  const b = v128.load64_zero(x + (<usize>load<i32>(ip, 4) << 3));
  return i64x2.shuffle(a, b, 0, 2);
}

/** f32 row dot product: ×8 (two f32x4 accumulators), ×4 step, scalar tail (two accumulators). */
// @ts-ignore: decorator
@inline export function rowdot_f32(idx: usize, val: usize, x: usize, k0: i32, k1: i32): f32 {
  let k = k0;
  let s: f32 = 0;
  // rows shorter than 8 (Poisson stencils, power-law tails) stay scalar: with one 4-wide step the
  // gather + horizontal sum costs as much as it saves
  if (ASC_FEATURE_SIMD && k1 - k0 >= 8) {
    let a0 = f32x4.splat(0);
    let a1 = f32x4.splat(0);
    for (; k + 8 <= k1; k += 8) {
      const ip = idx + (<usize>k << 2);
      const vp = val + (<usize>k << 2);
      a0 = f32x4.add(a0, f32x4.mul(v128.load(vp), gather4_f32(x, ip)));
      a1 = f32x4.add(a1, f32x4.mul(v128.load(vp, 16), gather4_f32(x, ip + 16)));
    }
    if (k + 4 <= k1) {
      a0 = f32x4.add(a0, f32x4.mul(v128.load(val + (<usize>k << 2)), gather4_f32(x, idx + (<usize>k << 2))));
      k += 4;
    }
    s = hsum_f32x4(f32x4.add(a0, a1));
  }
  // scalar: the < 4 leftover entries (SIMD build) or the whole row (plain build), two accumulators
  let s1: f32 = 0;
  for (; k + 2 <= k1; k += 2) {
    const ip = idx + (<usize>k << 2);
    const vp = val + (<usize>k << 2);
    s += load<f32>(vp) * load<f32>(x + (<usize>load<i32>(ip) << 2));
    s1 += load<f32>(vp, 4) * load<f32>(x + (<usize>load<i32>(ip, 4) << 2));
  }
  if (k < k1) s += load<f32>(val + (<usize>k << 2)) * load<f32>(x + (<usize>load<i32>(idx + (<usize>k << 2)) << 2));
  return s + s1;
}

/** f64 row dot product: ×4 (two f64x2 accumulators), ×2 step, scalar tail. */
// @ts-ignore: decorator
@inline export function rowdot_f64(idx: usize, val: usize, x: usize, k0: i32, k1: i32): f64 {
  let k = k0;
  let s: f64 = 0;
  if (ASC_FEATURE_SIMD) {
    let a0 = f64x2.splat(0);
    let a1 = f64x2.splat(0);
    for (; k + 4 <= k1; k += 4) {
      const ip = idx + (<usize>k << 2);
      const vp = val + (<usize>k << 3);
      a0 = f64x2.add(a0, f64x2.mul(v128.load(vp), gather2_f64(x, ip)));
      a1 = f64x2.add(a1, f64x2.mul(v128.load(vp, 16), gather2_f64(x, ip + 8)));
    }
    if (k + 2 <= k1) {
      a0 = f64x2.add(a0, f64x2.mul(v128.load(val + (<usize>k << 3)), gather2_f64(x, idx + (<usize>k << 2))));
      k += 2;
    }
    s = hsum_f64x2(f64x2.add(a0, a1));
  }
  let s1: f64 = 0;
  for (; k + 2 <= k1; k += 2) {
    const ip = idx + (<usize>k << 2);
    const vp = val + (<usize>k << 3);
    s += load<f64>(vp) * load<f64>(x + (<usize>load<i32>(ip) << 3));
    s1 += load<f64>(vp, 8) * load<f64>(x + (<usize>load<i32>(ip, 4) << 3));
  }
  if (k < k1) s += load<f64>(val + (<usize>k << 3)) * load<f64>(x + (<usize>load<i32>(idx + (<usize>k << 2)) << 3));
  return s + s1;
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
