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
  /** the largest block's size, and how many blocks are 1×1 (for the ordering's reason) */
  largest: number;
  singletons: number;
  /** B + Bᵀ within the diagonal blocks, without the diagonal: the graph the blocks are ordered on (given where no `order` is) */
  graph?: Graph;
  /**
   * the ordering the symbolic phase keeps, made by the same kernel call where asked (BtfKernel's
   * orderFrom): approximate minimum degree of the graph, the columns in block order (each block's in the minimum degree's order),
   * postordered along the graph's elimination tree in that order (`parent`, in the order's numbering),
   * and the column counts of its Cholesky factor (diagonal included) — analysis.ts analyze's result
   * for the graph's minimum degree order taken block by block, bit for bit (test/direct-btf)
   */
  order?: { perm: Int32Array; pinv: Int32Array; parent: Int32Array; counts: Int32Array };
}

/**
 * The block triangular form of A (by columns and by `rows`), with its `order` where it has at least
 * `orderFrom` blocks, or, for a structurally singular A, the number of rows a maximum transversal
 * matches (fewer than n).
 */
export type BtfKernel = (A: { n: number; colPtr: Int32Array; rowIdx: Int32Array }, rows: Rows, orderFrom: number) => BlockTriangular | number;
