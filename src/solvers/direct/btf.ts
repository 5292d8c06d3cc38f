/**
 * Block triangular form for LU (Duff & Reid's two steps, as KLU and CSparse's cs_dmperm for a
 * structurally nonsingular matrix): a maximum transversal matches every column j to a row, and
 * renumbering that row j gives B, whose diagonal is free of zeros; the strongly connected components
 * of B's graph are then its irreducible diagonal blocks, in an order that makes B block upper
 * triangular. Only the diagonal blocks fill: an entry above them is never updated by a later block,
 * and a 1×1 block (west0479 has 159 of its 166) is its own pivot. Each block is ordered by minimum
 * degree of its part of B + Bᵀ (KLU's default), and the LU kernel keeps B's diagonal as pivot within
 * the threshold. The loops run in WebAssembly (assembly/btf.ts).
 */
import type { Graph, Rows } from './pattern.js';

/** The block triangular form of a structurally nonsingular A. */
export interface BlockTriangular {
  /** colOf[r] = the column row r is matched to: B (A with row r renumbered colOf[r]) has a zero-free diagonal */
  colOf: Int32Array;
  /** blk[j] = the diagonal block of column j (and of B's row j); every entry B(i, j) has blk[i] ≤ blk[j] */
  blk: Int32Array;
  /** the number of diagonal blocks */
  blocks: number;
  /** the entries of A above the diagonal blocks (kept as they stand: LuFactor.blocks) */
  above: number;
  /** B + Bᵀ within the diagonal blocks, without the diagonal: the graph the blocks are ordered on */
  graph: Graph;
}

/**
 * The block triangular form of A (by columns and by `rows`), or, for a structurally singular A, the
 * number of rows a maximum transversal matches (fewer than n).
 */
export type BtfKernel = (A: { n: number; colPtr: Int32Array; rowIdx: Int32Array }, rows: Rows) => BlockTriangular | number;

/**
 * The columns in block order, each block's in the order `within` (a permutation of all columns, e.g.
 * an ordering of the graph, whose blocks are disconnected from one another) gives them.
 */
export function blockOrder(bt: Pick<BlockTriangular, 'blk' | 'blocks'>, within: Int32Array): Int32Array {
  const { blk, blocks } = bt;
  const start = new Int32Array(blocks + 1);
  for (let j = 0; j < blk.length; j++) start[blk[j] + 1]++;
  for (let b = 0; b < blocks; b++) start[b + 1] += start[b];
  const perm = new Int32Array(blk.length);
  for (let k = 0; k < within.length; k++) {
    const j = within[k];
    perm[start[blk[j]]++] = j;
  }
  return perm;
}

/** The sizes of the diagonal blocks: how many, the largest, and how many are 1×1 (for the ordering's reason). */
export function blockSizes(bt: Pick<BlockTriangular, 'blk' | 'blocks'>): { largest: number; singletons: number } {
  const size = new Int32Array(bt.blocks);
  for (let j = 0; j < bt.blk.length; j++) size[bt.blk[j]]++;
  let largest = 0;
  let singletons = 0;
  for (let b = 0; b < bt.blocks; b++) {
    if (size[b] > largest) largest = size[b];
    if (size[b] === 1) singletons++;
  }
  return { largest, singletons };
}
