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
import { buildHierarchy } from '../src/solvers/amg/hierarchy.js';
import { sameHierarchy } from './same-hierarchy.js';
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
        for (let k = 1; k < hs.length; k++) sameHierarchy(hs[0], hs[k], `${name}, ${POOLS[k]} threads against 1`);
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
