/**
 * The GPU-resident CG of the WebGPU path (src/webgpu/cg.ts) through the runtime, in Node on Dawn +
 * SwiftShader: against the CPU path's CG on the same problems (converged, iteration count within
 * checkEvery, the residual of the returned x against the f64 reference), exact bookkeeping (history,
 * onIteration), the stop reasons (breakdown, NaN, maxIter, abort), read-backs once per block, and
 * checkEvery: 1 being the host loop exactly.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { DIAMatrix } from '../src/formats/dia.js';
import { cg } from '../src/solvers/krylov/cg.js';
import type { WebGpuPath } from '../src/webgpu/path.js';
import { WebGpuDeviceLostError } from '../src/webgpu/errors.js';
import { iterationsLeft } from '../src/webgpu/cg.js';
import { acquireDevice } from '../src/webgpu/device.js';
import type { DType } from '../src/dtype.js';
import { referenceSpmv } from './reference.js';
import { loadShared } from './matrices.js';
import { fsum, generated, inDType, pointDawnAtSwiftShader, randomData, csrTriplets, forKernel, webgpuBackend } from './webgpu-helpers.js';
import { randomMatrix } from '../src/generators/index.js';

pointDawnAtSwiftShader();

/** ‖b − A·x‖ / ‖b‖ in f64 (the reference SpMV on the f64 matrix). */
function trueResidual(A: CSRMatrix, x: ArrayLike<number>, b: ArrayLike<number>): number {
  const wide = A.dtype === 'c64' || A.dtype === 'c128' ? A.astype('c128') : A.astype('f64');
  const Ax = referenceSpmv(csrTriplets(wide), x, null, 1, 0).y;
  return Math.sqrt(fsum(Array.from(Ax, (v, i) => (v - b[i]) ** 2))) / Math.sqrt(fsum(Array.from(b, (v) => v * v)));
}

/** A nonsymmetric, diagonally dominant matrix: random entries plus a diagonal above each row's |sum|. */
function dominant(rows: number, seed: number): CSRMatrix {
  const R = randomMatrix({ rows, meanRowLength: 8, seed });
  const ri: number[] = [], ci: number[] = [], v: number[] = [];
  for (let i = 0; i < rows; i++) {
    let sum = 0;
    for (let k = R.rowPtr[i]; k < R.rowPtr[i + 1]; k++) {
      ri.push(i); ci.push(R.colIdx[k]); v.push(R.values[k]); sum += Math.abs(R.values[k]);
    }
    ri.push(i); ci.push(i); v.push(sum + 1);
  }
  return CSRMatrix.fromTriplets(rows, rows, 'f64', Int32Array.from(ri), Int32Array.from(ci), Float64Array.from(v));
}

/** A WebGPU runtime and a one-thread CPU runtime (the reference solve) for a describe block. */
function runtimes(assign: (gpu: Runtime, cpu: Runtime) => void): void {
  const made: Runtime[] = [];
  beforeAll(async () => {
    made.push(await createRuntime({ backend: 'webgpu' }), await createRuntime({ backend: 'cpu', workers: 1 }));
    assign(made[0], made[1]);
  });
  afterAll(() => {
    for (const r of made) r.dispose();
  });
}

describe('GPU-resident CG (backend webgpu)', () => {
  let rt: Runtime;
  let cpu: Runtime;
  runtimes((gpu, host) => ((rt = gpu), (cpu = host)));
  const gpuPath = () => rt.pathById('webgpu') as WebGpuPath;

  const cases: { name: string; A: () => CSRMatrix; dt: DType; tol: number; pre?: 'jacobi' }[] = [
    { name: 'poisson2D-30 f64', A: () => generated('poisson2D-30'), dt: 'f64', tol: 1e-8 },
    { name: 'poisson3D-10 f32', A: () => generated('poisson3D-10'), dt: 'f32', tol: 1e-5 },
    { name: '494_bus f64 jacobi', A: () => loadShared('494_bus'), dt: 'f64', tol: 1e-8, pre: 'jacobi' },
    { name: '494_bus f32 jacobi', A: () => loadShared('494_bus'), dt: 'f32', tol: 1e-4, pre: 'jacobi' },
    { name: 'poisson2D-30 f64 jacobi, checkEvery 5', A: () => generated('poisson2D-30'), dt: 'f64', tol: 1e-8, pre: 'jacobi' },
  ];
  for (const c of cases) {
    it(`${c.name}: converges as the CPU path does, x at the reported iteration`, async () => {
      const A = c.A().astype(c.dt);
      const b = randomData(c.dt, A.rows, 3);
      const every = c.name.includes('checkEvery 5') ? 5 : 16;
      const seen: number[] = [];
      const opts = { tol: c.tol, preconditioner: c.pre ?? 'none', maxIter: 20000 } as const;
      const g = await rt.cg(rt.upload(A), b, { ...opts, checkEvery: every, onIteration: (k, rr) => void seen.push(k, rr) });
      const h = await cpu.cg(cpu.upload(A), b, opts);
      expect(h.converged).toBe(true);
      expect(g).toMatchObject({ converged: true, reason: 'converged', path: 'webgpu' });
      expect(Math.abs(g.iterations - h.iterations)).toBeLessThanOrEqual(every);
      expect(g.history.length).toBe(g.iterations + 1);
      expect(seen).toEqual(g.history.slice(1).flatMap((v, i) => [i + 1, v]));
      expect(g.recurrenceResidual).toBe(g.history[g.iterations]);
      expect(g.relativeResidual).toBeLessThanOrEqual(c.tol);
      // it stopped at the first iteration below its last solve's aim: tol, or half of it for a correction solve
      expect(g.history[g.iterations - 1]).toBeGreaterThan(g.refinements > 0 ? c.tol / 2 : c.tol);
      // x is as good as the CPU path's (in f32 the recurrence drifts from the true residual on both)
      expect(trueResidual(A, g.x, b)).toBeLessThanOrEqual(Math.max(10 * c.tol, 4 * trueResidual(A, h.x, b)));
    });
  }

  it('reads back once per block, and checkEvery: 1 is the host loop exactly', async () => {
    const A = generated('poisson2D-30');
    const b = randomData('f64', A.rows, 4);
    const h = rt.upload(A);
    const stats = gpuPath().backend.stats;
    let r0 = stats.readbacks;
    const res = await rt.cg(h, b, { tol: 1e-8 });
    const resident = stats.readbacks - r0;
    r0 = stats.readbacks;
    const host = await rt.cg(h, b, { tol: 1e-8, checkEvery: 1 });
    const perIteration = stats.readbacks - r0;
    expect(perIteration).toBeGreaterThanOrEqual(2 * host.iterations);
    // the blocks (one speculative) and 6 scalars or vectors: ‖b‖ for the refinement and for the inner
    // solve, ‖b − A·x‖ on the GPU after the correction, x and ‖x‖ (for the residual's rounding bound)
    expect(resident).toBeLessThanOrEqual(Math.ceil(res.iterations / 16) + 6);
    // checkEvery 1 is src/solvers/cg.ts over the path's operations, without the resident hook, on A
    // in the format rt.cg ran it in (a stencil's DIA sums its rows as no CSR kernel does: Dot2)
    const p = gpuPath();
    const format = rt.explain('spmv', h).estimates.webgpu?.format;
    expect(format).toBe('dia');
    const M = p.matrix(DIAMatrix.fromCSR(A), { transpose: false });
    const ops = p.solverOps(M, A, 'none');
    const bv = p.vector('f64', b);
    const direct = await cg({ ...ops, cgResident: undefined }, bv, { tol: 1e-8 });
    expect(host.history).toEqual(direct.history);
    expect(host.x).toEqual(await p.read(direct.x));
    for (const v of [bv, direct.x]) v.dispose();
    M.dispose();
    ops.dispose();
  });

  it('the block after the one where the residual is due to meet tol is short (its products would be wasted)', async () => {
    const A = generated('poisson2D-30');
    const be = gpuPath().backend;
    const M = be.upload(A);
    const bv = be.vector('f64', randomData('f64', A.rows, 6));
    // dispatches of a solve that records exactly m iterations (maxIter cuts the blocks), and of one that converges
    const dispatches = async (o: { tol: number; maxIter?: number }) => {
      const d0 = be.stats.dispatches;
      const r = await be.cgResident(M, null, bv, { ...o, checkEvery: 16 });
      r.x.dispose();
      return { d: be.stats.dispatches - d0, iterations: r.iterations };
    };
    const d16 = (await dispatches({ tol: 1e-30, maxIter: 16 })).d;
    const d32 = (await dispatches({ tol: 1e-30, maxIter: 32 })).d;
    const perIteration = (d32 - d16) / 16;
    const fixed = d16 - 16 * perIteration;
    const run = await dispatches({ tol: 1e-8 });
    const recorded = (run.d - fixed) / perIteration;
    expect(Number.isInteger(recorded)).toBe(true);
    // the blocks up to the one that converged (the first of 4, then 16 each), and a speculative one of 2 (16 before)
    expect(recorded).toBeLessThanOrEqual(4 + Math.ceil((run.iterations - 4) / 16) * 16 + 2);
    expect(iterationsLeft([1, 0.5, 0.25], 0.01, 2)).toBeCloseTo(Math.log2(25), 12);
    expect(iterationsLeft([1, 1, 1], 0.01, 2)).toBe(Infinity);
    expect(iterationsLeft([1, 0.5], 0.01, 2)).toBe(Infinity);
    M.dispose();
    bv.dispose();
  });

  it('maxIter: exactly that many iterations, not a multiple of the block', async () => {
    const A = generated('poisson2D-30');
    const b = randomData('f64', A.rows, 5);
    const h = rt.upload(A);
    for (const maxIter of [0, 5, 21]) {
      const g = await rt.cg(h, b, { tol: 1e-12, maxIter, checkEvery: 8 });
      const ref = await rt.cg(h, b, { tol: 1e-12, maxIter, checkEvery: 1 });
      expect(g).toMatchObject({ converged: false, reason: 'maxIter', iterations: maxIter });
      expect(g.history.length).toBe(maxIter + 1);
      for (let i = 0; i <= maxIter; i++) expect(Math.abs(g.history[i] - ref.history[i])).toBeLessThanOrEqual(1e-9 * ref.history[0]);
      expect(Math.abs(trueResidual(A, g.x, b) - g.relativeResidual)).toBeLessThanOrEqual(1e-6 * g.relativeResidual);
    }
  });

  it("an indefinite matrix ends in 'breakdown' at the CPU path's iteration", async () => {
    // diag(1, 2, …, 10, −1, …, −10): pᴴAp turns non-positive after a few steps
    const n = 20;
    const d = Float64Array.from({ length: n }, (_, i) => (i < 10 ? i + 1 : -(i - 9)));
    const A = new CSRMatrix(n, n, 'f64', Int32Array.from({ length: n + 1 }, (_, i) => i), Int32Array.from({ length: n }, (_, i) => i), d);
    const b = randomData('f64', n, 6);
    for (const dt of ['f64', 'f32'] as const) {
      const Ad = A.astype(dt);
      const bd = dt === 'f32' ? Float32Array.from(b) : b;
      const g = await rt.cg(rt.upload(Ad), bd, { tol: 1e-10 });
      const h = await cpu.cg(cpu.upload(Ad), bd, { tol: 1e-10 });
      expect(h.reason).toBe('breakdown');
      expect(g).toMatchObject({ reason: 'breakdown', converged: false, iterations: h.iterations });
      expect(g.history.length).toBe(g.iterations + 1);
    }
  });

  // ρ₀ = rᴴD⁻¹r is summed into the resident state on the GPU (no read-back): cg_scalars stops on ρ ≤ 0
  // there as stopOnRho does before the host loop's first iteration. Blocks [[1, −2], [−2, −1]] with
  // D⁻¹ = diag(1, −1): r = (1, 2) gives ρ₀ = −3 while pᴴAp = 5 > 0 (only the test on ρ stops it);
  // r = (2, 1) gives ρ₀ = 3, and the solve goes on as the CPU path's does
  it("Jacobi that is not definite: 'breakdown' before the first iteration where ρ₀ ≤ 0 (pᴴAp > 0), as the CPU path", async () => {
    const blocks = 10;
    const n = 2 * blocks;
    const rowPtr = Int32Array.from({ length: n + 1 }, (_, i) => 2 * i);
    const colIdx = Int32Array.from({ length: 2 * n }, (_, k) => 2 * Math.floor(k / 4) + (k % 2));
    const values = Float64Array.from({ length: 2 * n }, (_, k) => [1, -2, -2, -1][k % 4]);
    const A = new CSRMatrix(n, n, 'f64', rowPtr, colIdx, values);
    const h = rt.upload(A);
    const hc = cpu.upload(A);
    for (const [what, pair] of [['rho0 < 0', [1, 2]], ['rho0 > 0', [2, 1]]] as const) {
      const b = Float64Array.from({ length: n }, (_, i) => pair[i % 2]);
      const g = await rt.cg(h, b, { tol: 1e-10, preconditioner: 'jacobi' });
      const c = await cpu.cg(hc, b, { tol: 1e-10, preconditioner: 'jacobi' });
      expect(g.path, what).toBe('webgpu');
      if (what === 'rho0 < 0') expect(c, what).toMatchObject({ reason: 'breakdown', iterations: 0 });
      expect({ reason: g.reason, iterations: g.iterations }, what).toEqual({ reason: c.reason, iterations: c.iterations });
      console.log(`${what}: ${g.reason} after ${g.iterations}`);
    }
  });

  it("NaN in b or in A ends in 'nan'", async () => {
    const A = generated('poisson2D-30');
    const b = randomData('f64', A.rows, 7);
    b[17] = NaN;
    const g = await rt.cg(rt.upload(A), b);
    expect(g).toMatchObject({ reason: 'nan', converged: false, iterations: 0 });
    const An = A.astype('f64');
    An.values[40] = NaN;
    const g2 = await rt.cg(rt.upload(An), randomData('f64', A.rows, 8));
    const h2 = await cpu.cg(cpu.upload(An), randomData('f64', A.rows, 8));
    expect(h2.reason).toBe('nan');
    expect(g2).toMatchObject({ reason: 'nan', converged: false, iterations: h2.iterations });
  });

  it("abort: before the start (0 iterations) and during the solve (seen between blocks)", async () => {
    const A = generated('poisson2D-30');
    const b = randomData('f64', A.rows, 9);
    const h = rt.upload(A);
    const pre = new AbortController();
    pre.abort();
    expect(await rt.cg(h, b, { signal: pre.signal })).toMatchObject({ reason: 'aborted', iterations: 0 });
    const ac = new AbortController();
    const g = await rt.cg(h, b, { signal: ac.signal, checkEvery: 4, onIteration: (k) => void (k === 3 && ac.abort()) });
    expect(g.reason).toBe('aborted');
    expect(g.iterations).toBeGreaterThanOrEqual(4);
    // seen when iteration 3's block is read, while the next block is queued: at most 2·checkEvery − 1 later
    expect(g.iterations).toBeLessThanOrEqual(3 + 2 * 4 - 1);
    expect(g.history.length).toBe(g.iterations + 1);
    expect(Math.abs(trueResidual(A, g.x, b) - g.relativeResidual)).toBeLessThanOrEqual(1e-6 * g.relativeResidual);
  });

  it('every SpMV kernel: the fused SpMV + pᴴq (row kernels, striding) or SpMV then a reduction (the others) gives the CPU path\'s iterates', async () => {
    // a 2-D Poisson matrix with a perturbed diagonal (SPD), so that every kernel's rows differ; by
    // multiples of 1/8, exactly f32, so that f64 DIA runs its compact kernel (dia_compact.wgsl)
    const P = generated('poisson2D-30');
    const A = new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, Float64Array.from(P.values));
    for (let i = 0; i < A.rows; i++) for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) if (A.colIdx[k] === i) A.values[k] += (i % 7) / 8;
    // 3 workgroups at most for the fused SpMV + dot: each strides over 300 rows, as on a large matrix
    const be = await webgpuBackend({ maxDotGroups: 3 });
    for (const dt of ['f64', 'f32', 'c64'] as const) {
      const Ad = A.astype(dt); // c64: real values, so A stays Hermitian
      const b = randomData(dt, A.rows, 12);
      // 20 iterations, no convergence test in the way: the iterates are compared step by step
      const ref = await cpu.cg(cpu.upload(Ad), b, { tol: 1e-14, maxIter: 20 });
      // each row kernel's dot_main in double-single (the longest shaders); the unfused path and the other dtypes through one kernel each
      const kernels = { f64: ['csr_row', 'sell', 'ell', 'hyb', 'dia'], f32: ['csr_row', 'csr_adaptive'], c64: ['csr_row'] } as const;
      for (const k of kernels[dt]) {
        const made = forKernel(Ad, k);
        if (typeof made === 'string') continue;
        const M = be.upload(made.host, made.opts);
        if (M.data.main.kind === 'dia') expect(M.data.main.compact).toBe(dt === 'f64');
        const bv = be.vector(dt, b);
        const g = await be.cgResident(M, null, bv, { tol: 1e-14, maxIter: 20, checkEvery: 8 });
        const x = await be.read(g.x);
        expect({ k, dt, it: g.iterations, reason: g.reason }).toEqual({ k, dt, it: 20, reason: 'maxIter' });
        for (let i = 1; i <= g.iterations; i++) expect(Math.abs(g.history[i] - ref.history[i])).toBeLessThanOrEqual((dt === 'f64' ? 1e-9 : 1e-3) * ref.history[i] + 1e-12);
        const xr = ref.x as ArrayLike<number>;
        let err = 0, scale = 0;
        for (let i = 0; i < xr.length; i++) ((err = Math.max(err, Math.abs(x[i] - xr[i]))), (scale = Math.max(scale, Math.abs(xr[i]))));
        expect(err).toBeLessThanOrEqual((dt === 'f64' ? 1e-9 : 1e-3) * scale);
        for (const v of [M, bv, g.x]) v.dispose();
      }
    }
    be.dispose();
  }, 180_000); // pipelines of eight kernels compiled on SwiftShader

  it('checkEvery must be a positive integer', async () => {
    const A = generated('poisson2D-30');
    const h = rt.upload(A);
    for (const bad of [0, -1, 1.5, NaN]) await expect(rt.cg(h, randomData('f64', A.rows, 1), { checkEvery: bad })).rejects.toThrow(RangeError);
  });
});

describe('GPU-resident BiCGSTAB (backend webgpu)', () => {
  let rt: Runtime;
  let cpu: Runtime;
  runtimes((gpu, host) => ((rt = gpu), (cpu = host)));

  const cases: { name: string; A: () => CSRMatrix; dt: DType; tol: number; pre?: 'jacobi' }[] = [
    { name: 'dominant-1500 f64', A: () => dominant(1500, 11), dt: 'f64', tol: 1e-10 },
    { name: 'dominant-1500 f32', A: () => dominant(1500, 11), dt: 'f32', tol: 1e-5 },
    { name: 'dominant-1500 c128 jacobi', A: () => inDType(dominant(1500, 12), 'c128'), dt: 'c128', tol: 1e-10, pre: 'jacobi' },
    { name: 'dominant-1500 c64', A: () => inDType(dominant(1500, 12), 'c64'), dt: 'c64', tol: 1e-5 },
    { name: 'poisson2D-30 f64 jacobi', A: () => generated('poisson2D-30'), dt: 'f64', tol: 1e-8, pre: 'jacobi' },
    { name: 'young1c c128', A: () => loadShared('young1c'), dt: 'c128', tol: 1e-8 },
  ];
  for (const c of cases) {
    it(`${c.name}: converges as the CPU path does, x at the reported iteration`, async () => {
      const A = c.A().astype(c.dt);
      const b = randomData(c.dt, A.rows, 3);
      const seen: number[] = [];
      const opts = { tol: c.tol, preconditioner: c.pre ?? 'none', maxIter: 5000 } as const;
      const g = await rt.bicgstab(rt.upload(A), b, { ...opts, checkEvery: 4, onIteration: (k, rr) => void seen.push(k, rr) });
      const h = await cpu.bicgstab(cpu.upload(A), b, opts);
      expect(h.converged).toBe(true);
      expect(g).toMatchObject({ converged: true, reason: 'converged', path: 'webgpu' });
      expect(Math.abs(g.iterations - h.iterations)).toBeLessThanOrEqual(Math.max(4, 0.1 * h.iterations));
      expect(g.history.length).toBe(g.iterations + 1);
      expect(seen).toEqual(g.history.slice(1).flatMap((v, i) => [i + 1, v]));
      expect(g.recurrenceResidual).toBe(g.history[g.iterations]);
      expect(g.relativeResidual).toBeLessThanOrEqual(c.tol);
      if (g.iterations > 1) expect(g.history[g.iterations - 1]).toBeGreaterThan(c.tol);
      expect(trueResidual(A, g.x, b)).toBeLessThanOrEqual(Math.max(10 * c.tol, 4 * trueResidual(A, h.x, b)));
    });
  }

  it('maxIter and checkEvery 1 (the host loop) agree step by step; NaN; abort; one read-back per block', async () => {
    const A = dominant(800, 13);
    const b = randomData('f64', A.rows, 5);
    const h = rt.upload(A);
    for (const maxIter of [0, 3, 6]) {
      const g = await rt.bicgstab(h, b, { tol: 1e-15, maxIter, checkEvery: 4 });
      const ref = await rt.bicgstab(h, b, { tol: 1e-15, maxIter, checkEvery: 1 });
      expect(g).toMatchObject({ reason: 'maxIter', iterations: maxIter });
      expect(ref).toMatchObject({ reason: 'maxIter', iterations: maxIter });
      for (let i = 0; i <= maxIter; i++) expect(Math.abs(g.history[i] - ref.history[i])).toBeLessThanOrEqual(1e-9 * ref.history[0]);
      expect(Math.abs(trueResidual(A, g.x, b) - g.relativeResidual)).toBeLessThanOrEqual(1e-6 * g.relativeResidual);
    }
    const bn = b.slice();
    bn[3] = NaN;
    expect(await rt.bicgstab(h, bn)).toMatchObject({ reason: 'nan', iterations: 0 });
    const ac = new AbortController();
    const a = await rt.bicgstab(h, b, { tol: 1e-15, signal: ac.signal, checkEvery: 2, onIteration: (k) => void (k === 1 && ac.abort()) });
    expect(a.reason).toBe('aborted');
    expect(a.iterations).toBeLessThanOrEqual(4);
    const stats = (rt.pathById('webgpu') as WebGpuPath).backend.stats;
    const r0 = stats.readbacks;
    const full = await rt.bicgstab(h, b, { tol: 1e-10 });
    expect(full.converged).toBe(true);
    // as CG's above: the blocks and 6 scalars or vectors
    expect(stats.readbacks - r0).toBeLessThanOrEqual(Math.ceil(full.iterations / 16) + 6);
  });

  it("a zero rhat.v is a 'breakdown' at the CPU path's iteration", async () => {
    // A = [[0, 1], [1, 0]], b = e1: r̂ᴴ·A·r̂ = 0 in the first iteration
    const A = new CSRMatrix(2, 2, 'f64', new Int32Array([0, 1, 2]), new Int32Array([1, 0]), new Float64Array([1, 1]));
    const b = new Float64Array([1, 0]);
    const g = await rt.bicgstab(rt.upload(A), b);
    const h = await cpu.bicgstab(cpu.upload(A), b);
    expect(h.reason).toBe('breakdown');
    expect(g).toMatchObject({ reason: 'breakdown', iterations: h.iterations });
  });
});

it('a device lost during a resident solve rejects it with WebGpuDeviceLostError (no stray rejection)', async () => {
  const got = await acquireDevice({});
  if ('reason' in got) throw new Error(`NO WEBGPU ADAPTER: ${got.reason}`);
  const rt = await createRuntime({ backend: 'webgpu', webgpu: { device: got.device } });
  try {
    const A = generated('poisson2D-30');
    const h = rt.upload(A);
    const lose = (k: number) => void (k === 2 && (rt.pathById('webgpu') as WebGpuPath).backend.loseDevice());
    await expect(rt.cg(h, randomData('f64', A.rows, 1), { checkEvery: 2, onIteration: lose })).rejects.toThrow(WebGpuDeviceLostError);
  } finally {
    rt.dispose();
  }
});
