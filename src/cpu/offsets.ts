/**
 * Banded CSR with narrow column indices: when every entry of a large real CSR (or CSC) matrix lies
 * within ±32767 of the diagonal, the CPU backend stores its columns as i16 offsets from it (index −
 * row) and runs csr16_* (assembly/spmv_csr.ts), which read 2 bytes per entry for the column instead of
 * 4: 6 bytes per entry instead of 8 in f32, 10 instead of 12 in f64, for the same values, x elements
 * and order, so the same bits. Stencils, FEM meshes numbered along a band and most structural matrices
 * qualify; graphs with scattered columns do not (they run in cache tiles, tiles.ts).
 */
import type { DType } from '../dtype.js';
import type { CSRMatrix } from '../formats/csr.js';

const I16_MIN = -32768;
const I16_MAX = 32767;
/**
 * Entries from which the narrow indices are used: 1 Mi entries, 4 MiB of i32 indices, more than a
 * core's L2 — the bytes saved count where the matrix streams from memory (poisson3D_128 on the 2-vCPU
 * EPYC, bench/kernels-csr16-probe.mjs: f64 2–9% faster at 2 threads in six runs, f32 within ±6%; the
 * matrix takes 25% / 17% less memory); in cache they buy nothing, and csr16_f32 takes 4 rows of
 * unequal lengths one by one where csr_f32 runs them across SIMD lanes.
 */
export const OFFSETS16_MIN_NNZ = 1 << 20;

/** Whether a pointer/index pair (CSR's rowPtr/colIdx, CSC's colPtr/rowIdx) of a dtype gets i16 offsets. */
export function narrowIndices(dtype: DType, ptr: Int32Array, idx: Int32Array): boolean {
  if ((dtype !== 'f32' && dtype !== 'f64') || idx.length < OFFSETS16_MIN_NNZ) return false;
  for (let i = 0; i + 1 < ptr.length; i++) {
    for (let k = ptr[i]; k < ptr[i + 1]; k++) {
      const d = idx[k] - i;
      if (d < I16_MIN || d > I16_MAX) return false;
    }
  }
  return true;
}

/** The i16 offsets (index − row) of a pair narrowIndices accepted. */
export function offsets16(ptr: Int32Array, idx: Int32Array): Int16Array {
  const out = new Int16Array(idx.length);
  for (let i = 0; i + 1 < ptr.length; i++) for (let k = ptr[i]; k < ptr[i + 1]; k++) out[k] = idx[k] - i;
  return out;
}

/** Whether the CPU path stores this CSR matrix's columns as i16 offsets (explain's feature). */
export function useOffsets16(A: CSRMatrix): boolean {
  return narrowIndices(A.dtype, A.rowPtr, A.colIdx);
}
