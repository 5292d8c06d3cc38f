/**
 * The CPU path's triangular solves on the pool (twenty-first session): BiCGSTAB + ILU(0) on upwind
 * convection–diffusion and CG + IC(0) on poisson3D, f64, to 1e-8, b = 1, on a preconditioner built once
 * (its set-up timed apart), median of RUNS solves after one; the true residual recomputed here. Bundled
 * over this tree and over a baseline (carry_base_bundle) and run alternately by trisolve-pool-run.sh.
 *
 *   node trisolve-pool.mjs [--workers 16] [--runs 3] > trisolve.tsv
 */
import { createRuntime } from '../../src/runtime/runtime.js';
import { CSRMatrix } from '../../src/formats/csr.js';
import { poisson2D, poisson3D } from '../../src/generators/poisson.js';
import { trueResidual } from './true-residual.js';

const args = process.argv.slice(2);
const opt = (k: string, d: string) => Number(args.includes(k) ? args[args.indexOf(k) + 1] : d);
const workers = opt('--workers', '16');
const runs = opt('--runs', '3');
const label = args.includes('--label') ? args[args.indexOf('--label') + 1] : '';
function upwind(P: CSRMatrix, c: number): CSRMatrix {
  const values = Float64Array.from(P.values);
  for (let i = 0; i < P.rows; i++) for (let k = P.rowPtr[i]; k < P.rowPtr[i + 1]; k++) values[k] += P.colIdx[k] === i ? c : P.colIdx[k] === i - 1 ? -c : 0;
  return new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, values);
}
const med = (a: number[]) => a.slice().sort((x, y) => x - y)[a.length >> 1];
const rt = await createRuntime({ backend: 'cpu', workers });
for (const [name, make, method, kind] of [
  ['3-D N=64 c=0.5', () => upwind(poisson3D(64), 0.5), 'bicgstab', 'ilu0'],
  ['3-D N=128 c=0.5', () => upwind(poisson3D(128), 0.5), 'bicgstab', 'ilu0'],
  ['2-D N=512 c=2', () => upwind(poisson2D(512), 2), 'bicgstab', 'ilu0'],
  ['2-D N=1024 c=2', () => upwind(poisson2D(1024), 2), 'bicgstab', 'ilu0'],
  ['poisson3D(128)', () => poisson3D(128), 'cg', 'ic0'],
  ['poisson3D(100)', () => poisson3D(100), 'cg', 'ic0'],
  ['3-D N=100 c=0.5', () => upwind(poisson3D(100), 0.5), 'bicgstab', 'ilu0'],
] as const) {
  const A = make();
  const b = new Float64Array(A.rows).fill(1);
  const h = rt.upload(A);
  const s0 = performance.now();
  const P = rt.preconditioner(h, { kind });
  const setup = performance.now() - s0;
  const t: number[] = [];
  let r;
  for (let k = 0; k <= runs; k++) {
    const s = performance.now();
    r = await rt.solve(h, b, { tol: 1e-8, method, preconditioner: P });
    if (k > 0) t.push(performance.now() - s);
  }
  console.log(`${label}\t${workers} workers\t${name}\t${r!.method}+${r!.preconditioner}\t${r!.iterations} its\t${r!.reason}\tsetup ${setup.toFixed(1)} ms\tsolve ${med(t).toFixed(1)} ms\t${(med(t) / r!.iterations).toFixed(2)} ms/it\ttrue relres ${trueResidual(A, r!.x, b).toExponential(2)}`);
  P.dispose();
  h.dispose();
}
rt.dispose();
