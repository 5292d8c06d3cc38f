import { allocValues, components, isComplex, type ValueArray } from '../../dtype.js';
import { ShapeError } from '../../errors.js';
import { div } from '../krylov/complex.js';
import { CSRMatrix } from '../../formats/csr.js';
import type { LevelSchedule } from '../ops.js';

/**
 * The level schedule of a triangular matrix (only its lower or upper triangle is read): a row's level
 * is one more than the highest level of the rows it depends on, so every level's rows can be solved
 * at once. Computed once on the host when a preconditioner is set up; O(nnz).
 */
export function levelSchedule(T: CSRMatrix, lower: boolean): LevelSchedule {
  const n = T.rows;
  const level = new Int32Array(n);
  let depth = 0;
  for (let s = 0; s < n; s++) {
    const i = lower ? s : n - 1 - s;
    let l = 0;
    for (let k = T.rowPtr[i]; k < T.rowPtr[i + 1]; k++) {
      const j = T.colIdx[k];
      if (lower ? j < i : j > i) l = Math.max(l, level[j] + 1);
    }
    level[i] = l;
    depth = Math.max(depth, l + 1);
  }
  const levelPtr = new Int32Array(depth + 1);
  for (let i = 0; i < n; i++) levelPtr[level[i] + 1]++;
  for (let l = 0; l < depth; l++) levelPtr[l + 1] += levelPtr[l];
  const next = levelPtr.slice(0, depth);
  const rows = new Int32Array(n);
  // rows keep their order within a level (ascending for lower, descending for upper)
  for (let s = 0; s < n; s++) {
    const i = lower ? s : n - 1 - s;
    rows[next[level[i]]++] = i;
  }
  return { levelPtr, rows };
}

/**
 * The schedule of Tᴴ from the schedule of T (lower ↔ upper): the levels in reverse order, each level's
 * rows reversed. Valid because every dependency of Tᴴ is a dependency of T turned around, so a row of
 * Tᴴ needs only rows of later levels of T; the same depth, without a second pass over the factor
 * (IC(0)'s backward solve with Lᴴ).
 */
export function reversedSchedule(s: LevelSchedule): LevelSchedule {
  const depth = s.levelPtr.length - 1;
  const n = s.rows.length;
  const levelPtr = new Int32Array(depth + 1);
  for (let l = 0; l < depth; l++) levelPtr[l + 1] = n - s.levelPtr[depth - 1 - l];
  return { levelPtr, rows: s.rows.slice().reverse() };
}

/**
 * A triangular factor as the triangular-solve kernels take it: the strict triangle alone (entries on
 * the other side are dropped) and the inverse of the diagonal (null for a unit diagonal). A zero
 * diagonal entry is a ShapeError naming the row.
 */
export function splitTriangle(T: CSRMatrix, lower: boolean, unitDiagonal: boolean): { strict: CSRMatrix; invDiag: ValueArray | null } {
  const n = T.rows;
  const c = components(T.dtype);
  const complex = isComplex(T.dtype);
  const ptr = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) {
    let m = 0;
    for (let k = T.rowPtr[i]; k < T.rowPtr[i + 1]; k++) if (lower ? T.colIdx[k] < i : T.colIdx[k] > i) m++;
    ptr[i + 1] = ptr[i] + m;
  }
  // a unit-diagonal T already strict (ILU(0)'s L): T itself, not a copy of every entry (a copy's fresh
  // pages cost ≈ 5 ms for a 262 144-row 3-D stencil's L on the 2-core VM)
  if (unitDiagonal && ptr[n] === T.nnz) return { strict: T, invDiag: null };
  const idx = new Int32Array(ptr[n]);
  const val = allocValues(T.dtype, ptr[n]);
  const invDiag = unitDiagonal ? null : allocValues(T.dtype, n);
  for (let i = 0; i < n; i++) {
    let p = ptr[i];
    let dr = 0;
    let di = 0;
    for (let k = T.rowPtr[i]; k < T.rowPtr[i + 1]; k++) {
      const j = T.colIdx[k];
      if (j === i) {
        dr += T.values[c * k];
        if (complex) di += T.values[c * k + 1];
      } else if (lower ? j < i : j > i) {
        idx[p] = j;
        for (let q = 0; q < c; q++) val[c * p + q] = T.values[c * k + q];
        p++;
      }
    }
    if (!invDiag) continue;
    // 1/d range-safely: |d|² overflowed or underflowed from |d| ≈ 1e±154 ('not finite' / 'zero' for ILU(0) of A·1e160, A·1e-200)
    if (dr === 0 && di === 0) throw new ShapeError(`triangular solve: the diagonal entry T[${i},${i}] is zero`);
    if (!Number.isFinite(dr) || !Number.isFinite(di)) throw new ShapeError(`triangular solve: the diagonal entry T[${i},${i}] is not finite`);
    if (complex) [invDiag[2 * i], invDiag[2 * i + 1]] = div([1, 0], [dr, di]);
    else invDiag[i] = 1 / dr;
  }
  return { strict: new CSRMatrix(n, n, T.dtype, ptr, idx, val), invDiag };
}
