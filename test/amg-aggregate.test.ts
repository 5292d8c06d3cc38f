import { describe, expect, it } from 'vitest';
import type { Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import { diffusion2D } from '../src/generators/diffusion.js';
import { amgBlocks, strengthAggregation } from '../src/solvers/amg/aggregate.js';
import { CpuSparseSession } from '../src/cpu/spgemm.js';
import { loadShared } from './matrices.js';
import { withRuntimes } from './cpu-setups.js';

/** P·A·Pᵀ for the permutation i → perm[i], canonical (a stencil whose neighbours lie all over the rows) */
function permuted(A: CSRMatrix, perm: Int32Array): CSRMatrix {
  const n = A.rows;
  const rows: [number, number][][] = Array.from({ length: n }, () => []);
  for (let i = 0; i < n; i++) for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) rows[perm[i]].push([perm[A.colIdx[k]], A.values[k]]);
  const ptr = new Int32Array(n + 1);
  const idx: number[] = [];
  const val: number[] = [];
  rows.forEach((r, i) => {
    r.sort((a, b) => a[0] - b[0]);
    for (const [j, v] of r) {
      idx.push(j);
      val.push(v);
    }
    ptr[i + 1] = idx.length;
  });
  return new CSRMatrix(n, n, 'f64', ptr, Int32Array.from(idx), Float64Array.from(val));
}

/** a seeded permutation of 0..n−1 (Fisher–Yates on a linear congruential generator) */
function shuffle(n: number, seed: number): Int32Array {
  const p = Int32Array.from({ length: n }, (_, i) => i);
  let s = seed >>> 0;
  for (let i = n - 1; i > 0; i--) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const j = s % (i + 1);
    [p[i], p[j]] = [p[j], p[i]];
  }
  return p;
}

/**
 * The blocked aggregation written out plainly: strong lists by the definition from a diagonal found by
 * search, pass 1 per block (a node without strong neighbours marked isolated, which takes it out of
 * later roots' reach; roots: strong neighbours in the block all free, none in an earlier block), pass 2 over every node (the first strong neighbour with a pass-1 aggregate, any block),
 * pass 3 per block (free neighbours in the block), numbered in that order.
 */
function reference(A: CSRMatrix, theta: number, blocks: Int32Array): { agg: number[]; count: number } {
  const n = A.rows;
  const diag = new Array<number>(n).fill(0);
  for (let i = 0; i < n; i++) for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) if (A.colIdx[k] === i) diag[i] = A.values[k];
  const strong: number[][] = [];
  for (let i = 0; i < n; i++) {
    const s: number[] = [];
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
      const [j, a] = [A.colIdx[k], Math.abs(A.values[k])];
      if (j !== i && a !== 0 && a >= theta * Math.sqrt(Math.abs(diag[i])) * Math.sqrt(Math.abs(diag[j]))) s.push(j);
    }
    strong.push(s);
  }
  // −1 free, −2 isolated (PyAMG's mark for a node without strong neighbours, met free by pass 1)
  const agg = new Array<number>(n).fill(-1);
  let count = 0;
  const eachBlock = (f: (i: number, inBlock: number[], lo: number) => void) => {
    for (let b = 0; b + 1 < blocks.length; b++) {
      const [lo, hi] = [blocks[b], blocks[b + 1]];
      for (let i = lo; i < hi; i++) f(i, strong[i].filter((j) => j >= lo && j < hi), lo);
    }
  };
  eachBlock((i, nb, lo) => {
    if (agg[i] !== -1) return;
    if (strong[i].length === 0) agg[i] = -2;
    if (nb.length === 0 || strong[i].some((j) => j < lo) || nb.some((j) => agg[j] !== -1)) return;
    for (const j of [i, ...nb]) agg[j] = count;
    count++;
  });
  const pass1 = agg.slice();
  for (let i = 0; i < n; i++) {
    if (agg[i] !== -1) continue;
    const j = strong[i].find((k) => pass1[k] >= 0);
    if (j !== undefined) agg[i] = pass1[j];
  }
  eachBlock((i, nb) => {
    if (agg[i] !== -1) return;
    agg[i] = count;
    for (const j of nb) if (agg[j] === -1) agg[j] = count;
    count++;
  });
  return { agg: agg.map((a) => (a === -2 ? -1 : a)), count };
}

/**
 * A canonical n×n matrix of scattered rows (a fixed pseudo-random pattern): empty rows, rows without a
 * stored diagonal, rows whose other columns all lie before or all after the diagonal, rows reaching
 * both ends — the column ranges Gauss–Seidel's blocks split a row into, each present or absent.
 */
function scatteredRows(n: number): CSRMatrix {
  const ptr = [0];
  const idx: number[] = [];
  const val: number[] = [];
  let h = 12345;
  const next = (m: number) => ((h = (Math.imul(h, 1103515245) + 12345) >>> 0) >>> 8) % m;
  for (let i = 0; i < n; i++) {
    const kind = next(6);
    const cols = new Set<number>();
    if (kind !== 0) {
      if (kind !== 1) cols.add(i);
      const lo = kind === 2 ? 0 : kind === 3 ? i + 1 : 0;
      const hi = kind === 2 ? i : kind === 3 ? n : n;
      for (let k = 0; k < 1 + next(6) && hi > lo; k++) cols.add(lo + next(hi - lo));
      if (kind === 4) cols.add(0).add(n - 1);
    }
    for (const j of [...cols].sort((a, b) => a - b)) {
      idx.push(j);
      val.push(j === i ? 2 + next(5) : -(1 + next(7)) / 4);
    }
    ptr.push(idx.length);
  }
  return new CSRMatrix(n, n, 'f64', Int32Array.from(ptr), Int32Array.from(idx), Float64Array.from(val));
}

function evenBlocks(n: number, b: number): Int32Array {
  return Int32Array.from({ length: b + 1 }, (_, k) => Math.round((k * n) / b));
}

describe('amg aggregation in blocks (assembly/aggregate.ts on the pool, its JavaScript reference)', () => {
  let rt: Runtime;
  let one: Runtime;
  withRuntimes([2, 1], (made) => ([rt, one] = made));

  // a row without a stored diagonal, one with a negative diagonal, an isolated row
  const odd = new CSRMatrix(6, 6, 'f64', Int32Array.of(0, 2, 5, 7, 10, 12, 13), Int32Array.of(0, 1, 0, 1, 3, 1, 3, 2, 3, 4, 3, 4, 5), Float64Array.of(4, -1, -1, 4, -0.5, -1, 0.3, -0.5, 2, -2, -2, -3, 5));
  const cases: [string, CSRMatrix][] = [
    ['poisson2D(30)', poisson2D(30)],
    ['jumping diffusion2D(24)', diffusion2D({ n: 24, coefficients: 'jumping' })],
    ['494_bus', loadShared('494_bus')],
    ['bcsstk13', loadShared('bcsstk13')],
    ['poisson2D(30) shuffled', permuted(poisson2D(30), shuffle(900, 7))],
    ['odd rows', odd],
  ];

  it('JavaScript strengthAggregation against the plain reference, node for node: 1, 2, 3 and 7 blocks, several θ', () => {
    for (const [name, A] of cases) {
      for (const b of [1, 2, 3, 7]) {
        const blocks = evenBlocks(A.rows, Math.min(b, A.rows));
        for (const theta of [0, 0.02, 0.25, 0.6]) {
          const ref = reference(A, theta, blocks);
          const got = strengthAggregation(A, theta, undefined, blocks);
          expect(got.count, `${name}, ${b} blocks, θ ${theta}`).toBe(ref.count);
          expect(Array.from(got.agg), `${name}, ${b} blocks, θ ${theta}`).toEqual(ref.agg);
        }
      }
    }
  });

  it('the pool kernels against strengthAggregation, node for node, on 1 and 2 threads (the same aggregates)', () => {
    for (const [name, A] of cases) {
      for (const b of [1, 2, 3, 7]) {
        const blocks = evenBlocks(A.rows, Math.min(b, A.rows));
        for (const theta of [0, 0.02, 0.25]) {
          const ref = strengthAggregation(A, theta, undefined, blocks);
          for (const r of [rt, one]) {
            const s = new CpuSparseSession(r.cpuBackend);
            try {
              const got = s.aggregate(A, theta, blocks);
              expect(got.count, `${name}, ${b} blocks, θ ${theta}`).toBe(ref.count);
              expect(Array.from(got.agg), `${name}, ${b} blocks, θ ${theta}`).toEqual(Array.from(ref.agg));
            } finally {
              s.dispose();
            }
          }
        }
      }
    }
  });

  it('the default blocks on a level of 262 144 and of 270 400 rows (2 blocks): kernels = JavaScript; every connected node aggregated', () => {
    for (const A of [poisson3D(64), permuted(poisson2D(520), shuffle(270400, 3))]) {
      const blocks = amgBlocks(A.rows);
      expect(blocks.length).toBe(3);
      const ref = strengthAggregation(A, 0.02);
      const s = new CpuSparseSession(rt.cpuBackend);
      try {
        const got = s.aggregate(A, 0.02);
        expect(got.count).toBe(ref.count);
        expect(Array.from(got.agg)).toEqual(Array.from(ref.agg));
        expect(got.agg.every((a) => a >= 0 && a < got.count)).toBe(true);
      } finally {
        s.dispose();
      }
    }
  });

  it('amgBlocks: one block below 262 144 rows, then ⌊n / 131 072⌋ equal ones, at most 16', () => {
    expect(Array.from(amgBlocks(262143))).toEqual([0, 262143]);
    expect(Array.from(amgBlocks(300000))).toEqual([0, 150000, 300000]);
    expect(amgBlocks(2097152).length).toBe(17);
    expect(amgBlocks(1 << 24).length).toBe(17);
    expect(Array.from(amgBlocks(0))).toEqual([0, 0]);
  });

  it('Gauss–Seidel on A·x = 0 in blocks (Jacobi between them) against plain sweeps, on 1 and 2 threads; a row with a diagonal ≤ 0 left alone', () => {
    for (const [name, A0] of [...cases, ['scattered rows', scatteredRows(300)] as [string, CSRMatrix]]) {
      // row 7's diagonal negative: left alone
      const A = new CSRMatrix(A0.rows, A0.cols, 'f64', A0.rowPtr, A0.colIdx, A0.values.slice());
      for (let k = A.rowPtr[7]; k < A.rowPtr[8]; k++) if (A.colIdx[k] === 7) A.values[k] = -1;
      const x0 = Float64Array.from({ length: A.rows }, (_, i) => 1 + ((i * 7919) % 13) / 10);
      for (const b of [1, 2, 3, 7]) {
        const blocks = evenBlocks(A.rows, b);
        const ref = Array.from(x0);
        for (let half = 0; half < 4; half++) {
          const old = ref.slice();
          for (let k = 0; k + 1 < blocks.length; k++) {
            const [lo, hi] = [blocks[k], blocks[k + 1]];
            for (let r = lo; r < hi; r++) {
              const i = half % 2 === 0 ? r : lo + hi - 1 - r;
              let [d, sum] = [0, 0];
              for (let p = A.rowPtr[i]; p < A.rowPtr[i + 1]; p++) {
                const j = A.colIdx[p];
                if (j === i) d = A.values[p];
                else sum -= A.values[p] * (j >= lo && j < hi ? ref[j] : old[j]);
              }
              if (d > 0) ref[i] = sum * (1 / d);
            }
          }
        }
        for (const r of [rt, one]) {
          const s = new CpuSparseSession(r.cpuBackend);
          try {
            const x = x0.slice();
            s.gaussSeidelOnZero(A, x, 2, blocks);
            expect(x[7]).toBe(x0[7]);
            expect(Array.from(x), `${name}, ${b} blocks`).toEqual(ref);
          } finally {
            s.dispose();
          }
        }
      }
    }
  });

  it("the hierarchy's P, R and coarse A stay in the runtime's memory until the handle's dispose(); rt.solve's own AMG until A's (reuse: false: after the solve)", async () => {
    const A = rt.upload(poisson3D(24));
    const b = new Float64Array(A.rows).fill(1);
    // A's copy on the CPU path made first, so only the hierarchy's regions come and go below
    await rt.cg(A, b, { preconditioner: 'jacobi' });
    const before = rt.memoryInUse;
    const M = rt.amg(A);
    expect(rt.memoryInUse).toBeGreaterThan(before);
    const r = await rt.cg(A, b, { preconditioner: M });
    expect(r.converged).toBe(true);
    const again = await rt.cg(A, b, { preconditioner: M });
    expect(Array.from(again.x)).toEqual(Array.from(r.x));
    M.dispose();
    expect(rt.memoryInUse).toBe(before);
    const s = await rt.solve(A, b, { method: 'cg', preconditioner: 'amg', reuse: false });
    expect(s.converged && s.iterations).toBe(r.iterations);
    expect(rt.memoryInUse).toBe(before);
    // kept with A for its next solves (src/runtime/kept-setup.ts), freed with it
    const kept = await rt.solve(A, b, { method: 'cg', preconditioner: 'amg' });
    expect(kept.converged && kept.iterations).toBe(r.iterations);
    expect(rt.memoryInUse).toBeGreaterThan(before);
    const inUse = rt.memoryInUse;
    const next = await rt.solve(A, b, { method: 'cg', preconditioner: 'amg' });
    expect([next.reused, rt.memoryInUse]).toEqual(['preconditioner', inUse]);
    expect(Array.from(next.x)).toEqual(Array.from(kept.x));
    A.dispose();
    expect(rt.memoryInUse).toBeLessThan(before);
  });

  it('diagonal: D⁻¹ (0 where not positive or not stored) and the positive flag, against a plain loop', () => {
    for (const [name, A] of [...cases, ['poisson3D(40)', poisson3D(40)] as [string, CSRMatrix]]) {
      const ref = new Float64Array(A.rows);
      let positive = A.rows > 0;
      for (let i = 0; i < A.rows; i++) {
        let d = 0;
        for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) if (A.colIdx[k] === i) d = A.values[k];
        ref[i] = d > 0 ? 1 / d : 0;
        positive &&= d > 0;
      }
      const s = new CpuSparseSession(rt.cpuBackend);
      try {
        const got = s.diagonal(A);
        expect(Array.from(got.dinv), name).toEqual(Array.from(ref));
        expect(got.positive, name).toBe(positive);
      } finally {
        s.dispose();
      }
      // in a session that keeps its products (the setup's), on 2 threads and 1: the same values, still
      // there after the session, until the products are freed
      for (const r of [rt, one]) {
        const before = r.memoryInUse;
        const kept = new CpuSparseSession(r.cpuBackend);
        const free = kept.retain();
        let dinv: Float64Array;
        try {
          dinv = kept.diagonal(A).dinv;
          const other = new CpuSparseSession(r.cpuBackend); // another allocation meanwhile
          other.diagonal(poisson2D(9));
          other.dispose();
        } finally {
          kept.dispose();
        }
        expect(Array.from(dinv), name).toEqual(Array.from(ref));
        // on a shared memory (a growth detaches no view) a view of it: no copy of a large level's D⁻¹
        expect(r.cpuBackend.heap.shared, name).toBe(true);
        expect(dinv.buffer instanceof SharedArrayBuffer, name).toBe(true);
        free();
        expect(r.memoryInUse, name).toBe(before);
      }
    }
  });
});
