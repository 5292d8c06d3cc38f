/**
 * Attack pass 8: AMG near-null-space vectors at the edges of f64's range. The tentative prolongator
 * normalizes each aggregate's rows of a candidate by the square root of their sum of squares, which
 * overflows for entries near 1e300 and underflows for entries below ≈ 1e-154: T got zero columns, the
 * coarse correction was lost and CG with the hierarchy took 59 iterations where the same vector at
 * scale 1 takes 12, with nothing said. The hierarchy is invariant under a candidate's scale, so it is
 * compared with the one of the unscaled vector (bit for bit for a power of two), and the solve's true
 * residual is recomputed here in plain f64. A zero vector interpolates nothing: refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { poisson2D } from '../src/generators/poisson.js';
import { elasticity2D, elasticity2DModes } from '../src/generators/elasticity.js';
import { buildHierarchy, type AmgHierarchy } from '../src/solvers/amg/hierarchy.js';
import { CpuSparseSession } from '../src/cpu/spgemm.js';
import type { SparseKernels } from '../src/solvers/amg/spgemm.js';
import { ShapeError } from '../src/errors.js';
import { trueResidual } from './solve-reference.js';

let rt: Runtime;
let kernels: SparseKernels;
beforeAll(async () => {
  rt = await createRuntime({ workers: 2 });
  kernels = () => new CpuSparseSession(rt.cpuBackend);
});
afterAll(() => rt?.dispose());

/** every level's A, P, R values (and shapes) of two hierarchies: equal, or within `rel` of the largest entry of each matrix */
function expectSameLevels(h: AmgHierarchy, ref: AmgHierarchy, rel: number, what: string): void {
  expect(h.levels.length, what).toBe(ref.levels.length);
  h.levels.forEach((L, l) => {
    for (const key of ['A', 'P', 'R'] as const) {
      const M = L[key];
      const R = ref.levels[l][key];
      if (!R) {
        expect(M, `${what}: level ${l} ${key}`).toBeUndefined();
        continue;
      }
      expect([M!.rows, M!.cols, M!.nnz], `${what}: level ${l} ${key}`).toEqual([R.rows, R.cols, R.nnz]);
      expect(Array.from(M!.colIdx), `${what}: level ${l} ${key}`).toEqual(Array.from(R.colIdx));
      let big = 0;
      let diff = 0;
      for (let k = 0; k < R.nnz; k++) {
        big = Math.max(big, Math.abs(R.values[k]));
        diff = Math.max(diff, Math.abs(M!.values[k] - R.values[k]));
      }
      expect(diff, `${what}: level ${l} ${key}, max difference ${diff} of ${big}`).toBeLessThanOrEqual(rel * big);
    }
  });
}

const scaled = (v: Float64Array, s: number) => v.map((x) => x * s);

describe('AMG near-null-space vectors of any scale', () => {
  it('one candidate on scalar nodes: the hierarchy of the vector at scale 1 (bit for bit under a power of two) and its CG iterations', async () => {
    const A = poisson2D(30);
    const n = A.rows;
    // the constant, and a smooth non-constant vector (fitCandidates' and smoothedTentative's normalization alike)
    for (const v of [new Float64Array(n).fill(1), Float64Array.from({ length: n }, (_, i) => 1 + i / n)]) {
      const ref = buildHierarchy(A, kernels, { nearNullSpace: [v] });
      const b = Float64Array.from({ length: n }, (_, i) => Math.sin(i) + 0.25);
      const h0 = rt.upload(A);
      const M0 = rt.amg(h0, { nearNullSpace: [v] });
      const r0 = await rt.cg(h0, b, { preconditioner: M0, tol: 1e-8 });
      expect(r0.converged).toBe(true);
      for (const [s, rel] of [[2 ** -700, 0], [2 ** 900, 0], [1e-200, 1e-13], [1e-300, 1e-13], [1e300, 1e-13], [3.7e-160, 1e-13]] as const) {
        const what = `scale ${s}, ${v[1] === 1 ? 'constant' : 'smooth'}`;
        const h = buildHierarchy(A, kernels, { nearNullSpace: [scaled(v, s)] });
        expectSameLevels(h, ref, rel, what);
        h.dispose();
        const M = rt.amg(h0, { nearNullSpace: [scaled(v, s)] });
        const r = await rt.cg(h0, b, { preconditioner: M, tol: 1e-8 });
        expect([r.converged, r.iterations], what).toEqual([true, r0.iterations]);
        expect(trueResidual(A, r.x, b), what).toBeLessThanOrEqual(1e-8);
        M.dispose();
      }
      ref.dispose();
      M0.dispose();
      h0.dispose();
    }
  });

  it("elasticity's rigid-body modes (three candidates, blockSize 2) scaled by 1e300 and 1e-200: the unscaled modes' hierarchy", () => {
    const m = 12;
    const K = elasticity2D(m);
    const modes = elasticity2DModes(m);
    const ref = buildHierarchy(K, kernels, { nearNullSpace: modes, blockSize: 2, maxCoarse: 40 });
    for (const [s, rel] of [[2 ** 1000, 0], [1e300, 1e-13], [1e-200, 1e-13]] as const) {
      const h = buildHierarchy(K, kernels, { nearNullSpace: modes.map((v) => scaled(v, s)), blockSize: 2, maxCoarse: 40 });
      expectSameLevels(h, ref, rel, `modes × ${s}`);
      expect(h.levels[1].blockSize).toBe(3);
      h.dispose();
    }
    ref.dispose();
  });

  it('a zero vector is a ShapeError naming it (it interpolates nothing)', () => {
    const h = rt.upload(poisson2D(8));
    const ones = new Float64Array(64).fill(1);
    expect(() => rt.amg(h, { nearNullSpace: [new Float64Array(64)] })).toThrow(ShapeError);
    expect(() => rt.amg(h, { nearNullSpace: [ones, new Float64Array(64)] })).toThrow(/amg.nearNullSpace\[1\] is zero/);
    // a vector zero in part is taken
    const half = ones.map((x, i) => (i < 32 ? x : 0));
    rt.amg(h, { nearNullSpace: [half] }).dispose();
    h.dispose();
  });
});
