/**
 * Seventh adversarial pass, the AMG setup on the pool: the hierarchy must be the same bits on any
 * number of threads. Before: the aggregates were (their blocks are a function of n), but ρ(D⁻¹A), the
 * 15 Lanczos steps' largest Ritz value that smooths the prolongator, summed its dots as one partial
 * per thread, so ρ differed in its last bits between pool sizes, and with it P, R and every coarse
 * level's values (poisson3D(64): ρ 1.9762745513210995 on 1 thread, …1186 on 2, …1195 on 4) — on every
 * matrix of ≥ 16 384 entries. The Lanczos kernels now sum per group of 1024 rows (assembly/lanczos.ts),
 * added in order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import { diffusion2D } from '../src/generators/index.js';
import { buildHierarchy, type AmgHierarchy } from '../src/solvers/amg/hierarchy.js';
import { CpuSparseSession } from '../src/cpu/spgemm.js';
import type { CSRMatrix } from '../src/formats/csr.js';

const POOLS = [1, 2, 4];
let rts: Runtime[];
beforeAll(async () => {
  rts = await Promise.all(POOLS.map((workers) => createRuntime({ workers, backend: 'cpu' })));
});
afterAll(() => {
  for (const rt of rts) rt.dispose();
});

/** The first place two arrays differ (Object.is: −0 and NaN bits apart), or null. */
function firstDifference(a: ArrayLike<number>, b: ArrayLike<number>): string | null {
  if (a.length !== b.length) return `lengths ${a.length} and ${b.length}`;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return `[${i}]: ${a[i]} against ${b[i]}`;
  return null;
}

function compare(h: AmgHierarchy, g: AmgHierarchy, what: string): void {
  expect(g.levels.length, what).toBe(h.levels.length);
  // the coarsest level's solve: its dense inverse, or its sparse factor
  expect(g.coarse.kind, `${what} coarse`).toBe(h.coarse.kind);
  if (h.coarse.kind === 'dense' && g.coarse.kind === 'dense') expect(firstDifference(h.coarse.inverse, g.coarse.inverse), `${what} coarse inverse`).toBeNull();
  if (h.coarse.kind === 'sparse' && g.coarse.kind === 'sparse') {
    expect(firstDifference(h.coarse.perm, g.coarse.perm), `${what} coarse perm`).toBeNull();
    for (const part of ['rowPtr', 'colIdx', 'values'] as const) expect(firstDifference(h.coarse.L[part], g.coarse.L[part]), `${what} coarse L.${part}`).toBeNull();
  }
  h.levels.forEach((L, l) => {
    const M = g.levels[l];
    expect(M.rho, `${what} level ${l} ρ`).toBe(L.rho);
    expect(firstDifference(L.dinv, M.dinv), `${what} level ${l} D⁻¹`).toBeNull();
    for (const k of ['A', 'P', 'R'] as const) {
      const [X, Y] = [L[k], M[k]] as [CSRMatrix | undefined, CSRMatrix | undefined];
      expect(!X, `${what} level ${l} ${k}`).toBe(!Y);
      if (!X || !Y) continue;
      for (const part of ['rowPtr', 'colIdx', 'values'] as const) expect(firstDifference(X[part], Y[part]), `${what} level ${l} ${k}.${part}`).toBeNull();
    }
  });
}

describe('AMG setup: the same hierarchy on 1, 2 and 4 threads, bit for bit', () => {
  const cases: [string, () => CSRMatrix][] = [
    // 262 144 rows: strength, aggregation and the near-null space in 2 blocks on the pool
    ['poisson3D(64)', () => poisson3D(64)],
    ['poisson2D(100)', () => poisson2D(100)],
    ['jumping diffusion2D(90)', () => diffusion2D({ n: 90, coefficients: 'jumping' })],
  ];
  for (const [name, make] of cases) {
    it(name, () => {
      const A = make();
      const hs = rts.map((rt) => buildHierarchy(A, () => new CpuSparseSession(rt.cpuBackend)));
      try {
        for (let k = 1; k < hs.length; k++) compare(hs[0], hs[k], `${name}, ${POOLS[k]} threads against 1`);
      } finally {
        for (const h of hs) h.dispose();
      }
    });
  }
  it('rt.amg through the runtime: the same levels and the same CG iterations and answer on each pool size', async () => {
    const A = poisson2D(100);
    const b = Float64Array.from({ length: A.rows }, (_, i) => Math.sin(i / 7) + 1);
    const runs = await Promise.all(
      rts.map(async (rt) => {
        const h = rt.upload(A);
        const M = rt.amg(h);
        const r = await rt.cg(h, b, { preconditioner: M, tol: 1e-10 });
        const info = M.amg!.levels.map((L) => [L.rows, L.nnz]);
        M.dispose();
        h.dispose();
        return { info, iterations: r.iterations };
      }),
    );
    for (const r of runs.slice(1)) expect(r).toEqual(runs[0]);
  });
});
