/**
 * The dense block of the supernodal Cholesky (partialCholesky: k pivot columns of a front, then the
 * Schur complement of the rest) against a plain f64 reference written here: an unblocked
 * right-looking elimination of the same front, entry by entry.
 */
import { describe, expect, it } from 'vitest';
import { partialCholesky } from '../src/solvers/direct/supernodal.js';
import { Prng } from '../src/generators/prng.js';

/** A random m×m SPD front (column-major, full): Bᵀ·B + m·I. */
function spdFront(m: number, seed: number): Float64Array {
  const rng = new Prng(seed);
  const B = Float64Array.from({ length: m * m }, () => rng.next() - 0.5);
  const F = new Float64Array(m * m);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < m; j++) {
      let s = i === j ? m : 0;
      for (let t = 0; t < m; t++) s += B[t + i * m] * B[t + j * m];
      F[i + j * m] = s;
    }
  }
  return F;
}

/** k steps of right-looking Cholesky on the lower triangle: L's columns, then the Schur complement. */
function reference(F0: Float64Array, m: number, k: number): Float64Array {
  const F = Float64Array.from(F0);
  for (let c = 0; c < k; c++) {
    const d = Math.sqrt(F[c + c * m]);
    F[c + c * m] = d;
    for (let i = c + 1; i < m; i++) F[i + c * m] /= d;
    for (let j = c + 1; j < m; j++) for (let i = j; i < m; i++) F[i + j * m] -= F[i + c * m] * F[j + c * m];
  }
  return F;
}

describe('partialCholesky (the supernodal front kernel)', () => {
  it('equals the plain elimination on the lower triangle for every shape of blocking', () => {
    for (const [m, k] of [[1, 1], [2, 1], [5, 5], [7, 3], [9, 4], [13, 8], [16, 5], [33, 9], [40, 40], [41, 17]]) {
      const F0 = spdFront(m, 100 * m + k);
      const F = Float64Array.from(F0);
      expect(partialCholesky(F, m, k)).toBe(-1);
      const R = reference(F0, m, k);
      for (let j = 0; j < m; j++) {
        for (let i = j; i < m; i++) {
          const want = R[i + j * m];
          expect(Math.abs(F[i + j * m] - want)).toBeLessThanOrEqual(1e-12 * (Math.abs(want) + m));
        }
      }
    }
  });

  it('names the first pivot that is not positive', () => {
    const m = 12;
    const F0 = spdFront(m, 5);
    // make the leading 6×6 block indefinite at column 5: subtract more than its Schur pivot
    const R = reference(F0, m, 5);
    F0[5 + 5 * m] -= R[5 + 5 * m] * 1.5 + 1;
    expect(partialCholesky(Float64Array.from(F0), m, 8)).toBe(5);
    const nan = Float64Array.from(F0);
    nan[0] = NaN;
    expect(partialCholesky(nan, m, 3)).toBe(0);
  });
});
