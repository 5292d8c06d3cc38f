/**
 * rt.solve keeps the factor or preconditioner it set up with A for A's next solves
 * (src/runtime/kept-setup.ts): the answers of kept set-ups checked against the true residual
 * computed here (test/solve-reference.ts) for new right-hand sides, the iterations against a fresh
 * set-up's, one kept per kind of set-up, `reuse: false`, solves running together, explain, and the
 * memory given back with A — on the CPU pool and the WebGPU path (Dawn + SwiftShader).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import { Prng } from '../src/generators/prng.js';
import { InputTypeError } from '../src/errors.js';
import { loadShared } from './matrices.js';
import { trueResidual } from './solve-reference.js';
import { pointDawnAtSwiftShader } from './webgpu-helpers.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ workers: 2 });
});
afterAll(() => rt.dispose());

const rhs = (n: number, seed: number) => {
  const g = new Prng(seed);
  return Float64Array.from({ length: n }, () => g.next() * 2 - 1);
};

describe('rt.solve keeps its set-up with A', () => {
  it('a direct factor: the next solves of new right-hand sides use it, each answer its own', async () => {
    const A = loadShared('bcsstk13');
    const h = rt.upload(A);
    const first = await rt.solve(h, rhs(A.rows, 1));
    expect([first.method, first.reused]).toEqual(['direct', undefined]);
    for (const seed of [2, 3]) {
      const b = rhs(A.rows, seed);
      const r = await rt.solve(h, b);
      expect([r.method, r.reused, r.converged]).toEqual(['direct', 'factor', true]);
      expect(r.preconditionerDetail).toContain('kept with it');
      expect(trueResidual(A, r.x, b)).toBeLessThanOrEqual(1e-8);
      // the factor's own record: made once, by the first solve
      expect(r.factor).toEqual(first.factor);
    }
    h.dispose();
  });

  it('a preconditioner: the same iterations as a fresh set-up, the answer of the new b', async () => {
    const A = poisson2D(48);
    const h = rt.upload(A);
    for (const kind of ['ic0', 'ssor', 'block-jacobi', 'amg'] as const) {
      const first = await rt.cg(h, rhs(A.rows, 4), { preconditioner: kind });
      expect(first.reused).toBeUndefined();
      const b = rhs(A.rows, 5);
      const again = await rt.cg(h, b, { preconditioner: kind });
      const fresh = await rt.cg(h, b, { preconditioner: kind, reuse: false });
      expect([again.reused, fresh.reused, again.converged], kind).toEqual(['preconditioner', undefined, true]);
      expect(again.iterations, kind).toBe(fresh.iterations);
      expect(trueResidual(A, again.x, b), kind).toBeLessThanOrEqual(1e-8);
      expect(again.preconditionerDetail, kind).toContain('kept with it');
      expect(fresh.preconditionerDetail, kind).not.toContain('kept with it');
    }
    h.dispose();
  });

  it("'auto''s choice is kept: AMG on a large Poisson system, ILU(0) on a nonsymmetric one", async () => {
    const P = poisson2D(256);
    const hp = rt.upload(P);
    const b = rhs(P.rows, 6);
    const a = await rt.solve(hp, b);
    const c = await rt.solve(hp, b);
    expect([a.preconditioner, a.reused, c.preconditioner, c.reused]).toEqual(['amg', undefined, 'amg', 'preconditioner']);
    expect(c.iterations).toBe(a.iterations);
    expect(trueResidual(P, c.x, b)).toBeLessThanOrEqual(1e-8);
    hp.dispose();
    const R = loadShared('rajat01');
    const hr = rt.upload(R);
    const br = new Float64Array(R.rows).fill(1);
    const r1 = await rt.solve(hr, br, { method: 'gmres', preconditioner: 'ilu0' });
    const r2 = await rt.solve(hr, br, { method: 'gmres', preconditioner: 'ilu0' });
    expect([r1.reused, r2.reused]).toEqual([undefined, 'preconditioner']);
    // the same solve with the same factors: the same iterations and residual
    expect([r2.iterations, r2.relativeResidual]).toEqual([r1.iterations, r1.relativeResidual]);
    hr.dispose();
  });

  it('one preconditioner kept at a time, reuse: false keeps and takes nothing, A’s dispose gives the memory back', async () => {
    const A = poisson2D(40);
    const b = rhs(A.rows, 7);
    const before = rt.memoryInUse;
    const h = rt.upload(A);
    const uploaded = rt.memoryInUse;
    const kinds = async (...ks: ('ic0' | 'ssor')[]) => {
      const out: (string | undefined)[] = [];
      for (const k of ks) out.push((await rt.cg(h, b, { preconditioner: k })).reused);
      return out;
    };
    expect(await kinds('ic0', 'ic0', 'ssor', 'ic0', 'ic0')).toEqual([undefined, 'preconditioner', undefined, undefined, 'preconditioner']);
    const off = await rt.cg(h, b, { preconditioner: 'ic0', reuse: false });
    expect(off.reused).toBeUndefined();
    // what reuse: false left: the kept IC(0), still taken by the next solve
    expect(await kinds('ic0')).toEqual(['preconditioner']);
    // an AMG hierarchy's levels live in the runtime's memory: counted while kept, freed with A
    await rt.cg(h, b, { preconditioner: 'amg' });
    expect(rt.memoryInUse).toBeGreaterThan(uploaded);
    h.dispose();
    expect(rt.memoryInUse).toBe(before);
  });

  it('solves running together share the kept set-up, each with its own right-hand side', async () => {
    const D = loadShared('bcsstk13');
    const hd = rt.upload(D);
    const P = poisson3D(14);
    const hp = rt.upload(P);
    const bs = [8, 9, 10].map((s) => rhs(D.rows, s));
    const bp = [11, 12, 13].map((s) => rhs(P.rows, s));
    // the first solves run together too: each sets up, one set-up stays
    const round = () => Promise.all([...bs.map((b) => rt.solve(hd, b)), ...bp.map((b) => rt.cg(hp, b, { preconditioner: 'ic0' }))]);
    for (const rs of [await round(), await round()]) {
      rs.slice(0, 3).forEach((r, i) => expect(trueResidual(D, r.x, bs[i])).toBeLessThanOrEqual(1e-8));
      rs.slice(3).forEach((r, i) => expect(trueResidual(P, r.x, bp[i])).toBeLessThanOrEqual(1e-8));
    }
    const last = await round();
    expect(last.map((r) => r.reused)).toEqual(['factor', 'factor', 'factor', 'preconditioner', 'preconditioner', 'preconditioner']);
    hd.dispose();
    hp.dispose();
  });

  it('explain says what is kept; reuse is checked', async () => {
    const A = poisson2D(40);
    const h = rt.upload(A);
    const b = rhs(A.rows, 14);
    expect(rt.explain('solve', h, { method: 'cg', preconditioner: 'ic0' }).text).not.toContain('is kept with A');
    await rt.cg(h, b, { preconditioner: 'ic0' });
    expect(rt.explain('solve', h, { method: 'cg', preconditioner: 'ic0' }).text).toContain('the ic0 preconditioner an earlier solve of A set up is kept with A');
    expect(rt.explain('solve', h, { method: 'cg', preconditioner: 'ssor' }).text).not.toContain('is kept with A');
    await rt.solve(h, b);
    expect(rt.explain('solve', h).text).toContain('the factor an earlier solve of A set up is kept with A');
    await expect(rt.solve(h, b, { reuse: 'yes' as unknown as boolean })).rejects.toThrow(InputTypeError);
    h.dispose();
  });
});

describe('rt.solve keeps its set-up with A on the WebGPU path (Dawn + SwiftShader)', () => {
  let gpu: Runtime;
  beforeAll(async () => {
    pointDawnAtSwiftShader();
    gpu = await createRuntime({ backend: 'webgpu', workers: 1 });
  });
  afterAll(() => gpu?.dispose());

  it('AMG kept: the levels on the device made once, the answers of new right-hand sides', async () => {
    const A = poisson2D(40);
    const h = gpu.upload(A);
    const rs = [];
    for (const seed of [15, 16]) {
      const b = rhs(A.rows, seed);
      const r = await gpu.solve(h, b, { method: 'cg', preconditioner: 'amg', tol: 1e-8 });
      expect([r.path, r.converged]).toEqual(['webgpu', true]);
      expect(trueResidual(A, r.x, b)).toBeLessThanOrEqual(1e-8);
      rs.push(r);
    }
    expect(rs.map((r) => r.reused)).toEqual([undefined, 'preconditioner']);
    h.dispose();
  });
});
