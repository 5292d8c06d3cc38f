/**
 * The sparse direct solvers' numeric phases and the Krylov methods are imported on first use
 * (src/runtime/direct-solvers.ts, src/runtime/krylov-solvers.ts, src/solvers/amg/cycle-chunk.ts, through lazyModule): in Node,
 * explain('solve'), estimateFactorCost, AMG and Krylov solves leave the direct solvers unloaded and the
 * first factorization loads them; products, explain, AMG set-up and factorizations leave the Krylov
 * methods unloaded and the first iterative solve loads them; rt.solve's driver after its checks and
 * reads (src/runtime/solve-chunk.ts), fetched by createRuntime without waiting, is split off too, and
 * so is the solver set-up (src/runtime/solver-setup-chunk.ts), which createRuntime waits for. In a page's bundle (esbuild, split, from
 * the sources) all sit behind their dynamic imports, not in the files a page loads first
 * (test/package.test.ts checks the packed package the same way, and webpack's size hints).
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { build } from 'esbuild';
import { lazyModule } from '../src/lazy-module.js';
import { createRuntime, Factorization, poisson2D } from '../src/index.js';
import { directSolvers } from '../src/runtime/direct-solvers.js';
import { krylovSolvers } from '../src/runtime/krylov-solvers.js';
import { amgCycleChunk } from '../src/solvers/amg/cycle-chunk.js';
import { cpuRefinementChunk } from '../src/cpu/solver-ops.js';
import { solveRun } from '../src/runtime/solve-chunk.js';
import { trueResidual } from './solve-reference.js';
import { root } from './examples.js';

describe('lazyModule', () => {
  it('imports once for any number of loads, and names the module used too early', async () => {
    let calls = 0;
    const m = lazyModule(async () => ({ id: ++calls }), 'the test module');
    expect(m.loaded()).toBe(false);
    expect(() => m.get()).toThrow(/the test module used before it was loaded/);
    const first = m.load();
    expect(m.load()).toBe(first);
    await Promise.all([first, m.load()]);
    expect(m.loaded()).toBe(true);
    expect(m.get()).toEqual({ id: 1 });
    await m.load();
    expect(calls).toBe(1);
  });

  it('a failed import rejects, and the next load imports again', async () => {
    let calls = 0;
    const m = lazyModule(async () => {
      if (++calls === 1) throw new TypeError('Failed to fetch dynamically imported module');
      return { id: calls };
    }, 'the test module');
    await expect(m.load()).rejects.toThrow(/Failed to fetch/);
    expect(m.loaded()).toBe(false);
    await m.load();
    expect(m.get()).toEqual({ id: 2 });
  });
});

describe('the direct solvers in Node', () => {
  it('explain, estimateFactorCost, AMG and Krylov leave them unloaded; the first factorization loads them', async () => {
    const rt = await createRuntime({ backend: 'cpu', workers: 1 });
    try {
      const A = poisson2D(12);
      const h = rt.upload(A);
      const b = Float64Array.from({ length: A.rows }, (_, i) => Math.sin(0.3 * i + 1));
      expect(rt.explain('solve', h).method).toBe('direct');
      expect(rt.estimateFactorCost(h, 'cholesky').fillNnz).toBeGreaterThan(A.nnz / 2);
      expect((await rt.spmv(h, b)).length).toBe(A.rows);
      const P = poisson2D(40);
      const hp = rt.upload(P);
      const M = rt.amg(hp);
      expect(M.amg?.levels.length).toBeGreaterThanOrEqual(2);
      expect(krylovSolvers.loaded()).toBe(false);
      expect(amgCycleChunk.loaded()).toBe(false);
      expect(cpuRefinementChunk.loaded()).toBe(false);
      // rt.solve's driver: fetched by createRuntime, not waited for; loaded by the first solve at the latest
      expect((await rt.cg(h, b, { tol: 1e-10 })).converged).toBe(true);
      expect(solveRun.loaded()).toBe(true);
      expect(krylovSolvers.loaded()).toBe(true);
      // the pool's refinement: loaded by the first solve that takes b − A·x on the pool
      expect(cpuRefinementChunk.loaded()).toBe(true);
      // the AMG cycle: not loaded by its set-up nor by a solve without it; the first solve with it loads it
      expect(amgCycleChunk.loaded()).toBe(false);
      const bp = Float64Array.from({ length: P.rows }, (_, i) => Math.cos(0.2 * i));
      const withAmg = await rt.cg(hp, bp, { preconditioner: M, tol: 1e-10 });
      expect(amgCycleChunk.loaded()).toBe(true);
      expect(withAmg.converged && withAmg.iterations < 20).toBe(true);
      expect(trueResidual(P, withAmg.x, bp)).toBeLessThanOrEqual(1e-10);
      expect(directSolvers.loaded()).toBe(false);
      const s = await rt.solve(h, b);
      expect(directSolvers.loaded()).toBe(true);
      expect(s.method).toBe('direct');
      expect(trueResidual(A, s.x, b)).toBeLessThanOrEqual(1e-12);
      const F = await rt.factor(A);
      expect(F).toBeInstanceOf(Factorization);
      expect(trueResidual(A, (await F.solve(b)).x, b)).toBeLessThanOrEqual(1e-12);
      expect({} instanceof Factorization).toBe(false);
      F.dispose();
    } finally {
      rt.dispose();
    }
  });
});

describe('the direct and Krylov solvers in a page bundle', () => {
  it('are split off behind their dynamic imports: none of their modules is in what the page loads first', async () => {
    const result = await build({
      absWorkingDir: join(root, 'test', 'package'),
      entryPoints: ['cpu-only.js'],
      outdir: join(root, 'build', 'lazy-solvers'),
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      write: false,
      metafile: true,
      logLevel: 'silent',
      alias: { simdgl: join(root, 'src', 'index.ts') },
    });
    // the page's entry and the chunks it imports statically (a dynamically imported module is an entry point of its own)
    const outputs = result.metafile.outputs;
    const eager = new Set<string>();
    const visit = (out: string) => {
      if (eager.has(out)) return;
      eager.add(out);
      for (const i of outputs[out].imports) if (i.kind === 'import-statement' && outputs[i.path]) visit(i.path);
    };
    visit(Object.keys(outputs).find((o) => outputs[o].entryPoint === 'cpu-only.js')!);
    const where = (m: string) => Object.keys(outputs).filter((o) => Object.keys(outputs[o].inputs).some((i) => i.endsWith(m)));
    const numeric = ['src/solvers/direct/factor.ts', 'src/solvers/direct/supernodal.ts', 'src/solvers/direct/band-lu.ts', 'src/cpu/cholesky.ts', 'src/cpu/lu.ts'];
    numeric.push('src/solvers/amg/cycle.ts', 'src/cpu/refine.ts', 'src/runtime/solve-run.ts', 'src/cpu/dense.ts');
    numeric.push('src/solvers/true-residual.ts', 'src/solvers/krylov/cg.ts', 'src/solvers/krylov/gmres.ts', 'src/solvers/krylov/bicgstab.ts', 'src/solvers/krylov/minres.ts');
    for (const m of numeric) {
      expect(where(m), `${m} is not in the bundle`).toHaveLength(1);
      expect(eager.has(where(m)[0]), `${m} is loaded before the page runs`).toBe(false);
    }
    // what the synchronous methods need (explain('solve'), rt.preconditioner, rt.amg, rt.spgemm,
    // estimateFactorCost) is the solver set-up's chunk, which createRuntime waits for: not in the first files either
    const setup = ['src/runtime/solver-setup.ts', 'src/solvers/solve.ts', 'src/solvers/direct/plan.ts', 'src/solvers/precond/index.ts', 'src/solvers/amg/hierarchy.ts', 'src/cpu/spgemm.ts', 'src/solvers/structure.ts'];
    for (const m of setup) {
      expect(where(m), `${m} is not in the bundle`).toHaveLength(1);
      expect(eager.has(where(m)[0]), `${m} is loaded before the page runs`).toBe(false);
    }
    // the chunks that build on it are imported from it, so that a bundler knows its modules are there (webpack copied them in)
    // (and from nowhere else); rt.solve's driver from the page's first files, so that createRuntime fetches it beside the set-up
    const importers = (out: string) => Object.keys(outputs).filter((o) => outputs[o].imports.some((i) => i.kind === 'dynamic-import' && i.path === out));
    for (const m of ['src/runtime/direct.ts', 'src/solvers/true-residual.ts']) expect(importers(where(m)[0]), `${m}'s importers`).toEqual(where('src/runtime/solver-setup.ts'));
    const driverImporters = importers(where('src/runtime/solve-run.ts')[0]);
    expect(driverImporters.length, "rt.solve's driver's importers").toBeGreaterThan(0);
    for (const o of driverImporters) expect(eager.has(o), `${o} imports rt.solve's driver`).toBe(true);
  });
});
