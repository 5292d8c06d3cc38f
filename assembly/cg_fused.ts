// The fused vector step of a Conjugate Gradient iteration: x ← x + α·p, r ← r − α·q and the partial
// Σ|rᵢ|² (written as one f64 at `out`), in one pass over the four vectors instead of three (axpy, axpy,
// nrm2). α is real in CG, so a complex vector is handled as its 2n real components. The sum has a fixed
// order for a given range (four lanes combined at the end, then the tail): deterministic.

// @ts-ignore: decorator
@inline function update_f64(x: usize, r: usize, p: usize, q: usize, alpha: f64, out: usize, start: i32, end: i32): void {
  let i = start;
  let s: f64 = 0;
  if (ASC_FEATURE_SIMD) {
    const a = f64x2.splat(alpha);
    let s0 = f64x2.splat(0), s1 = f64x2.splat(0);
    for (; i + 4 <= end; i += 4) {
      const o = <usize>i << 3;
      v128.store(x + o, f64x2.add(v128.load(x + o), f64x2.mul(a, v128.load(p + o))));
      v128.store(x + o, f64x2.add(v128.load(x + o, 16), f64x2.mul(a, v128.load(p + o, 16))), 16);
      const r0 = f64x2.sub(v128.load(r + o), f64x2.mul(a, v128.load(q + o)));
      const r1 = f64x2.sub(v128.load(r + o, 16), f64x2.mul(a, v128.load(q + o, 16)));
      v128.store(r + o, r0);
      v128.store(r + o, r1, 16);
      s0 = f64x2.add(s0, f64x2.mul(r0, r0));
      s1 = f64x2.add(s1, f64x2.mul(r1, r1));
    }
    const t = f64x2.add(s0, s1);
    s = f64x2.extract_lane(t, 0) + f64x2.extract_lane(t, 1);
  }
  for (; i < end; i++) {
    const o = <usize>i << 3;
    store<f64>(x + o, load<f64>(x + o) + alpha * load<f64>(p + o));
    const ri = load<f64>(r + o) - alpha * load<f64>(q + o);
    store<f64>(r + o, ri);
    s += ri * ri;
  }
  store<f64>(out, s);
}

// @ts-ignore: decorator
@inline function update_f32(x: usize, r: usize, p: usize, q: usize, alpha: f64, out: usize, start: i32, end: i32): void {
  const a32 = <f32>alpha;
  let i = start;
  let s: f64 = 0;
  if (ASC_FEATURE_SIMD) {
    const a = f32x4.splat(a32);
    let s0 = f64x2.splat(0), s1 = f64x2.splat(0);
    for (; i + 4 <= end; i += 4) {
      const o = <usize>i << 2;
      v128.store(x + o, f32x4.add(v128.load(x + o), f32x4.mul(a, v128.load(p + o))));
      const r4 = f32x4.sub(v128.load(r + o), f32x4.mul(a, v128.load(q + o)));
      v128.store(r + o, r4);
      // squares summed in f64: exact products of f32 values, no overflow
      const lo = f64x2.promote_low_f32x4(r4);
      const hi = f64x2.promote_low_f32x4(f32x4.shuffle(r4, r4, 2, 3, 0, 1));
      s0 = f64x2.add(s0, f64x2.mul(lo, lo));
      s1 = f64x2.add(s1, f64x2.mul(hi, hi));
    }
    const t = f64x2.add(s0, s1);
    s = f64x2.extract_lane(t, 0) + f64x2.extract_lane(t, 1);
  }
  for (; i < end; i++) {
    const o = <usize>i << 2;
    store<f32>(x + o, load<f32>(x + o) + a32 * load<f32>(p + o));
    const ri = load<f32>(r + o) - a32 * load<f32>(q + o);
    store<f32>(r + o, ri);
    s += <f64>ri * <f64>ri;
  }
  store<f64>(out, s);
}

export function cg_update_f32(x: usize, r: usize, p: usize, q: usize, alpha: f64, out: usize, start: i32, end: i32): void {
  update_f32(x, r, p, q, alpha, out, start, end);
}
export function cg_update_f64(x: usize, r: usize, p: usize, q: usize, alpha: f64, out: usize, start: i32, end: i32): void {
  update_f64(x, r, p, q, alpha, out, start, end);
}
export function cg_update_c64(x: usize, r: usize, p: usize, q: usize, alpha: f64, out: usize, start: i32, end: i32): void {
  update_f32(x, r, p, q, alpha, out, start << 1, end << 1);
}
export function cg_update_c128(x: usize, r: usize, p: usize, q: usize, alpha: f64, out: usize, start: i32, end: i32): void {
  update_f64(x, r, p, q, alpha, out, start << 1, end << 1);
}

// CG's direction step: p ← z + β·p and the partial Σ pᵢ·qᵢ (Re pᴴq for complex, as 2n real
// components) of the new p, written as one f64 at `out`: one pass over z, p, q instead of an aypx and
// a dot. The caller forms q = A·z + β·q by the SpMV before it (q = A·p by linearity). f64 / c128 only:
// in f32 that q drifts from A·p and slows CG (src/cpu/solver-ops.ts).

// @ts-ignore: decorator
@inline function direction_f64(z: usize, p: usize, q: usize, beta: f64, out: usize, start: i32, end: i32): void {
  let i = start;
  let s: f64 = 0;
  if (ASC_FEATURE_SIMD) {
    const b = f64x2.splat(beta);
    let s0 = f64x2.splat(0), s1 = f64x2.splat(0);
    for (; i + 4 <= end; i += 4) {
      const o = <usize>i << 3;
      const p0 = f64x2.add(v128.load(z + o), f64x2.mul(b, v128.load(p + o)));
      const p1 = f64x2.add(v128.load(z + o, 16), f64x2.mul(b, v128.load(p + o, 16)));
      v128.store(p + o, p0);
      v128.store(p + o, p1, 16);
      s0 = f64x2.add(s0, f64x2.mul(p0, v128.load(q + o)));
      s1 = f64x2.add(s1, f64x2.mul(p1, v128.load(q + o, 16)));
    }
    const t = f64x2.add(s0, s1);
    s = f64x2.extract_lane(t, 0) + f64x2.extract_lane(t, 1);
  }
  for (; i < end; i++) {
    const o = <usize>i << 3;
    const pi = load<f64>(z + o) + beta * load<f64>(p + o);
    store<f64>(p + o, pi);
    s += pi * load<f64>(q + o);
  }
  store<f64>(out, s);
}

export function cg_direction_f64(z: usize, p: usize, q: usize, beta: f64, out: usize, start: i32, end: i32): void {
  direction_f64(z, p, q, beta, out, start, end);
}
export function cg_direction_c128(z: usize, p: usize, q: usize, beta: f64, out: usize, start: i32, end: i32): void {
  direction_f64(z, p, q, beta, out, start << 1, end << 1);
}

// CG's update with a Jacobi (diagonal) preconditioner, real dtypes: x ← x + α·p, r ← r − α·q,
// z ← d⊙r, and the partials Σ rᵢ² at `out` and Σ rᵢ·zᵢ at `out + 8`: one pass instead of cg_update,
// xmy and a dot.

export function cg_update_jacobi_f64(x: usize, r: usize, p: usize, q: usize, d: usize, z: usize, alpha: f64, out: usize, start: i32, end: i32): void {
  let i = start;
  let rr: f64 = 0;
  let rz: f64 = 0;
  if (ASC_FEATURE_SIMD) {
    const a = f64x2.splat(alpha);
    let s0 = f64x2.splat(0), t0 = f64x2.splat(0);
    for (; i + 2 <= end; i += 2) {
      const o = <usize>i << 3;
      v128.store(x + o, f64x2.add(v128.load(x + o), f64x2.mul(a, v128.load(p + o))));
      const r0 = f64x2.sub(v128.load(r + o), f64x2.mul(a, v128.load(q + o)));
      v128.store(r + o, r0);
      const z0 = f64x2.mul(v128.load(d + o), r0);
      v128.store(z + o, z0);
      s0 = f64x2.add(s0, f64x2.mul(r0, r0));
      t0 = f64x2.add(t0, f64x2.mul(r0, z0));
    }
    rr = f64x2.extract_lane(s0, 0) + f64x2.extract_lane(s0, 1);
    rz = f64x2.extract_lane(t0, 0) + f64x2.extract_lane(t0, 1);
  }
  for (; i < end; i++) {
    const o = <usize>i << 3;
    store<f64>(x + o, load<f64>(x + o) + alpha * load<f64>(p + o));
    const ri = load<f64>(r + o) - alpha * load<f64>(q + o);
    store<f64>(r + o, ri);
    const zi = load<f64>(d + o) * ri;
    store<f64>(z + o, zi);
    rr += ri * ri;
    rz += ri * zi;
  }
  store<f64>(out, rr);
  store<f64>(out, rz, 8);
}

export function cg_update_jacobi_f32(x: usize, r: usize, p: usize, q: usize, d: usize, z: usize, alpha: f64, out: usize, start: i32, end: i32): void {
  const a32 = <f32>alpha;
  let i = start;
  let rr: f64 = 0;
  let rz: f64 = 0;
  if (ASC_FEATURE_SIMD) {
    // the scalar loop's f32 operations in lanes; the sums in f64 (exact products of f32 values)
    const a = f32x4.splat(a32);
    let s0 = f64x2.splat(0), s1 = f64x2.splat(0), t0 = f64x2.splat(0), t1 = f64x2.splat(0);
    for (; i + 4 <= end; i += 4) {
      const o = <usize>i << 2;
      v128.store(x + o, f32x4.add(v128.load(x + o), f32x4.mul(a, v128.load(p + o))));
      const r4 = f32x4.sub(v128.load(r + o), f32x4.mul(a, v128.load(q + o)));
      v128.store(r + o, r4);
      const z4 = f32x4.mul(v128.load(d + o), r4);
      v128.store(z + o, z4);
      const rl = f64x2.promote_low_f32x4(r4);
      const rh = f64x2.promote_low_f32x4(f32x4.shuffle(r4, r4, 2, 3, 0, 1));
      s0 = f64x2.add(s0, f64x2.mul(rl, rl));
      s1 = f64x2.add(s1, f64x2.mul(rh, rh));
      t0 = f64x2.add(t0, f64x2.mul(rl, f64x2.promote_low_f32x4(z4)));
      t1 = f64x2.add(t1, f64x2.mul(rh, f64x2.promote_low_f32x4(f32x4.shuffle(z4, z4, 2, 3, 0, 1))));
    }
    const s2 = f64x2.add(s0, s1);
    const t2 = f64x2.add(t0, t1);
    rr = f64x2.extract_lane(s2, 0) + f64x2.extract_lane(s2, 1);
    rz = f64x2.extract_lane(t2, 0) + f64x2.extract_lane(t2, 1);
  }
  for (; i < end; i++) {
    const o = <usize>i << 2;
    store<f32>(x + o, load<f32>(x + o) + a32 * load<f32>(p + o));
    const ri = load<f32>(r + o) - a32 * load<f32>(q + o);
    store<f32>(r + o, ri);
    const zi = load<f32>(d + o) * ri;
    store<f32>(z + o, zi);
    rr += <f64>ri * <f64>ri;
    rz += <f64>ri * <f64>zi;
  }
  store<f64>(out, rr);
  store<f64>(out, rz, 8);
}
