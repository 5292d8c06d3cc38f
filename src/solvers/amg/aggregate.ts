import { CSRMatrix } from '../../formats/csr.js';

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

/**
 * PyAMG's standard aggregation (amg_core standard_aggregation) on A's symmetric strength of connection
 * (strongRow). Pass 1: a node whose neighbours are all free becomes a root, and it and its neighbours
 * an aggregate. Pass 2: each free node joins the pass-1 aggregate of its first neighbour that has one.
 * Pass 3: each node still free becomes a root with its free neighbours. A node without strong
 * neighbours joins none (−1): its row of the prolongator is zero and the smoother alone handles it.
 * Returns each node's aggregate and the number of aggregates. A node's strong neighbours are found
 * when a pass visits it while free, so the nodes pass 1 has already aggregated (most of them) are
 * never tested, and no strength graph (A's entries) is written.
 */
export function strengthAggregation(A: CSRMatrix, theta: number, diagonal?: Float64Array): { agg: Int32Array; count: number } {
  const n = A.rows;
  const row = strongRow(A, theta, diagonal);
  let widest = 0;
  for (let i = 0; i < n; i++) widest = Math.max(widest, A.rowPtr[i + 1] - A.rowPtr[i]);
  const FREE = -1;
  const ISOLATED = -2;
  const agg = new Int32Array(n).fill(FREE);
  const nb = new Int32Array(widest);
  let count = 0;
  for (let i = 0; i < n; i++) {
    if (agg[i] !== FREE) continue;
    const m = row(i, nb);
    if (m === 0) {
      agg[i] = ISOLATED;
      continue;
    }
    let taken = false;
    for (let k = 0; k < m && !taken; k++) taken = agg[nb[k]] !== FREE;
    if (taken) continue;
    agg[i] = count;
    for (let k = 0; k < m; k++) agg[nb[k]] = count;
    count++;
  }
  const pass1 = agg.slice();
  for (let i = 0; i < n; i++) {
    if (agg[i] !== FREE) continue;
    const m = row(i, nb);
    for (let k = 0; k < m; k++) {
      if (pass1[nb[k]] >= 0) {
        agg[i] = pass1[nb[k]];
        break;
      }
    }
  }
  for (let i = 0; i < n; i++) {
    if (agg[i] !== FREE) continue;
    agg[i] = count;
    const m = row(i, nb);
    for (let k = 0; k < m; k++) if (agg[nb[k]] === FREE) agg[nb[k]] = count;
    count++;
  }
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
