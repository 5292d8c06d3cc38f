// GMRES's classical Gram–Schmidt passes (src/solvers/krylov/gmres.ts) over the Krylov vectors
// V[0 … nv) — their pointers at `ptrs`, an i32 each — and w, rows [start, end), in blocks of BLOCK
// rows: where `coeffs` is not 0 (nv f64), w ← w − Σᵢ cᵢ·V[i] by axpy_* of −cᵢ over the block (the same bits
// as one axpy per vector over all of w, in order); then, where `then`
// is 1, the partials Σ V[i]ᵣ·wᵣ of the new w, as dot_* sums them (in f64), where it is 2 the partial
// Σ wᵣ² (first of the nv), in f64 (the caller takes ‖w‖ from it where that is in range). One pass over w and the
// V[i] a call — the V[i]'s rows of a block read again from L1 for the dots — where a dot and an axpy
// per vector read w 3·nv times. The partials (nv f64) go to wide + 8·nv·c for chunk c = (slot − base)/16
// (CpuBackend.runWideReduction: `slot` is the chunk's 16-byte slot of the reduction scratch at `base`).
import { axpy_c128, axpy_c64, axpy_f32, axpy_f64, dot_c128, dot_c64, sumprod_f32, sumprod_f64 } from './blas1';

// rows per block: nv ≤ 31 vectors' rows of a block stay in L1 (31 · 128 · 8 bytes = 31 KiB in f64)
const BLOCK = 128;

// @ts-ignore: decorator
@inline function gramSchmidt<T>(ptrs: usize, nv: i32, w: usize, coeffs: usize, then: i32, wide: usize, base: usize, slot: usize, start: i32, end: i32): void {
  const out = wide + ((<usize>((slot - base) >> 4) * <usize>nv) << 3);
  for (let i = 0; i < nv; i++) store<f64>(out + (<usize>i << 3), 0);
  for (let b = start; b < end; b += BLOCK) {
    const e = min(end, b + BLOCK);
    if (coeffs) {
      for (let i = 0; i < nv; i++) {
        const c = load<f64>(coeffs + (<usize>i << 3));
        const v = <usize>load<i32>(ptrs + (<usize>i << 2));
        if (sizeof<T>() == 4) axpy_f32(v, w, -c, b, e);
        else axpy_f64(v, w, -c, b, e);
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

// The same for complex w and V (c64, c128: interleaved re, im): coeffs 2·nv f64 (re, im), w ← w − Σᵢ cᵢ·V[i] by
// axpy_c* of −cᵢ; the partials conj(V[i])ᴴ·w as dot_c* makes them (re, im each: 2·nv f64 at wide + 16·nv·c,
// a block's written first to the chunk's slot, which nothing else reads), or Σ|wᵣ|² (the first of them).
// @ts-ignore: decorator
@inline function gramSchmidtComplex<T>(ptrs: usize, nv: i32, w: usize, coeffs: usize, then: i32, wide: usize, base: usize, slot: usize, start: i32, end: i32): void {
  const out = wide + ((<usize>((slot - base) >> 4) * <usize>nv) << 4);
  for (let i = 0; i < 2 * nv; i++) store<f64>(out + (<usize>i << 3), 0);
  for (let b = start; b < end; b += BLOCK) {
    const e = min(end, b + BLOCK);
    if (coeffs) {
      for (let i = 0; i < nv; i++) {
        const c = coeffs + (<usize>i << 4);
        const v = <usize>load<i32>(ptrs + (<usize>i << 2));
        if (sizeof<T>() == 4) axpy_c64(v, w, -load<f64>(c), -load<f64>(c, 8), b, e);
        else axpy_c128(v, w, -load<f64>(c), -load<f64>(c, 8), b, e);
      }
    }
    if (then == 2) store<f64>(out, load<f64>(out) + (sizeof<T>() == 4 ? sumprod_f32(w, w, b << 1, e << 1) : sumprod_f64(w, w, b << 1, e << 1)));
    else if (then == 1) {
      for (let i = 0; i < nv; i++) {
        const v = <usize>load<i32>(ptrs + (<usize>i << 2));
        if (sizeof<T>() == 4) dot_c64(v, w, 1, slot, b, e);
        else dot_c128(v, w, 1, slot, b, e);
        const p = out + (<usize>i << 4);
        store<f64>(p, load<f64>(p) + load<f64>(slot));
        store<f64>(p, load<f64>(p, 8) + load<f64>(slot, 8), 8);
      }
    }
  }
}

export function gram_schmidt_c128(ptrs: usize, nv: i32, w: usize, coeffs: usize, then: i32, wide: usize, base: usize, slot: usize, start: i32, end: i32): void {
  gramSchmidtComplex<f64>(ptrs, nv, w, coeffs, then, wide, base, slot, start, end);
}

export function gram_schmidt_c64(ptrs: usize, nv: i32, w: usize, coeffs: usize, then: i32, wide: usize, base: usize, slot: usize, start: i32, end: i32): void {
  gramSchmidtComplex<f32>(ptrs, nv, w, coeffs, then, wide, base, slot, start, end);
}
