/**
 * looseAbsNorms (src/solvers/solve.ts): the bounds a first WebGPU solve's flushed-value check tries
 * before the exact norms' pass over A's columns must be above the exact norms, computed here by a
 * plain reference (row and column sums of |aᵢⱼ|, row and column counts), on every dtype and scale.
 */
import { describe, expect, it } from 'vitest';
import { CSRMatrix } from '../src/formats/csr.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import { Prng } from '../src/generators/prng.js';
import { looseAbsNorms } from '../src/solvers/solve.js';

function referenceNorms(A: CSRMatrix): { abs2: number; maxRow: number; pattern2: number } {
  const c = A.dtype === 'c64' || A.dtype === 'c128' ? 2 : 1;
  const rowSum = new Float64Array(A.rows);
  const colSum = new Float64Array(A.cols);
  const rowCount = new Float64Array(A.rows);
  const colCount = new Float64Array(A.cols);
  for (let i = 0; i < A.rows; i++) {
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
      const a = c === 1 ? Math.abs(A.values[k]) : Math.hypot(A.values[2 * k], A.values[2 * k + 1]);
      rowSum[i] += a;
      colSum[A.colIdx[k]] += a;
      rowCount[i]++;
      colCount[A.colIdx[k]]++;
    }
  }
  const max = (v: Float64Array): number => v.reduce((m, x) => (x > m || x !== x ? x : m), 0);
  return { abs2: Math.sqrt(max(rowSum) * max(colSum)), maxRow: max(rowCount), pattern2: Math.sqrt(max(rowCount) * max(colCount)) };
}

/** A random square matrix: mixed signs and magnitudes, rows of 0..8 entries, one dense column. */
function randomMatrix(n: number, seed: number): CSRMatrix {
  const g = new Prng(seed);
  const rows: [number, number][][] = [];
  for (let i = 0; i < n; i++) {
    const cols = new Set<number>([0]);
    for (let t = Math.floor(g.next() * 9); t > 0; t--) cols.add(Math.floor(g.next() * n));
    rows.push([...cols].sort((a, b) => a - b).map((j) => [j, (g.next() - 0.5) * 10 ** Math.floor(g.next() * 6 - 3)]));
  }
  const ptr = new Int32Array(n + 1);
  rows.forEach((r, i) => (ptr[i + 1] = ptr[i] + r.length));
  return new CSRMatrix(n, n, 'f64', ptr, Int32Array.from(rows.flat(), (e) => e[0]), Float64Array.from(rows.flat(), (e) => e[1]));
}

describe('looseAbsNorms', () => {
  it('bounds the exact norms from above on Poisson and random matrices, f64/f32/c128/c64, scaled ×1e±30', () => {
    const cases: CSRMatrix[] = [];
    for (const A of [poisson2D(7), poisson3D(5), randomMatrix(60, 1), randomMatrix(200, 2)]) {
      for (const s of [1, 1e-30, 1e30]) {
        const B = new CSRMatrix(A.rows, A.cols, 'f64', A.rowPtr, A.colIdx, A.values.map((v) => v * s));
        cases.push(B, B.astype('f32'));
        const C = new CSRMatrix(A.rows, A.cols, 'c128', A.rowPtr, A.colIdx, Float64Array.from({ length: 2 * A.nnz }, (_, k) => A.values[k >> 1] * s * (k & 1 ? 0.7 : -0.4)));
        cases.push(C, C.astype('c64'));
      }
    }
    for (const A of cases) {
      const exact = referenceNorms(A);
      const loose = looseAbsNorms(A);
      const what = `${A.rows} rows ${A.dtype}`;
      expect(loose.maxRow, what).toBe(exact.maxRow);
      expect(loose.pattern2, what).toBeGreaterThanOrEqual(exact.pattern2);
      expect(loose.abs2, what).toBeGreaterThanOrEqual(exact.abs2);
      expect(loose.abs2, what).toBeGreaterThan(0);
    }
  });

  it('is NaN where A holds NaN (the check it gates then fails, as the exact one does)', () => {
    const A = poisson2D(4);
    const v = Float64Array.from(A.values);
    v[7] = NaN;
    expect(looseAbsNorms(new CSRMatrix(A.rows, A.cols, 'f64', A.rowPtr, A.colIdx, v)).abs2).toBeNaN();
    v[7] = Infinity;
    expect(looseAbsNorms(new CSRMatrix(A.rows, A.cols, 'f64', A.rowPtr, A.colIdx, v)).abs2).toBe(Infinity);
  });
});
