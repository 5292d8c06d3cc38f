// CSR SpMV kernels (csr_<dt>): one dot product per row, y = α·A·x + β·y over rows [rowStart, rowEnd)
// — CSR op=N, CSC op=T/H, and every other product the runtime turns into a gather over a CSR of A or
// Aᵀ (see src/cpu/spmv-plan.ts: gathers partition by output, so threads never write the same y).
// The row dot products live in complex.ts (shared with MRS). f32/c64 round α, β to f32 and compute in f32.
import { rowdot_f32, rowdot_f64, rowdot_c64, rowdot_c128, axpby_f32, axpby_f64 } from './complex';

export function csr_f32(ptr: usize, idx: usize, val: usize, x: usize, y: usize, alpha: f64, beta: f64, rowStart: i32, rowEnd: i32): void {
  const a = <f32>alpha, b = <f32>beta;
  if (rowStart >= rowEnd) return;
  let k0 = load<i32>(ptr + (<usize>rowStart << 2));
  for (let i = rowStart; i < rowEnd; i++) {
    const k1 = load<i32>(ptr + (<usize>i << 2), 4);
    axpby_f32(y + (<usize>i << 2), rowdot_f32(idx, val, x, k0, k1), a, b);
    k0 = k1;
  }
}

export function csr_f64(ptr: usize, idx: usize, val: usize, x: usize, y: usize, alpha: f64, beta: f64, rowStart: i32, rowEnd: i32): void {
  if (rowStart >= rowEnd) return;
  let k0 = load<i32>(ptr + (<usize>rowStart << 2));
  for (let i = rowStart; i < rowEnd; i++) {
    const k1 = load<i32>(ptr + (<usize>i << 2), 4);
    axpby_f64(y + (<usize>i << 3), rowdot_f64(idx, val, x, k0, k1), alpha, beta);
    k0 = k1;
  }
}

export function csr_c64(
  ptr: usize, idx: usize, val: usize, x: usize, y: usize,
  alphaRe: f64, alphaIm: f64, betaRe: f64, betaIm: f64, conj: i32, rowStart: i32, rowEnd: i32,
): void {
  const ar = <f32>alphaRe, ai = <f32>alphaIm, br = <f32>betaRe, bi = <f32>betaIm;
  if (rowStart >= rowEnd) return;
  let k0 = load<i32>(ptr + (<usize>rowStart << 2));
  for (let i = rowStart; i < rowEnd; i++) {
    const k1 = load<i32>(ptr + (<usize>i << 2), 4);
    rowdot_c64(idx, val, x, k0, k1, conj, 0, 0, y + (<usize>i << 3), ar, ai, br, bi);
    k0 = k1;
  }
}

export function csr_c128(
  ptr: usize, idx: usize, val: usize, x: usize, y: usize,
  alphaRe: f64, alphaIm: f64, betaRe: f64, betaIm: f64, conj: i32, rowStart: i32, rowEnd: i32,
): void {
  if (rowStart >= rowEnd) return;
  let k0 = load<i32>(ptr + (<usize>rowStart << 2));
  for (let i = rowStart; i < rowEnd; i++) {
    const k1 = load<i32>(ptr + (<usize>i << 2), 4);
    rowdot_c128(idx, val, x, k0, k1, conj, 0, 0, y + (<usize>i << 4), alphaRe, alphaIm, betaRe, betaIm);
    k0 = k1;
  }
}
