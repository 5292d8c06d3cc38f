/**
 * f32 CG to an f64 tolerance as one recurrence with reliable updates (src/solvers/solve.ts reliableCg,
 * cg's ResidualReplacement): the answer checked by an independent f64 product (trueResidual), an f64
 * reference solution and the reported reasons; and the CPU's fused f32 CG update (cg_update_jacobi_f32) against
 * the same operations written here with Math.fround.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CpuBackend } from '../src/cpu/backend.js';
import { cpuSolverOps } from '../src/cpu/solver-ops.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { poisson3D } from '../src/generators/poisson.js';
import { Prng } from '../src/generators/prng.js';
import { referencePcg, relDiff, trueResidual } from './solve-reference.js';
import { loadShared } from './matrices.js';
import { exactRelativeResidual } from './exact-residual.js';
import { DIAMatrix } from '../src/formats/dia.js';
import type { CpuVector } from '../src/cpu/resident.js';
import { cg } from '../src/solvers/krylov/cg.js';
import { solveWithTrueResidual } from '../src/solvers/true-residual.js';
import { kernelsOf } from './kernels-of.js';

let rt: Runtime;
let cpu: CpuBackend;
beforeAll(async () => {
  rt = await createRuntime({ workers: 2 });
  cpu = await CpuBackend.create({ threads: 2 });
});
afterAll(() => {
  rt?.dispose();
  cpu?.dispose();
});

function rhs(n: number, seed = 7): Float64Array {
  const g = new Prng(seed);
  return Float64Array.from({ length: n }, () => g.next() * 2 - 1);
}

/** A tridiagonal SPD f32 matrix of n rows (n odd: the kernels' scalar tails run). */
function tridiagonal(n: number): CSRMatrix {
  const ptr = [0];
  const col: number[] = [];
  const val: number[] = [];
  for (let i = 0; i < n; i++) {
    for (const [j, v] of [[i - 1, -1], [i, 2.5 + (i % 7) / 3], [i + 1, -1]] as const) {
      if (j < 0 || j >= n) continue;
      col.push(j);
      val.push(v);
    }
    ptr.push(col.length);
  }
  return new CSRMatrix(n, n, 'f32', Int32Array.from(ptr), Int32Array.from(col), Float32Array.from(val));
}

describe('the fused f32 CG update on the CPU', () => {
  it('cgUpdatePrecondition: x, r, z bit for bit the scalar f32 operations, the sums in f64', async () => {
    const n = 1027;
    const A = tridiagonal(n);
    const M = cpu.upload(A);
    const ops = cpuSolverOps(cpu, M, 'jacobi');
    const f = Math.fround;
    const data = (seed: number) => Float32Array.from(rhs(n, seed));
    const vec = (v: Float32Array) => {
      const h = ops.vector();
      h.view().set(v);
      return h;
    };
    try {
      const [p0, q0, x0, r0] = [2, 3, 4, 5].map(data);
      const [p, q, x, r] = [p0, q0, x0, r0].map(vec);
      const alpha = -0.61;
      const a = f(alpha);
      const zOut = ops.vector();
      const [rr, rz] = await ops.cgUpdatePrecondition!(alpha, p, q, x, r, zOut);
      const d = Float32Array.from({ length: n }, (_, i) => 1 / A.values[A.rowPtr[i] + (i === 0 ? 0 : 1)]);
      const xRef = Float32Array.from(x0, (xi, i) => f(xi + f(a * p0[i])));
      const rRef = Float32Array.from(r0, (ri, i) => f(ri - f(a * q0[i])));
      const zRef = Float32Array.from(rRef, (ri, i) => f(d[i] * ri));
      let rrRef = 0;
      let rzRef = 0;
      for (let i = 0; i < n; i++) {
        rrRef += rRef[i] * rRef[i];
        rzRef += rRef[i] * zRef[i];
      }
      expect(Array.from(x.view() as Float32Array)).toEqual(Array.from(xRef));
      expect(Array.from(r.view() as Float32Array)).toEqual(Array.from(rRef));
      expect(Array.from(zOut.view() as Float32Array)).toEqual(Array.from(zRef));
      expect(Math.abs(rr - rrRef)).toBeLessThanOrEqual(1e-12 * rrRef);
      expect(Math.abs(rz - rzRef)).toBeLessThanOrEqual(1e-12 * Math.abs(rzRef));
      for (const v of [p, q, x, r, zOut]) ops.release(v);
    } finally {
      ops.dispose();
      M.dispose();
    }
  });
});

describe('f32 CG with reliable updates to an f64 tolerance', () => {
  it('poisson3D(14): a true 1e-10 (independent f64 product), the f64 reference solution, at most 1.6× the f64 iterations', async () => {
    const A = poisson3D(14);
    const A32 = A.astype('f32');
    const b = rhs(A.rows);
    const ref = await rt.solve(rt.upload(A32.astype('f64')), b, { tol: 1e-13, method: 'cg', preconditioner: 'jacobi' });
    expect(ref.converged).toBe(true);
    const h = rt.upload(A32);
    let calls = 0;
    let last = 0;
    const r = await rt.solve(h, b, {
      tol: 1e-10,
      method: 'cg',
      preconditioner: 'jacobi',
      onIteration: (it) => {
        expect(it).toBe(last + 1);
        last = it;
        calls++;
      },
    });
    const t = trueResidual(A32, r.x, b);
    expect([r.converged, r.reason]).toEqual([true, 'converged']);
    expect(t).toBeLessThanOrEqual(1e-10);
    expect(r.relativeResidual).toBeCloseTo(t, 14);
    expect(r.refinements).toBeGreaterThan(0);
    expect(calls).toBe(r.iterations);
    expect(r.history.length).toBe(r.iterations + 1);
    // the error of a 1e-10 residual, amplified at most by A's condition number (≈ 90 here)
    expect(relDiff(r.x, ref.x)).toBeLessThanOrEqual(1e-7);
    // one Krylov space: at most 1.6 times the f64 solve's iterations to the same tolerance (f32's
    // superlinear phase is slower), where restarted refinement rebuilt it for each correction
    const f64 = await rt.solve(rt.upload(A32.astype('f64')), b, { tol: 1e-10, method: 'cg', preconditioner: 'jacobi' });
    expect(r.iterations).toBeLessThanOrEqual(1.6 * f64.iterations);
    // from an x0: the answer still meets the tolerance by the true residual
    const x0 = Float64Array.from(ref.x, (v) => 0.5 * v);
    const r0 = await rt.solve(h, b, { tol: 1e-10, method: 'cg', preconditioner: 'jacobi', x0 });
    expect(r0.converged).toBe(true);
    expect(trueResidual(A32, r0.x, b)).toBeLessThanOrEqual(1e-10);
    h.dispose();
  });

  it('poisson3D(20) in f32 DIA on the CPU: the f64 head gives the iterations of the plain f64 reference PCG (82; 90 without it)', async () => {
    const A32 = poisson3D(20).astype('f32');
    const A = A32.astype('f64');
    const b = Float64Array.from({ length: A.rows }, (_, i) => Math.sin(0.37 * i) + 0.5);
    const d = Float64Array.from({ length: A.rows }, (_, i) => {
      for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) if (A.colIdx[k] === i) return A.values[k];
      return 0;
    });
    const ref = referencePcg(A, b, (r) => r.map((ri, i) => ri / d[i]), 1e-10, 1000);
    const r = await rt.solve(rt.upload(A32, { format: 'dia' }), b, { tol: 1e-10, method: 'cg', preconditioner: 'jacobi' });
    const t = trueResidual(A32, r.x, b);
    expect([r.converged, r.reason]).toEqual([true, 'converged']);
    expect(t).toBeLessThanOrEqual(1e-10);
    expect(r.relativeResidual).toBeCloseTo(t, 14);
    expect(Math.abs(r.iterations - ref)).toBeLessThanOrEqual(1);
    expect(r.history.length).toBe(r.iterations + 1);
    // the head's answer adopted, and a replacement or two in f32 after it
    expect(r.refinements).toBeGreaterThanOrEqual(2);
  });

  it("poisson3D(64) in f32 to 1e-10 (the bench's refinement cell): a true 1e-10 under the target by the certificate's first bound (max row sum · max|xⱼ|, written here), so its answer needs no pass over A", async () => {
    const A32 = poisson3D(64).astype('f32');
    const b = new Float64Array(A32.rows).fill(1);
    const tol = 1e-10;
    const r = await rt.solve(rt.upload(A32), b, { tol });
    expect([r.converged, r.reason]).toEqual([true, 'converged']);
    const t = trueResidual(A32, r.x, b);
    expect(t).toBeLessThanOrEqual(tol);
    expect(Math.abs(r.relativeResidual - t)).toBeLessThanOrEqual(1e-6 * t);
    // the rounding of ‖b − A·x‖ in f64, bounded from A's largest row sum and x's largest entry (row i's
    // error ≤ (kᵢ + 2)·u·(|bᵢ| + Σⱼ|aᵢⱼ||xⱼ|)): with 2.8e-12 of ‖b‖ here, a residual at 9.75e-11 (the
    // answer's before the f32 steps aimed under it) was certified only by a row-wise pass over A
    let maxRow = 0;
    let rowSum = 0;
    for (let i = 0; i < A32.rows; i++) {
      let s = 0;
      for (let k = A32.rowPtr[i]; k < A32.rowPtr[i + 1]; k++) s += Math.abs(A32.values[k]);
      rowSum = Math.max(rowSum, s);
      maxRow = Math.max(maxRow, A32.rowPtr[i + 1] - A32.rowPtr[i]);
    }
    const xmax = r.x.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
    const bnorm = Math.sqrt(A32.rows);
    const bound = ((maxRow + 2) * 2 ** -53 * (bnorm + Math.sqrt(A32.rows) * rowSum * xmax)) / bnorm;
    expect(bound).toBeGreaterThan(1e-12);
    expect(t + 1.03 * bound).toBeLessThanOrEqual(tol);
    // at most one iteration more than the f64 solve's for that margin
    const f64 = await rt.solve(rt.upload(A32.astype('f64')), b, { tol });
    expect(r.iterations).toBeLessThanOrEqual(f64.iterations + 2);
  });

  it('a shared SPD matrix (494_bus, condition number ≈ 10⁶) stored in f32 reaches a true 1e-10', async () => {
    const A32 = loadShared('494_bus').astype('f32');
    const b = new Float64Array(A32.rows).fill(1);
    const r = await rt.solve(rt.upload(A32), b, { tol: 1e-10, method: 'cg', preconditioner: 'jacobi', maxIter: 20000 });
    const t = trueResidual(A32, r.x, b);
    expect([r.converged, r.reason]).toEqual([true, 'converged']);
    expect(t).toBeLessThanOrEqual(1e-10);
    // what is reported is the exact residual to rounding: near tol the f64 product's own rounding
    // (≈ 1e-12 here) is certified away (true-residual.ts, certified), so the exact one is the reference
    const exact = exactRelativeResidual(A32, r.x, b);
    expect(Math.abs(r.relativeResidual - exact)).toBeLessThanOrEqual(1e-6 * exact);
  });

  it("where f32 cannot resolve A (condition number 10⁹) and no f64 head runs (CSR): the f32 corrections stagnate and the solve goes on in f64 (precisionFallback) to tol; in DIA the f64 head resolves it", async () => {
    const n = 40;
    const d = Float32Array.from({ length: n }, (_, i) => 10 ** ((9 * i) / (n - 1)));
    const A = new CSRMatrix(n, n, 'f32', Int32Array.from({ length: n + 1 }, (_, i) => i), Int32Array.from({ length: n }, (_, i) => i), d);
    // off-diagonal coupling so that CG needs its recurrence (a diagonal alone is solved per component)
    const T = tridiagonal(n);
    const S = new CSRMatrix(n, n, 'f32', T.rowPtr, T.colIdx, Float32Array.from(T.values, (v, k) => (T.colIdx[k] === rowOf(T, k) ? v + d[T.colIdx[k]] : v)));
    const b = Float64Array.from({ length: n }, (_, i) => 1 + 1e-9 * i);
    for (const M of [A, S]) {
      const h = rt.upload(M, { format: 'csr' });
      const r = await rt.solve(h, b, { tol: 1e-14, method: 'cg', preconditioner: 'none', maxIter: 5000 });
      expect(r.precisionFallback).toMatch(/f32 corrections stagnated/);
      expect([r.converged, r.reason]).toEqual([true, 'converged']);
      expect(trueResidual(M, r.x, b)).toBeLessThanOrEqual(1e-14);
      // DIA on the CPU: CG's iterations in f64 down to WIDE_HEAD_GAIN·tol = 1e-6, f32's after
      const dd = await rt.solve(rt.upload(M, { format: 'dia' }), b, { tol: 1e-14, method: 'cg', preconditioner: 'none', maxIter: 5000 });
      expect([dd.converged, dd.reason]).toEqual([true, 'converged']);
      expect(trueResidual(M, dd.x, b)).toBeLessThanOrEqual(1e-14);
    }
  });

  it('a uniform Jacobi D⁻¹ = c·I (c > 0) only scales: the f32 steps and the f64 head run without it (cg_update_f32, cg_residual_jacobi_scalar_f64 with c = 1), the plain f64 reference PCG\'s iterations ± 1 and a true 1e-10; a varying diagonal keeps Jacobi', async () => {
    // 24: more than half its 4-row groups uniform (a grid line's first and last are not), as uploadMatrix flags them
    const P = poisson3D(24).astype('f32');
    const b = rhs(P.rows, 3);
    // the diagonal varied in one row: D⁻¹ not uniform
    const varied = Float32Array.from(P.values, (v, k) => (P.colIdx[k] === 5 && rowOf(P, k) === 5 ? 6.5 : v));
    const cases = [
      { A: P, uniform: true },
      { A: new CSRMatrix(P.rows, P.cols, 'f32', P.rowPtr, P.colIdx, varied), uniform: false },
    ];
    for (const { A, uniform } of cases) {
      const A64 = A.astype('f64');
      const d = Float64Array.from({ length: A.rows }, (_, i) => A64.values[A64.rowPtr[i] + [...A64.colIdx.subarray(A64.rowPtr[i], A64.rowPtr[i + 1])].indexOf(i)]);
      const ref = referencePcg(A64, b, (r) => r.map((ri, i) => ri / d[i]), 1e-10, 1000);
      const M = cpu.upload(DIAMatrix.fromCSR(A));
      const ops = cpuSolverOps(cpu, M, 'jacobi');
      const io = {
        upload: (v: Float64Array) => {
          const h = ops.vector();
          h.view().set(v);
          return h;
        },
        read: async (v: CpuVector) => v.view(),
      };
      try {
        expect(ops.preconditionScale !== undefined).toBe(uniform);
        const { value: r, kernels } = await kernelsOf(cpu, () => solveWithTrueResidual(ops, io, A, b, cg, { tol: 1e-10, single: true }));
        expect([r.converged, r.reason]).toEqual([true, 'converged']);
        expect(trueResidual(A, r.x, b)).toBeLessThanOrEqual(1e-10);
        expect(Math.abs(r.iterations - ref), `reference ${ref}`).toBeLessThanOrEqual(1);
        // f32 steps after the f64 head, whose products read the stencil's uniform 4-row groups from
        // constants (cg_dia_direction…f64f32u, as the f64 solve's own) — and so do the f32 steps', its
        // 16-row blocks' (cg_dia_f32u), with or without Jacobi: A's upload flagged them (src/cpu/uniform-f32.ts)
        expect([...kernels].some((k) => k.startsWith('cg_dia_direction') && k.endsWith('_f64f32u'))).toBe(true);
        expect([kernels.has('cg_dia_f32u'), kernels.has('cg_dia_f32')]).toEqual([true, false]);
        // the f32 steps and the f64 head: without Jacobi where it only scales, with it otherwise
        expect([kernels.has('cg_update_f32'), kernels.has('cg_update_jacobi_scalar_f32') || kernels.has('cg_update_jacobi_f32')]).toEqual([uniform, !uniform]);
        // (the head's x step deferred to its product either way: without Jacobi the scalar kernels with c = 1)
        expect([kernels.has('cg_residual_jacobi_scalar_f64'), kernels.has('cg_residual_jacobi_f64')]).toEqual([uniform, !uniform]);
      } finally {
        ops.dispose();
        M.dispose();
      }
    }
  });

  it('maxIter, a breakdown and NaN end honestly: the true residual of the iterate reached, the reason given', async () => {
    const A32 = poisson3D(8).astype('f32');
    const b = rhs(A32.rows);
    const h = rt.upload(A32);
    const r = await rt.solve(h, b, { tol: 1e-10, method: 'cg', preconditioner: 'jacobi', maxIter: 5 });
    expect([r.converged, r.reason, r.iterations]).toEqual([false, 'maxIter', 5]);
    expect(r.relativeResidual).toBeCloseTo(trueResidual(A32, r.x, b), 14);
    // an indefinite matrix (the diagonal of the first half of the rows negated): CG's breakdown, the
    // true residual of where it stopped
    const neg = Float32Array.from(A32.values);
    for (let i = 0; i < A32.rows / 2; i++) for (let k = A32.rowPtr[i]; k < A32.rowPtr[i + 1]; k++) if (A32.colIdx[k] === i) neg[k] = -neg[k];
    const I = new CSRMatrix(A32.rows, A32.cols, 'f32', A32.rowPtr, A32.colIdx, neg);
    const br = await rt.solve(rt.upload(I), b, { tol: 1e-10, method: 'cg', preconditioner: 'none' });
    expect([br.converged, br.reason]).toEqual([false, 'breakdown']);
    expect(br.relativeResidual).toBeCloseTo(trueResidual(I, br.x, b), 14);
    const bad = Float64Array.from(b);
    bad[3] = NaN;
    const n = await rt.solve(h, bad, { tol: 1e-10, method: 'cg', preconditioner: 'jacobi' });
    expect([n.converged, n.reason]).toEqual([false, 'nan']);
    h.dispose();
  });
});

function rowOf(A: CSRMatrix, k: number): number {
  let i = 0;
  while (A.rowPtr[i + 1] <= k) i++;
  return i;
}
