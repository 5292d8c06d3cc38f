/**
 * Seventh adversarial pass, typed behaviour at the edges of the API. Before: rt.cg(A, b, 5), an unknown
 * option key and the other option checks of the solves threw synchronously from a function that
 * returns a Promise (a caller's `.catch()` never saw them); a handle of a disposed runtime passed to
 * another runtime was E_FOREIGN ("belongs to another runtime": the caller went looking for a second
 * runtime, not for the dispose()); a preconditioner disposed during a solve failed it with an
 * internal level's name ("dia matrix was used after dispose()", "vector was used …").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { poisson2D } from '../src/generators/poisson.js';
import { DisposedError, InputRangeError, InputTypeError, OptionError } from '../src/errors.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ workers: 2, backend: 'cpu' });
});
afterAll(() => rt.dispose());

/** What calling f did: threw at once, or returned a promise. */
function call(f: () => unknown): { threw: unknown } | { promise: Promise<unknown> } {
  try {
    return { promise: f() as Promise<unknown> };
  } catch (e) {
    return { threw: e };
  }
}

describe('the solves reject their option errors (never throw from a function returning a Promise)', () => {
  const A = () => rt.upload(poisson2D(4));
  const b = new Float64Array(16).fill(1);
  const methods = ['cg', 'bicgstab', 'gmres', 'minres', 'solve'] as const;
  const bad: [string, unknown, new (...a: never[]) => Error, RegExp][] = [
    ['a number as options', 5, InputTypeError, /options must be an object, got number/],
    ['an unknown key', { tol: 1e-6, tolerance: 1e-3 }, OptionError, /tolerance/],
    ['tol out of range', { tol: -1 }, InputRangeError, /tol must be a finite number ≥ 0, got the number -1/],
    ['onIteration not a function', { onIteration: 5 }, InputTypeError, /onIteration must be a function/],
  ];
  for (const m of methods) {
    for (const [what, o, cls, msg] of bad) {
      it(`rt.${m} with ${what}`, async () => {
        const r = call(() => rt[m](A(), b, o as never));
        expect('promise' in r, `rt.${m} threw synchronously: ${'threw' in r ? String(r.threw) : ''}`).toBe(true);
        const err = await (r as { promise: Promise<unknown> }).promise.then(() => null, (e: unknown) => e);
        expect(err).toBeInstanceOf(cls);
        expect((err as Error).message).toMatch(new RegExp(`^${m}: `));
        expect((err as Error).message).toMatch(msg);
      });
    }
  }
  it('a b of the wrong length or a disposed A: rejected too', async () => {
    const h = A();
    for (const m of methods) {
      const r = call(() => rt[m](h, new Float64Array(3)));
      expect('promise' in r).toBe(true);
      await expect((r as { promise: Promise<unknown> }).promise).rejects.toThrow(/b has length 3, expected 16/);
    }
    h.dispose();
    for (const m of methods) {
      const r = call(() => rt[m](h, b));
      expect('promise' in r).toBe(true);
      await expect((r as { promise: Promise<unknown> }).promise).rejects.toThrow(DisposedError);
    }
  });
});

describe('handles of a disposed runtime given to another: DisposedError, not E_FOREIGN', () => {
  it('A, b, x0 and a preconditioner each say they were disposed (and are another runtime’s)', async () => {
    const gone = await createRuntime({ workers: 1, backend: 'cpu' });
    const A2 = gone.upload(poisson2D(4));
    const M2 = gone.preconditioner(A2, { kind: 'jacobi' });
    const v2 = gone.vector(new Float64Array(16).fill(1));
    gone.dispose();
    const A = rt.upload(poisson2D(4));
    const b = new Float64Array(16).fill(1);
    const cases: [string, () => Promise<unknown>, RegExp][] = [
      ['A', () => rt.cg(A2, b), /^cg: A \(a handle of another runtime\) was used after dispose\(\)/],
      ['b', () => rt.cg(A, v2), /^cg: b \(a handle of another runtime\)/],
      ['x0', () => rt.cg(A, b, { x0: v2 }), /^cg: x0 \(a handle of another runtime\)/],
      ['preconditioner', () => rt.cg(A, b, { preconditioner: M2 }), /^cg: preconditioner \(a handle of another runtime\)/],
      ['spmv x', () => rt.spmv(A, v2), /^spmv: x \(a handle of another runtime\)/],
      ['axpy', () => rt.axpy(1, v2, rt.vector(b)), /^axpy: x \(a handle of another runtime\)/],
    ];
    for (const [what, f, msg] of cases) {
      const err = await f().then(() => null, (e: unknown) => e);
      expect(err, what).toBeInstanceOf(DisposedError);
      expect((err as Error).message, what).toMatch(msg);
    }
    // a live handle of another runtime is still E_FOREIGN
    const other = await createRuntime({ workers: 1, backend: 'cpu' });
    await expect(rt.cg(other.upload(poisson2D(4)), b)).rejects.toThrow(/^cg: A belongs to another runtime/);
    other.dispose();
  });
});

describe('a preconditioner disposed during a solve', () => {
  for (const kind of ['amg', 'ic0', 'ilu0', 'ssor', 'block-jacobi'] as const) {
    it(`${kind}: the solve rejects with DisposedError naming the ${kind} preconditioner; the matrix solves on`, async () => {
      const A = rt.upload(poisson2D(24));
      const b = Float64Array.from({ length: A.rows }, (_, i) => Math.sin(i) + 1);
      const M = kind === 'amg' ? rt.amg(A) : rt.preconditioner(A, { kind });
      const err = await rt
        .cg(A, b, { preconditioner: M, tol: 1e-12, onIteration: (k) => { if (k === 2) M.dispose(); } })
        .then(() => null, (e: unknown) => e);
      expect(err).toBeInstanceOf(DisposedError);
      expect((err as Error).message).toBe(`${kind} preconditioner was used after dispose()`);
      const r = await rt.cg(A, b, { preconditioner: 'jacobi', tol: 1e-10 });
      expect(r.converged).toBe(true);
    });
  }
});

describe('A disposed during a solve', () => {
  it("each method rejects with DisposedError naming A, not its freed copy ('csr matrix was used after dispose()'): an uploaded matrix and rt.spgemm's product", async () => {
    const P = rt.upload(poisson2D(12));
    for (const make of [() => rt.upload(poisson2D(12)), () => rt.spgemm(P, P)]) {
      for (const method of ['cg', 'bicgstab', 'gmres', 'minres', 'solve'] as const) {
        for (const last of [1, 3]) {
          const A = make();
          const b = Float64Array.from({ length: A.rows }, (_, i) => Math.sin(i) + 1);
          const o = { maxIter: last, tol: 1e-14, onIteration: (k: number) => { if (k === last) A.dispose(); } };
          const err = await (method === 'solve' ? rt.solve(A, b, { ...o, method: 'cg' }) : rt[method](A, b, o)).then(() => null, (e: unknown) => e);
          expect(err, `${method}, disposed at iteration ${last}`).toBeInstanceOf(DisposedError);
          expect((err as Error).message).toBe(`${method}: A (disposed during the solve) was used after dispose()`);
        }
      }
    }
  });
});
