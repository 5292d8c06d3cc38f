/**
 * The sorting machinery behind CSR canonicalisation (COO → CSR, unsorted CSR → canonical CSR):
 * a stable O(nnz + rows) counting sort by row, then each row segment sorted by column and its
 * duplicates summed, in place. No per-entry objects and no comparison sorts on large arrays: short
 * rows use an insertion sort, long rows a stable LSD radix sort on the column (8 bits per pass). Both
 * are stable, so duplicates are summed in their input order (deterministic f32 rounding).
 */
import { allocValues, components, type DType, type ValueArray } from '../dtype.js';
import { allocIndex } from '../memory-budget.js';

/** Compressed-row arrays (rowPtr has rows + 1 entries). */
export interface RowArrays {
  rowPtr: Int32Array;
  colIdx: Int32Array;
  values: ValueArray;
}

/** Stable counting sort of triplets by row into new arrays; columns keep their input order per row. */
export function bucketByRow(rows: number, rowIdx: Int32Array, colIdx: Int32Array, values: ValueArray, dtype: DType): RowArrays {
  const comp = components(dtype);
  const nnz = rowIdx.length;
  const rowPtr = allocIndex(rows + 1, `row pointers of ${rows} rows`);
  const outCol = allocIndex(nnz, `${nnz} column indices`);
  const outVal = allocValues(dtype, nnz);
  for (let k = 0; k < nnz; k++) rowPtr[rowIdx[k] + 1]++;
  for (let i = 0; i < rows; i++) rowPtr[i + 1] += rowPtr[i];
  for (let k = 0; k < nnz; k++) {
    const p = rowPtr[rowIdx[k]]++;
    outCol[p] = colIdx[k];
    if (comp === 1) {
      outVal[p] = values[k];
    } else {
      outVal[2 * p] = values[2 * k];
      outVal[2 * p + 1] = values[2 * k + 1];
    }
  }
  unshiftCursors(rowPtr);
  return { rowPtr, colIdx: outCol, values: outVal };
}

/**
 * Row pointers back from the cursors a counting sort advanced in them (rowPtr[i] became the start of
 * row i + 1): no second array of rows entries (a file of 10⁸ rows and a few entries held 800 MB, not 400).
 */
export function unshiftCursors(rowPtr: Int32Array): void {
  rowPtr.copyWithin(1, 0, rowPtr.length - 1);
  rowPtr[0] = 0;
}

/** Whether every row's columns are strictly ascending (sorted, no duplicates). */
export function rowsCanonical(rowPtr: Int32Array, colIdx: Int32Array): boolean {
  const rows = rowPtr.length - 1;
  for (let i = 0; i < rows; i++) {
    for (let k = rowPtr[i] + 1, e = rowPtr[i + 1]; k < e; k++) {
      if (colIdx[k] <= colIdx[k - 1]) return false;
    }
  }
  return true;
}

const INSERTION_MAX = 32;

/**
 * Sorts every row segment by column (stable) and sums duplicate columns, compacting in place.
 * Rewrites rowPtr in place and returns the new nnz; the arrays past it are garbage.
 */
export function sortAndSumRows(rowPtr: Int32Array, colIdx: Int32Array, values: ValueArray, comp: number): number {
  const rows = rowPtr.length - 1;
  const scratch = new Scratch(values, comp);
  let w = 0;
  let s = rowPtr[0];
  for (let i = 0; i < rows; i++) {
    const e = rowPtr[i + 1];
    sortSegment(colIdx, values, comp, s, e, scratch);
    const rowStart = w;
    for (let k = s; k < e; k++) {
      if (w > rowStart && colIdx[w - 1] === colIdx[k]) {
        if (comp === 1) {
          values[w - 1] += values[k];
        } else {
          values[2 * w - 2] += values[2 * k];
          values[2 * w - 1] += values[2 * k + 1];
        }
      } else {
        if (w !== k) {
          colIdx[w] = colIdx[k];
          if (comp === 1) {
            values[w] = values[k];
          } else {
            values[2 * w] = values[2 * k];
            values[2 * w + 1] = values[2 * k + 1];
          }
        }
        w++;
      }
    }
    rowPtr[i + 1] = w;
    s = e;
  }
  return w;
}

/** Reusable buffers for the long-row radix sort, grown on demand. */
class Scratch {
  keyA = new Int32Array(0);
  keyB = new Int32Array(0);
  posA = new Int32Array(0);
  posB = new Int32Array(0);
  count = new Int32Array(256);
  vals: ValueArray;
  constructor(private readonly like: ValueArray, private readonly comp: number) {
    this.vals = like.subarray(0, 0);
  }
  ensure(n: number): void {
    if (this.keyA.length >= n) return;
    this.keyA = new Int32Array(n);
    this.keyB = new Int32Array(n);
    this.posA = new Int32Array(n);
    this.posB = new Int32Array(n);
    this.vals = new (this.like.constructor as Float64ArrayConstructor)(n * this.comp) as ValueArray;
  }
}

function sortSegment(col: Int32Array, val: ValueArray, comp: number, s: number, e: number, scratch: Scratch): void {
  let sorted = true;
  let maxCol = 0;
  for (let k = s; k < e; k++) {
    if (k > s && col[k] < col[k - 1]) sorted = false;
    if (col[k] > maxCol) maxCol = col[k];
  }
  if (sorted) return;
  if (e - s <= INSERTION_MAX) insertionSort(col, val, comp, s, e);
  else radixSort(col, val, comp, s, e, maxCol, scratch);
}

/**
 * Stable LSD radix sort of a long segment by column, 8 bits per pass and only as many passes as the
 * largest column needs (columns are validated nonnegative): O(len) per pass, exact for any width.
 */
function radixSort(col: Int32Array, val: ValueArray, comp: number, s: number, e: number, maxCol: number, scratch: Scratch): void {
  const len = e - s;
  scratch.ensure(len);
  let { keyA, keyB, posA, posB } = scratch;
  const { count, vals } = scratch;
  for (let j = 0; j < len; j++) {
    keyA[j] = col[s + j];
    posA[j] = j;
  }
  for (let shift = 0; shift < 32 && maxCol >>> shift > 0; shift += 8) {
    count.fill(0);
    for (let j = 0; j < len; j++) count[(keyA[j] >>> shift) & 255]++;
    for (let b = 0, sum = 0; b < 256; b++) {
      const c = count[b];
      count[b] = sum;
      sum += c;
    }
    for (let j = 0; j < len; j++) {
      const p = count[(keyA[j] >>> shift) & 255]++;
      keyB[p] = keyA[j];
      posB[p] = posA[j];
    }
    [keyA, keyB, posA, posB] = [keyB, keyA, posB, posA];
  }
  for (let j = 0; j < len; j++) {
    const src = s + posA[j];
    if (comp === 1) {
      vals[j] = val[src];
    } else {
      vals[2 * j] = val[2 * src];
      vals[2 * j + 1] = val[2 * src + 1];
    }
  }
  col.set(keyA.subarray(0, len), s);
  val.set(vals.subarray(0, len * comp), s * comp);
}

/** Stable insertion sort of a short segment by column, moving the values along. */
function insertionSort(col: Int32Array, val: ValueArray, comp: number, s: number, e: number): void {
  for (let k = s + 1; k < e; k++) {
    const c = col[k];
    const v0 = val[k * comp];
    const v1 = comp === 2 ? val[2 * k + 1] : 0;
    let j = k - 1;
    while (j >= s && col[j] > c) {
      col[j + 1] = col[j];
      if (comp === 1) {
        val[j + 1] = val[j];
      } else {
        val[2 * j + 2] = val[2 * j];
        val[2 * j + 3] = val[2 * j + 1];
      }
      j--;
    }
    col[j + 1] = c;
    val[(j + 1) * comp] = v0;
    if (comp === 2) val[2 * j + 3] = v1;
  }
}

/** First index k in the sorted array `a` with a[k] >= v. */
export function lowerBound(a: Int32Array, v: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
