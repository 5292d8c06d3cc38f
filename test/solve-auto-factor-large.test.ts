/**
 * rt.solve's 'auto' and the factorization above DIRECT_MAX_N unknowns: weighed where its Krylov
 * candidate is CG with a one-level preconditioner whose iterations grow with the mesh (a 2-D elasticity
 * stiffness matrix: factorizeAboveCap), not where AMG or Jacobi serve (Poisson, diffusion); and tried
 * once where the Krylov candidates end without an answer — which then makes it A's first choice, or
 * rules it out where it does not answer either. Every answer's true residual is recomputed here
 * (test/solve-reference.ts), never taken from the outcome.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { elasticity2D } from '../src/generators/elasticity.js';
import { diffusion2D } from '../src/generators/diffusion.js';
import { poisson2D } from '../src/generators/poisson.js';
import { stokes2D } from '../src/generators/stokes.js';
import { solveStructure } from '../src/solvers/structure.js';
import { chooseSolve, DIRECT_MAX_N, FACTORIZE_ABOVE_CAP_MAX_NNZ, factorizeAboveCap, sampledRowNotDominant } from '../src/solvers/solve.js';
import { loadShared } from './matrices.js';
import { pointDawnAtSwiftShader } from './webgpu-helpers.js';
import { blockDiagonal, randomRhs, trueResidual } from './solve-reference.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ workers: 2 });
});
afterAll(() => rt.dispose());

const rhs = randomRhs;

describe("'auto' weighs a factorization above DIRECT_MAX_N where CG's one-level preconditioner cannot keep up", () => {
  it('factorizeAboveCap: from the structure, where CG + IC(0) would run — not AMG, Jacobi, the nonsymmetric methods or below the cap', () => {
    const E = solveStructure(elasticity2D(110));
    expect([factorizeAboveCap(E, false), factorizeAboveCap(E, true)]).toEqual([true, true]);
    // below the cap: chooseDirect's own case
    expect(factorizeAboveCap(solveStructure(elasticity2D(90)), false)).toBe(false);
    // diagonally dominant (Jacobi), Laplacian-like with a long diameter (AMG), nonsymmetric (GMRES/BiCGSTAB)
    expect(factorizeAboveCap(solveStructure(diffusion2D({ n: 160, coefficients: 'jumping' })), false)).toBe(false);
    expect(factorizeAboveCap(solveStructure(poisson2D(400)), false)).toBe(false);
    expect(factorizeAboveCap(solveStructure(blockDiagonal(loadShared('west0479'), 50)), false)).toBe(false);
    // nor a saddle point (Stokes: the pressures' diagonal zero), whose MINRES + saddle keeps its iterations
    const S = solveStructure(stokes2D(110));
    expect([S.n > DIRECT_MAX_N, S.zeroDiagonals]).toEqual([true, 110 * 110 - 1]);
    expect(factorizeAboveCap(S, false)).toBe(false);
    // nor a Hermitian indefinite matrix with a nonzero diagonal (MINRES too; LDLᵀ's kernel, up-looking, is not weighed there)
    const P = poisson2D(150);
    const shifted = new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, P.values.map((v, k) => (v === 4 ? -0.5 : v)));
    expect(chooseSolve(solveStructure(shifted), { label: 'any', triangular: true, gpu: false, chebyshevFused: false }, {}).candidates[0].method).toBe('minres');
    expect(factorizeAboveCap(solveStructure(shifted), false)).toBe(false);
    // past FACTORIZE_ABOVE_CAP_MAX_NNZ the orderings would hold the calling thread too long: not planned
    expect(factorizeAboveCap({ ...E, nnz: FACTORIZE_ABOVE_CAP_MAX_NNZ }, false)).toBe(true);
    expect(factorizeAboveCap({ ...E, nnz: FACTORIZE_ABOVE_CAP_MAX_NNZ + 1 }, false)).toBe(false);
  });

  it('sampledRowNotDominant: a look at a few rows that only orders the work (the answer is factorizeAboveCap’s)', () => {
    expect(sampledRowNotDominant(elasticity2D(30))).toBe(true);
    expect(sampledRowNotDominant(poisson2D(60))).toBe(false);
    expect(sampledRowNotDominant(diffusion2D({ n: 40, coefficients: 'anisotropic' }))).toBe(false);
    // one row of 3 not dominant, fewer rows than samples: each row looked at
    const M = new CSRMatrix(3, 3, 'f64', Int32Array.from([0, 1, 3, 4]), Int32Array.from([0, 0, 1, 2]), Float64Array.from([1, 5, 4, 1]));
    expect(sampledRowNotDominant(M)).toBe(true);
    // complex entries by modulus: |3 + 4i| = 5 against 4.9
    const C = new CSRMatrix(2, 2, 'c128', Int32Array.from([0, 2, 3]), Int32Array.from([0, 1, 1]), Float64Array.from([3, 4, 4.9, 0, 1, 0]));
    expect(sampledRowNotDominant(C)).toBe(false);
    const C2 = new CSRMatrix(2, 2, 'c128', Int32Array.from([0, 2, 3]), Int32Array.from([0, 1, 1]), Float64Array.from([3, 4, 5.1, 0, 1, 0]));
    expect(sampledRowNotDominant(C2)).toBe(true);
  });

  it('a 2-D elasticity stiffness matrix above the cap: factorized (once, then its factor kept), the answers meet tol', async () => {
    const A = elasticity2D(110);
    expect(A.rows).toBeGreaterThan(DIRECT_MAX_N);
    const h = rt.upload(A);
    const said = rt.explain('solve', h);
    expect(said.method).toBe('direct');
    expect(said.text).toMatch(/above 20000 unknowns, weighed as its Krylov candidate would be cg \+ ic0/);
    for (const [k, seed] of [1, 2].entries()) {
      const b = rhs(A.rows, seed);
      const r = await rt.solve(h, b);
      expect([r.method, r.converged, r.reused]).toEqual(['direct', true, k === 0 ? undefined : 'factor']);
      expect(trueResidual(A, r.x, b)).toBeLessThanOrEqual(1e-8);
    }
    // a caller's method or preconditioner keeps 'auto' out: CG + IC(0) as asked
    const b = rhs(A.rows, 3);
    const cg = await rt.solve(h, b, { method: 'cg' });
    expect([cg.method, cg.preconditioner, cg.converged]).toEqual(['cg', 'ic0', true]);
    expect(trueResidual(A, cg.x, b)).toBeLessThanOrEqual(1e-8);
    h.dispose();
  });

  it('Laplacian-like and diagonally dominant matrices above the cap stay with AMG or Jacobi, nothing planned', async () => {
    for (const [n, pre] of [[160, 'jacobi'], [300, 'amg']] as const) {
      const D = diffusion2D({ n, coefficients: 'jumping' });
      const h = rt.upload(D);
      const b = rhs(D.rows, 4);
      const r = await rt.solve(h, b, { reuse: false });
      expect([r.method, r.preconditioner, r.converged]).toEqual(['cg', pre, true]);
      expect(trueResidual(D, r.x, b)).toBeLessThanOrEqual(1e-8);
      const text = rt.explain('solve', h).text;
      expect(text).toContain(`no direct factorization: ${D.rows} unknowns > ${DIRECT_MAX_N}`);
      expect(text).not.toMatch(/weighed as its Krylov candidate/);
      h.dispose();
    }
  });
});

describe("'auto' tries A's factorization once where its Krylov candidates end without an answer", () => {
  it('GMRES + ILU(0) stagnates on 50 copies of west0479: the factorization answers, and is A’s first choice from then on', async () => {
    const A = blockDiagonal(loadShared('west0479'), 50);
    expect(A.rows).toBeGreaterThan(DIRECT_MAX_N);
    const h = rt.upload(A);
    const b = rhs(A.rows, 5);
    const r = await rt.solve(h, b);
    expect([r.method, r.converged, r.reused]).toEqual(['direct', true, undefined]);
    expect(r.methodFallback).toMatch(/^gmres \+ ilu0 ended 'stagnated' at a true relative residual of .* after \d+ iterations: A's factorization answered instead/);
    expect(trueResidual(A, r.x, b)).toBeLessThanOrEqual(1e-8);
    expect(rt.explain('solve', h).text).toMatch(/method direct: an earlier solve's Krylov candidates did not answer/);
    // the next solve starts with the kept factor: no Krylov solve first
    const b2 = rhs(A.rows, 6);
    const again = await rt.solve(h, b2);
    expect([again.method, again.reused, again.methodFallback]).toEqual(['direct', 'factor', undefined]);
    expect(trueResidual(A, again.x, b2)).toBeLessThanOrEqual(1e-8);
    h.dispose();
  });

  it('solves running together: each answered by A’s factorization, one settling it for the others', async () => {
    const A = blockDiagonal(loadShared('west0479'), 50);
    const h = rt.upload(A);
    const bs = [9, 10, 11].map((seed) => rhs(A.rows, seed));
    const rs = await Promise.all(bs.map((b) => rt.solve(h, b)));
    rs.forEach((r, i) => {
      expect([r.method, r.converged], `solve ${i}`).toEqual(['direct', true]);
      expect(r.methodFallback, `solve ${i}`).toMatch(/^gmres \+ ilu0 ended 'stagnated'/);
      expect(trueResidual(A, r.x, bs[i]), `solve ${i}`).toBeLessThanOrEqual(1e-8);
    });
    // a factorization made by one at least (two that reach it together both factorize), the rest from the kept factor
    expect(rs.filter((r) => r.reused === undefined).length).toBeGreaterThanOrEqual(1);
    h.dispose();
  });

  it('a caller’s maxIter, method or preconditioner is theirs: no factorization after the Krylov solve', async () => {
    const A = blockDiagonal(loadShared('west0479'), 50);
    const h = rt.upload(A);
    const b = rhs(A.rows, 7);
    for (const o of [{ maxIter: 60 }, { method: 'gmres' as const }, { preconditioner: 'ilu0' as const }]) {
      const r = await rt.solve(h, b, o);
      expect(r.method, JSON.stringify(o)).toBe('gmres');
      expect(r.converged, JSON.stringify(o)).toBe(false);
      expect(r.methodFallback, JSON.stringify(o)).toBeUndefined();
      // honest: the true residual of what it returns, far from tol
      expect(trueResidual(A, r.x, b)).toBeCloseTo(r.relativeResidual, 6);
    }
    h.dispose();
  });

  it('a singular matrix (four copies of rajat01): the factorization fails after the Krylov candidates, is said, and is not tried again', async () => {
    const A = blockDiagonal(loadShared('rajat01'), 4);
    expect(A.rows).toBeGreaterThan(DIRECT_MAX_N);
    const h = rt.upload(A);
    const b = new Float64Array(A.rows).fill(1);
    const r = await rt.solve(h, b);
    expect([r.method, r.converged, r.reason]).toEqual(['gmres', false, 'stagnated']);
    expect(r.methodFallback).toMatch(/A's factorization after it did not answer either \(SingularMatrixError: /);
    expect(trueResidual(A, r.x, b)).toBeCloseTo(r.relativeResidual, 6);
    const again = await rt.solve(h, b);
    expect([again.method, again.reason, again.methodFallback]).toEqual(['gmres', 'stagnated', undefined]);
    expect(rt.explain('solve', h).text).toMatch(/no direct factorization: after an earlier solve's Krylov candidates .* it did not answer either \(SingularMatrixError/);
    h.dispose();
  });
});

describe("'auto' above the cap on the WebGPU path (Dawn + SwiftShader)", () => {
  let gpu: Runtime;
  beforeAll(async () => {
    pointDawnAtSwiftShader();
    gpu = await createRuntime({ backend: 'webgpu', workers: 1 });
  });
  afterAll(() => gpu?.dispose());

  it('a 2-D elasticity stiffness matrix: factorized on the host before any copy of A reaches the GPU', async () => {
    const A = elasticity2D(110);
    const h = gpu.upload(A);
    const b = rhs(A.rows, 8);
    const r = await gpu.solve(h, b);
    expect([r.method, r.path, r.converged]).toEqual(['direct', 'cpu', true]);
    expect(trueResidual(A, r.x, b)).toBeLessThanOrEqual(1e-8);
    // the structure and a sample of rows decided it: no copy of A on any path
    expect(h.copies.size).toBe(0);
    // a Krylov solve asked for runs on the GPU, its copy made then
    const cg = await gpu.solve(h, b, { method: 'cg', maxIter: 5 });
    expect(cg.path).toBe('webgpu');
    expect(h.copies.size).toBe(1);
    h.dispose();
  });
});
