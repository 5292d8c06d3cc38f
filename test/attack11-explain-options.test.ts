/**
 * explain('solve', A, options) checks the choices rt.solve would be given as rt.solve does (the eleventh
 * attack pass): it explained method 'foo' as "KSP foo", preconditioner 'bogus' or 42 as "PC bogus" /
 * "PC 42", method 'direct' with preconditioner 'ic0' as a factorization (rt.solve refuses it), took
 * spd: 'yes', and path 'nope' was a GpuUnavailableError saying "the nope path is unavailable: undefined"
 * where rt.solve gives an OptionError. Each case: explain throws the error class rt.solve throws, with
 * the same message after the call's name.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { poisson2D } from '../src/generators/poisson.js';
import { expectExplainRefusesAsSolve } from './explain-refusal.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ backend: 'cpu', workers: 1 });
});
afterAll(() => rt?.dispose());


describe("attack11: explain('solve') checks the options rt.solve checks", () => {
  const bad: [string, unknown][] = [
    ['method foo', { method: 'foo' }],
    ['preconditioner bogus', { preconditioner: 'bogus' }],
    ['preconditioner 42', { preconditioner: 42 }],
    ["method 'direct' with ic0", { method: 'direct', preconditioner: 'ic0' }],
    ["spd 'yes'", { spd: 'yes' }],
    ["path 'nope'", { path: 'nope' }],
  ];
  for (const [label, options] of bad) {
    it(`${label}: the error rt.solve gives`, async () => {
      const A = rt.upload(poisson2D(5));
      try {
        await expectExplainRefusesAsSolve(rt, A, options, label);
      } finally {
        A.dispose();
      }
    });
  }

  it('good options still explain as rt.solve runs them', async () => {
    const A = rt.upload(poisson2D(5));
    try {
      for (const options of [{}, { method: 'cg', preconditioner: 'ic0' }, { method: 'direct' }, { method: 'gmres', preconditioner: 'none', spd: false }, { path: 'cpu' }] as const) {
        const e = rt.explain('solve', A, options);
        const r = await rt.solve(A, new Float64Array(25).fill(1), options);
        expect([e.method, e.preconditioner], JSON.stringify(options)).toEqual([r.method, r.preconditioner]);
      }
    } finally {
      A.dispose();
    }
  });
});
