// GMRES's classical Gram–Schmidt passes (src/solvers/krylov/gmres.ts) over the Krylov vectors
// V[0 … nv) — their pointers at `ptrs`, an i32 each — and w, rows [start, end), in blocks of BLOCK
// rows: where `coeffs` is not 0 (nv f64), w ← w − Σᵢ cᵢ·V[i], each subtraction as axpy_* makes it (a
// zero cᵢ skipped as axpy skips it: the same bits as one axpy per vector, in order); then, where `then`
// is 1, the partials Σ V[i]ᵣ·wᵣ of the new w, as dot_* sums them (in f64), where it is 2 the partial
// Σ wᵣ² (first of the nv), in f64 (the caller takes ‖w‖ from it where that is in range). One pass over w and the
// V[i] a call — the V[i]'s rows of a block read again from L1 for the dots — where a dot and an axpy
// per vector read w 3·nv times. The partials (nv f64) go to wide + 8·nv·c for chunk c = (slot − base)/16
// (CpuBackend.runWideReduction: `slot` is the chunk's 16-byte slot of the reduction scratch at `base`).
import { sumprod_f32, sumprod_f64 } from './blas1';

// rows per block: nv ≤ 31 vectors' rows of a block stay in L1 (31 · 128 · 8 bytes = 31 KiB in f64)
const BLOCK = 128;

// @ts-ignore: decorator
@inline function subtract_f64(v: usize, w: usize, c: f64, start: i32, end: i32): void {
  const a = -c;
  let i = start;
  if (ASC_FEATURE_SIMD) {
    const av = f64x2.splat(a);
    for (; i + 2 <= end; i += 2) {
      const pv = v + (<usize>i << 3), pw = w + (<usize>i << 3);
      v128.store(pw, f64x2.add(f64x2.mul(v128.load(pv), av), v128.load(pw)));
    }
  }
  for (; i < end; i++) {
    const pw = w + (<usize>i << 3);
    store<f64>(pw, load<f64>(v + (<usize>i << 3)) * a + load<f64>(pw));
  }
}

// @ts-ignore: decorator
@inline function subtract_f32(v: usize, w: usize, c: f64, start: i32, end: i32): void {
  const a = <f32>-c;
  let i = start;
  if (ASC_FEATURE_SIMD) {
    const av = f32x4.splat(a);
    for (; i + 4 <= end; i += 4) {
      const pv = v + (<usize>i << 2), pw = w + (<usize>i << 2);
      v128.store(pw, f32x4.add(f32x4.mul(v128.load(pv), av), v128.load(pw)));
    }
  }
  for (; i < end; i++) {
    const pw = w + (<usize>i << 2);
    store<f32>(pw, load<f32>(v + (<usize>i << 2)) * a + load<f32>(pw));
  }
}

// @ts-ignore: decorator
@inline function gramSchmidt<T>(ptrs: usize, nv: i32, w: usize, coeffs: usize, then: i32, wide: usize, base: usize, slot: usize, start: i32, end: i32): void {
  const out = wide + ((<usize>((slot - base) >> 4) * <usize>nv) << 3);
  for (let i = 0; i < nv; i++) store<f64>(out + (<usize>i << 3), 0);
  for (let b = start; b < end; b += BLOCK) {
    const e = min(end, b + BLOCK);
    if (coeffs) {
      for (let i = 0; i < nv; i++) {
        const c = load<f64>(coeffs + (<usize>i << 3));
        // axpy's own test: the f32 kernel tests its rounded coefficient
        if (sizeof<T>() == 4 ? <f32>c == 0 : c == 0) continue;
        const v = <usize>load<i32>(ptrs + (<usize>i << 2));
        if (sizeof<T>() == 4) subtract_f32(v, w, c, b, e);
        else subtract_f64(v, w, c, b, e);
      }
    }
    if (then == 2) store<f64>(out, load<f64>(out) + (sizeof<T>() == 4 ? sumprod_f32(w, w, b, e) : sumprod_f64(w, w, b, e)));
    else if (then == 1) {
      for (let i = 0; i < nv; i++) {
        const v = <usize>load<i32>(ptrs + (<usize>i << 2));
        const p = out + (<usize>i << 3);
        store<f64>(p, load<f64>(p) + (sizeof<T>() == 4 ? sumprod_f32(v, w, b, e) : sumprod_f64(v, w, b, e)));
      }
    }
  }
}

export function gram_schmidt_f64(ptrs: usize, nv: i32, w: usize, coeffs: usize, then: i32, wide: usize, base: usize, slot: usize, start: i32, end: i32): void {
  gramSchmidt<f64>(ptrs, nv, w, coeffs, then, wide, base, slot, start, end);
}

export function gram_schmidt_f32(ptrs: usize, nv: i32, w: usize, coeffs: usize, then: i32, wide: usize, base: usize, slot: usize, start: i32, end: i32): void {
  gramSchmidt<f32>(ptrs, nv, w, coeffs, then, wide, base, slot, start, end);
}
