/**
 * The AMG cycle (src/solvers/amg/cycle.ts) against a V/W-cycle written here in plain f64 from the same
 * hierarchy, on the CPU path and on WebGPU (Dawn + SwiftShader): every level's vectors and operators
 * at the level's own size (recorded through the path's SolverOps), one cycle equal to the reference's,
 * and AMG-PCG's iterations and answer equal to a textbook PCG with the reference cycle.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CSRMatrix } from '../src/formats/csr.js';
import type { DIAMatrix } from '../src/formats/dia.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import { diffusion2D } from '../src/generators/diffusion.js';
import { randomMatrix } from '../src/generators/random.js';
import type { CpuMatrix } from '../src/cpu/resident.js';
import { CpuBackend } from '../src/cpu/backend.js';
import { cpuSolverOps } from '../src/cpu/solver-ops.js';
import { buildHierarchy, type AmgHierarchy, type AmgOptions } from '../src/solvers/amg/hierarchy.js';
import type { SparseKernels } from '../src/solvers/amg/spgemm.js';
import { CpuSparseSession } from '../src/cpu/spgemm.js';
import { cpuSymbolicKernels } from '../src/cpu/symbolic.js';
import { cpuLdlKernels } from '../src/cpu/ldl.js';
import { amgCycle, diagonal } from '../src/solvers/amg/cycle.js';
import { cg } from '../src/solvers/krylov/cg.js';
import type { SolverOps } from '../src/solvers/ops.js';
import { WebGpuPath } from '../src/webgpu/path.js';
import type { WebGpuBackend } from '../src/webgpu/backend.js';
import { webgpuBackend } from './webgpu-helpers.js';
import { matvec, referencePcg, relDiff } from './solve-reference.js';

/** The cycle in plain f64 from the hierarchy's matrices: damped Jacobi (ω = 4/3/ρ), dense coarse inverse. */
function referenceCycle(h: AmgHierarchy, b: Float64Array, l = 0): Float64Array {
  const last = h.levels.length - 1;
  const L = h.levels[l];
  const m = L.A.rows;
  if (l === last) {
    const c = h.coarse;
    // a sparse-factorized coarsest level: solved here by Gaussian elimination with partial pivoting
    if (c.kind === 'sparse') return gaussSolve(L.A, b);
    const x = new Float64Array(m);
    for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) x[i] += c.inverse[i * m + j] * b[j];
    return x;
  }
  const w = 4 / 3 / L.rho;
  const x = new Float64Array(m);
  const sweep = () => {
    const ax = matvec(L.A, x);
    for (let i = 0; i < m; i++) x[i] += w * L.dinv[i] * (b[i] - ax[i]);
  };
  for (let s = 0; s < h.options.sweeps; s++) sweep();
  const visits = h.options.cycle === 'W' && l + 1 < last ? 2 : 1;
  for (let v = 0; v < visits; v++) {
    const ax = matvec(L.A, x);
    const r = b.map((bi, i) => bi - ax[i]);
    const xc = referenceCycle(h, matvec(L.R!, r), l + 1);
    const px = matvec(L.P!, xc);
    for (let i = 0; i < m; i++) x[i] += px[i];
  }
  for (let s = 0; s < h.options.sweeps; s++) sweep();
  return x;
}

/** A⁻¹·b in plain f64 by dense Gaussian elimination with partial pivoting. */
function gaussSolve(A: CSRMatrix, b: Float64Array): Float64Array {
  const n = A.rows;
  const M = Array.from({ length: n }, () => new Float64Array(n + 1));
  for (let i = 0; i < n; i++) {
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) M[i][A.colIdx[k]] = A.values[k];
    M[i][n] = b[i];
  }
  for (let j = 0; j < n; j++) {
    let p = j;
    for (let i = j + 1; i < n; i++) if (Math.abs(M[i][j]) > Math.abs(M[p][j])) p = i;
    [M[j], M[p]] = [M[p], M[j]];
    for (let i = j + 1; i < n; i++) {
      const f = M[i][j] / M[j][j];
      if (f !== 0) for (let k = j; k <= n; k++) M[i][k] -= f * M[j][k];
    }
  }
  const x = new Float64Array(n);
  for (let i = n - 1; i >= 0; i--) {
    let s = M[i][n];
    for (let k = i + 1; k < n; k++) s -= M[i][k] * x[k];
    x[i] = s / M[i][i];
  }
  return x;
}

/** The path's ops with every vector length and operator shape the cycle asks for recorded. */
function recording<V>(ops: SolverOps<V>): { ops: SolverOps<V>; vectors: number[]; operators: [number, number][]; diagonals: DIAMatrix[] } {
  const vectors: number[] = [];
  const operators: [number, number][] = [];
  const diagonals: DIAMatrix[] = [];
  const note = (M: CSRMatrix | DIAMatrix, o?: { fewProducts?: boolean }) => {
    operators.push([M.rows, M.cols]);
    if (M.format === 'dia') diagonals.push(M);
    // every level's operator takes part in a few products a cycle: no layout that pays only over many
    expect(o?.fewProducts).toBe(true);
  };
  return {
    ops: {
      ...ops,
      vector: (length?: number) => {
        vectors.push(length ?? ops.n);
        return ops.vector(length);
      },
      operator: (M: CSRMatrix | DIAMatrix, o?: { fewProducts?: boolean }) => {
        note(M, o);
        return ops.operator(M, o);
      },
      // where the path uploads many at once (WebGPU), every operator of the cycle goes up in one batch
      operators: ops.operators
        ? (list: readonly (CSRMatrix | DIAMatrix)[], o?: { fewProducts?: boolean }) => {
            expect(operators.length, 'one batch, no single uploads').toBe(0);
            for (const M of list) note(M, o);
            return ops.operators!(list, o);
          }
        : undefined,
    },
    vectors,
    operators,
    diagonals,
  };
}

/** D⁻¹ of every smoothed level handed over as one diagonal (uploaded as it is, no CSR layout to choose), equal to the level's dinv. */
function expectDiagonals(h: AmgHierarchy, diagonals: DIAMatrix[]): void {
  const smoothed = h.levels.slice(0, -1);
  expect(diagonals.length).toBe(smoothed.length);
  smoothed.forEach((L, l) => {
    const D = diagonals[l];
    expect([D.rows, D.cols, [...D.offsets]], `level ${l}`).toEqual([L.A.rows, L.A.rows, [0]]);
    expect(Array.from(D.data.subarray(0, D.rows)), `level ${l}`).toEqual(Array.from(L.dinv));
  });
}

/** What the cycle may allocate: per level its own rows, the operators between neighbours. */
function expectLevelSized(h: AmgHierarchy, vectors: number[], operators: [number, number][]): void {
  const sizes = h.levels.map((L) => L.A.rows);
  const last = sizes.length - 1;
  expect(new Set(vectors)).toEqual(new Set(sizes));
  // damped Jacobi: b, x on the coarse levels, r on the smoothed ones
  expect(vectors.filter((v) => v === sizes[0]).length).toBe(1);
  for (let l = 1; l < last; l++) expect(vectors.filter((v) => v === sizes[l]).length, `level ${l}`).toBe(3);
  // b, x; a sparse coarse factor's two permuted vectors besides
  const sparse = h.coarse.kind === 'sparse';
  expect(vectors.filter((v) => v === sizes[last]).length).toBe(sparse ? 4 : 2);
  const allowed = new Set<string>();
  sizes.forEach((m, l) => {
    allowed.add(`${m}x${m}`);
    if (l < last) {
      allowed.add(`${sizes[l + 1]}x${m}`);
      allowed.add(`${m}x${sizes[l + 1]}`);
    }
  });
  for (const [r, c] of operators) expect(allowed.has(`${r}x${c}`), `${r}x${c}`).toBe(true);
  // R and P of every level, A and D⁻¹ of the coarse ones, D⁻¹ of the fine one, the coarse inverse (or the sparse factor's two permutations)
  expect(operators.length).toBe(2 * last + 2 * (last - 1) + 1 + (sparse ? 2 : 1));
}

interface PathUnderTest<V> {
  ops: SolverOps<V> & { dispose(): void };
  upload(v: Float64Array): V;
  read(v: V): Promise<ArrayLike<number>>;
  dispose(): void;
}

// the setup's products on a CPU backend of their own, as the runtime runs them
let setupBackend: CpuBackend;
beforeAll(async () => {
  setupBackend = await CpuBackend.create({ threads: 2 });
});
afterAll(() => setupBackend.dispose());
const kernels: SparseKernels = () => new CpuSparseSession(setupBackend);
// the same with the direct solvers' kernels, as the runtime gives them: the coarsest level may be factorized sparse
const withCoarse: SparseKernels = Object.assign(() => new CpuSparseSession(setupBackend), {
  coarse: { get symbolic() { return cpuSymbolicKernels(setupBackend); }, get ldl() { return cpuLdlKernels(setupBackend).sparse; } },
});

function cases(): [string, CSRMatrix, AmgOptions, SparseKernels?][] {
  return [
    ['poisson2D(24), V', poisson2D(24), { maxCoarse: 30 }],
    ['poisson3D(10), W', poisson3D(10), { maxCoarse: 20, cycle: 'W' }],
    ["diffusion2D(20, 'jumping'), 2 sweeps", diffusion2D({ n: 20, coefficients: 'jumping' }), { maxCoarse: 25, sweeps: 2 }],
    ['poisson2D(60), V, sparse Cholesky on the coarsest level', poisson2D(60), { maxCoarse: 450 }, withCoarse],
  ];
}

function suite<V>(name: string, make: (A: CSRMatrix) => Promise<PathUnderTest<V>>, bound: { cycle: number; x: number; sparse?: number }): void {
  describe(`AMG cycle on the ${name} path`, () => {
    for (const [label, A, o, k] of cases()) {
      it(`${label}: level-sized vectors and operators; one cycle equals the f64 reference`, async () => {
        const h = buildHierarchy(A, k ?? kernels, { smoother: 'jacobi', ...o });
        expect(h.levels.length).toBeGreaterThanOrEqual(k ? 2 : 3);
        expect(h.coarse.kind, h.coarse.reason).toBe(k ? 'sparse' : 'dense');
        const p = await make(A);
        const rec = recording(p.ops);
        const C = amgCycle(rec.ops, h);
        try {
          expectLevelSized(h, rec.vectors, rec.operators);
          expectDiagonals(h, rec.diagonals);
          const b = Float64Array.from({ length: A.rows }, (_, i) => Math.sin(0.7 * i) + 0.3);
          const bv = p.upload(b);
          const z = p.ops.vector();
          await C.apply(bv, z);
          expect(relDiff(await p.read(z), referenceCycle(h, b))).toBeLessThanOrEqual(k ? (bound.sparse ?? bound.cycle) : bound.cycle);
          // applied twice to the same r: the same z (no state left from the last cycle)
          await C.apply(bv, z);
          expect(relDiff(await p.read(z), referenceCycle(h, b))).toBeLessThanOrEqual(k ? (bound.sparse ?? bound.cycle) : bound.cycle);
          p.ops.release(bv);
          p.ops.release(z);
        } finally {
          C.dispose();
          p.dispose();
        }
      });
    }

    for (const k of [kernels, withCoarse])
    it(`AMG-PCG, ${k === kernels ? 'dense' : 'sparse Cholesky'} coarse solve: the iterations of a textbook PCG with the reference cycle, the same answer`, async () => {
      const A = poisson2D(28);
      const h = buildHierarchy(A, k, { smoother: 'jacobi', ...(k === kernels ? { maxCoarse: 40 } : { maxLevels: 2 }) });
      expect(h.coarse.kind, h.coarse.reason).toBe(k === kernels ? 'dense' : 'sparse');
      const b = Float64Array.from({ length: A.rows }, (_, i) => 1 + Math.cos(0.2 * i));
      const tol = 1e-10;
      const xRef = new Float64Array(A.rows);
      const refIts = referencePcg(A, b, (r) => referenceCycle(h, r), tol, 200, xRef);
      const p = await make(A);
      const C = amgCycle(p.ops, h);
      try {
        const bv = p.upload(b);
        const res = await cg({ ...p.ops, precondition: (r, z) => C.apply(r, z), cgResident: undefined }, bv, { tol, maxIter: 200, checkEvery: 1 });
        expect(res.converged).toBe(true);
        expect(Math.abs(res.iterations - refIts)).toBeLessThanOrEqual(1);
        expect(relDiff(await p.read(res.x), xRef)).toBeLessThanOrEqual(bound.x);
        p.ops.release(res.x);
        p.ops.release(bv);
      } finally {
        C.dispose();
        p.dispose();
      }
    });
  });
}

let cpu: CpuBackend;
beforeAll(async () => {
  cpu = await CpuBackend.create({ threads: 2 });
});
afterAll(() => cpu?.dispose());

suite(
  'CPU',
  async (A) => {
    const M = cpu.upload(A);
    const ops = cpuSolverOps(cpu, M, 'none');
    return {
      ops,
      upload: (v) => {
        const x = ops.vector();
        x.view().set(v);
        return x;
      },
      read: async (v) => v.view().slice(),
      dispose: () => {
        ops.dispose();
        M.dispose();
      },
    };
  },
  { cycle: 1e-12, x: 1e-8 },
);

it('CPU: an operator for few products skips the cache tiles, with the same product', async () => {
  // scattered columns and an x of 1.6 MB: the runtime's default uploads it in cache tiles
  const W = randomMatrix({ rows: 3000, cols: 200_000, meanRowLength: 8, seed: 3 });
  const M = cpu.upload(poisson2D(8));
  const ops = cpuSolverOps(cpu, M, 'none');
  const spy = vi.spyOn(cpu, 'upload');
  try {
    const x = Float64Array.from({ length: W.cols }, (_, i) => Math.sin(0.3 * i) + 0.2);
    const ref = matvec(W, x);
    for (const fewProducts of [false, true]) {
      const op = ops.operator(W, { fewProducts });
      const uploaded = spy.mock.results.at(-1)!.value as CpuMatrix;
      expect(uploaded.params.tiled ?? 0, `fewProducts ${fewProducts}`).toBe(fewProducts ? 0 : 1);
      const [xv, yv] = [ops.vector(W.cols), ops.vector(W.rows)];
      xv.view().set(x);
      await op.apply(xv, yv, 1, 0);
      expect(relDiff(yv.view(), ref)).toBeLessThanOrEqual(1e-14);
      for (const v of [xv, yv]) ops.release(v);
      op.dispose();
    }
  } finally {
    spy.mockRestore();
    ops.dispose();
    M.dispose();
  }
});

it("diagonal: D⁻¹ as a one-diagonal DIA that validates, padded with zeros; where no padding is needed (a multiple of 4 rows) its data is D⁻¹ itself, else a copy", () => {
  // the setup's D⁻¹ (views of the runtime's memory kept with the products): 576 and 529 rows and their coarse levels
  let both = 0;
  for (const A of [poisson2D(24), poisson2D(23)]) {
    const h = buildHierarchy(A, kernels, { maxCoarse: 30 });
    try {
      for (const { dinv: d } of h.levels) {
        const n = d.length;
        const pad = Math.ceil(n / 4) * 4;
        const D = diagonal(d).validate();
        expect([D.rows, D.pitch, D.data.length]).toEqual([n, pad, pad]);
        expect(Array.from(D.data)).toEqual([...Array.from(d), ...new Array(pad - n).fill(0)]);
        expect(D.data === d, `${n} rows`).toBe(pad === n);
        both |= pad === n ? 1 : 2;
      }
    } finally {
      h.dispose();
    }
  }
  expect(both).toBe(3);
});

describe('WebGPU', () => {
  let be: WebGpuBackend;
  beforeAll(async () => {
    be = await webgpuBackend();
  });
  afterAll(() => be?.dispose());
  // f64 is double-single on WebGPU (about 48 bits)
  suite(
    'WebGPU',
    async (A) => {
      const path = new WebGpuPath(be);
      const M = path.matrix(A, { transpose: false });
      const ops = path.solverOps(M, A, 'none');
      return {
        ops,
        upload: (v) => be.vector('f64', v),
        read: (v) => be.read(v),
        dispose: () => {
          ops.dispose();
          M.dispose();
        },
      };
    },
    // the sparse coarse factor's triangular solves run in f32 there (IC(0)'s kernels)
    { cycle: 1e-9, x: 1e-7, sparse: 1e-4 },
  );
  it('the levels go up in one batch; a cycle disposed before that batch is up frees every operator once it is', async () => {
    const A = poisson2D(24);
    const h = buildHierarchy(A, kernels, { smoother: 'jacobi', maxCoarse: 30 });
    const path = new WebGpuPath(be);
    const M = path.matrix(A, { transpose: false });
    const batches = vi.spyOn(be, 'uploadMany');
    const single = vi.spyOn(be, 'upload');
    const ops = path.solverOps(M, A, 'none');
    try {
      amgCycle(ops, h).dispose();
      expect([batches.mock.calls.length, single.mock.calls.length]).toEqual([1, 0]);
      // each level's R names its P as the matrix it is the transpose of (its values copied on the GPU)
      const list = batches.mock.calls[0][0] as { matrix: unknown; options?: { transposeOf?: number } }[];
      for (const L of h.levels.slice(0, -1)) {
        const r = list.findIndex((e) => e.matrix === L.R);
        expect(r).toBeGreaterThan(0);
        expect(list[list[r].options!.transposeOf!].matrix).toBe(L.P);
      }
      expect(list.filter((e) => e.options?.transposeOf !== undefined).length).toBe(h.levels.length - 1);
      const made = await batches.mock.results[0].value;
      await new Promise((r) => setTimeout(r, 0)); // the cycle's side of the batch resolves after the backend's
      expect(made.length).toBe(2 * (h.levels.length - 1) + 2 * (h.levels.length - 2) + 1 + 1);
      expect(made.every((m: { disposed: boolean }) => m.disposed)).toBe(true);
    } finally {
      batches.mockRestore();
      single.mockRestore();
      ops.dispose();
      M.dispose();
    }
  });
});
