// CSR SpMV kernels (csr_<dt>): one dot product per row, y = α·A·x + β·y over rows [rowStart, rowEnd)
// — CSR op=N, CSC op=T/H, and every other product the runtime turns into a gather over a CSR of A or
// Aᵀ (see src/cpu/spmv-plan.ts: gathers partition by output, so threads never write the same y).
// The row dot products live in complex.ts (shared with MRS). f32/c64 round α, β to f32 and compute in f32.
import {
  rowdot_f32, rowdot_f64, rowdot_c64, rowdot_c128, axpby_f32, axpby_f64, rowdot_any_f32, rowdot_any_f64,
  group4, rowdot4_f32, rowdot4eq_f32, rowdot4eq_f64,
} from './complex';

export function csr_f32(ptr: usize, idx: usize, val: usize, x: usize, y: usize, alpha: f64, beta: f64, rowStart: i32, rowEnd: i32): void {
  const a = <f32>alpha, b = <f32>beta;
  if (rowStart >= rowEnd) return;
  if (ASC_FEATURE_SIMD) {
    // 4 rows at a time (complex.ts, group4): equally long rows interleaved in scalar, differing ones
    // across lanes; every row is summed in an order fixed by its own length, so its bits do not depend
    // on where the range starts or which path took it
    const kEnd = load<i32>(ptr + (<usize>rowEnd << 2));
    const av = f32x4.splat(a), bv = f32x4.splat(b);
    let i = rowStart;
    for (; i + 4 <= rowEnd; i += 4) {
      const pp = ptr + (<usize>i << 2);
      const g = group4(pp, kEnd);
      if (g == 2) {
        rowsOneByOne_f32(ptr, idx, val, x, y, a, b, i, i + 4);
        continue;
      }
      const yp = y + (<usize>i << 2);
      const r = f32x4.mul(av, g == 0 ? rowdot4eq_f32(pp, idx, val, x) : rowdot4_f32(pp, idx, val, x));
      v128.store(yp, b == 0 ? r : f32x4.add(r, f32x4.mul(bv, v128.load(yp))));
    }
    rowsOneByOne_f32(ptr, idx, val, x, y, a, b, i, rowEnd);
    return;
  }
  let k0 = load<i32>(ptr + (<usize>rowStart << 2));
  for (let i = rowStart; i < rowEnd; i++) {
    const k1 = load<i32>(ptr + (<usize>i << 2), 4);
    axpby_f32(y + (<usize>i << 2), rowdot_f32(idx, val, x, k0, k1), a, b);
    k0 = k1;
  }
}

/** SIMD build: rows [i0, i1) one by one, each in the order its lane would use (rowdot_any_f32). */
function rowsOneByOne_f32(ptr: usize, idx: usize, val: usize, x: usize, y: usize, a: f32, b: f32, i0: i32, i1: i32): void {
  for (let i = i0; i < i1; i++) {
    const q = ptr + (<usize>i << 2);
    axpby_f32(y + (<usize>i << 2), rowdot_any_f32(idx, val, x, load<i32>(q), load<i32>(q, 4)), a, b);
  }
}

export function csr_f64(ptr: usize, idx: usize, val: usize, x: usize, y: usize, alpha: f64, beta: f64, rowStart: i32, rowEnd: i32): void {
  if (rowStart >= rowEnd) return;
  if (ASC_FEATURE_SIMD) {
    const kEnd = load<i32>(ptr + (<usize>rowEnd << 2));
    const z = f64x2.splat(0);
    let i = rowStart;
    for (; i + 4 <= rowEnd; i += 4) {
      const pp = ptr + (<usize>i << 2);
      const g = group4(pp, kEnd);
      // lengths that differ go row by row: in f64 the across-rows lanes (rowdot4_f64) cost 20
      // instructions per nonzero on power-law rows against 13 for the scalar rows (callgrind), and
      // give the same bits (a short row is summed in the rowdot2 order either way)
      if (g == 0) rowdot4eq_f64(pp, idx, val, x, y + (<usize>i << 3), alpha, beta, false, z, z);
      else rowsOneByOne_f64(ptr, idx, val, x, y, alpha, beta, i, i + 4);
    }
    rowsOneByOne_f64(ptr, idx, val, x, y, alpha, beta, i, rowEnd);
    return;
  }
  let k0 = load<i32>(ptr + (<usize>rowStart << 2));
  for (let i = rowStart; i < rowEnd; i++) {
    const k1 = load<i32>(ptr + (<usize>i << 2), 4);
    axpby_f64(y + (<usize>i << 3), rowdot_f64(idx, val, x, k0, k1), alpha, beta);
    k0 = k1;
  }
}

/** csr_rows_f32 for f64. */
function rowsOneByOne_f64(ptr: usize, idx: usize, val: usize, x: usize, y: usize, a: f64, b: f64, i0: i32, i1: i32): void {
  for (let i = i0; i < i1; i++) {
    const q = ptr + (<usize>i << 2);
    axpby_f64(y + (<usize>i << 3), rowdot_any_f64(idx, val, x, load<i32>(q), load<i32>(q, 4)), a, b);
  }
}

// Rows of irregular length (the plan picks these entries when few 4-row groups have equal lengths, see
// src/cpu/spmv-plan.ts): row by row with no grouping. group4's test and the across-lanes sums cost more
// there than they save (power-law 1 M rows, f64: 20% slower, f32: 10%); a row's sum is the same either
// way (its order depends on its own length only), so the choice changes no bits.
export function csr_rows_f32(ptr: usize, idx: usize, val: usize, x: usize, y: usize, alpha: f64, beta: f64, rowStart: i32, rowEnd: i32): void {
  if (ASC_FEATURE_SIMD) rowsOneByOne_f32(ptr, idx, val, x, y, <f32>alpha, <f32>beta, rowStart, rowEnd);
  else csr_f32(ptr, idx, val, x, y, alpha, beta, rowStart, rowEnd);
}

export function csr_rows_f64(ptr: usize, idx: usize, val: usize, x: usize, y: usize, alpha: f64, beta: f64, rowStart: i32, rowEnd: i32): void {
  if (ASC_FEATURE_SIMD) rowsOneByOne_f64(ptr, idx, val, x, y, alpha, beta, rowStart, rowEnd);
  else csr_f64(ptr, idx, val, x, y, alpha, beta, rowStart, rowEnd);
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
