/**
 * rt.solve's fused Chebyshev degree on a GPU path (src/solvers/precond/chebyshev-degree.ts): the
 * model's choice against an exhaustive minimum written here, its direction as the path's figures
 * change, and the runtime's use of it (the plan's description, explain's reasons) on the WebGPU path
 * (Dawn + SwiftShader), with a degree the caller gives kept.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXED_DISPATCHES, FIXED_VECTOR_PASSES, fusedChebyshevDegree, ITERATION_FLOOR, MAX_FUSED_DEGREE, MIN_FUSED_DEGREE, STEP_VECTOR_PASSES } from '../src/solvers/precond/chebyshev-degree.js';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { poisson3D } from '../src/generators/poisson.js';
import { pointDawnAtSwiftShader } from './webgpu-helpers.js';
import { trueResidual } from './solve-reference.js';

/** The model written out: iterations ∝ 1/d + floor, each (fixed + (d − 1)·step) ms. */
function referenceDegree(spmv: number, vec: number, disp: number): number {
  const step = spmv + STEP_VECTOR_PASSES * vec + disp;
  const fixed = spmv + FIXED_VECTOR_PASSES * vec + FIXED_DISPATCHES * disp;
  let best = -1;
  let bestCost = Infinity;
  for (let d = MIN_FUSED_DEGREE; d <= MAX_FUSED_DEGREE; d++) {
    const cost = (1 / d + ITERATION_FLOOR) * (fixed + (d - 1) * step);
    if (cost < bestCost) [best, bestCost] = [d, cost];
  }
  return best;
}

describe('fusedChebyshevDegree', () => {
  it('takes the least cost of the model over the measured degrees, for figures from SpMV-bound to dispatch-bound', () => {
    const seen = new Set<number>();
    for (const spmv of [1e-4, 0.01, 0.05, 0.1, 1]) {
      for (const vec of [0, 1e-3, 0.008, 0.05]) {
        for (const disp of [0, 0.002, 0.0075, 0.05, 0.5]) {
          const { degree, why } = fusedChebyshevDegree({ spmvMs: spmv, vectorMs: vec, dispatchMs: disp });
          expect(degree).toBe(referenceDegree(spmv, vec, disp));
          expect(why).toMatch(new RegExp(`^degree ${degree}: `));
          seen.add(degree);
        }
      }
    }
    // the choice moves with the figures: both ends of the range and some between are taken
    expect(seen.has(MIN_FUSED_DEGREE) || seen.has(MIN_FUSED_DEGREE + 1)).toBe(true);
    expect(seen.has(MAX_FUSED_DEGREE)).toBe(true);
    expect(seen.size).toBeGreaterThanOrEqual(3);
  });

  it('rises as the fixed cost of an iteration grows against an SpMV, and falls as the SpMV grows', () => {
    const base = { spmvMs: 0.05, vectorMs: 0.008, dispatchMs: 0.0075 };
    const d0 = fusedChebyshevDegree(base).degree;
    expect(fusedChebyshevDegree({ ...base, dispatchMs: 0.1 }).degree).toBeGreaterThan(d0);
    expect(fusedChebyshevDegree({ ...base, spmvMs: 1 }).degree).toBeLessThan(d0);
    // a pure-SpMV path (no vector passes, no dispatch cost): every iteration's passes are one SpMV, the fewest steps win
    expect(fusedChebyshevDegree({ spmvMs: 1, vectorMs: 0, dispatchMs: 0 }).degree).toBe(MIN_FUSED_DEGREE);
  });
});

describe('on the WebGPU path', () => {
  let rt: Runtime;
  beforeAll(async () => {
    pointDawnAtSwiftShader();
    rt = await createRuntime({ backend: 'webgpu', workers: 1 });
  });
  afterAll(() => rt?.dispose());

  it("rt.solve's fused Chebyshev takes the path's degree, says why in the plan and in explain, and converges to a true residual", async () => {
    // poisson3D(16) f64 runs as DIA there: the fused steps (rt.solve picks chebyshev for it when asked)
    const A = poisson3D(16);
    const h = rt.upload(A);
    const b = Float64Array.from({ length: A.rows }, (_, i) => Math.sin(i + 1));
    const r = await rt.solve(h, b, { path: 'webgpu', method: 'cg', preconditioner: 'chebyshev' });
    expect(r.reason).toBe('converged');
    expect(trueResidual(A, r.x, b)).toBeLessThanOrEqual(1e-8);
    const m = /chebyshev \(degree (\d+) /.exec(r.preconditionerDetail ?? '');
    expect(m).not.toBeNull();
    const degree = Number(m![1]);
    expect(degree).toBeGreaterThanOrEqual(MIN_FUSED_DEGREE);
    expect(degree).toBeLessThanOrEqual(MAX_FUSED_DEGREE);
    expect(r.preconditionerDetail).toContain(`degree ${degree}: a CG iteration's fixed passes`);
    const e = rt.explain('solve', h, { path: 'webgpu', method: 'cg', preconditioner: 'chebyshev' });
    expect(e.text).toContain(`chebyshev degree ${degree}: a CG iteration's fixed passes`);
    // a degree the caller gives is kept (rt.preconditioner on the path with the fused steps)
    const M = rt.preconditioner(h, { kind: 'chebyshev', degree: 3, path: 'webgpu' });
    const r3 = await rt.solve(h, b, { path: 'webgpu', method: 'cg', preconditioner: M });
    expect(r3.preconditionerDetail).toMatch(/chebyshev \(degree 3 /);
    expect(r3.preconditionerDetail).not.toContain("fixed passes");
    expect(trueResidual(A, r3.x, b)).toBeLessThanOrEqual(1e-8);
    M.dispose();
    h.dispose();
  });
});
