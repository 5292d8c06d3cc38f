/**
 * AMG's coarsest level solved by the sparse Cholesky of the direct solvers where a dense inverse is
 * wasteful (src/solvers/amg/coarse.ts): a stalled coarsening solves (true residual in f64 here), a
 * level no solver can afford is a typed error saying why, and a hierarchy whose coarsest level is
 * factorized sparse takes the iterations of the same hierarchy with the dense inverse.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { poisson2D } from '../src/generators/poisson.js';
import { UnsupportedError } from '../src/errors.js';
import { CpuBackend } from '../src/cpu/backend.js';
import { cpuSolverOps } from '../src/cpu/solver-ops.js';
import { CpuSparseSession } from '../src/cpu/spgemm.js';
import { cpuSymbolicKernels } from '../src/cpu/symbolic.js';
import { cpuLdlKernels } from '../src/cpu/ldl.js';
import { buildHierarchy } from '../src/solvers/amg/hierarchy.js';
import type { SparseKernels } from '../src/solvers/amg/spgemm.js';
import { amgCycle } from '../src/solvers/amg/cycle.js';
import { coarseSolver } from '../src/solvers/amg/coarse.js';
import { cpuDenseInverse } from '../src/cpu/coarse-inverse.js';
import { cg } from '../src/solvers/krylov/cg.js';
import { relDiff, trueResidual } from './solve-reference.js';

let rt: Runtime;
let cpu: CpuBackend;
beforeAll(async () => {
  rt = await createRuntime({ workers: 2, backend: 'cpu' });
  cpu = await CpuBackend.create({ threads: 2 });
});
afterAll(() => {
  rt.dispose();
  cpu.dispose();
});

describe('AMG coarsest level: sparse Cholesky or dense inverse', () => {
  it('theta 0.99 on poisson2D(45): coarsening stalls on a large level, which the sparse factor solves', { timeout: 20000 }, async () => {
    const A = poisson2D(45);
    const h = rt.upload(A);
    const p = rt.amg(h, { theta: 0.99 });
    expect(p.amg).toMatchObject({ stop: 'stalled', coarse: 'sparse' });
    expect(p.amg!.coarseReason).toMatch(/sparse Cholesky \((amd|nd)\) estimated at .* flops/);
    expect(p.description).toMatch(/coarsest level factorized by sparse Cholesky: sparse Cholesky/);
    const b = Float64Array.from({ length: A.rows }, (_, i) => Math.sin(0.3 * i) + 1);
    const r = await rt.cg(h, b, { preconditioner: p, tol: 1e-9 });
    expect(r.converged).toBe(true);
    expect(trueResidual(A, Array.from(r.x), b)).toBeLessThanOrEqual(1e-9);
    p.dispose();
    h.dispose();
  });

  it('a stalled level of 5200 rows whose factor fills in: an UnsupportedError naming the estimate', { timeout: 20000 }, () => {
    // weak random couplings (no strong connection at theta 0.02: no aggregates), 24 a row: the
    // Cholesky factor is nearly dense, its flops far over the sparse limit, the rows over the dense one
    const n = 5200;
    const cols: number[][] = Array.from({ length: n }, (_, i) => [i]);
    let s = 12345;
    const rnd = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (let i = 0; i < n; i++) for (let k = 0; k < 12; k++) {
      const j = Math.floor(rnd() * n);
      if (j !== i && !cols[i].includes(j)) {
        cols[i].push(j);
        cols[j].push(i);
      }
    }
    const ptr = new Int32Array(n + 1);
    const idx: number[] = [];
    const val: number[] = [];
    cols.forEach((c, i) => {
      c.sort((a, b) => a - b);
      for (const j of c) {
        idx.push(j);
        val.push(j === i ? 100 : -1e-3);
      }
      ptr[i + 1] = idx.length;
    });
    const h = rt.upload(new CSRMatrix(n, n, 'f64', ptr, Int32Array.from(idx), Float64Array.from(val)));
    expect(() => rt.amg(h)).toThrow(UnsupportedError);
    expect(() => rt.amg(h)).toThrow(/coarsening stalled on level 0: 5200 rows.*sparse Cholesky .* estimated at .* flops.*lower amg\.theta/);
    h.dispose();
  });

  it('the same hierarchy with the sparse and the dense coarse solve: the same iterations and answer', { timeout: 20000 }, async () => {
    const A = poisson2D(50);
    const dense: SparseKernels = () => new CpuSparseSession(cpu);
    const sparse: SparseKernels = Object.assign(() => new CpuSparseSession(cpu), { coarse: { symbolic: cpuSymbolicKernels(cpu), ldl: cpuLdlKernels(cpu).sparse } });
    const b = Float64Array.from({ length: A.rows }, (_, i) => Math.cos(0.05 * i) + 0.2);
    const M = cpu.upload(A);
    const runs: { iterations: number; x: ArrayLike<number> }[] = [];
    for (const k of [dense, sparse]) {
      // maxCoarse 1000: the coarsest level (≈ 280 rows) is affordable both ways
      const H = buildHierarchy(A, k, { maxCoarse: 1000 });
      expect(H.levels.length).toBe(2);
      expect(H.coarse.kind, H.coarse.reason).toBe(k === dense ? 'dense' : 'sparse');
      const ops = cpuSolverOps(cpu, M, 'none');
      const C = amgCycle(ops, H);
      const bv = ops.vector();
      bv.view().set(b);
      const r = await cg({ ...ops, precondition: (x, z) => C.apply(x, z), cgResident: undefined }, bv, { tol: 1e-10, maxIter: 100, checkEvery: 1 });
      expect(r.converged).toBe(true);
      const x = r.x.view().slice();
      expect(trueResidual(A, Array.from(x), b)).toBeLessThanOrEqual(1e-10);
      runs.push({ iterations: r.iterations, x });
      ops.release(bv);
      ops.release(r.x);
      C.dispose();
      ops.dispose();
    }
    expect(runs[1].iterations).toBe(runs[0].iterations);
    M.dispose();
  });

  it('a path with no triangular solve (WebGL2) applies the dense inverse made from the sparse factor: the same cycle', { timeout: 20000 }, async () => {
    const A = poisson2D(50);
    const sparse: SparseKernels = Object.assign(() => new CpuSparseSession(cpu), { coarse: { symbolic: cpuSymbolicKernels(cpu), ldl: cpuLdlKernels(cpu).sparse } });
    const H = buildHierarchy(A, sparse, { maxCoarse: 1000 });
    expect(H.coarse.kind, H.coarse.reason).toBe('sparse');
    const M = cpu.upload(A);
    const ops = cpuSolverOps(cpu, M, 'none');
    const withTri = amgCycle(ops, H);
    const without = amgCycle({ ...ops, triangular: undefined }, H);
    expect(withTri.method).toMatch(/sparse Cholesky of \d+ rows/);
    expect(without.method).toMatch(/dense inverse of \d+ rows \(from its sparse Cholesky factor/);
    const b = ops.vector();
    b.view().set(Float64Array.from({ length: A.rows }, (_, i) => Math.sin(0.01 * i * i) + 0.1));
    const [z1, z2] = [ops.vector(), ops.vector()];
    await withTri.apply(b, z1);
    await without.apply(b, z2);
    expect(relDiff(z2.view(), z1.view())).toBeLessThanOrEqual(1e-12);
    for (const v of [b, z1, z2]) ops.release(v);
    withTri.dispose();
    without.dispose();
    ops.dispose();
    M.dispose();
  });

  it('the dense (pseudo-)inverse four columns at a time, in JavaScript and in the CPU path\'s kernels (1 and 2 threads): bit for bit the one-column-at-a-time Cholesky inverse, dropped unknowns included; a negative pivot the same error', async () => {
    let seed = 7;
    const rnd = () => (seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5;
    const fromDense = (n: number, f: (i: number, j: number) => number) => {
      const [r, c, v]: number[][] = [[], [], []];
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (f(i, j) !== 0) [r.push(i), c.push(j), v.push(f(i, j))];
      return CSRMatrix.fromTriplets(n, n, 'f64', Int32Array.from(r), Int32Array.from(c), Float64Array.from(v));
    };
    const cases: CSRMatrix[] = [poisson2D(9)];
    for (const n of [1, 3, 4, 5, 6, 7, 67, 70]) {
      const B = Array.from({ length: n * n }, rnd);
      cases.push(fromDense(n, (i, j) => B.slice(i * n, i * n + n).reduce((s, b, k) => s + b * B[j * n + k], i === j ? 0.1 : 0)));
    }
    // semidefinite (a pure-Neumann 1-D Laplacian: its constant dropped) and a zero row and column
    cases.push(fromDense(70, (i, j) => (i === j ? (i === 0 || i === 69 ? 1 : 2) : Math.abs(i - j) === 1 ? -1 : 0)));
    cases.push(fromDense(9, (i, j) => (i === 4 || j === 4 ? 0 : i === j ? 4 : Math.abs(i - j) === 1 ? -1 : 0)));
    const one = await CpuBackend.create({ threads: 1 });
    try {
      // the kernels alone: no sparse factorization is tried (its symbolic kernels throw)
      const kernels = [cpu, one].map((b) => ({ symbolic: undefined as never, ldl: undefined as never, inverse: cpuDenseInverse(b) }));
      for (const A of cases) {
        const want = Array.from(referenceInverse(A));
        const c = coarseSolver(A, undefined, 'test', 'test');
        if (c.kind !== 'dense') throw new Error(`a ${c.kind} coarse solve`);
        expect(Array.from(c.inverse), `${A.rows} rows`).toEqual(want);
        for (const k of kernels) {
          if (A.rows > 64) continue; // above 64 rows coarseSolver would try the sparse factor first
          const d = coarseSolver(A, k, 'test', 'test');
          if (d.kind !== 'dense') throw new Error(`a ${d.kind} coarse solve`);
          expect(Array.from(d.inverse), `${A.rows} rows, kernels`).toEqual(want);
        }
        const L = new Float64Array(A.rows * A.rows);
        for (let i = 0; i < A.rows; i++) for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) L[i * A.rows + A.colIdx[k]] = A.values[k];
        const dmax = Math.max(...Array.from({ length: A.rows }, (_, i) => Math.abs(L[i * A.rows + i])));
        for (const k of kernels) {
          const r = k.inverse(L, A.rows, dmax);
          if (!('inverse' in r)) throw new Error(`${A.rows} rows: pivot ${r.pivot}`);
          expect(Array.from(r.inverse), `${A.rows} rows, kernel`).toEqual(want);
        }
      }
      // indefinite: the JavaScript's error, word for word
      const indefinite = fromDense(6, (i, j) => (i === j ? (i === 3 ? -2 : 2) : Math.abs(i - j) === 1 ? -0.5 : 0));
      const message = (f: () => unknown) => {
        try {
          f();
        } catch (e) {
          expect(e).toBeInstanceOf(UnsupportedError);
          return (e as Error).message;
        }
        throw new Error('no error');
      };
      const js = message(() => coarseSolver(indefinite, undefined, 'test', 'test'));
      expect(js).toMatch(/negative pivot/);
      for (const k of kernels) expect(message(() => coarseSolver(indefinite, k, 'test', 'test'))).toBe(js);
    } finally {
      one.dispose();
    }
  });
});

/** Plain f64 Cholesky pseudo-inverse, one row of L and one column of the inverse at a time (pivots ≤ 1e-12 of the largest diagonal dropped). */
function referenceInverse(A: CSRMatrix): Float64Array {
  const n = A.rows;
  const L = Array.from({ length: n }, () => new Float64Array(n));
  for (let i = 0; i < n; i++) for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) L[i][A.colIdx[k]] = A.values[k];
  const dmax = Math.max(...L.map((r, i) => Math.abs(r[i])));
  const dropped = new Array<boolean>(n).fill(false);
  for (let j = 0; j < n; j++) {
    let d = L[j][j];
    for (let k = 0; k < j; k++) d -= L[j][k] ** 2;
    if (!(d > 1e-12 * dmax)) {
      dropped[j] = true;
      for (let i = j; i < n; i++) L[i][j] = 0;
      continue;
    }
    L[j][j] = Math.sqrt(d);
    for (let i = j + 1; i < n; i++) {
      let s = L[i][j];
      for (let k = 0; k < j; k++) s -= L[i][k] * L[j][k];
      L[i][j] = s / L[j][j];
    }
  }
  const inv = new Float64Array(n * n);
  for (let c = 0; c < n; c++) {
    const y = new Float64Array(n);
    for (let i = c; i < n; i++) {
      if (dropped[i]) continue;
      let s = i === c ? 1 : 0;
      for (let k = c; k < i; k++) s -= L[i][k] * y[k];
      y[i] = s / L[i][i];
    }
    for (let i = n - 1; i >= 0; i--) {
      if (dropped[i]) {
        y[i] = 0;
        continue;
      }
      y[i] /= L[i][i];
      for (let k = 0; k < i; k++) y[k] -= L[i][k] * y[i];
    }
    for (let i = 0; i < n; i++) inv[i * n + c] = y[i];
  }
  return inv;
}
