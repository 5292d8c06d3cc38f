import { CSRMatrix } from '../../formats/csr.js';

/**
 * The tentative prolongator of smoothed aggregation (PyAMG's fit_candidates): for each aggregate, the
 * rows of the near-null-space vectors B (K columns) on its unknowns are factored B_a = Q_a·R_a by
 * modified Gram–Schmidt; Q_a fills the aggregate's K columns of T (so T has orthonormal columns and
 * interpolates B exactly: T·B_c = B) and R_a is the aggregate's K rows of the coarse near-null space
 * B_c. A column of B_a that is (numerically) a combination of the earlier ones gets a zero column, as
 * PyAMG does; the coarse solve's pseudo-inverse then ignores it.
 *
 * agg maps each node (bs unknowns) to its aggregate, −1 for none (its rows of T are empty).
 */
export function fitCandidates(agg: Int32Array, count: number, bs: number, B: Float64Array[]): { T: CSRMatrix; coarse: Float64Array[] } {
  if (B.length === 1 && bs === 1) return fitOne(agg, count, B[0]);
  const K = B.length;
  const nodes = agg.length;
  const n = nodes * bs;
  // nodes grouped by aggregate (counting sort keeps them ascending within one)
  const start = new Int32Array(count + 1);
  for (let i = 0; i < nodes; i++) if (agg[i] >= 0) start[agg[i] + 1]++;
  for (let a = 0; a < count; a++) start[a + 1] += start[a];
  const members = new Int32Array(start[count]);
  const fill = start.slice(0, count);
  for (let i = 0; i < nodes; i++) if (agg[i] >= 0) members[fill[agg[i]]++] = i;
  let largest = 0;
  for (let a = 0; a < count; a++) largest = Math.max(largest, start[a + 1] - start[a]);

  const ptr = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) ptr[i + 1] = ptr[i] + (agg[(i / bs) | 0] >= 0 ? K : 0);
  const idx = new Int32Array(ptr[n]);
  const val = new Float64Array(ptr[n]);
  const coarse = Array.from({ length: K }, () => new Float64Array(count * K));
  const rows = largest * bs;
  const Q = new Float64Array(rows * K); // column k at Q[k·rows ..]
  for (let a = 0; a < count; a++) {
    const s = (start[a + 1] - start[a]) * bs;
    // gather B's rows of the aggregate's unknowns
    for (let k = 0; k < K; k++) {
      let r = 0;
      for (let m = start[a]; m < start[a + 1]; m++) for (let d = 0; d < bs; d++) Q[k * rows + r++] = B[k][members[m] * bs + d];
    }
    for (let k = 0; k < K; k++) {
      const q = k * rows;
      let before = 0;
      for (let r = 0; r < s; r++) before += Q[q + r] ** 2;
      for (let j = 0; j < k; j++) {
        const p = j * rows;
        let dot = 0;
        for (let r = 0; r < s; r++) dot += Q[p + r] * Q[q + r];
        for (let r = 0; r < s; r++) Q[q + r] -= dot * Q[p + r];
        coarse[k][a * K + j] = dot;
      }
      let norm = 0;
      for (let r = 0; r < s; r++) norm += Q[q + r] ** 2;
      norm = Math.sqrt(norm);
      const kept = norm > 1e-10 * Math.sqrt(before) && norm > 0;
      for (let r = 0; r < s; r++) Q[q + r] = kept ? Q[q + r] / norm : 0;
      coarse[k][a * K + k] = kept ? norm : 0;
    }
    // scatter Q into T's rows: unknown (node m, d) has the aggregate's K columns
    let r = 0;
    for (let m = start[a]; m < start[a + 1]; m++) {
      for (let d = 0; d < bs; d++, r++) {
        const p = ptr[members[m] * bs + d];
        for (let k = 0; k < K; k++) {
          idx[p + k] = a * K + k;
          val[p + k] = Q[k * rows + r];
        }
      }
    }
  }
  return { T: new CSRMatrix(n, count * K, 'f64', ptr, idx, val), coarse };
}

/**
 * fitCandidates for one candidate b on scalar nodes (the constant's case), in two passes over the
 * nodes: each aggregate's Q is b's rows over their norm and its R factor is that norm (0, and a zero
 * column, for an aggregate where b vanishes), the same numbers as the general loop.
 */
function fitOne(agg: Int32Array, count: number, b: Float64Array): { T: CSRMatrix; coarse: Float64Array[] } {
  const n = agg.length;
  const norm = new Float64Array(count);
  const ptr = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) {
    const a = agg[i];
    if (a >= 0) norm[a] += b[i] * b[i];
    ptr[i + 1] = ptr[i] + (a >= 0 ? 1 : 0);
  }
  for (let a = 0; a < count; a++) {
    const r = Math.sqrt(norm[a]);
    norm[a] = r > 0 ? r : 0;
  }
  const idx = new Int32Array(ptr[n]);
  const val = new Float64Array(ptr[n]);
  for (let i = 0; i < n; i++) {
    const a = agg[i];
    if (a < 0) continue;
    idx[ptr[i]] = a;
    val[ptr[i]] = norm[a] > 0 ? b[i] / norm[a] : 0;
  }
  return { T: new CSRMatrix(n, count, 'f64', ptr, idx, val), coarse: [norm] };
}
