/**
 * The direct solvers' row-wise rounding bound of ‖b − A·x‖ written out as its formula, one pass of its
 * own (directResidualBound as of d3126d0): the oracle of test/solve-direct-bound and
 * test/direct-bound-fused; and the random square matrices both feed it.
 */
import { CSRMatrix } from '../src/formats/csr.js';
import type { Prng } from '../src/generators/prng.js';
import { hostNorm } from '../src/host-spmv.js';

/** 1.01·‖e‖₂, eᵢ = opsᵢ·(2⁻⁵³·wᵢ + 2⁻¹⁰⁷⁴), wᵢ = |bᵢ| + Σ|aᵢⱼ||xⱼ| (|re| + |im|), kᵢ + 2 operations (complex: 2·(2kᵢ + 2)), the norm as hostNorm takes it. */
export function rowwiseBoundFormula(A: CSRMatrix, x: Float64Array, b: Float64Array): number {
  const complex = A.dtype === 'c128';
  const e = new Float64Array(A.rows);
  for (let i = 0; i < A.rows; i++) {
    let w = complex ? Math.abs(b[2 * i]) + Math.abs(b[2 * i + 1]) : Math.abs(b[i]);
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
      const j = A.colIdx[k];
      w += complex
        ? (Math.abs(A.values[2 * k]) + Math.abs(A.values[2 * k + 1])) * (Math.abs(x[2 * j]) + Math.abs(x[2 * j + 1]))
        : Math.abs(A.values[k]) * Math.abs(x[j]);
    }
    const k = A.rowPtr[i + 1] - A.rowPtr[i];
    e[i] = (complex ? 2 * (2 * k + 2) : k + 2) * (2 ** -53 * w + 2 ** -1074);
  }
  return 1.01 * hostNorm(e);
}

/**
 * A random square n×n matrix (c128 where `complex`): row i holds its diagonal and up to per − 1 columns
 * drawn from g, sorted; each entry's value (each part of a complex one) value(i, j) — g is drawn from
 * in that order, so a seed gives the same matrix each time.
 */
export function randomRows(n: number, per: number, complex: boolean, g: Prng, value: (i: number, j: number) => number): CSRMatrix {
  const c = complex ? 2 : 1;
  const ptr = new Int32Array(n + 1);
  const cols: number[] = [];
  const vals: number[] = [];
  for (let i = 0; i < n; i++) {
    const set = new Set<number>([i]);
    for (let t = Math.floor(g.next() * per); t > 0; t--) set.add(Math.floor(g.next() * n));
    for (const j of [...set].sort((p, q) => p - q)) {
      cols.push(j);
      for (let p = 0; p < c; p++) vals.push(value(i, j));
    }
    ptr[i + 1] = cols.length;
  }
  return new CSRMatrix(n, n, complex ? 'c128' : 'f64', ptr, Int32Array.from(cols), Float64Array.from(vals));
}
