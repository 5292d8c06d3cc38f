import { CSRMatrix, longestRow } from '../../formats/csr.js';

/** Writes the strong neighbours of node i into out (ascending); returns how many. */
export type StrongRow = (i: number, out: Int32Array) => number;

/**
 * Symmetric strength of connection (PyAMG's 'symmetric'), a row at a time: j is a strong neighbour of
 * i when |aᵢⱼ| ≥ θ·√|aᵢᵢ·aⱼⱼ|, i ≠ j and aᵢⱼ ≠ 0 (no diagonal). θ = 0 keeps every stored
 * off-diagonal. A real, canonical, square A; `diagonal` (aᵢᵢ, 0 where not stored), when the caller has
 * it, saves the search for it.
 * @internal exported for the tests
 */
export function strongRow(A: CSRMatrix, theta: number, diagonal: Float64Array | undefined): StrongRow {
  const n = A.rows;
  const { rowPtr, colIdx, values } = A;
  // √|aᵢᵢ| once per row, not a square root per entry; columns ascend, so the search stops at the
  // first column ≥ i
  const sd = new Float64Array(n);
  if (diagonal) for (let i = 0; i < n; i++) sd[i] = Math.sqrt(Math.abs(diagonal[i]));
  else {
    for (let i = 0; i < n; i++) {
      for (let k = rowPtr[i], end = rowPtr[i + 1]; k < end; k++) {
        const c = colIdx[k];
        if (c < i) continue;
        if (c === i) sd[i] = Math.sqrt(Math.abs(values[k]));
        break;
      }
    }
  }
  return (i, out) => {
    const si = theta * sd[i];
    let m = 0;
    for (let k = rowPtr[i], end = rowPtr[i + 1]; k < end; k++) {
      const j = colIdx[k];
      const a = Math.abs(values[k]);
      if (j !== i && a !== 0 && a >= si * sd[j]) out[m++] = j;
    }
    return m;
  };
}

/** Rows from which aggregation splits a level into blocks (amgBlocks). */
const BLOCK_ROWS = 131072;
/** The most blocks a level is split into. */
const MAX_BLOCKS = 16;

/**
 * The blocks of consecutive rows that aggregate independently (bounds, blocks + 1 of them): one below
 * 2·BLOCK_ROWS rows, else ⌊n / BLOCK_ROWS⌋ equal ones, at most MAX_BLOCKS. A function of n alone, so
 * the aggregates are the same on any number of threads; blocks of ≥ 131 072 rows keep the aggregates
 * a block boundary cuts few (poisson3D(128): 16 slabs of 8 planes).
 */
export function amgBlocks(n: number): Int32Array {
  const b = Math.max(1, Math.min(MAX_BLOCKS, Math.floor(n / BLOCK_ROWS)));
  return Int32Array.from({ length: b + 1 }, (_, k) => Math.round((k * n) / b));
}

/**
 * PyAMG's standard aggregation (amg_core standard_aggregation) on A's symmetric strength of connection
 * (strongRow), its sequential passes in blocks of rows (`blocks`' bounds, default amgBlocks)
 * that each see only the connections among their own rows. Pass 1, block by block: a node whose
 * strong neighbours in the block are all free, and none in an earlier block, becomes a root, and it
 * and they an aggregate. Pass 2:
 * each free node joins the pass-1 aggregate of its first strong neighbour (in any block) that has
 * one. Pass 3, block by block: each node still free becomes a root with its free neighbours in the
 * block. Aggregates are numbered in that order. A node without strong neighbours joins none (−1): its
 * row of the prolongator is zero and the smoother alone handles it. With one block this is PyAMG's,
 * node for node. Returns each node's aggregate and the number of aggregates. A node's strong
 * neighbours are found when a pass visits it while free, so the nodes pass 1 has already aggregated
 * (most of them) are never tested, and no strength graph (A's entries) is written. The setup runs
 * this on the pool (assembly/aggregate.ts, the same aggregates: each block's passes 1 and 3 on a
 * thread, pass 2 by rows); this is its reference and the path of blocked nodes (amalgamate).
 */
export function strengthAggregation(A: CSRMatrix, theta: number, diagonal?: Float64Array, blocks = amgBlocks(A.rows)): { agg: Int32Array; count: number } {
  const n = A.rows;
  const all = strongRow(A, theta, diagonal);
  const widest = longestRow(A);
  const FREE = -1;
  const ISOLATED = -2;
  const agg = new Int32Array(n).fill(FREE);
  const nb = new Int32Array(widest);
  // the strong neighbours of i within [lo, hi)
  const row = (i: number, lo: number, hi: number): number => {
    let m = 0;
    for (let k = 0, e = all(i, nb); k < e; k++) if (nb[k] >= lo && nb[k] < hi) nb[m++] = nb[k];
    return m;
  };
  const blocksOf = (pass: (lo: number, hi: number) => void) => {
    for (let b = 0; b + 1 < blocks.length; b++) pass(blocks[b], blocks[b + 1]);
  };
  let count = 0;
  blocksOf((lo, hi) => {
    for (let i = lo; i < hi; i++) {
      if (agg[i] !== FREE) continue;
      // a node tied to an earlier block is left to pass 2, as a sequential pass 1 would mostly have
      // taken it into one of that block's aggregates
      const e = all(i, nb);
      if (nb.subarray(0, e).some((j) => j < lo)) continue;
      const m = row(i, lo, hi);
      if (m === 0) {
        if (e === 0) agg[i] = ISOLATED;
        continue;
      }
      let taken = false;
      for (let k = 0; k < m && !taken; k++) taken = agg[nb[k]] !== FREE;
      if (taken) continue;
      agg[i] = count;
      for (let k = 0; k < m; k++) agg[nb[k]] = count;
      count++;
    }
  });
  const pass1 = agg.slice();
  for (let i = 0; i < n; i++) {
    if (agg[i] !== FREE) continue;
    const m = all(i, nb);
    for (let k = 0; k < m; k++) {
      if (pass1[nb[k]] >= 0) {
        agg[i] = pass1[nb[k]];
        break;
      }
    }
  }
  blocksOf((lo, hi) => {
    for (let i = lo; i < hi; i++) {
      if (agg[i] !== FREE) continue;
      agg[i] = count;
      const m = row(i, lo, hi);
      for (let k = 0; k < m; k++) if (agg[nb[k]] === FREE) agg[nb[k]] = count;
      count++;
    }
  });
  for (let i = 0; i < n; i++) if (agg[i] === ISOLATED) agg[i] = -1;
  return { agg, count };
}

/**
 * The node matrix of A with blocks of bs×bs unknowns (PyAMG's amalgamation of a BSR matrix): entry
 * (I, J) is the Frobenius norm of block (I, J), stored where any entry of the block is. Strength and
 * aggregation then see nodes, so the unknowns of a node (elasticity's two displacements) stay
 * together. A real, canonical A whose size is a multiple of bs.
 */
export function amalgamate(A: CSRMatrix, bs: number): CSRMatrix {
  const N = A.rows / bs;
  const { rowPtr, colIdx, values } = A;
  const mark = new Int32Array(N).fill(-1);
  const acc = new Float64Array(N);
  const ptr = new Int32Array(N + 1);
  const idx = new Int32Array(A.nnz);
  const val = new Float64Array(A.nnz);
  let m = 0;
  for (let I = 0; I < N; I++) {
    const start = m;
    for (let i = I * bs; i < (I + 1) * bs; i++) {
      for (let k = rowPtr[i]; k < rowPtr[i + 1]; k++) {
        const J = (colIdx[k] / bs) | 0;
        if (mark[J] !== I) {
          mark[J] = I;
          idx[m++] = J;
          acc[J] = 0;
        }
        acc[J] += values[k] * values[k];
      }
    }
    idx.subarray(start, m).sort();
    for (let k = start; k < m; k++) val[k] = Math.sqrt(acc[idx[k]]);
    ptr[I + 1] = m;
  }
  return new CSRMatrix(N, N, 'f64', ptr, idx.slice(0, m), val.slice(0, m));
}
