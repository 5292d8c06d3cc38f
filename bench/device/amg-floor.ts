/**
 * Issue 21, fourteenth session: what bounds an AMG setup of poisson3D(n) on this host from below, measured
 * in one process on the WebGPU runtime (the setup on the pool's --workers threads): the fine A's copy into
 * the pool's memory (CpuSparseSession.resident), D⁻¹, one and fifteen Lanczos steps over it (so a step's
 * time, and the pool's streaming rate from the bytes a step reads and writes), the four symmetric
 * Gauss–Seidel sweeps on the near-null space; then rt.amg with PyAMG's defaults against
 * improveCandidates 0 (no Gauss–Seidel sweeps: what the cheapest honest change of the algorithm saves and
 * costs), alternated: setup, first solve, a kept hierarchy's solve, iterations, true residual. The first
 * rt.amg runs before the probe (a process's first setup, as bench/device/amg-webgpu.ts's). Measurement only.
 *   node amg-floor.mjs [--n 128] [--workers 16] [--rounds 2] [--cpu: the CPU runtime instead, to try it where no GPU is]
 */
import { create as createDawn } from 'webgpu';
import { createRuntime } from '../../src/runtime/runtime.js';
import { poisson3D } from '../../src/generators/poisson.js';
import { CpuSparseSession } from '../../src/cpu/spgemm.js';
import { trueResidual } from './true-residual.js';
import type { AmgOptions } from '../../src/solvers/amg/hierarchy.js';

const arg = (k: string, d: number) => (process.argv.includes(k) ? Number(process.argv[process.argv.indexOf(k) + 1]) : d);
const n = arg('--n', 128);
const workers = arg('--workers', 16);
const rt = process.argv.includes('--cpu') ? await createRuntime({ workers }) : await createRuntime({ backend: 'webgpu', workers, webgpu: { gpu: createDawn(['disable-dawn-features=timestamp_quantization']) as unknown as GPU } });
const A = poisson3D(n);
const b = new Float64Array(A.rows).fill(1);
const h = rt.upload(A);
await rt.cg(h, b, { tol: 1e-8, maxIter: 5 }); // the upload and the pipelines, as amg-webgpu.ts
const ms = (f: () => unknown) => {
  const t = performance.now();
  f();
  return performance.now() - t;
};
const amg = async (what: string, o: AmgOptions) => {
  const t0 = performance.now();
  const M = rt.amg(h, o);
  const setup = performance.now() - t0;
  const t1 = performance.now();
  const r = await rt.cg(h, b, { tol: 1e-8, preconditioner: M });
  const first = performance.now() - t1;
  const t2 = performance.now();
  await rt.cg(h, b, { tol: 1e-8, preconditioner: M });
  const kept = performance.now() - t2;
  const levels = M.amg!.levels.map((l) => l.rows).join('/');
  console.log(`${what}\tsetup ${setup.toFixed(0)} ms\tfirst solve ${first.toFixed(0)} ms\tsetup + first solve ${(setup + first).toFixed(0)} ms\tkept-hierarchy solve ${kept.toFixed(0)} ms\t${r.iterations} its\ttrue relres ${trueResidual(A, r.x as Float64Array, b).toExponential(2)}\tlevels ${levels}`);
  M.dispose();
};
await amg('rt.amg defaults (the process\'s first setup)', {});

// the pool's pieces over the fine A, three times (the first pays fresh pages)
const B = rt.cpuBackend;
const stepBytes = 4 * (A.rows + 1) + 12 * A.nnz + 10 * 8 * A.rows; // A, and s, x, y (twice), u: both passes
for (let k = 0; k < 3; k++) {
  const s = new CpuSparseSession(B);
  try {
    const copy = ms(() => s.resident(A));
    let dinv = new Float64Array(0);
    const diag = ms(() => ({ dinv } = s.diagonal(A)));
    let rho = 0;
    const one = ms(() => s.lanczosBounds(A, dinv, 1));
    const fifteen = ms(() => (rho = s.lanczosBounds(A, dinv, 15).max));
    const step = (fifteen - one) / 14;
    const x = s.ones(A.rows);
    const gs = ms(() => s.gaussSeidelOnZero(A, x, 4));
    console.log(`pool ${k + 1}\tA's copy ${copy.toFixed(1)} ms (${((4 * (A.rows + 1) + 12 * A.nnz) / copy / 1e6).toFixed(1)} GB/s)\tD⁻¹ ${diag.toFixed(1)} ms\tLanczos 1 step ${one.toFixed(1)} ms, 15 steps ${fifteen.toFixed(1)} ms (ρ ${rho.toFixed(5)}): a step ${step.toFixed(2)} ms, ${(stepBytes / step / 1e6).toFixed(0)} GB/s\tGauss–Seidel 4 symmetric sweeps ${gs.toFixed(1)} ms (${(gs / 8).toFixed(2)} a half-sweep)`);
  } finally {
    s.dispose();
  }
}

for (let r = 0; r < arg('--rounds', 2); r++) {
  const both: [string, AmgOptions][] = [['rt.amg defaults', {}], ['rt.amg improveCandidates 0', { improveCandidates: 0 }]];
  for (const [what, o] of r % 2 ? both : both.reverse()) await amg(`${what} (round ${r + 1})`, o);
}
rt.dispose();
