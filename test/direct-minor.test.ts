/**
 * rt.factor's kind 'auto' on a symmetric matrix skips the supernodal Cholesky where a diagonal entry
 * ≤ 0 or a 2×2 principal minor ≤ 0 proves A not positive definite (its set-up cost more than the failure
 * saved: dwt_992), and keeps it for a definite one; answers against a dense f64 reference. rt.solve's
 * route for dwt_992 (symmetric, singular, indefinite): MINRES + Jacobi, its residual the true one.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { poisson3D } from '../src/generators/poisson.js';
import { parseMatrixMarket } from '../src/io/index.js';
import { NotPositiveDefiniteError, SingularMatrixError } from '../src/errors.js';
import { denseSolve, relDiff, toDense, trueResidual } from './solve-reference.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ workers: 1 });
});
afterAll(() => rt.dispose());

/** poisson3D(9) (729 unknowns: enough flops for the supernodal Cholesky) with a(i, j) = a(j, i) set to v. */
function withPair(i: number, j: number, v: number): CSRMatrix {
  const P = poisson3D(9);
  const values = Float64Array.from(P.values);
  for (const [r, c] of [[i, j], [j, i]]) {
    const k = P.colIdx.subarray(P.rowPtr[r], P.rowPtr[r + 1]).indexOf(c);
    expect(k).toBeGreaterThanOrEqual(0);
    values[P.rowPtr[r] + k] = v;
  }
  return new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, values);
}

describe("kind 'auto' on a symmetric matrix", () => {
  it('a 2×2 principal minor < 0 (|a(1,0)| = 7 > 6 = a(0,0) = a(1,1)): no Cholesky, LDLᵀ or LU solves it', async () => {
    const A = withPair(1, 0, 7);
    expect((rt.estimateFactorCost(A)).flops).toBeGreaterThanOrEqual(1e6);
    await expect(rt.factor(A, { kind: 'cholesky' })).rejects.toBeInstanceOf(NotPositiveDefiniteError);
    const F = await rt.factor(A);
    expect(F.info.kind).not.toBe('cholesky');
    expect(F.info.kindReason).toMatch(/not positive definite \(\|a\(1,0\)\| ≥ √\(a\(1,1\)·a\(0,0\)\)\)/);
    const b = Float64Array.from({ length: A.rows }, (_, i) => Math.sin(i + 1));
    const { x } = await F.solve(b);
    expect(relDiff(x, denseSolve(toDense(A).a, b))).toBeLessThan(1e-10);
    expect(trueResidual(A, x, b)).toBeLessThan(1e-12);
    F.dispose();
  });

  it('a definite matrix (every minor > 0) still takes the Cholesky, a diagonal entry ≤ 0 does not', async () => {
    const F = await rt.factor(poisson3D(9));
    expect(F.info.kind).toBe('cholesky');
    F.dispose();
    const P = poisson3D(9);
    const values = Float64Array.from(P.values);
    values[P.rowPtr[5] + P.colIdx.subarray(P.rowPtr[5], P.rowPtr[6]).indexOf(5)] = -6;
    const A = new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, values);
    const G = await rt.factor(A);
    expect(G.info.kind).not.toBe('cholesky');
    expect(G.info.kindReason).toMatch(/diagonal entry 5 is -6/);
    const b = new Float64Array(A.rows).fill(1);
    expect(relDiff((await G.solve(b)).x, denseSolve(toDense(A).a, b))).toBeLessThan(1e-10);
    G.dispose();
  });
});

describe('dwt_992 (symmetric, positive diagonal, singular, indefinite)', () => {
  const A = parseMatrixMarket(readFileSync(new URL('../data/matrices/dwt_992.mtx', import.meta.url))).matrix.toCSR();
  const b = new Float64Array(A.rows).fill(1);

  it('rt.factor finds it singular (LU)', async () => {
    await expect(rt.factor(A)).rejects.toSatisfy((e: unknown) => e instanceof SingularMatrixError && /LU with partial pivoting/.test(e.message));
  });

  it("rt.solve: MINRES + Jacobi after the singular factor, converged on the true residual", async () => {
    const h = rt.upload(A);
    const r = await rt.solve(h, b, { tol: 1e-8 });
    h.dispose();
    expect(r.method).toBe('minres');
    expect(r.preconditioner).toBe('jacobi');
    expect(r.directFallback).toMatch(/singular/);
    const truth = trueResidual(A, r.x, b);
    expect(Math.abs(r.relativeResidual - truth)).toBeLessThanOrEqual(1e-12);
    expect(r.converged).toBe(true);
    expect(truth).toBeLessThanOrEqual(1e-8);
  });
});
