/**
 * Seventh adversarial pass, every public method against arguments of the wrong kind in each place
 * (undefined, null, numbers, strings, objects, functions, a handle of another kind or of another
 * runtime): each must be a typed error (a `code` E_…), a Promise-returning method must reject (never
 * throw at the call), and nothing may hang. Before: rt.scal(1, A) and rt.nrm2(A) with a matrix
 * handle failed with 'x.on is not a function'; rt.gemm(undefined, B) read undefined's dtype;
 * rt.amg(v) with a resident vector or dense handle, and rt.explain('spmv', x) with anything but a
 * matrix, read its toCSR ('A.toCSR is not a function'); rt.amg(A, null) failed to destructure null;
 * gemm, add and transpose threw a TypeError without a code for a non-dense operand.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { poisson2D } from '../src/generators/poisson.js';
import { DenseMatrix } from '../src/formats/dense.js';
import { InputTypeError } from '../src/errors.js';

let rt: Runtime;
let other: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ workers: 1, backend: 'cpu' });
  other = await createRuntime({ workers: 1, backend: 'cpu' });
});
afterAll(() => {
  rt.dispose();
  other.dispose();
});

describe('arguments of the wrong kind, in every place: typed errors, rejected promises, no hang', () => {
  it('the sweep', async () => {
    const A = rt.upload(poisson2D(3));
    const v = rt.vector(new Float64Array(9).fill(1));
    const D = rt.dense(new DenseMatrix(2, 2, 'f64', new Float64Array(4)));
    const M = rt.preconditioner(A, { kind: 'jacobi' });
    const bads: [string, unknown][] = [
      ['undefined', undefined], ['null', null], ['5', 5], ['"x"', 'x'], ['{}', {}], ['[1, 2]', [1, 2]], ['a function', () => 1],
      ["another runtime's vector", other.vector(new Float64Array(9))], ['5n', 5n], ['a symbol', Symbol('s')], ['NaN', NaN],
      ['a Float32Array', new Float32Array(9)], ['a dense handle', D], ['a resident vector', v], ['a matrix handle', A], ['a preconditioner', M],
    ];
    const P = poisson2D(3);
    const calls: [string, (x: unknown) => unknown][] = [
      ['spmv A', (x) => rt.spmv(x as never, v)], ['spmv x', (x) => rt.spmv(A, x as never)], ['spmv options', (x) => rt.spmv(A, v, x as never)],
      ['spmv y', (x) => rt.spmv(A, v, { y: x as never })], ['spmv alpha', (x) => rt.spmv(A, v, { alpha: x as never })],
      ['axpy alpha', (x) => rt.axpy(x as never, v, v)], ['axpy x', (x) => rt.axpy(1, x as never, v)], ['axpy y', (x) => rt.axpy(1, v, x as never)],
      ['scal', (x) => rt.scal(1, x as never)], ['dot', (x) => rt.dot(v, x as never)], ['dot options', (x) => rt.dot(v, v, x as never)],
      ['nrm2', (x) => rt.nrm2(x as never)], ['copy', (x) => rt.copy(x as never, v)], ['aypx', (x) => rt.aypx(1, v, x as never)],
      ['cg A', (x) => rt.cg(x as never, v)], ['cg b', (x) => rt.cg(A, x as never)], ['cg options', (x) => rt.cg(A, v, x as never)], ['cg x0', (x) => rt.cg(A, v, { x0: x as never })],
      ['cg preconditioner', (x) => rt.cg(A, v, { preconditioner: x as never })], ['cg signal', (x) => rt.cg(A, v, { signal: x as never })],
      ['solve method', (x) => rt.solve(A, v, { method: x as never })], ['solve spd', (x) => rt.solve(A, v, { spd: x as never })], ['solve path', (x) => rt.solve(A, v, { path: x as never })],
      ['gmres restart', (x) => rt.gmres(A, v, { restart: x as never })], ['minres A', (x) => rt.minres(x as never, v)], ['bicgstab b', (x) => rt.bicgstab(A, x as never)],
      ['factor A', (x) => rt.factor(x as never)], ['factor options', (x) => rt.factor(P, x as never)], ['factor kind', (x) => rt.factor(P, { kind: x as never })],
      ['upload', (x) => rt.upload(x as never)], ['upload options', (x) => rt.upload(P, x as never)], ['upload format', (x) => rt.upload(P, { format: x as never })],
      ['vector', (x) => rt.vector(x as never)], ['vector dtype', (x) => rt.vector([1, 2], x as never)], ['dense', (x) => rt.dense(x as never)],
      ['gemm A', (x) => rt.gemm(x as never, D)], ['gemm B', (x) => rt.gemm(D, x as never)], ['gemm options', (x) => rt.gemm(D, D, x as never)], ['gemm C', (x) => rt.gemm(D, D, { C: x as never })],
      ['add', (x) => rt.add(D, x as never)], ['transpose', (x) => rt.transpose(x as never)],
      ['amg A', (x) => rt.amg(x as never)], ['amg options', (x) => rt.amg(A, x as never)], ['preconditioner A', (x) => rt.preconditioner(x as never, { kind: 'jacobi' })],
      ['preconditioner options', (x) => rt.preconditioner(A, x as never)], ['preconditioner kind', (x) => rt.preconditioner(A, { kind: x as never })],
      ['explain op', (x) => rt.explain(x as never, A as never)], ["explain('spmv') A", (x) => rt.explain('spmv', x as never)], ["explain('solve') A", (x) => rt.explain('solve', x as never)],
      ['explain options', (x) => rt.explain('solve', A, x as never)], ['spgemm', (x) => rt.spgemm(A, x as never)], ['estimateFactorCost', (x) => rt.estimateFactorCost(x as never)],
      ['vector write', (x) => v.write(x as never)], ['dense write', (x) => D.write(x as never)], ['setWorkers', (x) => rt.setWorkers(x as never)],
      ['setInlineThreshold', (x) => rt.setInlineThreshold(x as never)], ['setSpin', (x) => rt.setSpin(x as never)], ['gpuBuffer', (x) => v.gpuBuffer(x as never)],
    ];
    const problems: string[] = [];
    const typed = (e: unknown) => typeof (e as { code?: unknown })?.code === 'string' && (e as { code: string }).code.startsWith('E_');
    for (const [name, f] of calls) {
      for (const [bn, b] of bads) {
        let r: unknown;
        try {
          r = f(b);
        } catch (e) {
          if (!typed(e)) problems.push(`${name} with ${bn} threw ${(e as Error)?.name}: ${(e as Error)?.message}`);
          continue;
        }
        if (!(r instanceof Promise)) continue;
        const e = await Promise.race([r.then(() => 'fulfilled', (e: unknown) => e), new Promise((res) => setTimeout(() => res('hang'), 5000))]);
        if (e === 'hang') problems.push(`${name} with ${bn}: no answer in 5 s`);
        else if (e !== 'fulfilled' && !typed(e)) problems.push(`${name} with ${bn} rejected ${(e as Error)?.name}: ${(e as Error)?.message}`);
      }
    }
    expect(problems).toEqual([]);
  });
  it('the messages say what was expected and what came', async () => {
    const A = rt.upload(poisson2D(3));
    const v = rt.vector(new Float64Array(9).fill(1));
    const D = rt.dense(new DenseMatrix(2, 2, 'f64', new Float64Array(4)));
    await expect(rt.scal(1, A as never)).rejects.toThrow(/^scal: x: expected a resident vector from rt\.vector\(\), got a matrix handle$/);
    await expect(rt.nrm2(D as never)).rejects.toThrow(/^nrm2: x: expected a resident vector from rt\.vector\(\), got a dense matrix handle$/);
    expect(() => rt.amg(v as never)).toThrow(/^amg: A: expected a matrix handle from rt\.upload\(\), got a resident vector$/);
    expect(() => rt.amg(A, null as never)).toThrow(InputTypeError);
    expect(() => rt.explain('spmv', D as never)).toThrow(/^explain: A: expected a matrix handle from rt\.upload\(\), got a dense matrix handle$/);
    await expect(rt.gemm(undefined as never, D)).rejects.toThrow(/^gemm: A must be a DenseMatrix or a dense handle from rt\.dense\(\), got undefined$/);
    await expect(rt.add(D, v as never)).rejects.toThrow(InputTypeError);
  });
});
