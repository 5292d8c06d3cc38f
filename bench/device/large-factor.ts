/**
 * 'auto' above DIRECT_MAX_N on a 2-D elasticity stiffness matrix (twenty-third session): on the WebGPU path
 * (Dawn) and the CPU pool, rt.solve to 1e-8 with 'auto' (now its factorization on the host: factorizeAboveCap)
 * against the Krylov candidate it ran before (cg + 'auto''s preconditioner of that path) and method 'direct',
 * each call on a fresh handle (the plan and set-up made in it), f64, b = 1, median of RUNS calls after one.
 * The true residual is recomputed here.
 *
 *   node large-factor.mjs [--workers 16] [--runs 3] > large-factor.tsv
 */
import { create as createDawn } from 'webgpu';
import { createRuntime } from '../../src/runtime/runtime.js';
import { elasticity2D } from '../../src/generators/elasticity.js';
import { trueResidual } from './true-residual.js';
import { solveRounds, tsvLine } from '../solve-rounds.mjs';

const args = process.argv.slice(2);
const opt = (k: string, d: string) => Number(args.includes(k) ? args[args.indexOf(k) + 1] : d);
const workers = opt('--workers', '16');
const runs = opt('--runs', '3');
const gpu = createDawn(['disable-dawn-features=timestamp_quantization']) as unknown as GPU;
for (const backend of ['webgpu', 'cpu'] as const) {
  const rt = await createRuntime({ backend, workers, webgpu: { gpu } });
  for (const n of [200, 300, 400]) {
    const A = elasticity2D(n);
    const b = new Float64Array(A.rows).fill(1);
    const variants = [['auto', {}], ['cg', { method: 'cg', preconditioner: 'auto' }], ['direct', { method: 'direct' }]];
    for (const o of await solveRounds(rt, A, b, variants, runs)) console.log(tsvLine(backend, `elasticity2D(${n}) ${A.rows} rows`, o, (x) => trueResidual(A, x, b)));
  }
  rt.dispose();
}
