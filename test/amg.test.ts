import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import { DisposedError, OptionError, UnsupportedError } from '../src/errors.js';
import { buildHierarchy } from '../src/solvers/amg/hierarchy.js';
import { standardAggregation, symmetricStrength } from '../src/solvers/amg/aggregate.js';
import { loadShared } from './matrices.js';
import { pointDawnAtSwiftShader } from './webgpu-helpers.js';

/** dense copy of a small CSR (plain f64) */
/** ‖b − A·x‖ / ‖b‖ in plain f64 */
function trueResidual(A: CSRMatrix, x: ArrayLike<number>, b: Float64Array): number {
  let rr = 0;
  let bb = 0;
  for (let i = 0; i < A.rows; i++) {
    let s = b[i];
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) s -= A.values[k] * x[A.colIdx[k]];
    rr += s * s;
    bb += b[i] * b[i];
  }
  return Math.sqrt(rr / bb);
}

function dense(M: CSRMatrix): number[][] {
  const D = Array.from({ length: M.rows }, () => new Array<number>(M.cols).fill(0));
  for (let i = 0; i < M.rows; i++) for (let k = M.rowPtr[i]; k < M.rowPtr[i + 1]; k++) D[i][M.colIdx[k]] += M.values[k];
  return D;
}

/** numerical rank by Gaussian elimination with full pivoting on a copy */
function rank(D: number[][]): number {
  const A = D.map((r) => r.slice());
  const [m, n] = [A.length, A[0]?.length ?? 0];
  const scale = Math.max(1e-300, ...A.flat().map(Math.abs));
  let r = 0;
  for (let c = 0; c < n && r < m; c++) {
    let p = r;
    for (let i = r; i < m; i++) if (Math.abs(A[i][c]) > Math.abs(A[p][c])) p = i;
    if (Math.abs(A[p][c]) <= 1e-10 * scale) continue;
    [A[r], A[p]] = [A[p], A[r]];
    for (let i = r + 1; i < m; i++) {
      const f = A[i][c] / A[r][c];
      for (let j = c; j < n; j++) A[i][j] -= f * A[r][j];
    }
    r++;
  }
  return r;
}

describe('amg setup', () => {
  it('standard aggregation covers every connected node once, each aggregate connected to its root', () => {
    for (const A of [poisson2D(17), loadShared('494_bus'), loadShared('bcsstk13')]) {
      const G = symmetricStrength(A, 0);
      const { agg, count } = standardAggregation(G, A.rows);
      const size = new Int32Array(count);
      for (let i = 0; i < A.rows; i++) {
        const isolated = G.ptr[i] === G.ptr[i + 1];
        expect(agg[i] >= 0, `node ${i}`).toBe(!isolated);
        if (agg[i] >= 0) size[agg[i]]++;
      }
      expect(size.every((s) => s > 0)).toBe(true);
      expect(count).toBeLessThan(A.rows / 2);
    }
  });

  it('hierarchy invariants: P full column rank, R = Pᵀ, R·A·P equal to a dense reference and symmetric, complexities bounded', () => {
    const A = poisson2D(24);
    const h = buildHierarchy(A, { maxCoarse: 20 });
    expect(h.levels.length).toBeGreaterThanOrEqual(3);
    expect(h.stop).toBe('size');
    for (let l = 0; l + 1 < h.levels.length; l++) {
      const { A: Al, P, R } = h.levels[l];
      const Pd = dense(P!);
      const Rd = dense(R!);
      expect(rank(Pd)).toBe(P!.cols);
      for (let i = 0; i < P!.rows; i++) for (let j = 0; j < P!.cols; j++) expect(Rd[j][i]).toBe(Pd[i][j]);
      // the Galerkin product against a dense triple product
      const Ad = dense(Al);
      const Ac = dense(h.levels[l + 1].A);
      const nc = P!.cols;
      const AP = Ad.map((row) => Array.from({ length: nc }, (_, j) => row.reduce((s, a, k) => s + a * Pd[k][j], 0)));
      for (let i = 0; i < nc; i++) {
        for (let j = 0; j < nc; j++) {
          let ref = 0;
          for (let k = 0; k < Ad.length; k++) ref += Pd[k][i] * AP[k][j];
          expect(Math.abs(Ac[i][j] - ref)).toBeLessThanOrEqual(1e-12 * (1 + Math.abs(ref)));
          expect(Math.abs(Ac[i][j] - Ac[j][i])).toBeLessThanOrEqual(1e-12 * (1 + Math.abs(Ac[i][j])));
        }
      }
    }
    const nnz = h.levels.reduce((s, L) => s + L.A.nnz, 0) / A.nnz;
    const rows = h.levels.reduce((s, L) => s + L.A.rows, 0) / A.rows;
    expect(nnz).toBeLessThan(2);
    expect(rows).toBeLessThan(1.5);
  });

  it('stalled coarsening stops with a reason (a diagonal matrix has no strong connections)', () => {
    const n = 600;
    const D = new CSRMatrix(n, n, 'f64', Int32Array.from({ length: n + 1 }, (_, i) => i), Int32Array.from({ length: n }, (_, i) => i), new Float64Array(n).fill(2));
    const h = buildHierarchy(D);
    expect(h.stop).toBe('stalled');
    expect(h.stopReason).toMatch(/600 rows make 0 aggregates/);
  });
});

describe('AMG-PCG', () => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await createRuntime({ workers: 2 });
  });
  afterAll(() => rt.dispose());

  it('iterations nearly constant as poisson3D grows (≤ 20 to 1e-8), true residual met', async () => {
    const its: number[] = [];
    for (const n of [12, 20, 28]) {
      const A = poisson3D(n);
      const h = rt.upload(A);
      const b = new Float64Array(A.rows).map((_, i) => Math.sin(i));
      const out = await rt.solve(h, b, { method: 'cg', preconditioner: 'amg', tol: 1e-8 });
      expect(out.converged, `poisson3D(${n})`).toBe(true);
      expect(out.preconditioner).toBe('amg');
      its.push(out.iterations);
      expect(trueResidual(A, out.x, b)).toBeLessThanOrEqual(1e-8);
    }
    expect(Math.max(...its)).toBeLessThanOrEqual(20);
    expect(its[2] - its[0]).toBeLessThanOrEqual(4);
  });

  it('poisson2D and a stiffness matrix (bcsstk13) converge; fewer iterations than Jacobi-PCG', async () => {
    for (const A of [poisson2D(64), loadShared('bcsstk13')]) {
      const h = rt.upload(A);
      const b = new Float64Array(A.rows).fill(1);
      const amg = await rt.solve(h, b, { method: 'cg', preconditioner: 'amg', tol: 1e-8, maxIter: 5000 });
      const jac = await rt.solve(h, b, { method: 'cg', preconditioner: 'jacobi', tol: 1e-8, maxIter: 5000 });
      expect(amg.converged).toBe(true);
      expect(amg.iterations).toBeLessThan(jac.iterations);
    }
  });

  it('bad options are typed errors naming the option; a disposed hierarchy is refused', async () => {
    const h = rt.upload(poisson2D(8));
    expect(() => rt.amg(h, { theta: 1 })).toThrow(/amg.theta must be in \[0, 1\)/);
    expect(() => rt.amg(h, { maxCoarse: 0 })).toThrow(RangeError);
    expect(() => rt.amg(h, { sweeps: 1.5 })).toThrow(/amg.sweeps/);
    expect(() => rt.amg(h, { thta: 0.1 } as never)).toThrow(OptionError);
    const M = rt.amg(h, { maxCoarse: 10 });
    expect(M.amg!.levels.map((l) => l.rows)[0]).toBe(64);
    M.dispose();
    await expect(rt.cg(h, new Float64Array(64).fill(1), { preconditioner: M })).rejects.toThrow(DisposedError);
  });

  it('a nonsymmetric or complex matrix is an UnsupportedError, not a silent divergence', async () => {
    for (const name of ['west0479', 'young1c']) {
      const h = rt.upload(loadShared(name));
      await expect(rt.solve(h, new Float64Array(h.rows * (name === 'young1c' ? 2 : 1)).fill(1), { preconditioner: 'amg' })).rejects.toThrow(UnsupportedError);
    }
  });
});

describe('AMG-PCG on the WebGPU path (Dawn + SwiftShader)', () => {
  let gpu: Runtime;
  let cpu: Runtime;
  beforeAll(async () => {
    pointDawnAtSwiftShader();
    gpu = await createRuntime({ backend: 'webgpu', workers: 1 });
    cpu = await createRuntime({ workers: 1 });
  });
  afterAll(() => {
    gpu?.dispose();
    cpu?.dispose();
  });

  it('the cycle runs on the device: converges to 1e-8 in about the CPU path’s iterations', async () => {
    const A = poisson2D(40);
    const b = new Float64Array(A.rows).map((_, i) => Math.cos(0.3 * i));
    const opts = { method: 'cg', tol: 1e-8 } as const;
    const Mg = gpu.amg(gpu.upload(A), { maxCoarse: 100 });
    expect(Mg.amg!.levels.length).toBeGreaterThanOrEqual(3);
    const g = await gpu.solve(Mg.matrix, b, { ...opts, preconditioner: Mg });
    const hc = cpu.upload(A);
    const c = await cpu.solve(hc, b, { ...opts, preconditioner: cpu.amg(hc, { maxCoarse: 100 }) });
    expect([g.path, g.converged]).toEqual(['webgpu', true]);
    expect(trueResidual(A, g.x, b)).toBeLessThanOrEqual(1e-8);
    expect(Math.abs(g.iterations - c.iterations)).toBeLessThanOrEqual(2);
  });
});
