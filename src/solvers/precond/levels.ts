import { allocValues, isComplex, type ValueArray } from '../../dtype.js';
import { ShapeError } from '../../errors.js';
import { div } from '../krylov/complex.js';
import { diagonalSums, type CSRMatrix } from '../../formats/csr.js';
import type { LevelSchedule, TriangularOptions } from '../ops.js';

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
  return groupedByLevel(level, depth, lower);
}

/**
 * Items (rows, or units of rows) grouped by their level: the level pointers and the items level by level,
 * each level's in solve order (ascending for lower, descending for upper).
 */
export function groupedByLevel(level: Int32Array, depth: number, lower: boolean): LevelSchedule {
  const n = level.length;
  const levelPtr = new Int32Array(depth + 1);
  for (let i = 0; i < n; i++) levelPtr[level[i] + 1]++;
  for (let l = 0; l < depth; l++) levelPtr[l + 1] += levelPtr[l];
  const next = levelPtr.slice(0, depth);
  const rows = new Int32Array(n);
  for (let s = 0; s < n; s++) {
    const i = lower ? s : n - 1 - s;
    rows[next[level[i]]++] = i;
  }
  return { levelPtr, rows };
}

/**
 * How T is to be solved, its level schedule computed when a path first reads it (`schedule`, by default
 * T's own): the WebGPU path solves by levels; the CPU path plans units of rows of its own and never
 * reads it (≈ 5 ms a factor of 262 144 rows, on every set-up).
 */
export function triangularOptions(T: CSRMatrix, lower: boolean, unitDiagonal: boolean, schedule = () => levelSchedule(T, lower)): TriangularOptions {
  let levels: LevelSchedule | undefined;
  return {
    lower,
    unitDiagonal,
    get levels() {
      return (levels ??= schedule());
    },
  };
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

/** Row pointers of T's strict lower (upper) triangle: per row, how many stored entries lie strictly on that side of the diagonal. */
export function strictRowPointers(T: CSRMatrix, lower: boolean): Int32Array {
  const n = T.rows;
  const ptr = new Int32Array(n + 1);
  const { rowPtr, colIdx } = T;
  for (let i = 0; i < n; i++) {
    let m = 0;
    for (let k = rowPtr[i], e = rowPtr[i + 1]; k < e; k++) if (lower ? colIdx[k] < i : colIdx[k] > i) m++;
    ptr[i + 1] = ptr[i] + m;
  }
  return ptr;
}

/**
 * The inverse of T's diagonal (its stored diagonal entries summed, as diagonalSums sums them) as the
 * triangular-solve kernels take it. A zero or non-finite diagonal entry is a ShapeError naming the row.
 * (Jacobi's inverseDiagonal refuses in its own words, and also an inverse past the dtype.)
 */
export function triangularInverseDiagonal(T: CSRMatrix): ValueArray {
  const n = T.rows;
  const complex = isComplex(T.dtype);
  const sums = diagonalSums(T);
  const invDiag = allocValues(T.dtype, n);
  for (let i = 0; i < n; i++) {
    const dr = complex ? sums[2 * i] : sums[i];
    const di = complex ? sums[2 * i + 1] : 0;
    // 1/d range-safely: |d|² overflowed or underflowed from |d| ≈ 1e±154 ('not finite' / 'zero' for ILU(0) of A·1e160, A·1e-200)
    if (dr === 0 && di === 0) throw new ShapeError(`triangular solve: the diagonal entry T[${i},${i}] is zero`);
    if (!Number.isFinite(dr) || !Number.isFinite(di)) throw new ShapeError(`triangular solve: the diagonal entry T[${i},${i}] is not finite`);
    if (complex) [invDiag[2 * i], invDiag[2 * i + 1]] = div([1, 0], [dr, di]);
    else invDiag[i] = 1 / dr;
  }
  return invDiag;
}
