/**
 * Symbolic analysis of a symmetric pattern (given as its upper triangle by columns, rows ≤ column):
 * the elimination tree, its postorder, the column counts of the Cholesky factor L (row subtrees:
 * O(|L|)), the fundamental supernodes, and from them the fill, flops and bytes a factorization will
 * take — known before any numeric work, so the runtime can check its memory budget and rt.solve can
 * weigh a direct solve against an iterative one.
 */
import type { CSRMatrix } from '../../formats/csr.js';
import type { Csc, Graph, Rows } from './pattern.js';
import type { MinimumDegreeKernel } from './amd.js';
import type { BtfKernel } from './btf.js';

/**
 * The symbolic phase's loops, run by the CPU path's WebAssembly (assembly/amd.ts and
 * assembly/symbolic.ts, wired in src/cpu/symbolic.ts) and given by the runtime (the solver layer
 * imports no path): as JavaScript, a process's first analyses ran before the engine had optimized them.
 */
export interface SymbolicKernels {
  /**
   * The columns of a real (f64) square canonical CSR, as cscOf gives them, and its pattern symmetry, as
   * patternSymmetry measures it (LU's 'auto' ordering reads it): one pass of the kernels' memory.
   */
  columns(A: CSRMatrix): { C: Csc; symmetry: { symmetry: number; diagonal: number } };
  /** the minimum degree orderings' elimination */
  minimumDegree: MinimumDegreeKernel;
  /** LU's block triangular form (btf.ts) */
  btf: BtfKernel;
  /**
   * The elimination tree of the graph in the order perm (pinv its inverse): parent[k] of each
   * eliminated position k (-1 at a root), read from the graph directly (column k's rows above the
   * diagonal are the neighbours of perm[k] eliminated before it), with path compression.
   */
  eliminationTree(g: Graph, perm: Int32Array, pinv: Int32Array): Int32Array;
  /**
   * eliminationTree, postorder and columnCounts of the graph in one call (one copy of the graph
   * for the three): the same arrays.
   */
  graphTree(g: Graph, perm: Int32Array, pinv: Int32Array): { parent: Int32Array; post: Int32Array; counts: Int32Array };
  /** A postorder of the forest `parent`: post[k] is the k-th node, children before parents, in index order. */
  postorder(parent: Int32Array): Int32Array;
  /**
   * Column counts in the order pinv, where position j's pattern below the diagonal is given by lists
   * (list L: idx[ptr[L] .. ptr[L+1]), nodes mapped by pinv; j's lists head[j], next[head[j]], … until
   * −1), over `post`, a postorder of `parent` (see columnCounts).
   */
  countsOfLists(ptr: Int32Array, idx: Int32Array, head: Int32Array, next: Int32Array, pinv: Int32Array, parent: Int32Array, post: Int32Array): Int32Array;
}

/**
 * The column elimination tree: the elimination tree of AᵀA (rows `skip`ped left out) with A's columns
 * in the order perm, from A's columns without forming AᵀA (cs_etree's ata mode): the columns that
 * share a row are linked through the row's latest column so far. Path compression through `ancestor`.
 */
export function columnEliminationTree(A: { n: number; colPtr: Int32Array; rowIdx: Int32Array }, skip: Uint8Array | null, perm: Int32Array): Int32Array {
  const { n, colPtr, rowIdx } = A;
  const parent = new Int32Array(n);
  const ancestor = new Int32Array(n);
  const prev = new Int32Array(n).fill(-1); // each row's latest position so far
  for (let k = 0; k < n; k++) {
    parent[k] = -1;
    ancestor[k] = -1;
    const col = perm[k];
    for (let p = colPtr[col], e = colPtr[col + 1]; p < e; p++) {
      const r = rowIdx[p];
      if (skip && skip[r]) continue;
      let i = prev[r];
      while (i !== -1 && i < k) {
        const inext = ancestor[i];
        ancestor[i] = k;
        if (inext === -1) parent[i] = k;
        i = inext;
      }
      prev[r] = k;
    }
  }
  return parent;
}

/**
 * Column counts of L (the diagonal included) of the graph in the order perm, in O(|edges|·α) (Gilbert,
 * Ng & Peyton; the form of Davis, "Direct Methods for Sparse Linear Systems", §4.5): row i's subtree
 * adds one to the count of each of its leaves and takes one off where two of its leaf paths meet (at
 * a least common ancestor found by path-compressed union-find over a postorder), and the counts are
 * the subtree sums of these differences. `post` is a postorder of `parent`.
 */
export function columnCounts(g: Graph, perm: Int32Array, pinv: Int32Array, parent: Int32Array, post: Int32Array, k: SymbolicKernels): Int32Array {
  // position j's one list: the neighbours of node perm[j]
  return k.countsOfLists(g.ptr, g.adj, perm, new Int32Array(g.n).fill(-1), pinv, parent, post);
}

/**
 * Column counts of the Cholesky factor of AᵀA (rows `skip`ped left out) with A's columns in the order
 * perm, from A's rows without forming AᵀA (cs_counts' ata mode): row r of A is a clique of AᵀA,
 * whose entries at and after its first column in the order stand for that column's pattern, so each
 * kept row is attached to its first column and read once. `parent`, `post`: columnEliminationTree's
 * tree and a postorder of it.
 */
export function columnCountsAtA(rows: Rows, skip: Uint8Array | null, pinv: Int32Array, parent: Int32Array, post: Int32Array, k: SymbolicKernels): Int32Array {
  const { rowPtr, colIdx } = rows;
  const n = parent.length;
  const head = new Int32Array(n).fill(-1);
  const next = new Int32Array(n);
  for (let r = 0; r < n; r++) {
    if (skip && skip[r]) continue;
    // the row's first column in the order (its others are that column's ancestors: later in any postorder)
    let first = n;
    for (let p = rowPtr[r]; p < rowPtr[r + 1]; p++) first = Math.min(first, pinv[colIdx[p]]);
    if (first === n) continue;
    next[r] = head[first];
    head[first] = r;
  }
  return k.countsOfLists(rowPtr, colIdx, head, next, pinv, parent, post);
}

/**
 * Fundamental supernodes of a postordered tree: column j + 1 continues j's supernode when it is j's
 * parent, j is its only child and its column is j's minus one row. Returns the first column of each
 * supernode, with n appended.
 */
export function supernodes(parent: Int32Array, counts: Int32Array): Int32Array {
  const n = parent.length;
  const children = new Int32Array(n);
  for (let j = 0; j < n; j++) if (parent[j] !== -1) children[parent[j]]++;
  const starts = new Int32Array(n + 1);
  let count = 0;
  for (let j = 0; j < n; j++) {
    const continues = j > 0 && parent[j - 1] === j && children[j] === 1 && counts[j] === counts[j - 1] - 1;
    if (!continues) starts[count++] = j;
  }
  starts[count++] = n;
  return starts.slice(0, count);
}

/** What a factorization will cost, from the symbolic phase. */
export interface FactorCost {
  /** entries of the factor: L for Cholesky/LDLᵀ (the diagonal included), L + U for LU (both diagonals; an estimate: pivoting may change it) */
  fillNnz: number;
  /** floating-point operations of the numeric factorization (one multiply-add counts 2; complex ×4) */
  flops: number;
  /** bytes the factor and its workspace take (values, indices, vectors) */
  bytes: number;
}

/**
 * The cost of factorizing a pattern with the given column counts. Cholesky/LDLᵀ: Σ cⱼ² flops (a
 * column of c entries updates c(c−1)/2 pairs, two operations each, plus its scaling); LU without
 * off-diagonal pivoting has L and Uᵀ of the same pattern, so twice both (L's unit diagonal stored).
 */
export function costOf(counts: Int32Array, lu: boolean, complex: boolean): FactorCost {
  const n = counts.length;
  let nnzL = 0;
  let flops = 0;
  for (let j = 0; j < n; j++) {
    const c = counts[j];
    nnzL += c;
    flops += c * c;
  }
  const fillNnz = lu ? 2 * nnzL : nnzL;
  const valueBytes = complex ? 16 : 8;
  if (lu) flops *= 2;
  if (complex) flops *= 4;
  // factor values and row indices, plus the pointers, the permutations and a few work vectors
  const bytes = fillNnz * (valueBytes + 4) + n * (8 * 4 + 2 * valueBytes);
  return { fillNnz, flops, bytes };
}
