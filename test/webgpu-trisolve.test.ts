/**
 * The WebGPU path's sparse triangular solves (src/webgpu/trisolve.ts, SolverOps.triangular) in Node on
 * Dawn + SwiftShader, against an f64 JavaScript forward/backward substitution written here: the lower
 * and upper triangles of real SPD matrices (494_bus, bcsstk13 from data/matrices, poisson2D), unit and
 * stored diagonals, f64 (double-single), f32 and c128; level-scheduled and Jacobi sweeps (exact once
 * the sweeps reach the levels, else equal to the same sweeps done in f64 here); the 'auto' choice; the
 * typed errors; and the path's solverOps exposing it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSRMatrix } from '../src/formats/csr.js';
import { ShapeError } from '../src/errors.js';
import type { LevelSchedule } from '../src/solvers/ops.js';
import { chooseTriangular } from '../src/webgpu/trisolve.js';
import { WebGpuPath } from '../src/webgpu/path.js';
import type { WebGpuBackend } from '../src/webgpu/backend.js';
import type { DType } from '../src/dtype.js';
import { loadShared } from './matrices.js';
import { generated, webgpuBackend } from './webgpu-helpers.js';

/** The lower (or upper) triangle of A, diagonal included, or with `unit` the strict triangle (diagonal 1, not stored). */
function triangle(A: CSRMatrix, lower: boolean, unit: boolean): CSRMatrix {
  const ri: number[] = [], ci: number[] = [], v: number[] = [];
  for (let i = 0; i < A.rows; i++) {
    // unit factors: off-diagonals scaled to a row sum of |·| ≤ 1/2, so the factor is well conditioned
    let rowAbs = 0;
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) rowAbs += Math.abs(A.values[k]);
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
      const j = A.colIdx[k];
      if (unit ? j === i : false) continue;
      if (lower ? j <= i : j >= i) {
        ri.push(i); ci.push(j);
        v.push(unit ? A.values[k] / (2 * rowAbs) : A.values[k]);
      }
    }
  }
  return CSRMatrix.fromTriplets(A.rows, A.cols, 'f64', Int32Array.from(ri), Int32Array.from(ci), Float64Array.from(v));
}

/** Levels by the longest dependency chain (row i after every row it reads). */
function levelsOf(T: CSRMatrix, lower: boolean): LevelSchedule {
  const n = T.rows;
  const level = new Int32Array(n);
  const order = lower ? Array.from({ length: n }, (_, i) => i) : Array.from({ length: n }, (_, i) => n - 1 - i);
  let top = 0;
  for (const i of order) {
    let l = 0;
    for (let k = T.rowPtr[i]; k < T.rowPtr[i + 1]; k++) if (T.colIdx[k] !== i) l = Math.max(l, level[T.colIdx[k]] + 1);
    level[i] = l;
    top = Math.max(top, l);
  }
  const levelPtr = new Int32Array(top + 2);
  for (let i = 0; i < n; i++) levelPtr[level[i] + 1]++;
  for (let l = 0; l <= top; l++) levelPtr[l + 1] += levelPtr[l];
  const fill = levelPtr.slice(0, top + 1);
  const rows = new Int32Array(n);
  for (let i = 0; i < n; i++) rows[fill[level[i]]++] = i;
  return { levelPtr, rows };
}

/** Complex helpers over interleaved pairs (real data: im = 0). */
const cmul = (a: number, b: number, c: number, d: number): [number, number] => [a * c - b * d, a * d + b * c];
const cdiv = (a: number, b: number, c: number, d: number): [number, number] => {
  const m = c * c + d * d;
  return [(a * c + b * d) / m, (b * c - a * d) / m];
};

/** x = T⁻¹·b by substitution in f64 (c = 2: complex interleaved). */
function substitute(T: CSRMatrix, b: ArrayLike<number>, lower: boolean, unit: boolean, c: number): Float64Array {
  const n = T.rows;
  const x = new Float64Array(n * c);
  const order = lower ? Array.from({ length: n }, (_, i) => i) : Array.from({ length: n }, (_, i) => n - 1 - i);
  for (const i of order) {
    let re = b[i * c], im = c === 2 ? b[i * c + 1] : 0, dr = 1, di = 0;
    for (let k = T.rowPtr[i]; k < T.rowPtr[i + 1]; k++) {
      const j = T.colIdx[k];
      const vr = T.values[k * c], vi = c === 2 ? T.values[k * c + 1] : 0;
      if (j === i) ((dr = vr), (di = vi));
      else {
        const [pr, pi] = cmul(vr, vi, x[j * c], c === 2 ? x[j * c + 1] : 0);
        re -= pr; im -= pi;
      }
    }
    const [qr, qi] = unit ? [re, im] : cdiv(re, im, dr, di);
    x[i * c] = qr;
    if (c === 2) x[i * c + 1] = qi;
  }
  return x;
}

/** The same number of Jacobi sweeps in f64 from x = D⁻¹b (real data). */
function sweepsRef(T: CSRMatrix, b: ArrayLike<number>, unit: boolean, sweeps: number): Float64Array {
  const n = T.rows;
  const d = new Float64Array(n).fill(1);
  if (!unit) for (let i = 0; i < n; i++) for (let k = T.rowPtr[i]; k < T.rowPtr[i + 1]; k++) if (T.colIdx[k] === i) d[i] = T.values[k];
  let x = Float64Array.from({ length: n }, (_, i) => b[i] / d[i]);
  for (let s = 1; s < sweeps; s++) {
    const y = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      let acc = b[i];
      for (let k = T.rowPtr[i]; k < T.rowPtr[i + 1]; k++) if (T.colIdx[k] !== i) acc -= T.values[k] * x[T.colIdx[k]];
      y[i] = acc / d[i];
    }
    x = y;
  }
  return x;
}

function rhs(n: number, c: number, seed: number): Float64Array {
  let s = seed;
  return Float64Array.from({ length: n * c }, () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32) * 2 - 1);
}

/** max |got − want| / max |want| */
function relErr(got: ArrayLike<number>, want: ArrayLike<number>): number {
  let e = 0, m = 0;
  for (let i = 0; i < want.length; i++) ((e = Math.max(e, Math.abs(got[i] - want[i]))), (m = Math.max(m, Math.abs(want[i]))));
  return e / m;
}

describe('WebGPU triangular solves', () => {
  let be: WebGpuBackend;
  beforeAll(async () => void (be = await webgpuBackend()));
  afterAll(() => be.dispose());

  const BOUND: Record<DType, number> = { f64: 1e-9, c128: 1e-9, f32: 2e-3, c64: 2e-3 };
  async function solveOn(T: CSRMatrix, dt: DType, lower: boolean, unit: boolean, method: 'levels' | 'jacobi' | 'auto', sweeps?: number) {
    const c = dt === 'c128' || dt === 'c64' ? 2 : 1;
    const Td = T.astype(dt);
    const levels = levelsOf(T, lower);
    const b = rhs(T.rows, c, 7);
    const S = be.triangular(Td, { lower, unitDiagonal: unit, levels, method, sweeps });
    const bv = be.vector(dt, b);
    const xv = be.vector(dt, T.rows);
    await S.solve(bv, xv);
    const x = await be.read(xv);
    for (const v of [bv, xv]) v.dispose();
    S.dispose();
    return { x, b, S, Td, levels: levels.levelPtr.length - 1, c };
  }

  const cases: { name: string; A: () => CSRMatrix }[] = [
    { name: 'poisson2D-30', A: () => generated('poisson2D-30') },
    { name: '494_bus', A: () => loadShared('494_bus') },
    { name: 'bcsstk13', A: () => loadShared('bcsstk13') },
  ];
  for (const c of cases) {
    it(`${c.name}: lower and upper, stored and unit diagonals, level-scheduled = substitution (f64 double-single, f32)`, async () => {
      const A = c.A();
      for (const [lower, unit, dt] of [[true, false, 'f64'], [false, false, 'f64'], [true, true, 'f64'], [false, true, 'f32'], [true, false, 'f32']] as const) {
        const T = triangle(A, lower, unit);
        const r = await solveOn(T, dt, lower, unit, 'levels');
        const want = substitute(r.Td.astype('f64'), dt === 'f32' ? Float32Array.from(r.b) : r.b, lower, unit, 1);
        expect({ lower, unit, dt, err: relErr(r.x, want) <= BOUND[dt] }).toEqual({ lower, unit, dt, err: true });
        expect(r.S.method).toBe(`level-scheduled (${r.levels} levels)`);
      }
    });
  }

  it('Jacobi sweeps: exact once they reach the levels, otherwise the same sweeps as in f64', async () => {
    const A = generated('poisson2D-30');
    const T = triangle(A, true, false);
    const nLevels = levelsOf(T, true).levelPtr.length - 1;
    const exact = await solveOn(T, 'f64', true, false, 'jacobi', nLevels);
    expect(relErr(exact.x, substitute(T, exact.b, true, false, 1))).toBeLessThanOrEqual(1e-9);
    expect(exact.S.method).toBe(`Jacobi sweeps (${nLevels}, exact)`);
    for (const sweeps of [1, 2, 7]) {
      const r = await solveOn(T, 'f64', true, false, 'jacobi', sweeps);
      expect(relErr(r.x, sweepsRef(T, r.b, false, sweeps))).toBeLessThanOrEqual(1e-9);
      expect(r.S.method).toBe(`Jacobi sweeps (${sweeps}, approximate: ${nLevels} levels)`);
    }
    const U = triangle(loadShared('494_bus'), false, true);
    const r = await solveOn(U, 'f64', false, true, 'jacobi', 6);
    expect(relErr(r.x, sweepsRef(U, r.b, true, 6))).toBeLessThanOrEqual(1e-9);
  });

  it('complex (c128) level-scheduled and swept solves match substitution', async () => {
    const A = generated('poisson2D-30');
    const T = triangle(A, true, false);
    // complex values: T·(1 + 0.5i) stays triangular with a nonzero diagonal
    const Tc = new CSRMatrix(T.rows, T.cols, 'c128', T.rowPtr, T.colIdx, Float64Array.from({ length: 2 * T.nnz }, (_, k) => T.values[k >> 1] * (k % 2 ? 0.5 : 1)));
    const nLevels = levelsOf(T, true).levelPtr.length - 1;
    for (const [method, sweeps] of [['levels', undefined], ['jacobi', nLevels]] as const) {
      const r = await solveOn(Tc, 'c128', true, false, method, sweeps);
      expect(relErr(r.x, substitute(Tc, r.b, true, false, 2))).toBeLessThanOrEqual(1e-9);
    }
  });

  it("'auto' picks by the cost of levels against sweeps, and says so", async () => {
    const A = generated('poisson2D-30');
    const T = triangle(A, true, false);
    const nLevels = levelsOf(T, true).levelPtr.length - 1;
    const r = await solveOn(T, 'f64', true, false, 'auto');
    const pick = chooseTriangular(T.astype('f64'), nLevels);
    expect(r.S.method.startsWith(pick === 'levels' ? 'level-scheduled' : 'Jacobi sweeps')).toBe(true);
    // few levels: the schedule; very many levels on a small matrix: the sweeps
    expect(chooseTriangular(T, 5)).toBe('levels');
    expect(chooseTriangular(T, 10 * T.rows)).toBe('jacobi');
  });

  it('bad input: a zero pivot, a non-triangular T, a wrong schedule, b = x, a wrong length', async () => {
    const A = generated('poisson2D-30');
    const T = triangle(A, true, false);
    const levels = levelsOf(T, true);
    const Z = new CSRMatrix(T.rows, T.cols, 'f64', T.rowPtr, T.colIdx, Float64Array.from(T.values));
    Z.values[Z.rowPtr[5 + 1] - 1] = 0; // the diagonal of row 5 (last in its sorted row)
    expect(() => be.triangular(Z, { lower: true, unitDiagonal: false, levels })).toThrow(/T\[5, 5\] is 0/);
    expect(() => be.triangular(triangle(A, false, false), { lower: true, unitDiagonal: false, levels })).toThrow(ShapeError);
    const bad = { levelPtr: Int32Array.of(0, T.rows), rows: levels.rows };
    expect(() => be.triangular(T, { lower: true, unitDiagonal: false, levels: bad })).toThrow(/not a level schedule/);
    const S = be.triangular(T, { lower: true, unitDiagonal: false, levels });
    const v = be.vector('f64', T.rows);
    await expect(S.solve(v, v)).rejects.toThrow(ShapeError);
    const short = be.vector('f64', 3);
    await expect(S.solve(short, v)).rejects.toThrow(ShapeError);
    for (const w of [v, short]) w.dispose();
    S.dispose();
  });

  it("the WebGPU path's solverOps offer triangular, in the solve's dtype", async () => {
    const path = new WebGpuPath(be);
    const A = generated('poisson2D-30');
    const M = path.matrix(A, { transpose: false });
    const ops = path.solverOps(M, A, 'none');
    expect(typeof ops.triangular).toBe('function');
    const T = triangle(A, true, false);
    const S = ops.triangular!(T, { lower: true, unitDiagonal: false, levels: levelsOf(T, true) });
    const b = ops.vector();
    const x = ops.vector();
    await S.solve(b, x);
    expect(Array.from(await be.read(x)).every((v) => v === 0)).toBe(true); // b = 0
    S.dispose();
    for (const w of [b, x]) ops.release(w);
    ops.dispose();
    M.dispose();
    // an f32 solve given an f64 factor (a solver layer factors in f64) solves in f32
    const A32 = A.astype('f32');
    const M32 = path.matrix(A32, { transpose: false });
    const ops32 = path.solverOps(M32, A32, 'none');
    const S32 = ops32.triangular!(T, { lower: true, unitDiagonal: false, levels: levelsOf(T, true) });
    const rb = rhs(T.rows, 1, 3);
    const b32 = be.vector('f32', rb);
    const x32 = ops32.vector();
    await S32.solve(b32, x32);
    expect(relErr(await be.read(x32), substitute(T, Float32Array.from(rb), true, false, 1))).toBeLessThanOrEqual(BOUND.f32);
    S32.dispose();
    for (const w of [b32, x32]) w.dispose();
    ops32.dispose();
    M32.dispose();
  });
});
