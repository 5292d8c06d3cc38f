/**
 * f32 storage refined to a true 1e-10 against the f64 solve on poisson3D(64) (issue 20's mixed-precision
 * goal, which bench/solve.ts times once each with the upload): here warm rt.solve calls on one upload of
 * each, alternating, with wall and process CPU time (all threads: steadier than wall on a shared
 * machine), min and median of 5, and iterations / residual replacements. After `npm run build`:
 *   node bench/refine-probe.mjs
 */
import { createRuntime, poisson3D } from '../dist/index.js';

const rt = await createRuntime();
const P = poisson3D(64);
const b = new Float64Array(P.rows).fill(1);
const h = { f64: rt.upload(P), f32: rt.upload(P.astype('f32')) };
const runs = { f64: [], f32: [] };
for (let k = 0; k < 6; k++) {
  for (const dt of ['f64', 'f32']) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const r = await rt.solve(h[dt], b, { tol: 1e-10 });
    const wall = performance.now() - t0;
    const c = process.cpuUsage(c0);
    if (!r.converged) throw new Error(`${dt}: ${r.reason}, true ${r.relativeResidual}`);
    // the first call of each includes the structure analysis and path choice: not counted
    if (k > 0) runs[dt].push({ wall, cpu: (c.user + c.system) / 1e3, it: r.iterations, ref: r.refinements });
  }
}
const med = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
for (const [dt, v] of Object.entries(runs)) {
  const w = v.map((x) => x.wall);
  const c = v.map((x) => x.cpu);
  console.log(`${dt}: wall min ${Math.min(...w).toFixed(0)} / median ${med(w).toFixed(0)} ms, CPU min ${Math.min(...c).toFixed(0)} / median ${med(c).toFixed(0)} ms, ${v[0].it} iterations, ${v[0].ref} refinements`);
}
rt.dispose();
