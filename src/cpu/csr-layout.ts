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
import { isPrivateCanonical, type CSRMatrix } from '../formats/csr.js';

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
  /** uniformGroups' flags; empty where the choice is 'plain' without them (their bound settled it) or the dtype complex */
  groups: Uint8Array;
}

/**
 * Which layout a pair (CSR's rowPtr/colIdx, CSC's colPtr/rowIdx) of a dtype gets (rule above).
 * `sorted`: every row's indices are known ascending (a canonical CSR), so its first and last entries
 * bound its offsets from the diagonal. The row lengths bound the uniform groups first: where even the
 * bound falls short of half, no index is read for them (an AMG level's P and R, a coarse operator).
 */
export function chooseCsrLayout(dtype: DType, ptr: Int32Array, idx: Int32Array, sorted = false): CsrLayoutChoice {
  const none = new Uint8Array(0);
  if (dtype !== 'f32' && dtype !== 'f64') return { kind: 'plain', groups: none };
  const whole = (ptr.length - 1) >> 2;
  const big = idx.length >= OFFSETS16_MIN_NNZ;
  const fewUniform = (uniform: number): boolean => uniform === 0 || 2 * uniform < whole;
  // the uniform groups are among those of 4 equally long short rows: too few of those and only a
  // large narrow matrix can leave plain CSR
  const few = fewUniform(shortEqualGroups(ptr));
  if (few && !big) return { kind: 'plain', groups: none };
  const narrow = sorted ? narrowSorted(ptr, idx) : narrowAll(ptr, idx);
  if (few && !narrow) return { kind: 'plain', groups: none };
  const groups = uniformGroups(ptr, idx);
  if (narrow && big) return { kind: 'csr16', groups };
  if (fewUniform(countUniform(groups))) return { kind: 'plain', groups };
  return { kind: narrow ? 'csr16' : 'csrg', groups };
}

/** How many aligned 4-row groups have 4 rows of one length n, 1 ≤ n ≤ SHORT_ROW: a bound on the uniform ones. */
export function shortEqualGroups(ptr: Int32Array): number {
  let n = 0;
  for (let i = 0; i + 4 < ptr.length; i += 4) {
    const L = ptr[i + 1] - ptr[i];
    if (L >= 1 && L <= SHORT_ROW && ptr[i + 2] - ptr[i + 1] === L && ptr[i + 3] - ptr[i + 2] === L && ptr[i + 4] - ptr[i + 3] === L) n++;
  }
  return n;
}

/** Whether every entry is within the i16 range of its row's diagonal, entry by entry. */
function narrowAll(ptr: Int32Array, idx: Int32Array): boolean {
  for (let i = 0; i + 1 < ptr.length; i++) {
    for (let k = ptr[i]; k < ptr[i + 1]; k++) {
      const d = idx[k] - i;
      if (d < I16_MIN || d > I16_MAX) return false;
    }
  }
  return true;
}

/** narrowAll for rows of ascending indices: each row's first and last entries are its extremes. */
function narrowSorted(ptr: Int32Array, idx: Int32Array): boolean {
  for (let i = 0; i + 1 < ptr.length; i++) {
    const p = ptr[i], q = ptr[i + 1] - 1;
    if (q < p) continue;
    if (idx[p] - i < I16_MIN || idx[q] - i > I16_MAX) return false;
  }
  return true;
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
  writeIndices(ptr, idx, groups, outIdx);
  outVals.set(values);
  interleaveValues(outVals, values, ptr, groups);
}

/**
 * The indices in one pass, CSR order except in uniform groups: i16 offsets col − row, or the i32
 * columns. A uniform group's rows have the same offsets entry by entry (row q's columns are row 0's
 * plus q), so its interleaved entries k are row 0's k-th, repeated (offsets) or plus q (columns).
 */
function writeIndices(ptr: Int32Array, idx: Int32Array, groups: Uint8Array, out: Int16Array | Int32Array): void {
  const rows = ptr.length - 1;
  const offsets = out instanceof Int16Array ? 1 : 0;
  for (let g = 0; g < groups.length; g++) {
    const i0 = 4 * g;
    if (groups[g]) {
      const p = ptr[i0], n = ptr[i0 + 1] - p, base = offsets * i0;
      for (let k = 0; k < n; k++) {
        const c = idx[p + k] - base, o = p + 4 * k, step = 1 - offsets;
        out[o] = c;
        out[o + 1] = c + step;
        out[o + 2] = c + 2 * step;
        out[o + 3] = c + 3 * step;
      }
      continue;
    }
    for (let i = i0; i < i0 + 4 && i < rows; i++) for (let k = ptr[i]; k < ptr[i + 1]; k++) out[k] = idx[k] - offsets * i;
  }
}

/** Each uniform group's values interleaved, entry k of row q at p + 4k + q (the others stay as copied). */
function interleaveValues(dst: Float32Array | Float64Array, src: Float32Array | Float64Array, ptr: Int32Array, groups: Uint8Array): void {
  for (let g = 0; g < groups.length; g++) {
    if (!groups[g]) continue;
    const p = ptr[4 * g], n = ptr[4 * g + 1] - p;
    for (let q = 0; q < 4; q++) for (let k = 0; k < n; k++) dst[p + 4 * k + q] = src[p + q * n + k];
  }
}

/** The CPU path's layout of this CSR matrix (explain's feature). */
export function csrLayoutOf(A: CSRMatrix): CsrLayoutKind {
  return chooseCsrLayout(A.dtype, A.rowPtr, A.colIdx, isPrivateCanonical(A)).kind;
}
