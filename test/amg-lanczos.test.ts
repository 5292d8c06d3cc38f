/**
 * The AMG setup's ρ(D⁻¹A) estimate (CpuSparseSession.lanczosBounds: 15 Lanczos steps on the pool,
 * assembly/lanczos.ts) against a plain f64 Lanczos written here — normalized vectors, separate passes,
 * the tridiagonal's eigenvalues by cyclic Jacobi rotations — on matrices past the pool's floor (so the
 * rows are split over 2 and 3 threads: the chunk boundaries are tested) and small ones; the estimate
 * must be the same bits on 1, 2 and 3 threads.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import { diffusion2D } from '../src/generators/index.js';
import { CpuSparseSession } from '../src/cpu/spgemm.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { mulberry32 } from './random.js';

const STEPS = 15;

/** Eigenvalues of the symmetric tridiagonal (a; b) by cyclic Jacobi on its dense form. */
function tridiagonalEigenvalues(a: number[], b: number[]): number[] {
  const m = a.length;
  const M = Array.from({ length: m }, (_, i) => Array.from({ length: m }, (_, j) => (i === j ? a[i] : Math.abs(i - j) === 1 ? b[Math.min(i, j)] : 0)));
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let p = 0; p < m; p++) for (let q = p + 1; q < m; q++) off += M[p][q] ** 2;
    if (off < 1e-32) break;
    for (let p = 0; p < m; p++)
      for (let q = p + 1; q < m; q++) {
        if (M[p][q] === 0) continue;
        const theta = (M[q][q] - M[p][p]) / (2 * M[p][q]);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < m; k++) {
          const [x, y] = [M[k][p], M[k][q]];
          M[k][p] = c * x - s * y;
          M[k][q] = s * x + c * y;
        }
        for (let k = 0; k < m; k++) {
          const [x, y] = [M[p][k], M[q][k]];
          M[p][k] = c * x - s * y;
          M[q][k] = s * x + c * y;
        }
      }
  }
  return M.map((row, i) => row[i]);
}

/** Plain Lanczos on D^-½·A·D^-½ from the setup's start vector (the same linear congruential sequence). */
function referenceBounds(A: CSRMatrix, steps: number): { min: number; max: number } {
  const n = A.rows;
  const s = new Float64Array(n);
  for (let i = 0; i < n; i++) for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) if (A.colIdx[k] === i) s[i] = 1 / Math.sqrt(A.values[k]);
  let v = new Float64Array(n);
  for (let i = 0, h = 0x2545f491; i < n; i++) {
    h = (Math.imul(h, 1664525) + 1013904223) | 0;
    v[i] = 0.5 + (h >>> 8) / 16777216;
  }
  const norm = (x: Float64Array) => Math.sqrt(x.reduce((t, xi) => t + xi * xi, 0));
  const n0 = norm(v);
  for (let i = 0; i < n; i++) v[i] /= n0;
  let vPrev = new Float64Array(n);
  const alpha: number[] = [];
  const beta: number[] = [];
  let b = 0;
  for (let j = 0; j < Math.min(steps, n); j++) {
    const w = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      let sum = 0;
      for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) sum += A.values[k] * s[A.colIdx[k]] * v[A.colIdx[k]];
      w[i] = s[i] * sum - b * vPrev[i];
    }
    const a = v.reduce((t, vi, i) => t + vi * w[i], 0);
    for (let i = 0; i < n; i++) w[i] -= a * v[i];
    alpha.push(a);
    b = norm(w);
    if (!(b > 1e-12 * Math.abs(a))) break;
    beta.push(b);
    vPrev = v;
    v = w.map((x) => x / b);
  }
  const ev = tridiagonalEigenvalues(alpha, beta.slice(0, alpha.length - 1));
  return { min: Math.min(...ev), max: Math.max(...ev) };
}

/** A random sparse SPD matrix: symmetric random off-diagonals, a diagonal dominating them by a random margin. */
function randomSpd(n: number, perRow: number, seed: number): CSRMatrix {
  const rnd = mulberry32(seed);
  const rows: Map<number, number>[] = Array.from({ length: n }, () => new Map());
  for (let i = 0; i < n; i++)
    for (let e = 0; e < perRow; e++) {
      const j = Math.floor(rnd() * n);
      if (j === i) continue;
      const x = rnd() * 2 - 1;
      rows[i].set(j, x);
      rows[j].set(i, x);
    }
  for (let i = 0; i < n; i++) {
    let off = 0;
    for (const x of rows[i].values()) off += Math.abs(x);
    rows[i].set(i, off * (1 + rnd()) + 1e-3);
  }
  const rowPtr = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) rowPtr[i + 1] = rowPtr[i] + rows[i].size;
  const colIdx = new Int32Array(rowPtr[n]);
  const values = new Float64Array(rowPtr[n]);
  for (let i = 0; i < n; i++) {
    const cols = [...rows[i].keys()].sort((x, y) => x - y);
    cols.forEach((j, k) => {
      colIdx[rowPtr[i] + k] = j;
      values[rowPtr[i] + k] = rows[i].get(j)!;
    });
  }
  return new CSRMatrix(n, n, 'f64', rowPtr, colIdx, values);
}

let rts: Runtime[];
beforeAll(async () => {
  rts = await Promise.all([1, 2, 3].map((workers) => createRuntime({ workers, backend: 'cpu' })));
});
afterAll(() => {
  for (const rt of rts) rt.dispose();
});

describe('AMG ρ(D⁻¹A) estimate on the pool against a plain f64 Lanczos', () => {
  const cases: [string, () => CSRMatrix][] = [
    ['poisson3D(28)', () => poisson3D(28)],
    ['jumping diffusion2D(80)', () => diffusion2D({ n: 80, coefficients: 'jumping' })],
    ['random SPD 9000', () => randomSpd(9000, 3, 7)],
    ['poisson2D(9)', () => poisson2D(9)],
    ['random SPD 6 (fewer rows than steps)', () => randomSpd(6, 2, 3)],
  ];
  for (const [name, make] of cases) {
    it(name, () => {
      const A = make();
      const dinv = new Float64Array(A.rows);
      for (let i = 0; i < A.rows; i++) for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) if (A.colIdx[k] === i) dinv[i] = 1 / A.values[k];
      const ref = referenceBounds(A, STEPS);
      const ours = rts.map((rt) => {
        const s = new CpuSparseSession(rt.cpuBackend);
        try {
          return s.lanczosBounds(A, dinv, STEPS);
        } finally {
          s.dispose();
        }
      });
      for (const o of ours) {
        expect(Math.abs(o.max - ref.max), `${name}: max ${o.max} against ${ref.max}`).toBeLessThanOrEqual(1e-11 * ref.max);
        expect(Math.abs(o.min - ref.min), `${name}: min ${o.min} against ${ref.min}`).toBeLessThanOrEqual(1e-9 * ref.max);
      }
      // the same bits on any number of threads
      for (const o of ours.slice(1)) expect([o.max, o.min]).toEqual([ours[0].max, ours[0].min]);
    });
  }
  it('the pool cases are past the pool floor (split over the threads)', () => {
    expect(poisson3D(28).nnz).toBeGreaterThan(16384);
    expect(diffusion2D({ n: 80, coefficients: 'jumping' }).nnz).toBeGreaterThan(16384);
    expect(randomSpd(9000, 3, 7).nnz).toBeGreaterThan(16384);
  });
});
