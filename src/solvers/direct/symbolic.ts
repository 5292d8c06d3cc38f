/**
 * Symbolic analysis of a symmetric pattern (given as its upper triangle by columns, rows ≤ column):
 * the elimination tree, its postorder, the column counts of the Cholesky factor L (row subtrees:
 * O(|L|)), the fundamental supernodes, and from them the fill, flops and bytes a factorization will
 * take — known before any numeric work, so the runtime can check its memory budget and rt.solve can
 * weigh a direct solve against an iterative one.
 */
import type { Graph, Rows } from './pattern.js';

/**
 * The elimination tree of the graph in the order perm (pinv its inverse): parent[k] of each
 * eliminated position k (-1 at a root), read from the graph directly (column k's rows above the
 * diagonal are the neighbours of perm[k] eliminated before it). Path compression through `ancestor`.
 */
export function eliminationTree(g: Graph, perm: Int32Array, pinv: Int32Array): Int32Array {
  const n = g.n;
  const { ptr, adj } = g;
  const parent = new Int32Array(n);
  const ancestor = new Int32Array(n);
  for (let k = 0; k < n; k++) {
    parent[k] = -1;
    ancestor[k] = -1;
    const v = perm[k];
    for (let p = ptr[v], e = ptr[v + 1]; p < e; p++) {
      let i = pinv[adj[p]];
      while (i !== -1 && i < k) {
        const inext = ancestor[i];
        ancestor[i] = k;
        if (inext === -1) parent[i] = k;
        i = inext;
      }
    }
  }
  return parent;
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

/** A postorder of the forest `parent`: post[k] is the k-th node, children before parents, in index order. */
export function postorder(parent: Int32Array): Int32Array {
  const n = parent.length;
  const head = new Int32Array(n).fill(-1);
  const next = new Int32Array(n);
  const stack = new Int32Array(n);
  const post = new Int32Array(n);
  for (let j = n - 1; j >= 0; j--) {
    if (parent[j] === -1) continue;
    next[j] = head[parent[j]];
    head[parent[j]] = j;
  }
  let k = 0;
  for (let j = 0; j < n; j++) if (parent[j] === -1) k = treeDfs(j, k, head, next, post, stack);
  return post;
}

/**
 * Column counts of L (the diagonal included) of the graph in the order perm, in O(|edges|·α) (Gilbert,
 * Ng & Peyton; the form of Davis, "Direct Methods for Sparse Linear Systems", §4.5): row i's subtree
 * adds one to the count of each of its leaves and takes one off where two of its leaf paths meet (at
 * a least common ancestor found by path-compressed union-find over a postorder), and the counts are
 * the subtree sums of these differences. `post` is a postorder of `parent`.
 */
export function columnCounts(g: Graph, perm: Int32Array, pinv: Int32Array, parent: Int32Array, post: Int32Array): Int32Array {
  // position j's one list: the neighbours of node perm[j]
  return countsOfLists(g.ptr, g.adj, perm, new Int32Array(g.n).fill(-1), pinv, parent, post);
}

/**
 * Column counts of the Cholesky factor of AᵀA (rows `skip`ped left out) with A's columns in the order
 * perm, from A's rows without forming AᵀA (cs_counts' ata mode): row r of A is a clique of AᵀA,
 * whose entries at and after its first column in the order stand for that column's pattern, so each
 * kept row is attached to its first column and read once. `parent`, `post`: columnEliminationTree's
 * tree and a postorder of it.
 */
export function columnCountsAtA(rows: Rows, skip: Uint8Array | null, pinv: Int32Array, parent: Int32Array, post: Int32Array): Int32Array {
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
  return countsOfLists(rowPtr, colIdx, head, next, pinv, parent, post);
}

/**
 * Column counts in the order pinv, where position j's pattern below the diagonal is given by lists
 * (list L: idx[ptr[L] .. ptr[L+1]), nodes mapped by pinv; j's lists head[j], next[head[j]], … until −1).
 */
function countsOfLists(ptr: Int32Array, idx: Int32Array, head: Int32Array, next: Int32Array, pinv: Int32Array, parent: Int32Array, post: Int32Array): Int32Array {
  const n = parent.length;
  const delta = new Int32Array(n);
  const first = new Int32Array(n).fill(-1); // postorder number of each node's first descendant
  const maxfirst = new Int32Array(n).fill(-1);
  const prevleaf = new Int32Array(n).fill(-1);
  const ancestor = new Int32Array(n);
  for (let k = 0; k < n; k++) {
    let j = post[k];
    delta[j] = first[j] === -1 ? 1 : 0; // a leaf of the tree
    for (; j !== -1 && first[j] === -1; j = parent[j]) first[j] = k;
  }
  for (let i = 0; i < n; i++) ancestor[i] = i;
  for (let k = 0; k < n; k++) {
    const j = post[k];
    if (parent[j] !== -1) delta[parent[j]]--;
    const fj = first[j];
    for (let L = head[j]; L !== -1; L = next[L]) {
      for (let p = ptr[L], e = ptr[L + 1]; p < e; p++) {
        const i = pinv[idx[p]];
        // j is a leaf of row i's subtree when i > j and no earlier leaf's subtree holds j
        if (i <= j || fj <= maxfirst[i]) continue;
        maxfirst[i] = fj;
        const jprev = prevleaf[i];
        prevleaf[i] = j;
        delta[j]++;
        if (jprev === -1) continue; // i's first leaf
        // the least common ancestor of this leaf and the previous one, with path compression
        let q = jprev;
        while (q !== ancestor[q]) q = ancestor[q];
        for (let s = jprev; s !== q; ) {
          const up = ancestor[s];
          ancestor[s] = q;
          s = up;
        }
        delta[q]--;
      }
    }
    if (parent[j] !== -1) ancestor[j] = parent[j];
  }
  // sum the differences over each subtree (children come before parents in the postorder)
  for (let k = 0; k < n; k++) {
    const j = post[k];
    if (parent[j] !== -1) delta[parent[j]] += delta[j];
  }
  return delta;
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

/** Postorders the subtree at root j into post[k..] (children lists head/next; stack of n + 1). */
function treeDfs(j: number, k: number, head: Int32Array, next: Int32Array, post: Int32Array, stack: Int32Array): number {
  let top = 0;
  stack[0] = j;
  while (top >= 0) {
    const p = stack[top];
    const i = head[p];
    if (i === -1) {
      top--;
      post[k++] = p;
    } else {
      head[p] = next[i];
      stack[++top] = i;
    }
  }
  return k;
}
