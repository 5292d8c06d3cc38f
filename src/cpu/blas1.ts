import { isComplex } from '../dtype.js';
import type { CpuBackend } from './backend.js';
import type { CpuVector } from './resident.js';

/**
 * BLAS-1 on resident vectors, chunked over the pool like SpMV. Reductions combine the per-chunk
 * partial results in chunk order, so a result is deterministic for a given number of threads.
 */

/** y ← α·x + y */
export function axpy(B: CpuBackend, alpha: [number, number], x: CpuVector, y: CpuVector): Promise<number> {
  return B.runVector(`axpy_${x.dtype}`, () => [x.ptr, y.ptr, ...scalar(x, alpha)], x.length);
}

/** y ← α·y + x */
export function aypx(B: CpuBackend, alpha: [number, number], x: CpuVector, y: CpuVector): Promise<number> {
  return B.runVector(`aypx_${x.dtype}`, () => [x.ptr, y.ptr, ...scalar(x, alpha)], x.length);
}

/** x ← α·x (α = 0 writes zeros, so NaN in x does not survive) */
export function scal(B: CpuBackend, alpha: [number, number], x: CpuVector): Promise<number> {
  return B.runVector(`scal_${x.dtype}`, () => [x.ptr, ...scalar(x, alpha)], x.length);
}

/** y ← x */
export function copy(B: CpuBackend, x: CpuVector, y: CpuVector): Promise<number> {
  return B.runVector(`copy_${x.dtype}`, () => [x.ptr, y.ptr], x.length);
}

/** The chunks' (re, im) partials added in chunk order. */
export function sumPartials(parts: Float64Array): [number, number] {
  let re = 0;
  let im = 0;
  for (let c = 0; c < parts.length; c += 2) {
    re += parts[c];
    im += parts[c + 1];
  }
  return [re, im];
}

/** Σ x_i·y_i (conj: Σ conj(x_i)·y_i) as [re, im], accumulated in f64 */
export async function dot(B: CpuBackend, x: CpuVector, y: CpuVector, conj: boolean): Promise<[number, number]> {
  const args = (): number[] => (isComplex(x.dtype) ? [x.ptr, y.ptr, conj ? 1 : 0] : [x.ptr, y.ptr]);
  // real kernels write one f64 per chunk; the other slot keeps the scratch's zero
  return sumPartials(await B.runReduction(`dot_${x.dtype}`, args, x.length));
}

/** ‖x‖₂, safe from overflow and underflow: each chunk gives (scale, ssq) with Σ|x|² = scale²·ssq */
export async function nrm2(B: CpuBackend, x: CpuVector): Promise<number> {
  const parts = await B.runReduction(`nrm2_${x.dtype}`, () => [x.ptr], x.length);
  const chunks = parts.length / 2;
  let scale = 0;
  for (let c = 0; c < chunks; c++) scale = Math.max(scale, parts[2 * c]);
  if (scale === 0 || !Number.isFinite(scale)) return scale;
  let ssq = 0;
  for (let c = 0; c < chunks; c++) {
    const r = parts[2 * c] / scale;
    ssq += parts[2 * c + 1] * r * r;
  }
  return scale * Math.sqrt(ssq);
}

function scalar(v: CpuVector, a: [number, number]): number[] {
  return isComplex(v.dtype) ? [a[0], a[1]] : [a[0]];
}
