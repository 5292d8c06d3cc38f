/**
 * Saddle points (twenty-fourth session): stokes2D on the WebGPU path (Dawn) and the CPU pool, rt.solve to 1e-8
 * with 'auto' (MINRES + the 'saddle' preconditioner: the AMG cycle of its block-diagonal matrix on the path)
 * against MINRES alone, each call on a fresh handle (the set-up made in it), f64, b the uniform x-force of
 * stokes2D's example, median of RUNS calls after one. The true residual is recomputed here.
 *
 *   node saddle.mjs [--workers 16] [--runs 3] [--sizes 300,600,1000] [--wind 10,10] > saddle.tsv
 *
 * With --wind (twenty-fifth session) the Oseen matrices stokes2D(n, { wind }): 'auto' is then BiCGSTAB with
 * the block-triangular 'saddle' preconditioner, against the factorization where it fits (n ≤ 300).
 */
import { create as createDawn } from 'webgpu';
import { createRuntime } from '../../src/runtime/runtime.js';
import { stokes2D } from '../../src/generators/stokes.js';
import { trueResidual } from './true-residual.js';
import { solveRounds, tsvLine } from '../solve-rounds.mjs';

const args = process.argv.slice(2);
const opt = (k: string, d: string) => (args.includes(k) ? args[args.indexOf(k) + 1] : d);
const workers = Number(opt('--workers', '16'));
const runs = Number(opt('--runs', '3'));
const sizes = opt('--sizes', '300,600,1000').split(',').map(Number);
const wind = args.includes('--wind') ? (opt('--wind', '').split(',').map(Number) as [number, number]) : undefined;
const gpu = createDawn(['disable-dawn-features=timestamp_quantization']) as unknown as GPU;
for (const backend of ['webgpu', 'cpu'] as const) {
  const rt = await createRuntime({ backend, workers, webgpu: { gpu } });
  for (const n of sizes) {
    const A = wind ? stokes2D(n, { wind }) : stokes2D(n);
    const b = new Float64Array(A.rows).fill(1 / n ** 2, 0, (n - 1) * n);
    // MINRES alone only where it ends in seconds (its iterations double with n); an Oseen matrix's LU where its factor stays small
    const other = wind ? (n <= 300 ? [['direct', { method: 'direct' }]] : []) : n <= 600 ? [['minres', { method: 'minres', preconditioner: 'none' }]] : [];
    const variants = [['auto', {}], ...other];
    for (const o of await solveRounds(rt, A, b, variants, runs)) console.log(tsvLine(backend, `stokes2D(${n}${wind ? `, wind ${wind}` : ''}) ${A.rows} rows`, o, (x) => trueResidual(A, x, b)));
  }
  rt.dispose();
}
