/**
 * Sparsity-pattern helpers of the direct solvers: a square matrix as compressed columns of f64 (or
 * interleaved c128) values, the symmetric pattern |A| + |Aᵀ| that the orderings work on, and
 * symmetric permutations. Values are f64 throughout: f32 and c64 data are factorized in double.
 */
import { isPrivateCanonical, type CSRMatrix } from '../../formats/csr.js';
import { isComplex } from '../../dtype.js';

/** A square matrix by columns: column j is rowIdx/values[colPtr[j] .. colPtr[j+1]), rows ascending. */
export interface Csc {
  n: number;
  colPtr: Int32Array;
  rowIdx: Int32Array;
  /** f64 values, re/im interleaved when `complex` */
  values: Float64Array;
  complex: boolean;
}

/** An undirected graph without self-loops: the neighbours of v are adj[ptr[v] .. ptr[v+1]). */
export interface Graph {
  n: number;
  ptr: Int32Array;
  adj: Int32Array;
}

/** The columns of a canonical square CSR, values widened to f64 (the CSR of Aᵀ is the CSC of A). */
export function cscOf(A: CSRMatrix): Csc {
  const n = A.rows;
  const comp = isComplex(A.dtype) ? 2 : 1;
  const nnz = A.nnz;
  // colPtr and rowIdx views of one array (fewer arrays to allocate and collect), colPtr[j + 1] column
  // j's cursor while it fills
  const ints = new Int32Array(n + 1 + nnz);
  const colPtr = ints.subarray(0, n + 1);
  const rowIdx = ints.subarray(n + 1);
  for (let k = 0; k < nnz; k++) colPtr[A.colIdx[k] + 1]++;
  for (let j = 0; j < n; j++) colPtr[j + 1] += colPtr[j];
  for (let j = n; j > 0; j--) colPtr[j] = colPtr[j - 1];
  const next = colPtr.subarray(1);
  const values = new Float64Array(nnz * comp);
  const src = A.values;
  const { rowPtr, colIdx } = A;
  // one loop per value width, no branch per entry (qc324: 253 -> 234 µs)
  if (comp === 1) {
    for (let i = 0; i < n; i++) {
      for (let k = rowPtr[i], e = rowPtr[i + 1]; k < e; k++) {
        const p = next[colIdx[k]]++;
        rowIdx[p] = i;
        values[p] = src[k];
      }
    }
  } else {
    for (let i = 0; i < n; i++) {
      for (let k = rowPtr[i], e = rowPtr[i + 1]; k < e; k++) {
        const p = next[colIdx[k]]++;
        rowIdx[p] = i;
        values[2 * p] = src[2 * k];
        values[2 * p + 1] = src[2 * k + 1];
      }
    }
  }
  return { n, colPtr, rowIdx, values, complex: comp === 2 };
}

/**
 * The rows of a square CSR as the columns of Aᵀ, values widened to f64: for gathers along A's rows
 * (read only). A copy, except of a library-private canonical CSR with f64 values (an upload's), whose
 * arrays never change: those are taken as they are (three copies of nnz were ≈ 2% of olm1000's rt.solve).
 */
export function rowsWithValues(A: CSRMatrix): Csc {
  if (A.values instanceof Float64Array && isPrivateCanonical(A)) return { n: A.rows, colPtr: A.rowPtr, rowIdx: A.colIdx, values: A.values, complex: isComplex(A.dtype) };
  const values = A.values instanceof Float64Array ? A.values.slice() : Float64Array.from(A.values);
  return { n: A.rows, colPtr: A.rowPtr.slice(), rowIdx: A.colIdx.slice(), values, complex: isComplex(A.dtype) };
}

/** A pattern by rows: row i's columns are colIdx[rowPtr[i] .. rowPtr[i+1]), ascending (the helpers below take it computed once). */
export interface Rows {
  rowPtr: Int32Array;
  colIdx: Int32Array;
}

/** The pattern of A by rows (the columns of Aᵀ): row i's columns are colIdx[rowPtr[i] .. rowPtr[i+1]), ascending. */
export function rowsOf(A: Pick<Csc, 'n' | 'colPtr' | 'rowIdx'>): Rows {
  const { n, colPtr, rowIdx } = A;
  const rowPtr = new Int32Array(n + 1);
  for (let p = 0; p < colPtr[n]; p++) rowPtr[rowIdx[p] + 1]++;
  for (let i = 0; i < n; i++) rowPtr[i + 1] += rowPtr[i];
  const colIdx = new Int32Array(colPtr[n]);
  // rowPtr[i] serves as row i's cursor, then is shifted back
  for (let j = 0; j < n; j++) for (let p = colPtr[j]; p < colPtr[j + 1]; p++) colIdx[rowPtr[rowIdx[p]]++] = j;
  for (let i = n; i > 0; i--) rowPtr[i] = rowPtr[i - 1];
  rowPtr[0] = 0;
  return { rowPtr, colIdx };
}

/**
 * The graph of A + Aᵀ without the diagonal (the pattern AMD and nested dissection order), from a
 * matrix by columns with ascending rows; neighbour lists come out sorted and without duplicates (v's
 * list merges column v's rows with row v's columns, both ascending).
 */
export function symmetricGraph(n: number, colPtr: Int32Array, rowIdx: Int32Array, rows: Rows = rowsOf({ n, colPtr, rowIdx })): Graph {
  const { rowPtr, colIdx } = rows;
  const ptr = new Int32Array(n + 1);
  let q = 0;
  if (rowPtr === colPtr && colIdx === rowIdx) {
    // a symmetric pattern given as its own rows: the merge of a list with itself is the list, without
    // the diagonal (one test an entry instead of the merge's four: 494_bus's first calls spend ≈ 0.1 ms here)
    const adj = new Int32Array(colPtr[n]);
    for (let v = 0; v < n; v++) {
      for (let p = colPtr[v], e = colPtr[v + 1]; p < e; p++) {
        const u = rowIdx[p];
        if (u !== v) adj[q++] = u;
      }
      ptr[v + 1] = q;
    }
    return { n, ptr, adj: adj.subarray(0, q) };
  }
  const adj = new Int32Array(2 * colPtr[n]);
  for (let v = 0; v < n; v++) {
    let p = colPtr[v];
    let t = rowPtr[v];
    const pe = colPtr[v + 1];
    const te = rowPtr[v + 1];
    while (p < pe || t < te) {
      const a = p < pe ? rowIdx[p] : n;
      const b = t < te ? colIdx[t] : n;
      const u = a < b ? a : b;
      if (a === u) p++;
      if (b === u) t++;
      if (u !== v) adj[q++] = u;
    }
    ptr[v + 1] = q;
  }
  // a view: the graph lives only through the symbolic phase
  return { n, ptr, adj: adj.subarray(0, q) };
}

/**
 * A's band: its lower and upper bandwidths (max i − j, max j − i over the entries) and the fraction
 * of the band (n·(lower + upper + 1) entries) that A stores: near 1 for a banded matrix, which the
 * natural order factorizes within its band.
 */
export function bandOf(A: Pick<Csc, 'n' | 'colPtr' | 'rowIdx'>): { lower: number; upper: number; density: number } {
  const { n, colPtr, rowIdx } = A;
  let lower = 0;
  let upper = 0;
  for (let j = 0; j < n; j++) {
    const s = colPtr[j];
    const e = colPtr[j + 1];
    // rows ascend: the first and last entries of the column are its extremes
    if (e > s) {
      if (j - rowIdx[s] > upper) upper = j - rowIdx[s];
      if (rowIdx[e - 1] - j > lower) lower = rowIdx[e - 1] - j;
    }
  }
  return { lower, upper, density: n === 0 ? 1 : colPtr[n] / (n * (lower + upper + 1)) };
}

/**
 * The columns of A whose diagonal entry is stored and nonzero: a zero stored as an entry (a finite-element
 * assembly's constraint block) is no more a pivot than a missing one.
 */
export function nonzeroDiagonal(A: Csc): number {
  const { n, colPtr, rowIdx, values, complex } = A;
  let count = 0;
  for (let j = 0; j < n; j++) {
    for (let p = colPtr[j]; p < colPtr[j + 1]; p++) {
      if (rowIdx[p] !== j) continue;
      if (complex ? values[2 * p] !== 0 || values[2 * p + 1] !== 0 : values[p] !== 0) count++;
      break;
    }
  }
  return count;
}

/** How symmetric A's pattern is: the fraction of off-diagonal entries whose mirror is stored, and the diagonal entries stored. */
export function patternSymmetry(A: Csc, rows: Rows = rowsOf(A)): { symmetry: number; diagonal: number } {
  const { n, colPtr, rowIdx } = A;
  const { rowPtr, colIdx } = rows;
  const mark = new Int32Array(n).fill(-1);
  let off = 0;
  let matched = 0;
  let diagonal = 0;
  for (let j = 0; j < n; j++) {
    for (let p = colPtr[j]; p < colPtr[j + 1]; p++) mark[rowIdx[p]] = j;
    // row j's entries A(j, i) against column j's A(i, j)
    for (let p = rowPtr[j]; p < rowPtr[j + 1]; p++) {
      const i = colIdx[p];
      if (i === j) diagonal++;
      else {
        off++;
        if (mark[i] === j) matched++;
      }
    }
  }
  return { symmetry: off === 0 ? 1 : matched / off, diagonal };
}

/**
 * The rows a column ordering for LU leaves out of AᵀA: those with more than max(16, 10√n) entries
 * (as CSparse does: one dense row would make AᵀA dense). Null when there are none.
 */
export function denseRows(rows: Rows, n: number): Uint8Array | null {
  const dense = Math.max(16, 10 * Math.sqrt(n));
  let skip: Uint8Array | null = null;
  for (let i = 0; i < n; i++) if (rows.rowPtr[i + 1] - rows.rowPtr[i] > dense) (skip ??= new Uint8Array(n))[i] = 1;
  return skip;
}

/** pinv[perm[k]] = k. */
export function inversePermutation(perm: Int32Array): Int32Array {
  const inv = new Int32Array(perm.length);
  for (let k = 0; k < perm.length; k++) inv[perm[k]] = k;
  return inv;
}

/**
 * Whether A equals Aᵀ (pattern and values; for complex values Aᵀ, not Aᴴ). Rows within a column
 * must ascend, as cscOf gives them. O(nnz).
 */
export function isSymmetric(A: Csc): boolean {
  const { n, colPtr, rowIdx, values } = A;
  const c = A.complex ? 2 : 1;
  // column i's entries above the diagonal (rows j < i, ascending) are met in the order of their
  // mirrors (i, j) when the columns j are walked in order: cursor[i] is the next one to match
  const cursor = colPtr.slice(0, n);
  for (let j = 0; j < n; j++) {
    for (let p = colPtr[j]; p < colPtr[j + 1]; p++) {
      const i = rowIdx[p];
      if (i <= j) continue;
      const q = cursor[i]++;
      if (q >= colPtr[i + 1] || rowIdx[q] !== j) return false;
      for (let t = 0; t < c; t++) if (values[c * q + t] !== values[c * p + t]) return false;
    }
  }
  // and no entry above the diagonal was left unmatched
  for (let i = 0; i < n; i++) if (cursor[i] < colPtr[i + 1] && rowIdx[cursor[i]] < i) return false;
  return true;
}
