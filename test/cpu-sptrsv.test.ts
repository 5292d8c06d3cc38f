/**
 * The CPU path's triangular solve as one pool job (src/cpu/sptrsv.ts, assembly/sptrsv.ts): threads claim
 * blocks of units of consecutive rows in level order and wait, spinning, for the level group before
 * theirs. Checked against a plain sparse substitution written here (f64, the same order of operations,
 * so f64 results agree bit for bit), on ILU(0) / IC(0) factors of 3-D and 2-D stencils and on random
 * triangles, for every dtype; the same solver after the pool is gone (one thread claims every block);
 * many solves in a row (the counters are reset); a chain of rows (nothing to split).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CpuBackend } from '../src/cpu/backend.js';
import { cpuSolverOps } from '../src/cpu/solver-ops.js';
import { CSRMatrix } from '../src/formats/csr.js';
import type { DType } from '../src/dtype.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import { Prng } from '../src/generators/prng.js';
import { ic0 } from '../src/solvers/precond/ic0.js';
import { ilu0, type IncompleteFactors } from '../src/solvers/precond/ilu0.js';
import { levelSchedule } from '../src/solvers/precond/levels.js';

/** T's lower or upper triangle solved by substitution in f64 (a unit diagonal where asked), entries in stored order. */
function substitute(T: CSRMatrix, b: Float64Array, lower: boolean, unit: boolean): Float64Array {
  const n = T.rows;
  const x = new Float64Array(n);
  for (let s = 0; s < n; s++) {
    const i = lower ? s : n - 1 - s;
    let v = b[i];
    let d = 0;
    for (let k = T.rowPtr[i]; k < T.rowPtr[i + 1]; k++) {
      const j = T.colIdx[k];
      if (j === i) d += T.values[k];
      else if (lower ? j < i : j > i) v -= T.values[k] * x[j];
    }
    x[i] = unit ? v : v * (1 / d);
  }
  return x;
}

/** poisson3D / poisson2D plus an upwind first derivative along x (nonsymmetric, diagonally dominant). */
function upwind(P: CSRMatrix, c: number): CSRMatrix {
  const vals = Float64Array.from(P.values);
  for (let i = 0; i < P.rows; i++) {
    for (let k = P.rowPtr[i]; k < P.rowPtr[i + 1]; k++) {
      if (P.colIdx[k] === i) vals[k] += c;
      else if (P.colIdx[k] === i - 1) vals[k] -= c;
    }
  }
  return new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, vals);
}

/** A random lower triangle: a diagonal of 2…3 and `per` entries a row at random earlier columns (irregular levels). */
function randomLower(n: number, per: number, seed: number): CSRMatrix {
  const g = new Prng(seed);
  const rows: number[] = [];
  const cols: number[] = [];
  const vals: number[] = [];
  for (let i = 0; i < n; i++) {
    const set = new Set<number>();
    for (let t = 0; t < per && i > 0; t++) set.add(Math.max(0, i - 1 - Math.floor(g.next() * g.next() * i)));
    for (const j of set) [rows.push(i), cols.push(j), vals.push(g.next() - 0.5)];
    rows.push(i), cols.push(i), vals.push(2 + g.next());
  }
  return CSRMatrix.fromTriplets(n, n, 'f64', Int32Array.from(rows), Int32Array.from(cols), Float64Array.from(vals));
}

function rhs(n: number, seed: number): Float64Array {
  const g = new Prng(seed);
  return Float64Array.from({ length: n }, () => g.next() * 2 - 1);
}

let B: CpuBackend;
beforeAll(async () => {
  B = await CpuBackend.create({ threads: 2 });
});
afterAll(() => B.dispose());

/** Solves T x = b on the CPU path in `dtype` (complex: imaginary part b/2) and returns x's real parts and the method. */
async function solveOnPath(A: CSRMatrix, T: CSRMatrix, lower: boolean, unit: boolean, b: Float64Array, dtype: DType = 'f64') {
  const complex = dtype === 'c128' || dtype === 'c64';
  const ops = cpuSolverOps(B, B.upload(A.astype(dtype)), 'none');
  const S = ops.triangular!(T.astype(dtype), { lower, unitDiagonal: unit, levels: levelSchedule(T, lower) });
  const bv = ops.vector();
  const x = ops.vector();
  bv.view().set(complex ? Float64Array.from({ length: 2 * b.length }, (_, i) => (i % 2 ? 0.5 * b[i >> 1] : b[i >> 1])) : b);
  await S.solve(bv, x);
  const got = Float64Array.from(x.view());
  return { S, ops, x: complex ? Float64Array.from({ length: b.length }, (_, i) => got[2 * i]) : got, im: complex ? Float64Array.from({ length: b.length }, (_, i) => got[2 * i + 1]) : null };
}

describe('CPU triangular solve as one pool job', () => {
  const A3 = upwind(poisson3D(24), 0.5);
  const F3 = ilu0(A3) as IncompleteFactors;

  it("ILU(0) of a 3-D upwind stencil: L and U split over the pool's two threads, equal bit for bit to substitution", async () => {
    const b = rhs(A3.rows, 1);
    for (const [T, lower, unit] of [[F3.L, true, true], [F3.U, false, false]] as const) {
      const r = await solveOnPath(A3, T, lower, unit, b);
      expect(r.S.method).toMatch(/^level-scheduled \(units of ≥ \d+ rows in \d+ levels, [1-9]\d* split over 2 threads, one job\)$/);
      expect(r.x).toEqual(substitute(T, b, lower, unit));
      r.S.dispose();
      r.ops.dispose();
    }
  });

  for (const dtype of ['f32', 'c128', 'c64'] as const) {
    it(`the same in ${dtype}: within the dtype's rounding of the f64 substitution`, async () => {
      const b = rhs(A3.rows, 2);
      const tol = dtype === 'c128' ? 1e-13 : 2e-5;
      for (const [T, lower, unit] of [[F3.L, true, true], [F3.U, false, false]] as const) {
        const r = await solveOnPath(A3, T, lower, unit, b, dtype);
        expect(r.S.method).toMatch(/^level-scheduled/);
        const ref = substitute(T, b, lower, unit);
        const scale = Math.max(...ref.map(Math.abs));
        for (let i = 0; i < ref.length; i++) {
          expect(Math.abs(r.x[i] - ref[i])).toBeLessThan(tol * scale);
          if (r.im) expect(Math.abs(r.im[i] - 0.5 * ref[i])).toBeLessThan(tol * scale);
        }
        r.S.dispose();
        r.ops.dispose();
      }
    });
  }

  it('fifty solves in a row, each with its own b, each exact (the claim counter and the groups are reset)', async () => {
    const ops = cpuSolverOps(B, B.upload(A3), 'none');
    const S = ops.triangular!(F3.U, { lower: false, unitDiagonal: false, levels: levelSchedule(F3.U, false) });
    const bv = ops.vector();
    const x = ops.vector();
    for (let t = 0; t < 50; t++) {
      const b = rhs(A3.rows, 100 + t);
      bv.view().set(b);
      await S.solve(bv, x);
      expect(Float64Array.from(x.view())).toEqual(substitute(F3.U, b, false, false));
    }
    S.dispose();
    ops.dispose();
  });

  it('IC(0) of a 2-D stencil and random triangles with irregular levels: exact', async () => {
    const P = poisson2D(300);
    const F = ic0(P)!;
    const cases: [CSRMatrix, CSRMatrix, boolean][] = [[P, F.L, true], [P, F.LH, false]];
    for (const seed of [3, 4]) {
      const T = randomLower(40000, 3, seed);
      cases.push([T, T, true]);
    }
    for (const [A, T, lower] of cases) {
      const b = rhs(A.rows, 7);
      const r = await solveOnPath(A, T, lower, false, b);
      expect(r.x).toEqual(substitute(T, b, lower, false));
      r.S.dispose();
      r.ops.dispose();
    }
  });

  it('a T holding both triangles: only its strict triangle and its diagonal are read, split or in one pass; a zero or infinite diagonal is named', async () => {
    const b = rhs(A3.rows, 11);
    for (const [lower, unit] of [[true, false], [false, false], [true, true], [false, true]] as const) {
      const r = await solveOnPath(A3, A3, lower, unit, b);
      expect(r.S.method).toMatch(/^level-scheduled/);
      expect(r.x).toEqual(substitute(A3, b, lower, unit));
      r.S.dispose();
      r.ops.dispose();
    }
    const small = upwind(poisson2D(6), 1);
    for (const [d, what] of [[0, 'zero'], [Infinity, 'not finite']] as const) {
      const values = Float64Array.from(small.values);
      for (let k = small.rowPtr[7]; k < small.rowPtr[8]; k++) if (small.colIdx[k] === 7) values[k] = d;
      const T = new CSRMatrix(small.rows, small.cols, 'f64', small.rowPtr, small.colIdx, values);
      await expect(solveOnPath(small, T, true, false, rhs(small.rows, 1))).rejects.toThrow(`triangular solve: the diagonal entry T[7,7] is ${what}`);
    }
  });

  it('a chain of rows (bidiagonal) has nothing to split: one sequential pass, exact', async () => {
    const n = 100000;
    const T = CSRMatrix.fromTriplets(n, n, 'f64', Int32Array.from({ length: 2 * n - 1 }, (_, k) => (k + 1) >> 1), Int32Array.from({ length: 2 * n - 1 }, (_, k) => (k === 0 ? 0 : k % 2 ? ((k + 1) >> 1) - 1 : k >> 1)), Float64Array.from({ length: 2 * n - 1 }, (_, k) => (k % 2 ? -0.5 : 2)));
    const b = rhs(n, 8);
    const r = await solveOnPath(T, T, true, false, b);
    expect(r.S.method).toBe('sequential (one pass in row order: no units of rows with the work to split over 2 threads)');
    expect(r.x).toEqual(substitute(T, b, true, false));
    r.S.dispose();
    r.ops.dispose();
  });
});

describe('a split solver after its pool is gone', () => {
  it('one thread claims every block in order: the same bits', async () => {
    const C = await CpuBackend.create({ threads: 2 });
    try {
      const A = upwind(poisson3D(24), 2);
      const F = ilu0(A) as IncompleteFactors;
      const ops = cpuSolverOps(C, C.upload(A), 'none');
      const S = ops.triangular!(F.U, { lower: false, unitDiagonal: false, levels: levelSchedule(F.U, false) });
      expect(S.method).toMatch(/^level-scheduled/);
      const b = rhs(A.rows, 9);
      const bv = ops.vector();
      const x = ops.vector();
      bv.view().set(b);
      await C.setThreads(1);
      await S.solve(bv, x);
      expect(Float64Array.from(x.view())).toEqual(substitute(F.U, b, false, false));
      S.dispose();
      ops.dispose();
    } finally {
      C.dispose();
    }
  });
});
