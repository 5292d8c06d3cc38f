/**
 * Sixth adversarial pass, option values of the preconditioners, AMG and the factorization: each bad value
 * is the library's typed error naming the option and showing the value with its type (before: a plain
 * RangeError, and a number given as a string — theta: '0.5', omega: '1.5', pivotTolerance: '0.5' — was
 * compared as a number and silently taken).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { poisson2D } from '../src/generators/poisson.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { InputRangeError, InputTypeError, UnsupportedError } from '../src/errors.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ workers: 2, backend: 'cpu' });
});
afterAll(() => rt.dispose());

type Case = readonly [string, Record<string, unknown>, new (...a: never[]) => Error, RegExp];

const AMG: Case[] = [
  ['theta', { theta: 1 }, InputRangeError, /amg\.theta must be a number in \[0, 1\), got the number 1/],
  ['theta', { theta: '0.5' }, InputTypeError, /amg\.theta must be .*got the string "0\.5"/],
  ['theta', { theta: NaN }, InputRangeError, /amg\.theta .*got the number NaN/],
  ['maxCoarse', { maxCoarse: 0 }, InputRangeError, /amg\.maxCoarse must be an integer in \[1, \d+\], got the number 0/],
  ['maxLevels', { maxLevels: 2.5 }, InputRangeError, /amg\.maxLevels must be an integer in \[1, 32\], got the number 2\.5/],
  ['sweeps', { sweeps: '2' }, InputTypeError, /amg\.sweeps .*got the string "2"/],
  ['blockSize', { blockSize: 17 }, InputRangeError, /amg\.blockSize must be an integer in \[1, 16\]/],
  ['improveCandidates', { improveCandidates: -1 }, InputRangeError, /amg\.improveCandidates/],
  ['smoother', { smoother: 'sor' }, UnsupportedError, /amg\.smoother must be 'jacobi', 'gauss-seidel', 'chebyshev', got the string "sor"/],
  ['cycle', { cycle: 'F' }, UnsupportedError, /amg\.cycle must be 'V', 'W', got the string "F"/],
];

const PRECOND: Case[] = [
  ['omega', { kind: 'ssor', omega: 2 }, InputRangeError, /omega must be a number in \(0, 2\), got the number 2/],
  ['omega', { kind: 'ssor', omega: '1.5' }, InputTypeError, /omega .*got the string "1\.5"/],
  ['blockSize', { kind: 'block-jacobi', blockSize: 0 }, InputRangeError, /blockSize must be an integer in \[1, 64\], got the number 0/],
  ['degree', { kind: 'chebyshev', degree: 33 }, InputRangeError, /degree must be an integer in \[1, 32\], got the number 33/],
  ['degree', { kind: 'chebyshev', degree: null }, InputTypeError, /degree .*got null/],
];

describe('AMG and preconditioner options: typed errors naming the option and the value', () => {
  const h = () => rt.upload(poisson2D(6));
  for (const [name, o, cls, msg] of AMG) {
    it(`rt.amg and rt.preconditioner({ kind: 'amg' }) with ${name} = ${String(Object.values(o)[0])} (${typeof Object.values(o)[0]})`, () => {
      const A = h();
      for (const call of [() => rt.amg(A, o as never), () => rt.preconditioner(A, { kind: 'amg', amg: o as never })]) {
        let err: unknown;
        try { call(); } catch (e) { err = e; }
        expect(err).toBeInstanceOf(cls);
        expect((err as Error).message).toMatch(msg);
        expect((err as { code?: string }).code).toMatch(/^E_/);
      }
    });
  }
  for (const [name, o, cls, msg] of PRECOND) {
    it(`rt.preconditioner with ${name} = ${String(Object.values(o)[1])} (${typeof Object.values(o)[1]})`, () => {
      const A = h();
      let err: unknown;
      try { rt.preconditioner(A, o as never); } catch (e) { err = e; }
      expect(err).toBeInstanceOf(cls);
      expect((err as Error).message).toMatch(msg);
    });
  }
  it('rt.preconditioner without options, or with a number as options: InputTypeError', () => {
    const A = h();
    expect(() => rt.preconditioner(A, undefined as never)).toThrow(InputTypeError);
    expect(() => rt.preconditioner(A, 5 as never)).toThrow(InputTypeError);
    expect(() => rt.amg(A, { theta: 0.1, cycle: 'W', smoother: 'gauss-seidel', sweeps: 2 })).not.toThrow();
  });
  it('rt.factor pivotTolerance: 2 and "0.5" are typed errors; 0.5 factorizes', async () => {
    await expect(rt.factor(poisson2D(3), { pivotTolerance: 2 })).rejects.toThrow(InputRangeError);
    await expect(rt.factor(poisson2D(3), { pivotTolerance: 2 })).rejects.toThrow(/pivotTolerance must be a number in \[0, 1\], got the number 2/);
    await expect(rt.factor(poisson2D(3), { pivotTolerance: '0.5' as never })).rejects.toThrow(InputTypeError);
    const F = await rt.factor(poisson2D(3), { pivotTolerance: 0.5 });
    F.dispose();
  });
  it('createRuntime cacheTiles out of range: InputRangeError (a RangeError with a code)', async () => {
    await expect(createRuntime({ backend: 'cpu', workers: 1, cacheTiles: { rows: 0, cols: 16 } })).rejects.toThrow(InputRangeError);
  });
  it('an options argument that is not an object: InputTypeError (a TypeError with a code)', async () => {
    const A = h();
    let err: unknown;
    try { await rt.cg(A, new Float64Array(36), 5 as never); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(InputTypeError);
    expect((err as Error).message).toMatch(/cg: options must be an object, got number/);
  });
});

describe('AMG on a singular positive semidefinite matrix coarsened to rounding', () => {
  it("1-D Neumann Laplacian, maxCoarse 1: the error does not call A indefinite, names the pivot and says to raise amg.maxCoarse; the default setup solves the consistent system", async () => {
    const n = 30;
    const ptr = [0];
    const col: number[] = [];
    const val: number[] = [];
    for (let i = 0; i < n; i++) {
      if (i > 0) col.push(i - 1), val.push(-1);
      col.push(i), val.push((i > 0 ? 1 : 0) + (i < n - 1 ? 1 : 0));
      if (i < n - 1) col.push(i + 1), val.push(-1);
      ptr.push(col.length);
    }
    const A = rt.upload(new CSRMatrix(n, n, 'f64', Int32Array.from(ptr), Int32Array.from(col), Float64Array.from(val)));
    let err: unknown;
    try { rt.amg(A, { maxCoarse: 1 }); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(UnsupportedError);
    expect((err as Error).message).toMatch(/negative pivot -?\d\.\d\de-\d+ .*indefinite, or singular .*raise amg\.maxCoarse/);
    expect((err as Error).message).not.toMatch(/so A is;/);
    const b = Float64Array.from({ length: n }, (_, i) => Math.sin(i));
    const mean = b.reduce((s, v) => s + v, 0) / n;
    for (let i = 0; i < n; i++) b[i] -= mean;
    const r = await rt.cg(A, b, { preconditioner: rt.amg(A) });
    expect(r.converged).toBe(true);
  });
});
