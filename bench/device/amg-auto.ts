/**
 * What rt.solve's 'auto' weighs on the WebGPU path (issue 20/21): time to a solution (upload, structure
 * check, setup included) with Jacobi (the iteration resident on the GPU) against AMG (setup on the
 * host, the cycle on the GPU), and what 'auto' picks, on poisson3D(128) and poisson2D(1024), f64,
 * b = 1, tol 1e-8, one run each after a warm-up. Built into the carry folder by amg-build.sh.
 *
 *   node amg-auto.mjs [--workers 16] [--n3 128] [--n2 1024] > auto.tsv
 */
import { create as createDawn } from 'webgpu';
import { createRuntime } from '../../src/runtime/runtime.js';
import { poisson2D, poisson3D } from '../../src/generators/poisson.js';
import { trueResidual } from './true-residual.js';

const args = process.argv.slice(2);
const opt = (k: string, d: string) => Number(args.includes(k) ? args[args.indexOf(k) + 1] : d);
const workers = opt('--workers', '16');
const [n3, n2] = [opt('--n3', '128'), opt('--n2', '1024')];
const gpu = createDawn(['disable-dawn-features=timestamp_quantization']) as unknown as GPU;
const rt = await createRuntime({ backend: 'webgpu', workers, webgpu: { gpu } });
const warm = rt.upload(poisson3D(16));
for (const preconditioner of ['jacobi', 'amg'] as const) await rt.solve(warm, new Float64Array(warm.rows).fill(1), { preconditioner });
warm.dispose();
for (const [name, A] of [
  [`poisson3D(${n3})`, poisson3D(n3)],
  [`poisson2D(${n2})`, poisson2D(n2)],
] as const) {
  const b = new Float64Array(A.rows).fill(1);
  for (const preconditioner of ['jacobi', 'amg', 'auto'] as const) {
    const t = performance.now();
    const h = rt.upload(A);
    const r = await rt.solve(h, b, { tol: 1e-8, preconditioner });
    const ms = performance.now() - t;
    h.dispose();
    console.log(`${name}\t${preconditioner}\t${r.path}\t${r.preconditioner}\t${r.iterations} its\t${ms.toFixed(0)} ms\ttrue relres ${trueResidual(A, r.x, b).toExponential(2)}`);
  }
}
rt.dispose();
