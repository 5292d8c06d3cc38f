/**
 * The 'saddle' preconditioner (src/solvers/precond/saddle.ts) and rt.solve's 'auto' on symmetric saddle
 * points: its block-diagonal matrix against one computed here from A's dense rows (K's block, and the
 * Schur complement's diagonal Σⱼ bᵢⱼ²/kⱼⱼ), its refusals, MINRES with it on stokes2D meshes of growing
 * size (iterations that hardly grow, where MINRES without it doubles them with the mesh), 'auto' above
 * 20 000 unknowns and on the WebGPU path (Dawn + SwiftShader). Every answer's true residual is
 * recomputed here (test/solve-reference.ts), never taken from the outcome.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { poisson2D } from '../src/generators/poisson.js';
import { stokes2D } from '../src/generators/stokes.js';
import { saddleBlockMatrix, saddleTriangularMatrices } from '../src/solvers/precond/saddle.js';
import { UnsupportedError } from '../src/errors.js';
import { pointDawnAtSwiftShader } from './webgpu-helpers.js';
import { loadShared } from './matrices.js';
import { randomRhs, toDense, trueResidual } from './solve-reference.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ workers: 2 });
});
afterAll(() => rt.dispose());

const rhs = randomRhs;

describe('the saddle preconditioner', () => {
  it('its matrix: K where both unknowns have a nonzero diagonal, the Schur diagonal on each constraint, nothing else', () => {
    for (const N of [5, 8]) {
      const A = stokes2D(N);
      const { a } = toDense(A);
      const n = A.rows;
      const K = (i: number) => a[i][i] !== 0;
      const want = Array.from({ length: n }, (_, i) =>
        Float64Array.from({ length: n }, (_, j) => (K(i) ? (K(j) ? a[i][j] : 0) : i === j ? a[i].reduce((s, v, q) => s + (K(q) ? (v * v) / a[q][q] : 0), 0) : 0)),
      );
      const { M, constraints } = saddleBlockMatrix(A);
      expect(constraints).toBe(N * N - 1);
      const got = toDense(M).a;
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) expect(got[i][j], `M[${i},${j}]`).toBeCloseTo(want[i][j], 14);
      expect(M.nnz).toBe(want.reduce((s, r) => s + r.filter((v) => v !== 0).length, 0));
    }
  });

  it('refuses what is no symmetric saddle point with a definite K: a typed error naming why', async () => {
    expect(() => saddleBlockMatrix(poisson2D(4))).toThrow(/no zero diagonal entry/);
    // a negative diagonal in K
    const P = poisson2D(4);
    const neg = new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, P.values.map((v, k) => (k === 0 ? -4 : v)));
    expect(() => saddleBlockMatrix(neg)).toThrow(/A\[0,0\] is -4/);
    // a constraint coupled to nothing
    const lone = CSRMatrix.fromTriplets(3, 3, 'f64', Int32Array.from([0, 1]), Int32Array.from([0, 1]), Float64Array.from([2, 3]));
    expect(() => saddleBlockMatrix(lone)).toThrow(/constraint row 2 couples to no unknown of K/);
    expect(() => saddleBlockMatrix(stokes2D(4).astype('c128'))).toThrow(UnsupportedError);
    // AMG of a saddle point names the kind that serves it
    const s = rt.upload(stokes2D(10));
    expect(() => rt.preconditioner(s, { kind: 'amg' })).toThrow(/use 'saddle' \(A is a symmetric saddle point: 99 zero diagonal entries\)/);
    s.dispose();
    // through the API: the same refusals, typed; a nonsymmetric A (west0479) too
    for (const A of [poisson2D(6), loadShared('west0479')]) {
      const h = rt.upload(A);
      expect(() => rt.preconditioner(h, { kind: 'saddle' })).toThrow(UnsupportedError);
      h.dispose();
    }
  });

  it('MINRES with it on stokes2D(20…80): iterations that hardly grow, where MINRES alone doubles them with the mesh', async () => {
    const its: number[] = [];
    const none: number[] = [];
    for (const N of [20, 40, 80]) {
      const A = stokes2D(N);
      const h = rt.upload(A);
      const b = rhs(A.rows, N);
      const M = rt.preconditioner(h, { kind: 'saddle' });
      expect(M.description).toMatch(/^saddle \(block diagonal: the \d+ unknowns with a nonzero diagonal by amg .*the \d+ constraints by the Schur complement's diagonal\)$/);
      expect(M.amg?.levels.length).toBeGreaterThan(1);
      const r = await rt.minres(h, b, { preconditioner: M, tol: 1e-8 });
      expect(r.converged).toBe(true);
      expect(trueResidual(A, r.x, b)).toBeLessThanOrEqual(1e-8);
      its.push(r.iterations);
      none.push((await rt.minres(h, b, { tol: 1e-8 })).iterations);
      M.dispose();
      h.dispose();
    }
    // 4× the unknowns each step: MINRES alone ×≈2, with the block preconditioner ×≤ 1.25
    expect(none[2] / none[1]).toBeGreaterThan(1.7);
    expect(its[2] / its[1]).toBeLessThan(1.25);
    expect(its[2]).toBeLessThan(none[2] / 5);
  });
});

describe("rt.solve's 'auto' on a symmetric saddle point", () => {
  it('from 6000 unknowns below the cap too, where its LU costs more: no factorization planned', async () => {
    const A = stokes2D(60);
    expect(A.rows).toBe(10679);
    const h = rt.upload(A);
    const e = rt.explain('solve', h);
    expect([e.method, e.preconditioner, e.direct]).toEqual(['minres', 'saddle', undefined]);
    expect(e.text).toContain('no direct factorization: a symmetric saddle point of 10679 ≥ 6000 unknowns');
    const b = rhs(A.rows, 2);
    const r = await rt.solve(h, b);
    expect([r.method, r.preconditioner, r.converged]).toEqual(['minres', 'saddle', true]);
    expect(trueResidual(A, r.x, b)).toBeLessThanOrEqual(1e-8);
    h.dispose();
    // a smaller one is factorized (stokes2D(40): 4719 unknowns; test/direct-saddle.test.ts)
    const s = rt.upload(stokes2D(40));
    expect(rt.explain('solve', s).method).toBe('direct');
    s.dispose();
  });

  it('above 20 000 unknowns: MINRES + saddle (no factorization weighed), and explain says why', async () => {
    const A = stokes2D(110);
    const h = rt.upload(A);
    const e = rt.explain('solve', h);
    expect([e.method, e.preconditioner]).toEqual(['minres', 'saddle']);
    expect(e.text).toMatch(/preconditioner saddle: A is a symmetric saddle point \(12099 zero diagonal entries: constraints\)/);
    const b = rhs(A.rows, 3);
    const r = await rt.solve(h, b);
    expect([r.method, r.preconditioner, r.converged]).toEqual(['minres', 'saddle', true]);
    expect(r.iterations).toBeLessThan(150);
    expect(trueResidual(A, r.x, b)).toBeLessThanOrEqual(1e-8);
    // kept with A: the next right-hand side reuses the hierarchy
    const b2 = rhs(A.rows, 4);
    const again = await rt.solve(h, b2);
    expect([again.reused, again.converged]).toEqual(['preconditioner', true]);
    expect(trueResidual(A, again.x, b2)).toBeLessThanOrEqual(1e-8);
    h.dispose();
  });

  it('a Stokes matrix without its pressure pinned (singular): answered where b is in its range, converged: false where it is not (below the cap: factorized first)', async () => {
    // the pinned matrix with one more pressure row and column, B's constant pressure mode (Bᵀ·1 = 0) back
    const N = 40;
    const P = stokes2D(N);
    const n = P.rows + 1;
    const r: number[] = [];
    const c: number[] = [];
    const v: number[] = [];
    for (let i = 0; i < P.rows; i++) for (let k = P.rowPtr[i]; k < P.rowPtr[i + 1]; k++) r.push(i), c.push(P.colIdx[k]), v.push(P.values[k]);
    // the last cell (N − 1, N − 1): its left face u(N − 1, N − 1) and bottom face v(N − 1, N − 1)
    const u = (N - 2) * N + N - 1;
    const w = (N - 1) * N + (N - 1) * (N - 1) + N - 2;
    for (const f of [u, w]) r.push(n - 1, f), c.push(f, n - 1), v.push(-1, -1);
    const A = CSRMatrix.fromTriplets(n, n, 'f64', Int32Array.from(r), Int32Array.from(c), Float64Array.from(v));
    const h = rt.upload(A);
    // b = A·x for a random x: in A's range (orthogonal to the constant pressure); an answer, by whichever method
    const x0 = rhs(n, 8);
    const b = new Float64Array(n);
    for (let i = 0; i < n; i++) for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) b[i] += A.values[k] * x0[A.colIdx[k]];
    const s = await rt.solve(h, b, { reuse: false });
    expect(s.converged).toBe(true);
    expect(trueResidual(A, s.x, b)).toBeLessThanOrEqual(1e-8);
    // plus a constant pressure: no x solves it, and none is claimed
    const bad = Float64Array.from(b, (t, i) => (i >= 2 * (N - 1) * N ? t + 1 : t));
    const f = await rt.solve(h, bad, { reuse: false });
    expect(f.converged).toBe(false);
    expect(trueResidual(A, f.x, bad)).toBeGreaterThan(1e-8);
    h.dispose();
  });

});

describe('nonsymmetric saddle points (the Oseen equations): the block-triangular saddle preconditioner', () => {
  it('its matrices: F’s symmetric part and |s| for the cycle, the identity and aᵢⱼ/sⱼ for the velocity right-hand side, −1/s for the constraints', () => {
    for (const [N, wind] of [[5, [3, -2]], [7, [-30, 8]]] as const) {
      const A = stokes2D(N, { wind });
      const { a } = toDense(A);
      const n = A.rows;
      const F = (i: number) => a[i][i] !== 0;
      // the Schur complement's diagonal of B₂·diag(F)⁻¹·B₁ᵀ, from A's dense rows
      const s = a.map((row, i) => (F(i) ? 0 : row.reduce((t, v, q) => t + (F(q) ? (v * a[q][i]) / a[q][q] : 0), 0)));
      const want = {
        M: (i: number, j: number) => (F(i) ? (F(j) ? (a[i][j] + a[j][i]) / 2 : 0) : i === j ? Math.abs(s[i]) : 0),
        T: (i: number, j: number) => (F(i) ? (i === j ? 1 : F(j) ? 0 : a[i][j] / s[j]) : 0),
        Z: (i: number, j: number) => (!F(i) && i === j ? -1 / s[i] : 0),
      };
      const got = saddleTriangularMatrices(A);
      expect(got.constraints).toBe(N * N - 1);
      for (const k of ['M', 'T', 'Z'] as const) {
        const g = toDense(got[k]).a;
        let stored = 0;
        for (let i = 0; i < n; i++) {
          for (let j = 0; j < n; j++) {
            const w = want[k](i, j);
            expect(g[i][j], `${k}[${i},${j}]`).toBeCloseTo(w, 13);
            if (w !== 0) stored++;
          }
        }
        expect(got[k].nnz, k).toBe(stored);
      }
    }
  });

  it('refuses a nonsymmetric matrix that is no saddle point (west0479: negative diagonal entries), typed; AMG refuses the Oseen matrix itself', () => {
    const W = loadShared('west0479');
    expect(() => saddleTriangularMatrices(W)).toThrow(/saddle: the diagonal entry A\[\d+,\d+\] is -[\d.e+-]+; its block F must have a positive diagonal, use 'ilu0'/);
    const h = rt.upload(W);
    expect(() => rt.preconditioner(h, { kind: 'saddle' })).toThrow(UnsupportedError);
    // 'auto' does not take it for a saddle point: GMRES + ILU(0), as before
    expect(rt.explain('solve', h).fallbacks[0]).toMatchObject({ method: 'gmres', preconditioner: 'ilu0' });
    h.dispose();
    expect(() => saddleTriangularMatrices(poisson2D(4))).toThrow(/no zero diagonal entry/);
    // a constraint in B₂ whose column holds nothing (B₁ᵀ empty there): no Schur diagonal, A singular
    const oneSided = CSRMatrix.fromTriplets(3, 3, 'f64', Int32Array.from([0, 0, 1, 2]), Int32Array.from([0, 1, 1, 0]), Float64Array.from([2, 1, 3, 1]));
    expect(() => saddleTriangularMatrices(oneSided)).toThrow(/saddle: constraint row 2 couples to no unknown of F through both blocks \(its Schur diagonal is 0\)/);
    expect(() => saddleTriangularMatrices(stokes2D(4, { wind: [1, 1] }).astype('c128'))).toThrow(UnsupportedError);
  });

  it('BiCGSTAB with it on stokes2D(20…80, wind [10, 10]): iterations that hardly grow, where GMRES + ILU(0) needs hundreds more', async () => {
    const its: number[] = [];
    for (const N of [20, 40, 80]) {
      const A = stokes2D(N, { wind: [10, 10] });
      const h = rt.upload(A);
      const b = rhs(A.rows, N);
      const M = rt.preconditioner(h, { kind: 'saddle' });
      expect(M.description).toMatch(/^saddle \(block triangular: the \d+ unknowns with a nonzero diagonal by amg .* of their block's symmetric part, the \d+ constraints by the Schur complement's diagonal\)$/);
      const r = await rt.bicgstab(h, b, { preconditioner: M, tol: 1e-8 });
      expect(r.converged).toBe(true);
      expect(trueResidual(A, r.x, b)).toBeLessThanOrEqual(1e-8);
      its.push(r.iterations);
      if (N === 80) {
        const ilu = await rt.gmres(h, b, { preconditioner: 'ilu0', tol: 1e-8, maxIter: 20 * r.iterations });
        expect(ilu.iterations).toBeGreaterThan(5 * r.iterations);
      }
      M.dispose();
      h.dispose();
    }
    // 4× the unknowns each step
    expect(its[2] / its[1]).toBeLessThan(1.3);
    expect(its[2]).toBeLessThan(150);
  });

  it("'auto' above the cap: BiCGSTAB + saddle, and explain says why; below it the LU under the maximum transversal", async () => {
    const A = stokes2D(110, { wind: [10, 10] });
    expect(A.rows).toBe(36079);
    const h = rt.upload(A);
    const e = rt.explain('solve', h);
    expect([e.method, e.preconditioner]).toEqual(['bicgstab', 'saddle']);
    expect(e.text).toMatch(/method bicgstab: a nonsymmetric saddle point with the block-triangular saddle preconditioner/);
    expect(e.text).toMatch(/preconditioner saddle: A is a nonsymmetric saddle point \(12099 zero diagonal entries: constraints; the other diagonal entries positive\)/);
    const b = rhs(A.rows, 3);
    const r = await rt.solve(h, b);
    expect([r.method, r.preconditioner, r.converged]).toEqual(['bicgstab', 'saddle', true]);
    expect(trueResidual(A, r.x, b)).toBeLessThanOrEqual(1e-8);
    h.dispose();
    const s = rt.upload(stokes2D(40, { wind: [10, 10] }));
    const d = rt.explain('solve', s);
    expect([d.method, d.direct?.ordering, d.fallbacks[0]]).toEqual(['direct', 'btf', { method: 'bicgstab', preconditioner: 'saddle', maxIter: 400 }]);
    s.dispose();
  });

  it('a strongly convective flow (wind [300, 300]) that the symmetric part’s cycle serves poorly: the factorization after 400 iterations; without room for one, BiCGSTAB goes on', async () => {
    const A = stokes2D(110, { wind: [300, 300] });
    const b = rhs(A.rows, 6);
    const h = rt.upload(A);
    const r = await rt.solve(h, b);
    expect([r.method, r.converged]).toEqual(['direct', true]);
    expect(r.methodFallback).toMatch(/^bicgstab \+ saddle ended '(maxIter|breakdown)' at a true relative residual of .* after \d+ iterations: A's factorization answered instead/);
    expect(trueResidual(A, r.x, b)).toBeLessThanOrEqual(1e-8);
    h.dispose();
    // a memory budget whose half the factor passes: no factorization, the same BiCGSTAB on past the bound,
    // and whatever it ends with said as it is
    const small = await createRuntime({ workers: 2, maxMemoryMB: 64 });
    try {
      const s = small.upload(A);
      const g = await small.solve(s, b);
      expect([g.method, g.preconditioner]).toEqual(['bicgstab', 'saddle']);
      expect(g.iterations).toBeGreaterThan(400);
      expect(g.methodFallback).toMatch(/bicgstab \+ saddle went on from its iterate after 'auto''s 400 iterations \(no factorization of A to take over\)/);
      const truth = trueResidual(A, g.x, b);
      if (g.converged) expect(truth).toBeLessThanOrEqual(1e-8);
      else expect(truth).toBeGreaterThan(1e-8);
    } finally {
      small.dispose();
    }
  });
});

describe('f32 saddle points to a tolerance below f32’s reach', () => {
  it.each([
    ['a Stokes matrix: MINRES + saddle', 60, undefined, 'minres', 5],
    ['an Oseen matrix (wind [10, 10]): BiCGSTAB + saddle', 110, [10, 10], 'bicgstab', 11],
  ] as const)('f32, to 1e-10: %s in f32, refined in f64 to the tolerance', async (_, N, wind, method, seed) => {
    const A = (wind ? stokes2D(N, { wind }) : stokes2D(N)).astype('f32');
    const h = rt.upload(A);
    const b = rhs(A.rows, seed);
    const r = await rt.solve(h, b, { tol: 1e-10 });
    expect([r.method, r.preconditioner, r.converged]).toEqual([method, 'saddle', true]);
    expect(r.refinements).toBeGreaterThan(0);
    expect(trueResidual(A, r.x, b)).toBeLessThanOrEqual(1e-10);
    h.dispose();
  });
});

describe('the saddle preconditioner on the WebGPU path (Dawn + SwiftShader)', () => {
  let gpu: Runtime;
  beforeAll(async () => {
    pointDawnAtSwiftShader();
    gpu = await createRuntime({ backend: 'webgpu', workers: 1 });
  });
  afterAll(() => gpu?.dispose());

  it.each([
    ['MINRES + saddle (block diagonal) on stokes2D(24): the iterations the CPU pool takes ± 2', 'minres', undefined, 9, 2],
    ['BiCGSTAB + saddle (block triangular) on stokes2D(24, wind [10, 10]): the iterations the CPU pool takes ± 3', 'bicgstab', [10, 10], 10, 3],
  ] as const)('%s, the cycle on the GPU, the answer to tol', async (_, method, wind, seed, within) => {
    const A = wind ? stokes2D(24, { wind }) : stokes2D(24);
    const b = rhs(A.rows, seed);
    const h = gpu.upload(A);
    const r = await gpu.solve(h, b, { method, preconditioner: 'saddle', tol: 1e-8 });
    expect([r.path, r.converged]).toEqual(['webgpu', true]);
    expect(trueResidual(A, r.x, b)).toBeLessThanOrEqual(1e-8);
    const c = rt.upload(A);
    const onCpu = await rt.solve(c, b, { method, preconditioner: 'saddle', tol: 1e-8 });
    expect(onCpu.converged).toBe(true);
    expect(Math.abs(r.iterations - onCpu.iterations)).toBeLessThanOrEqual(within);
    c.dispose();
    h.dispose();
  });
});
