/**
 * How the CPU backend lays out a real CSR (or CSC) matrix for the grouped kernels
 * (assembly/spmv_csr_grouped.ts), where that pays:
 *  - narrow indices (`csr16_*`): every entry within ±32767 of the diagonal, each column stored as the
 *    i16 offset col − row: 6 bytes per entry instead of 8 in f32, 10 instead of 12 in f64;
 *  - uniform groups: rows 4g..4g+3 of equal length n (1 ≤ n ≤ 16) whose columns are those of the row
 *    above plus one, entry by entry (a stencil's interior), are stored interleaved and run one row per
 *    SIMD lane — with i16 offsets, or with their i32 columns (`csrg_*`) where the band is wider.
 * Every row keeps its summation order, so the bits are csr_*'s. Matrices with scattered columns run in
 * cache tiles instead (tiles.ts), the rest as plain CSR.
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
 * EPYC, f32 within ±6%; the matrix takes 25% / 17% less memory). Otherwise a matrix gets the grouped
 * layout when at least half of its 4-row groups are uniform: those run one row per SIMD lane, faster at
 * any size (poisson3D_24 to _128, 1 thread: f32 1.3–1.6×, f64 1.1–1.4× the i32 kernel). In cache,
 * offsets alone buy nothing, and the grouped f32 kernel takes 4 rows of unequal lengths one by one where
 * csr_f32 runs them across SIMD lanes.
 */
export const OFFSETS16_MIN_NNZ = 1 << 20;

/**
 * How the CPU path lays out a CSR matrix (`rt.explain(...).features.csrLayout`): `'csr16'` — 16-bit
 * offsets from the diagonal, uniform 4-row groups interleaved; `'csrg'` — i32 columns, uniform groups
 * interleaved; `'plain'` — CSR as it is (or in cache tiles, see `features.cacheTiles`).
 */
export type CsrLayoutKind = 'csr16' | 'csrg' | 'plain';

/** Whether rows 4g..4g+3 are of equal length n (1 ≤ n ≤ SHORT_ROW) with the same offsets from the diagonal. */
function isUniform(ptr: Int32Array, idx: Int32Array, g: number): boolean {
  const i = 4 * g, p = ptr[i], n = ptr[i + 1] - p;
  if (n < 1 || n > SHORT_ROW || ptr[i + 2] - ptr[i + 1] !== n || ptr[i + 3] - ptr[i + 2] !== n || ptr[i + 4] - ptr[i + 3] !== n) return false;
  for (let q = 1; q < 4; q++) for (let k = 0; k < n; k++) if (idx[p + q * n + k] - q !== idx[p + k]) return false;
  return true;
}

/** One byte per aligned group of 4 rows (a trailing partial group included, always 0): 1 when uniform. */
export function uniformGroups(ptr: Int32Array, idx: Int32Array): Uint8Array {
  const rows = ptr.length - 1;
  const groups = new Uint8Array(Math.ceil(rows / 4));
  for (let g = 0; 4 * g + 4 <= rows; g++) if (isUniform(ptr, idx, g)) groups[g] = 1;
  return groups;
}

/** The layout chosen for a pair, with the group flags the grouped layout is then built from. */
export interface CsrLayoutChoice {
  kind: CsrLayoutKind;
  /** uniformGroups' flags (empty for complex dtypes) */
  groups: Uint8Array;
}

/** Which layout a pair (CSR's rowPtr/colIdx, CSC's colPtr/rowIdx) of a dtype gets (rule above). */
export function chooseCsrLayout(dtype: DType, ptr: Int32Array, idx: Int32Array): CsrLayoutChoice {
  if (dtype !== 'f32' && dtype !== 'f64') return { kind: 'plain', groups: new Uint8Array(0) };
  let narrow = true;
  for (let i = 0; i + 1 < ptr.length && narrow; i++) {
    for (let k = ptr[i]; k < ptr[i + 1]; k++) {
      const d = idx[k] - i;
      if (d < I16_MIN || d > I16_MAX) {
        narrow = false;
        break;
      }
    }
  }
  const groups = uniformGroups(ptr, idx);
  if (narrow && idx.length >= OFFSETS16_MIN_NNZ) return { kind: 'csr16', groups };
  const uniform = countUniform(groups);
  const whole = (ptr.length - 1) >> 2;
  if (uniform === 0 || 2 * uniform < whole) return { kind: 'plain', groups };
  return { kind: narrow ? 'csr16' : 'csrg', groups };
}

/** How many groups the flags mark uniform. */
export function countUniform(groups: Uint8Array): number {
  let n = 0;
  for (const f of groups) n += f;
  return n;
}

/** The arrays a grouped kernel reads. */
export interface GroupedLayout {
  /** i16 offsets (csr16) or i32 columns (csrg), in CSR order except inside uniform groups */
  idx: Int16Array | Int32Array;
  /** the values in the same order */
  values: Float32Array | Float64Array;
  /** one byte per aligned group of 4 rows: 1 when uniform (stored interleaved), else 0 */
  groups: Uint8Array;
  /** how many groups are uniform */
  uniform: number;
}

/**
 * The grouped layout of a pair: indices as i16 offsets from the diagonal (kind 'csr16') or as they are
 * ('csrg'), and each uniform group (flags from uniformGroups) interleaved — entry k of row q at p + 4k + q
 * (p = ptr[4g]), so the kernel reads the 4 rows' k-th values, and their adjacent x elements, as one v128 each.
 */
export function groupedLayout(
  kind: 'csr16' | 'csrg',
  ptr: Int32Array,
  idx: Int32Array,
  values: Float32Array | Float64Array,
  groups = uniformGroups(ptr, idx),
): GroupedLayout {
  const out = kind === 'csr16' ? new Int16Array(idx.length) : new Int32Array(idx.length);
  const vals = new (values.constructor as Float32ArrayConstructor | Float64ArrayConstructor)(values.length);
  writeGroupedLayout(ptr, idx, values, groups, out, vals);
  return { idx: out, values: vals, groups, uniform: countUniform(groups) };
}

/**
 * groupedLayout written into arrays the caller provides (the upload's heap regions: no intermediate copy
 * of a matrix that may be hundreds of MB): `outIdx` an Int16Array for 'csr16', an Int32Array for 'csrg'.
 */
export function writeGroupedLayout(
  ptr: Int32Array,
  idx: Int32Array,
  values: Float32Array | Float64Array,
  groups: Uint8Array,
  outIdx: Int16Array | Int32Array,
  outVals: Float32Array | Float64Array,
): void {
  const rows = ptr.length - 1;
  const offsets = outIdx instanceof Int16Array;
  if (offsets) for (let i = 0; i < rows; i++) for (let k = ptr[i]; k < ptr[i + 1]; k++) outIdx[k] = idx[k] - i;
  else outIdx.set(idx);
  outVals.set(values);
  interleaveGroups(outIdx, idx, ptr, groups, offsets ? 1 : 0);
  interleaveGroups(outVals, values, ptr, groups, 0);
}

/** Each uniform group's entries of src, interleaved into dst, minus diag × the row (the offsets' base). */
function interleaveGroups(dst: Int16Array | Int32Array | Float32Array | Float64Array, src: Int32Array | Float32Array | Float64Array, ptr: Int32Array, groups: Uint8Array, diag: 0 | 1): void {
  for (let g = 0; g < groups.length; g++) {
    if (!groups[g]) continue;
    const p = ptr[4 * g], n = ptr[4 * g + 1] - p;
    for (let q = 0; q < 4; q++) {
      const base = diag * (4 * g + q);
      for (let k = 0; k < n; k++) dst[p + 4 * k + q] = src[p + q * n + k] - base;
    }
  }
}

/** The CPU path's layout of this CSR matrix (explain's feature). */
export function csrLayoutOf(A: CSRMatrix): CsrLayoutKind {
  return chooseCsrLayout(A.dtype, A.rowPtr, A.colIdx).kind;
}
