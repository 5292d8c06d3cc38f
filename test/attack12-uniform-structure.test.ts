/**
 * rt.solve's structure check of a stencil held as a compact DIA copy on the CPU pool (343f4f5: a flagged
 * uniform 4-row group's rows tested once from its constants, src/solvers/uniform-structure.ts) against a
 * plain reference written here, as a property (the twelfth attack pass): poisson3D(24) (93 k entries,
 * past the pool pass's 65 536) with a few entries changed — inside a uniform group, at its mirror, on the
 * diagonal (0, negative, ±0, NaN, ±Inf), off the diagonal (positive: not Laplacian-like; a large one: not
 * dominant; a mirror changed by 1e-6: not symmetric) — all values exact in f32 so the copy stays compact,
 * on 2 and 3 threads. Fields compared: hermitian, positiveDiagonal, zeroDiagonals, finite, laplacianLike,
 * diagonallyDominant — of an A holding NaN or ±Inf not hermitian, laplacianLike and diagonallyDominant,
 * which every pass leaves as its comparisons fall (Inf off the diagonal against a mirror of −1: 'hermitian').
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { poisson3D } from '../src/generators/poisson.js';

let rts: Runtime[];
beforeAll(async () => {
  rts = await Promise.all([2, 3].map((workers) => createRuntime({ backend: 'cpu', workers })));
});
afterAll(() => rts?.forEach((rt) => rt.dispose()));

/** The fields by their definitions (docs/solvers.md), for a canonical real CSR; changes are exact mirrors or ≥ 1e-6 apart. */
function reference(A: CSRMatrix) {
  const at = (i: number, j: number): number | undefined => {
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) if (A.colIdx[k] === j) return A.values[k];
    return undefined;
  };
  let hermitian = true;
  let positiveDiagonal = true;
  let zeroDiagonals = 0;
  let finite = true;
  let laplacianLike = true;
  let diagonallyDominant = true;
  for (let i = 0; i < A.rows; i++) {
    let d = 0;
    let off = 0;
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
      const j = A.colIdx[k];
      const v = A.values[k];
      if (!Number.isFinite(v)) finite = false;
      if (j === i) d = v;
      else {
        off += Math.abs(v);
        if (!(v <= 0)) laplacianLike = false;
        const w = at(j, i) ?? 0;
        if (!(Math.abs(v - w) <= 1e-12 * Math.max(Math.abs(v), Math.abs(w)))) hermitian = false;
      }
    }
    if (!(d > 0)) positiveDiagonal = false;
    if (d === 0) zeroDiagonals++;
    if (!(Math.abs(d) >= off)) diagonallyDominant = false;
    // a Laplacian's sign pattern: the diagonal itself (not its modulus) at least the off-diagonals' sum
    if (!(d >= off)) laplacianLike = false;
  }
  if (!finite) hermitian = false;
  return { hermitian, positiveDiagonal, zeroDiagonals, finite, laplacianLike, diagonallyDominant };
}

describe('attack12: the uniform groups\' structure check', () => {
  it('property: poisson3D(24) with changed entries, 2 and 3 threads, DIA compact: explain(solve).structure equals the reference', { timeout: 300000 }, () => {
    const P = poisson3D(24);
    const change = fc.record({
      row: fc.nat(P.rows - 1),
      slot: fc.nat(6),
      value: fc.constantFrom(0, -0, -6, 6, 1, -1, 0.5, -0.5, 100, NaN, Infinity, -Infinity, 2 ** -20),
      mirrored: fc.boolean(),
      skew: fc.boolean(),
    });
    let finiteRuns = 0;
    fc.assert(
      fc.property(fc.array(change, { minLength: 1, maxLength: 4 }), fc.constantFrom(0, 1), (changes, t) => {
        const values = Float64Array.from(P.values);
        for (const { row, slot, value, mirrored, skew } of changes) {
          const k = P.rowPtr[row] + Math.min(slot, P.rowPtr[row + 1] - P.rowPtr[row] - 1);
          values[k] = value;
          const j = P.colIdx[k];
          if (mirrored && j !== row) {
            for (let q = P.rowPtr[j]; q < P.rowPtr[j + 1]; q++) if (P.colIdx[q] === row) values[q] = skew && Number.isFinite(value) ? value + 2 ** -10 : value;
          }
        }
        const A = new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, values);
        const h = rts[t].upload(A, { format: 'dia' });
        try {
          const s = rts[t].explain('solve', h, { method: 'cg', preconditioner: 'none' }).structure;
          const { hermitian, positiveDiagonal, zeroDiagonals, finite, laplacianLike, diagonallyDominant } = s;
          const got = { hermitian, positiveDiagonal, zeroDiagonals, finite, laplacianLike, diagonallyDominant };
          const want = reference(A);
          // A holding NaN or ±Inf: every pass (CSR, DIA, pool, uniform) leaves the sign and symmetry
          // fields as its comparisons fall ('auto' then runs no preconditioner and the solve ends 'nan'):
          // the fields compared there are finite, the diagonal's and the zero count
          if (!want.finite) for (const f of ['hermitian', 'laplacianLike', 'diagonallyDominant'] as const) got[f] = want[f];
          expect(JSON.stringify(got), JSON.stringify(changes)).toBe(JSON.stringify(want));
          finiteRuns += want.finite ? 1 : 0;
        } finally {
          h.dispose();
        }
      }),
      { numRuns: Number(process.env.RUNS ?? 60), seed: Number(process.env.SEED ?? 12), endOnFailure: true },
    );
    expect(finiteRuns).toBeGreaterThan(20);
  });
});
