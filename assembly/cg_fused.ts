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
// xmy and a dot. `uniform`: every dᵢ is c (a constant-coefficient stencil's diagonal), the same
// products without reading d; without `withX`, x is left to the next product call
// (cg_dia_direction_x_f64), so this pass reads neither x nor p.
// @ts-ignore: decorator
@inline function updateJacobi(x: usize, r: usize, p: usize, q: usize, d: usize, c: f64, z: usize, alpha: f64, out: usize, start: i32, end: i32, withX: bool, uniform: bool, storeZ: bool = true): void {
  let i = start;
  let rr: f64 = 0;
  let rz: f64 = 0;
  if (ASC_FEATURE_SIMD) {
    const a = f64x2.splat(alpha);
    const cv = f64x2.splat(c);
    let s0 = f64x2.splat(0), t0 = f64x2.splat(0);
    for (; i + 2 <= end; i += 2) {
      const o = <usize>i << 3;
      if (withX) v128.store(x + o, f64x2.add(v128.load(x + o), f64x2.mul(a, v128.load(p + o))));
      const r0 = f64x2.sub(v128.load(r + o), f64x2.mul(a, v128.load(q + o)));
      v128.store(r + o, r0);
      const z0 = f64x2.mul(uniform ? cv : v128.load(d + o), r0);
      if (storeZ) v128.store(z + o, z0);
      s0 = f64x2.add(s0, f64x2.mul(r0, r0));
      t0 = f64x2.add(t0, f64x2.mul(r0, z0));
    }
    rr = f64x2.extract_lane(s0, 0) + f64x2.extract_lane(s0, 1);
    rz = f64x2.extract_lane(t0, 0) + f64x2.extract_lane(t0, 1);
  }
  for (; i < end; i++) {
    const o = <usize>i << 3;
    if (withX) store<f64>(x + o, load<f64>(x + o) + alpha * load<f64>(p + o));
    const ri = load<f64>(r + o) - alpha * load<f64>(q + o);
    store<f64>(r + o, ri);
    const zi = (uniform ? c : load<f64>(d + o)) * ri;
    if (storeZ) store<f64>(z + o, zi);
    rr += ri * ri;
    rz += ri * zi;
  }
  store<f64>(out, rr);
  store<f64>(out, rz, 8);
}

export function cg_update_jacobi_f64(x: usize, r: usize, p: usize, q: usize, d: usize, z: usize, alpha: f64, out: usize, start: i32, end: i32): void {
  updateJacobi(x, r, p, q, d, 0, z, alpha, out, start, end, true, false);
}

export function cg_update_jacobi_scalar_f64(x: usize, r: usize, p: usize, q: usize, c: f64, z: usize, alpha: f64, out: usize, start: i32, end: i32): void {
  updateJacobi(x, r, p, q, 0, c, z, alpha, out, start, end, true, true);
}

export function cg_residual_jacobi_f64(r: usize, q: usize, d: usize, z: usize, alpha: f64, out: usize, start: i32, end: i32): void {
  updateJacobi(0, r, 0, q, d, 0, z, alpha, out, start, end, false, false);
}

// z = c·r is not stored: the product that reads it next scales r itself (cg_dia_direction(_x)_scaled_f64, assembly/spmv_dia.ts)
export function cg_residual_jacobi_scalar_f64(r: usize, q: usize, c: f64, alpha: f64, out: usize, start: i32, end: i32): void {
  updateJacobi(0, r, 0, q, 0, c, 0, alpha, out, start, end, false, true, false);
}

// updateJacobi's x, r, z and sums in f32 lanes (with x: in f32 the deferred x step measured no faster,
// src/cpu/solver-ops.ts), the sums in f64 (exact products of f32 values)
// @ts-ignore: decorator
@inline function updateJacobi32(x: usize, r: usize, p: usize, q: usize, d: usize, c: f64, z: usize, alpha: f64, out: usize, start: i32, end: i32, uniform: bool): void {
  const a32 = <f32>alpha;
  const c32 = <f32>c;
  let i = start;
  let rr: f64 = 0;
  let rz: f64 = 0;
  if (ASC_FEATURE_SIMD) {
    const a = f32x4.splat(a32);
    const cv = f32x4.splat(c32);
    let s0 = f64x2.splat(0), s1 = f64x2.splat(0), t0 = f64x2.splat(0), t1 = f64x2.splat(0);
    for (; i + 4 <= end; i += 4) {
      const o = <usize>i << 2;
      v128.store(x + o, f32x4.add(v128.load(x + o), f32x4.mul(a, v128.load(p + o))));
      const r4 = f32x4.sub(v128.load(r + o), f32x4.mul(a, v128.load(q + o)));
      v128.store(r + o, r4);
      const z4 = f32x4.mul(uniform ? cv : v128.load(d + o), r4);
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
    const zi = (uniform ? c32 : load<f32>(d + o)) * ri;
    store<f32>(z + o, zi);
    rr += <f64>ri * <f64>ri;
    rz += <f64>ri * <f64>zi;
  }
  store<f64>(out, rr);
  store<f64>(out, rz, 8);
}

export function cg_update_jacobi_f32(x: usize, r: usize, p: usize, q: usize, d: usize, z: usize, alpha: f64, out: usize, start: i32, end: i32): void {
  updateJacobi32(x, r, p, q, d, 0, z, alpha, out, start, end, false);
}

// c: D⁻¹'s one value, already an f32 (the caller's rounding of the f32 diagonal's inverse)
export function cg_update_jacobi_scalar_f32(x: usize, r: usize, p: usize, q: usize, c: f64, z: usize, alpha: f64, out: usize, start: i32, end: i32): void {
  updateJacobi32(x, r, p, q, 0, c, z, alpha, out, start, end, true);
}

// CG's direction step and product in one call over an f32 DIA matrix, rows [start, end) of the square
// n×n A: pn ← z + β·po, q ← A·pn and the partial Σ pnᵢ·qᵢ (in f64) at `out`. The chunk first writes
// its own rows of pn, then forms q reading pn where a diagonal's column lies in the chunk and
// zⱼ + β·poⱼ (z and the previous direction po are never written) where it lies in another chunk,
// whose pn may not be written yet: no barrier, and q is A·p itself, bit for bit what a separate SpMV
// of the stored p gives (where q ← A·z + β·q by linearity drifts in f32). po and pn are two buffers
// the caller swaps. As assembly/spmv_dia.ts: 4 v128 of rows (16) summed in registers over the
// diagonals; rows some diagonal leaves the matrix at go through the scalar row, and the sum over
// diagonals has one order everywhere (lanes = scalar rows). f32 only: in f64, q ← A·z + β·q does not
// drift and the split pass measured slower (src/cpu/solver-ops.ts).

/** Column j's entry of the new direction: pn where this chunk wrote it, else z + β·po. */
// @ts-ignore: decorator
@inline function dirAt(z: usize, po: usize, pn: usize, bt: f32, j: i32, start: i32, end: i32): f32 {
  const o = <usize>j << 2;
  return j >= start && j < end ? load<f32>(pn + o) : load<f32>(z + o) + bt * load<f32>(po + o);
}

// @ts-ignore: decorator
@inline function cgDiaRow(offsets: usize, ndiag: i32, data: usize, pitch: i32, n: i32, z: usize, po: usize, pn: usize, q: usize, bt: f32, i: i32, start: i32, end: i32): f64 {
  let acc: f32 = 0;
  for (let d = 0; d < ndiag; d++) {
    const j = i + load<i32>(offsets + (<usize>d << 2));
    if (<u32>j >= <u32>n) continue;
    acc += load<f32>(data + ((<usize>d * <usize>pitch + <usize>i) << 2)) * dirAt(z, po, pn, bt, j, start, end);
  }
  store<f32>(q + (<usize>i << 2), acc);
  return <f64>load<f32>(pn + (<usize>i << 2)) * <f64>acc;
}

/** Four v128 of the direction from column j on: pn's where [j, j + 16) lies in the chunk, else z + β·po's. */
// @ts-ignore: decorator
@inline function dirBlock(z: usize, po: usize, pn: usize, bv: v128, j: i32, start: i32, end: i32, k: i32): v128 {
  const o = <usize>j << 2;
  if (j >= start && j + 16 <= end) return v128.load(pn + o + (<usize>k << 4));
  return f32x4.add(v128.load(z + o + (<usize>k << 4)), f32x4.mul(bv, v128.load(po + o + (<usize>k << 4))));
}

/** The f64 products of the four f32 lanes of p and q, pairwise summed into two lanes. */
// @ts-ignore: decorator
@inline function promoteDot(p: v128, q: v128): v128 {
  const lo = f64x2.mul(f64x2.promote_low_f32x4(p), f64x2.promote_low_f32x4(q));
  const hi = f64x2.mul(f64x2.promote_low_f32x4(f32x4.shuffle(p, p, 2, 3, 0, 1)), f64x2.promote_low_f32x4(f32x4.shuffle(q, q, 2, 3, 0, 1)));
  return f64x2.add(lo, hi);
}

// @ts-ignore: decorator
@inline function cgDiaF32(offsets: usize, ndiag: i32, data: usize, pitch: i32, n: i32, z: usize, po: usize, pn: usize, q: usize, masks: usize, table: usize, beta: f64, out: usize, start: i32, end: i32, uniform: bool): void {
  const bt = <f32>beta;
  // this chunk's rows of pn
  let i = start;
  if (ASC_FEATURE_SIMD) {
    const bv = f32x4.splat(bt);
    for (; i + 4 <= end; i += 4) {
      const o = <usize>i << 2;
      v128.store(pn + o, f32x4.add(v128.load(z + o), f32x4.mul(bv, v128.load(po + o))));
    }
  }
  for (; i < end; i++) {
    const o = <usize>i << 2;
    store<f32>(pn + o, load<f32>(z + o) + bt * load<f32>(po + o));
  }
  let s: f64 = 0;
  // rows [lo, hi): every diagonal's column in [0, n) (offsets ascending) — with `uniform`, from a
  // multiple of 16, so that each block of rows is one of `masks`'s (the rows before as scalar rows: the
  // same q, pnᵀq summed in another order where that moved them)
  const lo0 = min(end, max(start, ndiag > 0 ? -load<i32>(offsets) : 0));
  const lo = uniform ? min(end, (lo0 + 15) & ~15) : lo0;
  const hi = max(lo, min(end, ndiag > 0 ? n - load<i32>(offsets + (<usize>(ndiag - 1) << 2)) : n));
  i = start;
  for (; i < lo; i++) s += cgDiaRow(offsets, ndiag, data, pitch, n, z, po, pn, q, bt, i, start, end);
  if (ASC_FEATURE_SIMD) {
    const bv = f32x4.splat(bt);
    let s0 = f64x2.splat(0), s1 = f64x2.splat(0);
    // blocks from inLo to inHi read only this chunk's pn
    const inLo = ndiag > 0 ? start - load<i32>(offsets) : start;
    const inHi = ndiag > 0 ? end - load<i32>(offsets + (<usize>(ndiag - 1) << 2)) - 16 : end - 16;
    const dstep = <usize>pitch << 2;
    for (; i + 16 <= hi; i += 16) {
      let a0 = f32x4.splat(0), a1 = f32x4.splat(0), a2 = f32x4.splat(0), a3 = f32x4.splat(0);
      const o = <usize>i << 2;
      if (i >= inLo && i <= inHi) {
        // every diagonal's columns in this chunk: pn alone, as assembly/spmv_dia.ts's interior blocks
        // (uniform: diagonal d's 16 rows read from the table's 16 copies of its constant where the
        // block's mask has bit d — the same bits, L1's, not A's slots; no branch)
        const pi = pn + o;
        let dp = data + o;
        const mk: u32 = uniform ? <u32>load<u8>(masks + (<usize>i >> 4)) : 0;
        let tp = table;
        for (let op = offsets, oe = offsets + (<usize>ndiag << 2), d: u32 = 0; op < oe; op += 4, dp += dstep, tp += 64, d++) {
          const pj = pi + (<usize>load<i32>(op) << 2);
          const ap = uniform && (mk >> d) & 1 ? tp : dp;
          a0 = f32x4.add(a0, f32x4.mul(v128.load(ap), v128.load(pj)));
          a1 = f32x4.add(a1, f32x4.mul(v128.load(ap, 16), v128.load(pj, 16)));
          a2 = f32x4.add(a2, f32x4.mul(v128.load(ap, 32), v128.load(pj, 32)));
          a3 = f32x4.add(a3, f32x4.mul(v128.load(ap, 48), v128.load(pj, 48)));
        }
      } else for (let d = 0; d < ndiag; d++) {
        const j = i + load<i32>(offsets + (<usize>d << 2));
        const a = data + ((<usize>d * <usize>pitch) << 2) + o;
        if (j >= start && j + 16 <= end) {
          const pj = pn + (<usize>j << 2);
          a0 = f32x4.add(a0, f32x4.mul(v128.load(a), v128.load(pj)));
          a1 = f32x4.add(a1, f32x4.mul(v128.load(a, 16), v128.load(pj, 16)));
          a2 = f32x4.add(a2, f32x4.mul(v128.load(a, 32), v128.load(pj, 32)));
          a3 = f32x4.add(a3, f32x4.mul(v128.load(a, 48), v128.load(pj, 48)));
        } else {
          a0 = f32x4.add(a0, f32x4.mul(v128.load(a), dirBlock(z, po, pn, bv, j, start, end, 0)));
          a1 = f32x4.add(a1, f32x4.mul(v128.load(a, 16), dirBlock(z, po, pn, bv, j, start, end, 1)));
          a2 = f32x4.add(a2, f32x4.mul(v128.load(a, 32), dirBlock(z, po, pn, bv, j, start, end, 2)));
          a3 = f32x4.add(a3, f32x4.mul(v128.load(a, 48), dirBlock(z, po, pn, bv, j, start, end, 3)));
        }
      }
      v128.store(q + o, a0);
      v128.store(q + o, a1, 16);
      v128.store(q + o, a2, 32);
      v128.store(q + o, a3, 48);
      s0 = f64x2.add(s0, f64x2.add(promoteDot(v128.load(pn + o), a0), promoteDot(v128.load(pn + o, 16), a1)));
      s1 = f64x2.add(s1, f64x2.add(promoteDot(v128.load(pn + o, 32), a2), promoteDot(v128.load(pn + o, 48), a3)));
    }
    const t = f64x2.add(s0, s1);
    s += f64x2.extract_lane(t, 0) + f64x2.extract_lane(t, 1);
  }
  for (; i < end; i++) s += cgDiaRow(offsets, ndiag, data, pitch, n, z, po, pn, q, bt, i, start, end);
  store<f64>(out, s);
}

export function cg_dia_f32(offsets: usize, ndiag: i32, data: usize, pitch: i32, n: i32, z: usize, po: usize, pn: usize, q: usize, beta: f64, out: usize, start: i32, end: i32): void {
  cgDiaF32(offsets, ndiag, data, pitch, n, z, po, pn, q, 0, 0, beta, out, start, end, false);
}

// cg_dia_f32 where `masks` (dia_uniform_f32's: a byte per 16-row block, bit d set where diagonal
// d holds its constant in all 16 rows; ndiag ≤ 8) and `table` (each diagonal's constant 16 times, 64
// bytes a diagonal) say which of A's slots need not be read: a stencil's — poisson3D(64)'s ±1
// diagonals hold a grid line's zeros in half its blocks, its others in ≈ 3 % — so the step reads ≈ 16 %
// of A's 7.3 MB instead of all of it. The same pn and q, bit for bit.
export function cg_dia_f32u(offsets: usize, ndiag: i32, data: usize, pitch: i32, n: i32, z: usize, po: usize, pn: usize, q: usize, masks: usize, table: usize, beta: f64, out: usize, start: i32, end: i32): void {
  cgDiaF32(offsets, ndiag, data, pitch, n, z, po, pn, q, masks, table, beta, out, start, end, true);
}

// The uniform parts of an n-row f32 DIA matrix, over its 16-row blocks [start, end) (the last one
// partial): flags[g] = 1 where every diagonal d holds the bits of consts[d] (an i32 each) in the 4 rows
// of group g (g < n/4), else 0 — the flags the f64 CG product kernels read uniform groups by
// (…_f64f32u), for an f32 matrix's f64 head (src/cpu/refine.ts wideView), as src/cpu/spmv-plan.ts
// compactUniform flags a compact f64 copy's while it copies — and, where `masks` is not 0 (ndiag ≤ 8),
// masks[b] bit d set where diagonal d holds it in all 16 rows of block b (a whole block), cg_dia_f32u's.
export function dia_uniform_f32(ndiag: i32, data: usize, pitch: i32, n: i32, consts: usize, flags: usize, masks: usize, start: i32, end: i32): void {
  const groups = n >> 2;
  for (let b = start; b < end; b++) {
    // the diagonals (of the first 8) uniform in every group of the block so far: none for a partial block
    let m: u32 = (b << 4) + 16 <= n ? 0xff : 0;
    for (let g = b << 2, ge = min(groups, (b << 2) + 4); g < ge; g++) {
      let all = true;
      let e: u32 = 0;
      for (let d = 0; d < ndiag; d++) {
        const p = data + ((<usize>d * <usize>pitch + (<usize>g << 2)) << 2);
        const c = load<i32>(consts + (<usize>d << 2));
        let u: bool;
        if (ASC_FEATURE_SIMD) u = i32x4.all_true(i32x4.eq(v128.load(p), i32x4.splat(c)));
        else u = load<i32>(p) == c && load<i32>(p, 4) == c && load<i32>(p, 8) == c && load<i32>(p, 12) == c;
        all = all && u;
        if (u && d < 8) e |= <u32>1 << <u32>d;
      }
      store<u8>(flags + <usize>g, all ? 1 : 0);
      m &= e;
    }
    if (masks) store<u8>(masks + <usize>b, <u8>m);
  }
}

// Iterative refinement of an f32 DIA matrix on the pool (src/cpu/refine.ts): x and b in f64, the
// correction d and the inner solve's right-hand side in f32.

// xn ← x + d (xn f64, d f32) and the partial Σ (dᵢ − dᵢ) at `out`: 0, or NaN where d holds Inf or
// NaN (the correction is then not applied: x is kept).
export function refine_add_f32(x: usize, d: usize, xn: usize, out: usize, start: i32, end: i32): void {
  let s: f64 = 0;
  for (let i = start; i < end; i++) {
    const di = <f64>load<f32>(d + (<usize>i << 2));
    store<f64>(xn + (<usize>i << 3), load<f64>(x + (<usize>i << 3)) + di);
    s += di - di;
  }
  store<f64>(out, s);
}

// r ← b − A·x in f64 from the f32 values of a square n×n DIA matrix (each product exact, the sums in
// f64, diagonals in order), rhs ← r rounded to f32, and the partial Σ rᵢ² at `out`, rows [start, end).
/** Row i of refine_residual_dia_f32, diagonals out of range skipped; returns rᵢ². */
// @ts-ignore: decorator
@inline function residualRow(offsets: usize, ndiag: i32, data: usize, pitch: i32, n: i32, x: usize, b: usize, rhs: usize, i: i32): f64 {
  let acc: f64 = 0;
  for (let d = 0; d < ndiag; d++) {
    const j = i + load<i32>(offsets + (<usize>d << 2));
    if (<u32>j >= <u32>n) continue;
    acc += <f64>load<f32>(data + ((<usize>d * <usize>pitch + <usize>i) << 2)) * load<f64>(x + (<usize>j << 3));
  }
  const ri = load<f64>(b + (<usize>i << 3)) - acc;
  store<f32>(rhs + (<usize>i << 2), <f32>ri);
  return ri * ri;
}

export function refine_residual_dia_f32(offsets: usize, ndiag: i32, data: usize, pitch: i32, n: i32, x: usize, b: usize, rhs: usize, out: usize, start: i32, end: i32): void {
  let s: f64 = 0;
  // rows [lo, hi): every diagonal's column in [0, n) (offsets ascending); 4 rows at a time there, the
  // same sums in the same order as the scalar row
  const lo = min(end, max(start, ndiag > 0 ? -load<i32>(offsets) : 0));
  const hi = max(lo, min(end, ndiag > 0 ? n - load<i32>(offsets + (<usize>(ndiag - 1) << 2)) : n));
  let i = start;
  for (; i < lo; i++) s += residualRow(offsets, ndiag, data, pitch, n, x, b, rhs, i);
  if (ASC_FEATURE_SIMD) {
    let s0 = f64x2.splat(0), s1 = f64x2.splat(0);
    const dstep = <usize>pitch << 2;
    for (; i + 4 <= hi; i += 4) {
      let a0 = f64x2.splat(0), a1 = f64x2.splat(0);
      const xi = x + (<usize>i << 3);
      let dp = data + (<usize>i << 2);
      for (let op = offsets, oe = offsets + (<usize>ndiag << 2); op < oe; op += 4, dp += dstep) {
        const xp = xi + (<usize>(<isize>load<i32>(op) << 3));
        a0 = f64x2.add(a0, f64x2.mul(f64x2.promote_low_f32x4(v128.load64_zero(dp)), v128.load(xp)));
        a1 = f64x2.add(a1, f64x2.mul(f64x2.promote_low_f32x4(v128.load64_zero(dp, 8)), v128.load(xp, 16)));
      }
      const bp = b + (<usize>i << 3);
      const r0 = f64x2.sub(v128.load(bp), a0);
      const r1 = f64x2.sub(v128.load(bp, 16), a1);
      v128.store(rhs + (<usize>i << 2), f32x4.shuffle(f32x4.demote_f64x2_zero(r0), f32x4.demote_f64x2_zero(r1), 0, 1, 4, 5));
      s0 = f64x2.add(s0, f64x2.mul(r0, r0));
      s1 = f64x2.add(s1, f64x2.mul(r1, r1));
    }
    const t = f64x2.add(s0, s1);
    s += f64x2.extract_lane(t, 0) + f64x2.extract_lane(t, 1);
  }
  for (; i < end; i++) s += residualRow(offsets, ndiag, data, pitch, n, x, b, rhs, i);
  store<f64>(out, s);
}
