/**
 * The dense block of the supernodal Cholesky (assembly/cholesky.ts's chol_front_f64: k pivot columns
 * of a front, then the Schur complement of the rest; both builds) against a plain f64 reference
 * written here: an unblocked right-looking elimination of the same front, entry by entry.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Prng } from '../src/generators/prng.js';
import { makeHarness, type Harness } from './kernel-harness.js';

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

/** Runs chol_front_f64 of the build on a copy of F0: the front after it, and what it returned. */
function front(h: Harness, F0: Float64Array, m: number, k: number): { F: Float64Array; bad: number } {
  const F = h.put(F0);
  const panels = h.zeros(8 * 4 * Math.ceil(m / 4) * k);
  try {
    const bad = h.kernel('chol_front_f64')(F.ptr, m, k, panels.ptr);
    return { F: h.get(F, 'f64', m * m) as Float64Array, bad };
  } finally {
    F.dispose();
    panels.dispose();
  }
}

for (const flavor of ['simd', 'plain'] as const) {
  describe(`chol_front_f64 (${flavor} build: the supernodal front kernel)`, () => {
    let h: Harness;
    beforeAll(async () => {
      h = await makeHarness(flavor);
    });
    afterAll(() => {
      h = undefined as unknown as Harness;
    });

    it('equals the plain elimination on the lower triangle for every shape of blocking, the upper triangle untouched', () => {
      // 1×1, widths around the 4-column blocks, no Schur part (k = m), a Schur part of 1 row, m not a multiple of 4
      for (const [m, k] of [[1, 1], [2, 1], [3, 3], [5, 5], [7, 3], [9, 4], [13, 8], [16, 5], [8, 7], [33, 9], [40, 40], [41, 17], [66, 1], [70, 35]]) {
        const F0 = spdFront(m, 100 * m + k);
        for (let j = 0; j < m; j++) for (let i = 0; i < j; i++) F0[i + j * m] = -7; // the upper triangle: never read or written
        const { F, bad } = front(h, F0, m, k);
        expect(bad).toBe(-1);
        const R = reference(F0, m, k);
        for (let j = 0; j < m; j++) {
          for (let i = 0; i < m; i++) {
            const want = i >= j ? R[i + j * m] : -7;
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
      expect(front(h, F0, m, 8).bad).toBe(5);
      const nan = Float64Array.from(F0);
      nan[0] = NaN;
      expect(front(h, nan, m, 3).bad).toBe(0);
      const inf = spdFront(m, 6);
      inf[2 + 2 * m] = Infinity;
      expect(front(h, inf, m, 12).bad).toBe(2);
    });
  });
}
