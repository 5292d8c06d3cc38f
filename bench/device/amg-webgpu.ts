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
 *   node amg-webgpu.mjs [--cupy cupy.tsv] [--n 128] [--workers 16] > amg.tsv
 */
import { readFileSync, existsSync } from 'node:fs';
import { create as createDawn } from 'webgpu';
import { createRuntime } from '../../src/runtime/runtime.js';
import { poisson3D } from '../../src/generators/poisson.js';
import { median } from '../../src/metrics.js';
import { trueResidual } from './true-residual.js';

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
const perAmg = (a12 - a2) / 10;
const total = setupMs + firstSolveMs;
console.log(`# ${rt.explain('spmv', h).path ?? ''} poisson3D(${n}), ${A.rows} rows; hierarchy ${info.levels.map((l) => l.rows).join('/')}, OC ${info.operatorComplexity.toFixed(2)}, coarsest level ${info.coarse} (${info.coarseReason})`);
console.log(`plain CG\t${plain.iterations} its\t${plainMs.toFixed(0)} ms\t${perPlain.toFixed(3)} ms/it`);
console.log(`AMG-PCG\t${r.iterations} its\tsetup ${setupMs.toFixed(0)} ms\tfirst solve ${firstSolveMs.toFixed(0)} ms\tkept-hierarchy solve ${solveMs.toFixed(0)} ms\t${perAmg.toFixed(3)} ms/it\ttrue relres ${trueResidual(A, r.x as Float64Array, b).toExponential(2)}`);
console.log(`second hierarchy\tsetup ${setup2Ms.toFixed(0)} ms\tfirst solve ${firstSolve2Ms.toFixed(0)} ms\t${r2.iterations} its`);
console.log(`AMG iteration / plain CG iteration\t${(perAmg / perPlain).toFixed(2)} (operator complexity ${info.operatorComplexity.toFixed(2)}: a V-cycle with one Jacobi sweep each side is ≈ 4·OC SpMV-equivalents)`);
console.log(`time to solution: setup + solve ${total.toFixed(0)} ms; our plain CG ${plainMs.toFixed(0)} ms (${(plainMs / total).toFixed(2)}×); CuPy cg ${cupyMs?.toFixed(0) ?? 'n/a'} ms (${cupyMs ? (cupyMs / total).toFixed(2) : 'n/a'}×, goal: ours below it)`);
rt.dispose();
