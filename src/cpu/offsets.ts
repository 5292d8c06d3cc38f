/**
 * Banded CSR with narrow column indices: when every entry of a real CSR (or CSC) matrix lies within
 * ±32767 of the diagonal, the CPU backend stores its columns as i16 offsets from it (index − row) and
 * runs csr16_* (assembly/spmv_csr16.ts), which read 2 bytes per entry for the column instead of 4: 6
 * bytes per entry instead of 8 in f32, 10 instead of 12 in f64. Groups of 4 rows with the same offsets
 * (a stencil's interior) are stored interleaved and run one row per SIMD lane. Every row keeps its
 * summation order, so the bits are csr_*'s. Stencils, FEM meshes numbered along a band and most
 * structural matrices fit; graphs with scattered columns do not (they run in cache tiles, tiles.ts).
 */
import type { DType } from '../dtype.js';
import type { CSRMatrix } from '../formats/csr.js';

const I16_MIN = -32768;
const I16_MAX = 32767;
/** Rows up to this long may form uniform groups: assembly/complex.ts SHORT_ROW (longer rows sum in another order). */
const SHORT_ROW = 16;

/**
 * Entries from which the narrow indices are used whatever the rows: 1 Mi entries, 4 MiB of i32 indices,
 * more than a core's L2 — the bytes saved count where the matrix streams from memory (poisson3D_128
 * with no group interleaved, bench/kernels-csr16-probe.ts: f64 2–9% faster at 2 threads on the 2-vCPU
 * EPYC, f32 within ±6%; the matrix takes 25% / 17% less memory). A smaller matrix gets them when at
 * least half of its 4-row groups are uniform (isUniform): those run one row per SIMD lane, faster at
 * any size (poisson3D_24 to _128, 1 thread: f32 1.3–1.6×, f64 1.1–1.4× the i32 kernel). In cache,
 * offsets alone buy nothing, and csr16_f32 takes 4 rows of unequal lengths one by one where csr_f32
 * runs them across SIMD lanes.
 */
export const OFFSETS16_MIN_NNZ = 1 << 20;

/** Whether rows 4g..4g+3 are of equal length n (1 ≤ n ≤ SHORT_ROW) with the same offsets from the diagonal. */
function isUniform(ptr: Int32Array, idx: Int32Array, g: number): boolean {
  const i = 4 * g, p = ptr[i], n = ptr[i + 1] - p;
  if (n < 1 || n > SHORT_ROW || ptr[i + 2] - ptr[i + 1] !== n || ptr[i + 3] - ptr[i + 2] !== n || ptr[i + 4] - ptr[i + 3] !== n) return false;
  for (let q = 1; q < 4; q++) for (let k = 0; k < n; k++) if (idx[p + q * n + k] - q !== idx[p + k]) return false;
  return true;
}

/** Whether a pointer/index pair (CSR's rowPtr/colIdx, CSC's colPtr/rowIdx) of a dtype gets the narrow layout. */
export function narrowIndices(dtype: DType, ptr: Int32Array, idx: Int32Array): boolean {
  if (dtype !== 'f32' && dtype !== 'f64') return false;
  for (let i = 0; i + 1 < ptr.length; i++) {
    for (let k = ptr[i]; k < ptr[i + 1]; k++) {
      const d = idx[k] - i;
      if (d < I16_MIN || d > I16_MAX) return false;
    }
  }
  if (idx.length >= OFFSETS16_MIN_NNZ) return true;
  const groups = (ptr.length - 1) >> 2;
  let uniform = 0;
  for (let g = 0; g < groups; g++) if (isUniform(ptr, idx, g)) uniform++;
  return uniform > 0 && 2 * uniform >= groups;
}

/** The arrays csr16_* reads (assembly/spmv_csr16.ts), for a pair narrowIndices accepted. */
export interface NarrowLayout {
  /** index − row as i16, in CSR order except inside uniform groups */
  off: Int16Array;
  /** the values in the same order as off */
  values: Float32Array | Float64Array;
  /** one byte per aligned group of 4 rows: 1 when uniform (stored interleaved), else 0 */
  groups: Uint8Array;
  /** how many groups are uniform */
  uniform: number;
}

/**
 * Offsets from the diagonal, and the uniform 4-row groups interleaved: rows 4g..4g+3 of equal length
 * n with the same offsets store entry k of row q at p + 4k + q (p = ptr[4g]), so the kernel reads the 4
 * rows' k-th values and x elements as one v128 each.
 */
export function narrowLayout(ptr: Int32Array, idx: Int32Array, values: Float32Array | Float64Array): NarrowLayout {
  const rows = ptr.length - 1;
  const off = new Int16Array(idx.length);
  for (let i = 0; i < rows; i++) for (let k = ptr[i]; k < ptr[i + 1]; k++) off[k] = idx[k] - i;
  const vals = values.slice();
  const groups = new Uint8Array(Math.ceil(rows / 4));
  let uniform = 0;
  for (let g = 0; 4 * g + 4 <= rows; g++) {
    if (!isUniform(ptr, idx, g)) continue;
    groups[g] = 1;
    uniform++;
    const p = ptr[4 * g], n = ptr[4 * g + 1] - p;
    for (let q = 0; q < 4; q++) {
      for (let k = 0; k < n; k++) {
        off[p + 4 * k + q] = idx[p + q * n + k] - (4 * g + q);
        vals[p + 4 * k + q] = values[p + q * n + k];
      }
    }
  }
  return { off, values: vals, groups, uniform };
}

/** Whether the CPU path stores this CSR matrix's columns as i16 offsets (explain's feature). */
export function useOffsets16(A: CSRMatrix): boolean {
  return narrowIndices(A.dtype, A.rowPtr, A.colIdx);
}
