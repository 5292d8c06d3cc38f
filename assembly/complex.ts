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
