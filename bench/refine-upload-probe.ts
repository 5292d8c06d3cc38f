/**
 * f32 + refinement to a true 1e-10 against the f64 solve on poisson3D(64), as bench/solve.ts times it
 * (`rt.upload` + `rt.solve` each time: the goal's setup included) but alternating the two dtypes within
 * one process, one untimed round, medians of N (default 7): total, upload, up to the first iteration,
 * iterations (f32: with its residual replacements), after the last, iterations and replacements.
 *   npx esbuild bench/refine-upload-probe.ts --bundle --platform=node --format=esm --outfile=build/refine-upload-probe.js
 *   node build/refine-upload-probe.js [N]
 * (after `npm run build`, which compiles the wasm kernels). INLINE=t: createRuntime's inlineThreshold t
 * (0: every operation pooled) instead of 'auto'; SPIN=µs: its spinUs; STATS=1: what 'auto' measured for
 * the CG steps and refinement kernels, ms a call inline / pooled and calls each way.
 */
import { createRuntime } from '../src/runtime/runtime.js';
import { poisson3D } from '../src/generators/poisson.js';
import { median } from '../src/metrics.js';

const rt = await createRuntime({ ...(process.env.INLINE ? { inlineThreshold: Number(process.env.INLINE) } : {}), ...(process.env.SPIN ? { spinUs: Number(process.env.SPIN) } : {}) });
const A = poisson3D(64);
const Af = A.astype('f32');
const b = new Float64Array(A.rows).fill(1);
const reps = Number(process.argv[2] ?? 7);
const cols = ['total', 'upload', 'pre-it1', 'iterations', 'after', 'it', 'replacements'];
const res: Record<string, number[][]> = { f64: [], f32: [] };
for (let k = -1; k < reps; k++) {
  for (const [name, M] of [['f64', A], ['f32', Af]] as const) {
    let first = 0;
    let last = 0;
    const t0 = performance.now();
    const h = rt.upload(M);
    const t1 = performance.now();
    const onIteration = (i: number) => {
      if (i === 1) first = performance.now();
      last = performance.now();
    };
    const r = await rt.solve(h, b, { tol: 1e-10, onIteration });
    const t2 = performance.now();
    h.dispose();
    if (!r.converged) throw new Error(`${name}: ${r.reason} at ${r.relativeResidual}`);
    if (k >= 0) res[name].push([t2 - t0, t1 - t0, first - t1, last - first, t2 - last, r.iterations, r.refinements]);
  }
}
for (const name of ['f64', 'f32']) console.log(name, cols.map((c, j) => `${c} ${median(res[name].map((r) => r[j])).toFixed(1)}`).join('  '));
console.log(`f64 / f32: ${(median(res.f64.map((r) => r[0])) / median(res.f32.map((r) => r[0]))).toFixed(2)}×`);
if (process.env.STATS)
  for (const [k, v] of Object.entries(rt.cpuBackend.dispatchStats ?? {}))
    if (/^cg|^refine/.test(k) && v.samples[0] + v.samples[1] > 20) console.log(`   ${k} inline ${((v.inline * A.rows) / 1e6).toFixed(3)} pool ${((v.pool * A.rows) / 1e6).toFixed(3)} samples ${v.samples}`);rt.dispose();
