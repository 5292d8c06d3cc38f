/**
 * rt.solve keeps the factor or preconditioner it set up with A for A's next solves
 * (src/runtime/kept-setup.ts): the answers of kept set-ups checked against the true residual
 * computed here (test/solve-reference.ts) for new right-hand sides, the iterations against a fresh
 * set-up's, one kept per kind of set-up, `reuse: false`, solves running together, explain, and the
 * memory given back with A — on the CPU pool and the WebGPU path (Dawn + SwiftShader); and 'auto''s
 * rent-or-buy rule, which factorizes a matrix it keeps solving once the solves would have paid for it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import { InputTypeError, MemoryLimitError } from '../src/errors.js';
import { setMemoryBudget } from '../src/memory-budget.js';
import { loadShared } from './matrices.js';
import { randomRhs, trueResidual } from './solve-reference.js';
import { chooseDirectAgain, FACTOR_SOLVE_BYTES_PER_MS, planAgain, REPEAT_FACTOR_FLOP_RATE } from '../src/solvers/solve.js';
import { pointDawnAtSwiftShader } from './webgpu-helpers.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ workers: 2 });
});
afterAll(() => rt.dispose());

const rhs = randomRhs;

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
    // (method given: 'auto''s rent or buy, which may factorize a matrix solved again, stays out)
    const a = await rt.solve(hp, b, { method: 'cg' });
    const c = await rt.solve(hp, b, { method: 'cg' });
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

  it('where the memory cannot grow, the kept set-ups are freed first; a preconditioner handle is not', async () => {
    const MB = 64;
    const small = await createRuntime({ workers: 1, maxMemoryMB: MB });
    try {
      const A = poisson2D(300);
      const h = small.upload(A);
      const b = new Float64Array(A.rows).fill(1);
      await small.cg(h, b, { preconditioner: 'jacobi' });
      const m0 = small.memoryInUse;
      await small.cg(h, b, { preconditioner: 'ic0' });
      const kept = small.memoryInUse - m0;
      expect(kept).toBeGreaterThan(1 << 20);
      // a vector that fits only where half the kept IC(0) is given back
      const n = Math.floor((MB * 1048576 - small.memoryInUse + kept / 2) / 8);
      small.vector(new Float64Array(n)).dispose();
      const again = await small.cg(h, b, { preconditioner: 'ic0' });
      expect(again.reused).toBeUndefined();
      // the caller's own IC(0), resident: not the runtime's to free (the kept one, made again just now, is)
      const M = small.preconditioner(h, { kind: 'ic0' });
      await small.cg(h, b, { preconditioner: M });
      expect(() => small.vector(new Float64Array(n))).toThrow(MemoryLimitError);
      expect((await small.cg(h, b, { preconditioner: M })).converged).toBe(true);
    } finally {
      small.dispose();
    }
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

describe("'auto' factorizes a matrix it keeps solving (rent or buy)", () => {
  const MiB = 1048576;
  const est = (flops: number, bytes: number) => ({ fillNnz: 0, flops, bytes, ordering: 'nd' });

  it('chooseDirectAgain: bought once the solves so far would have saved the factorization’s cost', () => {
    // a factorization of 100 ms of ordering + 1e9 flops, its solves 4 MiB: each solve of 40 ms saves 40 − solveMs
    const e = est(1e9, 4 * MiB);
    const buy = 100 + (1e9 / REPEAT_FACTOR_FLOP_RATE) * 1e3;
    const solve = (4 * MiB) / FACTOR_SOLVE_BYTES_PER_MS;
    const need = Math.ceil(buy / (40 - solve));
    const at = (solves: number) => chooseDirectAgain(e, 100, solves, 40 * solves, 1e12).direct;
    expect([at(need - 1), at(need)]).toEqual([false, true]);
    // a factor's solve no faster than the Krylov solve: never worth it, however many
    expect(chooseDirectAgain(est(1e6, 400 * MiB), 0, 1000, 1000 * 40, 1e12).direct).toBe('never');
    // past half the memory budget: never
    expect(chooseDirectAgain(e, 100, need, 40 * need, 6 * MiB).direct).toBe('never');
    expect(chooseDirectAgain(e, 100, need, 40 * need, 1e12).reason()).toMatch(/^method direct, after \d+ Krylov solves of A .*bought/);
    // the ordering planned from the third solve, once they cost 0.5 µs a stored entry: 1e6 entries, 500 ms
    expect([planAgain(1e6, 2, 1e9), planAgain(1e6, 3, 499), planAgain(1e6, 3, 500)]).toEqual([false, false, true]);
  });

  it('poisson2D(150) solved again and again: CG + Jacobi, then its factor, each answer its own', async () => {
    const A = poisson2D(150);
    const h = rt.upload(A);
    const seen: string[] = [];
    for (let k = 0; k < 30; k++) {
      const b = rhs(A.rows, 100 + k);
      const r = await rt.solve(h, b);
      expect(trueResidual(A, r.x, b), `solve ${k}`).toBeLessThanOrEqual(1e-8);
      seen.push(r.method === 'direct' ? (r.reused ? 'kept factor' : 'factorized') : r.method);
      if (seen.at(-1) === 'factorized') expect(rt.explain('solve', h).text).toMatch(/rent or buy; its factor kept with A/);
    }
    // Krylov solves first, one factorization, its factor after it — in that order, nothing else
    const first = seen.indexOf('factorized');
    expect(first).toBeGreaterThan(0);
    expect(seen.slice(0, first).every((m) => m === 'cg')).toBe(true);
    expect(seen.slice(first + 1).every((m) => m === 'kept factor')).toBe(true);
    h.dispose();
  });

  it('an AMG loop that buys the factor frees the kept hierarchy', async () => {
    const A = poisson2D(256);
    const h = rt.upload(A);
    const amg = { method: 'cg', preconditioner: 'amg' } as const;
    let r;
    let k = 0;
    for (; k < 80; k++) {
      const b = rhs(A.rows, 300 + k);
      r = await rt.solve(h, b);
      expect(trueResidual(A, r.x, b), `solve ${k}`).toBeLessThanOrEqual(1e-8);
      if (k === 0) {
        expect(r.preconditioner).toBe('amg');
        expect(rt.explain('solve', h, amg).text).toContain('the amg preconditioner an earlier solve of A set up is kept with A');
      }
      if (r.method === 'direct') break;
    }
    expect([r!.method, r!.reused]).toEqual(['direct', undefined]);
    expect(rt.explain('solve', h, amg).text).not.toContain('is kept with A');
    expect(rt.explain('solve', h).text).toContain('the factor an earlier solve of A set up is kept with A');
    h.dispose();
  });

  it('a plan past the memory budget: the Krylov solves go on, and no factorization is weighed again', async () => {
    const A = poisson2D(150);
    const h = rt.upload(A);
    // the symbolic phase's floor for 22 500 rows and 112 500 entries (≈ 1.5 MiB) passes a 1 MiB budget;
    // CG + Jacobi's vectors (180 KiB each) do not
    setMemoryBudget(1);
    try {
      for (let k = 0; k < 12; k++) {
        const b = rhs(A.rows, 400 + k);
        const r = await rt.solve(h, b);
        expect([r.method, trueResidual(A, r.x, b) <= 1e-8], `solve ${k}`).toEqual(['cg', true]);
      }
      expect(rt.explain('solve', h).text).toMatch(/over the memory budget/);
    } finally {
      setMemoryBudget(undefined);
    }
    h.dispose();
  });

  it('reuse: false solves count for nothing and keep nothing: no factorization', async () => {
    const A = poisson2D(150);
    const h = rt.upload(A);
    const methods = new Set<string>();
    for (let k = 0; k < 12; k++) methods.add((await rt.solve(h, rhs(A.rows, 200 + k), { reuse: false })).method);
    expect([...methods]).toEqual(['cg']);
    expect(rt.explain('solve', h).text).not.toMatch(/Krylov solves? of A/);
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
