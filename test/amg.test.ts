import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix, isPrivateCanonical, validateCanonical } from '../src/formats/csr.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import { diffusion2D, diffusion3D } from '../src/generators/diffusion.js';
import { elasticity2D, elasticity2DModes } from '../src/generators/elasticity.js';
import { DisposedError, OptionError, ShapeError, UnsupportedError } from '../src/errors.js';
import { buildHierarchy } from '../src/solvers/amg/hierarchy.js';
import type { SparseKernels } from '../src/solvers/amg/spgemm.js';
import { CpuSparseSession } from '../src/cpu/spgemm.js';
import { amalgamate, strengthAggregation, strongRow } from '../src/solvers/amg/aggregate.js';
import { fitCandidates } from '../src/solvers/amg/tentative.js';
import { loadShared } from './matrices.js';
import { trueResidual } from './solve-reference.js';
import { pointDawnAtSwiftShader } from './webgpu-helpers.js';

/** dense copy of a small CSR (plain f64) */
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

/** each level's dinv: 1/aᵢᵢ from a dense copy where aᵢᵢ > 0, else 0 */
function expectInverseDiagonals(levels: { A: CSRMatrix; dinv: Float64Array }[]): void {
  levels.forEach(({ A, dinv }, l) => {
    const Ad = dense(A);
    expect(Array.from(dinv), `level ${l}`).toEqual(Ad.map((row, i) => (row[i] > 0 ? 1 / row[i] : 0)));
  });
}

describe('amg setup', () => {
  // the setup's products on the pool's kernels, as the runtime runs them
  let setupRt: Runtime;
  let kernels: SparseKernels;
  beforeAll(async () => {
    setupRt = await createRuntime({ workers: 2 });
    kernels = () => new CpuSparseSession(setupRt.cpuBackend);
  });
  afterAll(() => setupRt.dispose());
  it('symmetric strength against a dense reference: |aᵢⱼ| ≥ θ·√|aᵢᵢ·aⱼⱼ|, no diagonal, rows without or with a negative diagonal, the diagonal searched or given', () => {
    // a row with no stored diagonal (row 2) and one with a negative diagonal (row 4)
    const odd = new CSRMatrix(5, 5, 'f64', Int32Array.of(0, 2, 5, 7, 10, 12), Int32Array.of(0, 1, 0, 1, 3, 1, 3, 2, 3, 4, 3, 4), Float64Array.of(4, -1, -1, 4, -0.5, -1, 0.3, -0.5, 2, -2, -2, -3));
    for (const A of [diffusion2D({ n: 12, coefficients: 'jumping' }), loadShared('bcsstk13'), odd]) {
      const D = dense(A);
      for (const theta of [0, 0.02, 0.25]) {
        const G = strongRow(A, theta, undefined);
        // with the diagonal given (as the setup passes it): the same rows
        const given = strongRow(A, theta, Float64Array.from(D, (row, i) => row[i]));
        const out = new Int32Array(A.rows);
        const rowOf = (row: typeof G, i: number) => Array.from(out.subarray(0, row(i, out)));
        for (let i = 0; i < A.rows; i++) {
          const ref: number[] = [];
          for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
            const j = A.colIdx[k];
            const a = Math.abs(A.values[k]);
            if (j !== i && a !== 0 && a >= theta * Math.sqrt(Math.abs(D[i][i])) * Math.sqrt(Math.abs(D[j][j]))) ref.push(j);
          }
          expect(rowOf(G, i), `θ ${theta}, row ${i}`).toEqual(ref);
          expect(rowOf(given, i), `θ ${theta}, row ${i}, diagonal given`).toEqual(ref);
        }
      }
    }
  });

  it('standard aggregation covers every connected node once, each aggregate connected to its root', () => {
    for (const A of [poisson2D(17), loadShared('494_bus'), loadShared('bcsstk13')]) {
      const strong = strongRow(A, 0, undefined);
      const out = new Int32Array(A.rows);
      const { agg, count } = strengthAggregation(A, 0);
      const size = new Int32Array(count);
      for (let i = 0; i < A.rows; i++) {
        const isolated = strong(i, out) === 0;
        expect(agg[i] >= 0, `node ${i}`).toBe(!isolated);
        if (agg[i] >= 0) size[agg[i]]++;
      }
      expect(size.every((s) => s > 0)).toBe(true);
      expect(count).toBeLessThan(A.rows / 2);
    }
  });

  it('aggregation with the strength found on the fly (the setup\'s): the plain three-pass reference, node for node', () => {
    const isolatedRows = new CSRMatrix(5, 5, 'f64', Int32Array.of(0, 2, 3, 5, 6, 8), Int32Array.of(0, 1, 1, 2, 3, 3, 3, 4), Float64Array.of(4, -1, 4, 4, -1, 4, -1, 4));
    for (const A of [poisson2D(17), diffusion2D({ n: 20, coefficients: 'jumping' }), loadShared('494_bus'), loadShared('bcsstk13'), isolatedRows]) {
      const D = dense(A);
      for (const theta of [0, 0.02, 0.25, 0.6]) {
        // strong lists by the definition, then PyAMG's passes
        const strong = D.map((row, i) => row.map((a, j) => (j !== i && a !== 0 && Math.abs(a) >= theta * Math.sqrt(Math.abs(row[i])) * Math.sqrt(Math.abs(D[j][j])) ? j : -1)).filter((j) => j >= 0));
        const ref = new Array<number>(A.rows).fill(-1);
        let count = 0;
        strong.forEach((nb, i) => {
          if (ref[i] !== -1 || nb.length === 0 || nb.some((j) => ref[j] !== -1)) return;
          for (const j of [i, ...nb]) ref[j] = count;
          count++;
        });
        const pass1 = ref.slice();
        strong.forEach((nb, i) => {
          if (ref[i] !== -1 || nb.length === 0) return;
          const j = nb.find((k) => pass1[k] >= 0);
          if (j !== undefined) ref[i] = pass1[j];
        });
        strong.forEach((nb, i) => {
          if (ref[i] !== -1 || nb.length === 0) return;
          ref[i] = count;
          for (const j of nb) if (ref[j] === -1) ref[j] = count;
          count++;
        });
        const got = strengthAggregation(A, theta);
        expect(got.count, `θ ${theta}`).toBe(count);
        expect(Array.from(got.agg), `θ ${theta}`).toEqual(ref);
      }
    }
  });

  it('hierarchy invariants: P, R and the coarse levels canonical, P full column rank, R = Pᵀ, R·A·P equal to a dense reference and symmetric, complexities bounded', () => {
    const A = poisson2D(24);
    const h = buildHierarchy(A, kernels, { maxCoarse: 20 });
    expect(h.levels.length).toBeGreaterThanOrEqual(3);
    expect(h.stop).toBe('size');
    for (let l = 0; l + 1 < h.levels.length; l++) {
      const { A: Al, P, R } = h.levels[l];
      // marked private and canonical (the cycle's uploads skip validation): valid, columns strictly ascending
      for (const M of [P!, R!, h.levels[l + 1].A]) expect(isPrivateCanonical(M) && validateCanonical(M)).toBe(true);
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
    expectInverseDiagonals(h.levels);
    // the coarse solve: the dense inverse·A_coarse = I (an SPD coarsest matrix drops no unknown)
    const Ac = dense(h.levels[h.levels.length - 1].A);
    const m = Ac.length;
    // these kernels have no sparse Cholesky (SparseKernels.coarse): the coarsest level is inverted dense
    if (h.coarse.kind !== 'dense') throw new Error(`a ${h.coarse.kind} coarse solve`);
    const { inverse } = h.coarse;
    for (let i = 0; i < m; i++) {
      for (let j = 0; j < m; j++) {
        let s = 0;
        for (let k = 0; k < m; k++) s += inverse[i * m + k] * Ac[k][j];
        expect(Math.abs(s - (i === j ? 1 : 0))).toBeLessThan(1e-10);
      }
    }
    const nnz = h.levels.reduce((s, L) => s + L.A.nnz, 0) / A.nnz;
    const rows = h.levels.reduce((s, L) => s + L.A.rows, 0) / A.rows;
    expect(nnz).toBeLessThan(2);
    expect(rows).toBeLessThan(1.5);
  });

  it('a setup of ≥ 100 000 rows, which first runs the kernels once on a small Laplacian (V8 tier-up), builds the hierarchy a second setup with warm kernels builds', () => {
    const A = poisson2D(317);
    const fresh: SparseKernels = () => new CpuSparseSession(setupRt.cpuBackend);
    const [h1, h2] = [buildHierarchy(A, fresh), buildHierarchy(A, fresh)];
    expect(h1.levels.map((L) => L.A.rows)).toEqual(h2.levels.map((L) => L.A.rows));
    h1.levels.forEach((L, l) => {
      for (const k of ['A', 'P', 'R'] as const) {
        if (!L[k]) continue;
        expect(Array.from(L[k]!.colIdx), `level ${l} ${k}`).toEqual(Array.from(h2.levels[l][k]!.colIdx));
        expect(Array.from(L[k]!.values), `level ${l} ${k}`).toEqual(Array.from(h2.levels[l][k]!.values));
      }
      expect(L.rho).toBe(h2.levels[l].rho);
    });
  });

  it('stalled coarsening stops with a reason (a diagonal matrix has no strong connections)', () => {
    const n = 600;
    const D = new CSRMatrix(n, n, 'f64', Int32Array.from({ length: n + 1 }, (_, i) => i), Int32Array.from({ length: n }, (_, i) => i), new Float64Array(n).fill(2));
    const h = buildHierarchy(D, kernels);
    expect(h.stop).toBe('stalled');
    expect(h.stopReason).toMatch(/600 rows make 0 aggregates/);
  });

  it('tentative prolongator from a near-null space: orthonormal columns, T·B_c = B exactly', () => {
    const n = 6;
    const K = elasticity2D(n);
    const B = elasticity2DModes(n);
    const nodes = K.rows / 2;
    const { agg, count } = strengthAggregation(amalgamate(K, 2), 0);
    const { T, coarse } = fitCandidates(agg, count, 2, B);
    expect([T.rows, T.cols, coarse.length]).toEqual([K.rows, 3 * count, 3]);
    const Td = dense(T);
    // TᵀT = I on the columns that are kept (a node-short aggregate may drop a mode: a zero column)
    for (let a = 0; a < T.cols; a++) {
      for (let b = 0; b < T.cols; b++) {
        let s = 0;
        for (let i = 0; i < T.rows; i++) s += Td[i][a] * Td[i][b];
        const kept = Td.some((r) => r[a] !== 0);
        expect(Math.abs(s - (a === b && kept ? 1 : 0))).toBeLessThan(1e-12);
      }
    }
    for (let k = 0; k < 3; k++) {
      for (let i = 0; i < T.rows; i++) {
        let s = 0;
        for (let c = 0; c < T.cols; c++) s += Td[i][c] * coarse[k][c];
        expect(Math.abs(s - B[k][i])).toBeLessThan(1e-12);
      }
    }
  });

  it('tentative prolongator from one candidate on scalar nodes: one entry per aggregated row, orthonormal columns, T·b_c = b; nodes in no aggregate and an aggregate where b vanishes give zero rows and columns', () => {
    const n = 40;
    const count = 7;
    const agg = Int32Array.from({ length: n }, (_, i) => (i % 9 === 4 ? -1 : (i * 5) % count));
    const b = Float64Array.from({ length: n }, (_, i) => (agg[i] === 3 ? 0 : 0.5 + Math.cos(i)));
    const { T, coarse } = fitCandidates(agg, count, 1, [b]);
    expect([T.rows, T.cols, coarse.length, coarse[0].length]).toEqual([n, count, 1, count]);
    const Td = dense(T);
    for (let i = 0; i < n; i++) expect(T.rowPtr[i + 1] - T.rowPtr[i]).toBe(agg[i] >= 0 ? 1 : 0);
    for (let a = 0; a < count; a++) {
      for (let c = 0; c < count; c++) {
        let s = 0;
        for (let i = 0; i < n; i++) s += Td[i][a] * Td[i][c];
        expect(Math.abs(s - (a === c && a !== 3 ? 1 : 0))).toBeLessThan(1e-14);
      }
    }
    expect(coarse[0][3]).toBe(0);
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let c = 0; c < count; c++) s += Td[i][c] * coarse[0][c];
      expect(Math.abs(s - (agg[i] >= 0 ? b[i] : 0))).toBeLessThan(1e-14);
    }
  });

  it('the rigid-body modes are K\'s near-null space: K·mode vanishes away from the clamped edge', () => {
    const n = 8;
    const K = elasticity2D(n);
    for (const m of elasticity2DModes(n)) {
      for (let i = 0; i < K.rows; i++) {
        const column = (i >> 1) % n; // 0 = the free nodes next to the clamped edge
        if (column === 0) continue;
        let s = 0;
        for (let k = K.rowPtr[i]; k < K.rowPtr[i + 1]; k++) s += K.values[k] * m[K.colIdx[k]];
        expect(Math.abs(s)).toBeLessThan(1e-12);
      }
    }
  });

  it('hierarchy invariants with the rigid-body modes (blockSize 2): P full column rank, R = Pᵀ, coarse A symmetric, complexities bounded', () => {
    const n = 10;
    const K = elasticity2D(n);
    const h = buildHierarchy(K, kernels, { nearNullSpace: elasticity2DModes(n), blockSize: 2, maxCoarse: 40 });
    expect(h.levels.length).toBeGreaterThanOrEqual(2);
    expect(h.levels[1].blockSize).toBe(3);
    for (let l = 0; l + 1 < h.levels.length; l++) {
      const { P, R } = h.levels[l];
      const Pd = dense(P!);
      const zeroColumns = Array.from({ length: P!.cols }, (_, c) => Pd.every((r) => r[c] === 0)).filter(Boolean).length;
      expect(rank(Pd)).toBe(P!.cols - zeroColumns);
      expect(dense(R!)).toEqual(Pd[0].map((_, c) => Pd.map((r) => r[c])));
      const Ac = h.levels[l + 1].A;
      const At = Ac.transpose();
      for (let k = 0; k < Ac.nnz; k++) expect(Math.abs(Ac.values[k] - At.values[k])).toBeLessThanOrEqual(1e-12 * (1 + Math.abs(Ac.values[k])));
    }
    // zero columns of P leave empty rows (no diagonal: dinv 0) on the coarse levels
    expectInverseDiagonals(h.levels);
    const oc = h.levels.reduce((s, L) => s + L.A.nnz, 0) / K.nnz;
    expect(oc).toBeLessThan(2.5);
  });

  it('an indefinite matrix with a positive diagonal is refused at setup (a negative Ritz value), not left to diverge', () => {
    const A = poisson2D(20);
    for (let i = 0; i < A.rows; i++) for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) if (A.colIdx[k] === i) A.values[k] = 2; // eigenvalues of A − 2I span (−2, 6)
    expect(() => buildHierarchy(A, kernels)).toThrow(UnsupportedError);
    expect(() => buildHierarchy(A, kernels)).toThrow(/indefinite/);
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

  it('every smoother and cycle converges on poisson3D(16) in ≤ 20 iterations; W needs no more than V', async () => {
    const A = poisson3D(16);
    const h = rt.upload(A);
    const b = new Float64Array(A.rows).map((_, i) => 1 + Math.sin(i));
    for (const smoother of ['jacobi', 'gauss-seidel', 'chebyshev'] as const) {
      const its: number[] = [];
      for (const cycle of ['V', 'W'] as const) {
        const M = rt.amg(h, { smoother, cycle, maxCoarse: 50 });
        expect(M.amg!.levels.length).toBeGreaterThanOrEqual(3);
        const r = await rt.cg(h, b, { preconditioner: M, tol: 1e-8 });
        expect(r.converged, `${smoother} ${cycle}`).toBe(true);
        expect(trueResidual(A, r.x, b)).toBeLessThanOrEqual(1e-8);
        its.push(r.iterations);
        M.dispose();
      }
      expect(its[0], smoother).toBeLessThanOrEqual(20);
      expect(its[1], smoother).toBeLessThanOrEqual(its[0]);
    }
  });

  it('convergence per level count: each added level keeps the iterations of the two-level method within a few', async () => {
    const A = poisson2D(48);
    const h = rt.upload(A);
    const b = new Float64Array(A.rows).fill(1);
    const its: number[] = [];
    for (const maxLevels of [2, 3, 4]) {
      const M = rt.amg(h, { maxLevels, maxCoarse: 1 });
      expect(M.amg!.levels.length).toBe(maxLevels);
      expect(M.amg!.stop).toBe('maxLevels');
      const r = await rt.cg(h, b, { preconditioner: M, tol: 1e-8 });
      expect(r.converged).toBe(true);
      its.push(r.iterations);
      M.dispose();
    }
    for (const k of its) expect(k - its[0]).toBeLessThanOrEqual(4);
  });

  it('jumping coefficients (contrast 1e4): AMG (θ = 0.02) stays under 20 iterations where Jacobi-PCG needs many more; θ = 0 does not', async () => {
    const A = diffusion3D({ n: 20, coefficients: 'jumping' });
    const h = rt.upload(A);
    const b = new Float64Array(A.rows).fill(1);
    const amg = await rt.solve(h, b, { method: 'cg', preconditioner: 'amg' });
    const theta0 = await rt.solve(h, b, { method: 'cg', preconditioner: rt.amg(h, { theta: 0 }) });
    expect(theta0.iterations).toBeGreaterThan(30);
    const jac = await rt.solve(h, b, { method: 'cg', preconditioner: 'jacobi', maxIter: 5000 });
    expect(amg.converged && jac.converged).toBe(true);
    expect(amg.iterations).toBeLessThanOrEqual(20);
    expect(amg.iterations * 3).toBeLessThan(jac.iterations);
    expect(trueResidual(A, amg.x, b)).toBeLessThanOrEqual(1e-8);
  });

  it('elasticity: the rigid-body modes as near-null space cut the iterations several-fold against the constant', async () => {
    const n = 48;
    const K = elasticity2D(n);
    const h = rt.upload(K);
    const b = new Float64Array(K.rows).map((_, i) => (i % 2 ? -1 : 0.5));
    const withModes = rt.amg(h, { nearNullSpace: elasticity2DModes(n), blockSize: 2 });
    expect(withModes.amg!.levels[1].blockSize).toBe(3);
    const a = await rt.cg(h, b, { preconditioner: withModes, tol: 1e-8, maxIter: 2000 });
    const c = await rt.cg(h, b, { preconditioner: rt.amg(h), tol: 1e-8, maxIter: 2000 });
    expect(a.converged && c.converged).toBe(true);
    expect(trueResidual(K, a.x, b)).toBeLessThanOrEqual(1e-8);
    expect(a.iterations * 3).toBeLessThan(c.iterations);
  });

  it("'auto' takes AMG for a large Laplacian-like matrix and says why; Jacobi for a smaller one (diagonally dominant)", async () => {
    const big = rt.upload(diffusion2D({ n: 230, coefficients: (x, y) => 1 + x + y })); // 52900 rows, a smooth k
    const e = rt.explain('solve', big);
    expect(e.preconditioner).toBe('amg');
    expect(e.reasons.join(' ')).toMatch(/preconditioner amg: symmetric with Laplacian-like rows/);
    const r = await rt.solve(big, new Float64Array(big.rows).fill(1));
    expect([r.preconditioner, r.converged]).toEqual(['amg', true]);
    expect(r.iterations).toBeLessThanOrEqual(20);
    expect(rt.explain('solve', rt.upload(poisson3D(32))).preconditioner).toBe('jacobi');
    // elasticity is SPD but not Laplacian-like (positive off-diagonals): no AMG without its modes
    expect(rt.explain('solve', rt.upload(elasticity2D(170))).preconditioner).not.toBe('amg');
  });

  it('f32 storage, and a semidefinite (pure-Neumann) Laplacian with a consistent right-hand side: the coarse pseudo-inverse keeps the cycle usable', async () => {
    const P = poisson2D(30);
    const h32 = rt.upload(P.astype('f32'));
    const b = new Float64Array(P.rows).map((_, i) => Math.cos(i));
    const r32 = await rt.solve(h32, b, { method: 'cg', preconditioner: 'amg', tol: 1e-6 });
    expect([r32.converged, r32.preconditioner]).toEqual([true, 'amg']);
    expect(trueResidual(P, r32.x, b)).toBeLessThanOrEqual(1e-6);
    // the graph Laplacian of the same grid: each diagonal the sum of its row's |off-diagonals|
    const N = P.toCSR();
    const values = Float64Array.from(N.values);
    for (let i = 0; i < N.rows; i++) {
      let off = 0;
      for (let k = N.rowPtr[i]; k < N.rowPtr[i + 1]; k++) if (N.colIdx[k] !== i) off -= values[k];
      for (let k = N.rowPtr[i]; k < N.rowPtr[i + 1]; k++) if (N.colIdx[k] === i) values[k] = off;
    }
    const L = new CSRMatrix(N.rows, N.cols, 'f64', N.rowPtr, N.colIdx, values);
    const mean = b.reduce((a, v) => a + v, 0) / b.length;
    const bc = b.map((v) => v - mean); // orthogonal to the constant null vector: consistent
    const M = rt.amg(rt.upload(L), { maxCoarse: 40 });
    const r = await rt.solve(M.matrix, bc, { method: 'cg', preconditioner: M, tol: 1e-8 });
    expect(r.converged).toBe(true);
    expect(r.iterations).toBeLessThanOrEqual(20);
    expect(trueResidual(L, r.x, bc)).toBeLessThanOrEqual(1e-8);
  });

  it('bad near-null spaces and block sizes are ShapeErrors naming the option', () => {
    const h = rt.upload(poisson2D(8));
    expect(() => rt.amg(h, { nearNullSpace: [new Float64Array(63)] })).toThrow(ShapeError);
    expect(() => rt.amg(h, { nearNullSpace: [new Float64Array(64).fill(NaN)] })).toThrow(/nearNullSpace\[0\] has a non-finite entry/);
    expect(() => rt.amg(h, { blockSize: 3 })).toThrow(/blockSize 3 does not divide the 64 rows/);
    expect(() => rt.amg(h, { smoother: 'sor' as never })).toThrow(/amg.smoother/);
    expect(() => rt.amg(h, { cycle: 'F' as never })).toThrow(/amg.cycle/);
  });

  it('bad options are typed errors naming the option; a disposed hierarchy is refused', async () => {
    const h = rt.upload(poisson2D(8));
    expect(() => rt.amg(h, { theta: 1 })).toThrow(/^amg: amg\.theta must be a number in \[0, 1\), got the number 1/);
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

  it('every smoother and the W-cycle on the device, and per level count: the CPU path’s iterations within 2', async () => {
    const A = poisson2D(24);
    const b = new Float64Array(A.rows).map((_, i) => 1 + Math.sin(i));
    const hg = gpu.upload(A);
    const hc = cpu.upload(A);
    const cases: Parameters<Runtime['amg']>[1][] = [{ smoother: 'chebyshev' }, { smoother: 'gauss-seidel' }, { cycle: 'W' }, { maxLevels: 2 }, { maxLevels: 4, maxCoarse: 1 }];
    for (const o of cases) {
      const Mg = gpu.amg(hg, { maxCoarse: 30, ...o });
      const g = await gpu.solve(hg, b, { method: 'cg', tol: 1e-8, preconditioner: Mg });
      const c = await cpu.solve(hc, b, { method: 'cg', tol: 1e-8, preconditioner: cpu.amg(hc, { maxCoarse: 30, ...o }) });
      expect([g.path, g.converged], JSON.stringify(o)).toEqual(['webgpu', true]);
      expect(trueResidual(A, g.x, b)).toBeLessThanOrEqual(1e-8);
      expect(Math.abs(g.iterations - c.iterations), JSON.stringify(o)).toBeLessThanOrEqual(2);
      Mg.dispose();
    }
  });
});
