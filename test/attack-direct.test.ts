/**
 * Attack on the direct solver's edges: non-finite values in A, a signal fired before the solve, and a
 * refactor that meets a matrix the kind 'auto' chose for the first one cannot factorize. Each outcome
 * must say what happened (docs/solvers.md "Bad input", docs/errors.md), never a misleading error or label.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { poisson2D } from '../src/generators/poisson.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { InputRangeError, NotPositiveDefiniteError } from '../src/errors.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ workers: 2, backend: 'cpu' });
});
afterAll(() => rt.dispose());

/** poisson2D(6) with the value at (row, col) replaced (the pattern stays; the entry must be stored). */
function withValue(row: number, col: number, v: number): CSRMatrix {
  const P = poisson2D(6);
  const values = Float64Array.from(P.values);
  const k = P.rowPtr[row] + [...P.colIdx.subarray(P.rowPtr[row], P.rowPtr[row + 1])].indexOf(col);
  expect(P.colIdx[k]).toBe(col);
  values[k] = v;
  return new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, values);
}

describe('direct factorization of a matrix holding NaN or ±Inf', () => {
  const cases: [string, number, number, number][] = [
    ['NaN on the diagonal', 7, 7, NaN],
    ['NaN off the diagonal', 7, 8, NaN],
    ['Infinity off the diagonal', 13, 7, Infinity],
    ['-Infinity on the diagonal', 20, 20, -Infinity],
  ];
  for (const [what, row, col, v] of cases) {
    it(`${what}: rt.factor names the value, row and column; rt.solve 'direct' ends 'nan'`, async () => {
      const A = withValue(row, col, v);
      for (const kind of ['auto', 'lu', 'cholesky', 'ldlt'] as const) {
        // a symmetric kind refuses an A that is no longer symmetric (NaN ≠ NaN) before its values matter
        if (kind !== 'auto' && kind !== 'lu' && row !== col) continue;
        const err = await rt.factor(A, { kind }).then(() => null, (e: unknown) => e);
        expect(err, `kind ${kind}`).toBeInstanceOf(InputRangeError);
        const m = (err as Error).message;
        expect(m, `kind ${kind}`).toContain(`row ${row}, column ${col}`);
        expect(m).toContain(String(v));
      }
      const b = new Float64Array(A.rows).fill(1);
      const h = rt.upload(A);
      const r = await rt.solve(h, b, { method: 'direct' });
      expect(r.method).toBe('direct');
      expect(r.reason).toBe('nan');
      expect(r.converged).toBe(false);
      expect(r.preconditionerDetail).toContain(`row ${row}, column ${col}`);
      // 'auto' (which would factorize this small matrix) moves on to the Krylov methods, which end 'nan' too
      const auto = await rt.solve(h, b);
      expect(auto.reason).toBe('nan');
      expect(auto.directFallback).toContain(`row ${row}, column ${col}`);
      h.dispose();
    });
  }

  it('refactor with a NaN names it too, and the factorization stays unusable until a good refactor', async () => {
    const P = poisson2D(6);
    const F = await rt.factor(P);
    await expect(F.refactor(withValue(3, 3, NaN))).rejects.toThrow(/NaN at row 3, column 3/);
    await F.refactor(P);
    const b = new Float64Array(P.rows).fill(1);
    expect((await F.solve(b)).relativeResidual).toBeLessThan(1e-12);
    F.dispose();
  });
});

describe("rt.solve method 'direct' with a signal fired before it starts", () => {
  it("ends 'aborted' as the Krylov methods do, labelled 'direct', x0 (or 0) as its answer", async () => {
    const P = poisson2D(6);
    const h = rt.upload(P);
    const b = new Float64Array(P.rows).fill(1);
    const stop = new AbortController();
    stop.abort();
    const cg = await rt.cg(h, b, { signal: stop.signal });
    expect(cg.reason).toBe('aborted');
    const r = await rt.solve(h, b, { method: 'direct', signal: stop.signal });
    expect(r.method).toBe('direct');
    expect(r.reason).toBe('aborted');
    expect(r.converged).toBe(false);
    expect(r.iterations).toBe(0);
    expect(Array.from(r.x)).toEqual(Array.from(cg.x));
    expect(r.residualNorm).toBe(cg.residualNorm);
    const x0 = new Float64Array(P.rows).fill(0.5);
    const r0 = await rt.solve(h, b, { method: 'direct', signal: stop.signal, x0 });
    const cg0 = await rt.cg(h, b, { signal: stop.signal, x0 });
    expect(Array.from(r0.x)).toEqual(Array.from(x0));
    // the true residual of x0, as CG reports it (computed here in plain f64)
    let s = 0;
    for (let i = 0; i < P.rows; i++) {
      let ax = 0;
      for (let k = P.rowPtr[i]; k < P.rowPtr[i + 1]; k++) ax += P.values[k] * x0[P.colIdx[k]];
      s += (b[i] - ax) ** 2;
    }
    expect(r0.residualNorm).toBeCloseTo(Math.sqrt(s), 12);
    expect(r0.residualNorm).toBeCloseTo(cg0.residualNorm, 12);
    h.dispose();
  });
});

describe("refactor after kind 'auto' chose Cholesky, with an indefinite A2", () => {
  it("throws NotPositiveDefiniteError naming the column and saying what a new 'auto' factor would pick", async () => {
    const P = poisson2D(6);
    const F = await rt.factor(P);
    expect(F.info.kind).toBe('cholesky');
    const A2 = withValue(10, 10, -4);
    const err = await F.refactor(A2).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(NotPositiveDefiniteError);
    const e = err as NotPositiveDefiniteError;
    expect(e.message).toContain(`column ${e.column}`);
    expect(e.message).toMatch(/new rt\.factor.*'auto'.*LDLᵀ/);
    // and that is what a new factorization does
    const G = await rt.factor(A2);
    expect(G.info.kind).not.toBe('cholesky');
    G.dispose();
    F.dispose();
  });
});
