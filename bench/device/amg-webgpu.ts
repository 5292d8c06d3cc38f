/**
 * Issue 21, WebGPU part: AMG-PCG on poisson3D(n) (default 128) to 1e-8 with the cycle on the GPU
 * (rt.amg on the WebGPU path, Dawn in Node; setup on the host, its SpGEMM on the pool's --workers threads) against our plain CG on the same path
 * and CuPy's cg on the same GPU (bench/device/solve_cg_cupy.py, run first in the same call by
 * bench/device/amg-run.sh; its figures are read from --cupy). Prints: setup ms, solve ms (a second
 * solve with the kept hierarchy), iterations, the true residual; ms per AMG-PCG iteration and per plain
 * CG iteration from solves of two lengths (difference / iterations), so the cycle's cost shows in
 * plain-CG iterations (one SpMV plus its BLAS-1 each); then a second hierarchy's setup and first solve (the
 * uploads again, without the process's one-off pipeline compilation and staging memory).
 *
 *   node amg-webgpu.mjs [--cupy cupy.tsv] [--n 128] [--workers 16] [--fresh] > amg.tsv
 */
import { readFileSync, existsSync } from 'node:fs';
import { create as createDawn } from 'webgpu';
import { createRuntime } from '../../src/runtime/runtime.js';
import { poisson3D } from '../../src/generators/poisson.js';
import { median } from '../../src/metrics.js';
import { trueResidual } from './true-residual.js';
import type { CSRMatrix } from '../../src/formats/csr.js';
import type { Path, PathMatrix, PathVector } from '../../src/path.js';
import type { SolveStructure } from '../../src/solvers/structure.js';
import type { SparseKernels } from '../../src/solvers/amg/spgemm.js';
import type { MatrixHandle } from '../../src/runtime/handles.js';
import { amgSetup } from '../../src/solvers/amg/index.js';
import { amgCycle, denseCSR, diagonal } from '../../src/solvers/amg/cycle.js';
import type { WebGpuBackend } from '../../src/webgpu/backend.js';

const args = process.argv.slice(2);
const opt = (k: string, d: string) => (args.includes(k) ? args[args.indexOf(k) + 1] : d);
const n = Number(opt('--n', '128'));
const cupyFile = opt('--cupy', '');
const workers = Number(opt('--workers', '16'));
const gpu = createDawn(['disable-dawn-features=timestamp_quantization']) as unknown as GPU;
// the setup's SpGEMM runs on the CPU pool (issue 21: setup on the 16-core pool)
const rt = await createRuntime({ backend: 'webgpu', workers, webgpu: { gpu } });


let cupyMs: number | undefined;
if (cupyFile && existsSync(cupyFile)) {
  for (const line of readFileSync(cupyFile, 'utf8').split('\n')) {
    const f = line.split('\t');
    if (f[0] === 'CUPY_CG_HOST' && f[2] === 'f64') cupyMs = Number(f[4]);
  }
}
const A = poisson3D(n);
const b = new Float64Array(A.rows).fill(1);
// --fresh: a user's first solve instead, then exit: rt.amg on a handle nothing has read yet (the
// structure check and the first copies are the setup's) and its first solve, the process's first too
// (every pipeline compiled then, plain CG's included)
if (args.includes('--fresh')) {
  const hf = rt.upload(A);
  const t = performance.now();
  const Mf = rt.amg(hf);
  const setup = performance.now() - t;
  const rf = await rt.cg(hf, b, { tol: 1e-8, preconditioner: Mf });
  const total = performance.now() - t;
  console.log(`fresh handle, the process's first solve\tsetup ${setup.toFixed(0)} ms\tfirst solve ${(total - setup).toFixed(0)} ms\t${rf.iterations} its\ttrue relres ${trueResidual(A, rf.x as Float64Array, b).toExponential(2)}\ttime to solution ${total.toFixed(0)} ms; CuPy cg ${cupyMs?.toFixed(0) ?? 'n/a'} ms`);
  rt.dispose();
  process.exit(0);
}
const h = rt.upload(A);
await rt.cg(h, b, { tol: 1e-8, maxIter: 5 }); // warm-up: upload, pipelines
const time = async (f: () => Promise<unknown>) => {
  const t = performance.now();
  await f();
  return performance.now() - t;
};
// plain CG: to 1e-8, and ms per iteration from 20 and 120 iterations
const plain = await rt.cg(h, b, { tol: 1e-8, checkEvery: 1 });
const plainMs = median([await time(() => rt.cg(h, b, { tol: 1e-8 })), await time(() => rt.cg(h, b, { tol: 1e-8 }))]);
const p20 = median([await time(() => rt.cg(h, b, { tol: 0, maxIter: 20, checkEvery: 1 })), await time(() => rt.cg(h, b, { tol: 0, maxIter: 20, checkEvery: 1 }))]);
const p120 = median([await time(() => rt.cg(h, b, { tol: 0, maxIter: 120, checkEvery: 1 })), await time(() => rt.cg(h, b, { tol: 0, maxIter: 120, checkEvery: 1 }))]);
// AMG: setup + first solve, then a second solve with the kept hierarchy
const t0 = performance.now();
const M = rt.amg(h);
const setupMs = performance.now() - t0;
const t1 = performance.now();
const r = await rt.cg(h, b, { tol: 1e-8, preconditioner: M });
const firstSolveMs = performance.now() - t1;
const solveMs = median([await time(() => rt.cg(h, b, { tol: 1e-8, preconditioner: M })), await time(() => rt.cg(h, b, { tol: 1e-8, preconditioner: M }))]);
const a2 = median([await time(() => rt.cg(h, b, { tol: 0, maxIter: 2, preconditioner: M })), await time(() => rt.cg(h, b, { tol: 0, maxIter: 2, preconditioner: M }))]);
const a12 = median([await time(() => rt.cg(h, b, { tol: 0, maxIter: 12, preconditioner: M })), await time(() => rt.cg(h, b, { tol: 0, maxIter: 12, preconditioner: M }))]);
// a second hierarchy of the same matrix: its first solve pays the uploads again, but no pipeline
// compilation nor fresh staging memory (what the first solve pays once per process)
const info = M.amg!;
M.dispose();
const t2 = performance.now();
const M2 = rt.amg(h);
const setup2Ms = performance.now() - t2;
const t3 = performance.now();
const r2 = await rt.cg(h, b, { tol: 1e-8, preconditioner: M2 });
const firstSolve2Ms = performance.now() - t3;
M2.dispose();
const perPlain = (p120 - p20) / 100;

// The cycle against its SpMVs (issue 21: within 3× of them): a hierarchy of the same matrix made again
// through the runtime's internals, the cycle on the WebGPU path's solver operations, and each of its
// operators alone (the same uploads): ms per application from 20 back to back, one scalar read after
// (host recording and that read's round trip included), and each operator's GPU time by timestamps.
const internal = rt as unknown as { sparseKernels: SparseKernels; paths: Path[]; solveStructureOf(h: MatrixHandle): { csr: CSRMatrix; structureIn(): SolveStructure }; matrixOn(h: MatrixHandle, p: Path, op: 'N'): PathMatrix };
const analysis = internal.solveStructureOf(h);
const csr = analysis.csr;
const structure = analysis.structureIn();
const H = amgSetup(csr, structure, internal.sparseKernels).hierarchy;
const path = internal.paths.find((p) => p.id === 'webgpu')!;
const ops = path.solverOps(internal.matrixOn(h, path, 'N'), csr, 'none');
const rate = async (f: () => Promise<void>, sync: PathVector, K = 20) => {
  await f();
  await ops.nrm2(sync);
  const t = performance.now();
  for (let k = 0; k < K; k++) await f();
  await ops.nrm2(sync);
  return (performance.now() - t) / K;
};
const C = amgCycle(ops, H);
const rv = ops.vector();
path.write(rv, b);
const zv = ops.vector();
const cycleMs = await rate(() => C.apply(rv, zv), zv);
const last = H.levels.length - 1;
// per V-cycle: A twice on each smoothed level (the fine one is the solve's own), D⁻¹ twice, R and P once, the coarse inverse once
const parts: { what: string; M?: CSRMatrix | ReturnType<typeof diagonal>; rows: number; cols: number; times: number; beta: number; bytes: number }[] = [];
const csrBytes = (M: CSRMatrix, beta: number) => M.nnz * 12 + M.rows * (4 + 8 + 8 * beta) + M.cols * 8;
parts.push({ what: 'A0 (the solve\'s)', rows: A.rows, cols: A.rows, times: 2, beta: 1, bytes: 7 * A.rows * 4 + A.rows * 24 });
H.levels.forEach((L, l) => {
  if (l === last) {
    if (H.coarse.kind !== 'dense') return; // a sparse factor's triangular solves: not SpMVs
    const inv = denseCSR(H.coarse.inverse, L.A.rows);
    parts.push({ what: `coarse inverse ${L.A.rows}²`, M: inv, rows: L.A.rows, cols: L.A.rows, times: 1, beta: 0, bytes: csrBytes(inv, 0) });
    return;
  }
  if (l > 0) parts.push({ what: `A${l}`, M: L.A, rows: L.A.rows, cols: L.A.rows, times: 2, beta: 1, bytes: csrBytes(L.A, 1) });
  parts.push({ what: `D${l}⁻¹`, M: diagonal(L.dinv), rows: L.A.rows, cols: L.A.rows, times: 2, beta: 1, bytes: L.A.rows * 32 });
  parts.push({ what: `R${l}`, M: L.R!, rows: L.R!.rows, cols: L.R!.cols, times: 1, beta: 0, bytes: csrBytes(L.R!, 0) });
  parts.push({ what: `P${l}`, M: L.P!, rows: L.P!.rows, cols: L.P!.cols, times: 1, beta: 1, bytes: csrBytes(L.P!, 1) });
});
const uploaded = await ops.operators!(parts.filter((p) => p.M).map((p) => p.M!), { fewProducts: true });
let sumMs = 0;
let sumGpu = 0;
let sumBytes = 0;
const be = (path as unknown as { backend: WebGpuBackend }).backend;
const lines: string[] = [];
for (let i = 0, u = 0; i < parts.length; i++) {
  const p = parts[i];
  const x = ops.vector(p.cols);
  const y = ops.vector(p.rows);
  const op = p.M ? uploaded[u++] : undefined;
  const apply = () => (op ? op.apply(x, y, 1, p.beta) : ops.spmv(x, y, -1, 1));
  const ms = await rate(apply, y);
  // GPU time alone (timestamps around 20 products recorded back to back: the path records an operator's product synchronously)
  await apply();
  const gpu = await be.kernelTime(() => {
    for (let k = 0; k < 20; k++) void apply();
  });
  const g = gpu === null ? NaN : gpu / 20;
  sumMs += p.times * ms;
  sumGpu += p.times * g;
  sumBytes += p.times * p.bytes;
  lines.push(`${p.what} ${ms.toFixed(3)} ms, GPU ${g.toFixed(3)} ms ×${p.times} (${(p.bytes / 1e6 / g).toFixed(0)} GB/s)`);
  ops.release(x);
  ops.release(y);
}
for (const o of uploaded) o.dispose();
C.dispose();
ops.release(rv);
ops.release(zv);
const perAmg = (a12 - a2) / 10;
const total = setupMs + firstSolveMs;
console.log(`# ${rt.explain('spmv', h).path ?? ''} poisson3D(${n}), ${A.rows} rows; hierarchy ${info.levels.map((l) => l.rows).join('/')}, OC ${info.operatorComplexity.toFixed(2)}, coarsest level ${info.coarse} (${info.coarseReason})`);
console.log(`plain CG\t${plain.iterations} its\t${plainMs.toFixed(0)} ms\t${perPlain.toFixed(3)} ms/it`);
console.log(`AMG-PCG\t${r.iterations} its\tsetup ${setupMs.toFixed(0)} ms\tfirst solve ${firstSolveMs.toFixed(0)} ms\tkept-hierarchy solve ${solveMs.toFixed(0)} ms\t${perAmg.toFixed(3)} ms/it\ttrue relres ${trueResidual(A, r.x as Float64Array, b).toExponential(2)}`);
console.log(`second hierarchy\tsetup ${setup2Ms.toFixed(0)} ms\tfirst solve ${firstSolve2Ms.toFixed(0)} ms\t${r2.iterations} its`);
console.log(`AMG iteration / plain CG iteration\t${(perAmg / perPlain).toFixed(2)} (operator complexity ${info.operatorComplexity.toFixed(2)}: a V-cycle with one Jacobi sweep each side is ≈ 4·OC SpMV-equivalents)`);
console.log(`cycle alone\t${cycleMs.toFixed(3)} ms\tits SpMVs called alone ${sumMs.toFixed(3)} ms\ttheir GPU time ${sumGpu.toFixed(3)} ms (${(sumBytes / 1e6).toFixed(0)} MB at ${(sumBytes / 1e6 / sumGpu).toFixed(0)} GB/s)\tcycle / SpMVs' GPU time ${(cycleMs / sumGpu).toFixed(2)} (goal ≤ 3)\t${lines.join('; ')}`);
console.log(`time to solution: setup + solve ${total.toFixed(0)} ms; our plain CG ${plainMs.toFixed(0)} ms (${(plainMs / total).toFixed(2)}×); CuPy cg ${cupyMs?.toFixed(0) ?? 'n/a'} ms (${cupyMs ? (cupyMs / total).toFixed(2) : 'n/a'}×, goal: ours below it)`);
rt.dispose();
